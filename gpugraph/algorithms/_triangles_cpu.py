"""Numba CPU kernels of weighted triangle enumeration (private: used by triangles.py and lcc.py)."""

from __future__ import annotations

import numba


@numba.njit(cache=True, parallel=True, nogil=True)
def enumerate_triangles(indptr, indices, arc_weight, vertex_count, arc_count):
    """Enumerate each triangle once on a degree-oriented graph (rows sorted by vertex id).

    A triangle ``u < v < w`` (in orientation order) is found by the thread of ``u`` at its arc
    ``e = u -> v`` with ``w`` in both rows. Each corner is credited the weight of the opposite
    arc: ``u`` directly in ``vertex_count``; ``v`` and ``w`` through ``arc_count`` of the arcs
    ``u -> v`` and ``u -> w`` (both in row ``u``, so no other thread writes them).
    :func:`credit_arc_destinations` then adds ``arc_count`` to the arcs' destinations.
    """
    for u in numba.prange(indptr.shape[0] - 1):
        row_end = indptr[u + 1]
        for arc in range(indptr[u], row_end):
            v = indices[arc]
            i = indptr[u]
            j = indptr[v]
            other_end = indptr[v + 1]
            while i < row_end and j < other_end:
                mine = indices[i]
                theirs = indices[j]
                if mine < theirs:
                    i += 1
                elif theirs < mine:
                    j += 1
                else:
                    vertex_count[u] += arc_weight[j]
                    arc_count[arc] += arc_weight[i]
                    arc_count[i] += arc_weight[arc]
                    i += 1
                    j += 1


@numba.njit(cache=True, nogil=True)
def credit_arc_destinations(indices, arc_count, vertex_count):
    """``vertex_count[indices[e]] += arc_count[e]`` for every arc (serial: O(arcs), no races)."""
    for arc in range(indices.shape[0]):
        vertex_count[indices[arc]] += arc_count[arc]
