"""Numba CPU kernel of weakly connected components (private: call gpugraph.algorithms.wcc.run)."""

from __future__ import annotations

import numba


@numba.njit(cache=True, nogil=True)
def _root(parent, vertex):
    """The root of ``vertex``'s tree, halving the path on the way (every parent stays smaller)."""
    while parent[vertex] != vertex:
        parent[vertex] = parent[parent[vertex]]
        vertex = parent[vertex]
    return vertex


@numba.njit(cache=True, nogil=True)
def union_find(indptr, indices, lower_only, parent):
    """Serial union-find over the arcs: the larger root is hooked under the smaller, so every
    root is its tree's minimum. ``parent`` holds ``0..n-1`` on entry and each vertex's root
    (the minimum id of its component) on return. ``lower_only``: both directions of every edge
    are stored, so only arcs to a smaller id are read."""
    for vertex in range(parent.shape[0]):
        for edge in range(indptr[vertex], indptr[vertex + 1]):
            neighbour = indices[edge]
            if lower_only and neighbour >= vertex:
                continue
            first = _root(parent, vertex)
            second = _root(parent, neighbour)
            if first != second:
                parent[max(first, second)] = min(first, second)
    for vertex in range(parent.shape[0]):
        parent[vertex] = parent[parent[vertex]]  # parents are smaller: already final
