"""Top-level algorithm functions: ``gpugraph.bfs(G, source)``, ``gpugraph.pagerank(G)``, ...

They take vertex ids as the input file has them (original ids) and return a
:class:`~gpugraph.algorithms.result.Result`: arrays indexed like the graph (``result["rank"]``,
``result.to_numpy("rank")``), values keyed by original id (``result.by_original_id("rank")``)
and counters (``result.stats``: rounds, updates, seconds). Each runs on the graph's device.
"""

from __future__ import annotations

from gpugraph.algorithms.result import Result


def _internal(graph, vertex) -> int:
    return int(graph.to_internal([vertex])[0])


def bfs(graph, source, *, variant: str = "direction-optimizing") -> Result:
    """Breadth-first search from ``source`` (original id): ``depth`` and ``parent``.

    See :func:`gpugraph.algorithms.bfs.run` for the variants and encodings.

    Raises
    ------
    VertexIdError
        If ``source`` is not a vertex of the graph.
    EmptyGraphError
        If the graph has no vertices.
    """
    from gpugraph.algorithms import bfs as module

    return _with_original_ids(module.run(graph, _internal(graph, source), variant=variant), "parent")


def _with_original_ids(result: Result, name: str) -> Result:
    """Rewrite the vertex-valued array ``name`` (parents, partners, labels) in the input's ids."""
    result.values[name] = _vertex_ids_as_original(result.graph, result.values[name])
    return result


def _vertex_ids_as_original(graph, parent):
    """Vertex ids in the input's numbering (-1 stays -1)."""
    if graph.original_ids is None and graph.id_offset == 0:
        return parent
    from gpugraph.backend import to_numpy

    host = to_numpy(parent)
    mapped = host.copy()
    reached = host >= 0
    mapped[reached] = graph.to_original(host[reached])
    return graph.backend.asarray(mapped)


def pagerank(graph, damping: float = 0.85, tol: float = 1e-6, max_iterations: int = 100, *,
             iterations: int | None = None, personalization=None, variant: str = "pull") -> Result:
    """PageRank with NetworkX's meaning (or LDBC's with ``iterations=``): ``rank``.

    ``personalization`` may be a dict keyed by original ids. See
    :func:`gpugraph.algorithms.pagerank.run`.

    Raises
    ------
    InvalidParameterError
        For parameters out of range.
    EmptyGraphError
        If the graph has no vertices.
    """
    from gpugraph.algorithms import pagerank as module

    return module.run(graph, damping, tol, max_iterations, iterations=iterations,
                      personalization=personalization, variant=variant)


def adsorption(graph, injection=None, p_inject: float = 0.25, p_continue: float = 0.5, tol: float = 1e-8,
               max_iterations: int = 1000) -> Result:
    """Adsorption label propagation (DiGraph's benchmark form): ``score``.

    ``injection`` may be a dict ``{original id: label}``; see
    :func:`gpugraph.algorithms.adsorption.run`.

    Raises
    ------
    InvalidParameterError
        For probabilities out of range or a malformed injection.
    InvalidWeightError
        For negative or NaN weights.
    """
    from gpugraph.algorithms import adsorption as module

    return module.run(graph, _per_vertex(graph, injection), p_inject, p_continue, tol, max_iterations)


def matching(graph, side=None, seed: int = 0) -> Result:
    """Maximal bipartite matching: ``match`` holds each vertex's partner as an original id.

    ``side`` may be a dict ``{original id: 0 or 1}``; see :func:`gpugraph.algorithms.matching.run`.

    Raises
    ------
    InvalidParameterError
        If the graph is directed or not bipartite.
    """
    from gpugraph.algorithms import matching as module

    return _with_original_ids(module.run(graph, _per_vertex(graph, side), seed), "match")


def _per_vertex(graph, values):
    """A dict keyed by original id becomes an array in internal order (missing vertices 0)."""
    if not isinstance(values, dict):
        return values
    import numpy as np

    array = np.zeros(graph.num_vertices)
    if values:
        array[graph.to_internal(np.fromiter(values.keys(), dtype=np.int64))] = list(values.values())
    return array


def cdlp(graph, max_iterations: int = 10) -> Result:
    """Community detection by label propagation (LDBC Graphalytics): ``label`` (original ids).

    See :func:`gpugraph.algorithms.cdlp.run`.

    Raises
    ------
    InvalidParameterError
        For a negative iteration count.
    """
    from gpugraph.algorithms import cdlp as module

    return module.run(graph, max_iterations)


def lcc(graph) -> Result:
    """Local clustering coefficient (LDBC Graphalytics): ``lcc``.

    See :func:`gpugraph.algorithms.lcc.run`.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    """
    from gpugraph.algorithms import lcc as module

    return module.run(graph)


def triangles(graph) -> Result:
    """Triangles through each vertex (``triangles``) and ``stats["total"]``, direction ignored.

    See :func:`gpugraph.algorithms.triangles.run`.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    """
    from gpugraph.algorithms import triangles as module

    return module.run(graph)


def betweenness(graph, sources=None, samples: int | None = None, seed: int = 0, normalized: bool = True) -> Result:
    """Brandes betweenness centrality, exact or from sampled sources: ``betweenness``.

    ``sources`` are original ids. See :func:`gpugraph.algorithms.betweenness.run`.

    Raises
    ------
    InvalidParameterError
        For both ``sources`` and ``samples``, or an invalid sample count.
    VertexIdError
        If a source is not a vertex.
    """
    from gpugraph.algorithms import betweenness as module

    internal = None if sources is None else graph.to_internal(list(sources))
    return module.run(graph, internal, samples, seed, normalized)


def sssp(graph, source, *, delta: float | None = None) -> Result:
    """Single-source shortest paths from ``source`` (original id): ``distance``, ``predecessor``.

    See :func:`gpugraph.algorithms.sssp.run` (non-negative weights; unweighted = unit weights).

    Raises
    ------
    InvalidWeightError
        If a weight is negative or NaN.
    VertexIdError
        If ``source`` is not a vertex.
    """
    from gpugraph.algorithms import sssp as module

    return _with_original_ids(module.run(graph, _internal(graph, source), delta=delta), "predecessor")


def wcc(graph) -> Result:
    """Weakly connected components: ``component`` = smallest (original) id in the component.

    See :func:`gpugraph.algorithms.wcc.run`.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    """
    from gpugraph.algorithms import wcc as module

    return _with_original_ids(module.run(graph), "component")


def scc(graph) -> Result:
    """Strongly connected components: ``component`` = smallest (original) id in the component.

    See :func:`gpugraph.algorithms.scc.run`.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    """
    from gpugraph.algorithms import scc as module

    return _with_original_ids(module.run(graph), "component")


def kcore(graph) -> Result:
    """Core number of every vertex (directions ignored): ``core``.

    See :func:`gpugraph.algorithms.kcore.run`.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    """
    from gpugraph.algorithms import kcore as module

    return module.run(graph)
