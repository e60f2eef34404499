"""Single-source shortest paths (SSSP): distance and a shortest-path tree from one source.

Returns
-------
``distance``     float64 per vertex: length of a shortest directed path from the source (the sum
                 of its arc weights), ``+inf`` if unreachable; ``distance[source] == 0``.
``predecessor``  int64 per vertex: the vertex before it on one shortest path
                 (``predecessor[source] == source``), -1 if unreachable. The predecessors form a
                 tree rooted at the source, also across zero-weight arcs; any shortest-path tree
                 may be returned.

Semantics
---------
Paths follow arcs (an undirected graph's edges go both ways). An unweighted graph has unit
weights; integer weights are read as float64. Of parallel arcs the lightest counts; self-loops
never shorten a path. Weights must be non-negative (``+inf`` is allowed and never relaxes
anything): a negative or NaN weight raises :class:`~gpugraph.errors.InvalidWeightError`
naming an offending arc. This is what ``scipy.sparse.csgraph.dijkstra`` and NetworkX's
``single_source_dijkstra`` compute.

Algorithm
---------
CPU: Dijkstra (Numerische Mathematik 1, 1959) with a binary heap and lazy deletion, serial and
work-efficient, O((n + m) log m).

GPU: the near-far method of Davidson, Baxter, Garland & Owens (IPDPS 2014), a two-bucket form
of Meyer & Sanders' delta-stepping (J. Algorithms 49, 2003), run whole inside one persistent
kernel (:func:`gpugraph.algorithms._sssp_cuda.near_far`; a grid barrier ends each phase, so a
road graph's thousands of rounds cost no launches and no host reads). Each round relaxes the
*near* queue: a vertex is queued as items of at most ``config.SSSP_CHUNK_ARCS`` out-arcs, so
hubs are spread over many threads (one thread per item). Arcs relax with an atomic minimum
on the float64 distance. A lowered distance below the threshold queues its vertex for the
next round, one at or above it joins the *far* pile. When a round queues nothing, the
threshold moves to the closest pending far distance plus ``delta`` (skipping empty buckets)
and the far pile splits; the run ends when nothing is pending. Predecessors are recovered
after convergence by edge-balanced, coalesced passes over the out-arcs
(``config.SSSP_TREE_ARCS_PER_THREAD`` per thread): a tight arc from a strictly closer vertex
gives its head a predecessor; vertices reached only through zero-weight ties take a tight arc
from a vertex that already had a predecessor, in a few more passes.

``delta`` defaults to ``config.SSSP_DELTA_FACTOR`` x mean arc weight / mean out-degree, a
heuristic in the spirit of Davidson et al.'s choice of the near-far width (a bucket holds a
few arcs per vertex); any positive width gives the same distances.

``stats``: ``rounds`` (CPU: vertices settled; GPU: near-pile expansions), ``edges_traversed``
(arcs relaxed), ``seconds``.

Verification compares the distances with SciPy's Dijkstra and checks that the predecessors form
a shortest-path tree (see :func:`verify`).
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph.algorithms.reference import shortest_paths
from gpugraph import config
from gpugraph.algorithms.result import Result
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import launch_cuda_grid, launch_cuda_kernel, resident_blocks, run_cpu_kernel
from gpugraph.errors import EmptyGraphError, InvalidParameterError, InvalidWeightError, VertexIdError



def run(graph, source: int = 0, delta: float | None = None) -> Result:
    """Compute shortest-path distances and a shortest-path tree from ``source``.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph`; weights (if any) must be non-negative.
    source:
        Internal id of the start vertex; use ``graph.to_internal(original_id)`` to convert.
    delta:
        Bucket width of the near-far method on a CUDA backend, a positive finite number;
        ``None``: the heuristic of the module docstring. The CPU's Dijkstra has no buckets and
        only checks it.

    Returns
    -------
    Result
        ``values``: ``distance`` (float64), ``predecessor`` (int64); ``stats``: ``rounds``,
        ``edges_traversed``, ``seconds``; ``parameters``: ``source``, ``delta`` (the width the
        GPU used, or the given value on the CPU).

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    VertexIdError
        If ``source`` is not an integer in ``[0, n)``.
    InvalidParameterError
        If ``delta`` is not a positive finite number.
    InvalidWeightError
        If an arc weight is negative or NaN (the message names one such arc).
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("SSSP needs at least one vertex; the graph is empty")
    if isinstance(source, bool) or not isinstance(source, (int, np.integer)) or not 0 <= source < n:
        raise VertexIdError(f"SSSP source {source!r} is not a vertex id in [0, {n - 1}]")
    if delta is not None and not (isinstance(delta, (int, float, np.integer, np.floating))
                                  and not isinstance(delta, bool) and 0 < delta < np.inf):
        raise InvalidParameterError(f"SSSP delta must be a positive finite number, got {delta!r}")
    backend = graph.backend
    xp = backend.xp
    start = time.perf_counter()
    with backend.activate():
        check_weights(graph)
        unit_weights = graph.weights is None
        # Kernels read no weights when unit_weights is set; they still need an array argument.
        weights = xp.ones(1) if unit_weights else graph.weights
        distance = xp.full(n, np.inf, dtype=np.float64)
        predecessor = xp.full(n, -1, dtype=np.int64)
        if backend.is_cuda:
            delta = _default_delta(graph) if delta is None else float(delta)
            rounds, edges = _near_far(graph, int(source), weights, unit_weights, delta, distance)
            _tree(graph, int(source), weights, unit_weights, distance, predecessor)
        else:
            from gpugraph.algorithms import _sssp_cpu

            rounds, edges = run_cpu_kernel(
                _sssp_cpu.dijkstra, graph.indptr, graph.indices, weights, unit_weights, np.int64(source),
                distance, predecessor,
            )
    backend.synchronize()
    return Result(
        "sssp",
        graph,
        {"distance": distance, "predecessor": predecessor},
        {"rounds": int(rounds), "edges_traversed": int(edges), "seconds": time.perf_counter() - start},
        {"source": int(source), "delta": delta},
    )


def check_weights(graph, algorithm: str = "SSSP") -> None:
    """Raise :class:`InvalidWeightError` naming an arc whose weight is negative or NaN.

    Parameters
    ----------
    graph:
        The graph.
    algorithm:
        The name the message gives to what needs the weights non-negative.

    Raises
    ------
    InvalidWeightError
        With the first such arc (original ids) and how many more there are.
    """
    if graph.weights is None or graph.weights.size == 0:
        return
    # One reduction clears the usual case: the minimum is NaN if any weight is, and NaN fails >= 0.
    if graph.weights.min() >= 0:
        return
    bad = graph.backend.xp.flatnonzero(~(graph.weights >= 0))
    if bad.size:
        arc = int(bad[0])
        tail = int(np.searchsorted(to_numpy(graph.indptr), arc, side="right")) - 1
        head = int(graph.indices[arc])
        original = graph.to_original(np.array([tail, head]))
        raise InvalidWeightError(
            f"{algorithm} needs non-negative weights; arc {original[0]} -> {original[1]} (original ids) has "
            f"weight {graph.weights[arc].item()}, and {bad.size - 1} more arcs are negative or NaN"
        )


def _default_delta(graph) -> float:
    """``config.SSSP_DELTA_FACTOR * mean weight / mean out-degree`` (1.0 when that is not positive)."""
    arcs = graph.num_arcs
    if arcs == 0:
        return 1.0
    mean_weight = 1.0 if graph.weights is None else float(graph.weights.mean(dtype=np.float64))
    delta = config.SSSP_DELTA_FACTOR * mean_weight * graph.num_vertices / arcs
    return delta if 0 < delta < np.inf else 1.0


def _near_far(graph, source: int, weights, unit_weights: bool, delta: float, distance) -> tuple[int, int]:
    """Near-far relaxation to convergence in one persistent kernel on a CUDA backend; returns
    ``(rounds, arcs relaxed)``."""
    from gpugraph.algorithms import _sssp_cuda

    backend = graph.backend
    xp = backend.xp
    n, chunk = graph.num_vertices, config.SSSP_CHUNK_ARCS
    indptr = graph.indptr
    distance[source] = 0.0
    near_distance = xp.full(n, np.inf, dtype=np.float64)
    near_distance[source] = 0.0
    near_mark = xp.zeros(n, dtype=np.int32)
    near_mark[source] = 1
    far_mark = xp.zeros(n, dtype=np.int32)
    # A round queues each vertex at most once, as ceil(out-degree / chunk) items.
    capacity = n + graph.num_arcs // chunk + 1
    near_a = xp.empty(capacity, dtype=np.int64)
    near_b = xp.empty(capacity, dtype=np.int64)
    far_a = xp.empty(n, dtype=graph.indices.dtype)
    far_b = xp.empty(n, dtype=graph.indices.dtype)
    items = -(-int(indptr[source + 1] - indptr[source]) // chunk)
    near_a[:items] = (xp.arange(items, dtype=np.int64) << _sssp_cuda.VERTEX_BITS) | source
    control = xp.zeros(_sssp_cuda.RESULT + 3, dtype=np.int64)
    lowest = xp.full(_sssp_cuda.RING, np.inf, dtype=np.float64)
    barrier = xp.zeros(1, dtype=np.int64)
    args = (indptr, graph.indices, weights, unit_weights, distance, near_distance, near_mark, far_mark, near_a,
            near_b, far_a, far_b, np.int64(items), np.float64(delta), np.int64(chunk), control, lowest,
            barrier)
    threads = backend.threads_per_block()
    blocks = min(resident_blocks(_sssp_cuda.near_far, backend, threads, *args),
                 max(1, backend.multiprocessors() * config.SSSP_PERSISTENT_BLOCKS_PER_SM))
    launch_cuda_grid(_sssp_cuda.near_far, backend, blocks, threads, *args)
    rounds, _, edges = (int(value) for value in to_numpy(control[_sssp_cuda.RESULT:]))
    return rounds, edges


def _tree(graph, source: int, weights, unit_weights: bool, distance, predecessor) -> None:
    """Predecessors from converged distances (see the module docstring), on a CUDA backend:
    edge-balanced passes over the out-arcs until every reached vertex has one."""
    from gpugraph.algorithms import _sssp_cuda

    xp = graph.backend.xp
    predecessor[source] = source
    per_thread = config.SSSP_TREE_ARCS_PER_THREAD
    threads = -(-graph.num_arcs // (32 * per_thread)) * 32
    changed = xp.zeros(1, dtype=np.int64)
    reached = xp.isfinite(distance)
    while True:
        changed[0] = 0
        launch_cuda_kernel(
            _sssp_cuda.tight_arcs, graph.backend, threads, graph.indptr, graph.indices, weights, unit_weights,
            distance, predecessor.copy(), predecessor, changed, np.int64(per_thread),
        )
        if not int(changed[0]) or not bool(xp.any(reached & (predecessor < 0))):
            break


def verify(graph, result: Result) -> None:
    """Check an SSSP result against SciPy's Dijkstra and the shortest-path-tree rules.

    Rules: the distances equal :func:`gpugraph.algorithms.reference.shortest_paths` (relative
    tolerance 1e-12, for sums taken in another order); ``predecessor[source] == source``;
    unreachable vertices have predecessor -1; every other vertex ``v`` has an arc
    ``predecessor[v] -> v`` of weight ``w`` with ``distance[predecessor[v]] + w == distance[v]``;
    following predecessors from any reached vertex ends at the source (no cycles).

    Parameters
    ----------
    graph:
        The graph the result was computed on.
    result:
        The :func:`run` result.

    Raises
    ------
    AssertionError
        Describing the first rule broken (a test oracle, not input validation).
    """
    source = result.parameters["source"]
    distance = result.to_numpy("distance")
    predecessor = result.to_numpy("predecessor")
    n = graph.num_vertices
    reference = shortest_paths(graph, source)
    reached = np.isfinite(reference)
    assert np.array_equal(np.isfinite(distance), reached), (
        f"vertices {np.flatnonzero(np.isfinite(distance) != reached)[:5].tolist()} are reached in "
        "one of the result and the reference only"
    )
    # Zero-weight arcs weigh the smallest double in the reference: allow that much absolutely.
    wrong = np.flatnonzero(~np.isclose(distance[reached], reference[reached], rtol=1e-12, atol=1e-300))
    assert wrong.size == 0, (
        f"distance of vertices {np.flatnonzero(reached)[wrong[:5]].tolist()} is "
        f"{distance[reached][wrong[:5]].tolist()}, the reference says {reference[reached][wrong[:5]].tolist()}"
    )
    assert predecessor[source] == source, f"predecessor of the source is {predecessor[source]}, not itself"
    assert np.all(predecessor[~reached] == -1), "unreachable vertices must have predecessor -1"
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(to_numpy(graph.indptr)))
    heads = to_numpy(graph.indices).astype(np.int64)
    weights = np.ones(heads.size) if graph.weights is None else to_numpy(graph.weights).astype(np.float64)
    tight = np.isclose(distance[tails] + weights, distance[heads], rtol=1e-12, atol=0) & np.isfinite(distance[heads])
    others = np.flatnonzero(reached)
    others = others[others != source]
    tree_keys = predecessor[others] * n + others
    missing = others[~np.isin(tree_keys, tails[tight] * n + heads[tight])]
    assert missing.size == 0, (
        f"no tight arc {predecessor[missing[:1]].tolist()} -> {missing[:1].tolist()} "
        "(distance[u] + w == distance[v]) is in the graph"
    )
    ancestor = np.where(reached, predecessor, source)
    for _ in range(max(1, int(n).bit_length())):
        ancestor = ancestor[ancestor]
    cyclic = np.flatnonzero(ancestor != source)
    assert cyclic.size == 0, f"predecessors of vertices {cyclic[:5].tolist()} do not lead to the source"
