"""Path partitioning (DiGraph §3.2.1): the graph's arcs cut into edge-disjoint directed paths.

:func:`partition_paths` runs Algorithm 1 of the paper: depth-bounded depth-first traversals
(``D_MAX`` = :data:`gpugraph.config.PATH_MAX_DEPTH`) from roots in descending out-degree,
following the highest-degree successor first so that arcs between hot vertices gather on *hot
paths*. A traversal that meets a vertex it has already visited ends the path there; the next arc
starts a new path. Every arc lies on exactly one path. Short paths are then linked head to tail
(a path ending at ``x`` with one starting at ``x``) up to ``max_depth`` arcs, under the paper's
constraint: if ``x`` has in- and out-degree above one it must be an inner vertex of no other
path.

With ``pieces`` above one the traversal runs as the paper runs it, in parallel over subgraphs:
the vertices are cut into that many ranges of consecutive ids with about equal out-arcs, and one
thread traverses each range's out-arcs; an arc to a vertex of another range ends its path there
(the thread reads and writes only its own vertices' state, so the pieces need no
synchronisation). Each piece then links its own paths ending at its vertices (a path starts at
a vertex of its piece, so a piece's links stay in it), and one sequential pass links the paths
that end outside their piece, the paper's re-check of the short paths the threads made. With
one piece the traversal and linking are the sequential Algorithm 1 over the whole graph. The
paths differ with the number of pieces, not with the number of cores.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numba
import numpy as np

from gpugraph import config
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import run_cpu_kernel
from gpugraph.engines.path import _partition_cpu as kernels
from gpugraph.errors import InvalidParameterError


@dataclass
class StageClock:
    """Seconds spent in each named step of the preprocessing, in the order they first ran
    (:attr:`~gpugraph.engines.path.layout.PathLayout.stage_seconds`)."""

    seconds: dict = field(default_factory=dict)
    _last: float = field(default_factory=time.perf_counter)

    def lap(self, name: str) -> None:
        """Charge the time since the last lap (or since the clock was made) to ``name``."""
        now = time.perf_counter()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - self._last
        self._last = now


@dataclass
class Paths:
    """Edge-disjoint paths covering every arc of a graph (DiGraph's E_Idx and PTable).

    Attributes
    ----------
    vertices:
        The vertices of each path in order (the graph's index dtype), paths one after another
        (E_Idx); a vertex shared by several paths has one *replica* per occurrence.
    arcs:
        int64, ``arcs[j]`` is the CSR position of the arc ``vertices[j] -> vertices[j + 1]``
        (its weight is ``graph.weights[arcs[j]]``); -1 at each path's last position.
    offsets:
        int64, ``P + 1`` entries: path ``p`` is ``vertices[offsets[p]:offsets[p + 1]]`` (PTable).
    """

    vertices: np.ndarray
    arcs: np.ndarray
    offsets: np.ndarray

    @property
    def num_paths(self) -> int:
        """Number of paths ``P``."""
        return self.offsets.size - 1

    @property
    def lengths(self) -> np.ndarray:
        """Arcs on each path."""
        return np.diff(self.offsets) - 1

    def unlinked(self) -> LinkedPaths:
        """These paths as chains of one path each."""
        return LinkedPaths(self, np.full(self.num_paths, -1, dtype=np.int64),
                           np.arange(self.num_paths, dtype=np.int64), self.lengths)


@dataclass
class LinkedPaths:
    """Algorithm 1's paths with the links between them: chains of paths, before they are
    written out as :class:`Paths` (:meth:`write`). Chain ``c`` follows ``next_path`` from
    ``heads[c]``.

    Attributes
    ----------
    traversed:
        The paths as the traversals emitted them (ids and positions as ``int32`` when they
        fit, else ``int64``).
    next_path:
        Per traversed path, the path linked after it (-1 if none).
    heads, lengths:
        Per chain, in the order of their first paths: that first path and the chain's arcs.
    slots:
        Per arc, the slot at which the traversals took it from its row (the inverse of the
        visiting order, :func:`~._partition_cpu.visiting_order`); ``None`` for
        :meth:`Paths.unlinked`.
    """

    traversed: Paths
    next_path: np.ndarray
    heads: np.ndarray
    lengths: np.ndarray
    slots: np.ndarray | None = None

    @property
    def num_chains(self) -> int:
        """Number of chains, the paths :meth:`write` writes."""
        return self.heads.size

    def write(self, layer=None, num_layers: int = 1, layer_ends=None) -> Paths:
        """The chains as paths: sorted by ``layer`` (int64 per chain, below ``num_layers``),
        in chain order within a layer; all in chain order if ``layer`` is ``None``. If given,
        ``layer_ends`` (``num_layers`` int64 entries) is filled with the end of each layer's
        paths (the paths of layers up to ``l`` are those below ``layer_ends[l]``)."""
        if layer is None:
            layer = np.zeros(self.num_chains, dtype=np.int64)
        if layer_ends is None:
            layer_ends = np.empty(num_layers, dtype=np.int64)
        traversed = self.traversed
        positions = traversed.vertices.size - (traversed.num_paths - self.num_chains)  # a joint is written once
        paths = Paths(np.empty(positions, dtype=traversed.vertices.dtype), np.empty(positions, dtype=np.int64),
                      np.empty(self.num_chains + 1, dtype=np.int64))
        run_cpu_kernel(kernels.write_by_layer, layer, int(num_layers), self.lengths, config.PATH_ORDER_BLOCK_CHAINS,
                       traversed.vertices, traversed.arcs, traversed.offsets, self.next_path, self.heads,
                       paths.vertices, paths.arcs, paths.offsets, layer_ends)
        return paths


def _position_dtype(positions: int):
    """``int32`` when ids and positions up to ``positions`` fit in it, else ``int64``: the
    preprocessing's per-arc arrays at half the memory traffic."""
    return np.int32 if positions < np.iinfo(np.int32).max else np.int64


def link_paths(indptr, indices, max_depth: int = config.PATH_MAX_DEPTH, pieces: int = 1,
               clock: StageClock | None = None) -> LinkedPaths:
    """Algorithm 1's traversals and the linking of short paths (module docstring), not yet
    written out: :func:`partition_paths` writes them in order, the layout by layer.

    Parameters
    ----------
    indptr, indices:
        The graph's CSR arrays (any device; the partitioning runs on the host).
    max_depth:
        D_MAX, the traversal depth bound; linked paths also stay within this many arcs.
    pieces:
        Subgraphs traversed at once (module docstring): ranges of consecutive vertices with
        about equal numbers of out-arcs. 1: the whole graph in one traversal.
    clock:
        If given, the steps' seconds are added to it.

    Returns
    -------
    LinkedPaths
        Paths numbered piece by piece, each piece's in the order its traversals emitted them.

    Raises
    ------
    InvalidParameterError
        If ``max_depth`` or ``pieces`` is below 1.
    """
    if int(max_depth) < 1 or int(pieces) < 1:
        raise InvalidParameterError(f"max_depth and pieces must be >= 1, got {max_depth} and {pieces}")
    clock = StageClock() if clock is None else clock
    indptr = np.asarray(to_numpy(indptr), dtype=np.int64)
    indices = to_numpy(indices)
    n, m = indptr.size - 1, indices.size
    ids = _position_dtype(2 * m + 1)
    order, slots = np.empty(m, dtype=ids), np.empty(m, dtype=ids)
    run_cpu_kernel(kernels.visiting_order, indptr, indices, config.PATH_INSERTION_SORT_MAX_ARCS,
                   config.PATH_VISITING_ORDER_BLOCKS, order, slots)
    clock.lap("visiting order")
    first_from, state = np.full(n, -1, dtype=ids), np.zeros(n, dtype=np.int8)
    pieces = _Pieces(indptr, int(pieces))
    traversed, next_from, foreign = pieces.traverse(indices, order, int(max_depth), ids, first_from, state, clock)
    paths = traversed.num_paths
    run_cpu_kernel(kernels.count_foreign_arcs, foreign, traversed.vertices, traversed.offsets, state)
    clock.lap("paths gathered")
    next_path, heads, lengths = np.empty(paths, dtype=ids), np.empty(paths, dtype=ids), np.empty(paths, dtype=ids)
    linking = (traversed.vertices, traversed.offsets, indptr, state, first_from, next_from, int(max_depth), next_path,
               heads, lengths)
    pieces.each(lambda k: run_cpu_kernel(kernels.merge_head_to_tail, *linking, pieces.path_starts[k],
                                         pieces.path_starts[k + 1], pieces.vertex_starts[k],
                                         pieces.vertex_starts[k + 1], foreign[:0]))
    clock.lap("linking in pieces")
    run_cpu_kernel(kernels.merge_head_to_tail, *linking, 0, 0, 0, 0, foreign)
    chains = run_cpu_kernel(kernels.chain_heads, heads, lengths)
    clock.lap("linking across pieces")
    return LinkedPaths(traversed, next_path, heads[:chains], lengths[:chains], slots)


class _Pieces:
    """A graph's vertices cut into ranges of about equal out-arcs, and the traversal of each on
    its own thread (the kernels release the GIL; ``prange`` is not used because a cached
    parallel kernel can lose the array writes of the kernel it calls, docs/architecture.md)."""

    def __init__(self, indptr: np.ndarray, pieces: int):
        self.indptr = indptr
        n, m = indptr.size - 1, int(indptr[-1])
        self.count = pieces
        self.vertex_starts = np.searchsorted(indptr, np.arange(pieces + 1) * m // pieces).astype(np.int64)
        self.vertex_starts[[0, -1]] = 0, n
        self.arc_starts = indptr[self.vertex_starts]
        self.path_starts = np.zeros(pieces + 1, dtype=np.int64)  # the paths of each piece, set by traverse

    def each(self, work) -> None:
        """``work(k)`` for every piece ``k``, on up to Numba's thread count of threads."""
        if self.count == 1:
            work(0)
            return
        with ThreadPoolExecutor(max_workers=min(self.count, numba.get_num_threads())) as pool:
            for future in [pool.submit(work, k) for k in range(self.count)]:
                future.result()

    def traverse(self, indices, order, max_depth: int, ids, first_from, state, clock: StageClock):
        """Algorithm 1 on every piece (:func:`~._partition_cpu.depth_bounded_paths`), the paths
        gathered piece after piece (copied into fresh arrays, the pieces in parallel). Returns
        the paths (:class:`Paths`), the list of the paths starting at each vertex after each
        path (``first_from`` is filled in place) and the paths that end outside their piece,
        ascending."""
        indptr, m = self.indptr, indices.size
        vertices, arcs = np.empty(2 * m, dtype=indices.dtype), np.empty(2 * m, dtype=ids)
        offsets, next_from = np.empty(m + self.count, dtype=ids), np.empty(m, dtype=ids)
        foreign, roots = np.empty(m, dtype=ids), np.empty(indptr.size - 1, dtype=np.int64)
        written = np.zeros((self.count, 3), dtype=np.int64)  # positions, paths, paths ending outside

        def traverse_piece(k: int) -> None:
            first, last = self.vertex_starts[k], self.vertex_starts[k + 1]
            start, end = self.arc_starts[k], self.arc_starts[k + 1]
            found = run_cpu_kernel(kernels.roots_by_degree, indptr, first, last, roots[first:last])
            written[k] = run_cpu_kernel(
                kernels.depth_bounded_paths, indptr, indices, order, roots[first:first + found], first, last,
                max_depth, vertices[2 * start:2 * end], arcs[2 * start:2 * end], offsets[start + k:end + k + 1],
                next_from[start:end], first_from, state, foreign[start:end])

        self.each(traverse_piece)
        clock.lap("traversal")
        starts = np.zeros((self.count + 1, 3), dtype=np.int64)  # positions, paths, paths ending outside before
        np.cumsum(written, axis=0, out=starts[1:])
        self.path_starts = starts[:, 1].copy()
        positions, paths, ended_outside = starts[-1]
        if self.count == 1:
            return (Paths(vertices[:positions], arcs[:positions], offsets[:paths + 1]), next_from[:paths],
                    foreign[:ended_outside])
        gathered = Paths(np.empty(positions, dtype=vertices.dtype), np.empty(positions, dtype=ids),
                         np.empty(paths + 1, dtype=ids))
        gathered_next, gathered_foreign = np.empty(paths, dtype=ids), np.empty(ended_outside, dtype=ids)
        run_cpu_kernel(kernels.gather_pieces, self.vertex_starts, self.arc_starts, written, starts, vertices, arcs,
                       offsets, next_from, foreign, first_from, gathered.vertices, gathered.arcs, gathered.offsets,
                       gathered_next, gathered_foreign)
        return gathered, gathered_next, gathered_foreign


def partition_paths(indptr, indices, max_depth: int = config.PATH_MAX_DEPTH, pieces: int = 1) -> Paths:
    """Cut a graph's arcs into edge-disjoint paths (module docstring).

    Parameters
    ----------
    indptr, indices, max_depth, pieces:
        As :func:`link_paths`.

    Returns
    -------
    Paths
        The paths, every arc on exactly one of them, in the order of the traversals (piece
        after piece).

    Raises
    ------
    InvalidParameterError
        As :func:`link_paths`.
    """
    return link_paths(indptr, indices, max_depth, pieces).write()
