"""CPU visit kernels of the distributed BFS (private: see :mod:`gpugraph.graph500.bfs`).

Twins of :mod:`gpugraph.graph500._kernels_cuda` with the same arguments (some of which only the
CUDA kernels use: the arc starts of the edge-balanced forward visits). A vertex's global id is
``ids[x]`` when ``ids`` is not empty (delegates), else ``x * stride + offset`` (local normals).

No pass over all vertices builds a level's frontier: whoever claims a local normal for depth
``level + 1`` does it with a compare-and-swap, so exactly one claimant wins, and the winners add
up the next level's numbers in the ``counts`` slot they are given (the cells below). Normal
frontiers are then visited by a pass over the normals that acts on those at depth ``level``;
delegates found in a level are closed (depth set, queued, counted) by :func:`close_delegates`.
Delegate marks (``new``, ``candidate``) stay plain stores: every writer writes 1 and a valid
candidate. Parallel loops write straight into the arrays (Numba's prange can lose writes made
through a called function: docs/architecture.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gpugraph.backend._atomics_cpu import atomic_add_i64, atomic_cas_i32

# Cells of ``counts`` (int64). A level's numbers fill one slot of SLOT cells: slot ``level % 2``
# starts at ``(level % 2) * SLOT``; the claims of level L fill the slot of L + 1 while the slot of
# L is being read.
#: Normal frontier size, its nd arcs, its nn arcs (added by the claims of the level before).
Q_NORMAL, FV_ND, FV_NN = 0, 1, 2
#: The delegate frontier as two queues, one for its dd rows and one for its dn rows, each cell
#: packing the queue's length (above bit ARC_BITS) and its rows' arcs (below): a delegate takes
#: its place and the start of its arcs with one atomic add, so each queue comes with the prefix
#: sum of its rows' degrees (``dd_starts``, ``dn_starts``) that the edge-balanced forward visits
#: search. Then the unvisited delegates with dd arcs and with dn arcs. Set by
#: :func:`close_delegates`.
DD_QUEUE, DN_QUEUE, UNVISITED_DD, UNVISITED_DN = 3, 4, 5, 6
SLOT = 8
ARC_BITS = 40
ARC_MASK = (1 << ARC_BITS) - 1
#: Unvisited local normals that have nd arcs, and nn arcs (running counts: claims subtract).
UNVISITED_ND, UNVISITED_NN = 2 * SLOT, 2 * SLOT + 1
#: nn pairs reserved so far in the level (several processes); then, on the GPU, the long rows
#: queued by the backward dd and nd visits (``_kernels_cuda.pull_delegates``). Zeroed per level.
PAIRS, LONG_DD, LONG_DN = 2 * SLOT + 2, 2 * SLOT + 3, 2 * SLOT + 4
#: The level's plan, written by :func:`decide` at the level's start and read by every visit
#: kernel of the level, so the host launches a level without reading the counters: the search
#: is over (one process: no frontier left), the visits to run (bits below), the kinds going
#: backward (kept from level to level).
PLAN_DONE, PLAN_VISITS, PLAN_BACKWARD = 2 * SLOT + 5, 2 * SLOT + 6, 2 * SLOT + 7
#: Visits of a level (bits of ``counts[PLAN_VISITS]``): backward dd, forward dd, backward nd
#: (through the dn rows), forward dn, then those of the pass over the normals.
PULL_DD, PUSH_DD, PULL_DN, PUSH_DN = 1, 2, 4, 8
ND_FORWARD, NN_FORWARD, DN_BACKWARD, NN_BACKWARD = 16, 32, 64, 128
PASS_VISITS = ND_FORWARD | NN_FORWARD | DN_BACKWARD | NN_BACKWARD
#: The backward visits into delegates, whose long rows (GPU) skip what other processes found.
DELEGATE_PULLS = PULL_DD | PULL_DN
#: With peer memory, a bit of the plan beside the visits: the level's marks' meeting is needed
#: (some process's delegate visits pull, and their long rows skip what the first probes of all
#: found). Set alike on every process by :func:`share_numbers`; without it the marks' meeting
#: and the merge after it are skipped (:func:`merge_marks`). (The bitmap's meeting, before nn
#: goes backward over the gathered bitmap, follows ``NN_BACKWARD``, also alike everywhere.)
MEET_MARKS = 256
#: ``counts[PLAN_BACKWARD]`` has bit ``1 << k`` set while the k-th kind of dd, dn, nd, nn goes
#: backward.
#: nn pairs this process stored into other processes' inboxes during the search (peer memory).
PAIRS_SENT = 2 * SLOT + 8
#: From here on a row of HISTORY_CELLS per level of a batch (the host reads them after the
#: batch): the normal and delegate frontier sizes and the kinds going backward.
HISTORY, HISTORY_CELLS = 2 * SLOT + 9, 3
#: With several processes, cells after the history (at ``shared``, see :func:`decide`): the
#: level's normal frontier, its nn arcs and the unvisited normals with nn arcs, summed over the
#: processes by the host's all-reduce before the level.
SHARED_CELLS = 3
#: With peer memory, the cells a process publishes per level (:func:`share_numbers`): its part
#: of the SHARED_CELLS, then whether its own plan of the delegate visits pulls (1 or 0).
PUBLISHED_CELLS = SHARED_CELLS + 1


#: Local normals come in segments of ``1 << SEGMENT_BITS`` (the CUDA pass over the normals runs
#: with blocks of that length), with flags in ``flags`` (int32, three runs of a cell per
#: segment): holds part of the frontier of an even level, of an odd level (the level's number,
#: written by whoever claims a normal), and how many of its normals with arcs are unvisited
#: (claims count down). The CUDA pass skips the segments with nothing to do. The CPU kernels
#: take the flags and leave them: their pass is over the vertices anyway. FLAG_PADDING cells
#: follow the runs, so the CUDA pass reads a tile's four segments without a bounds test.
SEGMENT_BITS = 7
FLAG_PADDING = 4


#: Cells of ``root_cells``, the search's root as :func:`start` reads it (written by the host
#: before the launches, so a CUDA graph of them serves every root): its local index (-1 if not
#: a local normal), its delegate number (-1 if not a delegate), its global id.
ROOT_CELLS = 3


def counter_cells(levels_ahead: int) -> int:
    """Cells of ``counts`` for batches of up to ``levels_ahead`` levels."""
    return HISTORY + HISTORY_CELLS * levels_ahead


@njit(cache=True, inline="always")
def _global_id(x, ids, stride, offset):
    if ids.size:
        return ids[x]
    return np.int64(x) * stride + offset


@njit(parallel=True, cache=True)
def push(dd_indptr, dd_indices, dn_indptr, dn_indices, dd_queue, dd_starts, dn_queue, dn_starts, slot, ids,
         delegate_depth, new, candidate, depth, parent, level, nd_indptr, nn_indptr, counts, next_slot, flags):
    """The forward visits of the delegate frontier that the level's plan has: along dd
    (``PUSH_DD``, the rows of ``dd_queue``) an unvisited delegate not yet marked is marked
    ``new`` with the row as ``candidate`` parent (its depth waits for the reduction); along dn
    (``PUSH_DN``, the rows of ``dn_queue``) an unvisited local normal is claimed for depth
    ``level + 1`` with the row as ``parent`` and counted in ``counts[next_slot:]``. Each queue's
    length and arcs are packed in ``counts[slot + DD_QUEUE]`` / ``[slot + DN_QUEUE]``; the
    starts of its rows' arcs (``dd_starts``, ``dn_starts``) serve the CUDA twin's edge
    balancing."""
    visits = counts[PLAN_VISITS]
    if visits & PUSH_DD:
        for item in prange(counts[slot + DD_QUEUE] >> ARC_BITS):
            row = dd_queue[item]
            for position in range(dd_indptr[row], dd_indptr[row + 1]):
                target = dd_indices[position]
                if delegate_depth[target] < 0 and new[target] == 0:
                    new[target] = 1
                    candidate[target] = ids[row]
    if visits & PUSH_DN == 0:
        return
    claimed = nd_arcs = nn_arcs = with_nd = with_nn = 0
    for item in prange(counts[slot + DN_QUEUE] >> ARC_BITS):
        row = dn_queue[item]
        for position in range(dn_indptr[row], dn_indptr[row + 1]):
            target = dn_indices[position]
            if depth[target] < 0 and atomic_cas_i32(depth, target, -1, level + 1) == -1:
                parent[target] = ids[row]
                degree = nd_indptr[target + 1] - nd_indptr[target]
                nn_degree = nn_indptr[target + 1] - nn_indptr[target]
                claimed += 1
                nd_arcs += degree
                nn_arcs += nn_degree
                with_nd += np.int64(degree > 0)
                with_nn += np.int64(nn_degree > 0)
    _count(counts, next_slot, claimed, nd_arcs, nn_arcs, with_nd, with_nn)


@njit(cache=True)
def _count(counts, slot, claimed, nd_arcs, nn_arcs, with_nd, with_nn):
    """Add a kernel's claims to the next level's numbers (after its parallel loop)."""
    counts[slot + Q_NORMAL] += claimed
    counts[slot + FV_ND] += nd_arcs
    counts[slot + FV_NN] += nn_arcs
    counts[UNVISITED_ND] -= with_nd
    counts[UNVISITED_NN] -= with_nn


@njit(inline="always")
def _owner(vertex, hosts, gpus_per_host):
    """The process holding ``vertex`` (``distributor.Layout.owner``)."""
    return (vertex % hosts) * gpus_per_host + (vertex // hosts) % gpus_per_host


@njit(inline="always")
def _in_frontier(column, position, depth, level, bitmap, nn_bits):
    """Whether the nn column ``column`` of arc ``position`` is at depth ``level``: a local index
    whose depth is read (``bitmap`` empty, one process), else its bit ``nn_bits[position]`` in
    the gathered frontier bitmap (:func:`normal_pass`)."""
    if bitmap.size == 0:
        return depth[column] == level
    bit = nn_bits[position]
    return bitmap[bit >> 3] >> (bit & 7) & 1 != 0


@njit(parallel=True, cache=True)
def normal_pass(depth, parent, level, allowed, nd_indptr, nd_indices, nn_indptr, nn_indices, delegate_depth, new,
                candidate, delegate_ids, stride, offset, counts, slot, flags, pair_targets, pair_sources, bitmap,
                nn_bits):
    """One pass over the local normals for the visits of the level's plan that ``allowed`` (bits)
    lets it run; none: nothing to do. A normal at depth ``level`` visits forward its nd arcs
    (``nd_forward``: marks unvisited delegates new, itself their candidate) and its nn arcs
    (``nn_forward``: claims unvisited normals; with several processes, when ``pair_targets`` is
    not empty, writes (target, source) pairs of global ids instead, at places reserved in
    ``counts[PAIRS]``). An unvisited normal claims itself from its first nd column at depth
    ``level`` (``dn_backward``), failing that from its first nn column at depth ``level``
    (``nn_backward``): with one process (``bitmap`` empty) nn columns are local indices whose
    depths it reads; with several they are global ids looked up in ``bitmap``, every process's
    :func:`frontier_bits` one after another in process order, at bit ``nn_bits[a]`` for nn arc
    ``a`` (the column's owner times the bits of a share, plus its local index: worked out once
    by the searcher, so the lookup divides nothing). Claims are counted in ``counts[slot:]``."""
    visits = counts[PLAN_VISITS] & allowed
    if visits == 0:
        return
    nd_forward, nn_forward = visits & ND_FORWARD != 0, visits & NN_FORWARD != 0
    dn_backward, nn_backward = visits & DN_BACKWARD != 0, visits & NN_BACKWARD != 0
    claimed = nd_arcs = nn_arcs = with_nd = with_nn = 0
    pairs = pair_targets.size > 0
    for x in prange(depth.size):
        at = depth[x]
        if at == level:
            source = np.int64(x) * stride + offset
            if nd_forward:
                for position in range(nd_indptr[x], nd_indptr[x + 1]):
                    target = nd_indices[position]
                    if delegate_depth[target] < 0 and new[target] == 0:
                        new[target] = 1
                        candidate[target] = source
            if nn_forward and pairs:
                start = nn_indptr[x]
                place = atomic_add_i64(counts, PAIRS, nn_indptr[x + 1] - start) - start
                for position in range(start, nn_indptr[x + 1]):
                    pair_targets[place + position] = nn_indices[position]
                    pair_sources[place + position] = source
            elif nn_forward:
                for position in range(nn_indptr[x], nn_indptr[x + 1]):
                    target = nn_indices[position]
                    if depth[target] < 0 and atomic_cas_i32(depth, target, -1, level + 1) == -1:
                        parent[target] = source
                        degree = nd_indptr[target + 1] - nd_indptr[target]
                        nn_degree = nn_indptr[target + 1] - nn_indptr[target]
                        claimed += 1
                        nd_arcs += degree
                        nn_arcs += nn_degree
                        with_nd += np.int64(degree > 0)
                        with_nn += np.int64(nn_degree > 0)
        elif at < 0 and (dn_backward or nn_backward):
            found = -1
            if dn_backward:
                for position in range(nd_indptr[x], nd_indptr[x + 1]):
                    column = nd_indices[position]
                    if delegate_depth[column] == level:
                        found = delegate_ids[column]
                        break
            if found < 0 and nn_backward:
                for position in range(nn_indptr[x], nn_indptr[x + 1]):
                    column = nn_indices[position]
                    if _in_frontier(column, position, depth, level, bitmap, nn_bits):
                        found = column
                        break
            if found >= 0 and atomic_cas_i32(depth, x, -1, level + 1) == -1:
                parent[x] = found
                degree = nd_indptr[x + 1] - nd_indptr[x]
                nn_degree = nn_indptr[x + 1] - nn_indptr[x]
                claimed += 1
                nd_arcs += degree
                nn_arcs += nn_degree
                with_nd += np.int64(degree > 0)
                with_nn += np.int64(nn_degree > 0)
    _count(counts, slot, claimed, nd_arcs, nn_arcs, with_nd, with_nn)


#: The CUDA twin compiles the pass apart for several processes (so one process's pass carries no
#: bitmap lookup); here one function serves both.
normal_pass_over_bitmap = normal_pass


@njit(parallel=True, cache=True)
def frontier_bits(depth, level, counts, bitmaps, first_word, share_words, flags):
    """If the level's plan has ``NN_BACKWARD`` (several processes): this process's share of the
    frontier bitmap, ``share_words`` 64-bit words with bit ``x & 63`` of word ``x >> 6`` set
    where local normal ``x`` is at depth ``level``, stored from word ``first_word`` of every
    array in ``bitmaps``: with peer memory every process's gathered bitmap (this process's share
    at its place among all, in process order), else this process's share alone, which the
    processes then gather (:func:`normal_pass` reads the bitmap as bytes: bit ``x & 7`` of byte
    ``x >> 3``). ``flags``: unused here (the CUDA twin skips the segments that hold none of the
    level's frontier)."""
    if counts[PLAN_VISITS] & NN_BACKWARD == 0:
        return
    for word in prange(share_words):
        value = np.uint64(0)
        for bit in range(64):
            x = 64 * word + bit
            if x < depth.size and depth[x] == level:
                value |= np.uint64(1) << np.uint64(bit)
        for target in range(len(bitmaps)):
            bitmaps[target][first_word + word] = value


@njit(parallel=True, cache=True)
def apply_pairs(targets, sources, depth, parent, level, nd_indptr, nn_indptr, counts, slot, flags):
    """Received nn visits (``targets``: local indices): unvisited targets are claimed for depth
    ``level + 1`` and counted in ``counts[slot:]``."""
    claimed = nd_arcs = nn_arcs = with_nd = with_nn = 0
    for item in prange(targets.size):
        target = targets[item]
        if depth[target] < 0 and atomic_cas_i32(depth, target, -1, level + 1) == -1:
            parent[target] = sources[item]
            degree = nd_indptr[target + 1] - nd_indptr[target]
            nn_degree = nn_indptr[target + 1] - nn_indptr[target]
            claimed += 1
            nd_arcs += degree
            nn_arcs += nn_degree
            with_nd += np.int64(degree > 0)
            with_nn += np.int64(nn_degree > 0)
    _count(counts, slot, claimed, nd_arcs, nn_arcs, with_nd, with_nn)


@njit(parallel=True, cache=True)
def pull_delegates(indptr, indices, new, candidate, level, delegate_depth, column_depth, column_ids, stride,
                   offset, counts, visit):
    """Backward visit into delegates (dd through dd rows, nd through dn rows), if the level's plan
    has ``visit``: an unvisited delegate not yet found marks itself new with its first column at
    depth ``level`` as candidate parent."""
    if counts[PLAN_VISITS] & visit == 0:
        return
    for row in prange(delegate_depth.size):
        if delegate_depth[row] < 0 and new[row] == 0:
            for position in range(indptr[row], indptr[row + 1]):
                column = indices[position]
                if column_depth[column] == level:
                    new[row] = 1
                    candidate[row] = _global_id(column, column_ids, stride, offset)
                    break


@njit(parallel=True, cache=True)
def close_delegates(new, delegate_depth, level, dd_degree, dn_degree, dd_queue, dd_starts, dn_queue, dn_starts, counts,
                    slot, spent_slot):
    """End of a level: delegates set in the combined mask ``new`` join depth ``level + 1`` and the
    two queues of the next level's frontier (with the starts of their arcs), the mask is cleared,
    and the slot ``counts[slot:]`` gets the delegate numbers of the next level; the slot
    ``counts[spent_slot:]`` (read at this level's start) is zeroed for the claims of the next
    level. Nothing once the search is over (``counts[PLAN_DONE]``)."""
    if counts[PLAN_DONE]:
        return
    for cell in range(SLOT):
        counts[spent_slot + cell] = 0
    unvisited_dd = unvisited_dn = 0
    for x in prange(new.size):
        if new[x] != 0:
            new[x] = 0
            delegate_depth[x] = level + 1
            first = atomic_add_i64(counts, slot + DD_QUEUE, (np.int64(1) << ARC_BITS) | dd_degree[x])
            dd_queue[first >> ARC_BITS] = x
            dd_starts[first >> ARC_BITS] = first & ARC_MASK
            first = atomic_add_i64(counts, slot + DN_QUEUE, (np.int64(1) << ARC_BITS) | dn_degree[x])
            dn_queue[first >> ARC_BITS] = x
            dn_starts[first >> ARC_BITS] = first & ARC_MASK
        elif delegate_depth[x] < 0:
            unvisited_dd += np.int64(dd_degree[x] > 0)
            unvisited_dn += np.int64(dn_degree[x] > 0)
    counts[slot + UNVISITED_DD] += unvisited_dd
    counts[slot + UNVISITED_DN] += unvisited_dn
    counts[PAIRS:LONG_DN + 1] = 0


@njit(cache=True)
def decide(counts, slot, factors, direction_optimizing, alone, row, shared, peer):
    """A level's plan (``counts[PLAN_DONE:HISTORY]``) from its numbers in ``counts[slot:]``, and
    its row ``row`` of the history. Each of dd, dn, nd (and nn when ``alone``: one process, or
    when ``shared`` >= 0: several processes, nn deciding on the numbers summed over them in
    ``counts[shared:shared + SHARED_CELLS]``, so every process plans the same nn visit)
    chooses its direction by Pan et al. §IV-B: forward work ``FV`` is the frontier's arcs of that
    kind, backward work ``BV = |U| (q + s) / q`` with ``U`` the unvisited sources of the reversed
    subgraph, ``q`` the frontier and ``s`` the unvisited sources of the forward one; a kind goes
    backward when ``FV > factors[2k] * BV`` and forward again when ``FV < factors[2k + 1] * BV``;
    a kind with no frontier keeps its way. A visit is planned when its side has a frontier and
    it has arcs to follow (forward) or vertices to find (backward). Alone, an empty frontier ends
    the search; with several processes the host decides that (the frontier is global), unless
    ``peer``: then the summed normal frontier (:func:`share_numbers`) goes into the history and
    an empty global frontier ends the search on the device. The CUDA twin compiles this function's Python source."""
    q_normal, fv_nd, fv_nn = counts[slot + Q_NORMAL], counts[slot + FV_ND], counts[slot + FV_NN]
    q_delegate = counts[slot + DD_QUEUE] >> ARC_BITS
    fv_dd, fv_dn = counts[slot + DD_QUEUE] & ARC_MASK, counts[slot + DN_QUEUE] & ARC_MASK
    unvisited_dd, unvisited_dn = counts[slot + UNVISITED_DD], counts[slot + UNVISITED_DN]
    unvisited_nd, unvisited_nn = counts[UNVISITED_ND], counts[UNVISITED_NN]
    q_nn = q_normal
    if shared >= 0:
        q_nn, fv_nn, unvisited_nn = counts[shared], counts[shared + 1], counts[shared + 2]
    backward = counts[PLAN_BACKWARD]
    # Per kind (dd, dn, nd, nn; bit 1 << k of ``backward``): FV, q, the unvisited sources of the
    # forward and of the reversed subgraph, and the visit it plans forward and backward.
    kinds = ((fv_dd, q_delegate, unvisited_dd, unvisited_dd, PUSH_DD, PULL_DD),
             (fv_dn, q_delegate, unvisited_dn, unvisited_nd, PUSH_DN, DN_BACKWARD),
             (fv_nd, q_normal, unvisited_nd, unvisited_dn, ND_FORWARD, PULL_DN),
             (fv_nn, q_nn, unvisited_nn, unvisited_nn, NN_FORWARD, NN_BACKWARD))
    visits = np.int64(0)
    for kind in range(4):
        forward_work, frontier, unvisited_forward, unvisited_backward, forward_visit, backward_visit = kinds[kind]
        if frontier == 0:
            continue
        bit = np.int64(1) << kind
        if direction_optimizing and (alone or kind < 3 or shared >= 0):
            backward_work = np.float64(unvisited_backward) * (frontier + unvisited_forward) / frontier
            if backward & bit == 0 and forward_work > factors[2 * kind] * backward_work:
                backward |= bit
            elif backward & bit != 0 and forward_work < factors[2 * kind + 1] * backward_work:
                backward &= ~bit
        if backward & bit == 0:
            visits |= forward_visit if forward_work > 0 else 0
        elif unvisited_backward > 0:
            visits |= backward_visit
    counts[PLAN_BACKWARD] = backward
    counts[PLAN_VISITS] = visits
    q_history = q_nn if peer else q_normal
    counts[PLAN_DONE] = 1 if (alone or peer) and q_history + q_delegate == 0 else 0
    counts[HISTORY + HISTORY_CELLS * row] = q_history
    counts[HISTORY + HISTORY_CELLS * row + 1] = q_delegate
    counts[HISTORY + HISTORY_CELLS * row + 2] = backward


@njit(cache=True)
def start(depth, parent, new, candidate, root_cells, nd_indptr, nn_indptr, counts, unvisited_nd, unvisited_nn, flags):
    """A search's first state: the counters (and the plan) zeroed, the root at depth 0 (a local normal,
    ``root_local`` >= 0, counted in slot 0) or marked new (a delegate, ``root_delegate`` >= 0,
    for :func:`close_delegates` with ``level = -1``); ``root_cells`` holds ``root_local``,
    ``root_delegate`` and the root's global id (:data:`ROOT_CELLS`). ``depth`` and ``parent`` are
    all -1."""
    root_local, root_delegate, root = root_cells[0], root_cells[1], root_cells[2]
    counts[:] = 0
    counts[UNVISITED_ND] = unvisited_nd
    counts[UNVISITED_NN] = unvisited_nn
    if root_local >= 0:
        depth[root_local] = 0
        parent[root_local] = root
        degree = nd_indptr[root_local + 1] - nd_indptr[root_local]
        nn_degree = nn_indptr[root_local + 1] - nn_indptr[root_local]
        counts[Q_NORMAL] = 1
        counts[FV_ND] = degree
        counts[FV_NN] = nn_degree
        counts[UNVISITED_ND] -= np.int64(degree > 0)
        counts[UNVISITED_NN] -= np.int64(nn_degree > 0)
    if root_delegate >= 0:
        new[root_delegate] = 1
        candidate[root_delegate] = root


# --- peer memory (several processes of one host, gpugraph.distributed.peer) -----------------------
# A level with peer memory: ``share_numbers`` (publish this process's numbers, meet, sum the
# numbers of all and plan the level) -> this process's share of the frontier bitmap stored into
# every process's gathered bitmap (nn backward: ``frontier_bits``) -> the delegate visits,
# marking delegates in this process's marks of the level's parity (on GPUs every first probe
# and the forward visits; on the CPU all of them) -> meeting -> ``merge_marks`` (every
# process's marks combined) -> on GPUs, only the long rows of delegates no process has found
# -> the pass over the normals (nn backward over the gathered bitmap; nn forward writes pairs
# to a local buffer) -> ``scatter_pairs`` (each pair into its owner's inbox) -> meeting ->
# ``merge_marks`` with the candidates resolved -> ``apply_inbox`` -> ``close_delegates``.
# Arrays written by peers are read only after a meeting, and rewritten only after the next one:
# marks and published numbers alternate by the level's parity; the peers store their bitmap
# shares into a process's gathered bitmap at the next level's start, after the meeting that
# follows its pass over it; an inbox's cursors are zeroed when publishing, before the meeting
# after which peers write into it again.
# Each (owner, sender) pair has its own region of the owner's inbox, sized for every nn arc
# from the sender into the owner's normals, so only the sender moves its cursor.


#: Stages of :func:`share_numbers` (bits): publish this process's numbers, meet the peers (the
#: CUDA twin only: on the CPU and the simulator the host meets them between the other two),
#: sum the numbers and plan the level.
PUBLISH, MEET, DECIDE = 1, 2, 4


@njit(cache=True)
def share_numbers(counts, slot, factors, direction_optimizing, row, shared, published, parity, cursors, arrivals,
                  me, spins, stages):
    """A level's start with peer memory, the ``stages`` asked. ``PUBLISH``: this process's part
    of the level's numbers (its normal frontier, the frontier's nn arcs, its unvisited normals
    with nn arcs) and whether its own plan of the delegate visits pulls (:data:`DELEGATE_PULLS`:
    those directions hang on this process's numbers alone, so it plans them now with
    :func:`decide` and keeps its kinds' directions as they were) stored into its
    :data:`PUBLISHED_CELLS` cells of ``parity`` in every process's ``published`` (from
    ``(parity * p + me) * PUBLISHED_CELLS``), and its inbox's ``cursors`` zeroed (the inbox was
    applied at the level before). ``DECIDE``: the numbers of every process in this process's
    own ``published`` cells of ``parity`` summed into ``counts[shared:]`` (local reads: the
    peers stored them before the meeting), then :func:`decide` with ``peer`` (the same plan on
    every process), with :data:`MEET_MARKS` where any process pulls.
    ``arrivals`` and ``spins`` serve the CUDA twin's ``MEET``. Nothing once the search is over
    (``counts[PLAN_DONE]``, set alike on every process): the levels launched past the end
    neither publish nor meet (a peer's numbers may then be stale; the plan stays done)."""
    if counts[PLAN_DONE]:
        return
    processes = len(published)
    if stages & PUBLISH:
        backward = counts[PLAN_BACKWARD]
        decide(counts, slot, factors, direction_optimizing, False, row, np.int64(-1), False)
        pulls = np.int64(counts[PLAN_VISITS] & DELEGATE_PULLS != 0)
        counts[PLAN_BACKWARD] = backward  # DECIDE plans the level again from the same directions
        mine = (parity * processes + me) * PUBLISHED_CELLS
        for process in range(processes):
            _publish(counts, slot, published[process], mine, pulls)
        cursors[:] = 0
    if stages & DECIDE:
        pulling = _sum_published(counts, shared, published[me], parity * processes * PUBLISHED_CELLS, processes)
        decide(counts, slot, factors, direction_optimizing, False, row, shared, True)
        if pulling:
            counts[PLAN_VISITS] |= MEET_MARKS


@njit(cache=True)
def _publish(counts, slot, cells, first, pulls):
    """This process's numbers of the level and ``pulls`` into ``cells[first:first +
    PUBLISHED_CELLS]`` (a leaf function, so the CUDA twin of :func:`share_numbers` compiles its
    source)."""
    cells[first] = counts[slot + Q_NORMAL]
    cells[first + 1] = counts[slot + FV_NN]
    cells[first + 2] = counts[UNVISITED_NN]
    cells[first + SHARED_CELLS] = pulls


@njit(cache=True)
def _sum_published(counts, shared, cells, first, processes):
    """``counts[shared:shared + SHARED_CELLS]`` = the numbers of every process in ``cells`` from
    ``first`` on (:data:`PUBLISHED_CELLS` a process), summed cell by cell; returns how many
    processes' plans pull delegates (a leaf function, so the CUDA twin of :func:`share_numbers`
    compiles its source)."""
    for cell in range(SHARED_CELLS):
        total = np.int64(0)
        for process in range(processes):
            total += cells[first + process * PUBLISHED_CELLS + cell]
        counts[shared + cell] = total
    pulling = np.int64(0)
    for process in range(processes):
        pulling += cells[first + process * PUBLISHED_CELLS + SHARED_CELLS]
    return pulling


@njit(cache=True)
def scatter_pairs(targets, sources, counts, inboxes, cursors, starts, me, hosts, gpus_per_host):
    """The level's ``counts[PAIRS]`` nn pairs (global ``targets``, ``sources``) into their
    owners' inboxes: pair (t, s) goes to the region of process ``me`` in ``inboxes[o]`` (from
    ``starts[o * p + me]``, at ``cursors[o][me]``, which only this process moves) as one int64,
    t's local index above bit 32 and s below; those for other processes are counted in
    ``counts[PAIRS_SENT]``. Sequential: CPU peer memory serves the tests and a
    few processes."""
    processes = hosts * gpus_per_host
    for item in range(counts[PAIRS]):
        target = targets[item]
        owner = _owner(target, hosts, gpus_per_host)
        counts[PAIRS_SENT] += owner != me
        place = cursors[owner][me]
        cursors[owner][me] = place + 1
        inboxes[owner][starts[owner * processes + me] + place] = ((target // processes) << 32) | sources[item]


@njit(cache=True)
def _merged_word(marks, word, first, me, candidates, resolve, delegate_depth):
    """Word ``word`` of every process's marks OR-ed (delegates ``8 * first`` to ``8 * first +
    7``, those that exist); if ``resolve``, each delegate of it that another process marked
    but ``me`` did not takes the candidate of the first process that marked it. Zero without a
    read where the word holds no unvisited delegate: only those can be marked (every visit
    checks). One pass over the processes in order, each peer's word read once (over NVLink on
    GPUs): the marks it adds to those of ``me`` and of the processes before it are the
    delegates whose candidate it gives. A leaf function, so the CUDA twin of
    :func:`merge_marks` compiles its source."""
    open_word = False
    for x in range(8 * first, min(8 * first + 8, delegate_depth.size)):
        if delegate_depth[x] < 0:
            open_word = True
            break
    if not open_word:
        return np.uint64(0)
    value = marks[me][word]
    for process in range(len(marks)):
        if process == me:
            continue
        theirs = marks[process][word]
        added = theirs & ~value
        value |= theirs
        if resolve and added:
            for byte in range(8):
                if added >> np.uint64(8 * byte) & np.uint64(1):
                    candidates[me][8 * first + byte] = candidates[process][8 * first + byte]
    return value


@njit(parallel=True, cache=True)
def merge_marks(combined, marks, parity, me, counts, candidates, resolve, delegate_depth):
    """``combined`` (the mask :func:`close_delegates` reads) = the delegates any process marked
    in its ``marks`` of ``parity``, and this process's marks of the other parity zeroed for the
    next level (every peer read them before the meeting that came before this kernel); if
    ``resolve`` (the level's last merge), each delegate another process marked and this one did
    not gets its candidate parent from the first such process (``candidates``: every process's,
    in its block), so every process ends the search with a valid parent for every delegate
    found. Marks come as 64-bit words, eight bytes a load (a mark is a byte of 0 or 1); words of
    visited delegates only (``delegate_depth``, :func:`_merged_word`) are zero without reading
    the peers'. Nothing once the search is over (``counts[PLAN_DONE]``: a level launched past
    its end), nor for the middle merge (after the marks' meeting) of a level without
    :data:`MEET_MARKS` (its meeting was skipped; ``combined`` stays as the last close left it,
    all zeros)."""
    if counts[PLAN_DONE] or not (resolve or counts[PLAN_VISITS] & MEET_MARKS):
        return
    delegates = combined.size
    own = marks[me]
    for x in prange(delegates):
        combined[x] = _merged_word(marks, parity * delegates + x, x, me, candidates, resolve, delegate_depth)
        own[(1 - parity) * delegates + x] = 0


@njit(cache=True)
def apply_inbox(inbox, cursors, starts, me, depth, parent, level, nd_indptr, nn_indptr, counts, slot, flags):
    """The nn pairs every process put into this process's ``inbox`` (region of sender q from
    ``starts[me * p + q]``, ``cursors[q]`` pairs), unpacked and claimed by :func:`apply_pairs`;
    nothing once the search is over (``counts[PLAN_DONE]``)."""
    if counts[PLAN_DONE]:
        return
    processes = cursors.size
    targets = np.empty(cursors.sum(), dtype=np.int64)
    sources = np.empty_like(targets)
    item = 0
    for sender in range(processes):
        begin = starts[me * processes + sender]
        for pair in inbox[begin:begin + cursors[sender]]:
            targets[item] = pair >> 32
            sources[item] = pair & 0xFFFFFFFF
            item += 1
    apply_pairs(targets, sources, depth, parent, level, nd_indptr, nn_indptr, counts, slot, flags)
