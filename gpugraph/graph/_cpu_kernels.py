"""Numba CPU kernels used to build and inspect graphs (private: call through gpugraph.graph)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def count_ids(ids, num_vertices):
    """Return an int64 array with how many times each id in ``[0, num_vertices)`` occurs."""
    counts = np.zeros(num_vertices, dtype=np.int64)
    for i in range(ids.shape[0]):
        counts[ids[i]] += 1
    return counts


@numba.njit(cache=True, nogil=True)
def stable_counting_sort(keys, num_keys):
    """Return the permutation that stably sorts ``keys`` (values in ``[0, num_keys)``)."""
    next_slot = np.zeros(num_keys + 1, dtype=np.int64)
    for i in range(keys.shape[0]):
        next_slot[keys[i] + 1] += 1
    for k in range(num_keys):
        next_slot[k + 1] += next_slot[k]
    order = np.empty(keys.shape[0], dtype=np.int64)
    for i in range(keys.shape[0]):
        key = keys[i]
        order[next_slot[key]] = i
        next_slot[key] += 1
    return order


@numba.njit(cache=True, nogil=True)
def dense_ranks(src, dst, max_id):
    """Map ids that occur in ``src`` or ``dst`` to ``0..k-1`` in increasing id order.

    Returns ``(rank, k)`` where ``rank[id]`` is the new id of ``id`` (or -1 if it never occurs).
    Linear in ``max_id + len(src)``; used when ``max_id`` is not much larger than the edge count.
    """
    rank = np.full(max_id + 1, -1, dtype=np.int64)
    for i in range(src.shape[0]):
        rank[src[i]] = 0
        rank[dst[i]] = 0
    count = 0
    for v in range(max_id + 1):
        if rank[v] == 0:
            rank[v] = count
            count += 1
    return rank, count


@numba.njit(cache=True, nogil=True)
def run_starts(src, dst):
    """Mark the first edge of every run of equal (src, dst) pairs in a sorted edge list."""
    starts = np.empty(src.shape[0], dtype=np.bool_)
    for i in range(src.shape[0]):
        starts[i] = i == 0 or src[i] != src[i - 1] or dst[i] != dst[i - 1]
    return starts
