"""numba-cuda kernels of SSSP (private: call gpugraph.algorithms.sssp.run)."""

from __future__ import annotations

import math

import numpy as np

from gpugraph.algorithms._bfs_cuda import grid_barrier
from gpugraph.backend.cuda_device import last_at_most, thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


#: Slots of the persistent kernel's ``control`` array: a ring of three phases, each with the
#: near items and the far vertices appended in that phase, then the result.
RING = 3
RESULT = 2 * RING
#: Low bits of a near item hold the vertex, the high bits which chunk of its out-arcs to relax.
VERTEX_BITS = 32
VERTEX_MASK = (1 << VERTEX_BITS) - 1


@cuda.jit(device=True)
def _read(distance, vertex):
    """The current distance of ``vertex``, read through L2 (an atomic that adds nothing): a plain
    load may return a line that another block has since lowered, and the expansion of a vertex
    must see the distance that queued it."""
    return cuda.atomic.add(distance, vertex, 0.0)


@cuda.jit(device=True)
def _push_near(vertex, indptr, chunk, near_mark, tag, queue, control, slot):
    """Queue ``vertex`` for the near round ``tag`` (once per round) as one item per ``chunk``
    out-arcs, so that a hub is relaxed by many threads."""
    if cuda.atomic.max(near_mark, vertex, tag) < tag:
        items = (indptr[vertex + 1] - indptr[vertex] + chunk - 1) // chunk
        if items > 0:
            base = cuda.atomic.add(control, slot, items)
            for part in range(items):
                queue[base + part] = (np.int64(part) << VERTEX_BITS) | np.int64(vertex)


@cuda.jit(device=True)
def _push_far(vertex, far_mark, epoch, queue, offset, control, slot):
    """Add ``vertex`` to the far pile of ``epoch`` (once per epoch) after its first ``offset`` entries."""
    if cuda.atomic.max(far_mark, vertex, epoch) < epoch:
        queue[offset + cuda.atomic.add(control, slot, 1)] = vertex


@cuda.jit(device=True)
def _clear_next_slot(control, lowest, phase):
    """Thread 0 clears the ring slot two phases old (every block has read it) for phase + 1."""
    if cuda.blockIdx.x == 0 and cuda.threadIdx.x == 0:
        spare = (phase + 1) % RING
        control[2 * spare] = 0
        control[2 * spare + 1] = 0
        lowest[spare] = math.inf


@cuda.jit(device=True)
def _phase_totals(control, slot, totals):
    """After a barrier: the phase's near and far counts, read once per block (by two threads at
    once) and shared."""
    if cuda.threadIdx.x < 2:
        totals[cuda.threadIdx.x] = cuda.atomic.add(control, 2 * slot + cuda.threadIdx.x, 0)
    cuda.syncthreads()
    near, far = totals[0], totals[1]
    cuda.syncthreads()
    return near, far


@cuda.jit(device=True)
def _item(item, indptr, chunk, distance):
    """The arcs ``[first, last)`` of a near item and the distance of their tail."""
    vertex = item & VERTEX_MASK
    first = indptr[vertex] + (item >> VERTEX_BITS) * chunk
    return first, min(first + chunk, indptr[vertex + 1]), _read(distance, vertex)


@cuda.jit(device=True)
def _relax(edge, reached, indptr, indices, weights, unit_weights, distance, threshold, chunk, near_distance,
           near_mark, next_round, following, far_mark, epoch, pile, far_size, control, slot):
    """Relax one arc from a tail at distance ``reached``: a lowered distance below the threshold
    queues the head for the next round, one at or above it adds the head to the far pile."""
    candidate = reached + (1.0 if unit_weights else np.float64(weights[edge]))
    neighbour = indices[edge]
    if candidate < distance[neighbour] and candidate < cuda.atomic.min(distance, neighbour, candidate):
        if candidate < threshold:
            cuda.atomic.min(near_distance, neighbour, candidate)
            _push_near(neighbour, indptr, chunk, near_mark, next_round, following, control, 2 * slot)
        else:
            _push_far(neighbour, far_mark, epoch, pile, far_size, control, 2 * slot + 1)


