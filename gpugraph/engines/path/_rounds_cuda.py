"""numba-cuda kernels of the path engine's rounds (private: see :mod:`gpugraph.engines.path.engine`).

One thread walks one chunk of paths (``path_round``) or processes one vertex
(``vertex_round``), with the same updates as the CPU kernels of
:mod:`gpugraph.engines.path._rounds_cpu`. Chunks are launched in dispatch order, so the
hardware block scheduler hands the next chunks to whichever SM frees first: the dynamic,
priority-ordered dispatch of DiGraph (§3.2.2-3.2.3) without a host round trip. Each block sums
its counts of arcs loaded and delivered in shared memory and adds them to the global totals once.

Proxy vertices (§3.2.2, ``Kernels.with_proxies``): a block keeps a shared-memory proxy for each of
the hot vertices (those with the most path arcs into them); its walks deliver to a hot vertex's
proxy (SUM: add, MIN: minimum, PEEL: count the deletions), and at the block's end each proxy
that received something is applied to its vertex with one global atomic, which wakes the vertex
as a delivery of that total would. A walk reads a hot vertex's state as its global state with
what the block's proxy holds for it (the paper's "the accumulated results on the proxy vertex
are allowed to be used by these local mirrors"), so a path through a hot vertex carries the
walk's own delivery on in the same round; what other blocks' proxies hold reaches it at their
blocks' ends.

Message batching (§3.2.2, ``Kernels.with_batching``): a block holds in shared memory the
messages of the arcs whose heads its chunk does not read (so no step of the walk waits for
them), and at its end arranges them by destination partition and pushes them together
(``path_round_batched``); the arcs into vertices the chunk reads deliver at once, so the walk's
own propagation along its paths is not delayed.

Work stealing (§3.2.2, ``Kernels.with_balance``): instead of a thread per chunk handed out by
the hardware, a round can run on a grid of blocks that each own an equal stretch of the round's
chunks (the partitions of DiGraph's SMXs), their threads taking the stretch's chunks one by one
through the block's cursor; with stealing, a block whose stretch is done takes half of what is
left of the nearest of the next blocks with chunks left, again until none has any
(``path_round_balanced``; with proxies, ``path_round_balanced_proxies``: a block's proxies then
combine the deliveries of the walks of its stretch).
"""

from __future__ import annotations

import numpy as np

from gpugraph import config
from gpugraph.backend.cuda_device import thread_index
from gpugraph.backend.kernels import launch_cuda_grid, launch_cuda_kernel
from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()

#: Shared-memory proxy slots of a block (a compile-time size; ``config.PATH_PROXY_SLOTS``).
PROXY_SLOTS = config.PATH_PROXY_SLOTS
#: Messages a block of ``path_round_batched`` holds for its push (``config.PATH_BATCH_SLOTS``; 20
#: bytes of shared memory each) and the destination partitions it arranges them by
#: (``config.PATH_BATCH_PARTITIONS``).
BATCH_SLOTS = config.PATH_BATCH_SLOTS
BATCH_PARTITIONS = config.PATH_BATCH_PARTITIONS
_BATCH_PARTITION_BOUNDS = BATCH_PARTITIONS + 1  # (a shared array's size must be a constant)
#: Blocks after it in the grid that a block of ``path_round_balanced`` whose stretch is done
#: may steal from (``config.PATH_STEAL_NEIGHBOURS``; at most a block's threads).
STEAL_NEIGHBOURS = config.PATH_STEAL_NEIGHBOURS


@cuda.jit(cache=True)
def bucket_bound(changed, pending, x, bound):
    """One thread per vertex: ``bound[0]`` (infinite before) lowered to the state of each vertex
    changed in the last round or pending (a MIN program's buckets, :meth:`Kernels.wake_all`)."""
    v = thread_index()
    if v < changed.shape[0] and (changed[v] != 0 or pending[v] != 0):
        cuda.atomic.min(bound, 0, x[v])


@cuda.jit(cache=True)
def wake_all(changed, source_offsets, source_chunks, activity, woken):
    """One thread per vertex: a vertex changed in the last round (``changed``, cleared here)
    adds 1 to ``activity[c]`` for each of its out-arcs, ``c`` the chunk that sends along it; the
    vertices woken and their out-arcs are added to ``woken[0]`` and ``woken[1]``."""
    block_totals = _cleared_block_totals()
    v = thread_index()
    vertices = 0
    arcs = 0
    if v < changed.shape[0] and changed[v] != 0:
        changed[v] = 0
        vertices = 1
        arcs = _wake_chunks_of(v, source_offsets, source_chunks, activity)
    _add_block_totals(block_totals, vertices, arcs, woken)


