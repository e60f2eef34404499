"""numba-cuda kernels of Brandes' betweenness (private: call gpugraph.algorithms.betweenness.run).

``order`` holds the vertices reached from the current source in BFS order; level ``l`` is
``order[level_begin:level_end]``, one thread per vertex of it.
"""

from __future__ import annotations

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(cache=True)
def expand_level(indptr, indices, order, level_begin, level_end, depth, sigma, appended):
    """Claim unvisited out-neighbours (appended after ``level_end``) and add the vertex's path
    count to every neighbour one level deeper. ``appended`` is a one-element counter."""
    i = cuda.grid(1)
    if level_begin + i >= level_end:
        return
    vertex = order[level_begin + i]
    next_depth = depth[vertex] + 1
    paths = sigma[vertex]
    for edge in range(indptr[vertex], indptr[vertex + 1]):
        neighbour = indices[edge]
        # Depths only change from -1, so a plain read other than -1 is final; -1 is settled by
        # the compare-and-swap, whose result is the true depth.
        seen = depth[neighbour]
        if seen == -1:
            seen = cuda.atomic.cas(depth, neighbour, -1, next_depth)
            if seen == -1:
                seen = next_depth
                slot = cuda.atomic.add(appended, 0, 1)
                order[level_end + slot] = neighbour
        if seen == next_depth:
            cuda.atomic.add(sigma, neighbour, paths)


@cuda.jit(cache=True)
def accumulate_level(indptr, indices, order, level_begin, level_end, depth, sigma, delta, betweenness):
    """Dependency of each vertex of the level from its successors one level deeper (all final),
    added to its betweenness. The source's level is never passed."""
    i = cuda.grid(1)
    if level_begin + i >= level_end:
        return
    vertex = order[level_begin + i]
    next_depth = depth[vertex] + 1
    share = 0.0
    for edge in range(indptr[vertex], indptr[vertex + 1]):
        neighbour = indices[edge]
        if depth[neighbour] == next_depth:
            share += (1.0 + delta[neighbour]) / sigma[neighbour]
    delta[vertex] = sigma[vertex] * share
    betweenness[vertex] += delta[vertex]
