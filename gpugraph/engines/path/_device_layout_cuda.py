"""numba-cuda kernels of the layout built on the device: the steps of
:mod:`._device_layout_steps` compiled as device functions, one thread per vertex
(:func:`order_rows`, whose warps then sort the block's longer rows together), one thread per
arc or slot (:func:`arc_keys`, :func:`order_hub_slots`), one thread per piece
(:func:`trace_pieces`), one block per piece (:func:`gather_pieces`) and eight threads per chunk
(:func:`index_chunks`)."""

from __future__ import annotations

import numpy as np

from gpugraph import config
from gpugraph.backend.cuda_device import thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda
from gpugraph.engines.path import _device_layout_steps as steps
from gpugraph.engines.path._partition_cpu import DEGREE_CEILING, ROW_PLACE_BITS, ROW_PLACE_MASK

cuda = load_numba_cuda()

#: Frames of a thread's traversal stack (a compile-time size): D_MAX up to one less.
STACK_FRAMES = config.PATH_DEVICE_MAX_DEPTH + 1
#: The longest row a thread of :func:`order_rows` sorts alone, in its local memory
#: (:func:`~._device_layout_steps.order_row` heap-sorts a row longer than that and than
#: :data:`WARP_ROW_KEYS` in place).
THREAD_ROW_KEYS = config.PATH_DEVICE_THREAD_ROW_MAX_ARCS
#: Keys of a row a warp of :func:`order_rows` sorts: two a lane (a power of two for the network).
WARP_ROW_KEYS = 2 * config.WARP_SIZE
#: Threads of a block of :func:`order_rows`, and its warps.
ORDER_THREADS = 128
ORDER_WARPS = ORDER_THREADS // config.WARP_SIZE
#: Shared cells of a block of :func:`order_rows`: its longer rows and their count; its warps' keys.
LISTED_CELLS = ORDER_THREADS + 1
NETWORK_KEYS = ORDER_WARPS * WARP_ROW_KEYS
#: Above every key of a row (the padding of a row shorter than :data:`WARP_ROW_KEYS`).
PADDING_KEY = np.int64(np.iinfo(np.int64).max)
#: The most roots of a piece :func:`trace_pieces` sorts in a thread's local memory.
ROW_KEYS = steps.ROW_KEYS
#: Threads sharing a chunk in :func:`index_chunks`, chunks a block, and the block's threads.
INDEX_LANES = steps.INDEX_LANES
INDEX_CHUNKS_PER_BLOCK = steps.INDEX_CHUNKS_PER_BLOCK
INDEX_THREADS = steps.INDEX_THREADS

_order_row = cuda.jit(device=True, cache=True)(steps.order_row)
_arc_key = cuda.jit(device=True, cache=True)(steps.arc_key)
_order_hub_slot = cuda.jit(device=True, cache=True)(steps.order_hub_slot)
_trace_piece = cuda.jit(device=True, cache=True)(steps.trace_piece)
_gather_piece = cuda.jit(device=True, cache=True)(steps.gather_piece)
_index_chunk = cuda.jit(device=True, cache=True)(steps.index_chunk)
_mean_degree = cuda.jit(device=True, cache=True)(steps.mean_degree)