@cuda.jit(cache=True)
def wake_bucketed(changed, pending, x, bound, width, source_offsets, source_chunks, activity, woken):
    """:func:`wake_all` with a MIN program's buckets, after :func:`bucket_bound`: the vertices
    changed or ``pending`` wake only with a state within ``width`` of ``bound[0]``; the others
    are left pending, one each added to ``woken[1]`` (CPU twin: ``Kernels.wake_all`` of
    :mod:`gpugraph.engines.path._rounds_cpu`)."""
    block_totals = _cleared_block_totals()
    v = thread_index()
    vertices = 0
    marked = 0  # the arcs woken, or 1 for a vertex left pending
    if v < changed.shape[0] and (changed[v] != 0 or pending[v] != 0):
        if changed[v] != 0:
            changed[v] = 0
            vertices = 1
        if x[v] <= bound[0] + width:
            pending[v] = 0
            marked = _wake_chunks_of(v, source_offsets, source_chunks, activity)
        else:
            pending[v] = 1
            marked = 1
    _add_block_totals(block_totals, vertices, marked, woken)


@cuda.jit(device=True, inline=True)
def _cleared_block_totals():
    """The block's two shared counters (arcs loaded and delivered, or vertices and arcs woken),
    zeroed before any thread of the block adds to them."""
    block_totals = cuda.shared.array(2, np.int64)
    if cuda.threadIdx.x < 2:
        block_totals[cuda.threadIdx.x] = 0
    cuda.syncthreads()
    return block_totals


@cuda.jit(device=True, inline=True)
def _wake_chunks_of(v, source_offsets, source_chunks, activity):
    """``activity[c] += 1`` for each out-arc of ``v``, ``c`` the chunk that sends along it;
    returns the arcs."""
    for e in range(source_offsets[v], source_offsets[v + 1]):
        cuda.atomic.add(activity, source_chunks[e], 1)
    return source_offsets[v + 1] - source_offsets[v]


@cuda.jit(device=True)
def _add_block_totals(block_totals, loaded, delivered, totals):
    """Sum the arcs loaded and delivered over the block in shared memory; one global atomic
    each per block."""
    if loaded:
        cuda.atomic.add(block_totals, 0, loaded)
    if delivered:
        cuda.atomic.add(block_totals, 1, delivered)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        if block_totals[0]:
            cuda.atomic.add(totals, 0, block_totals[0])
        if block_totals[1]:
            cuda.atomic.add(totals, 1, block_totals[1])


@cuda.jit(device=True, inline=True)
def _clear_proxies(kind, proxy, proxy_vertex):
    """The block's proxies empty (SUM, PEEL: nothing added; MIN: no candidate) before its walks
    (and the block's other shared cells written before them); every thread of the block calls it."""
    for slot in range(cuda.threadIdx.x, proxy_vertex.size, cuda.blockDim.x):
        proxy[slot] = np.inf if kind == 1 else 0.0
    cuda.syncthreads()


@cuda.jit(device=True, inline=True)
def _apply_proxies(kind, proxy, proxy_vertex, x, count, threshold, changed):
    """After the block's walks (every thread calls it), each proxy that received something is
    applied to its vertex with one atomic: SUM adds the total (waking the vertex if it exceeds
    ``threshold``, as one delivery of it would), MIN takes the smallest candidate (waking the
    vertex if it improved), PEEL removes the counted arcs (deleting the vertex if its count
    falls below ``threshold`` = k now)."""
    cuda.syncthreads()
    for slot in range(cuda.threadIdx.x, proxy_vertex.size, cuda.blockDim.x):
        v = proxy_vertex[slot]
        value = proxy[slot]
        if kind == 0:
            if value != 0.0:
                cuda.atomic.add(x, v, value)
                if abs(value) > threshold:
                    changed[v] = 1
        elif kind == 1:
            if value < np.inf and cuda.atomic.min(x, v, value) > value:
                changed[v] = 1
        elif value != 0.0:
            removed = np.int64(value)
            before = cuda.atomic.add(count, v, -removed)
            k = np.int64(threshold)
            if before >= k and before - removed < k:
                x[v] = 1.0
                changed[v] = 1


@cuda.jit(device=True, inline=True)
def _hold(batch, v, value):
    """Keep the message ``value`` for vertex ``v`` in the block's ``batch`` (its vertices, its
    values, and a count of the messages offered so far) for :func:`_push_batch`; ``False`` if the
    batch is full (the caller delivers the message itself)."""
    held_vertex, held_value, offered = batch
    i = cuda.atomic.add(offered, 0, 1)
    if i < held_vertex.size:
        held_vertex[i] = v
        held_value[i] = value
        return True
    return False


