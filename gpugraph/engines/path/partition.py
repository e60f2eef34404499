"""Path partitioning (DiGraph §3.2.1): the graph's arcs cut into edge-disjoint directed paths.

:func:`partition_paths` runs Algorithm 1 of the paper: depth-bounded depth-first traversals
(``D_MAX`` = :data:`gpugraph.config.PATH_MAX_DEPTH`) from roots in descending out-degree,
following the highest-degree successor first so that arcs between hot vertices gather on *hot
paths*. A traversal that meets a vertex it has already visited ends the path there; the next arc
starts a new path. Every arc lies on exactly one path. Short paths are then linked head to tail
(a path ending at ``x`` with one starting at ``x``) up to ``max_depth`` arcs, under the paper's
constraint: if ``x`` has in- and out-degree above one it must be an inner vertex of no other
path.

The traversal and the linking are sequential Numba loops (about 50 and 20 ms on cnr-2000's
3.2 M arcs on the 2-core development machine, docs/path-engine.md); sorting each row's arcs into
visiting order and writing the linked paths out run in parallel. The paper parallelises the
traversal itself over subgraphs, which cuts paths at subgraph borders and so changes them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpugraph import config
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import run_cpu_kernel
from gpugraph.engines.path import _partition_cpu as kernels
from gpugraph.errors import InvalidParameterError


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

    def path_of_position(self) -> np.ndarray:
        """The path each position of :attr:`vertices` belongs to."""
        return np.repeat(np.arange(self.num_paths, dtype=np.int64), np.diff(self.offsets))

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
    """

    traversed: Paths
    next_path: np.ndarray
    heads: np.ndarray
    lengths: np.ndarray

    @property
    def num_chains(self) -> int:
        """Number of chains, the paths :meth:`write` writes."""
        return self.heads.size

    def write(self, layer=None, num_layers: int = 1) -> Paths:
        """The chains as paths: sorted by ``layer`` (int64 per chain, below ``num_layers``),
        in chain order within a layer; all in chain order if ``layer`` is ``None``."""
        if layer is None:
            layer = np.zeros(self.num_chains, dtype=np.int64)
        traversed = self.traversed
        positions = traversed.vertices.size - (traversed.num_paths - self.num_chains)  # a joint is written once
        paths = Paths(np.empty(positions, dtype=traversed.vertices.dtype), np.empty(positions, dtype=np.int64),
                      np.empty(self.num_chains + 1, dtype=np.int64))
        order = np.empty(self.num_chains, dtype=self.heads.dtype)
        run_cpu_kernel(kernels.order_by_layer, layer, int(num_layers), self.lengths, order, paths.offsets)
        run_cpu_kernel(kernels.write_chains, traversed.vertices, traversed.arcs, traversed.offsets, self.next_path,
                       self.heads, order, paths.vertices, paths.arcs, paths.offsets)
        return paths

def _position_dtype(positions: int):
    """``int32`` when ids and positions up to ``positions`` fit in it, else ``int64``: the
    preprocessing's per-arc arrays at half the memory traffic."""
    return np.int32 if positions < np.iinfo(np.int32).max else np.int64


def link_paths(indptr, indices, max_depth: int = config.PATH_MAX_DEPTH) -> LinkedPaths:
    """Algorithm 1's traversals and the linking of short paths (module docstring), not yet
    written out: :func:`partition_paths` writes them in order, the layout by layer.

    Parameters
    ----------
    indptr, indices:
        The graph's CSR arrays (any device; the partitioning runs on the host).
    max_depth:
        D_MAX, the traversal depth bound; linked paths also stay within this many arcs.

    Returns
    -------
    LinkedPaths

    Raises
    ------
    InvalidParameterError
        If ``max_depth`` is below 1.
    """
    if int(max_depth) < 1:
        raise InvalidParameterError(f"max_depth must be >= 1, got {max_depth}")
    indptr = np.asarray(to_numpy(indptr), dtype=np.int64)
    indices = to_numpy(indices)
    n, m = indptr.size - 1, indices.size
    ids = _position_dtype(2 * m + 1)
    order = np.empty(m, dtype=ids)
    run_cpu_kernel(kernels.visiting_order, indptr, indices, config.PATH_INSERTION_SORT_MAX_ARCS, order)
    vertices, arcs = np.empty(2 * m, dtype=indices.dtype), np.empty(2 * m, dtype=ids)
    offsets, next_from = np.empty(m + 1, dtype=ids), np.empty(m, dtype=ids)
    first_from, state = np.full(n, -1, dtype=ids), np.zeros(n, dtype=np.int8)
    roots = run_cpu_kernel(kernels.roots_by_degree, indptr)
    positions, paths = run_cpu_kernel(kernels.depth_bounded_paths, indptr, indices, order, roots, int(max_depth),
                                      vertices, arcs, offsets, next_from, first_from, state)
    traversed = Paths(vertices[:positions], arcs[:positions], offsets[:paths + 1])
    next_path, heads, lengths = np.empty(paths, dtype=ids), np.empty(paths, dtype=ids), np.empty(paths, dtype=ids)
    chains = run_cpu_kernel(kernels.merge_head_to_tail, traversed.vertices, traversed.offsets, indptr, state,
                            first_from, next_from, int(max_depth), next_path, heads, lengths)
    return LinkedPaths(traversed, next_path, heads[:chains], lengths[:chains])


def partition_paths(indptr, indices, max_depth: int = config.PATH_MAX_DEPTH) -> Paths:
    """Cut a graph's arcs into edge-disjoint paths (module docstring).

    Parameters
    ----------
    indptr, indices, max_depth:
        As :func:`link_paths`.

    Returns
    -------
    Paths
        The paths, every arc on exactly one of them, in the order of the traversals.

    Raises
    ------
    InvalidParameterError
        As :func:`link_paths`.
    """
    return link_paths(indptr, indices, max_depth).write()