@cuda.jit(cache=True)
def near_far(indptr, indices, weights, unit_weights, distance, near_distance, near_mark, far_mark,
             near_a, near_b, far_a, far_b, first_items, delta, chunk, control, lowest, barrier):
    """The whole near-far search in one persistent kernel (see :func:`gpugraph.algorithms.sssp`).

    Rounds expand the near queue (``near_a[:first_items]`` first): each item is a vertex and a
    chunk of at most ``chunk`` of its out-arcs, relaxed with an atomic minimum. A lowered
    distance below the threshold queues the vertex for the next round (``near_mark`` holds the
    round it was last queued for), one at or above it joins the far pile (``far_mark``: the
    epoch). When a round queues nothing, the threshold moves to the smallest pending far
    distance plus ``delta`` (empty buckets are skipped), and the far pile is split into the next
    near queue and the pile of the next epoch. ``near_distance`` keeps the lowest distance at
    which a vertex was queued near, so far entries already expanded are dropped. A grid barrier
    ends every phase; all blocks must be resident.

    ``control`` (int64, zeroed) ends with ``[rounds, epochs, arcs relaxed]`` at ``RESULT``;
    ``lowest`` (float64, three slots) starts at +inf.
    """
    thread = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    stride = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    blocks = cuda.gridDim.x
    totals = cuda.shared.array(2, np.int64)
    block_lowest = cuda.shared.array(1, np.float64)
    threshold = delta
    near_items = first_items
    far_size = np.int64(0)
    phase = np.int64(0)
    round_tag = np.int64(1)
    epoch = np.int64(1)
    near_parity = 0
    far_parity = 0
    relaxed = np.int64(0)
    while True:
        # A round: relax the near queue's items.
        slot = phase % RING
        _clear_next_slot(control, lowest, phase)
        current = near_a if near_parity == 0 else near_b
        following = near_b if near_parity == 0 else near_a
        pile = far_a if far_parity == 0 else far_b
        for position in range(thread, near_items, stride):
            first, last, reached = _item(current[position], indptr, chunk, distance)
            relaxed += last - first
            for edge in range(first, last):
                _relax(edge, reached, indptr, indices, weights, unit_weights, distance, threshold, chunk, near_distance,
                       near_mark, np.int32(round_tag + 1), following, far_mark, np.int32(epoch), pile, far_size,
                       control, slot)
        grid_barrier(barrier, blocks)
        near_items, added = _phase_totals(control, slot, totals)
        far_size += added
        phase += 1
        round_tag += 1
        near_parity = 1 - near_parity
        if near_items > 0:
            continue
        if far_size == 0:
            break
        # The near queue is empty: the smallest distance still pending in the far pile...
        slot = phase % RING
        _clear_next_slot(control, lowest, phase)
        if cuda.threadIdx.x == 0:
            block_lowest[0] = math.inf
        cuda.syncthreads()
        mine = math.inf
        for position in range(thread, far_size, stride):
            vertex = pile[position]
            pending = _read(distance, vertex)
            if pending < near_distance[vertex]:
                mine = min(mine, pending)
        if mine < math.inf:
            cuda.atomic.min(block_lowest, 0, mine)
        cuda.syncthreads()
        if cuda.threadIdx.x == 0 and block_lowest[0] < math.inf:
            cuda.atomic.min(lowest, slot, block_lowest[0])
        grid_barrier(barrier, blocks)
        if cuda.threadIdx.x == 0:
            block_lowest[0] = cuda.atomic.add(lowest, slot, 0.0)
        cuda.syncthreads()
        smallest = block_lowest[0]
        cuda.syncthreads()
        phase += 1
        if smallest == math.inf:
            break
        # ...sets the threshold, and the pile splits into the near queue and the next epoch's pile.
        threshold = smallest + delta
        epoch += 1
        slot = phase % RING
        _clear_next_slot(control, lowest, phase)
        current = near_a if near_parity == 0 else near_b
        rest = far_b if far_parity == 0 else far_a
        for position in range(thread, far_size, stride):
            vertex = pile[position]
            pending = _read(distance, vertex)
            if pending < near_distance[vertex]:
                if pending < threshold:
                    cuda.atomic.min(near_distance, vertex, pending)
                    _push_near(vertex, indptr, chunk, near_mark, np.int32(round_tag), current, control, 2 * slot)
                else:
                    _push_far(vertex, far_mark, np.int32(epoch), rest, np.int64(0), control, 2 * slot + 1)
        grid_barrier(barrier, blocks)
        near_items, far_size = _phase_totals(control, slot, totals)
        far_parity = 1 - far_parity
        phase += 1
    cuda.atomic.add(control, RESULT + 2, relaxed)
    if thread == 0:
        control[RESULT] = round_tag - 1
        control[RESULT + 1] = epoch


@cuda.jit(cache=True)
def tight_arcs(indptr, indices, weights, unit_weights, distance, anchored, predecessor, changed, arcs_per_thread):
    """Each warp takes ``32 * arcs_per_thread`` consecutive out-arcs, every lane one in 32 of
    them so that the warp's reads coalesce (a lane finds its first arc's tail by binary search
    in ``indptr``), and gives the head of every tight arc ``u -> v``
    (``distance[u] + w == distance[v]``) that has no predecessor yet the predecessor ``u``, if
    ``u`` is strictly closer or already had one in ``anchored`` (the predecessors before this
    launch). Reading the snapshot, never ``predecessor`` itself, keeps zero-weight ties from
    forming cycles; every writer of a vertex writes a valid predecessor."""
    thread = thread_index()
    arcs = indices.shape[0]
    span = 32 * arcs_per_thread
    last = min((thread // 32 + 1) * span, arcs)
    first = (thread // 32) * span + thread % 32
    if first >= last:
        return
    tail = last_at_most(indptr, indptr.shape[0] - 1, first)  # the last vertex whose arcs start at or before it
    end = indptr[tail + 1]
    reached = distance[tail]
    for edge in range(first, last, 32):
        while edge >= end:
            tail += 1
            end = indptr[tail + 1]
            reached = distance[tail]
        if math.isinf(reached):
            continue
        head = indices[edge]
        target = distance[head]
        weight = 1.0 if unit_weights else np.float64(weights[edge])
        if reached + weight == target and (reached < target or anchored[tail] >= 0) and predecessor[head] < 0:
            predecessor[head] = tail
            changed[0] = 1
