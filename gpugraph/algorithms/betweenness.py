"""Betweenness centrality (Brandes 2001), exact or estimated from sampled sources.

Returns
-------
``betweenness``  float64 per vertex, scaled as NetworkX scales it (below).

Semantics
---------
NetworkX ``nx.betweenness_centrality(G, k, normalized, weight=None, endpoints=False, seed)``
(NetworkX 3.6 scaling) on the *simple* graph of the input: unweighted shortest paths along arc
directions for a directed graph (``nx.DiGraph``), any direction for an undirected one
(``nx.Graph``); parallel arcs are one arc (as NetworkX's simple graphs collapse them) and
self-loops are ignored (they lie on no shortest path). ``bc(v) = sum over sources s != v of
delta_s(v)``, ``delta_s(v) = sum over targets t of sigma_st(v) / sigma_st`` (Brandes, "A faster
algorithm for betweenness centrality", J. Math. Sociol. 25(2), 2001), then scaled, with
``N = n - 1`` and ``c = 2`` for undirected graphs (each pair counted from both ends), else 1:

* exact (``sources=None, samples=None``, or every vertex a source): ``normalized``:
  ``1 / (N (N - 1))``; otherwise ``1 / c``.
* ``samples=k`` sources drawn without replacement (``numpy.random.default_rng(seed)``; NetworkX
  draws with Python's ``random``, so the same ``seed`` picks other vertices), or the given
  ``sources`` (``k`` of them): the estimate is scaled up to all sources; a sampled vertex saw one
  source fewer than the others, so sources get ``1 / ((k - 1) (N - 1))`` and the rest
  ``1 / (k (N - 1))`` when ``normalized`` (``N / ((k - 1) c)`` and ``N / (k c)`` if not). With
  ``k = 1`` the source's value is NaN, as in NetworkX.
* ``n <= 2``: no scaling (all values are 0).

Algorithm
---------
Per source, a level-synchronous BFS counts shortest paths (``sigma``), then dependencies are
accumulated level by level back to the source from each vertex's successors one level deeper
(pull over out-edges: no atomics in the backward pass). CPU: one ``prange`` worker per core,
each with its own buffers and betweenness row, sources dealt round-robin. GPU: sources one after
another, one launch per level and pass, one thread per vertex of the level; the forward pass
claims vertices with compare-and-swap and adds path counts with atomics. GPU cost is two
launches per BFS level and source, so graphs of large diameter (road networks) run long.

Verification compares with NetworkX (see :func:`verify`).
"""

from __future__ import annotations

import math
import time

import numpy as np

from gpugraph.algorithms.result import Result
from gpugraph.algorithms.triangles import csr_of_keys, simple_arcs
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import EmptyGraphError, InvalidParameterError, VertexIdError


def run(graph, sources=None, samples: int | None = None, seed: int = 0, normalized: bool = True) -> Result:
    """Compute betweenness centrality on the graph's backend.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph` (weights are ignored: paths are counted in hops).
    sources:
        Internal ids of the source vertices to use (distinct), or ``None``.
    samples:
        Number of sources to draw at random (``1 <= samples <= n``), or ``None``. At most one
        of ``sources`` and ``samples`` may be given; with neither, every vertex is a source.
    seed:
        Seed of the draw of ``samples`` sources.
    normalized:
        Scale by the number of (source, target) pairs (see the module docstring).

    Returns
    -------
    Result
        ``values``: ``betweenness``; ``stats``: ``sources`` (how many), ``rounds`` (BFS levels
        summed over sources), ``seconds``; ``parameters["sources"]`` holds the internal ids
        used when not every vertex was a source (else ``None``).

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    InvalidParameterError
        If both ``sources`` and ``samples`` are given, ``samples`` is not in ``[1, n]``, or
        ``sources`` is empty or repeats a vertex.
    VertexIdError
        If a source is not in ``[0, n)``.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("betweenness needs at least one vertex; the graph is empty")
    chosen = _choose_sources(n, sources, samples, seed)
    backend = graph.backend
    xp = backend.xp
    start = time.perf_counter()
    with backend.activate():
        keys, _ = simple_arcs(graph, symmetric=False)
        indptr, indices = csr_of_keys(keys, n, xp, graph.indices.dtype)
        source_ids = np.arange(n, dtype=np.int64) if chosen is None else chosen
        if backend.is_cuda:
            betweenness, rounds = _run_cuda(graph, indptr, indices, source_ids)
        else:
            workers = min(_cpu_workers(), source_ids.size)
            partial = np.zeros((workers, n))
            rounds = run_cpu_kernel(_cpu().brandes, indptr, indices, source_ids, partial)
            betweenness = partial.sum(axis=0)
        betweenness *= backend.asarray(_scale(n, chosen, normalized, graph.directed))
    backend.synchronize()
    seconds = time.perf_counter() - start
    return Result(
        "betweenness",
        graph,
        {"betweenness": betweenness},
        {"sources": int(source_ids.size), "rounds": int(rounds), "seconds": seconds},
        {"sources": chosen, "samples": samples, "seed": seed, "normalized": bool(normalized)},
    )


def _choose_sources(n: int, sources, samples, seed: int):
    """The internal source ids (host int64), or ``None`` when every vertex is a source."""
    if sources is not None and samples is not None:
        raise InvalidParameterError("betweenness takes sources or samples, not both")
    if samples is not None:
        if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or not 1 <= samples <= n:
            raise InvalidParameterError(f"betweenness samples must be an integer in [1, {n}], got {samples!r}")
        if samples == n:
            return None
        return np.random.default_rng(seed).choice(n, size=int(samples), replace=False).astype(np.int64)
    if sources is None:
        return None
    chosen = np.atleast_1d(to_numpy(sources))
    if chosen.ndim != 1 or chosen.size == 0 or not np.issubdtype(chosen.dtype, np.integer):
        raise InvalidParameterError("betweenness sources must be a non-empty list of vertex ids")
    outside = chosen[(chosen < 0) | (chosen >= n)]
    if outside.size:
        raise VertexIdError(f"betweenness source {int(outside[0])} is outside [0, {n - 1}]")
    if np.unique(chosen).size != chosen.size:
        raise InvalidParameterError("betweenness sources repeat a vertex")
    return None if chosen.size == n else chosen.astype(np.int64)


def _scale(n: int, chosen, normalized: bool, directed: bool) -> np.ndarray:
    """Per-vertex factor of NetworkX 3.6's ``_rescale`` with ``endpoints=False``."""
    pairs_per_target = n - 1
    if pairs_per_target < 2:
        return np.ones(n)
    correction = 1 if directed else 2
    if chosen is None:
        factor = 1 / (pairs_per_target * (pairs_per_target - 1)) if normalized else 1 / correction
        return np.full(n, factor)
    k = chosen.size
    numerator = 1 / (pairs_per_target - 1) if normalized else pairs_per_target / correction
    factor = np.full(n, numerator / k)
    factor[chosen] = numerator / (k - 1) if k > 1 else math.nan
    return factor


