"""Numba CPU kernels of BFS (private: call gpugraph.algorithms.bfs.run)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def bfs_queue(indptr, indices, source, depth, parent):
    """Serial queue BFS from ``source``; fills ``depth``/``parent`` (pre-set to -1).

    The work-efficient top-down CPU BFS. Returns ``(rounds, edges_traversed)``: levels expanded
    and out-edges scanned.
    """
    queue = np.empty(depth.shape[0], dtype=np.int64)
    queue[0] = source
    depth[source] = 0
    parent[source] = source
    head, tail, level_end = 0, 1, 1
    rounds = 0
    edges = 0
    while head < tail:
        vertex = queue[head]
        head += 1
        next_depth = depth[vertex] + 1
        for edge in range(indptr[vertex], indptr[vertex + 1]):
            neighbour = indices[edge]
            edges += 1
            if depth[neighbour] == -1:
                depth[neighbour] = next_depth
                parent[neighbour] = vertex
                queue[tail] = neighbour
                tail += 1
        if head == level_end:
            rounds += 1
            level_end = tail
    return rounds, edges


@numba.njit(parallel=True, cache=True, nogil=True)
def bottom_up_step(in_indptr, in_indices, frontier_flags, level, depth, parent, next_flags):
    """Every unvisited vertex looks for a parent in the frontier among its in-neighbours and
    stops at the first (Beamer's bottom-up step)."""
    for vertex in numba.prange(depth.shape[0]):
        if depth[vertex] < 0:
            for position in range(in_indptr[vertex], in_indptr[vertex + 1]):
                candidate = in_indices[position]
                if frontier_flags[candidate]:
                    depth[vertex] = level + 1
                    parent[vertex] = candidate
                    next_flags[vertex] = 1
                    break
