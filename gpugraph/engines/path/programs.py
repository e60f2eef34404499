"""The four programs the path engine runs, in the form its rounds need.

Every program is one of three *kinds* of update along an arc ``u -> v`` carrying ``value``:

``SUM``   accumulative (PageRank, adsorption): ``x[v] += value * change of x[u] not yet sent``.
          The fixed point is ``x = base + A x`` with ``A[v, u] = value(u -> v)``; the engines
          start from ``x = base`` with nothing sent (Maiter's delta form).
``MIN``   monotone minimum (SSSP): ``x[v] = min(x[v], x[u] + value)`` when ``x[u]`` fell since
          the arc last carried it.
``PEEL``  k-core for a fixed ``k``: once ``u`` is deleted, the arc removes one from ``v``'s
          count of live neighbours; ``v`` is deleted when it drops below ``k``.

The answers are those of the library algorithms: PageRank normalises ``x`` (with uniform
teleport, the rank NetworkX computes, dangling rank included, is proportional to the solution of
``x = (1 - d) + d A x``), adsorption's scores are ``x``, SSSP's distances are ``x``, and k-core
reports membership of the ``k``-core of the simple undirected graph (as
:mod:`gpugraph.algorithms.kcore` defines it).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from gpugraph import config
from gpugraph.algorithms.kcore import simple_neighbour_lists
from gpugraph.algorithms.sssp import check_weights
from gpugraph.backend import to_numpy
from gpugraph.errors import EmptyGraphError, InvalidParameterError, VertexIdError

SUM, MIN, PEEL = 0, 1, 2
ALGORITHMS = ("pagerank", "adsorption", "sssp", "kcore")


@dataclass
class PathProgram:
    """One algorithm run's input to the engine (host arrays).

    Attributes
    ----------
    name, kind:
        Algorithm name and update kind (module docstring).
    indptr, indices:
        CSR of the graph the program runs on (k-core: the simple undirected graph).
    layout_key:
        Names that graph for the layout cache (``"arcs"`` or ``"simple-undirected"``).
    arc_values:
        float64 per CSR arc: coefficient (``SUM``) or weight (``MIN``); zeros for ``PEEL``.
    initial:
        float64 per vertex: the starting state (``base`` for ``SUM``; distances; deleted flags).
    changed:
        uint8 per vertex: vertices whose state must be propagated first.
    count:
        int64 per vertex, live-neighbour counts (``PEEL``), else a single zero.
    threshold:
        ``SUM``: changes up to this are not propagated; ``PEEL``: ``k``.
    finish:
        Maps the final state (host array) to the result's named arrays.
    parameters:
        What the run's Result records.
    symmetric:
        The graph has ``v -> u`` for each arc ``u -> v`` (an undirected graph; k-core's): its
        path layout has one layer (:func:`~gpugraph.engines.path.dependency.path_dependencies`).
    device_csr:
        ``(indptr, indices)`` on the graph's GPU when the program built its graph there (k-core's
        undirected graph), for the layout built on the device; ``None`` otherwise (a program on
        the graph's own arcs uses the graph's CSR).
    """

    name: str
    kind: int
    indptr: np.ndarray
    indices: np.ndarray
    layout_key: str
    arc_values: np.ndarray
    initial: np.ndarray
    changed: np.ndarray
    count: np.ndarray
    threshold: float
    finish: Callable
    parameters: dict = field(default_factory=dict)
    symmetric: bool = False
    device_csr: tuple | None = None

    @property
    def sorts_hubs(self) -> bool:
        """Whether the device layout sorts its hubs' rows for this program: a hub's one-arc paths
        in visiting order serve the priority order of accumulative and minimum programs' large
        rounds (PageRank on RMAT-20: 1.3 s sorted, 1.6-2.5 s not); peeling does not use it
        (k-core on cnr-2000 and RMAT-20 either way), so its layout skips the sort."""
        return self.kind != PEEL


def make_program(graph, algorithm: str, **parameters) -> PathProgram:
    """The :class:`PathProgram` of ``algorithm`` on ``graph`` with its parameters.

    Parameters
    ----------
    graph:
        The graph.
    algorithm:
        ``"pagerank"`` (``damping=0.85``, ``tol``), ``"adsorption"`` (``injection``,
        ``p_inject=0.25``, ``p_continue=0.5``, ``tol``), ``"sssp"`` (``source=0``) or
        ``"kcore"`` (``k``, required). ``tol`` (default
        :data:`gpugraph.config.PATH_TOLERANCE`) is relative to the program's base value.

    Returns
    -------
    PathProgram

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    InvalidParameterError
        For an unknown algorithm or parameter, or a value out of range.
    InvalidWeightError
        For negative or NaN weights (SSSP, adsorption).
    VertexIdError
        For an SSSP source that is not a vertex.
    """
    if algorithm not in ALGORITHMS:
        raise InvalidParameterError(f"the path engine runs {', '.join(ALGORITHMS)}; got {algorithm!r}")
    if graph.num_vertices == 0:
        raise EmptyGraphError(f"{algorithm} needs at least one vertex; the graph is empty")
    builder = {"pagerank": _pagerank, "adsorption": _adsorption, "sssp": _sssp, "kcore": _kcore}[algorithm]
    accepted = list(inspect.signature(builder).parameters)[1:]
    unknown = sorted(set(parameters) - set(accepted))
    if unknown:
        raise InvalidParameterError(
            f"{algorithm} on the path engine takes {', '.join(accepted)}; not {', '.join(unknown)}")
    return builder(graph, **parameters)


def accumulative(graph, arc_values, base, tol: float = config.PATH_TOLERANCE) -> PathProgram:
    """A user's accumulative program for the path engine: the fixed point of
    ``x[v] = base[v] + sum over arcs u -> v of arc_values[arc] * x[u]``.

    PageRank and adsorption are of this form; so are Katz centrality and personalised
    PageRank. The engine propagates changes along arcs, which converges when every vertex
    passes on less than it receives: the absolute ``arc_values`` out of each vertex must sum
    to less than 1.

    Parameters
    ----------
    graph:
        The graph.
    arc_values:
        One float per arc, in the graph's CSR order (``graph.indptr`` / ``graph.indices``).
    base:
        One float per vertex (internal ids).
    tol:
        Changes up to ``tol * max(|base|)`` are not propagated.

    Returns
    -------
    PathProgram
        Run it with ``solve(graph, program)``; the result's array is ``"value"``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    InvalidParameterError
        For arrays of the wrong length, non-finite values, out-sums of ``|arc_values|`` of 1
        or more, or a tolerance outside ``(0, 1)``.
    """
    values, start = _user_arrays(graph, arc_values, base, "accumulative program")
    if not (np.all(np.isfinite(values)) and np.all(np.isfinite(start))):
        raise InvalidParameterError("an accumulative program needs finite arc values and base values")
    indptr, indices = _csr(graph)
    tails = np.repeat(np.arange(graph.num_vertices), np.diff(indptr))
    out_sum = np.bincount(tails, weights=np.abs(values), minlength=graph.num_vertices)
    if out_sum.max() >= 1.0:
        vertex = int(np.argmax(out_sum))
        raise InvalidParameterError(
            f"the arc values out of vertex {graph.to_original(np.array([vertex]))[0]} (original id) sum to "
            f"{out_sum[vertex]:.6g} in absolute value; the path engine converges only below 1")
    scale = max(float(np.abs(start).max()), np.finfo(float).tiny)
    return PathProgram(
        "accumulative", SUM, indptr, indices, "arcs", symmetric=not graph.directed, arc_values=values, initial=start,
        changed=(start != 0).astype(np.uint8), count=np.zeros(1, dtype=np.int64),
        threshold=_check_tolerance(tol) * scale, finish=lambda x: {"value": x}, parameters={"tol": float(tol)},
    )


def minimum(graph, arc_values, initial) -> PathProgram:
    """A user's monotone minimum program for the path engine: the largest fixed point below
    ``initial`` of ``x[v] = min(initial[v], min over arcs u -> v of x[u] + arc_values[arc])``.

    SSSP is of this form (``initial`` 0 at the source, ``inf`` elsewhere); so are multi-source
    shortest paths and the distance to the nearest of several facilities.

    Parameters
    ----------
    graph:
        The graph.
    arc_values:
        One non-negative float per arc, in the graph's CSR order.
    initial:
        One non-negative float (or ``inf``) per vertex.

    Returns
    -------
    PathProgram
        Run it with ``solve(graph, program)``; the result's array is ``"value"``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    InvalidParameterError
        For arrays of the wrong length, or negative or NaN values.
    """
    values, start = _user_arrays(graph, arc_values, initial, "minimum program")
    if not (np.all(values >= 0) and np.all(start >= 0)):
        raise InvalidParameterError("a minimum program needs non-negative arc values and initial values (no NaN)")
    indptr, indices = _csr(graph)
    return PathProgram(
        "minimum", MIN, indptr, indices, "arcs", symmetric=not graph.directed, arc_values=values, initial=start,
        changed=np.isfinite(start).astype(np.uint8), count=np.zeros(1, dtype=np.int64), threshold=0.0,
        finish=lambda x: {"value": x},
    )


def _user_arrays(graph, arc_values, vertex_values, what: str):
    if graph.num_vertices == 0:
        raise EmptyGraphError(f"a {what} needs at least one vertex; the graph is empty")
    values = np.asarray(to_numpy(arc_values), dtype=np.float64).reshape(-1)
    start = np.asarray(to_numpy(vertex_values), dtype=np.float64).reshape(-1)
    if values.size != graph.num_arcs or start.size != graph.num_vertices:
        raise InvalidParameterError(
            f"a {what} needs {graph.num_arcs} arc values and {graph.num_vertices} vertex values; "
            f"got {values.size} and {start.size}")
    return values, start.copy()


def _csr(graph):
    return to_numpy(graph.indptr).astype(np.int64), to_numpy(graph.indices)


def _weights(graph, algorithm: str) -> np.ndarray:
    check_weights(graph, algorithm)
    return np.ones(graph.num_arcs) if graph.weights is None else to_numpy(graph.weights).astype(np.float64)


def _check_tolerance(tol: float) -> float:
    if not 0 < float(tol) < 1:
        raise InvalidParameterError(f"tol must be in (0, 1), got {tol}")
    return float(tol)


def _pagerank(graph, damping: float = 0.85, tol: float = config.PATH_TOLERANCE) -> PathProgram:
    if not 0.0 <= float(damping) < 1.0:
        raise InvalidParameterError(f"damping must be in [0, 1), got {damping}")
    indptr, indices = _csr(graph)
    n = graph.num_vertices
    out_degree = np.diff(indptr)
    tails = np.repeat(np.arange(n), out_degree)
    base = 1.0 - float(damping)
    return PathProgram(
        "pagerank", SUM, indptr, indices, "arcs", symmetric=not graph.directed,
        arc_values=float(damping) / out_degree[tails].astype(np.float64),
        initial=np.full(n, base), changed=np.ones(n, dtype=np.uint8), count=np.zeros(1, dtype=np.int64),
        threshold=_check_tolerance(tol) * base,
        finish=lambda x: {"rank": x / x.sum()},
        parameters={"damping": float(damping), "tol": float(tol)},
    )


def _adsorption(graph, injection=None, p_inject: float = 0.25, p_continue: float = 0.5,
                tol: float = config.PATH_TOLERANCE) -> PathProgram:
    if not (0 < p_inject <= 1 and 0 <= p_continue < 1 and p_inject + p_continue <= 1):
        raise InvalidParameterError(
            f"need 0 < p_inject, 0 <= p_continue < 1 and p_inject + p_continue <= 1; got {p_inject}, {p_continue}")
    n = graph.num_vertices
    seeds = np.ones(n) if injection is None else np.asarray(to_numpy(injection), dtype=np.float64).reshape(-1)
    if seeds.size != n or not np.all(seeds >= 0):
        raise InvalidParameterError(f"injection needs {n} non-negative values, got {seeds.size}")
    indptr, indices = _csr(graph)
    weights = _weights(graph, "adsorption")
    tails = np.repeat(np.arange(n), np.diff(indptr))
    out_weight = np.bincount(tails, weights=weights, minlength=n)
    safe = np.where(out_weight > 0, out_weight, 1.0)
    base = float(p_inject) * seeds
    return PathProgram(
        "adsorption", SUM, indptr, indices, "arcs", symmetric=not graph.directed,
        arc_values=float(p_continue) * weights / safe[tails],
        initial=base, changed=(base > 0).astype(np.uint8), count=np.zeros(1, dtype=np.int64),
        threshold=_check_tolerance(tol) * float(p_inject) * max(float(seeds.max()), np.finfo(float).tiny),
        finish=lambda x: {"score": x},
        parameters={"p_inject": float(p_inject), "p_continue": float(p_continue), "tol": float(tol)},
    )


def _sssp(graph, source: int = 0) -> PathProgram:
    n = graph.num_vertices
    if not 0 <= int(source) < n:
        raise VertexIdError(f"source {source} is not a vertex (internal ids are 0..{n - 1})")
    indptr, indices = _csr(graph)
    distance = np.full(n, np.inf)
    distance[int(source)] = 0.0
    changed = np.zeros(n, dtype=np.uint8)
    changed[int(source)] = 1
    return PathProgram(
        "sssp", MIN, indptr, indices, "arcs", symmetric=not graph.directed, arc_values=_weights(graph, "SSSP"),
        initial=distance, changed=changed, count=np.zeros(1, dtype=np.int64), threshold=0.0,
        finish=lambda x: {"distance": x}, parameters={"source": int(source)},
    )


def _kcore(graph, k: int | None = None) -> PathProgram:
    if k is None or int(k) < 1:
        raise InvalidParameterError(f"k-core on the path engine needs k >= 1, got {k}")
    offsets, neighbours = simple_neighbour_lists(graph)
    indptr, indices = to_numpy(offsets).astype(np.int64), to_numpy(neighbours)
    degree = np.diff(indptr)
    deleted = degree < int(k)
    return PathProgram(
        "kcore", PEEL, indptr, indices, "simple-undirected", symmetric=True, arc_values=np.zeros(indices.size),
        initial=deleted.astype(np.float64), changed=deleted.astype(np.uint8), count=degree.astype(np.int64),
        threshold=float(int(k)), finish=lambda x: {"in_core": x == 0}, parameters={"k": int(k)},
        device_csr=(offsets, neighbours) if graph.backend.is_cuda else None,
    )
