"""Local clustering coefficient (LCC), with LDBC Graphalytics' meaning.

Returns
-------
``lcc``  float64 per vertex in ``[0, 1]``; 0.0 for a vertex with fewer than two neighbours.

Semantics
---------
LDBC Graphalytics benchmark specification (Iosup et al., PVLDB 9(13), 2016; spec v1.0, section
"Local Clustering Coefficient"): the neighbourhood of ``v`` is the *set*
``N(v) = {u != v : u -> v or v -> u}`` (in- and out-neighbours; self-loops and parallel arcs
add nothing), ``d = |N(v)|``, and

    lcc(v) = |{(u, w) arcs of the graph : u, w in N(v), u != w}| / (d (d - 1))

Directed graphs count the arcs ``u -> w`` and ``w -> u`` separately. An undirected graph stores
both directions of each edge, so the same formula counts every edge among the neighbours twice:
``lcc(v) = edges / (d (d - 1) / 2)``, which is NetworkX's ``nx.clustering`` on the simple graph.

Algorithm
---------
Every arc ``u -> w`` between two neighbours of ``v`` closes a triangle ``{v, u, w}`` of the
simple undirected graph, and the undirected edge ``{u, w}`` holds one or two such arcs. So the
numerator of ``v`` is the sum, over the triangles through ``v``, of the arc multiplicity (1 or 2)
of the edge opposite ``v``: the weighted form of degree-ordered triangle enumeration of
:mod:`gpugraph.algorithms.triangles` (same kernels, multiplicity as the weight).

Verification recounts the definition with Python sets (see :func:`verify`).
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph.algorithms.result import Result
from gpugraph.algorithms.triangles import simple_arcs, weighted_triangle_counts
from gpugraph.backend import to_numpy
from gpugraph.errors import EmptyGraphError


def run(graph) -> Result:
    """Compute the Graphalytics local clustering coefficient of every vertex.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph` (directed or undirected; weights are ignored).

    Returns
    -------
    Result
        ``values``: ``lcc`` (float64 per vertex); ``stats``: ``oriented_arcs``, ``rounds`` (1),
        ``seconds``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("LCC needs at least one vertex; the graph is empty")
    backend = graph.backend
    xp = backend.xp
    start = time.perf_counter()
    with backend.activate():
        keys, multiplicity = simple_arcs(graph, symmetric=True)
        closing_arcs, oriented_arcs = weighted_triangle_counts(graph, keys, multiplicity)
        degree = xp.bincount(keys // n, minlength=n)
        ordered_pairs = degree * (degree - 1)
        lcc = closing_arcs / xp.maximum(ordered_pairs, 1)
    backend.synchronize()
    seconds = time.perf_counter() - start
    return Result(
        "lcc", graph, {"lcc": lcc}, {"oriented_arcs": oriented_arcs, "rounds": 1, "seconds": seconds}, {}
    )


def verify(graph, result: Result, rtol: float = 1e-12) -> None:
    """Recount the Graphalytics definition with Python sets and compare.

    Parameters
    ----------
    graph:
        The graph the result was computed on.
    result:
        The :func:`run` result.
    rtol:
        Relative tolerance of the comparison.

    Raises
    ------
    AssertionError
        Naming the first vertices whose coefficients differ (a test oracle, not input
        validation).
    """
    n = graph.num_vertices
    src, dst, _ = graph.edges()
    arcs = {(u, w) for u, w in zip(to_numpy(src).tolist(), to_numpy(dst).tolist()) if u != w}
    neighbours = [set() for _ in range(n)]
    successors = [set() for _ in range(n)]
    for u, w in arcs:
        neighbours[u].add(w)
        neighbours[w].add(u)
        successors[u].add(w)
    expected = np.zeros(n)
    for v in range(n):
        degree = len(neighbours[v])
        if degree >= 2:
            closing = sum(len(successors[u] & neighbours[v]) for u in neighbours[v])
            expected[v] = closing / (degree * (degree - 1))
    lcc = to_numpy(result["lcc"])
    differ = np.flatnonzero(~np.isclose(lcc, expected, rtol=rtol, atol=0.0))
    assert differ.size == 0, (
        f"lcc of vertices {differ[:5].tolist()} is {lcc[differ[:5]].tolist()}, "
        f"the definition gives {expected[differ[:5]].tolist()}"
    )
