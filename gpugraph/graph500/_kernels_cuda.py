"""CUDA visit kernels of the distributed BFS (private: see :mod:`gpugraph.graph500.bfs`).

Twins of :mod:`gpugraph.graph500._kernels_cpu` (whose docstring says how claims, counters and
the ``counts`` cells work). Forward visits of delegate rows (long, skewed) are edge-balanced:
thread ``t`` takes arcs ``t, t + T, ...`` of the frontier's rows laid end to end (``starts``:
where each row's arcs begin in that sequence, reserved by ``close_delegates``) and finds its row
by binary search, so a hub's list is shared by many threads; the dd and dn arcs are laid end to end.
The pass over the normals gives a thread a normal of each segment of a tile; a thread scanning a
row loads :data:`PROBE` columns at once. Backward visits into
delegates give a thread a row for its first columns (rows list their columns hub-first, so most
stop there), then a block to each longer row that found nothing yet.

Each thread adds up its claims in registers; at the end a block sums them in shared memory and
adds them to ``counts`` with one atomic per cell, so a level of millions of claims costs a few
thousand global atomics. Places in an output (the delegate queue, the nn pairs) are reserved a
block at a time the same way (:func:`_reserve`).
"""

from __future__ import annotations

import numpy as np

from gpugraph import config
from gpugraph.backend.cuda_device import last_at_most, thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda
from gpugraph.graph500 import _kernels_cpu
from gpugraph.graph500._kernels_cpu import (
    ARC_BITS,
    ARC_MASK,
    DD_QUEUE,
    DECIDE,
    DELEGATE_PULLS,
    DN_BACKWARD,
    DN_QUEUE,
    FLAG_PADDING,
    FV_ND,
    FV_NN,
    LONG_DN,
    MEET,
    MEET_MARKS,
    ND_FORWARD,
    NN_BACKWARD,
    NN_FORWARD,
    PAIRS,
    PAIRS_SENT,
    PLAN_BACKWARD,
    PLAN_DONE,
    PLAN_VISITS,
    PUBLISH,
    PUBLISHED_CELLS,
    PUSH_DD,
    PUSH_DN,
    Q_NORMAL,
    SEGMENT_BITS,
    SLOT,
    UNVISITED_DD,
    UNVISITED_DN,
    UNVISITED_ND,
    UNVISITED_NN,
)

cuda = load_numba_cuda()

#: Threads of a block of :func:`pull_long_rows` (its launches' block size) and rows it lists at a time.
PULL_THREADS = config.GRAPH500_PULL_THREADS
#: Threads of a block of :func:`frontier_bits` (its launches' block size) and words it builds at a
#: time, whose bytes it holds in shared memory.
FRONTIER_THREADS = config.GRAPH500_FRONTIER_THREADS
FRONTIER_TILE_BYTES = 8 * FRONTIER_THREADS

#: Per-thread tallies of claims: claimed, their nd arcs, their nn arcs, those with nd arcs, those
#: with nn arcs. 32-bit (a thread's claims times a normal's at most TH arcs; blocks sum them in
#: 64 bits): the pass holds 56 registers instead of 64.
TALLIES = 5
#: Columns a thread reads at once when it scans a row (:func:`_probe`): independent loads in
#: flight instead of a chain of dependent ones.
PROBE = 4
#: Normals a thread of :func:`normal_pass` takes per tile, their depths loaded together.
VERTICES_PER_THREAD = 4
#: Tiles a block of :func:`normal_pass` lists at a time (its largest ``blockDim``), and the
#: shared cells of the list (with its length).
TILE_LIST = 128
TILE_LIST_CELLS = TILE_LIST + 1

#: Shared cells of :func:`_reserve_by_scan`: one per thread of the largest block, and one.
RESERVE_CELLS = 1025


@cuda.jit(device=True, inline=True)
def _global_id(x, ids, stride, offset):
    if ids.size:
        return ids[x]
    return np.int64(x) * stride + offset


