"""Anchors: the libraries users would pick instead, run in the same benchmark as gpugraph.

Each anchor converts the graph once (timed apart, reported as the record's ``load_seconds``),
then runs the same algorithm with the same parameters (roots, source, damping, tolerance) and is
timed like gpugraph: a warm-up call, then trials, median. None of them is a dependency of
gpugraph: a missing package gives records saying "not installed" (``pip install
gpugraph[bench]`` brings them all).

CPU anchors
    ``scipy``: ``scipy.sparse.csgraph`` ``breadth_first_order`` (with predecessors),
    ``dijkstra``, ``connected_components(connection="weak")``; PageRank as SciPy SpMV power
    iteration with NetworkX's meaning (the CPU twin of the cuSPARSE anchor).
    ``igraph``: ``Graph.bfs``, ``distances(algorithm="dijkstra")``,
    ``connected_components("weak")``, ``pagerank(implementation="prpack")`` (a direct solver:
    no iteration count, so no edges/s).
    ``graphblas`` (python-graphblas, SuiteSparse:GraphBLAS): BFS with parents (``any_secondi``
    vxm per level), Bellman-Ford SSSP (``min_plus`` vxm on the changed vertices, as
    graphblas-algorithms does), PageRank power iteration (``plus_times``). No WCC.
    ``networkit``: ``distance.BFS``, ``distance.Dijkstra`` (no paths stored),
    ``components.(Weakly)ConnectedComponents``, ``centrality.PageRank`` (sinks distributed,
    L1 norm, tolerance ``n * tol``: NetworkX's criterion).
    ``networkx`` (graphs of at most ``config.BENCH_NETWORKX_MAX_ARCS`` arcs): ``bfs_predecessors``,
    ``single_source_dijkstra_path_length``, ``number_(weakly_)connected_components``,
    ``pagerank(weight=None)``. NetworkX's graphs merge parallel edges.
GPU anchor
    ``cusparse``: PageRank as cuSPARSE SpMV power iteration through CuPy (``cupyx.scipy.sparse``
    CSR matrix @ vector): NetworkX semantics, damping 0.85, the rank of vertices without
    out-arcs spread uniformly, the L1 change checked every iteration.

Undirected graphs are given to igraph, NetworKit and NetworkX as undirected graphs with each
edge once; SciPy and GraphBLAS get the symmetric matrix of the stored arcs.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from gpugraph import config
from gpugraph.backend import to_numpy
from gpugraph.bench.graphs import arc_sources


@dataclass(frozen=True)
class Method:
    """One algorithm of an anchor.

    Attributes
    ----------
    run:
        ``run(prepared, parameters) -> raw``: the timed call.
    describe:
        ``describe(raw) -> dict``: what the harness needs from the raw output (``reached``
        vertex ids or mask for BFS/SSSP, ``rounds``, ``residuals``, ``components``); not timed.
    what:
        The library call, written into the record.
    """

    run: object
    describe: object
    what: str


@dataclass(frozen=True, eq=False)
class Anchor:
    """A library run beside gpugraph.

    Attributes
    ----------
    implementation:
        The record's ``implementation`` (``"scipy"``, ``"igraph"``...).
    package:
        Module imported to check availability (and read the version).
    distribution:
        The pip name, for the "not installed" note.
    device_kind:
        ``"cpu"`` or ``"cuda"``: runs when the benchmark device is of that kind.
    prepare:
        ``prepare(graph) -> prepared``: converts the graph (timed apart).
    methods:
        Algorithm name -> :class:`Method`.
    max_arcs:
        Largest graph (stored arcs) it runs on, ``None`` for no limit.
    extra:
        The gpugraph extra that installs the package.
    """

    implementation: str
    package: str
    distribution: str
    device_kind: str
    prepare: object
    methods: dict = field(default_factory=dict)
    max_arcs: int | None = None
    extra: str = "bench"


def unavailable(anchor: Anchor) -> str | None:
    """Why ``anchor`` cannot run here, or ``None`` when its package imports.

    Returns
    -------
    str or None
        ``"<distribution> not installed (pip install gpugraph[<extra>])"`` on ImportError, or
        the import's other error.
    """
    try:
        importlib.import_module(anchor.package)
    except ImportError:
        return f"{anchor.distribution} not installed (pip install gpugraph[{anchor.extra}])"
    except Exception as exc:  # noqa: BLE001 - a broken install is reported, not raised
        return f"{anchor.distribution} failed to import: {type(exc).__name__}: {exc}"
    return None


def skip_reason(anchor: Anchor, graph) -> str | None:
    """Why ``anchor`` does not run on ``graph`` (too many arcs), or ``None``. The text names the
    limit, not the graph, so that reports group the graphs it skipped."""
    if anchor.max_arcs is not None and graph.num_arcs > anchor.max_arcs:
        return f"{anchor.implementation} runs only on graphs of at most {anchor.max_arcs:,} arcs"
    return None


# --- shared pieces ----------------------------------------------------------------------------------
def _host_csr(graph):
    """``(indptr, indices, weights as float64 or None)`` on the host."""
    weights = None if graph.weights is None else to_numpy(graph.weights).astype(np.float64)
    return to_numpy(graph.indptr), to_numpy(graph.indices), weights


def _edge_arrays(graph):
    """``(tails, heads, weights)`` host arrays: every arc of a directed graph, each edge of an
    undirected one once (the arc with ``tail <= head``)."""
    _, heads, weights = _host_csr(graph)
    tails = to_numpy(arc_sources(graph, 0, graph.num_arcs))
    if not graph.directed:
        keep = tails <= heads
        tails, heads = tails[keep], heads[keep]
        weights = None if weights is None else weights[keep]
    return tails, heads, weights


def pagerank_operator(graph, sparse):
    """The PageRank transition matrix of ``graph`` on its device, and its dangling indicator.

    Parameters
    ----------
    graph:
        The graph (CSC arrays are built if needed).
    sparse:
        ``scipy.sparse`` or ``cupyx.scipy.sparse`` (matching the graph's arrays).

    Returns
    -------
    tuple
        ``(flow, dangling)``: ``flow[v, u] = (arcs u -> v) / out_degree(u)`` as CSR, and 1.0 for
        vertices without out-arcs, else 0.0.
    """
    xp = graph.backend.xp
    out_degree = graph.out_degree().astype(np.float64)
    inverse = xp.where(out_degree > 0, 1.0 / xp.maximum(out_degree, 1.0), 0.0)
    n = graph.num_vertices
    flow = sparse.csr_matrix((inverse[graph.in_indices], graph.in_indices, graph.in_indptr), shape=(n, n))
    return flow, (out_degree == 0).astype(np.float64)


def power_iteration(flow, dangling, xp, damping: float, tol: float, max_iterations: int):
    """PageRank by power iteration with NetworkX's meaning (uniform teleport, dangling rank
    spread uniformly, stop when the L1 change is below ``n * tol``).

    Parameters
    ----------
    flow, dangling:
        :func:`pagerank_operator` output.
    xp:
        NumPy or CuPy.
    damping, tol, max_iterations:
        As in :func:`gpugraph.algorithms.pagerank.run`.

    Returns
    -------
    SimpleNamespace
        ``rank``, ``rounds``, ``residuals`` (the L1 change of every iteration).
    """
    n = flow.shape[0]
    rank = xp.full(n, 1.0 / n)
    residuals = []
    for _ in range(max_iterations):
        previous = rank
        rank = damping * (flow @ previous + (previous @ dangling) / n) + (1.0 - damping) / n
        residuals.append(float(xp.abs(rank - previous).sum()))
        if residuals[-1] < n * tol:
            break
    return SimpleNamespace(rank=rank, rounds=len(residuals), residuals=residuals)


def _iterations(raw) -> dict:
    return {"rounds": raw.rounds, "residuals": raw.residuals}


def _pagerank_parameters(parameters: dict) -> tuple[float, float, int]:
    return float(parameters["damping"]), float(parameters["tol"]), int(parameters["max_iterations"])


# --- SciPy ----------------------------------------------------------------------------------------
def _scipy_prepare(graph):
    import scipy.sparse as sparse

    indptr, indices, weights = _host_csr(graph)
    data = np.ones(indices.size) if weights is None else weights
    flow, dangling = pagerank_operator(graph, sparse)
    return SimpleNamespace(matrix=sparse.csr_matrix((data, indices, indptr), shape=(graph.num_vertices,) * 2),
                           flow=flow, dangling=dangling)


def _scipy_bfs(prepared, parameters):
    from scipy.sparse.csgraph import breadth_first_order

    return breadth_first_order(prepared.matrix, int(parameters["source"]), directed=True, return_predecessors=True)


def _scipy_sssp(prepared, parameters):
    from scipy.sparse.csgraph import dijkstra

    return dijkstra(prepared.matrix, directed=True, indices=int(parameters["source"]))


def _scipy_wcc(prepared, parameters):
    from scipy.sparse.csgraph import connected_components

    return connected_components(prepared.matrix, directed=True, connection="weak")


def _scipy_pagerank(prepared, parameters):
    return power_iteration(prepared.flow, prepared.dangling, np, *_pagerank_parameters(parameters))


SCIPY = Anchor("scipy", "scipy.sparse.csgraph", "scipy", "cpu", _scipy_prepare, {
    "bfs": Method(_scipy_bfs, lambda raw: {"reached": raw[0]}, "scipy.sparse.csgraph.breadth_first_order(return_predecessors=True)"),
    "sssp": Method(_scipy_sssp, lambda raw: {"reached": np.isfinite(raw)}, "scipy.sparse.csgraph.dijkstra"),
    "wcc": Method(_scipy_wcc, lambda raw: {"components": int(raw[0])}, "scipy.sparse.csgraph.connected_components(connection='weak')"),
    "pagerank": Method(_scipy_pagerank, _iterations, "SciPy CSR SpMV power iteration (NetworkX semantics)"),
})


# --- igraph ---------------------------------------------------------------------------------------
def _igraph_prepare(graph):
    import igraph

    tails, heads, weights = _edge_arrays(graph)
    converted = igraph.Graph(n=graph.num_vertices, edges=np.column_stack([tails, heads]).astype(np.int64),
                             directed=graph.directed)
    if weights is not None:
        converted.es["weight"] = weights.tolist()
    return converted


IGRAPH = Anchor("igraph", "igraph", "igraph", "cpu", _igraph_prepare, {
    "bfs": Method(lambda g, p: g.bfs(int(p["source"]), mode="out"), lambda raw: {"reached": np.asarray(raw[0], dtype=np.int64)},
                  "igraph.Graph.bfs"),
    "sssp": Method(lambda g, p: g.distances(source=int(p["source"]), weights="weight" if g.is_weighted() else None,
                                            mode="out", algorithm="dijkstra"),
                   lambda raw: {"reached": np.isfinite(np.asarray(raw[0], dtype=np.float64))},
                   "igraph.Graph.distances(algorithm='dijkstra')"),
    "wcc": Method(lambda g, p: g.connected_components(mode="weak"), lambda raw: {"components": len(raw)},
                  "igraph.Graph.connected_components(mode='weak')"),
    "pagerank": Method(lambda g, p: g.pagerank(damping=float(p["damping"]), directed=g.is_directed(), implementation="prpack"),
                       lambda raw: {}, "igraph.Graph.pagerank(implementation='prpack'), a direct solver"),
})


# --- python-graphblas -----------------------------------------------------------------------------
def _graphblas_prepare(graph):
    import graphblas as gb

    _, heads, weights = _host_csr(graph)
    tails = to_numpy(arc_sources(graph, 0, graph.num_arcs))
    n = graph.num_vertices
    # Parallel arcs: PageRank counts them (the matrix holds multiplicities), SSSP takes the lightest.
    counts = gb.Matrix.from_coo(tails, heads, np.ones(tails.size), nrows=n, ncols=n, dup_op=gb.binary.plus)
    lengths = counts if weights is None else gb.Matrix.from_coo(tails, heads, weights, nrows=n, ncols=n, dup_op=gb.binary.min)
    out_degree = counts.reduce_rowwise(gb.monoid.plus).new()
    inverse = out_degree.apply(gb.unary.minv).new()
    dangling = gb.Vector.from_scalar(1.0, n).dup(mask=~out_degree.S)
    return SimpleNamespace(gb=gb, n=n, counts=counts, lengths=lengths, inverse=inverse, dangling=dangling)


def _graphblas_bfs(prepared, parameters):
    gb, source = prepared.gb, int(parameters["source"])
    parent = gb.Vector(gb.dtypes.INT64, prepared.n)
    parent[source] << source
    frontier = parent.dup()
    while frontier.nvals:
        frontier(~parent.S, replace=True) << frontier.vxm(prepared.counts, gb.semiring.ss.any_secondi)
        parent(frontier.S) << frontier
    return parent


def _graphblas_sssp(prepared, parameters):
    gb, n = prepared.gb, prepared.n
    distance = gb.Vector(gb.dtypes.FP64, n)
    distance[int(parameters["source"])] << 0.0
    changed = distance.dup()
    rounds = 0
    while changed.nvals:
        rounds += 1
        candidate = changed.vxm(prepared.lengths, gb.semiring.min_plus).new()
        shorter = candidate.ewise_mult(distance, gb.binary.lt).new()
        changed = gb.Vector(gb.dtypes.FP64, n)
        changed(shorter.V) << candidate
        changed(~distance.S) << candidate
        distance(changed.S) << changed
    return SimpleNamespace(distance=distance, rounds=rounds)


def _graphblas_pagerank(prepared, parameters):
    gb, n = prepared.gb, prepared.n
    damping, tol, max_iterations = _pagerank_parameters(parameters)
    rank = gb.Vector.from_scalar(1.0 / n, n)
    residuals = []
    for _ in range(max_iterations):
        share = rank.ewise_mult(prepared.inverse, gb.binary.times).new()
        dangling = rank.ewise_mult(prepared.dangling, gb.binary.times).reduce(gb.monoid.plus).new().get(0.0)
        following = share.vxm(prepared.counts, gb.semiring.plus_times).new()
        updated = gb.Vector.from_scalar((damping * dangling + 1.0 - damping) / n, n)
        updated(gb.binary.plus) << following.apply(gb.binary.times, right=damping)
        residuals.append(updated.ewise_add(rank, gb.binary.minus).new().apply(gb.unary.abs).reduce(gb.monoid.plus).new().get(0.0))
        rank = updated
        if residuals[-1] < n * tol:
            break
    return SimpleNamespace(rank=rank, rounds=len(residuals), residuals=residuals)


GRAPHBLAS = Anchor("graphblas", "graphblas", "python-graphblas", "cpu", _graphblas_prepare, {
    "bfs": Method(_graphblas_bfs, lambda raw: {"reached": raw.to_coo()[0].astype(np.int64)},
                  "python-graphblas: level-synchronous vxm (any_secondi) with parents"),
    "sssp": Method(_graphblas_sssp, lambda raw: {"reached": raw.distance.to_coo()[0].astype(np.int64), "rounds": raw.rounds},
                   "python-graphblas: Bellman-Ford, min_plus vxm on the changed vertices"),
    "pagerank": Method(_graphblas_pagerank, _iterations, "python-graphblas: plus_times vxm power iteration (NetworkX semantics)"),
})


# --- NetworKit ------------------------------------------------------------------------------------
def _networkit_prepare(graph):
    import networkit

    tails, heads, weights = _edge_arrays(graph)
    data = np.ones(tails.size) if weights is None else weights
    converted = networkit.graph.GraphFromCoo((data, (tails.astype(np.uint64), heads.astype(np.uint64))),
                                             n=graph.num_vertices, directed=graph.directed, weighted=weights is not None)
    structure = networkit.graphtools.toUnweighted(converted) if weights is not None else converted
    return SimpleNamespace(nk=networkit, weighted=converted, structure=structure, n=graph.num_vertices)


def _networkit_run(algorithm):
    algorithm.run()
    return algorithm


def _networkit_reached(raw) -> dict:
    return {"reached": np.asarray(raw.getDistances(), dtype=np.float64) < np.finfo(np.float64).max}


def _networkit_wcc(prepared, parameters):
    components = prepared.nk.components
    kind = components.WeaklyConnectedComponents if prepared.structure.isDirected() else components.ConnectedComponents
    return _networkit_run(kind(prepared.structure))


def _networkit_pagerank(prepared, parameters):
    centrality = prepared.nk.centrality
    damping, tol, max_iterations = _pagerank_parameters(parameters)
    ranking = centrality.PageRank(prepared.structure, damp=damping, tol=prepared.n * tol,
                                  distributeSinks=centrality.SinkHandling.DistributeSinks)
    ranking.norm = centrality.Norm.L1_NORM
    ranking.maxIterations = max_iterations
    return _networkit_run(ranking)


NETWORKIT = Anchor("networkit", "networkit", "networkit", "cpu", _networkit_prepare, {
    "bfs": Method(lambda p, q: _networkit_run(p.nk.distance.BFS(p.structure, int(q["source"]), storePaths=False)),
                  _networkit_reached, "networkit.distance.BFS(storePaths=False)"),
    "sssp": Method(lambda p, q: _networkit_run(p.nk.distance.Dijkstra(p.weighted, int(q["source"]), storePaths=False)),
                   _networkit_reached, "networkit.distance.Dijkstra(storePaths=False)"),
    "wcc": Method(_networkit_wcc, lambda raw: {"components": raw.numberOfComponents()},
                  "networkit.components.(Weakly)ConnectedComponents"),
    "pagerank": Method(_networkit_pagerank, lambda raw: {"rounds": raw.numberOfIterations()},
                       "networkit.centrality.PageRank(DistributeSinks, L1 norm, tol n*tol)"),
})


# --- NetworkX -------------------------------------------------------------------------------------
def _networkx_prepare(graph):
    import networkx

    tails, heads, weights = _edge_arrays(graph)
    converted = networkx.DiGraph() if graph.directed else networkx.Graph()
    converted.add_nodes_from(range(graph.num_vertices))
    if weights is None:
        converted.add_edges_from(zip(tails.tolist(), heads.tolist()))
    else:
        converted.add_weighted_edges_from(zip(tails.tolist(), heads.tolist(), weights.tolist()))
    return SimpleNamespace(nx=networkx, graph=converted)


def _networkx_bfs(prepared, parameters):
    source = int(parameters["source"])
    return source, dict(prepared.nx.bfs_predecessors(prepared.graph, source))


def _networkx_wcc(prepared, parameters):
    nx, graph = prepared.nx, prepared.graph
    return nx.number_weakly_connected_components(graph) if graph.is_directed() else nx.number_connected_components(graph)


NETWORKX = Anchor("networkx", "networkx", "networkx", "cpu", _networkx_prepare, {
    "bfs": Method(_networkx_bfs, lambda raw: {"reached": np.array([raw[0], *raw[1]], dtype=np.int64)}, "networkx.bfs_predecessors"),
    "sssp": Method(lambda p, q: p.nx.single_source_dijkstra_path_length(p.graph, int(q["source"]), weight="weight"),
                   lambda raw: {"reached": np.fromiter(raw, dtype=np.int64)}, "networkx.single_source_dijkstra_path_length"),
    "wcc": Method(_networkx_wcc, lambda raw: {"components": int(raw)}, "networkx.number_(weakly_)connected_components"),
    "pagerank": Method(lambda p, q: p.nx.pagerank(p.graph, alpha=float(q["damping"]), tol=float(q["tol"]),
                                                  max_iter=int(q["max_iterations"]), weight=None),
                       lambda raw: {}, "networkx.pagerank(weight=None)"),
}, max_arcs=config.BENCH_NETWORKX_MAX_ARCS)


# --- cuSPARSE through CuPy ------------------------------------------------------------------------
def _cusparse_prepare(graph):
    import cupyx.scipy.sparse as sparse

    flow, dangling = pagerank_operator(graph, sparse)
    return SimpleNamespace(flow=flow, dangling=dangling, xp=graph.backend.xp)


CUSPARSE = Anchor("cusparse", "cupyx.scipy.sparse", "cupy", "cuda", _cusparse_prepare, {
    "pagerank": Method(lambda p, q: power_iteration(p.flow, p.dangling, p.xp, *_pagerank_parameters(q)), _iterations,
                       "cuSPARSE CSR SpMV power iteration through CuPy (NetworkX semantics)"),
}, extra="gpu")

#: Every anchor, in the order of the table's columns.
ANCHORS = (SCIPY, IGRAPH, GRAPHBLAS, NETWORKIT, NETWORKX, CUSPARSE)


def anchors_for(algorithm: str, device_kind: str) -> list[Anchor]:
    """The anchors that implement ``algorithm`` on a device kind.

    Parameters
    ----------
    algorithm:
        Algorithm name.
    device_kind:
        ``"cpu"`` or ``"cuda"``.

    Returns
    -------
    list of Anchor
    """
    return [anchor for anchor in ANCHORS if anchor.device_kind == device_kind and algorithm in anchor.methods]
