"""The path layout built where the graph lives, on the GPU: the partitioning over many pieces,
without linking and without layers.

:func:`~gpugraph.engines.path.layout.build_layout` (the host layout) runs Algorithm 1 over a few
pieces on the host's cores, links short paths, finds the strongly connected components of the
path dependency graph and writes the paths by layer. On cnr-2000 that is ~90 ms on a 16-core
host, about twice what one PageRank run saves against plain asynchronous rounds. Measured on
one H100 (docs/path-engine.md, "Fifteenth session"), the GPU rounds keep their gain without the
layers and without the linking: the rounds run every active chunk at once, so the layer order
only reorders the launch, and Algorithm 1's paths average ~1.1 arcs, so linking changes few.

So the device layout keeps what the rounds use, all of it as parallel device work:

1. **Visiting order and pieces** (one thread per vertex, :func:`~._device_layout_steps.order_row`):
   each row's arcs by descending out-degree of their heads (by insertion in the thread's local
   memory, or heap sort in place above :data:`gpugraph.config.PATH_INSERTION_SORT_MAX_ARCS`
   arcs; on a GPU the rows longer than :data:`gpugraph.config.PATH_DEVICE_THREAD_ROW_MAX_ARCS`
   sorted by a warp each, :func:`~._device_layout_cuda.order_rows`), and a flag where a piece
   starts: pieces are ranges of consecutive vertices cut where the arcs reach each multiple of
   :data:`gpugraph.config.PATH_DEVICE_PIECE_ARCS`, and each vertex with more out-arcs than
   that (a hub) a piece alone (its paths are its arcs, written by the gather, so no thread
   walks a hub's row). The hubs' rows are sorted by one stable device sort of every arc's (row,
   head out-degree) key (one thread sorting a hub's thousands of arcs would be the slowest
   thread). A hub's order only numbers its one-arc paths, but the
   prioritised rounds of accumulative programs depend on it (PageRank on RMAT-20 with the hubs
   in CSR order: 1.6-2.5 s against 1.3); k-core's do not (cnr-2000, RMAT-20), so its layout
   skips the sort (``sort_hubs``; docs/path-engine.md).
2. **Traversal**: one thread per piece sorts its vertices with out-arcs by descending
   out-degree (the roots), runs Algorithm 1 on its out-arcs (an arc leaving the piece ends its
   path, as in the host layout's pieces), its stack and (in a piece of at most 64 vertices)
   its roots in the thread's local memory, and cuts its paths into chunks of at most
   ``chunk_arcs`` arcs (:func:`~._device_layout_steps.trace_piece`).
3. **Gather**: a prefix sum of the pieces' sizes, then one block copies each piece's paths and
   chunks into place.
4. **Vertex -> chunk index and D-bar**: eight threads per chunk.

The host waits for the device twice (for the number of pieces, and for the sizes of the
layout) and at the end: on the GPU host each CuPy call or launch costs tens of microseconds, so
the steps are few kernels rather than many array operations (docs/path-engine.md, "Sixteenth
session").

The pieces are fixed by the graph and ``piece_arcs``, and each piece's paths by the piece alone,
so the layout does not depend on the GPU, and its CPU build (``backend=None``, the same
statements compiled for the CPU) gives the same arrays.
"""

from __future__ import annotations

import contextlib
import functools
import time

import numpy as np

from gpugraph import config
from gpugraph.backend.kernels import launch_cuda_grid, launch_cuda_kernel, run_cpu_kernel
from gpugraph.engines.path import _device_layout_steps as steps
from gpugraph.engines.path.layout import PathLayout
from gpugraph.engines.path.partition import StageClock
from gpugraph.errors import InvalidParameterError

#: Threads of a block of :func:`~._device_layout_cuda.gather_pieces` (one block per piece).
GATHER_THREADS = 128
#: Vertices of the random graph laid out before the first timed layout on a GPU (above 2^18, so
#: that CuPy's scans compile their deepest form), and the arcs of its one hub.
WARM_VERTICES = 1 << 19
WARM_HUB_ARCS = 4096


