"""Adsorption: label propagation by random walks (Baluja et al., WWW 2008), as in DiGraph.

Returns
-------
``score``  float64 per vertex: how much of the injected label reaches it.

Semantics
---------
The scalar form iterative-graph systems use as a benchmark (Maiter, Zhang et al. TPDS 2014;
DiGraph, ASPLOS'19): every vertex ``v`` keeps injecting its label ``injection[v]`` with
probability ``p_inject``, continues the walk to its in-neighbours' scores with probability
``p_continue`` and abandons it otherwise (``1 - p_inject - p_continue``)::

    score[v] = p_inject * injection[v] + p_continue * sum_{u -> v} w(u, v) / W(u) * score[u]

where ``w(u, v)`` is the arc weight (1 on unweighted graphs) and ``W(u)`` the total weight out of
``u``. With ``p_continue < 1`` the iteration contracts; it starts from ``p_inject * injection``
and stops when the L1 change is below ``n * tol`` (at most ``max_iterations``). The
multi-label form of the paper (one distribution per vertex) is not implemented.

Verification iterates the same equation with SciPy sparse products until it stops changing.
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph.algorithms.result import Result
from gpugraph.backend import to_numpy
from gpugraph.errors import EmptyGraphError, InvalidParameterError, InvalidWeightError
from gpugraph.ops import Frontier, pull, segmented_reduce


def _carried(src, weight, share):
    return share[src] * weight


def run(graph, injection=None, p_inject: float = 0.25, p_continue: float = 0.5, tol: float = 1e-8,
        max_iterations: int = 1000) -> Result:
    """Adsorption scores of every vertex on the graph's device.

    Parameters
    ----------
    graph:
        The graph; weights (non-negative) scale the walk's transition probabilities.
    injection:
        Label injected at each vertex (``n`` non-negative values, internal order); default 1 for
        every vertex.
    p_inject, p_continue:
        Injection and continuation probabilities, each in ``[0, 1]``, summing to at most 1.
    tol:
        Stop when the L1 change is below ``n * tol``.
    max_iterations:
        Iteration limit.

    Returns
    -------
    Result
        ``values["score"]``; ``stats``: ``rounds``, ``converged``, ``error``,
        ``edges_traversed``, ``seconds``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    InvalidParameterError
        For probabilities out of range, a non-positive tolerance or iteration limit, or an
        injection of the wrong length or with negative or NaN values.
    InvalidWeightError
        If a weight is negative or NaN.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("adsorption needs at least one vertex; the graph is empty")
    if not (0 <= p_inject <= 1 and 0 <= p_continue < 1 and p_inject + p_continue <= 1):
        raise InvalidParameterError(
            f"need 0 <= p_inject, 0 <= p_continue < 1 and p_inject + p_continue <= 1; got {p_inject}, {p_continue}"
        )
    if tol <= 0 or max_iterations < 1:
        raise InvalidParameterError(f"tol must be > 0 and max_iterations >= 1, got {tol}, {max_iterations}")
    backend = graph.backend
    xp = backend.xp
    start = time.perf_counter()
    with backend.activate():
        seeds = _injection(graph, injection)
        weights = graph.weights.astype(np.float64) if graph.weights is not None else xp.ones(graph.num_arcs)
        if graph.weights is not None and not bool(xp.all(weights >= 0)):
            raise InvalidWeightError("adsorption needs non-negative weights; the graph has a negative or NaN weight")
        out_weight = segmented_reduce(weights, graph.indptr, "sum", device=backend)
        inverse = xp.where(out_weight > 0, 1.0 / xp.where(out_weight > 0, out_weight, 1.0), 0.0)
        base = p_inject * seeds
        score = base.copy()
        gathered = None
        counters = {}
        error, rounds = float("inf"), 0
        for rounds in range(1, int(max_iterations) + 1):
            share = score * inverse
            gathered = pull(graph, Frontier.all(graph), _carried, bindings={"share": share}, out=gathered, counters=counters)
            new = base + p_continue * gathered
            error = float(xp.abs(new - score).sum())
            score = new
            if error < n * tol:
                break
        backend.synchronize()
    stats = {"rounds": rounds, "converged": error < n * tol, "error": error,
             "edges_traversed": counters.get("edges_traversed", 0), "seconds": time.perf_counter() - start}
    parameters = {"p_inject": p_inject, "p_continue": p_continue, "tol": tol, "max_iterations": max_iterations,
                  "injection": to_numpy(seeds)}
    return Result("adsorption", graph, {"score": score}, stats, parameters)


def _injection(graph, injection):
    n = graph.num_vertices
    if injection is None:
        return graph.backend.xp.ones(n)
    values = np.asarray(to_numpy(injection), dtype=np.float64).reshape(-1)
    if values.size != n or not np.all(values >= 0):
        raise InvalidParameterError(f"injection needs {n} non-negative values, got {values.size}")
    return graph.backend.asarray(values)


def verify(graph, result: Result) -> None:
    """Check the scores against a SciPy iteration of the fixed-point equation run to rounding.

    ``score = p_inject * injection + p_continue * P^T score`` contracts by ``p_continue``, so the
    reference iterates until its change is below 1e-15 of its size.

    Raises
    ------
    AssertionError
        If the L1 distance exceeds what the result's stopping rule allows.
    """
    import scipy.sparse as sp

    parameters = result.parameters
    n = graph.num_vertices
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    weights = np.ones(indices.size) if graph.weights is None else to_numpy(graph.weights).astype(np.float64)
    rows = np.repeat(np.arange(n), np.diff(indptr))
    out_weight = np.bincount(rows, weights, minlength=n)
    probability = np.divide(weights, out_weight[rows], out=np.zeros_like(weights), where=out_weight[rows] > 0)
    transition = sp.csr_matrix((probability, (indices, rows)), shape=(n, n))  # [v, u] = P(u -> v)
    p = parameters["p_continue"]
    base = parameters["p_inject"] * parameters["injection"]
    expected = base.copy()
    for _ in range(100_000):
        previous = expected
        expected = base + p * (transition @ previous)
        if np.abs(expected - previous).sum() <= 1e-15 * max(1.0, np.abs(expected).sum()):
            break
    distance = np.abs(result.to_numpy("score") - expected).sum()
    bound = (p / (1 - p) + 1) * n * parameters["tol"] + 1e-9 * max(1.0, np.abs(expected).sum())
    assert distance <= bound, f"L1 distance {distance:.3g} to the exact scores exceeds {bound:.3g}"
