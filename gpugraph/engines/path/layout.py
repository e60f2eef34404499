"""The stored form of a graph for the path engine (DiGraph's E_Idx / PTable, chunks, priorities).

:func:`build_layout` partitions the arcs into paths (:mod:`.partition`), finds their layers
(:mod:`.dependency`) and stores the paths contiguously in dispatch order: by layer, and within a
layer in the order Algorithm 1 emitted them — from the hottest roots first, and each path next
to the one it branched from, so a thread walking a chunk carries a new state over several paths
in one round. Runs of
consecutive paths form *chunks* of about :data:`gpugraph.config.PATH_CHUNK_ARCS` arcs, the unit
one thread processes. Per-arc values (S_val: what the arc's source last sent; E_val: the arc's
coefficient or weight) are laid out along the same order by the engine; V_val, each vertex's
current state, is the master replica, and every path position of a vertex is a mirror that
reads it and pushes to it.
"""

from __future__ import annotations

import functools
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np

from gpugraph import config
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import run_cpu_kernel
from gpugraph.engines.path import _partition_cpu as kernels
from gpugraph.engines.path.dependency import graph_components, path_dependencies
from gpugraph.engines.path.partition import StageClock, link_paths
from gpugraph.errors import InvalidParameterError


@dataclass
class PathLayout:
    """Paths in dispatch order, cut into chunks.

    Attributes
    ----------
    vertices, arcs, offsets:
        As in :class:`~gpugraph.engines.path.partition.Paths`, in dispatch order.
    chunk_offsets:
        Chunk ``c`` holds paths ``chunk_offsets[c]`` to ``chunk_offsets[c + 1] - 1``.
    source_offsets, source_chunks:
        CSR from each vertex to the chunks that send along its out-arcs (one entry per arc):
        the chunks a change of the vertex wakes.
    chunk_layer:
        Layer of each chunk's first path (chunks follow the layer order).
    chunk_mean_degree:
        Mean out-degree of the vertices at each chunk's positions (D-bar of the paper).
    num_sccs, largest_scc, num_layers:
        Of the path dependency graph (:class:`~gpugraph.engines.path.dependency.Dependencies`).
    pieces:
        Subgraphs the partitioning traversed in parallel (1: the sequential Algorithm 1).
    seconds:
        Preprocessing time: partitioning, dependencies, ordering and chunking (the kernels
        compiled or loaded before it starts).
    stage_seconds:
        ``seconds`` by step, in the order the steps ran.
    built_on:
        ``"host"`` (:func:`build_layout`: host arrays, layers) or ``"device"``
        (:func:`~gpugraph.engines.path.device_layout.build_device_layout`: arrays on the
        graph's device, one layer, no SCCs computed).
    """

    vertices: np.ndarray
    arcs: np.ndarray
    offsets: np.ndarray
    chunk_offsets: np.ndarray
    source_offsets: np.ndarray
    source_chunks: np.ndarray
    chunk_layer: np.ndarray
    chunk_mean_degree: np.ndarray
    num_sccs: int
    largest_scc: int
    num_layers: int
    pieces: int
    seconds: float
    stage_seconds: dict
    built_on: str = "host"

    @property
    def num_paths(self) -> int:
        """Number of paths."""
        return self.offsets.size - 1

    @property
    def num_chunks(self) -> int:
        """Number of chunks."""
        return self.chunk_offsets.size - 1

    def summary(self) -> dict:
        """Sizes and times for reports."""
        lengths = self.offsets[1:] - self.offsets[:-1] - 1
        return {
            "paths": self.num_paths, "chunks": self.num_chunks,
            "mean_path_arcs": float(lengths.mean()) if lengths.size else 0.0,
            "max_path_arcs": int(lengths.max()) if lengths.size else 0,
            "sccs": self.num_sccs, "largest_scc_paths": self.largest_scc, "layers": self.num_layers,
            "layout_pieces": self.pieces, "layout_seconds": self.seconds, "layout_built_on": self.built_on,
        }


def build_layout(indptr, indices, max_depth: int = config.PATH_MAX_DEPTH,
                 chunk_arcs: int = config.PATH_CHUNK_ARCS, pieces: int = config.PATH_PIECES,
                 symmetric: bool = False) -> PathLayout:
    """Partition, layer, order and chunk a graph's arcs for the path engine.

    Parameters
    ----------
    indptr, indices:
        CSR arrays of the graph (any device).
    max_depth:
        D_MAX of the partitioning.
    chunk_arcs:
        Arcs per chunk.
    pieces:
        Subgraphs the partitioning traverses in parallel
        (:func:`~gpugraph.engines.path.partition.link_paths`; :data:`gpugraph.config.PATH_PIECES`);
        1 for the sequential Algorithm 1.
    symmetric:
        The graph has ``v -> u`` for each arc ``u -> v`` (an undirected graph): one layer,
        no joining of components along paths
        (:func:`~gpugraph.engines.path.dependency.path_dependencies`).

    Returns
    -------
    PathLayout

    Raises
    ------
    InvalidParameterError
        If ``max_depth``, ``chunk_arcs`` or ``pieces`` is below 1.
    """
    if min(int(max_depth), int(chunk_arcs), int(pieces)) < 1:
        raise InvalidParameterError(
            f"max_depth, chunk_arcs and pieces must be >= 1, got {max_depth}, {chunk_arcs} and {pieces}")
    indptr = np.asarray(to_numpy(indptr), dtype=np.int64)
    indices = to_numpy(indices)
    _load_kernels(indices.dtype.str)
    start = time.perf_counter()
    clock = StageClock()
    fields = _arrange(indptr, indices, int(max_depth), int(chunk_arcs), int(pieces), clock, bool(symmetric))
    return PathLayout(**fields, pieces=int(pieces), seconds=time.perf_counter() - start, stage_seconds=clock.seconds)