def build_device_layout(indptr, indices, backend=None, max_depth: int = config.PATH_MAX_DEPTH,
                        chunk_arcs: int = config.PATH_CHUNK_ARCS, piece_arcs: int | None = None,
                        sort_hubs: bool = True, timed_steps: bool = False) -> PathLayout:
    """Partition and chunk a graph's arcs for the path engine on ``backend`` (module docstring).

    Parameters
    ----------
    indptr, indices:
        CSR arrays of the graph, on ``backend`` (copied there if not, inside the layout's time).
    backend:
        A CUDA :class:`~gpugraph.backend.Backend` (real or simulated), or ``None`` for the CPU
        build of the same steps.
    max_depth:
        D_MAX of the partitioning.
    chunk_arcs:
        Arcs per chunk.
    piece_arcs:
        Out-arcs per piece, about: the pieces the threads traverse;
        :data:`gpugraph.config.PATH_DEVICE_PIECE_ARCS` (read at each call) if ``None``.
    sort_hubs:
        Put each hub's row (more than ``piece_arcs`` arcs: a piece alone, of one-arc paths) in
        visiting order, by one device sort of every arc; else leave it in CSR order. The order
        only numbers a hub's paths; it matters to the prioritised rounds of accumulative
        programs, not to k-core's (module docstring).
    timed_steps:
        Wait for the device after each step and time it (``stage_seconds``); else the steps
        are not timed apart (each wait costs the host tens of microseconds) and
        ``stage_seconds`` is empty.

    Returns
    -------
    PathLayout
        Arrays on ``backend``; one layer, ``num_sccs`` 0 (not computed), ``built_on`` ``"device"``.

    Raises
    ------
    InvalidParameterError
        If ``max_depth``, ``chunk_arcs`` or ``piece_arcs`` is below 1, ``max_depth`` is above
        :data:`gpugraph.config.PATH_DEVICE_MAX_DEPTH`, or the graph has 2^31 vertices or more
        (the visiting order's keys hold a row's place in 31 bits).
    DeviceOutOfMemoryError
        If the device cannot hold the layout.
    """
    piece_arcs = config.PATH_DEVICE_PIECE_ARCS if piece_arcs is None else piece_arcs
    if min(int(max_depth), int(chunk_arcs), int(piece_arcs)) < 1:
        raise InvalidParameterError(
            f"max_depth, chunk_arcs and piece_arcs must be >= 1, got {max_depth}, {chunk_arcs} and {piece_arcs}")
    if int(max_depth) > config.PATH_DEVICE_MAX_DEPTH:
        raise InvalidParameterError(f"the device layout takes max_depth up to {config.PATH_DEVICE_MAX_DEPTH} (a "
                                    f"thread's stack in local memory); got {max_depth}: use the host layout")
    if len(indptr) - 1 >= 1 << 31:
        raise InvalidParameterError(f"the device layout takes graphs of fewer than 2^31 vertices; got {len(indptr) - 1:,}")
    run = _Steps(backend, timed_steps)
    _load_kernels(backend, np.dtype(indices.dtype).str)
    with run.activate(), run.out_of_memory_named(f"building the path layout of {len(indices):,} arcs"):
        start = time.perf_counter()
        clock = StageClock()
        indptr, indices = run.xp.asarray(indptr, dtype=np.int64), run.xp.asarray(indices)
        run.lap(clock, "CSR on the device")
        fields, pieces = _arrange(run, indptr, indices, int(max_depth), int(chunk_arcs), int(piece_arcs),
                                  bool(sort_hubs), clock)
        run.wait()
        return PathLayout(**fields, pieces=pieces, seconds=time.perf_counter() - start, stage_seconds=clock.seconds,
                          built_on="device")


