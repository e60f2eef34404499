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

#: :func:`previsit` splits the vertices into pieces of about this many (at most PREVISIT_MAX_PIECES),
#: enough pieces for every core and few enough that the per-piece bookkeeping costs nothing.
PREVISIT_PIECE = 16384
PREVISIT_MAX_PIECES = 1024


@njit(cache=True, inline="always")
def _global_id(x, ids, stride, offset):
    if ids.size:
        return ids[x]
    return np.int64(x) * stride + offset


@njit(parallel=True, cache=True)
def push(indptr, indices, queue, ids, stride, offset, seen, mark, owner, level):
    """Forward visit of the rows in ``queue``. Into local normals (dn, nn on one process; ``mark``
    empty): an unvisited column joins depth ``level + 1`` in ``seen`` with the row as parent in
    ``owner``. Into delegates (dd, nd; ``seen`` the delegate depths): an unvisited column not yet
    marked is marked new in ``mark``, with the row as candidate parent in ``owner`` (its depth
    waits for the reduction). The writes stay in the loop body: Numba's prange can lose writes made
    through a called function (docs/architecture.md)."""
    for item in prange(queue.size):
        row = queue[item]
        source = _global_id(row, ids, stride, offset)
        for position in range(indptr[row], indptr[row + 1]):
            target = indices[position]
            if seen[target] < 0:
                if mark.size == 0:
                    seen[target] = level + 1
                    owner[target] = source
                elif mark[target] == 0:
                    mark[target] = 1
                    owner[target] = source


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


@njit(parallel=True, cache=True)
def previsit(depth, delegate_depth, level, has_nd, nd_degree, nn_degree, dd_degree, dn_degree, out, normal_queue,
             delegate_queue, unvisited_queue):
    """The level's frontier queues and the numbers the direction decisions need, into ``out``
    (int64, length 10): [0] normal frontier size (``normal_queue[:out[0]]``), [1] and [2] its nd
    and nn arcs, [3] unvisited normals with nd arcs (``has_nd``); [4] delegate frontier size
    (``delegate_queue[:out[4]]``), [5] and [6] its dd and dn arcs, [7] unvisited delegates with dd
    arcs, [8] with dn arcs, [9] with either (``unvisited_queue[:out[9]]``, the rows of the
    backward delegate visits).

    In parallel over pieces of the vertex range: a first pass counts per piece (in locals), a
    prefix sum places each piece's run in the queues, a second pass over the pieces that have
    queue entries writes them (in vertex order).
    """
    pieces = _pieces(depth.size)
    normal = np.zeros((pieces, 4), dtype=np.int64)
    for piece in prange(pieces):
        frontier = nd_arcs = nn_arcs = unvisited = 0
        for x in range(depth.size * piece // pieces, depth.size * (piece + 1) // pieces):
            # Without branches, so the loop vectorises (the depths of a level are irregular).
            at = depth[x]
            here = np.int64(at == level)
            frontier += here
            nd_arcs += here * nd_degree[x]
            nn_arcs += here * nn_degree[x]
            unvisited += np.int64(at < 0) & np.int64(has_nd[x] != 0)
        normal[piece, 0], normal[piece, 1], normal[piece, 2], normal[piece, 3] = frontier, nd_arcs, nn_arcs, unvisited
    starts = _exclusive_sum(normal[:, 0])
    for piece in prange(pieces):
        if normal[piece, 0]:
            place = starts[piece]
            for x in range(depth.size * piece // pieces, depth.size * (piece + 1) // pieces):
                if depth[x] == level:
                    normal_queue[place] = x
                    place += 1
    size = delegate_depth.size
    pieces = _pieces(size)
    delegates = np.zeros((pieces, 6), dtype=np.int64)
    for piece in prange(pieces):
        frontier = dd_arcs = dn_arcs = unvisited_dd = unvisited_dn = unvisited = 0
        for x in range(size * piece // pieces, size * (piece + 1) // pieces):
            at = delegate_depth[x]
            here = np.int64(at == level)
            open_row = np.int64(at < 0)
            has_dd, has_dn = np.int64(dd_degree[x] > 0), np.int64(dn_degree[x] > 0)
            frontier += here
            dd_arcs += here * dd_degree[x]
            dn_arcs += here * dn_degree[x]
            unvisited_dd += open_row & has_dd
            unvisited_dn += open_row & has_dn
            unvisited += open_row & (has_dd | has_dn)
        delegates[piece, 0], delegates[piece, 1], delegates[piece, 2] = frontier, dd_arcs, dn_arcs
        delegates[piece, 3], delegates[piece, 4], delegates[piece, 5] = unvisited_dd, unvisited_dn, unvisited
    frontier_starts = _exclusive_sum(delegates[:, 0])
    unvisited_starts = _exclusive_sum(delegates[:, 5])
    for piece in prange(pieces):
        if delegates[piece, 0] or delegates[piece, 5]:
            frontier_place, unvisited_place = frontier_starts[piece], unvisited_starts[piece]
            for x in range(size * piece // pieces, size * (piece + 1) // pieces):
                at = delegate_depth[x]
                if at == level:
                    delegate_queue[frontier_place] = x
                    frontier_place += 1
                elif at < 0 and (dd_degree[x] > 0 or dn_degree[x] > 0):
                    unvisited_queue[unvisited_place] = x
                    unvisited_place += 1
    totals = normal.sum(axis=0)
    out[0], out[1], out[2], out[3] = totals[0], totals[1], totals[2], totals[3]
    totals = delegates.sum(axis=0)
    out[4], out[5], out[6], out[7], out[8], out[9] = totals[0], totals[1], totals[2], totals[3], totals[4], totals[5]


@njit(cache=True)
def _pieces(size):
    """Pieces of a vertex range for :func:`previsit`: about ``PREVISIT_PIECE`` vertices each."""
    return max(1, min(PREVISIT_MAX_PIECES, size // PREVISIT_PIECE))


@njit(cache=True)
def _exclusive_sum(values):
    sums = np.empty(values.size, dtype=np.int64)
    total = 0
    for index in range(values.size):
        sums[index] = total
        total += values[index]
    return sums


@njit(parallel=True, cache=True)
def mark_found(new, delegate_depth, level):
    """Delegates set in the combined mask join depth ``level + 1``."""
    for x in prange(new.size):
        if new[x] != 0:
            delegate_depth[x] = level + 1
