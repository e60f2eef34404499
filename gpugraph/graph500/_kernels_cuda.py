"""CUDA visit kernels of the distributed BFS (private: see :mod:`gpugraph.graph500.bfs`).

Twins of :mod:`gpugraph.graph500._kernels_cpu`. Forward visits are edge-balanced: thread ``t``
takes arcs ``t, t + T, ...`` of the frontier's rows laid end to end (``scan`` is the exclusive
prefix sum of the rows' degrees, ``scan[-1]`` the total) and finds its row by binary search, so a
hub's list is shared by many threads. Backward visits give a thread one row and stop at the first
column in the frontier; rows are sorted by delegate number, hubs first, so most rows stop after
a try or two. Claims are plain stores (two threads that claim the same vertex write the same
depth and each a valid parent).
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()

#: Counters of :func:`level_counts` (see :func:`gpugraph.graph500._kernels_cpu.level_counts`).
COUNTERS = 9


@cuda.jit(device=True, inline=True)
def _global_id(x, ids, stride, offset):
    if ids.size:
        return ids[x]
    return np.int64(x) * stride + offset


@cuda.jit(device=True, inline=True)
def _item_of(scan, arc):
    """The largest ``i`` with ``scan[i] <= arc``."""
    low = 0
    high = scan.size - 1
    while high - low > 1:
        middle = (low + high) // 2
        if scan[middle] <= arc:
            low = middle
        else:
            high = middle
    return low


@cuda.jit(cache=True)
def push_delegates(indptr, indices, queue, scan, ids, stride, offset, delegate_depth, new, candidate):
    """Forward visit into delegates (dd, nd)."""
    total = scan[scan.size - 1]
    step = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    for arc in range(np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x, total, step):
        item = _item_of(scan, arc)
        row = queue[item]
        target = indices[indptr[row] + arc - scan[item]]
        if delegate_depth[target] < 0 and new[target] == 0:
            new[target] = 1
            candidate[target] = _global_id(row, ids, stride, offset)


@cuda.jit(cache=True)
def push_normals(indptr, indices, queue, scan, ids, stride, offset, depth, parent, level):
    """Forward visit into local normals (dn)."""
    total = scan[scan.size - 1]
    step = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    for arc in range(np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x, total, step):
        item = _item_of(scan, arc)
        row = queue[item]
        target = indices[indptr[row] + arc - scan[item]]
        if depth[target] < 0:
            depth[target] = level + 1
            parent[target] = _global_id(row, ids, stride, offset)


@cuda.jit(cache=True)
def push_pairs(indptr, indices, queue, scan, stride, offset, out_targets, out_sources):
    """Forward visit of nn arcs into (target, source) pairs of global ids."""
    total = scan[scan.size - 1]
    step = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    for arc in range(np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x, total, step):
        item = _item_of(scan, arc)
        row = queue[item]
        out_targets[arc] = indices[indptr[row] + arc - scan[item]]
        out_sources[arc] = np.int64(row) * stride + offset


@cuda.jit(cache=True)
def apply_pairs(targets, sources, depth, parent, level):
    """Received nn visits (local target indices)."""
    item = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if item < targets.size:
        target = targets[item]
        if depth[target] < 0:
            depth[target] = level + 1
            parent[target] = sources[item]


@cuda.jit(cache=True)
def pull_normals(indptr, indices, depth, parent, level, column_depth, column_ids):
    """Backward visit into local normals through their nd rows."""
    row = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if row < indptr.size - 1 and depth[row] < 0:
        for position in range(indptr[row], indptr[row + 1]):
            column = indices[position]
            if column_depth[column] == level:
                depth[row] = level + 1
                parent[row] = column_ids[column]
                break


@cuda.jit(cache=True)
def pull_delegates(indptr, indices, delegate_depth, new, candidate, level, column_depth, column_ids, stride, offset):
    """Backward visit into delegates through dd or dn rows."""
    row = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if row < indptr.size - 1 and delegate_depth[row] < 0 and new[row] == 0:
        for position in range(indptr[row], indptr[row + 1]):
            column = indices[position]
            if column_depth[column] == level:
                new[row] = 1
                candidate[row] = _global_id(column, column_ids, stride, offset)
                break


@cuda.jit(cache=True)
def level_counts(depth, delegate_depth, level, nd_degree, nn_degree, dd_degree, dn_degree, out):
    """The direction decisions' numbers (``out`` zeroed, int64, :data:`COUNTERS` long): each thread
    sums its share, the block adds the sums in shared memory and one thread per counter adds the
    block's total to ``out``."""
    block = cuda.shared.array(COUNTERS, np.int64)
    if cuda.threadIdx.x < COUNTERS:
        block[cuda.threadIdx.x] = 0
    cuda.syncthreads()
    mine = cuda.local.array(COUNTERS, np.int64)
    for slot in range(COUNTERS):
        mine[slot] = 0
    step = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    first = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    for x in range(first, depth.size, step):
        if depth[x] == level:
            mine[0] += 1
            mine[1] += nd_degree[x]
            mine[2] += nn_degree[x]
        elif depth[x] < 0 and nd_degree[x] > 0:
            mine[3] += 1
    for x in range(first, delegate_depth.size, step):
        if delegate_depth[x] == level:
            mine[4] += 1
            mine[5] += dd_degree[x]
            mine[6] += dn_degree[x]
        elif delegate_depth[x] < 0:
            if dd_degree[x] > 0:
                mine[7] += 1
            if dn_degree[x] > 0:
                mine[8] += 1
    for slot in range(COUNTERS):
        if mine[slot]:
            cuda.atomic.add(block, slot, mine[slot])
    cuda.syncthreads()
    if cuda.threadIdx.x < COUNTERS and block[cuda.threadIdx.x]:
        cuda.atomic.add(out, cuda.threadIdx.x, block[cuda.threadIdx.x])