class _Steps:
    """Where the steps run: the array module, the kernels, and clock laps that wait for the
    device when the steps are timed."""

    def __init__(self, backend, timed: bool = False):
        self.backend = backend
        self.timed = timed
        self.xp = np if backend is None else backend.xp
        self.order_threads = None  # the CPU build loops
        if backend is not None:
            from gpugraph.engines.path import _device_layout_cuda

            self.cuda = _device_layout_cuda
            self.order_threads = _device_layout_cuda.ORDER_THREADS

    def activate(self):
        return contextlib.nullcontext() if self.backend is None else self.backend.activate()

    def out_of_memory_named(self, what: str):
        return contextlib.nullcontext() if self.backend is None else self.backend.out_of_memory_named(what)

    def wait(self) -> None:
        if self.backend is not None:
            self.backend.synchronize()

    def lap(self, clock: StageClock, name: str) -> None:
        if self.timed:
            self.wait()
            clock.lap(name)

    def per_item(self, name: str, items: int, *args) -> None:
        """Kernel ``name`` over ``items`` items, one thread each, in the backend's default blocks
        (the CPU build loops)."""
        threads = None if self.backend is None else self.backend.threads_per_block()
        self.in_blocks(name, items, threads, threads, *args)

    def in_blocks(self, name: str, items: int, items_per_block: int | None, threads: int | None, *args) -> None:
        """Kernel ``name`` over ``items`` items, ``items_per_block`` of them to each block of
        ``threads`` threads (a thread, a warp or a block per item; the CPU build loops and takes
        ``None`` for both)."""
        if self.backend is None:
            run_cpu_kernel(getattr(steps, name), items, *args)
        elif items:
            launch_cuda_grid(getattr(self.cuda, name), self.backend, -(-items // items_per_block), threads, items,
                             *args)


def _arrange(run: _Steps, indptr, indices, max_depth: int, chunk_arcs: int, piece_arcs: int, sort_hubs: bool,
             clock: StageClock):
    """The fields of :class:`PathLayout` but ``pieces``, the times and ``built_on``; and the pieces.

    The traversal's arrays (with room for as many pieces as vertices) and the index are
    allocated while the first kernel runs, so that the host's work overlaps the device's instead
    of following it."""
    xp = run.xp
    n, m = indptr.size - 1, indices.size
    order, heads, slots = xp.empty(m, dtype=np.int64), xp.empty(m, dtype=indices.dtype), xp.empty(m, dtype=np.int64)
    piece_flags = xp.empty(n + 1, dtype=np.int8)
    run.in_blocks("order_rows", n + 1, run.order_threads, run.order_threads, indptr, indices, piece_arcs, order,
                  heads, slots, piece_flags)
    if sort_hubs:  # the hubs' rows: one stable sort of every arc by row and head out-degree
        keys = xp.empty(m, dtype=np.int64)
        run.per_item("arc_keys", m, indptr, indices, keys)
        sorted_arcs = xp.argsort(keys, kind="stable")
    else:  # in CSR order (no identity array to write and read)
        sorted_arcs = xp.empty(0, dtype=np.int64)
    run.per_item("order_hub_slots", m, indptr, indices, piece_arcs, sorted_arcs, order, heads, slots)
    vertices, arcs = xp.empty(2 * m, dtype=indices.dtype), xp.empty(2 * m, dtype=np.int64)
    path_offsets, chunk_bounds = xp.empty(m + n + 1, dtype=np.int64), xp.empty(m + n + 1, dtype=np.int64)
    written = xp.empty((n + 1, 3), dtype=np.int64)  # per piece: positions, paths, chunks
    roots, state = xp.empty((2, n), dtype=np.int64), xp.zeros(n, dtype=np.int8)  # roots and their out-degrees
    source_chunks = xp.empty(m, dtype=np.int64)
    run.lap(clock, "visiting order and pieces")
    vertex_starts = xp.flatnonzero(piece_flags)
    pieces = vertex_starts.size - 1
    run.in_blocks("trace_pieces", pieces, config.PATH_DEVICE_TRACE_BLOCK, config.PATH_DEVICE_TRACE_BLOCK, indptr,
                  order, heads, roots[0], roots[1], vertex_starts, max_depth, chunk_arcs, state, vertices, arcs,
                  path_offsets, chunk_bounds, written)
    run.lap(clock, "traversal")
    starts = xp.zeros((pieces + 1, 3), dtype=np.int64)
    xp.cumsum(written[:pieces], axis=0, out=starts[1:])
    positions, paths, chunks = (int(total) for total in starts[-1].tolist())
    out_vertices, out_arcs = xp.empty(positions, dtype=indices.dtype), xp.empty(positions, dtype=np.int64)
    offsets, chunk_offsets = xp.empty(paths + 1, dtype=np.int64), xp.empty(chunks + 1, dtype=np.int64)
    chunk_mean_degree = xp.empty(chunks, dtype=np.float64)
    if pieces == 0:  # no vertices: the gather, which writes the ends, does not run
        offsets[:], chunk_offsets[:] = 0, 0
    run.in_blocks("gather_pieces", pieces, 1, GATHER_THREADS, indptr, indices, order, chunk_arcs, vertex_starts,
                  written, starts, vertices, arcs, path_offsets, chunk_bounds, out_vertices, out_arcs, offsets,
                  chunk_offsets)
    run.lap(clock, "paths gathered")
    run.in_blocks("index_chunks", chunks, steps.INDEX_CHUNKS_PER_BLOCK, steps.INDEX_THREADS, indptr, out_vertices,
                  out_arcs, offsets, chunk_offsets, slots, chunk_mean_degree, source_chunks)
    run.lap(clock, "vertex -> chunk index")
    fields = {
        "vertices": out_vertices, "arcs": out_arcs, "offsets": offsets, "chunk_offsets": chunk_offsets,
        "source_offsets": indptr, "source_chunks": source_chunks,
        "chunk_layer": xp.zeros(chunks, dtype=np.int64), "chunk_mean_degree": chunk_mean_degree,
        "num_sccs": 0, "largest_scc": 0, "num_layers": 1,
    }
    return fields, pieces


@functools.lru_cache(maxsize=None)
def _load_kernels(backend, index_dtype: str) -> None:
    """Compile (or load from the caches) the steps' kernels and CuPy's for vertex ids of
    ``index_dtype`` by laying out a tiny graph in two pieces, and on a real GPU a random one of
    :data:`WARM_VERTICES` vertices with a hub, so that :attr:`PathLayout.seconds` times the
    work alone: CuPy compiles some kernels (its scans) by the array's size, and on a fresh
    machine the first layout of cnr-2000 otherwise spent ~0.45 s compiling (docs/path-engine.md)."""
    run = _Steps(backend)
    graphs = [(np.array([0, 2, 3, 4]), np.array([1, 2, 0, 0]))]
    if backend is not None and not backend.simulated:
        rng = np.random.default_rng(0)
        heads = np.concatenate([np.zeros(WARM_HUB_ARCS, dtype=np.int64),
                                np.sort(rng.integers(0, WARM_VERTICES, 2 * WARM_VERTICES))])
        graphs.append((np.searchsorted(heads, np.arange(WARM_VERTICES + 1)), rng.integers(0, WARM_VERTICES, heads.size)))
    with run.activate():
        for indptr, indices in graphs:
            indptr, indices = run.xp.asarray(indptr, dtype=np.int64), run.xp.asarray(indices, dtype=index_dtype)
            for sort_hubs in (True, False):
                _arrange(run, indptr, indices, config.PATH_MAX_DEPTH, config.PATH_CHUNK_ARCS, 2, sort_hubs,
                         StageClock())
