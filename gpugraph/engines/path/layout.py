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

import time
from dataclasses import dataclass

import numpy as np

from gpugraph import config
from gpugraph.backend import to_numpy
from gpugraph.engines.path import _partition_cpu as kernels
from gpugraph.engines.path.dependency import path_dependencies
from gpugraph.engines.path.partition import partition_paths


@dataclass
class PathLayout:
    """Paths in dispatch order, cut into chunks (host arrays).

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
    seconds:
        Preprocessing time: partitioning, dependencies, ordering and chunking.
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
    seconds: float

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
        lengths = np.diff(self.offsets) - 1
        return {
            "paths": self.num_paths, "chunks": self.num_chunks,
            "mean_path_arcs": float(lengths.mean()) if lengths.size else 0.0,
            "max_path_arcs": int(lengths.max()) if lengths.size else 0,
            "sccs": self.num_sccs, "largest_scc_paths": self.largest_scc, "layers": self.num_layers,
            "layout_seconds": self.seconds,
        }


def build_layout(indptr, indices, max_depth: int = config.PATH_MAX_DEPTH,
                 chunk_arcs: int = config.PATH_CHUNK_ARCS) -> PathLayout:
    """Partition, layer, order and chunk a graph's arcs for the path engine.

    Parameters
    ----------
    indptr, indices:
        CSR arrays of the graph (any device).
    max_depth:
        D_MAX of the partitioning.
    chunk_arcs:
        Arcs per chunk.

    Returns
    -------
    PathLayout
    """
    start = time.perf_counter()
    indptr = to_numpy(indptr).astype(np.int64)
    indices = to_numpy(indices)
    n = indptr.size - 1
    paths = partition_paths(indptr, indices, max_depth)
    dependencies = path_dependencies(paths, n)
    out_degree = np.diff(indptr)
    lengths = np.diff(paths.offsets)
    order = np.argsort(dependencies.layer, kind="stable")  # within a layer, Algorithm 1's order
    starts = paths.offsets[:-1][order]
    sizes = lengths[order]
    offsets = np.zeros(order.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    positions = np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1], dtype=np.int64)
    vertices = paths.vertices[positions]
    arcs = paths.arcs[positions]
    chunk_offsets = kernels.chunk_boundaries(sizes - 1, int(chunk_arcs))
    first_positions = offsets[chunk_offsets[:-1]]
    chunk_degree = np.add.reduceat(out_degree[vertices], first_positions) if first_positions.size else np.zeros(0)
    chunk_sizes = np.diff(offsets[chunk_offsets])
    # which chunk sends along each arc, grouped by the arc's source vertex
    sends = arcs >= 0
    chunk_of_position = np.repeat(np.repeat(np.arange(chunk_sizes.size), np.diff(chunk_offsets)), sizes)
    by_source = np.argsort(vertices[sends], kind="stable")
    source_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(vertices[sends], minlength=n), out=source_offsets[1:])
    return PathLayout(
        vertices=vertices.astype(indices.dtype), arcs=arcs, offsets=offsets,
        chunk_offsets=chunk_offsets,
        source_offsets=source_offsets, source_chunks=chunk_of_position[sends][by_source],
        chunk_layer=dependencies.layer[order][chunk_offsets[:-1]],
        chunk_mean_degree=chunk_degree / np.maximum(chunk_sizes, 1),
        num_sccs=dependencies.num_sccs, largest_scc=dependencies.largest_scc,
        num_layers=dependencies.num_layers, seconds=time.perf_counter() - start,
    )