@cuda.jit(device=True, inline=True)
def _push_batch(kind, batch, x, count, threshold, changed):
    """After the block's walks (every thread calls it), the messages the block held
    (:func:`_hold`) arranged by destination partition (:data:`BATCH_PARTITIONS` equal ranges of
    vertex ids; a counting sort in shared memory) and delivered in that order, each as the walk
    would have: SUM adds (waking the vertex above ``threshold``), MIN takes the minimum (and
    wakes it), PEEL removes an arc (deleting the vertex when its count falls below ``threshold``
    = k)."""
    held_vertex, held_value, offered = batch
    partition_start = cuda.shared.array(_BATCH_PARTITION_BOUNDS, np.int32)
    place = cuda.shared.array(BATCH_SLOTS, np.int16)  # a message's place among its partition's
    order = cuda.shared.array(BATCH_SLOTS, np.int16)  # the messages, by destination partition
    thread, threads = cuda.threadIdx.x, cuda.blockDim.x
    for p in range(thread, _BATCH_PARTITION_BOUNDS, threads):
        partition_start[p] = 0
    cuda.syncthreads()  # (and every walk of the block done)
    held = min(offered[0], BATCH_SLOTS)
    vertices = x.shape[0]
    for i in range(thread, held, threads):
        place[i] = cuda.atomic.add(partition_start, 1 + held_vertex[i] * BATCH_PARTITIONS // vertices, 1)
    cuda.syncthreads()
    if thread == 0:
        for p in range(BATCH_PARTITIONS):
            partition_start[p + 1] += partition_start[p]
    cuda.syncthreads()
    for i in range(thread, held, threads):
        order[partition_start[held_vertex[i] * BATCH_PARTITIONS // vertices] + place[i]] = i
    cuda.syncthreads()
    k = np.int64(threshold)
    for r in range(thread, held, threads):
        i = order[r]
        v = held_vertex[i]
        value = held_value[i]
        if kind == 0:
            cuda.atomic.add(x, v, value)
            if abs(value) > threshold:
                changed[v] = 1
        elif kind == 1:
            cuda.atomic.min(x, v, value)
            changed[v] = 1
        elif cuda.atomic.add(count, v, -1) == k:
            x[v] = 1.0
            changed[v] = 1


def _walkers(proxies: bool, buckets: bool, batched: bool):
    """The device functions that walk this thread's chunk: ``(walk_listed, walk_active,
    walk_entry)``, with the proxies', the buckets' and the batches' branches compiled in
    (``proxies``, ``buckets``, ``batched``: constants of the compiled code) or left out, so that
    the plain rounds carry none of their code, registers or arguments."""

    @cuda.jit(device=True, inline=True)
    def walk(c, kind, chunk_offsets, offsets, vertices, values, sent, x, count, threshold, changed, pending,
             bound, width, sweeps, position_proxy, proxy, unread, batch):
        """Walk chunk ``c``'s paths in order (CPU twin: ``path_round`` of
        :mod:`gpugraph.engines.path._rounds_cpu`, whose docstring gives the updates); returns the
        arcs loaded and delivered. With ``proxies``, ``position_proxy[j]`` is the block's proxy
        slot in ``proxy`` of the vertex at position ``j`` of ``vertices``, or -1: an arc into a
        hot vertex delivers to its proxy, and a hot vertex's state is read with what its proxy
        holds (SUM: the sum added, MIN: the smaller, PEEL: the counted deletions taken off), so
        that the walk's successor on the path gets it in the same round (§3.2.2); without, neither
        array is read. With ``buckets``, a MIN state above ``bound[0] + width`` is not sent and
        ``pending[u]`` is set (without, neither is read). With ``batched``, an arc whose head the
        chunk does not read (``unread[j]``) leaves its message in the block's ``batch``
        (:func:`_hold`) while it has room (without, neither is read)."""
        loaded = 0
        delivered = 0
        first = offsets[chunk_offsets[c]]
        last = offsets[chunk_offsets[c + 1]]
        k = np.int64(threshold)
        limit = bound[0] + width if buckets else np.inf
        for sweep in range(sweeps):
            fed_back = False
            for p in range(chunk_offsets[c], chunk_offsets[c + 1]):
                for j in range(offsets[p], offsets[p + 1] - 1):
                    u = vertices[j]
                    v = vertices[j + 1]
                    tail_slot = position_proxy[j] if proxies else -1
                    head_slot = position_proxy[j + 1] if proxies else -1
                    loaded += 1
                    woke = False
                    if kind == 0:
                        state = x[u]
                        if tail_slot >= 0:
                            state += proxy[tail_slot]
                        change = state - sent[j]
                        if abs(change) > threshold:
                            sent[j] = state
                            amount = values[j] * change
                            if head_slot >= 0:
                                cuda.atomic.add(proxy, head_slot, amount)
                                woke = abs(amount) > threshold
                            elif not (batched and unread[j] and _hold(batch, v, amount)):
                                cuda.atomic.add(x, v, amount)
                                if abs(amount) > threshold:
                                    changed[v] = 1
                                    woke = True
                            delivered += 1
                    elif kind == 1:
                        state = x[u]
                        if tail_slot >= 0:
                            state = min(state, proxy[tail_slot])
                        if buckets and state < sent[j] and state > limit:
                            pending[u] = 1
                        elif state < sent[j]:
                            sent[j] = state
                            candidate = state + values[j]
                            if head_slot >= 0:
                                if candidate < x[v] and candidate < proxy[head_slot]:
                                    cuda.atomic.min(proxy, head_slot, candidate)
                                    woke = True
                                    delivered += 1
                            elif candidate < x[v]:
                                if not (batched and unread[j] and _hold(batch, v, candidate)):
                                    cuda.atomic.min(x, v, candidate)
                                    changed[v] = 1
                                    woke = True
                                delivered += 1
                    elif sent[j] == 0.0 and (x[u] != 0.0
                                             or (tail_slot >= 0 and count[u] - np.int64(proxy[tail_slot]) < k)):
                        sent[j] = 1.0
                        delivered += 1
                        if head_slot >= 0:
                            counted = np.int64(cuda.atomic.add(proxy, head_slot, 1.0))
                            woke = x[v] == 0.0 and count[v] - counted == k
                        elif batched and unread[j] and _hold(batch, v, 1.0):
                            pass  # (a vertex this chunk does not read: no sweep to wake)
                        elif cuda.atomic.add(count, v, -1) == k:
                            x[v] = 1.0
                            changed[v] = 1
                            woke = True
                    if woke and sweeps > 1 and not fed_back:
                        for q in range(first, last):
                            if vertices[q] == v:
                                fed_back = True
                                break
            if not fed_back:
                break
        return loaded, delivered

    @cuda.jit(device=True, inline=True)
    def walk_entry(i, listed, kind, selection, chunk_offsets, offsets, vertices, values, sent, x, count, threshold,
                   changed, pending, bound, width, sweeps, position_proxy, proxy, unread, batch):
        """Entry ``i`` of a round's ``selection`` walked: the chunk it lists (``listed``), or chunk
        ``i`` if its activity is set (cleared for the next round's wake); returns arcs loaded and
        delivered."""
        if listed:
            return walk(selection[i], kind, chunk_offsets, offsets, vertices, values, sent, x, count, threshold,
                        changed, pending, bound, width, sweeps, position_proxy, proxy, unread, batch)
        if selection[i] != 0:
            selection[i] = 0
            return walk(i, kind, chunk_offsets, offsets, vertices, values, sent, x, count, threshold, changed,
                        pending, bound, width, sweeps, position_proxy, proxy, unread, batch)
        return 0, 0

    @cuda.jit(device=True, inline=True)
    def walk_listed(kind, chunks, chunk_offsets, offsets, vertices, values, sent, x, count, threshold, changed,
                    pending, bound, width, sweeps, position_proxy, proxy, unread, batch):
        """This thread's chunk of ``chunks`` walked (none past the end); returns arcs loaded and delivered."""
        i = thread_index()
        if i < chunks.shape[0]:
            return walk_entry(i, True, kind, chunks, chunk_offsets, offsets, vertices, values, sent, x, count,
                              threshold, changed, pending, bound, width, sweeps, position_proxy, proxy, unread, batch)
        return 0, 0

    @cuda.jit(device=True, inline=True)
    def walk_active(kind, activity, chunk_offsets, offsets, vertices, values, sent, x, count, threshold, changed,
                    pending, bound, width, sweeps, position_proxy, proxy, unread, batch):
        """This thread's chunk of the layout walked if active (``activity``, cleared for the next
        round's wake); returns arcs loaded and delivered."""
        c = thread_index()
        if c < activity.shape[0]:
            return walk_entry(c, False, kind, activity, chunk_offsets, offsets, vertices, values, sent, x, count,
                              threshold, changed, pending, bound, width, sweeps, position_proxy, proxy, unread, batch)
        return 0, 0

    return walk_listed, walk_active, walk_entry


# Without proxies the walks read neither ``position_proxy`` nor ``proxy``, without buckets neither
# ``pending`` nor ``bound``, without batches neither ``unread`` nor ``batch``: the rounds pass any
# arrays of the right kinds in their place (``chunk_offsets`` and ``x``, ``changed`` and ``x``,
# ``changed`` and ``(totals, x, totals)``).
_walk_listed, _walk_active, _walk_entry = _walkers(False, False, False)
_walk_listed_proxies, _walk_active_proxies, _walk_entry_proxies = _walkers(True, False, False)
_walk_listed_buckets, _walk_active_buckets, _ = _walkers(False, True, False)
_walk_listed_batched, _walk_active_batched, _ = _walkers(False, False, True)
_NO_WIDTH = np.inf


@cuda.jit(cache=True)
def path_round(kind, chunks, chunk_offsets, offsets, vertices, values, sent, x, count,
               threshold, changed, sweeps, totals):
    """One thread per dispatched chunk of ``chunks``, each walked in order (:func:`_walkers`)."""
    block_totals = _cleared_block_totals()
    loaded, delivered = _walk_listed(kind, chunks, chunk_offsets, offsets, vertices, values, sent, x, count,
                                     threshold, changed, changed, x, _NO_WIDTH, sweeps, chunk_offsets, x, changed,
                                     (totals, x, totals))
    _add_block_totals(block_totals, loaded, delivered, totals)


@cuda.jit(cache=True)
def path_round_active(kind, activity, chunk_offsets, offsets, vertices, values, sent, x, count,
                      threshold, changed, sweeps, totals):
    """One thread per chunk of the layout, in stored order: an active chunk is walked by
    :func:`_walkers`, the others return at once. No list of the active chunks, so no host round
    trip between rounds."""
    block_totals = _cleared_block_totals()
    loaded, delivered = _walk_active(kind, activity, chunk_offsets, offsets, vertices, values, sent, x, count,
                                     threshold, changed, changed, x, _NO_WIDTH, sweeps, chunk_offsets, x, changed,
                                     (totals, x, totals))
    _add_block_totals(block_totals, loaded, delivered, totals)


def _balanced(walk_entry):
    """The work of a block of a round whose entries are split into equal stretches, one to each
    block of the grid (:func:`path_round_balanced`'s docstring), each entry walked by
    ``walk_entry`` (the plain walkers' or the proxies'); returns the block's thread's arcs
    loaded and delivered."""

    @cuda.jit(device=True, inline=True)
    def run(kind, listed, selection, steal, cursors, parity, chunk_offsets, offsets, vertices, values, sent, x, count,
            threshold, changed, sweeps, position_proxy, proxy):
        stolen = cuda.shared.array(3, np.int64)  # the nearest block with entries left; the stolen range
        blocks = cuda.gridDim.x
        for i in range(thread_index(), cursors.shape[1], blocks * cuda.blockDim.x):
            cursors[1 - parity, i] = 0
        items = selection.shape[0]
        stretch = (items + blocks - 1) // blocks
        loaded = 0
        delivered = 0
        start = cuda.blockIdx.x * stretch
        end = min(start + stretch, items)
        while True:
            i = start + cuda.atomic.add(cursors, (parity, cuda.blockIdx.x), 1)
            if i >= end:
                break
            walked, sent_on = walk_entry(i, listed, kind, selection, chunk_offsets, offsets, vertices, values, sent, x,
                                         count, threshold, changed, changed, x, _NO_WIDTH, sweeps, position_proxy,
                                         proxy, changed, (chunk_offsets, x, chunk_offsets))
            loaded += walked
            delivered += sent_on
        while steal:
            cuda.syncthreads()  # the last range shared out before it is replaced
            if cuda.threadIdx.x == 0:
                stolen[0] = blocks
            cuda.syncthreads()
            distance = 1 + cuda.threadIdx.x
            if distance <= STEAL_NEIGHBOURS and distance < blocks:
                other = (cuda.blockIdx.x + distance) % blocks
                if other * stretch + cuda.atomic.add(cursors, (parity, other), 0) < min((other + 1) * stretch, items):
                    cuda.atomic.min(stolen, 0, distance)
            cuda.syncthreads()
            if cuda.threadIdx.x == 0:
                stolen[2] = -1  # nothing left anywhere
                if stolen[0] < blocks:  # (a range from past its end, empty, if another block took the rest first)
                    other = (cuda.blockIdx.x + stolen[0]) % blocks
                    first = other * stretch
                    last = min(first + stretch, items)
                    take = max((last - first - cuda.atomic.add(cursors, (parity, other), 0)) // 2, 1)
                    stolen[1] = first + cuda.atomic.add(cursors, (parity, other), take)
                    stolen[2] = min(stolen[1] + take, last)
            cuda.syncthreads()
            if stolen[2] < 0:
                break
            while True:
                i = cuda.atomic.add(stolen, 1, 1)
                if i >= stolen[2]:
                    break
                walked, sent_on = walk_entry(i, listed, kind, selection, chunk_offsets, offsets, vertices, values,
                                             sent, x, count, threshold, changed, changed, x, _NO_WIDTH, sweeps,
                                             position_proxy, proxy, changed, (chunk_offsets, x, chunk_offsets))
                loaded += walked
                delivered += sent_on
        return loaded, delivered

    return run


_balanced_plain = _balanced(_walk_entry)
_balanced_proxies = _balanced(_walk_entry_proxies)


@cuda.jit(cache=True)
def path_round_balanced(kind, listed, selection, steal, cursors, parity, chunk_offsets, offsets, vertices, values,
                        sent, x, count, threshold, changed, sweeps, totals):
    """A round of :func:`path_round` (``listed``: ``selection`` lists the chunks) or
    :func:`path_round_active` (``selection`` is the activity of every chunk), its entries split
    into equal stretches, one to each block of the grid. A block's threads take the next entry
    of its stretch from the block's cursor (row ``parity`` of ``cursors``: entries handed out so
    far). With ``steal``, a block whose stretch is done looks (a thread for each of the next
    :data:`STEAL_NEIGHBOURS` blocks in the grid, reading their cursors atomically) for the
    nearest with entries left, takes half of them at once from that block's cursor, and shares
    them out through a cursor in shared memory; again until none of them has any. The blocks
    zero row ``1 - parity``, the next round's cursors (this round's were zeroed by the last
    round, which ran before it)."""
    block_totals = _cleared_block_totals()
    loaded, delivered = _balanced_plain(kind, listed, selection, steal, cursors, parity, chunk_offsets, offsets,
                                        vertices, values, sent, x, count, threshold, changed, sweeps, chunk_offsets, x)
    _add_block_totals(block_totals, loaded, delivered, totals)


@cuda.jit(cache=True)
def path_round_balanced_proxies(kind, listed, selection, steal, cursors, parity, chunk_offsets, offsets, vertices,
                                values, sent, x, count, threshold, changed, sweeps, totals, position_proxy,
                                proxy_vertex):
    """:func:`path_round_balanced` through the block's shared-memory proxies of ``proxy_vertex``
    (as :func:`path_round_proxies`): a block owning a stretch of chunks combines its walks'
    deliveries to the hot vertices and applies them at its end."""
    block_totals = cuda.shared.array(2, np.int64)
    proxy = cuda.shared.array(PROXY_SLOTS, np.float64)
    if cuda.threadIdx.x < 2:
        block_totals[cuda.threadIdx.x] = 0
    _clear_proxies(kind, proxy, proxy_vertex)
    loaded, delivered = _balanced_proxies(kind, listed, selection, steal, cursors, parity, chunk_offsets, offsets,
                                          vertices, values, sent, x, count, threshold, changed, sweeps,
                                          position_proxy, proxy)
    _apply_proxies(kind, proxy, proxy_vertex, x, count, threshold, changed)
    _add_block_totals(block_totals, loaded, delivered, totals)


@cuda.jit(cache=True)
def path_round_proxies(kind, listed, selection, chunk_offsets, offsets, vertices, values, sent, x, count,
                       threshold, changed, sweeps, totals, position_proxy, proxy_vertex):
    """:func:`path_round` (``listed``: ``selection`` lists the chunks) or :func:`path_round_active`
    (``selection`` is the activity) through the block's shared-memory proxies of
    ``proxy_vertex``: kernels of their own, so that rounds without proxies reserve no shared
    memory for them."""
    block_totals = cuda.shared.array(2, np.int64)
    proxy = cuda.shared.array(PROXY_SLOTS, np.float64)
    if cuda.threadIdx.x < 2:
        block_totals[cuda.threadIdx.x] = 0
    _clear_proxies(kind, proxy, proxy_vertex)
    if listed:
        loaded, delivered = _walk_listed_proxies(kind, selection, chunk_offsets, offsets, vertices, values, sent, x,
                                                 count, threshold, changed, changed, x, _NO_WIDTH, sweeps,
                                                 position_proxy, proxy, changed, (totals, x, totals))
    else:
        loaded, delivered = _walk_active_proxies(kind, selection, chunk_offsets, offsets, vertices, values, sent, x,
                                                 count, threshold, changed, changed, x, _NO_WIDTH, sweeps,
                                                 position_proxy, proxy, changed, (totals, x, totals))
    _apply_proxies(kind, proxy, proxy_vertex, x, count, threshold, changed)
    _add_block_totals(block_totals, loaded, delivered, totals)


@cuda.jit(cache=True)
def path_round_batched(kind, listed, selection, chunk_offsets, offsets, vertices, values, sent, x, count,
                       threshold, changed, sweeps, totals, unread):
    """:func:`path_round` or :func:`path_round_active` (``listed`` as for
    :func:`path_round_proxies`) with DiGraph's message batching (§3.2.2): an arc whose head the
    walking chunk does not read (``unread[j]``) leaves its message in the block's shared memory,
    and at the block's end the messages are arranged by destination partition and pushed
    together (:func:`_push_batch`); a message that finds the batch full is delivered at once."""
    block_totals = cuda.shared.array(2, np.int64)
    held_vertex = cuda.shared.array(BATCH_SLOTS, np.int64)
    held_value = cuda.shared.array(BATCH_SLOTS, np.float64)
    offered = cuda.shared.array(1, np.int32)
    batch = (held_vertex, held_value, offered)
    if cuda.threadIdx.x < 2:
        block_totals[cuda.threadIdx.x] = 0
    if cuda.threadIdx.x == 0:
        offered[0] = 0
    cuda.syncthreads()
    if listed:
        loaded, delivered = _walk_listed_batched(kind, selection, chunk_offsets, offsets, vertices, values, sent, x,
                                                 count, threshold, changed, changed, x, _NO_WIDTH, sweeps,
                                                 chunk_offsets, x, unread, batch)
    else:
        loaded, delivered = _walk_active_batched(kind, selection, chunk_offsets, offsets, vertices, values, sent, x,
                                                 count, threshold, changed, changed, x, _NO_WIDTH, sweeps,
                                                 chunk_offsets, x, unread, batch)
    _push_batch(kind, batch, x, count, threshold, changed)
    _add_block_totals(block_totals, loaded, delivered, totals)


@cuda.jit(cache=True)
def unread_heads(chunk_offsets, offsets, vertices, arcs, unread):
    """One thread per chunk: ``unread[j] = 1`` for each arc position ``j`` of the chunk whose head
    ``vertices[j + 1]`` is at no other position of the chunk (so no step of the chunk's walk
    reads the state it delivers: :func:`path_round_batched` may hold its message), else 0."""
    c = thread_index()
    if c < chunk_offsets.shape[0] - 1:
        first = offsets[chunk_offsets[c]]
        last = offsets[chunk_offsets[c + 1]]
        for j in range(first, last):
            alone = arcs[j] >= 0
            if alone:
                head = vertices[j + 1]
                for q in range(first, last):
                    if q != j + 1 and vertices[q] == head:
                        alone = False
                        break
            unread[j] = 1 if alone else 0


@cuda.jit(cache=True)
def path_round_buckets(kind, listed, selection, chunk_offsets, offsets, vertices, values, sent, x, count,
                       threshold, changed, pending, bound, width, sweeps, totals):
    """:func:`path_round` or :func:`path_round_active` (``listed`` as for
    :func:`path_round_proxies`) with a MIN program's buckets, without proxies: a state above
    ``bound[0] + width`` waits, ``pending[u]`` set."""
    block_totals = _cleared_block_totals()
    if listed:
        loaded, delivered = _walk_listed_buckets(kind, selection, chunk_offsets, offsets, vertices, values, sent, x,
                                                 count, threshold, changed, pending, bound, width, sweeps,
                                                 chunk_offsets, x, changed, (totals, x, totals))
    else:
        loaded, delivered = _walk_active_buckets(kind, selection, chunk_offsets, offsets, vertices, values, sent, x,
                                                 count, threshold, changed, pending, bound, width, sweeps,
                                                 chunk_offsets, x, changed, (totals, x, totals))
    _add_block_totals(block_totals, loaded, delivered, totals)


@cuda.jit(cache=True)
def vertex_round(kind, synchronous, frontier, indptr, indices, values, x, residual, incoming, pending,
                 count, threshold, changed, totals):
    """One thread per frontier vertex (CPU twin: ``vertex_round`` of
    :mod:`gpugraph.engines.path._rounds_cpu`, whose docstring gives the updates)."""
    block_totals = cuda.shared.array(2, np.int64)
    if cuda.threadIdx.x < 2:
        block_totals[cuda.threadIdx.x] = 0
    cuda.syncthreads()
    i = thread_index()
    loaded = 0
    delivered = 0
    if i < frontier.shape[0]:
        u = frontier[i]
        k = np.int64(threshold)
        if kind == 0:
            change = residual[u]
            if abs(change) > threshold:
                cuda.atomic.add(residual, u, -change)
                x[u] += change
                changed[u] = 1
                for e in range(indptr[u], indptr[u + 1]):
                    if synchronous:
                        cuda.atomic.add(incoming, indices[e], values[e] * change)
                    else:
                        cuda.atomic.add(residual, indices[e], values[e] * change)
                delivered = indptr[u + 1] - indptr[u]
                loaded = delivered
        elif synchronous or pending[u] != 0:
            if synchronous:
                state = residual[u]
            else:  # as in the CPU twin: the flag cleared, then the state read where atomics land (L2)
                pending[u] = 0
                cuda.threadfence()
                state = cuda.atomic.min(x, u, np.inf) if kind == 1 else x[u]
            loaded = indptr[u + 1] - indptr[u]
            for e in range(indptr[u], indptr[u + 1]):
                v = indices[e]
                if kind == 1:
                    candidate = state + values[e]
                    if candidate < x[v]:  # as in path_round: a plain read decides, no wait on the atomic
                        cuda.atomic.min(x, v, candidate)
                        if not synchronous:
                            cuda.threadfence()  # the new state before the flag that asks to send it
                        changed[v] = 1
                        pending[v] = 1
                        delivered += 1
                else:
                    delivered += 1
                    if cuda.atomic.add(count, v, -1) == k:
                        x[v] = 1.0
                        changed[v] = 1
                        pending[v] = 1
    _add_block_totals(block_totals, loaded, delivered, totals)


class Kernels:
    """The engine's view of these kernels (same methods as the CPU ``Kernels``): launches on
    ``backend``; arc counts are added to the device array ``totals`` (loaded, delivered)."""

    def __init__(self, backend):
        self.backend = backend
        self.position_proxy = backend.xp.empty(0, dtype=np.int16)
        self.proxy_vertex = backend.xp.empty(0, dtype=np.int64)
        self.unread = None
        self.balance = "hardware"
        self.blocks = 0  # the balanced rounds' grid at most, and two rows of a cursor per block
        self.cursors = None
        self.parity = 0

    def with_proxies(self, position_proxy, proxy_vertex):
        """Walks from now on deliver to the vertices ``proxy_vertex`` (at most
        :data:`PROXY_SLOTS`) through shared-memory proxies, and read those vertices' states with
        what the proxies hold; ``position_proxy[j]``: the slot of the vertex at position ``j`` of
        the layout's ``vertices``, or -1 (device arrays)."""
        self.position_proxy, self.proxy_vertex = position_proxy, proxy_vertex

    def with_batching(self, unread):
        """Plain rounds from now on run as :func:`path_round_batched`; ``unread``: the device
        array of :func:`unread_heads` for the layout."""
        self.unread = unread

    def unread_heads(self, chunk_offsets, offsets, vertices, arcs):
        """The flags of :func:`unread_heads` for a layout's device arrays (a new uint8 array)."""
        unread = self.backend.xp.zeros(vertices.size, dtype=np.uint8)
        self._launch(unread_heads, chunk_offsets.size - 1, chunk_offsets, offsets, vertices, arcs, unread)
        return unread

    def with_balance(self, balance: str):
        """Rounds without buckets from now on run as :func:`path_round_balanced` (or
        :func:`path_round_balanced_proxies`): ``"static"`` (each block its stretch of chunks) or
        ``"stealing"`` (and then the others'); ``"hardware"``: a thread per chunk, handed out by
        the block scheduler."""
        self.balance = balance
        if balance != "hardware":
            self.blocks = self.backend.multiprocessors() * (config.CUDA_THREADS_PER_SM //
                                                            self.backend.threads_per_block())
            self.cursors = self.backend.xp.zeros((2, self.blocks), dtype=np.int64)

    def _launch(self, kernel, items, *args):
        if items:  # (an empty round launches nothing)
            launch_cuda_kernel(kernel, self.backend, items, *args)

    def wake_all(self, changed, buckets, source_offsets, source_chunks, activity, woken):
        """Wake the chunks of the vertices in ``changed`` and clear it; count the vertices and
        their arcs into ``woken`` (two cells), all on the device; with ``buckets`` (MIN
        programs), first their bound (:func:`bucket_bound`), then only the states within their
        width of it (:func:`wake_bucketed`)."""
        if buckets is None:
            self._launch(wake_all, changed.size, changed, source_offsets, source_chunks, activity, woken)
            return
        buckets.bound.fill(np.inf)
        self._launch(bucket_bound, changed.size, changed, buckets.pending, buckets.x, buckets.bound)
        self._launch(wake_bucketed, changed.size, changed, buckets.pending, buckets.x, buckets.bound,
                     np.float64(buckets.width), source_offsets, source_chunks, activity, woken)

    def path_round_active(self, kind, activity, chunk_offsets, offsets, vertices, values, sent, x, count,
                          threshold, changed, buckets, sweeps, totals):
        """One round over the chunks with ``activity`` (cleared as they run), in stored order."""
        self._walk_round(path_round_active, False, kind, activity, chunk_offsets, offsets, vertices, values, sent, x,
                         count, threshold, changed, buckets, sweeps, totals)

    def path_round(self, kind, chunks, chunk_offsets, offsets, vertices, values, sent, x, count,
                   threshold, changed, buckets, sweeps, totals):
        """One round over ``chunks`` in order."""
        self._walk_round(path_round, True, kind, chunks, chunk_offsets, offsets, vertices, values, sent, x, count,
                         threshold, changed, buckets, sweeps, totals)

    def _walk_round(self, plain, listed, kind, selection, chunk_offsets, offsets, vertices, values, sent, x, count,
                    threshold, changed, buckets, sweeps, totals):
        """A round of ``plain`` (:func:`path_round` if ``listed``, else :func:`path_round_active`),
        or of the kernel with buckets (:func:`path_round_buckets`), batches
        (:func:`path_round_batched`), stretches of chunks (:func:`path_round_balanced`, with
        proxies :func:`path_round_balanced_proxies`) or proxies (:func:`path_round_proxies`) when
        the run has them."""
        arrays = (selection, chunk_offsets, offsets, vertices, values, sent, x, count, np.float64(threshold), changed)
        tail = (np.int64(sweeps), totals)
        if buckets is not None:
            self._launch(path_round_buckets, selection.size, np.int64(kind), listed, *arrays, buckets.pending,
                         buckets.bound, np.float64(buckets.width), *tail)
        elif self.unread is not None:
            self._launch(path_round_batched, selection.size, np.int64(kind), listed, *arrays, *tail, self.unread)
        elif self.balance != "hardware" and selection.size:
            blocks = min(self.blocks, self.backend.blocks_for(selection.size))
            kernel, hot = path_round_balanced, ()
            if self.proxy_vertex.size:
                kernel, hot = path_round_balanced_proxies, (self.position_proxy, self.proxy_vertex)
            launch_cuda_grid(kernel, self.backend, blocks, self.backend.threads_per_block(), np.int64(kind), listed,
                             arrays[0], self.balance == "stealing", self.cursors, np.int64(self.parity), *arrays[1:],
                             *tail, *hot)
            self.parity = 1 - self.parity
        elif self.proxy_vertex.size:
            self._launch(path_round_proxies, selection.size, np.int64(kind), listed, *arrays, *tail,
                         self.position_proxy, self.proxy_vertex)
        else:
            self._launch(plain, selection.size, np.int64(kind), *arrays, *tail)

    def vertex_round(self, kind, synchronous, frontier, indptr, indices, values, x, residual, incoming, pending,
                     count, threshold, changed, totals):
        """One vertex-centric round."""
        self._launch(vertex_round, frontier.size, np.int64(kind), bool(synchronous), frontier, indptr, indices,
                     values, x, residual, incoming, pending, count, np.float64(threshold), changed, totals)
