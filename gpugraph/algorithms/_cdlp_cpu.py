"""Numba CPU kernel of one CDLP iteration (private: call gpugraph.algorithms.cdlp.run)."""

from __future__ import annotations

import numba


@numba.njit(cache=True, parallel=True, nogil=True)
def propagate(offsets, neighbours, labels, new_labels, scratch):
    """Every vertex takes the most frequent label of its neighbour list (smallest on ties).

    ``scratch`` has one slot per neighbour-list entry, so each vertex sorts its own slice with
    no sharing. Returns the number of vertices whose label changed.
    """
    changed = 0
    for vertex in numba.prange(offsets.shape[0] - 1):
        start = offsets[vertex]
        end = offsets[vertex + 1]
        best = labels[vertex]
        if end > start:
            for slot in range(start, end):
                scratch[slot] = labels[neighbours[slot]]
            scratch[start:end].sort()
            best_count = 0
            run_start = start
            for slot in range(start + 1, end + 1):
                if slot == end or scratch[slot] != scratch[run_start]:
                    # Runs come in increasing label order: ">" keeps the smallest of equals.
                    if slot - run_start > best_count:
                        best_count = slot - run_start
                        best = scratch[run_start]
                    run_start = slot
        new_labels[vertex] = best
        if best != labels[vertex]:
            changed += 1
    return changed
