"""Maximal bipartite matching by randomised handshakes, as in Medusa's evaluation.

Returns
-------
``match``  int64 per vertex: its partner's internal id, -1 if unmatched.

Algorithm
---------
Each iteration is three message exchanges of an EMV program (Medusa, Zhong & He, TPDS 2014;
the handshake of Auer & Bisseling's GPU matching): every unmatched left vertex *proposes* to
all its unmatched right neighbours; each right vertex *picks* the proposer of smallest random
priority (a hash of ``seed`` and the proposer); each left vertex *accepts* the smallest-priority
right vertex that picked it, and both are matched. Every iteration matches at least one pair
while an edge joins two unmatched vertices, so the result is maximal (not maximum).

The graph must be undirected and bipartite; ``side`` gives the two sides (0 = left,
1 = right), or is found by 2-colouring each connected component.
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph.algorithms.result import Result
from gpugraph.backend import to_numpy
from gpugraph.errors import EmptyGraphError, InvalidParameterError
from gpugraph.model import emv

NONE = np.iinfo(np.int64).max  # "no message": the min-combiner's identity
_ID_BITS = 32                  # a message is (priority << 32) | vertex id


def _keys(n: int, seed: int) -> np.ndarray:
    """Per vertex ``(priority << 32) | id``: a 31-bit SplitMix64 hash of seed and id on top, so
    the min-combiner picks the proposer of smallest random priority and keeps its id."""
    with np.errstate(over="ignore"):
        z = np.arange(n, dtype=np.uint64) + np.uint64(seed % 2**64) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return ((z >> np.uint64(33)).astype(np.int64) << _ID_BITS) | np.arange(n, dtype=np.int64)


def _propose(src, dst, side, match, key):
    if side[src] == 0 and match[src] < 0 and side[dst] == 1 and match[dst] < 0:
        return key[src]
    return NONE


def _pick(v, candidate, side, match, picked):
    picked[v] = (candidate & np.int64(0xFFFFFFFF)) if side[v] == 1 and match[v] < 0 and candidate != NONE else -1


def _accept(src, dst, picked, key):
    return key[src] if picked[src] == dst else NONE


def _settle_left(v, candidate, side, match):
    if side[v] == 0 and candidate != NONE:
        match[v] = candidate & np.int64(0xFFFFFFFF)
        return True
    return False


def _confirm(src, dst, side, match):
    return np.int64(src) if side[src] == 0 and match[src] == dst else NONE


def _settle_right(v, candidate, side, match):
    if side[v] == 1 and candidate != NONE and match[v] < 0:
        match[v] = candidate
        return True
    return False


def _program():
    exchange = emv.Combiner("min")
    return emv.Program(
        [emv.EDGE(_propose), exchange, emv.VERTEX(_pick), emv.EDGE(_accept), exchange, emv.VERTEX(_settle_left),
         emv.EDGE(_confirm), exchange, emv.VERTEX(_settle_right)],
        vertex={"side": np.int8, "match": (np.int64, -1), "picked": (np.int64, -1), "key": np.int64},
        message={"candidate": np.int64}, name="matching",
    )


def run(graph, side=None, seed: int = 0) -> Result:
    """A maximal matching of the undirected bipartite ``graph``.

    Parameters
    ----------
    graph:
        Undirected bipartite graph (fewer than 2^31 vertices).
    side:
        0 (left) or 1 (right) per vertex (internal order); ``None`` 2-colours the graph.
    seed:
        Seed of the proposal priorities.

    Returns
    -------
    Result
        ``values["match"]``; ``stats``: ``rounds``, ``matched`` (pairs), ``seconds`` and the
        engine's counters.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    InvalidParameterError
        If the graph is directed, not bipartite, has 2^32 vertices or more, or ``side`` is
        malformed.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("matching needs at least one vertex; the graph is empty")
    if graph.directed:
        raise InvalidParameterError("matching needs an undirected graph (load it with directed=False)")
    side = _two_colouring(graph) if side is None else _checked_side(graph, side)
    start = time.perf_counter()
    if n >= 2**_ID_BITS:
        raise InvalidParameterError(f"matching handles fewer than 2^{_ID_BITS} vertices, the graph has {n}")
    result = _program().run(graph, init={"side": side, "key": _keys(n, int(seed))}, max_iterations=n + 1)
    matched = int((result.to_numpy("match") >= 0).sum()) // 2
    stats = {**result.stats, "matched": matched, "seconds": time.perf_counter() - start}
    return Result("matching", graph, {"match": result.values["match"]}, stats, {"seed": int(seed), "side": side})


def _checked_side(graph, side) -> np.ndarray:
    side = np.asarray(to_numpy(side)).reshape(-1)
    if side.size != graph.num_vertices or not np.isin(side, (0, 1)).all():
        raise InvalidParameterError(f"side needs {graph.num_vertices} values, each 0 or 1")
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    rows = np.repeat(np.arange(graph.num_vertices), np.diff(indptr))
    if np.any(side[rows] == side[indices]):
        raise InvalidParameterError("side puts both ends of an edge on the same side: the graph is not bipartite that way")
    return side.astype(np.int8)


def _two_colouring(graph) -> np.ndarray:
    """Depth parity of a BFS forest; raises if an edge joins two vertices of the same parity."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    n = graph.num_vertices
    matrix = sp.csr_matrix((np.ones(indices.size, dtype=np.int8), indices, indptr), shape=(n, n))
    _, component = connected_components(matrix, directed=False)
    side = np.full(n, -1, dtype=np.int8)
    for root in np.unique(component, return_index=True)[1]:
        order, predecessors = breadth_first_order(matrix, int(root), directed=False)
        side[root] = 0
        for vertex in order[1:]:
            side[vertex] = 1 - side[predecessors[vertex]]
    try:
        return _checked_side(graph, side)
    except InvalidParameterError:
        raise InvalidParameterError("the graph is not bipartite (it has an odd cycle)") from None


def verify(graph, result: Result) -> None:
    """Check that ``match`` is a matching along edges between the sides, and maximal.

    Raises
    ------
    AssertionError
        Naming the rule broken.
    """
    check_matching(graph, np.asarray(result.parameters["side"]), result.to_numpy("match"))


def check_matching(graph, side: np.ndarray, match: np.ndarray) -> None:
    """The rules of :func:`verify` for any ``match`` array (partner's internal id or -1).

    Raises
    ------
    AssertionError
        Naming the rule broken.
    """
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    rows = np.repeat(np.arange(graph.num_vertices), np.diff(indptr))
    matched = np.flatnonzero(match >= 0)
    assert np.all(match[match[matched]] == matched), "matching is not symmetric"
    assert np.all(side[matched] != side[match[matched]]), "a pair is on one side"
    edges = set(zip(rows.tolist(), indices.tolist()))
    assert all((v, int(match[v])) in edges for v in matched), "a matched pair is not an edge"
    free = match < 0
    assert not np.any(free[rows] & free[indices]), "not maximal: an edge joins two unmatched vertices"
