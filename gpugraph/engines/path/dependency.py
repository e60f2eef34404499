"""The path dependency graph, its SCCs contracted into a DAG sketch, and layers (DiGraph §3.2.1).

Path ``q`` depends on path ``p`` when ``p`` enters a vertex that ``q`` leaves: a new state of
that vertex computed on ``p`` must be propagated by ``q``. Written out, that relation has
``a * b`` pairs at a vertex entered by ``a`` paths and left by ``b``; kept bipartite (path ->
vertex it enters, vertex -> path that leaves it) it is linear, and its strongly connected
components are those of the dependency graph with vertex nodes added. Contracting them gives
the DAG sketch. A path's layer is the most path-holding SCCs on any chain of predecessors in the
sketch, so paths of one layer depend only on lower layers; the paths of one large SCC share a
layer and are processed over several rounds.

The components are not computed on the bipartite graph (paths + vertices nodes) but on the
graph's vertices alone. For a path ``v_0 -> ... -> v_L``, ``v_i`` reaches ``v_j`` through the
path node for every ``i < L`` and ``j >= 1``: the graph's own arcs ``v_i -> v_{i+1}`` plus one
arc ``v_{L-1} -> v_1`` (paths of two arcs or more) have the same reachability. So the vertex
nodes' components are those of the graph with these arcs added. They are found in two steps:
Tarjan on the graph's own arcs (:func:`graph_components`, which needs no paths, so the layout
runs it beside the partitioning), then Tarjan on the much smaller graph of those components
with the added arcs (contracting components keeps reachability). A path of two arcs or more
lies in ``v_1``'s component (``v_1`` is entered and left by it), and so does a one-arc path
whose ends share a component; any other path is an SCC-vertex alone, between its two ends.
The arcs of the sketch then come from the graph's arcs between components: across a path
alone the layer grows by one more. ``tests/engines/test_path_engine.py`` checks the result
against the explicit pair graph.

A symmetric graph (each arc ``u -> v`` with its ``v -> u``, as k-core's simple undirected graph)
needs none of the second step: its strongly connected components are its connected components,
a path's vertices all lie in one of them and so do the added arcs, and no arc joins two of them.
Every path is then in its component's SCC-vertex and every SCC-vertex is a source of the sketch
(``symmetric=True``: one layer, the chains counted per component).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from gpugraph.algorithms import _scc_cpu
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import run_cpu_kernel
from gpugraph.engines.path import _partition_cpu as kernels
from gpugraph.engines.path.partition import LinkedPaths, StageClock


@dataclass
class Dependencies:
    """Layers of the paths.

    Attributes
    ----------
    scc:
        int64 per path, the SCC-vertex of the DAG sketch it belongs to.
    layer:
        int64 per path, its layer (0 for paths depending on no other SCC).
    num_sccs:
        SCC-vertices holding at least one path.
    largest_scc:
        Paths in the largest SCC-vertex.
    """

    scc: np.ndarray
    layer: np.ndarray
    num_sccs: int
    largest_scc: int

    @property
    def num_layers(self) -> int:
        """Number of distinct layers."""
        return int(self.layer.max()) + 1 if self.layer.size else 0


@dataclass
class Components:
    """Strongly connected components of a graph's own arcs (:func:`graph_components`).

    Attributes
    ----------
    component:
        Per vertex, its component, numbered so that a component's number is above those of all
        components it reaches.
    emitted:
        The vertices grouped by component, components in number order.
    count:
        Number of components.
    """

    component: np.ndarray
    emitted: np.ndarray
    count: int


def graph_components(indptr, indices) -> Components:
    """Tarjan's algorithm on a graph's own arcs (the first step of :func:`path_dependencies`;
    it needs no paths).

    Parameters
    ----------
    indptr, indices:
        The graph's CSR arrays (any device).

    Returns
    -------
    Components
    """
    indptr = np.asarray(to_numpy(indptr), dtype=np.int64)
    indices = to_numpy(indices)
    n = indptr.size - 1
    component, emitted = np.empty(n, dtype=indices.dtype), np.empty(n, dtype=indices.dtype)
    count = run_cpu_kernel(_scc_cpu.strong_components, indptr, indices, np.full(n, -1, dtype=indices.dtype),
                           component, emitted)
    return Components(component, emitted, int(count))


def path_dependencies(paths, indptr, indices, clock: StageClock | None = None,
                      components: Components | None = None, symmetric: bool = False) -> Dependencies:
    """SCC-vertices and layers of ``paths`` (module docstring).

    Parameters
    ----------
    paths:
        :class:`~gpugraph.engines.path.partition.Paths` or
        :class:`~gpugraph.engines.path.partition.LinkedPaths` of the graph.
    indptr, indices:
        The graph's CSR arrays (any device), those ``paths`` were cut from.
    clock:
        If given, the steps' seconds are added to it.
    components:
        :func:`graph_components` of the graph, if already found.
    symmetric:
        The graph has ``v -> u`` for each arc ``u -> v`` (module docstring). Claimed wrongly, the
        layers are wrong, which slows the engine's dispatch but not its answers.

    Returns
    -------
    Dependencies
        Per path of ``paths`` (per chain of a ``LinkedPaths``, in its order).
    """
    clock = StageClock() if clock is None else clock
    indptr = np.asarray(to_numpy(indptr), dtype=np.int64)
    indices = to_numpy(indices)
    chains = paths if isinstance(paths, LinkedPaths) else paths.unlinked()
    if components is None:
        components = graph_components(indptr, indices)
        clock.lap("SCCs of the graph (Tarjan)")
    if symmetric:
        return _symmetric_dependencies(chains, components, clock)
    traversed = chains.traversed
    extra, single = np.full(indptr.size - 1, -1, dtype=indices.dtype), np.zeros(indices.size, dtype=np.int8)
    run_cpu_kernel(kernels.path_ends, traversed.vertices, traversed.arcs, traversed.offsets, chains.next_path,
                   chains.heads, chains.lengths, extra, single)
    clock.lap("path ends")
    node_offsets = np.empty(components.count + 1, dtype=np.int64)
    targets, singles = run_cpu_kernel(kernels.component_arcs, indptr, indices, extra, single, components.component,
                                      components.emitted, node_offsets)
    merged = graph_components(node_offsets, targets)
    clock.lap("SCCs joined along paths")
    scc, layer = np.empty(chains.num_chains, dtype=np.int64), np.empty(chains.num_chains, dtype=np.int64)
    blocks = max(1, min(numba.get_num_threads(), chains.num_chains // max(merged.count, 1)))  # counts <= chains
    num_sccs, largest_scc = run_cpu_kernel(kernels.path_layers, node_offsets, targets, singles,
                                           components.component, merged.component, merged.emitted, merged.count,
                                           traversed.vertices, traversed.offsets, chains.heads, chains.lengths,
                                           blocks, scc, layer)
    clock.lap("layers")
    return Dependencies(scc=scc, layer=layer, num_sccs=int(num_sccs), largest_scc=int(largest_scc))


def _symmetric_dependencies(chains: LinkedPaths, components: Components, clock: StageClock) -> Dependencies:
    """:func:`path_dependencies` of a symmetric graph: each chain in the component of its
    first vertex, every one in layer 0."""
    scc = np.empty(chains.num_chains, dtype=np.int64)
    blocks = max(1, min(numba.get_num_threads(), chains.num_chains // max(components.count, 1)))  # counts <= chains
    num_sccs, largest_scc = run_cpu_kernel(kernels.chain_components, components.component, components.count,
                                           chains.traversed.vertices, chains.traversed.offsets, chains.heads, blocks,
                                           scc)
    clock.lap("layers")
    return Dependencies(scc=scc, layer=np.zeros(scc.size, dtype=np.int64), num_sccs=int(num_sccs),
                        largest_scc=int(largest_scc))
