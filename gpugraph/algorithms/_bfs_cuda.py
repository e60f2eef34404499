"""numba-cuda kernel of top-down BFS (private: call gpugraph.algorithms.bfs.run)."""

from __future__ import annotations

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(cache=True)
def expand_frontier(indptr, indices, frontier, frontier_size, level, depth, parent, next_frontier, next_size):
    """One thread per frontier vertex: claim unvisited neighbours and append them to the next
    frontier. ``frontier_size`` and ``next_size`` are one-element device arrays."""
    i = cuda.grid(1)
    if i >= frontier_size[0]:
        return
    vertex = frontier[i]
    for edge in range(indptr[vertex], indptr[vertex + 1]):
        neighbour = indices[edge]
        if depth[neighbour] == -1:
            if cuda.atomic.cas(depth, neighbour, -1, level + 1) == -1:
                parent[neighbour] = vertex
                slot = cuda.atomic.add(next_size, 0, 1)
                next_frontier[slot] = neighbour
