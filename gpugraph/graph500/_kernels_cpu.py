"""CPU visit kernels of the distributed BFS (private: see :mod:`gpugraph.graph500.bfs`).

Twins of :mod:`gpugraph.graph500._kernels_cuda` with the same arguments (the CUDA forward
kernels also take the frontier's degree scan, for edge-balanced work). A vertex's global id is
``ids[x]`` when ``ids`` is not empty (delegates), else ``x * stride + offset`` (local normals).
Parallel loops write straight into the arrays: two threads that claim the same vertex in a level
write the same depth and each a valid parent, so the race is benign.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _global_id(x, ids, stride, offset):
    if ids.size:
        return ids[x]
    return np.int64(x) * stride + offset


@njit(parallel=True, cache=True)
def push_delegates(indptr, indices, queue, ids, stride, offset, delegate_depth, new, candidate):
    """Forward visit into delegates (dd, nd): each frontier row marks its unvisited delegate
    columns as new this level, with the row as candidate parent."""
    for item in prange(queue.size):
        row = queue[item]
        source = _global_id(row, ids, stride, offset)
        for position in range(indptr[row], indptr[row + 1]):
            target = indices[position]
            if delegate_depth[target] < 0 and new[target] == 0:
                new[target] = 1
                candidate[target] = source


@njit(parallel=True, cache=True)
def push_normals(indptr, indices, queue, ids, stride, offset, depth, parent, level):
    """Forward visit into local normals (dn): unvisited columns join level ``level + 1``."""
    for item in prange(queue.size):
        row = queue[item]
        source = _global_id(row, ids, stride, offset)
        for position in range(indptr[row], indptr[row + 1]):
            target = indices[position]
            if depth[target] < 0:
                depth[target] = level + 1
                parent[target] = source


@njit(parallel=True, cache=True)
def push_pairs(indptr, indices, queue, scan, stride, offset, out_targets, out_sources):
    """Forward visit of nn arcs: every arc of a frontier row becomes a (target, source) pair of
    global ids, at ``scan[item]`` onwards (``scan``: exclusive prefix sum of the rows' degrees)."""
    for item in prange(queue.size):
        row = queue[item]
        source = np.int64(row) * stride + offset
        base = scan[item] - indptr[row]
        for position in range(indptr[row], indptr[row + 1]):
            out_targets[base + position] = indices[position]
            out_sources[base + position] = source


@njit(parallel=True, cache=True)
def apply_pairs(targets, sources, depth, parent, level):
    """Received nn visits (``targets``: local indices): unvisited targets join level ``level + 1``."""
    for item in prange(targets.size):
        target = targets[item]
        if depth[target] < 0:
            depth[target] = level + 1
            parent[target] = sources[item]


@njit(parallel=True, cache=True)
def pull_normals(indptr, indices, depth, parent, level, column_depth, column_ids):
    """Backward visit into local normals (dn through the nd rows): an unvisited row takes its first
    delegate column at depth ``level`` as parent."""
    for row in prange(indptr.size - 1):
        if depth[row] < 0:
            for position in range(indptr[row], indptr[row + 1]):
                column = indices[position]
                if column_depth[column] == level:
                    depth[row] = level + 1
                    parent[row] = column_ids[column]
                    break


@njit(parallel=True, cache=True)
def pull_delegates(indptr, indices, rows, new, candidate, level, column_depth, column_ids, stride,
                   offset):
    """Backward visit into delegates (dd through dd rows, nd through dn rows) for the unvisited
    delegates ``rows``: a row not yet found marks itself new with its first column at depth
    ``level`` as candidate parent."""
    for item in prange(rows.size):
        row = rows[item]
        if new[row] == 0:
            for position in range(indptr[row], indptr[row + 1]):
                column = indices[position]
                if column_depth[column] == level:
                    new[row] = 1
                    candidate[row] = _global_id(column, column_ids, stride, offset)
                    break


@njit(cache=True)
def previsit(depth, delegate_depth, level, has_nd, nd_degree, nn_degree, dd_degree, dn_degree, out, normal_queue,
             delegate_queue, unvisited_queue):
    """The level's frontier queues and the numbers the direction decisions need, into ``out``
    (int64, length 10): [0] normal frontier size (``normal_queue[:out[0]]``), [1] and [2] its nd
    and nn arcs, [3] unvisited normals with nd arcs (``has_nd``); [4] delegate frontier size
    (``delegate_queue[:out[4]]``), [5] and [6] its dd and dn arcs, [7] unvisited delegates with dd
    arcs, [8] with dn arcs, [9] with either (``unvisited_queue[:out[9]]``, the rows of the
    backward delegate visits)."""
    out[:] = 0
    for x in range(depth.size):
        if depth[x] == level:
            normal_queue[out[0]] = x
            out[0] += 1
            out[1] += nd_degree[x]
            out[2] += nn_degree[x]
        elif depth[x] < 0 and has_nd[x]:
            out[3] += 1
    for x in range(delegate_depth.size):
        if delegate_depth[x] == level:
            delegate_queue[out[4]] = x
            out[4] += 1
            out[5] += dd_degree[x]
            out[6] += dn_degree[x]
        elif delegate_depth[x] < 0:
            if dd_degree[x] > 0:
                out[7] += 1
            if dn_degree[x] > 0:
                out[8] += 1
            if dd_degree[x] > 0 or dn_degree[x] > 0:
                unvisited_queue[out[9]] = x
                out[9] += 1


@njit(parallel=True, cache=True)
def mark_found(new, delegate_depth, level):
    """Delegates set in the combined mask join depth ``level + 1``."""
    for x in prange(new.size):
        if new[x] != 0:
            delegate_depth[x] = level + 1