def _arrange(indptr, indices, max_depth: int, chunk_arcs: int, pieces: int, clock: StageClock,
             symmetric: bool = False) -> dict:
    """The fields of :class:`PathLayout` but ``pieces`` and the times."""
    linked, components = _partition_beside_components(indptr, indices, max_depth, pieces, clock)
    dependencies = path_dependencies(linked, indptr, indices, clock, components, symmetric)
    layer_ends = np.empty(dependencies.num_layers, dtype=np.int64)
    paths = linked.write(dependencies.layer, dependencies.num_layers, layer_ends)  # within a layer, Algorithm 1's order
    clock.lap("layer order")
    bounds = np.empty(paths.num_paths + 1, dtype=np.int64)
    chunk_offsets = bounds[:run_cpu_kernel(kernels.chunk_boundaries, paths.offsets, int(chunk_arcs), bounds) + 1].copy()
    chunk_layer = np.searchsorted(layer_ends, chunk_offsets[:-1], side="right")
    clock.lap("chunks")
    chunk_mean_degree, source_chunks = np.empty(chunk_offsets.size - 1), np.empty(indices.size, dtype=np.int64)
    run_cpu_kernel(kernels.chunk_index, indptr, paths.vertices, paths.arcs, paths.offsets, chunk_offsets,
                   linked.slots, config.PATH_INSERTION_SORT_MAX_ARCS, chunk_mean_degree, source_chunks)
    clock.lap("vertex -> chunk index")
    return {
        "vertices": paths.vertices, "arcs": paths.arcs, "offsets": paths.offsets, "chunk_offsets": chunk_offsets,
        "source_offsets": indptr.copy(), "source_chunks": source_chunks,  # each vertex sends along its out-arcs
        "chunk_layer": chunk_layer,
        "chunk_mean_degree": chunk_mean_degree, "num_sccs": dependencies.num_sccs,
        "largest_scc": dependencies.largest_scc, "num_layers": dependencies.num_layers,
    }


def _partition_beside_components(indptr, indices, max_depth: int, pieces: int, clock: StageClock):
    """:func:`~gpugraph.engines.path.partition.link_paths` and, on a thread of its own when Numba
    has more than one, :func:`~gpugraph.engines.path.dependency.graph_components` (sequential
    Tarjan, GIL-free, needing no paths); the clock's ``SCCs of the graph`` is the time waited
    for it after the partitioning.

    With at least :data:`gpugraph.config.PATH_SCC_OWN_CORE_THREADS` threads the partitioning's
    kernels run on one thread fewer meanwhile, leaving Tarjan a core: a kernel whose rows are
    shared out evenly waits for its slowest thread, and a thread sharing its core with Tarjan
    was that one (the visiting order on 16 cores: 30 ms with 16 threads against 9 with 15,
    docs/path-engine.md)."""
    threads = numba.get_num_threads()
    if threads == 1:
        linked = link_paths(indptr, indices, max_depth, pieces, clock)
        components = graph_components(indptr, indices)
    else:
        partition_threads = threads - 1 if threads >= config.PATH_SCC_OWN_CORE_THREADS else threads
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(graph_components, indptr, indices)
            numba.set_num_threads(partition_threads)
            try:
                linked = link_paths(indptr, indices, max_depth, pieces, clock)
            finally:
                numba.set_num_threads(threads)
            components = pending.result()
    clock.lap("SCCs of the graph (Tarjan)")
    return linked, components


@functools.lru_cache(maxsize=None)
def _load_kernels(index_dtype: str) -> None:
    """Compile (or load from Numba's cache) the preprocessing kernels for vertex ids of
    ``index_dtype`` by laying out a tiny graph, so that :attr:`PathLayout.seconds` times the
    work alone (a first call's kernel time cannot be told apart from its compiling); in one
    piece and in two (the kernels that gather pieces)."""
    for pieces in (1, 2):
        _arrange(np.array([0, 2, 3, 4]), np.array([1, 2, 0, 0], dtype=index_dtype), config.PATH_MAX_DEPTH,
                 config.PATH_CHUNK_ARCS, pieces, StageClock())
