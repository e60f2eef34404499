"""Numba CPU kernel of Brandes' betweenness (private: call gpugraph.algorithms.betweenness.run)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, parallel=True, nogil=True)
def brandes(indptr, indices, sources, partial):
    """Add every source's dependencies to ``partial[worker]`` (one row per parallel worker).

    Worker ``w`` takes sources ``w, w + workers, ...`` with its own BFS buffers, so nothing is
    shared; the caller sums the rows. Returns the BFS levels summed over all sources.
    """
    n = indptr.shape[0] - 1
    workers = partial.shape[0]
    levels = 0
    for worker in numba.prange(workers):
        depth = np.empty(n, dtype=np.int32)
        sigma = np.empty(n, dtype=np.float64)
        delta = np.empty(n, dtype=np.float64)
        order = np.empty(n, dtype=np.int64)
        row = partial[worker]
        worker_levels = 0
        for k in range(worker, sources.shape[0], workers):
            source = sources[k]
            depth[:] = -1
            sigma[:] = 0.0
            delta[:] = 0.0
            depth[source] = 0
            sigma[source] = 1.0
            order[0] = source
            head, tail = 0, 1
            while head < tail:
                vertex = order[head]
                head += 1
                next_depth = depth[vertex] + 1
                for edge in range(indptr[vertex], indptr[vertex + 1]):
                    neighbour = indices[edge]
                    if depth[neighbour] == -1:
                        depth[neighbour] = next_depth
                        order[tail] = neighbour
                        tail += 1
                    if depth[neighbour] == next_depth:
                        sigma[neighbour] += sigma[vertex]
            worker_levels += depth[order[tail - 1]] + 1
            for position in range(tail - 1, 0, -1):
                vertex = order[position]
                next_depth = depth[vertex] + 1
                share = 0.0
                for edge in range(indptr[vertex], indptr[vertex + 1]):
                    neighbour = indices[edge]
                    if depth[neighbour] == next_depth:
                        share += (1.0 + delta[neighbour]) / sigma[neighbour]
                delta[vertex] = sigma[vertex] * share
                row[vertex] += delta[vertex]
        levels += worker_levels
    return levels
