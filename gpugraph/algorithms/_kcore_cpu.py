"""Numba CPU kernel of the k-core decomposition (private: call gpugraph.algorithms.kcore.run)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def batagelj_zaversnik(offsets, neighbours, core):
    """Core numbers by Batagelj & Zaversnik's O(n + m) bucket peel; ``core`` holds the degrees on
    entry and the core numbers on return. Returns the number of distinct core values peeled."""
    n = core.shape[0]
    max_degree = 0
    for vertex in range(n):
        max_degree = max(max_degree, core[vertex])
    # bucket_start[d]: first slot of degree d in ``order`` (vertices sorted by current degree).
    bucket_start = np.zeros(max_degree + 2, dtype=np.int64)
    for vertex in range(n):
        bucket_start[core[vertex] + 1] += 1
    for degree in range(max_degree + 1):
        bucket_start[degree + 1] += bucket_start[degree]
    order = np.empty(n, dtype=np.int64)
    position = np.empty(n, dtype=np.int64)
    fill = bucket_start[:-1].copy()
    for vertex in range(n):
        position[vertex] = fill[core[vertex]]
        order[position[vertex]] = vertex
        fill[core[vertex]] += 1
    levels = 0
    last = -1
    for slot in range(n):
        vertex = order[slot]
        if core[vertex] != last:
            levels += 1
            last = core[vertex]
        for edge in range(offsets[vertex], offsets[vertex + 1]):
            neighbour = neighbours[edge]
            if core[neighbour] > core[vertex]:
                # Move the neighbour to the front of its bucket, then shrink the bucket by one.
                degree = core[neighbour]
                front = bucket_start[degree]
                displaced = order[front]
                if displaced != neighbour:
                    order[position[neighbour]] = displaced
                    position[displaced] = position[neighbour]
                    order[front] = neighbour
                    position[neighbour] = front
                bucket_start[degree] += 1
                core[neighbour] -= 1
    return levels
