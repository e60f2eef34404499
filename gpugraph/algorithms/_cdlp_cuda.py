"""numba-cuda kernel of one CDLP iteration (private: call gpugraph.algorithms.cdlp.run)."""

from __future__ import annotations

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(cache=True)
def pick_labels(offsets, sorted_keys, labels, new_labels, changed):
    """One thread per vertex: its slice of ``sorted_keys`` (``vertex * n + label`` of every
    neighbour-list entry, sorted) holds its neighbours' labels in increasing order; take the
    longest run, the first (smallest label) on ties. ``changed`` is a one-element counter."""
    vertex = cuda.grid(1)
    num_vertices = offsets.shape[0] - 1
    if vertex >= num_vertices:
        return
    start = offsets[vertex]
    end = offsets[vertex + 1]
    best = labels[vertex]
    if end > start:
        base = vertex * num_vertices
        best_count = 0
        run_start = start
        for slot in range(start + 1, end + 1):
            if slot == end or sorted_keys[slot] != sorted_keys[run_start]:
                if slot - run_start > best_count:
                    best_count = slot - run_start
                    best = sorted_keys[run_start] - base
                run_start = slot
    new_labels[vertex] = best
    if best != labels[vertex]:
        cuda.atomic.add(changed, 0, 1)
