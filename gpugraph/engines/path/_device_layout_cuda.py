"""numba-cuda kernels of the layout built on the device: the steps of
:mod:`._device_layout_steps` compiled as device functions, one thread per piece
(:func:`trace_pieces`), one block per piece (:func:`gather_pieces`) and one thread per chunk
(:func:`index_chunks`)."""

from __future__ import annotations

import numpy as np

from gpugraph import config
from gpugraph.backend.cuda_device import thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda
from gpugraph.engines.path import _device_layout_steps as steps

cuda = load_numba_cuda()

#: Frames of a thread's traversal stack (a compile-time size): D_MAX up to one less.
STACK_FRAMES = config.PATH_DEVICE_MAX_DEPTH + 1

_trace_piece = cuda.jit(device=True, cache=True)(steps.trace_piece)
_gather_piece = cuda.jit(device=True, cache=True)(steps.gather_piece)
_index_chunk = cuda.jit(device=True, cache=True)(steps.index_chunk)


@cuda.jit(cache=True)
def trace_pieces(pieces, indptr, indices, order, roots, root_degrees, vertex_starts, max_depth, chunk_arcs, state,
                 vertices, arcs, path_offsets, chunk_bounds, written):
    """One thread per piece: :func:`~._device_layout_steps.trace_piece`, its stack in the
    thread's local memory (``max_depth`` below :data:`STACK_FRAMES`)."""
    k = thread_index()
    if k < pieces:
        stack_vertex = cuda.local.array(STACK_FRAMES, np.int64)
        stack_cursor = cuda.local.array(STACK_FRAMES, np.int64)
        stack_end = cuda.local.array(STACK_FRAMES, np.int64)
        _trace_piece(k, indptr, indices, order, roots, root_degrees, vertex_starts, max_depth, chunk_arcs, state,
                     stack_vertex, stack_cursor, stack_end, vertices, arcs, path_offsets, chunk_bounds, written)


@cuda.jit(cache=True)
def gather_pieces(pieces, indptr, indices, order, chunk_arcs, vertex_starts, written, starts, vertices, arcs,
                  path_offsets, chunk_bounds, out_vertices, out_arcs, out_offsets, out_chunks):
    """One block per piece, its threads sharing the copy: :func:`~._device_layout_steps.gather_piece`."""
    k = cuda.blockIdx.x
    if k < pieces:
        _gather_piece(k, cuda.threadIdx.x, cuda.blockDim.x, indptr, indices, order, chunk_arcs, vertex_starts, written,
                      starts, vertices, arcs, path_offsets, chunk_bounds, out_vertices, out_arcs, out_offsets,
                      out_chunks)


@cuda.jit(cache=True)
def index_chunks(chunks, indptr, vertices, arcs, offsets, chunk_offsets, slots, chunk_mean_degree, source_chunks):
    """One thread per chunk: :func:`~._device_layout_steps.index_chunk`."""
    c = thread_index()
    if c < chunks:
        _index_chunk(c, indptr, vertices, arcs, offsets, chunk_offsets, slots, chunk_mean_degree, source_chunks)
