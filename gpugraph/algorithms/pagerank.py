"""PageRank (Brin & Page 1998), with NetworkX's and LDBC Graphalytics' meanings.

Returns
-------
``rank``  float64 per vertex, summing to 1.

Semantics
---------
``x' = damping * (A x + dangling(x) * p) + (1 - damping) * p`` where ``A[v, u] = (arcs u -> v) /
out_degree(u)`` (parallel arcs count), ``dangling(x)`` is the rank held by vertices without
out-edges, and ``p`` the teleport distribution: uniform, or the normalised ``personalization``
(NetworkX ``pagerank(G, alpha, personalization)`` with ``dangling=None``, on the multigraph of the
arcs). The iteration starts from the uniform vector. ``weighted=True`` is NetworkX's ``weight=``:
``A[v, u] = w(u -> v) / (sum of u's out-weights)``, dangling when that sum is 0.

* ``iterations=None`` (NetworkX): iterate until the L1 change is below ``n * tol``, at most
  ``max_iterations`` times; ``stats["converged"]`` says whether it got there (NetworkX raises
  instead; a partial result with a flag is more useful on big graphs).
* ``iterations=k`` (LDBC Graphalytics PageRank, parameter ``num-iterations``): exactly ``k``
  iterations, uniform teleport, dangling rank spread uniformly — the same formula.

Variants
--------
``"pull"`` (default): each iteration gathers ``rank[u] / out_degree(u)`` over every vertex's
in-edges (no atomics): on the GPU with :func:`gpugraph.ops.pull` (load balanced by in-degree)
and a fused update kernel, on the CPU all iterations in one compiled call
(:mod:`gpugraph.algorithms._pagerank_cpu`).
``"push"``: residual push (PageRank-Delta, McSherry 2005; Ligra's variant): after one full
iteration, only vertices whose pending change exceeds ``tol`` push it along their out-edges
(messages at the reverse-edge index, summed per receiver); converges to the same fixed point
with the same L1 criterion, doing work where the ranks still move. Not available with
``iterations=`` (a fixed iteration count is a pull concept).

Verification compares with :func:`gpugraph.algorithms.reference.pagerank` (SciPy power iteration).
"""

from __future__ import annotations

import functools
import time

import numpy as np

from gpugraph.algorithms.result import Result
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import EmptyGraphError, InvalidParameterError, InvalidWeightError, VertexIdError
from gpugraph.ops import Frontier, advance, pull, segmented_reduce

VARIANTS = ("pull", "push")


def _share(src, share):
    return share[src]


def _weighted_share(src, weight, share):
    return share[src] * weight


def _send(src, pending, inverse_degree):
    return pending[src] * inverse_degree[src]


