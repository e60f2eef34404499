"""CUDA visit kernels of the distributed BFS (private: see :mod:`gpugraph.graph500.bfs`).

Twins of :mod:`gpugraph.graph500._kernels_cpu`. Forward visits of delegate rows (long, skewed)
are edge-balanced: thread ``t`` takes arcs ``t, t + T, ...`` of the frontier's rows laid end to
end (``scan`` is the exclusive prefix sum of the rows' degrees, ``scan[-1]`` the total) and finds
its row by binary search, so a hub's list is shared by many threads; forward visits of normal
rows (at most TH arcs) take a thread per row. Backward visits into normals give a thread one row,
into delegates a block one row, and stop at the first column in the frontier; rows are sorted by
delegate number, hubs first, so most rows stop after a try or two. Claims are plain stores (two
threads that claim the same vertex write the same depth and each a valid parent).
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend.cuda_device import last_at_most, thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()

#: Counters of :func:`previsit`.
COUNTERS = 10
#: Normal vertices each thread of :func:`previsit` reads per tile (the unrolled loads below).
VERTICES_PER_THREAD = 4


@cuda.jit(device=True, inline=True)
def _global_id(x, ids, stride, offset):
    if ids.size:
        return ids[x]
    return np.int64(x) * stride + offset


@cuda.jit(device=True, inline=True)
def _claim(target, source, seen, mark, owner, level):
    """One forward claim, as :func:`gpugraph.graph500._kernels_cpu.push` describes it (normals
    when ``mark`` is empty, else delegates)."""
    if seen[target] < 0:
        if mark.size == 0:
            seen[target] = level + 1
            owner[target] = source
        elif mark[target] == 0:
            mark[target] = 1
            owner[target] = source


@cuda.jit(cache=True)
def push(indptr, indices, queue, scan, ids, stride, offset, seen, mark, owner, level):
    """Forward visit of delegate rows (dd, dn), edge-balanced over the frontier's arcs."""
    total = scan[scan.size - 1]
    step = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    for arc in range(thread_index(), total, step):
        item = last_at_most(scan, queue.size, arc)
        row = queue[item]
        _claim(indices[indptr[row] + arc - scan[item]], _global_id(row, ids, stride, offset), seen, mark, owner,
               level)


@cuda.jit(cache=True)
def push_by_row(indptr, indices, queue, ids, stride, offset, seen, mark, owner, level):
    """Forward visit of normal rows (nn, nd: at most TH arcs each), a thread per row."""
    item = thread_index()
    if item < queue.size:
        row = queue[item]
        source = _global_id(row, ids, stride, offset)
        for position in range(indptr[row], indptr[row + 1]):
            _claim(indices[position], source, seen, mark, owner, level)


@cuda.jit(cache=True)
def push_pairs(indptr, indices, queue, scan, stride, offset, out_targets, out_sources):
    """Forward visit of nn arcs into (target, source) pairs of global ids."""
    total = scan[scan.size - 1]
    step = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    for arc in range(thread_index(), total, step):
        item = last_at_most(scan, queue.size, arc)
        row = queue[item]
        out_targets[arc] = indices[indptr[row] + arc - scan[item]]
        out_sources[arc] = np.int64(row) * stride + offset


@cuda.jit(cache=True)
def apply_pairs(targets, sources, depth, parent, level):
    """Received nn visits (local target indices)."""
    item = thread_index()
    if item < targets.size:
        target = targets[item]
        if depth[target] < 0:
            depth[target] = level + 1
            parent[target] = sources[item]


@cuda.jit(cache=True)
def pull_normals(indptr, indices, depth, parent, level, column_depth, column_ids):
    """Backward visit into local normals through their nd rows."""
    row = thread_index()
    if row < indptr.size - 1 and depth[row] < 0:
        for position in range(indptr[row], indptr[row + 1]):
            column = indices[position]
            if column_depth[column] == level:
                depth[row] = level + 1
                parent[row] = column_ids[column]
                break


@cuda.jit(cache=True)
def pull_delegates(indptr, indices, rows, new, candidate, level, column_depth, column_ids, stride,
                   offset):
    """Backward visit into delegates through dd or dn rows, for the unvisited delegates ``rows``
    (the previsit's queue). Delegate rows are long (hundreds of arcs), so a block takes a row and
    its threads test ``blockDim`` columns at a time, stopping after the first step that found a
    frontier column; blocks loop over the rows (a block per row would pay a block launch per
    visited-or-empty row)."""
    found = cuda.shared.array(1, np.int32)
    for item in range(cuda.blockIdx.x, rows.size, cuda.gridDim.x):
        row = rows[item]
        if new[row] != 0:
            continue  # the same for the whole block: only this block writes new[row] here
        if cuda.threadIdx.x == 0:
            found[0] = 0
        cuda.syncthreads()
        base = indptr[row]
        end = indptr[row + 1]
        while base < end:
            position = base + cuda.threadIdx.x
            if position < end:
                column = indices[position]
                if column_depth[column] == level:
                    found[0] = 1
                    candidate[row] = _global_id(column, column_ids, stride, offset)
            cuda.syncthreads()
            if found[0]:
                break
            base += cuda.blockDim.x
        if cuda.threadIdx.x == 0 and found[0]:
            new[row] = 1
        cuda.syncthreads()