@cuda.jit(device=True, inline=True)
def _owner(vertex, hosts, gpus_per_host):
    """The process holding ``vertex`` (``distributor.Layout.owner``)."""
    return (vertex % hosts) * gpus_per_host + (vertex // hosts) % gpus_per_host


@cuda.jit(device=True, inline=True)
def _claim_normal(target, source, depth, parent, level, nd_indptr, nn_indptr, tally, flags):
    """Claim local normal ``target`` for depth ``level + 1`` (compare-and-swap: one winner)."""
    if depth[target] < 0 and cuda.atomic.cas(depth, target, -1, level + 1) == -1:
        parent[target] = source
        _claimed(target, nd_indptr[target + 1] - nd_indptr[target], nn_indptr[target + 1] - nn_indptr[target], level,
                 tally, flags)


@cuda.jit(device=True, inline=True)
def _claimed(target, degree, nn_degree, level, tally, flags):
    """Tally local normal ``target``, just claimed for depth ``level + 1`` with ``degree`` nd and
    ``nn_degree`` nn arcs, and flag its segment: part of that level's frontier, one normal fewer
    left to find."""
    segments = (flags.size - FLAG_PADDING) // 3
    segment = target >> SEGMENT_BITS
    flags[((level + 1) % 2) * segments + segment] = level + 1
    tally[0] += 1
    tally[1] += degree
    tally[2] += nn_degree
    if degree > 0:
        tally[3] += 1
    if nn_degree > 0:
        tally[4] += 1
    if degree > 0 or nn_degree > 0:
        cuda.atomic.sub(flags, 2 * segments + segment, 1)


@cuda.jit(device=True, inline=True)
def _add_tallies(tally, block, counts, slot):
    """The block's tallies into ``counts[slot:]`` (every thread of the block calls it)."""
    if cuda.threadIdx.x < TALLIES:
        block[cuda.threadIdx.x] = 0
    cuda.syncthreads()
    for cell in range(TALLIES):
        if tally[cell]:
            cuda.atomic.add(block, cell, tally[cell])
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        if block[0]:
            cuda.atomic.add(counts, slot + Q_NORMAL, block[0])
            cuda.atomic.add(counts, slot + FV_ND, block[1])
            cuda.atomic.add(counts, slot + FV_NN, block[2])
        if block[3]:
            cuda.atomic.sub(counts, UNVISITED_ND, block[3])
        if block[4]:
            cuda.atomic.sub(counts, UNVISITED_NN, block[4])


@cuda.jit(device=True, inline=True)
def _reserve(places, counts, cell, count):
    """Reserve ``count`` places for this thread in an output whose length so far is
    ``counts[cell]``; returns the first. Every thread of the block calls it (with 0 if it needs
    none): the block reserves its run with one global atomic (``places``: two shared cells)."""
    if cuda.threadIdx.x == 0:
        places[0] = 0
    cuda.syncthreads()
    mine = cuda.atomic.add(places, 0, count) if count else 0
    cuda.syncthreads()
    if cuda.threadIdx.x == 0 and places[0]:
        places[1] = cuda.atomic.add(counts, cell, places[0])
    cuda.syncthreads()
    first = places[1] + mine
    cuda.syncthreads()
    return first


@cuda.jit(device=True, inline=True)
def _reserve_by_scan(places, counts, cell, count):
    """:func:`_reserve` for blocks where most threads reserve (atomics on one shared cell would
    serialise them: 161 us instead of 30 for the delegates closing level 2 at scale 24): the
    counts are summed by a prefix sum in shared memory. ``places`` holds at least ``blockDim +
    1`` cells (a larger shared array: kernels that reserve rarely keep the small one, and more
    L1 cache)."""
    if not cuda.syncthreads_or(np.int32(count != 0)):
        return 0  # nobody in the block reserves: the count is 0 everywhere
    me = cuda.threadIdx.x
    last = cuda.blockDim.x - 1
    places[me] = count
    cuda.syncthreads()
    offset = 1
    while offset <= last:
        before = places[me - offset] if me >= offset else 0
        cuda.syncthreads()
        places[me] += before
        cuda.syncthreads()
        offset *= 2
    if me == last:
        total = places[last]
        places[last + 1] = cuda.atomic.add(counts, cell, total) if total else 0
    cuda.syncthreads()
    first = places[last + 1] + places[me] - count
    cuda.syncthreads()
    return first


@cuda.jit(device=True, inline=True)
def _probe(indices, position, end, column_depth, level):
    """The first of the columns ``indices[position:min(position + PROBE, end)]`` whose depth is
    ``level``, or -1 (``position < end``). The loads are issued together."""
    c0 = indices[position]
    c1 = indices[position + 1] if position + 1 < end else c0
    c2 = indices[position + 2] if position + 2 < end else c0
    c3 = indices[position + 3] if position + 3 < end else c0
    d0 = column_depth[c0]
    d1 = column_depth[c1]
    d2 = column_depth[c2]
    d3 = column_depth[c3]
    if d0 == level:
        return c0
    if d1 == level:
        return c1
    if d2 == level:
        return c2
    if d3 == level:
        return c3
    return -1


@cuda.jit(device=True, inline=True)
def _queued_arc(indptr, indices, queue, starts, rows, arc, ids):
    """Arc ``arc`` of the ``rows`` rows of ``queue`` laid end to end (``starts``: where each
    row's arcs begin): its target and its row's global id."""
    item = last_at_most(starts, rows, arc)
    row = queue[item]
    return indices[indptr[row] + arc - starts[item]], ids[row]


@cuda.jit(cache=True)
def push(dd_indptr, dd_indices, dn_indptr, dn_indices, dd_queue, dd_starts, dn_queue, dn_starts, slot, ids,
         delegate_depth, new, candidate, depth, parent, level, nd_indptr, nn_indptr, counts, next_slot, flags):
    """The forward visits of the delegate frontier (``_kernels_cpu.push``), edge-balanced over
    the arcs of both laid end to end: the dd rows' arcs (when the plan has that visit), then
    the dn rows' (when it has that one). Thread ``t`` takes arcs ``t, t + T, ...`` and finds
    each one's row by binary search in its queue's starts, so every block works on whichever
    visit has the arcs (half the blocks for each left a large dn visit at 2 blocks per
    multiprocessor: 789 us at level 2 of one root)."""
    block = cuda.shared.array(TALLIES, np.int64)
    tally = cuda.local.array(TALLIES, np.int32)
    for cell in range(TALLIES):
        tally[cell] = 0
    visits = counts[PLAN_VISITS]
    dd_packed = counts[slot + DD_QUEUE] if visits & PUSH_DD else np.int64(0)
    dn_packed = counts[slot + DN_QUEUE] if visits & PUSH_DN else np.int64(0)
    dd_arcs = dd_packed & ARC_MASK
    arcs = dd_arcs + (dn_packed & ARC_MASK)
    step = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    for arc in range(thread_index(), arcs, step):
        if arc < dd_arcs:  # into delegates: marked, nothing to tally
            target, source = _queued_arc(dd_indptr, dd_indices, dd_queue, dd_starts, dd_packed >> ARC_BITS, arc, ids)
            if delegate_depth[target] < 0 and new[target] == 0:
                new[target] = 1
                candidate[target] = source
        else:
            target, source = _queued_arc(dn_indptr, dn_indices, dn_queue, dn_starts, dn_packed >> ARC_BITS,
                                         arc - dd_arcs, ids)
            _claim_normal(target, source, depth, parent, level, nd_indptr, nn_indptr, tally, flags)
    _add_tallies(tally, block, counts, next_slot)


@cuda.jit(device=True, inline=True)
def _visit_normal(x, at, level, nd_forward, nn_forward, dn_backward, nn_backward, depth, parent, nd_indptr, nd_indices,
                  nn_indptr, nn_indices, delegate_depth, new, candidate, delegate_ids, source, tally, flags, bitmap,
                  nn_bits, over_bitmap):
    """What the pass over the normals does for normal ``x`` at depth ``at`` (nn claims only;
    the nn pairs of several processes are written by the caller; with ``over_bitmap`` backward
    nn reads the gathered frontier ``bitmap``, a column at a time: most rows find at their
    first)."""
    if at == level:
        if nd_forward:
            for position in range(nd_indptr[x], nd_indptr[x + 1]):
                target = nd_indices[position]
                if delegate_depth[target] < 0 and new[target] == 0:
                    new[target] = 1
                    candidate[target] = source
        if nn_forward:
            end = nn_indptr[x + 1]
            for position in range(nn_indptr[x], end, PROBE):
                # Targets and their depths loaded PROBE at a time, then claimed.
                t0 = nn_indices[position]
                t1 = nn_indices[position + 1] if position + 1 < end else t0
                t2 = nn_indices[position + 2] if position + 2 < end else t0
                t3 = nn_indices[position + 3] if position + 3 < end else t0
                open0, open1, open2, open3 = depth[t0] < 0, depth[t1] < 0, depth[t2] < 0, depth[t3] < 0
                if open0:
                    _claim_normal(t0, source, depth, parent, level, nd_indptr, nn_indptr, tally, flags)
                if open1:
                    _claim_normal(t1, source, depth, parent, level, nd_indptr, nn_indptr, tally, flags)
                if open2:
                    _claim_normal(t2, source, depth, parent, level, nd_indptr, nn_indptr, tally, flags)
                if open3:
                    _claim_normal(t3, source, depth, parent, level, nd_indptr, nn_indptr, tally, flags)
    elif at == -1 and (dn_backward or nn_backward):
        found = np.int64(-1)
        # Both rows' offsets loaded together: the claim needs the nn degree, and waiting for it
        # after the delegate's id cost one more round trip per found normal.
        start, end, nn_start, nn_end = nd_indptr[x], nd_indptr[x + 1], nn_indptr[x], nn_indptr[x + 1]
        if dn_backward:
            for position in range(start, end, PROBE):
                column = _probe(nd_indices, position, end, delegate_depth, level)
                if column >= 0:
                    found = delegate_ids[column]
                    break
        if found < 0 and nn_backward and not over_bitmap:  # one process: nn columns are local indices
            for position in range(nn_start, nn_end, PROBE):
                column = _probe(nn_indices, position, nn_end, depth, level)
                if column >= 0:
                    found = column
                    break
        elif found < 0 and nn_backward:  # several: each column's bit in the bitmap, worked out once
            for position in range(nn_start, nn_end):
                bit = nn_bits[position]
                if bitmap[bit >> 3] >> (bit & 7) & 1:
                    found = nn_indices[position]
                    break
        if found >= 0:
            # Without forward nn claims in this pass nobody else claims x: a plain store.
            if not nn_forward:
                depth[x] = level + 1
            elif cuda.atomic.cas(depth, x, -1, level + 1) != -1:
                return
            parent[x] = found
            _claimed(x, end - start, nn_end - nn_start, level, tally, flags)


@cuda.jit(device=True, inline=True)
def _depth_if(depth, x, needed):
    """``depth[x]`` if ``needed`` and ``x`` is a normal, else -2 (skip), without a branch: a
    skipped normal loads ``depth[0]`` (one cached line for all), so the loads of a tile issue
    together after its flags (a branch per load made them wait on each other's flags)."""
    needed = needed & (x < depth.size)
    at = depth[x if needed else 0]
    return at if needed else np.int32(-2)


@cuda.jit(device=True, inline=True)
def _tile_needs(frontier_flags, open_flags, tile, level, forward, backward):
    """Bit ``i`` set when segment ``i`` of tile ``tile`` has something to do this level: part of
    its frontier (``forward``), or normals with arcs left to find (``backward``)."""
    s0 = tile * VERTICES_PER_THREAD
    f0, f1, f2, f3 = frontier_flags[s0], frontier_flags[s0 + 1], frontier_flags[s0 + 2], frontier_flags[s0 + 3]
    o0, o1, o2, o3 = open_flags[s0], open_flags[s0 + 1], open_flags[s0 + 2], open_flags[s0 + 3]
    n0, n1 = ((f0 == level) & forward) | ((o0 > 0) & backward), ((f1 == level) & forward) | ((o1 > 0) & backward)
    n2, n3 = ((f2 == level) & forward) | ((o2 > 0) & backward), ((f3 == level) & forward) | ((o3 > 0) & backward)
    return np.int32(n0) | (np.int32(n1) << 1) | (np.int32(n2) << 2) | (np.int32(n3) << 3)


@cuda.jit(device=True, inline=True)
def _normal_pass(depth, parent, level, allowed, nd_indptr, nd_indices, nn_indptr, nn_indices, delegate_depth, new,
                 candidate, delegate_ids, stride, offset, counts, slot, flags, pair_targets, pair_sources, bitmap, nn_bits,
                 over_bitmap):
    """One pass over the local normals (``_kernels_cpu.normal_pass``). The normals come in tiles
    of :data:`VERTICES_PER_THREAD` segments (``blockDim`` must be a segment's length, at most
    :data:`TILE_LIST`), tile ``t`` to block ``t mod gridDim``. A block first reads the flags of
    its next ``blockDim`` tiles, a thread a tile, and lists those with something to do (a loop
    reading each tile's flags in turn spent 32 us on a level with nothing to do); then it works
    through the list, a thread taking a normal of each segment: frontier normals for the forward
    visits, normals left to find for the backward ones, their depths loaded together after the
    flags. Every thread of a block takes the same steps, so the nn pairs can be placed a tile at
    a time."""
    visits = counts[PLAN_VISITS] & allowed
    if visits == 0:
        return
    nd_forward, nn_forward = visits & ND_FORWARD != 0, visits & NN_FORWARD != 0
    dn_backward, nn_backward = visits & DN_BACKWARD != 0, visits & NN_BACKWARD != 0
    forward, backward = nd_forward or nn_forward, dn_backward or nn_backward
    block = cuda.shared.array(TALLIES, np.int64)
    places = cuda.shared.array(2, np.int64)
    listed = cuda.shared.array(TILE_LIST_CELLS, np.int32)  # entries (thread << 4 | needs), then their count
    tally = cuda.local.array(TALLIES, np.int32)
    for cell in range(TALLIES):
        tally[cell] = 0
    pairs = pair_targets.size > 0
    visit_nn = nn_forward and not pairs
    size = depth.size
    width = cuda.blockDim.x
    me = cuda.threadIdx.x
    # The runs of flags this level reads: frontier segments, normals left to find (a tile past
    # the last segment reads the next run's first cells, or the padding after the last run).
    segments = (flags.size - FLAG_PADDING) // 3
    frontier_flags = flags[(level % 2) * segments:]
    open_flags = flags[2 * segments:]
    tile_length = width * VERTICES_PER_THREAD
    tiles = (size + tile_length - 1) // tile_length
    blocks = np.int64(cuda.gridDim.x)
    for first in range(0, tiles, blocks * width):
        if me == 0:
            listed[TILE_LIST] = 0
        cuda.syncthreads()
        tile = first + me * blocks + cuda.blockIdx.x
        if tile < tiles:
            needs = _tile_needs(frontier_flags, open_flags, tile, level, forward, backward)
            if needs:
                listed[cuda.atomic.add(listed, TILE_LIST, 1)] = (me << 4) | needs
        cuda.syncthreads()
        for item in range(listed[TILE_LIST]):
            entry = listed[item]
            x0 = (first + (entry >> 4) * blocks + cuda.blockIdx.x) * tile_length + me
            x1, x2, x3 = x0 + width, x0 + 2 * width, x0 + 3 * width
            a0, a1 = _depth_if(depth, x0, entry & 1 != 0), _depth_if(depth, x1, entry & 2 != 0)
            a2, a3 = _depth_if(depth, x2, entry & 4 != 0), _depth_if(depth, x3, entry & 8 != 0)
            for x, at in ((x0, a0), (x1, a1), (x2, a2), (x3, a3)):
                if at >= -1:
                    _visit_normal(x, at, level, nd_forward, visit_nn, dn_backward, nn_backward, depth, parent,
                                  nd_indptr, nd_indices, nn_indptr, nn_indices, delegate_depth, new, candidate,
                                  delegate_ids, np.int64(x) * stride + offset, tally, flags, bitmap, nn_bits,
                                  over_bitmap)
            if nn_forward and pairs:  # the same for the whole grid
                count = np.int64(0)
                for x, at in ((x0, a0), (x1, a1), (x2, a2), (x3, a3)):
                    if at == level:
                        count += nn_indptr[x + 1] - nn_indptr[x]
                place = _reserve(places, counts, PAIRS, count)
                for x, at in ((x0, a0), (x1, a1), (x2, a2), (x3, a3)):
                    if at == level:
                        source = np.int64(x) * stride + offset
                        for position in range(nn_indptr[x], nn_indptr[x + 1]):
                            pair_targets[place] = nn_indices[position]
                            pair_sources[place] = source
                            place += 1
        cuda.syncthreads()  # the list is read before the next step rewrites it
    _add_tallies(tally, block, counts, slot)


@cuda.jit(cache=True)
def normal_pass(depth, parent, level, allowed, nd_indptr, nd_indices, nn_indptr, nn_indices, delegate_depth, new,
                candidate, delegate_ids, stride, offset, counts, slot, flags, pair_targets, pair_sources, bitmap,
                nn_bits):
    """:func:`_normal_pass` where backward nn reads the depths of local columns (one process;
    ``bitmap`` and ``nn_bits`` are not read): compiled apart from
    :func:`normal_pass_over_bitmap`, so the bitmap's lookup costs this pass no registers."""
    _normal_pass(depth, parent, level, allowed, nd_indptr, nd_indices, nn_indptr, nn_indices, delegate_depth, new,
                 candidate, delegate_ids, stride, offset, counts, slot, flags, pair_targets, pair_sources, bitmap,
                 nn_bits, False)


@cuda.jit(cache=True)
def normal_pass_over_bitmap(depth, parent, level, allowed, nd_indptr, nd_indices, nn_indptr, nn_indices,
                            delegate_depth, new, candidate, delegate_ids, stride, offset, counts, slot, flags,
                            pair_targets, pair_sources, bitmap, nn_bits):
    """:func:`_normal_pass` with several processes: backward nn looks its columns up in the
    gathered frontier ``bitmap``, at the bits ``nn_bits`` gives per nn arc."""
    _normal_pass(depth, parent, level, allowed, nd_indptr, nd_indices, nn_indptr, nn_indices, delegate_depth, new,
                 candidate, delegate_ids, stride, offset, counts, slot, flags, pair_targets, pair_sources, bitmap,
                 nn_bits, True)


@cuda.jit(cache=True)
def apply_pairs(targets, sources, depth, parent, level, nd_indptr, nn_indptr, counts, slot, flags):
    """Received nn visits (local target indices), a thread per pair."""
    block = cuda.shared.array(TALLIES, np.int64)
    tally = cuda.local.array(TALLIES, np.int32)
    for cell in range(TALLIES):
        tally[cell] = 0
    item = thread_index()
    if item < targets.size:
        _claim_normal(targets[item], sources[item], depth, parent, level, nd_indptr, nn_indptr, tally, flags)
    _add_tallies(tally, block, counts, slot)


@cuda.jit(cache=True)
def frontier_bits(depth, level, counts, bitmaps, first_word, share_words, flags):
    """This process's share of the frontier bitmap stored from word ``first_word`` of every
    array in ``bitmaps`` (``_kernels_cpu.frontier_bits``; with peer memory the shares travel as
    8-byte stores over NVLink at the level's start, beside the first probes, instead of as loads
    after its meeting). A block of :data:`FRONTIER_THREADS` threads builds as many words at a
    time: each thread computes eight of their bytes (a warp's 32 threads read a run of depths)
    into shared memory, then stores one word to every array. The bytes of a segment whose
    frontier flag is not ``level`` are zero without reading its depths (a level's flags name
    every segment that holds part of its frontier: ~30 us -> a few on the tail levels)."""
    if counts[PLAN_VISITS] & NN_BACKWARD == 0:
        return
    tile = cuda.shared.array(FRONTIER_TILE_BYTES, np.uint8)
    frontier_flags = (level % 2) * ((flags.size - FLAG_PADDING) // 3)
    thread = cuda.threadIdx.x
    for first in range(np.int64(cuda.blockIdx.x) * FRONTIER_THREADS, share_words,
                       np.int64(cuda.gridDim.x) * FRONTIER_THREADS):
        for step in range(8):
            byte = 8 * first + step * FRONTIER_THREADS + thread
            value = 0
            if byte < 8 * share_words and flags[frontier_flags + (byte >> (SEGMENT_BITS - 3))] == level:
                for bit in range(8):
                    x = byte * 8 + bit
                    if x < depth.size and depth[x] == level:
                        value |= 1 << bit
            tile[step * FRONTIER_THREADS + thread] = value
        cuda.syncthreads()
        if first + thread < share_words:
            word = np.uint64(0)
            for byte in range(8):
                word |= np.uint64(tile[8 * thread + byte]) << np.uint64(8 * byte)
            for target in range(len(bitmaps)):
                bitmaps[target][first_word + first + thread] = word
        cuda.syncthreads()  # the tile is read before the next words rewrite it


@cuda.jit(cache=True)
def pull_delegates(indptr, indices, new, candidate, level, delegate_depth, column_depth, column_ids, stride,
                   offset, counts, visit, long_rows, cell):
    """Backward visit into delegates through dd or dn rows if the level's plan has ``visit``,
    first part: a thread per delegate
    probes the first :data:`PROBE` columns of its row (rows are hub-first, so most unvisited
    delegates stop here); rows with more columns and no hit yet are queued in ``long_rows``
    (``counts[cell]`` of them, zero at the start) for :func:`pull_long_rows`."""
    if counts[PLAN_VISITS] & visit == 0:
        return
    places = cuda.shared.array(2, np.int64)
    size = delegate_depth.size
    step = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    for base in range(np.int64(cuda.blockIdx.x) * cuda.blockDim.x, size, step):
        row = base + cuda.threadIdx.x
        longer = 0
        if row < size and delegate_depth[row] < 0 and new[row] == 0:
            position = indptr[row]
            end = indptr[row + 1]
            if position < end:
                column = _probe(indices, position, end, column_depth, level)
                if column >= 0:
                    new[row] = 1
                    candidate[row] = _global_id(column, column_ids, stride, offset)
                elif end - position > PROBE:
                    longer = 1
        place = _reserve(places, counts, cell, longer)
        if longer:
            long_rows[place] = row


@cuda.jit(cache=True)
def pull_long_rows(indptr, indices, new, candidate, level, column_depth, column_ids, stride, offset, long_rows,
                   counts, cell, found_anywhere):
    """Second part of :func:`pull_delegates`: the queued long rows, from column :data:`PROBE` on.
    A block takes :data:`PULL_THREADS` queued rows at a time, a thread each, and lists in shared
    memory those whose delegate is not marked yet, in ``new`` (this process's marks: the dn rows
    skip what the dd rows found here) or in ``found_anywhere`` (with peer memory every process's
    marks combined after their first probes; else a mask of zeros). Then the whole block scans
    the listed rows one by one, its threads testing ``blockDim`` columns at a time and stopping
    after the first step that found a frontier column. (A skipped row thus costs a thread's two
    reads rather than a block's round trip: at 4 GPUs most queued rows are skipped.) Every
    decision is the block's (a barrier's vote or a shared count), so no thread leaves a row its
    block still scans."""
    listed = cuda.shared.array(PULL_THREADS, np.int32)
    listed_count = cuda.shared.array(1, np.int32)
    queued = counts[cell]
    for batch in range(np.int64(cuda.blockIdx.x) * PULL_THREADS, queued, np.int64(cuda.gridDim.x) * PULL_THREADS):
        if cuda.threadIdx.x == 0:
            listed_count[0] = 0
        cuda.syncthreads()
        item = batch + cuda.threadIdx.x
        if item < queued:
            row = long_rows[item]
            if found_anywhere[row] == 0 and new[row] == 0:
                listed[cuda.atomic.add(listed_count, 0, 1)] = row
        cuda.syncthreads()
        for entry in range(listed_count[0]):
            row = listed[entry]
            base = indptr[row] + PROBE
            end = indptr[row + 1]
            while base < end:
                hit = False
                position = base + cuda.threadIdx.x
                if position < end:
                    column = indices[position]
                    if column_depth[column] == level:
                        hit = True
                        candidate[row] = _global_id(column, column_ids, stride, offset)
                if cuda.syncthreads_or(np.int32(hit)):
                    if cuda.threadIdx.x == 0:
                        new[row] = 1
                    break
                base += cuda.blockDim.x
        cuda.syncthreads()  # every thread has read the list before the next batch rewrites it


@cuda.jit(cache=True)
def close_delegates(new, delegate_depth, level, dd_degree, dn_degree, dd_queue, dd_starts, dn_queue, dn_starts, counts,
                    slot, spent_slot):
    """End of a level (``_kernels_cpu.close_delegates``), a thread per delegate; a block reserves
    its run of each queue, and of the arcs behind it, with one atomic add of a packed cell, and
    counts its unvisited delegates with a barrier count (early levels, where nearly all are
    unvisited, serialised on a shared atomic: 30-45 us instead of 10)."""
    if counts[PLAN_DONE]:
        return
    places = cuda.shared.array(RESERVE_CELLS, np.int64)
    if cuda.blockIdx.x == 0 and cuda.threadIdx.x < SLOT:
        counts[spent_slot + cuda.threadIdx.x] = 0
    if cuda.blockIdx.x == 0 and PAIRS <= cuda.threadIdx.x <= LONG_DN:
        counts[cuda.threadIdx.x] = 0
    unvisited_dd = unvisited_dn = np.int64(0)
    one = np.int64(1) << ARC_BITS
    size = new.size
    step = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    for base in range(np.int64(cuda.blockIdx.x) * cuda.blockDim.x, size, step):
        x = base + cuda.threadIdx.x
        dd_packed = dn_packed = np.int64(0)
        open_dd = open_dn = False
        if x < size:
            if new[x] != 0:
                new[x] = 0
                delegate_depth[x] = level + 1
                dd_packed = one | dd_degree[x]
                dn_packed = one | dn_degree[x]
            elif delegate_depth[x] < 0:
                open_dd = dd_degree[x] > 0
                open_dn = dn_degree[x] > 0
        unvisited_dd += cuda.syncthreads_count(np.int32(open_dd))
        unvisited_dn += cuda.syncthreads_count(np.int32(open_dn))
        first = _reserve_by_scan(places, counts, slot + DD_QUEUE, dd_packed)
        if dd_packed:
            dd_queue[first >> ARC_BITS] = x
            dd_starts[first >> ARC_BITS] = first & ARC_MASK
        first = _reserve_by_scan(places, counts, slot + DN_QUEUE, dn_packed)
        if dn_packed:
            dn_queue[first >> ARC_BITS] = x
            dn_starts[first >> ARC_BITS] = first & ARC_MASK
    if cuda.threadIdx.x == 0:
        if unvisited_dd:
            cuda.atomic.add(counts, slot + UNVISITED_DD, unvisited_dd)
        if unvisited_dn:
            cuda.atomic.add(counts, slot + UNVISITED_DN, unvisited_dn)


_decide = cuda.jit(device=True)(_kernels_cpu.decide.py_func)
#: ``_kernels_cpu._publish``: this process's numbers of a level into a process's cells, compiled from its source.
_publish = cuda.jit(device=True, inline=True)(_kernels_cpu._publish.py_func)
#: ``_kernels_cpu._sum_published``: every process's numbers of a level summed, compiled from its source.
_sum_published = cuda.jit(device=True, inline=True)(_kernels_cpu._sum_published.py_func)


@cuda.jit(cache=True)
def decide(counts, slot, factors, direction_optimizing, alone, row, shared, peer):
    """The level's plan (``_kernels_cpu.decide``, compiled from its source); one thread."""
    if thread_index() == 0:
        _decide(counts, slot, factors, direction_optimizing, alone, row, shared, peer)


@cuda.jit(cache=True)
def start(depth, parent, new, candidate, root_cells, nd_indptr, nn_indptr, counts, unvisited_nd, unvisited_nn, flags):
    """A search's first state (``_kernels_cpu.start``); one thread."""
    if thread_index() == 0:
        root_local, root_delegate, root = root_cells[0], root_cells[1], root_cells[2]
        for cell in range(counts.size):
            counts[cell] = 0
        counts[UNVISITED_ND] = unvisited_nd
        counts[UNVISITED_NN] = unvisited_nn
        if root_local >= 0:
            depth[root_local] = 0
            parent[root_local] = root
            flags[root_local >> SEGMENT_BITS] = 0
            degree = nd_indptr[root_local + 1] - nd_indptr[root_local]
            nn_degree = nn_indptr[root_local + 1] - nn_indptr[root_local]
            if degree > 0 or nn_degree > 0:
                flags[2 * ((flags.size - FLAG_PADDING) // 3) + (root_local >> SEGMENT_BITS)] -= 1
            counts[Q_NORMAL] = 1
            counts[FV_ND] = degree
            counts[FV_NN] = nn_degree
            if degree > 0:
                counts[UNVISITED_ND] -= 1
            if nn_degree > 0:
                counts[UNVISITED_NN] -= 1
        if root_delegate >= 0:
            new[root_delegate] = 1
            candidate[root_delegate] = root


# --- peer memory (the protocol: _kernels_cpu, "peer memory") ---------------------------------------
#: Largest number of processes whose pairs :func:`scatter_pairs` tallies in shared memory.
MAX_PEERS = 64


@cuda.jit(device=True, inline=True)
def _meet(arrivals, me, spins):
    """Every process of the peer memory waits here until all have arrived; every thread of a
    block of at least ``len(arrivals)`` threads calls it. Cell 0 of each process's ``arrivals``
    counts the arrivals at it (thread q adds this process's arrival to process q's cell: the
    round trips over NVLink at once), cell 1 (its own only) how many it has waited for so far,
    so the count never goes back and a process that runs ahead to the next meeting cannot be
    confused with this one. The fences order this process's earlier stores (its inbox pairs,
    its marks, its numbers) before its arrival, and its peers' before what it reads after. A
    wait longer than ``spins`` polls (tens of seconds: a peer died or hangs) sets cell 2, and
    every later meeting of this process passes at once, so the host finds the flag instead of
    a hang."""
    processes = len(arrivals)
    me_in_block = cuda.threadIdx.x
    cuda.syncthreads()  # what the block wrote before comes before the arrivals
    if me_in_block < processes:
        cuda.threadfence_system()
        cuda.atomic.add(arrivals[me_in_block], 0, 1)
    if me_in_block == 0:
        own = arrivals[me]
        expected = own[1] + processes
        own[1] = expected
        polls = np.int64(0)
        while own[2] == 0 and cuda.atomic.add(own, 0, 0) < expected:
            cuda.nanosleep(64)
            polls += 1
            if polls > spins:
                own[2] = 1
        cuda.threadfence_system()
    cuda.syncthreads()


@cuda.jit(cache=True)
def barrier(arrivals, me, spins, counts, ended, needed):
    """:func:`_meet` as a kernel (one block of at least ``len(arrivals)`` threads) if whether the
    search is over (``counts[PLAN_DONE]``, the same on every process) is ``ended``: levels
    launched past the end skip their meetings, and a batch's last launch meets once the search
    has ended; and if ``needed`` is 0 or a bit of it is in the level's plan, which every
    process plans alike (the bitmap's meeting with ``NN_BACKWARD``, the marks' meeting with
    ``MEET_MARKS``; the latter on the side stream, with ``arrivals`` of its own)."""
    if (counts[PLAN_DONE] != 0) == (ended != 0) and (needed == 0 or counts[PLAN_VISITS] & needed != 0):
        _meet(arrivals, me, spins)


@cuda.jit(cache=True)
def share_numbers(counts, slot, factors, direction_optimizing, row, shared, published, parity, cursors, arrivals,
                  me, spins, stages):
    """The ``stages`` (bits) of a level's start with peer memory (``_kernels_cpu.share_numbers``),
    with ``MEET`` (:func:`_meet`) between publishing and deciding: on a GPU all three in one
    launch, one block of at least ``len(arrivals)`` threads (one thread, publishing to all, where
    the host meets the peers). Thread q stores this process's numbers into process q's
    ``published`` (posted stores over NVLink, ordered before its arrival at q by the meeting's
    fence), so thread 0 decides on local reads only."""
    if counts[PLAN_DONE]:
        return
    processes = len(published)
    thread = cuda.threadIdx.x
    pulls = cuda.shared.array(1, np.int64)
    if stages & PUBLISH:
        if thread == 0:  # this process's own plan of its delegate visits, its directions kept
            backward = counts[PLAN_BACKWARD]
            _decide(counts, slot, factors, direction_optimizing, False, row, -1, False)
            pulls[0] = 1 if counts[PLAN_VISITS] & DELEGATE_PULLS != 0 else 0
            counts[PLAN_BACKWARD] = backward
            for sender in range(cursors.size):
                cursors[sender] = 0
        cuda.syncthreads()
        for process in range(thread, processes, cuda.blockDim.x):
            _publish(counts, slot, published[process], (parity * processes + me) * PUBLISHED_CELLS, pulls[0])
    if stages & MEET:
        _meet(arrivals, me, spins)
    if thread == 0 and stages & DECIDE:
        pulling = _sum_published(counts, shared, published[me], parity * processes * PUBLISHED_CELLS, processes)
        _decide(counts, slot, factors, direction_optimizing, False, row, shared, True)
        if pulling:
            counts[PLAN_VISITS] |= MEET_MARKS


@cuda.jit(cache=True)
def scatter_pairs(targets, sources, counts, inboxes, cursors, starts, me, hosts, gpus_per_host):
    """The level's nn pairs into their owners' inboxes (``_kernels_cpu.scatter_pairs``). A block
    takes ``blockDim`` pairs at a time: it tallies them per owner in shared memory, reserves
    each owner's run with one atomic on that owner's cursor (over NVLink), and every thread
    stores its pair into its place; a fence then orders the stores before the barrier's
    arrival."""
    tally = cuda.shared.array(MAX_PEERS, np.int64)
    base = cuda.shared.array(MAX_PEERS, np.int64)
    processes = hosts * gpus_per_host
    total = counts[PAIRS]
    me_in_block = cuda.threadIdx.x
    step = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    stored = False
    for first in range(np.int64(cuda.blockIdx.x) * cuda.blockDim.x, total, step):
        if me_in_block < processes:
            tally[me_in_block] = 0
        cuda.syncthreads()
        item = first + me_in_block
        owner, place, target = -1, np.int64(0), np.int64(0)
        if item < total:
            target = targets[item]
            owner = _owner(target, hosts, gpus_per_host)
            place = cuda.atomic.add(tally, owner, 1)
        cuda.syncthreads()
        if me_in_block < processes and tally[me_in_block] > 0:
            base[me_in_block] = cuda.atomic.add(cursors[me_in_block], me, tally[me_in_block])
            if me_in_block != me:
                cuda.atomic.add(counts, PAIRS_SENT, tally[me_in_block])
        cuda.syncthreads()
        if owner >= 0:
            inboxes[owner][starts[owner * processes + me] + base[owner] + place] = \
                ((target // processes) << 32) | sources[item]
            stored = True
        cuda.syncthreads()  # the tallies are read before the next step clears them
    if stored:
        cuda.threadfence_system()


#: ``_kernels_cpu._merged_word``: a word of every process's marks combined, compiled from its source.
_merged_word = cuda.jit(device=True, inline=True)(_kernels_cpu._merged_word.py_func)


@cuda.jit(cache=True)
def merge_marks(combined, marks, parity, me, counts, candidates, resolve, delegate_depth):
    """Every process's marks combined (and, if ``resolve``, the candidates of the delegates only
    others marked taken from the first of them; ``_kernels_cpu.merge_marks``), a grid-stride
    loop over the words. Words of visited delegates only are not read from the peers (nothing
    marks a visited delegate); nothing once the search is over, nor for a middle merge whose
    meeting was skipped (no ``MEET_MARKS``)."""
    if counts[PLAN_DONE] or not (resolve or counts[PLAN_VISITS] & MEET_MARKS):
        return
    delegates = combined.size
    own = marks[me]
    for item in range(thread_index(), delegates, np.int64(cuda.gridDim.x) * cuda.blockDim.x):
        combined[item] = _merged_word(marks, parity * delegates + item, item, me, candidates, resolve,
                                      delegate_depth)
        own[(1 - parity) * delegates + item] = 0


@cuda.jit(cache=True)
def apply_inbox(inbox, cursors, starts, me, depth, parent, level, nd_indptr, nn_indptr, counts, slot, flags):
    """The pairs every process put into this process's inbox (region of sender q from
    ``starts[me * p + q]``, ``cursors[q]`` pairs) claimed; a grid-stride loop over the pairs of
    every sender's region (the CPU twin unpacks them for ``_kernels_cpu.apply_pairs``); nothing
    once the search is over, nor when no process sent pairs (most levels: the grid's tallies
    cost a few microseconds)."""
    if counts[PLAN_DONE]:
        return
    processes = cursors.size
    total = np.int64(0)
    for sender in range(processes):
        total += cursors[sender]
    if total == 0:
        return
    block = cuda.shared.array(TALLIES, np.int64)
    tally = cuda.local.array(TALLIES, np.int32)
    for cell in range(TALLIES):
        tally[cell] = 0
    for item in range(thread_index(), total, np.int64(cuda.gridDim.x) * cuda.blockDim.x):
        sender, rest = 0, item
        while rest >= cursors[sender]:
            rest -= cursors[sender]
            sender += 1
        pair = inbox[starts[me * processes + sender] + rest]
        _claim_normal(pair >> 32, pair & 0xFFFFFFFF, depth, parent, level, nd_indptr, nn_indptr, tally, flags)
    _add_tallies(tally, block, counts, slot)