def _cpu_workers() -> int:
    import numba

    return numba.get_num_threads()


def _cpu():
    from gpugraph.algorithms import _betweenness_cpu

    return _betweenness_cpu


def _run_cuda(graph, indptr, indices, source_ids):
    from gpugraph.algorithms import _betweenness_cuda

    backend = graph.backend
    xp = backend.xp
    n = graph.num_vertices
    betweenness = xp.zeros(n, dtype=np.float64)
    depth = xp.empty(n, dtype=np.int32)
    sigma = xp.empty(n, dtype=np.float64)
    delta = xp.empty(n, dtype=np.float64)
    order = xp.empty(n, dtype=indices.dtype)
    appended = xp.zeros(1, dtype=np.int64)
    rounds = 0
    for source in source_ids.tolist():
        depth.fill(-1)
        sigma.fill(0.0)
        delta.fill(0.0)
        depth[source] = 0
        sigma[source] = 1.0
        order[0] = source
        bounds = [0, 1]  # level l is order[bounds[l]:bounds[l + 1]]
        while True:
            appended[0] = 0
            begin, end = bounds[-2], bounds[-1]
            launch_cuda_kernel(
                _betweenness_cuda.expand_level, backend, end - begin,
                indptr, indices, order, np.int64(begin), np.int64(end), depth, sigma, appended,
            )
            found = int(appended[0])  # the one device->host read per level
            if found == 0:
                break
            bounds.append(end + found)
        rounds += len(bounds) - 1
        # The deepest level has no successors (its dependencies stay 0) and the source's level
        # adds nothing: accumulate the levels in between, deepest first.
        for level in range(len(bounds) - 3, 0, -1):
            begin, end = bounds[level], bounds[level + 1]
            launch_cuda_kernel(
                _betweenness_cuda.accumulate_level, backend, end - begin,
                indptr, indices, order, np.int64(begin), np.int64(end), depth, sigma, delta, betweenness,
            )
    return betweenness, rounds


def verify(graph, result: Result, rtol: float = 1e-9) -> None:
    """Compare with NetworkX on the simple graph of the input.

    Exact runs are compared with ``nx.betweenness_centrality``. Runs on chosen sources are
    compared with the sum over those sources from ``nx.betweenness_centrality_subset`` (all
    targets, unscaled), scaled as the module docstring says.

    Parameters
    ----------
    graph:
        The graph the result was computed on.
    result:
        The :func:`run` result.
    rtol:
        Relative tolerance (paths are summed in another order than NetworkX's).

    Raises
    ------
    AssertionError
        Naming the first vertices whose values differ (a test oracle, not input validation).
    """
    import networkx as nx

    n = graph.num_vertices
    simple = nx.DiGraph() if graph.directed else nx.Graph()
    simple.add_nodes_from(range(n))
    src, dst, _ = graph.edges()
    simple.add_edges_from(zip(to_numpy(src).tolist(), to_numpy(dst).tolist()))
    simple.remove_edges_from(nx.selfloop_edges(simple))
    chosen = result.parameters["sources"]
    normalized = result.parameters["normalized"]
    if chosen is None:
        reference = nx.betweenness_centrality(simple, normalized=normalized)
        expected = np.array([reference[v] for v in range(n)])
    else:
        # The subset variant halves undirected sums itself; undo that before scaling.
        partial = nx.betweenness_centrality_subset(simple, chosen.tolist(), list(range(n)), normalized=False)
        unhalved = 1.0 if graph.directed else 2.0
        expected = np.array([partial[v] * unhalved for v in range(n)]) * _scale(n, chosen, normalized, graph.directed)
    got = to_numpy(result["betweenness"])
    differ = np.flatnonzero(~np.isclose(got, expected, rtol=rtol, atol=1e-12, equal_nan=True))
    assert differ.size == 0, (
        f"betweenness of vertices {differ[:5].tolist()} is {got[differ[:5]].tolist()}, "
        f"NetworkX gives {expected[differ[:5]].tolist()}"
    )