@cuda.jit(cache=True)
def previsit(depth, delegate_depth, level, has_nd, nd_degree, nn_degree, dd_degree, dn_degree, out, normal_queue,
             delegate_queue, unvisited_queue):
    """The level's frontier queues and the direction decisions' numbers (``out``: int64, zeroed,
    :data:`COUNTERS` long, as :func:`gpugraph.graph500._kernels_cpu.previsit`).

    Each block walks a contiguous chunk of the vertices one tile at a time: the tile's frontier
    vertices take places in shared memory, one thread reserves the tile's run in the queue with
    one global atomic (``out[0]``, ``out[4]``, ``out[9]`` count the queues' lengths), and the sums
    of the other counters stay in registers until one shared-memory add per block.
    """
    block = cuda.shared.array(COUNTERS, np.int64)
    places = cuda.shared.array(4, np.int64)
    if cuda.threadIdx.x < COUNTERS:
        block[cuda.threadIdx.x] = 0
    fv_nd = fv_nn = unvisited_nd = np.int64(0)
    fv_dd = fv_dn = unvisited_dd = unvisited_dn = np.int64(0)
    # Normal vertices: a tile is VERTICES_PER_THREAD * blockDim vertices, each thread's loads issued
    # together (more bytes in flight per thread, a quarter of the barriers).
    per_block = (depth.size + cuda.gridDim.x - 1) // cuda.gridDim.x
    start = np.int64(cuda.blockIdx.x) * per_block
    stop = min(start + per_block, depth.size)
    width = cuda.blockDim.x
    for tile in range(start, start + per_block, VERTICES_PER_THREAD * width):
        x0 = tile + cuda.threadIdx.x
        x1 = x0 + width
        x2 = x1 + width
        x3 = x2 + width
        d0 = depth[x0] if x0 < stop else -2
        d1 = depth[x1] if x1 < stop else -2
        d2 = depth[x2] if x2 < stop else -2
        d3 = depth[x3] if x3 < stop else -2
        mine = 0
        for x, at in ((x0, d0), (x1, d1), (x2, d2), (x3, d3)):
            if at == level:
                mine += 1
                fv_nd += nd_degree[x]
                fv_nn += nn_degree[x]
            elif at == -1 and has_nd[x]:
                unvisited_nd += 1
        if cuda.threadIdx.x == 0:
            places[0] = 0
        cuda.syncthreads()
        place = 0
        if mine:
            place = cuda.atomic.add(places, 0, mine)
        cuda.syncthreads()
        if cuda.threadIdx.x == 0 and places[0]:
            places[1] = cuda.atomic.add(out, 0, places[0])
        cuda.syncthreads()
        if mine:
            place += places[1]
            for x, at in ((x0, d0), (x1, d1), (x2, d2), (x3, d3)):
                if at == level:
                    normal_queue[place] = x
                    place += 1
        cuda.syncthreads()
    # Delegates (few): one per thread per tile, into the frontier or the unvisited queue.
    per_block = (delegate_depth.size + cuda.gridDim.x - 1) // cuda.gridDim.x
    start = np.int64(cuda.blockIdx.x) * per_block
    stop = min(start + per_block, delegate_depth.size)
    for tile in range(start, start + per_block, width):
        x = tile + cuda.threadIdx.x
        frontier = False
        unvisited = False
        if x < stop:
            at = delegate_depth[x]
            if at == level:
                frontier = True
                fv_dd += dd_degree[x]
                fv_dn += dn_degree[x]
            elif at < 0:
                if dd_degree[x] > 0:
                    unvisited_dd += 1
                if dn_degree[x] > 0:
                    unvisited_dn += 1
                unvisited = dd_degree[x] > 0 or dn_degree[x] > 0
        if cuda.threadIdx.x == 0:
            places[0] = 0
            places[2] = 0
        cuda.syncthreads()
        place = 0
        if frontier:
            place = cuda.atomic.add(places, 0, 1)
        if unvisited:
            place = cuda.atomic.add(places, 2, 1)
        cuda.syncthreads()
        if cuda.threadIdx.x == 0 and places[0]:
            places[1] = cuda.atomic.add(out, 4, places[0])
        if cuda.threadIdx.x == 1 and places[2]:
            places[3] = cuda.atomic.add(out, 9, places[2])
        cuda.syncthreads()
        if frontier:
            delegate_queue[places[1] + place] = x
        if unvisited:
            unvisited_queue[places[3] + place] = x
        cuda.syncthreads()
    _add_to_block(block, 1, fv_nd)
    _add_to_block(block, 2, fv_nn)
    _add_to_block(block, 3, unvisited_nd)
    _add_to_block(block, 5, fv_dd)
    _add_to_block(block, 6, fv_dn)
    _add_to_block(block, 7, unvisited_dd)
    _add_to_block(block, 8, unvisited_dn)
    cuda.syncthreads()
    if cuda.threadIdx.x < COUNTERS and block[cuda.threadIdx.x]:
        cuda.atomic.add(out, cuda.threadIdx.x, block[cuda.threadIdx.x])


@cuda.jit(device=True, inline=True)
def _add_to_block(block, slot, value):
    if value:
        cuda.atomic.add(block, slot, value)


@cuda.jit(cache=True)
def mark_found(new, delegate_depth, level):
    """Delegates set in the combined mask join depth ``level + 1``."""
    x = thread_index()
    if x < new.size and new[x] != 0:
        delegate_depth[x] = level + 1
