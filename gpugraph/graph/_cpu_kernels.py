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


@numba.njit(cache=True, nogil=True)
def csr_from_edges(src, dst, num_vertices, want_order, both_directions):
    """CSR of edges sorted by (src, dst), ties in input order.

    A two-pass LSD radix sort (stable counting sort by destination, then by source) that moves
    the edges themselves in each pass, so no separate permutation gathers are needed; linear in
    ``m + n`` whatever the degree skew. With ``both_directions`` every edge ``(u, v)`` with
    ``u != v`` is also stored as ``(v, u)`` (undirected graphs), without materialising the
    doubled edge list first.

    Returns ``(indptr, indices, order)`` where ``order[k]`` is the input position of the edge
    that CSR entry ``k`` came from (empty unless ``want_order``).
    """
    m = src.shape[0]
    by_dst = np.zeros(num_vertices + 1, dtype=np.int64)
    for i in range(m):
        by_dst[dst[i] + 1] += 1
        if both_directions and src[i] != dst[i]:
            by_dst[src[i] + 1] += 1
    for v in range(num_vertices):
        by_dst[v + 1] += by_dst[v]
    arcs = by_dst[num_vertices]
    src_1 = np.empty(arcs, dtype=src.dtype)
    dst_1 = np.empty(arcs, dtype=dst.dtype)
    order_1 = np.empty(arcs if want_order else 0, dtype=np.int64)
    indptr = np.zeros(num_vertices + 1, dtype=np.int64)
    for i in range(m):
        for direction in range(2 if both_directions and src[i] != dst[i] else 1):
            tail, head = (src[i], dst[i]) if direction == 0 else (dst[i], src[i])
            slot = by_dst[head]
            by_dst[head] += 1
            src_1[slot] = tail
            dst_1[slot] = head
            indptr[tail + 1] += 1
            if want_order:
                order_1[slot] = i
    for v in range(num_vertices):
        indptr[v + 1] += indptr[v]
    next_slot = indptr[:-1].copy()
    indices = np.empty(arcs, dtype=dst.dtype)
    order = np.empty(arcs if want_order else 0, dtype=np.int64)
    for j in range(arcs):
        slot = next_slot[src_1[j]]
        next_slot[src_1[j]] += 1
        indices[slot] = dst_1[j]
        if want_order:
            order[slot] = order_1[j]
    return indptr, indices, order