def run(
    graph,
    damping: float = 0.85,
    tol: float = 1e-6,
    max_iterations: int = 100,
    *,
    iterations: int | None = None,
    personalization=None,
    variant: str = "pull",
    weighted: bool = False,
) -> Result:
    """PageRank of every vertex on the graph's device.

    Parameters
    ----------
    graph:
        The graph (undirected graphs: both directions of every edge).
    damping:
        Probability of following a link, in ``[0, 1)`` (NetworkX ``alpha``; LDBC ``damping-factor``).
    tol:
        Convergence tolerance: stop when the L1 change is below ``n * tol``.
    max_iterations:
        Iteration limit in convergence mode.
    iterations:
        Run exactly this many iterations (LDBC ``num-iterations``) instead of converging.
    personalization:
        Teleport weights: an array of ``n`` non-negative values (internal order) or a dict
        ``{original id: weight}`` (missing vertices weigh 0); normalised to sum 1.
    variant:
        ``"pull"`` or ``"push"`` (module docstring).
    weighted:
        Follow arcs in proportion to their weights (NetworkX's ``weight=``): ``A[v, u] = w(u -> v)
        / (sum of u's out-weights)``; vertices whose out-weights sum to 0 are dangling. Needs the
        pull variant and a weighted graph.

    Returns
    -------
    Result
        ``values["rank"]``; ``stats``: ``rounds``, ``converged``, ``error`` (the last L1
        change; for push, the change still unpropagated), ``edges_traversed``, ``seconds``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    InvalidParameterError
        For a damping outside ``[0, 1)``, a non-positive tolerance or iteration count, an
        unknown variant, ``variant="push"`` with ``iterations``, or personalization weights that
        are negative, NaN or all zero; ``weighted=True`` on an unweighted graph or with ``"push"``.
    InvalidWeightError
        If ``weighted=True`` and an arc weight is negative or NaN.
    VertexIdError
        If a personalization key is not a vertex.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("PageRank needs at least one vertex; the graph is empty")
    if not 0.0 <= float(damping) < 1.0:
        raise InvalidParameterError(f"damping must be in [0, 1), got {damping}")
    if variant not in VARIANTS:
        raise InvalidParameterError(f"unknown PageRank variant {variant!r}; use 'pull' or 'push'")
    if iterations is not None and (int(iterations) < 0 or variant == "push"):
        raise InvalidParameterError("iterations must be >= 0 and needs the pull variant")
    if weighted and (graph.weights is None or variant != "pull"):
        raise InvalidParameterError("weighted PageRank needs a weighted graph and the pull variant")
    if weighted and not bool((graph.weights >= 0).all()):
        raise InvalidWeightError("weighted PageRank needs non-negative, non-NaN arc weights")
    if iterations is None and (float(tol) <= 0 or int(max_iterations) < 1):
        raise InvalidParameterError(f"tol must be > 0 and max_iterations >= 1, got {tol}, {max_iterations}")
    backend = graph.backend
    start = time.perf_counter()
    with backend.activate():
        limit = int(iterations) if iterations is not None else int(max_iterations)
        state = _State(graph, float(damping), _teleport(graph, personalization), weighted)
        if weighted:
            rank, rounds, error = state.pull_weighted(limit, None if iterations is not None else n * float(tol))
        elif variant == "pull":
            rank, rounds, error = state.pull(limit, None if iterations is not None else n * float(tol))
        else:
            rank, rounds, error = state.push(limit, float(tol))
        backend.synchronize()
    converged = iterations is not None or error < n * float(tol)
    stats = {
        "rounds": rounds, "converged": bool(converged), "error": float(error),
        "edges_traversed": state.edges, "seconds": time.perf_counter() - start,
    }
    parameters = {"damping": float(damping), "tol": float(tol), "max_iterations": int(max_iterations),
                  "iterations": iterations, "variant": variant, "weighted": bool(weighted),
                  "personalization": None if personalization is None else to_numpy(state.teleport)}
    return Result("pagerank", graph, {"rank": rank}, stats, parameters)


def _teleport(graph, personalization):
    """The teleport distribution ``p`` on the graph's device (uniform when not personalised)."""
    xp = graph.backend.xp
    n = graph.num_vertices
    if personalization is None:
        return xp.full(n, 1.0 / n)
    if isinstance(personalization, dict):
        weights = np.zeros(n)
        if personalization:
            keys = np.fromiter(personalization.keys(), dtype=np.int64, count=len(personalization))
            try:
                internal = graph.to_internal(keys)
            except VertexIdError as exc:
                raise VertexIdError(f"personalization: {exc}") from exc
            weights[internal] = np.fromiter(personalization.values(), dtype=np.float64, count=len(personalization))
    else:
        weights = np.asarray(to_numpy(personalization), dtype=np.float64).reshape(-1)
        if weights.size != n:
            raise InvalidParameterError(f"personalization has {weights.size} weights, the graph has {n} vertices")
    if not np.all(weights >= 0) or weights.sum() <= 0:
        raise InvalidParameterError("personalization weights must be non-negative, not NaN, and not all zero")
    return graph.backend.asarray(weights / weights.sum())


