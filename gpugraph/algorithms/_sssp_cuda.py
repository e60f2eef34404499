"""numba-cuda kernels of SSSP (private: call gpugraph.algorithms.sssp.run)."""

from __future__ import annotations

import math

import numpy as np

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(device=True)
def _thread_index():
    return np.int64(cuda.blockIdx.x) * np.int64(cuda.blockDim.x) + np.int64(cuda.threadIdx.x)


@cuda.jit(cache=True)
def relax(frontier, indptr, indices, weights, unit_weights, distance, updated):
    """One thread per frontier vertex: relax its out-arcs with an atomic minimum on the
    destination's distance, and flag every destination whose distance this thread lowered."""
    index = _thread_index()
    if index >= frontier.shape[0]:
        return
    vertex = frontier[index]
    reached = distance[vertex]
    for edge in range(indptr[vertex], indptr[vertex + 1]):
        weight = 1.0 if unit_weights else np.float64(weights[edge])
        candidate = reached + weight
        neighbour = indices[edge]
        if candidate < distance[neighbour]:
            if candidate < cuda.atomic.min(distance, neighbour, candidate):
                updated[neighbour] = 1


@cuda.jit(cache=True)
def tree_parents(in_indptr, in_indices, in_edge_ids, weights, unit_weights, distance, anchored, predecessor, changed):
    """One thread per vertex still without a predecessor: take the first tight in-arc
    ``u -> v`` (``distance[u] + w == distance[v]``) whose source is strictly closer, or already
    has a predecessor in ``anchored`` (the predecessors before this launch). Reading the
    snapshot, never ``predecessor`` itself, keeps zero-weight ties from forming cycles."""
    vertex = _thread_index()
    if vertex >= distance.shape[0] or predecessor[vertex] >= 0:
        return
    target = distance[vertex]
    if math.isinf(target):
        return
    for position in range(in_indptr[vertex], in_indptr[vertex + 1]):
        source = in_indices[position]
        weight = 1.0 if unit_weights else np.float64(weights[in_edge_ids[position]])
        reached = distance[source]
        if reached + weight == target and (reached < target or anchored[source] >= 0):
            predecessor[vertex] = source
            changed[0] = 1
            return
