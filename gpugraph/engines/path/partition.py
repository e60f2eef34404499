"""Path partitioning (DiGraph §3.2.1): the graph's arcs cut into edge-disjoint directed paths.

:func:`partition_paths` runs Algorithm 1 of the paper: depth-bounded depth-first traversals
(``D_MAX`` = :data:`gpugraph.config.PATH_MAX_DEPTH`) from roots in descending out-degree,
following the highest-degree successor first so that arcs between hot vertices gather on *hot
paths*. A traversal that meets a vertex it has already visited ends the path there; the next arc
starts a new path. Every arc lies on exactly one path. Short paths are then linked head to tail
(a path ending at ``x`` with one starting at ``x``) up to ``max_depth`` arcs, under the paper's
constraint: if ``x`` has in- and out-degree above one it must be an inner vertex of no other
path.

The traversal is sequential (one core; 0.4 s on cnr-2000's 3.2 M arcs). The paper
parallelises it over subgraphs, which cuts paths at subgraph borders; that, or a GPU version,
is the way to the preprocessing target that docs/path-engine.md reports as missed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpugraph import config
from gpugraph.backend import to_numpy
from gpugraph.engines.path import _partition_cpu as kernels
from gpugraph.errors import InvalidParameterError


@dataclass
class Paths:
    """Edge-disjoint paths covering every arc of a graph (DiGraph's E_Idx and PTable).

    Attributes
    ----------
    vertices:
        int64, the vertices of each path in order, paths one after another (E_Idx); a vertex
        shared by several paths has one *replica* per occurrence.
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


def partition_paths(indptr, indices, max_depth: int = config.PATH_MAX_DEPTH) -> Paths:
    """Cut a graph's arcs into edge-disjoint paths (module docstring).

    Parameters
    ----------
    indptr, indices:
        The graph's CSR arrays (any device; the partitioning runs on the host).
    max_depth:
        D_MAX, the traversal depth bound; linked paths also stay within this many arcs.

    Returns
    -------
    Paths
        The paths, every arc on exactly one of them.

    Raises
    ------
    InvalidParameterError
        If ``max_depth`` is below 1.
    """
    if int(max_depth) < 1:
        raise InvalidParameterError(f"max_depth must be >= 1, got {max_depth}")
    indptr = to_numpy(indptr).astype(np.int64)
    indices = to_numpy(indices).astype(np.int64)
    n = indptr.size - 1
    out_degree = np.diff(indptr)
    in_degree = np.bincount(indices, minlength=n)
    # Each row's arcs in visiting order: highest out-degree head first (Algorithm 1, line 6).
    rows = np.repeat(np.arange(n, dtype=np.int64), out_degree)
    order = np.lexsort((-out_degree[indices], rows))
    roots = np.argsort(-out_degree, kind="stable")
    vertices, arcs, offsets = kernels.depth_bounded_paths(indptr, order, indices[order], roots, int(max_depth))
    linked_after, has_previous = kernels.merge_head_to_tail(vertices, offsets, in_degree, out_degree, int(max_depth))
    vertices, arcs, offsets = kernels.layout_chains(vertices, arcs, offsets, linked_after, has_previous)
    return Paths(vertices, arcs, offsets)
