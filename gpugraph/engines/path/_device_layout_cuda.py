"""numba-cuda kernels of the layout built on the device: the steps of
:mod:`._device_layout_steps` compiled as device functions, one thread per vertex
(:func:`order_rows`), one thread per arc or slot (:func:`arc_keys`, :func:`order_hub_slots`),
one thread per piece (:func:`trace_pieces`), one block per piece
(:func:`gather_pieces`) and one warp per chunk (:func:`index_chunks`)."""

from __future__ import annotations

import numpy as np

from gpugraph import config
from gpugraph.backend.cuda_device import thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda
from gpugraph.engines.path import _device_layout_steps as steps

cuda = load_numba_cuda()

#: Frames of a thread's traversal stack (a compile-time size): D_MAX up to one less.
STACK_FRAMES = config.PATH_DEVICE_MAX_DEPTH + 1
#: The longest row :func:`order_rows` sorts in a thread's local memory.
ROW_KEYS = steps.ROW_KEYS
#: Threads sharing a chunk in :func:`index_chunks` (a warp), and chunks a block.
INDEX_LANES = config.WARP_SIZE
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
    """One thread per vertex (and one for ``n``): :func:`~._device_layout_steps.order_row`, short
    rows sorted in the thread's local memory."""
    v = thread_index()
    if v < items:
        keys = cuda.local.array(ROW_KEYS, np.int64)
        _order_row(v, indptr, indices, piece_arcs, keys, order, heads, slots, piece_flags)


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
    """One block per piece, its threads sharing the copy: :func:`~._device_layout_steps.gather_piece`."""
    k = cuda.blockIdx.x
    if k < pieces:
        _gather_piece(k, cuda.threadIdx.x, cuda.blockDim.x, indptr, indices, order, chunk_arcs, vertex_starts,
                      written, starts, vertices, arcs, path_offsets, chunk_bounds, out_vertices, out_arcs, out_offsets,
                      out_chunks)


@cuda.jit(cache=True)
def index_chunks(chunks, indptr, vertices, arcs, offsets, chunk_offsets, slots, chunk_mean_degree, source_chunks):
    """One warp per chunk (:data:`INDEX_CHUNKS_PER_BLOCK` a block), its lanes reading consecutive
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