class _State:
    """Arrays shared by the iterations of one run; the degree arrays are built on first use
    (the CPU pull kernel derives them from the row offsets itself)."""

    def __init__(self, graph, damping, teleport, weighted=False):
        self.graph, self.damping, self.teleport, self.weighted = graph, damping, teleport, weighted
        self.edges = 0

    @functools.cached_property
    def out_strength(self):
        """Out-degree per vertex (float64), or the sum of out-weights when weighted."""
        graph = self.graph
        if not self.weighted:
            return graph.out_degree().astype(np.float64)
        return segmented_reduce(graph.weights.astype(np.float64), graph.indptr, "sum", device=graph.backend)

    @functools.cached_property
    def inverse_degree(self):
        """``1 / out-strength`` per vertex, 0 for dangling vertices."""
        xp = self.graph.backend.xp
        return xp.where(self.out_strength > 0, 1.0 / xp.maximum(self.out_strength, 1e-300), 0.0)

    @functools.cached_property
    def dangling(self):
        """1.0 for vertices without out-arcs (or out-weight), else 0.0."""
        return (self.out_strength == 0).astype(np.float64)

    def step(self, rank, gathered):
        """One power iteration from ``rank``: returns the new ranks."""
        xp = self.graph.backend.xp
        share = rank * self.inverse_degree
        counters = {}
        gathered = pull(self.graph, Frontier.all(self.graph), _weighted_share if self.weighted else _share,
                        bindings={"share": share}, out=gathered, counters=counters)
        self.edges += counters["edges_traversed"]
        dangling_rank = xp.dot(rank, self.dangling)
        return self.damping * (gathered + dangling_rank * self.teleport) + (1 - self.damping) * self.teleport, gathered

    def pull_weighted(self, limit: int, threshold: float | None):
        """Weighted power iteration: one :meth:`step` per iteration (``threshold``: stop when
        the L1 change falls below it; ``None``: run ``limit`` iterations)."""
        xp = self.graph.backend.xp
        rank = xp.full(self.graph.num_vertices, 1.0 / self.graph.num_vertices)
        gathered, error, rounds = None, 0.0, 0
        for rounds in range(1, limit + 1):
            new_rank, gathered = self.step(rank, gathered)
            error = float(xp.abs(new_rank - rank).sum())
            rank = new_rank
            if threshold is not None and error < threshold:
                break
        return rank, rounds, error

    def pull(self, limit: int, threshold: float | None):
        if self.graph.backend.is_cuda:
            return self.pull_cuda(limit, threshold)
        from gpugraph.algorithms._pagerank_cpu import pull_iterations

        graph = self.graph
        rank, rounds, error = run_cpu_kernel(
            pull_iterations, graph.indptr, graph.in_indptr, graph.in_indices, self.teleport, self.damping, limit,
            -1.0 if threshold is None else threshold)
        self.edges += rounds * graph.num_arcs
        return rank, int(rounds), float(error)

    def pull_cuda(self, limit: int, threshold: float | None):
        """The pull iteration on the GPU: one reduction and one fused update kernel per
        iteration (see ``_pagerank_cuda``); the change is read back only when converging."""
        from gpugraph.algorithms._pagerank_cuda import update

        graph = self.graph
        backend = graph.backend
        xp = backend.xp
        n = graph.num_vertices
        rank = xp.full(n, 1.0 / n)
        new_rank = xp.empty(n)
        share = rank * self.inverse_degree
        gathered = xp.zeros(n)
        sums = xp.zeros((2, 2))
        sums[0, 1] = xp.dot(rank, self.dangling)  # the mass the first iteration teleports
        error, rounds = float("inf"), 0
        everything = Frontier.all(graph)
        for rounds in range(1, limit + 1):
            gathered = pull(graph, everything, _share, bindings={"share": share}, out=gathered)
            current, previous = sums[rounds % 2], sums[(rounds + 1) % 2]
            current.fill(0)
            launch_cuda_kernel(update, backend, n, gathered, rank, self.teleport, self.inverse_degree,
                               self.dangling, np.float64(self.damping), previous, new_rank, share, current)
            rank, new_rank = new_rank, rank
            self.edges += graph.num_arcs
            if threshold is not None:
                error = float(current[0])
                if error < threshold:
                    break
        if limit and threshold is None:
            error = float(sums[rounds % 2][0])
        return rank, (rounds if limit else 0), (error if limit else 0.0)

    def push(self, limit: int, tol: float):
        """Residual push: ranks ``x`` and pending changes ``r``; a vertex pushes when ``|r| > tol``."""
        graph = self.graph
        xp = graph.backend.xp
        start = xp.full(graph.num_vertices, 1.0 / graph.num_vertices)
        rank, _ = self.step(start, None)
        pending = rank - start
        buffer = xp.zeros(graph.num_arcs)
        incoming = xp.zeros(graph.num_vertices)
        rounds = 1
        while rounds < limit:
            active = Frontier.from_ids(graph, xp.flatnonzero(xp.abs(pending) > tol), check=False, deduplicate=False)
            if active.size == 0:
                break
            pushed = xp.zeros(graph.num_vertices)
            pushed[active.ids()] = pending[active.ids()]
            pending[active.ids()] = 0.0
            counters = {}
            receivers = advance(graph, active, _send, bindings={"pending": pushed, "inverse_degree": self.inverse_degree},
                                messages=(buffer,), output="sparse", counters=counters)
            self.edges += counters.get("edges_traversed", 0)
            change = self.damping * xp.dot(pushed, self.dangling) * self.teleport
            if receivers.size:
                ids = receivers.ids()
                segmented_reduce(buffer, graph.in_indptr, "sum", segments=ids, reset=True, out=incoming, device=graph.backend)
                change[ids] += self.damping * incoming[ids]
            rank += change
            pending += change
            rounds += 1
        # What is still pending bounds the distance to the fixed point, like the L1 change of
        # the pull iteration: every entry is at most tol once no vertex is active.
        return rank, rounds, float(xp.abs(pending).sum())


def verify(graph, result: Result) -> None:
    """Compare a PageRank result with the SciPy reference (NetworkX's meaning).

    In convergence mode the reference runs 1000x tighter, and the result must lie within the
    distance its own stopping rule guarantees: an L1 change below ``n * tol`` bounds the L1
    distance to the fixed point by ``damping / (1 - damping) * n * tol``. Fixed-iteration results
    must match the reference's same iterations to rounding.

    Raises
    ------
    AssertionError
        Naming the vertex with the largest difference.
    """
    from gpugraph.algorithms import reference

    parameters = result.parameters
    n = graph.num_vertices
    damping = parameters["damping"]
    fixed = parameters["iterations"] is not None
    expected = reference.pagerank(
        graph, damping, tol=0.0 if fixed else parameters["tol"] / 1000,
        max_iterations=parameters["iterations"] if fixed else 100_000,
        personalization=parameters["personalization"], weighted=parameters.get("weighted", False),
    )
    rank = result.to_numpy("rank")
    difference = np.abs(rank - expected)
    bound = 1e-9 if fixed else (damping / (1 - damping) + 1) * n * parameters["tol"]
    worst = int(np.argmax(difference))
    assert difference.sum() <= bound, (
        f"L1 distance {difference.sum():.3g} to the reference exceeds {bound:.3g}; vertex {worst}: "
        f"{rank[worst]} vs {expected[worst]}"
    )
    assert abs(rank.sum() - 1.0) <= max(bound, 1e-9), f"ranks sum to {rank.sum()}, not 1"