@cuda.jit(cache=True)
def order_rows(items, indptr, indices, piece_arcs, order, heads, slots, piece_flags):
    """One thread per vertex (and one for ``n``), :data:`ORDER_THREADS` a block:
    :func:`~._device_layout_steps.order_row`, rows of up to :data:`THREAD_ROW_KEYS` arcs sorted
    in the thread's local memory. The block's rows of more arcs, but at most
    :data:`WARP_ROW_KEYS` and ``piece_arcs`` (a longer row is a hub's, or heap-sorted by its
    thread), are then sorted by its warps, a row a warp at a time: a lane computes two keys,
    a bitonic network orders them in shared memory, and the lanes write the row in order. A
    thread sorting a row of 64 arcs by insertion was the kernel's longest (the keys are those of
    ``order_row``, all different, so both sorts give the same order). The network's steps wait
    at block barriers, not warp ones: Numba's CUDA simulator, which the tests hold this kernel
    to the CPU build in, has no warp barrier."""
    keys = cuda.local.array(THREAD_ROW_KEYS, np.int64)
    listed = cuda.shared.array(LISTED_CELLS, np.int64)  # the block's longer rows, then their count
    network = cuda.shared.array(NETWORK_KEYS, np.int64)  # each warp's row keys
    me = cuda.threadIdx.x
    if me == 0:
        listed[ORDER_THREADS] = 0
    cuda.syncthreads()
    v = thread_index()
    n = indptr.size - 1
    if v < items:
        count = indptr[v + 1] - indptr[v] if v < n else 0
        by_warp = THREAD_ROW_KEYS < count <= min(piece_arcs, WARP_ROW_KEYS)
        if by_warp:
            listed[cuda.atomic.add(listed, ORDER_THREADS, 1)] = v
        _order_row(v, indptr, indices, piece_arcs, keys, order, heads, slots, piece_flags, by_warp)
    cuda.syncthreads()
    lane = me % config.WARP_SIZE
    base = (me // config.WARP_SIZE) * WARP_ROW_KEYS
    rows = listed[ORDER_THREADS]
    for first in range(0, rows, ORDER_WARPS):  # the same steps for the whole block
        item = first + me // config.WARP_SIZE
        row = listed[item] if item < rows else -1
        start = indptr[row] if row >= 0 else 0
        count = indptr[row + 1] - start if row >= 0 else 0
        for place in (lane, lane + config.WARP_SIZE):
            key = PADDING_KEY
            if place < count:
                head = indices[start + place]
                key = ((DEGREE_CEILING - (indptr[head + 1] - indptr[head])) << ROW_PLACE_BITS) | place
            network[base + place] = key
        cuda.syncthreads()
        size = 2
        while size <= WARP_ROW_KEYS:
            stride = size // 2
            while stride > 0:
                low = 2 * lane - (lane & (stride - 1))
                high = low + stride
                a, b = network[base + low], network[base + high]
                if (a > b) == ((low & size) == 0):
                    network[base + low] = b
                    network[base + high] = a
                cuda.syncthreads()
                stride //= 2
            size *= 2
        for place in (lane, lane + config.WARP_SIZE):
            if place < count:
                arc = start + (network[base + place] & ROW_PLACE_MASK)
                order[start + place] = arc
                heads[start + place] = indices[arc]
                slots[arc] = start + place
        cuda.syncthreads()  # the keys are read before the next rows' overwrite them


@cuda.jit(device=True, cache=True)
def _row_of(a, indptr):
    """The row holding CSR position ``a``: the last ``r`` with ``indptr[r] <= a`` (a binary search)."""
    low = 0
    high = indptr.size - 1
    while high - low > 1:
        middle = (low + high) // 2
        if indptr[middle] <= a:
            low = middle
        else:
            high = middle
    return low


@cuda.jit(cache=True)
def arc_keys(items, indptr, indices, keys):
    """One thread per arc: :func:`~._device_layout_steps.arc_key`, its row by a binary search."""
    a = thread_index()
    if a < items:
        _arc_key(a, _row_of(a, indptr), indptr, indices, keys)


@cuda.jit(cache=True)
def order_hub_slots(items, indptr, indices, piece_arcs, sorted_arcs, order, heads, slots):
    """One thread per slot: :func:`~._device_layout_steps.order_hub_slot`, its row by a binary search."""
    s = thread_index()
    if s < items:
        _order_hub_slot(s, _row_of(s, indptr), indptr, indices, piece_arcs, sorted_arcs, order, heads, slots)


@cuda.jit(cache=True)
def trace_pieces(pieces, indptr, order, heads, roots, root_degrees, vertex_starts, max_depth, chunk_arcs, state,
                 vertices, arcs, path_offsets, chunk_bounds, written):
    """One thread per piece: :func:`~._device_layout_steps.trace_piece`, its stack in the
    thread's local memory (``max_depth`` below :data:`STACK_FRAMES`), and its roots too when
    the piece has at most :data:`ROW_KEYS` vertices."""
    k = thread_index()
    if k < pieces:
        stack_vertex = cuda.local.array(STACK_FRAMES, np.int64)
        stack_cursor = cuda.local.array(STACK_FRAMES, np.int64)
        stack_end = cuda.local.array(STACK_FRAMES, np.int64)
        keys = cuda.local.array(ROW_KEYS, np.int64)
        _trace_piece(k, indptr, order, heads, keys, roots, root_degrees, vertex_starts, max_depth, chunk_arcs,
                     state, stack_vertex, stack_cursor, stack_end, vertices, arcs, path_offsets, chunk_bounds, written)


@cuda.jit(cache=True)
def gather_pieces(pieces, indptr, indices, order, chunk_arcs, vertex_starts, written, starts, vertices, arcs,
                  path_offsets, chunk_bounds, out_vertices, out_arcs, out_offsets, out_chunks):
    """One block per piece, its threads sharing the copy (a warp per piece took twice as long on
    cnr-2000's and Slashdot's k-core graphs, one H200): :func:`~._device_layout_steps.gather_piece`."""
    k = cuda.blockIdx.x
    if k < pieces:
        _gather_piece(k, cuda.threadIdx.x, cuda.blockDim.x, indptr, indices, order, chunk_arcs, vertex_starts,
                      written, starts, vertices, arcs, path_offsets, chunk_bounds, out_vertices, out_arcs, out_offsets,
                      out_chunks)


@cuda.jit(cache=True)
def index_chunks(chunks, indptr, vertices, arcs, offsets, chunk_offsets, slots, chunk_mean_degree, source_chunks):
    """:data:`INDEX_LANES` threads per chunk (:data:`INDEX_CHUNKS_PER_BLOCK` a block), reading consecutive
    positions: :func:`~._device_layout_steps.index_chunk`; the lanes' sums added in shared memory
    for :func:`~._device_layout_steps.mean_degree`."""
    partial = cuda.shared.array(INDEX_THREADS, np.int64)
    lane = cuda.threadIdx.x % INDEX_LANES
    c = np.int64(cuda.blockIdx.x) * INDEX_CHUNKS_PER_BLOCK + cuda.threadIdx.x // INDEX_LANES
    degree = np.int64(0)
    if c < chunks:
        degree = _index_chunk(c, lane, INDEX_LANES, indptr, vertices, arcs, offsets, chunk_offsets, slots,
                              source_chunks)
    partial[cuda.threadIdx.x] = degree
    cuda.syncthreads()
    if lane == 0 and c < chunks:
        for i in range(1, INDEX_LANES):
            degree += partial[cuda.threadIdx.x + i]
        _mean_degree(c, degree, offsets, chunk_offsets, chunk_mean_degree)
