"""Numba CPU kernel of SSSP (private: call gpugraph.algorithms.sssp.run)."""

from __future__ import annotations

import heapq

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def dijkstra(indptr, indices, weights, unit_weights, source, distance, predecessor):
    """Binary-heap Dijkstra from ``source`` with lazy deletion; fills ``distance`` (pre-set to
    +inf) and ``predecessor`` (pre-set to -1). ``unit_weights``: every arc weighs 1 and
    ``weights`` is not read.

    A vertex takes its predecessor only from a settled vertex, so the predecessors form a tree
    even across zero-weight arcs. Returns ``(vertices settled, arcs scanned)``.
    """
    distance[source] = 0.0
    predecessor[source] = source
    heap = [(0.0, np.int64(source))]
    settled = 0
    arcs = 0
    while heap:
        reached, vertex = heapq.heappop(heap)
        if reached > distance[vertex]:
            continue  # a stale entry: the vertex was settled from a shorter one
        settled += 1
        for edge in range(indptr[vertex], indptr[vertex + 1]):
            arcs += 1
            weight = 1.0 if unit_weights else np.float64(weights[edge])
            candidate = reached + weight
            neighbour = np.int64(indices[edge])
            if candidate < distance[neighbour]:
                distance[neighbour] = candidate
                predecessor[neighbour] = vertex
                heapq.heappush(heap, (candidate, neighbour))
    return settled, arcs
