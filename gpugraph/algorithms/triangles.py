"""Triangle counting: the triangles through every vertex, and their total.

Returns
-------
``triangles``  int64 per vertex: triangles the vertex belongs to.
``stats["total"]``  the number of triangles in the graph (each counted once).

Semantics
---------
NetworkX ``nx.triangles(G)`` on the *simple undirected* graph of the input: arc directions are
ignored, self-loops dropped, and parallel arcs (or the two arcs ``u -> v``, ``v -> u`` of a
directed graph) make one edge. A vertex without triangles has 0.

Algorithm
---------
Degree-ordered orientation (Schank & Wagner, "Finding, counting and listing all triangles in
large graphs", WEA 2005; the "forward" algorithm, as in GAP's ``tc``): each undirected edge is kept
once, pointing from the endpoint of lower (degree, id) to the higher one, so every row holds at
most ``sqrt(2m)`` vertices and every triangle ``u < v < w`` is found exactly once, at arc ``u -> v``,
by intersecting the sorted rows of ``u`` and ``v``. The CPU kernel runs one vertex per ``prange``
iteration and credits the other two corners through per-arc counters of the vertex's own row (no
atomics); the GPU kernel runs one thread per oriented arc and credits corners with atomics.

The same enumeration, with a weight per edge, gives the numerators of the local clustering
coefficient (:mod:`gpugraph.algorithms.lcc`): :func:`weighted_triangle_counts` is shared. So is
:func:`simple_arcs`, the simple graph of the input (betweenness uses it too).

Verification compares with ``networkx.triangles`` (see :func:`verify`).
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph import config
from gpugraph.algorithms.result import Result
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import dynamic_schedule, launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import EmptyGraphError



def run(graph) -> Result:
    """Count the triangles through every vertex on the graph's backend.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph`; directions, weights, self-loops and parallel arcs are ignored.

    Returns
    -------
    Result
        ``values``: ``triangles`` (int64 per vertex); ``stats``: ``total``, ``oriented_arcs``,
        ``rounds`` (1), ``seconds``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    """
    if graph.num_vertices == 0:
        raise EmptyGraphError("triangle counting needs at least one vertex; the graph is empty")
    backend = graph.backend
    start = time.perf_counter()
    with backend.activate():
        keys, _ = simple_arcs(graph, symmetric=True)
        unit = backend.xp.ones(keys.shape[0], dtype=np.int64)
        triangles, oriented_arcs = weighted_triangle_counts(graph, keys, unit)
        total = int(triangles.sum()) // 3
    backend.synchronize()
    seconds = time.perf_counter() - start
    return Result(
        "triangles",
        graph,
        {"triangles": triangles},
        {"total": total, "oriented_arcs": oriented_arcs, "rounds": 1, "seconds": seconds},
        {},
    )


def simple_arcs(graph, symmetric: bool):
    """The distinct arcs of ``graph`` without self-loops, as sorted keys ``u * n + v``.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph` (the work runs on its backend, inside ``backend.activate()``).
    symmetric:
        ``False``: the arcs of the simple directed graph (for an undirected graph, both
        directions of every edge). ``True``: both directions of every edge of the simple
        undirected graph, with how many of the two directions the input has.

    Returns
    -------
    tuple
        ``(keys, multiplicity)``: sorted int64 keys, and for ``symmetric=True`` an int64 array
        (1 or 2 per key; always 2 for an undirected graph), otherwise ``None``.
    """
    xp = graph.backend.xp
    n = graph.num_vertices
    src, dst, _ = graph.edges()
    src = src.astype(np.int64)
    dst = dst.astype(np.int64)
    proper = src != dst
    keys = xp.unique(src[proper] * n + dst[proper])
    if not symmetric:
        return keys, None
    reversed_keys = (keys % n) * n + keys // n
    keys, multiplicity = xp.unique(xp.concatenate((keys, reversed_keys)), return_counts=True)
    return keys, multiplicity.astype(np.int64)


def csr_of_keys(keys, num_vertices: int, xp, index_dtype):
    """CSR ``(indptr, indices)`` of the sorted arc keys ``u * n + v`` (rows sorted by id).

    Parameters
    ----------
    keys:
        Sorted int64 keys on the array module ``xp``.
    num_vertices:
        ``n``.
    xp:
        :mod:`numpy` or :mod:`cupy`.
    index_dtype:
        dtype of ``indices`` (the graph's ``indices.dtype``).

    Returns
    -------
    tuple
        ``(indptr, indices)``: int64 offsets of length ``n + 1`` and the destinations.
    """
    indptr = xp.zeros(num_vertices + 1, dtype=np.int64)
    indptr[1:] = xp.cumsum(xp.bincount(keys // num_vertices, minlength=num_vertices))
    return indptr, (keys % num_vertices).astype(index_dtype)


def weighted_triangle_counts(graph, keys, edge_weight):
    """For every vertex, the sum over the triangles through it of the weight of the opposite edge.

    Parameters
    ----------
    graph:
        The :class:`gpugraph.Graph` the keys come from (gives ``n``, the backend, the id dtype).
    keys:
        Sorted int64 keys ``u * n + v`` of both directions of every edge of a simple undirected
        graph (:func:`simple_arcs` with ``symmetric=True``).
    edge_weight:
        int64 weight of each key's edge (the same for ``u -> v`` and ``v -> u``).

    Returns
    -------
    tuple
        ``(counts, oriented_arcs)``: int64 per vertex (the triangle count when every weight is 1)
        and the number of arcs of the oriented graph.
    """
    backend = graph.backend
    xp = backend.xp
    n = graph.num_vertices
    src = keys // n
    dst = keys % n
    degree = xp.bincount(src, minlength=n)
    forward = (degree[src] < degree[dst]) | ((degree[src] == degree[dst]) & (src < dst))
    indptr, indices = csr_of_keys(keys[forward], n, xp, graph.indices.dtype)
    arc_weight = edge_weight[forward]
    counts = xp.zeros(n, dtype=np.int64)
    oriented_arcs = int(indices.shape[0])
    if oriented_arcs == 0:
        return counts, 0
    if backend.is_cuda:
        from gpugraph.algorithms import _triangles_cuda

        arc_source = src[forward].astype(indices.dtype)
        launch_cuda_kernel(
            _triangles_cuda.enumerate_triangles, backend, oriented_arcs,
            indptr, indices, arc_source, arc_weight, counts,
        )
    else:
        from gpugraph.algorithms import _triangles_cpu

        arc_count = np.zeros(oriented_arcs, dtype=np.int64)
        with dynamic_schedule(config.CPU_TRIANGLE_CHUNK):
            run_cpu_kernel(_triangles_cpu.enumerate_triangles, indptr, indices, arc_weight, counts, arc_count)
        run_cpu_kernel(_triangles_cpu.credit_arc_destinations, indices, arc_count, counts)
    return counts, oriented_arcs


def verify(graph, result: Result) -> None:
    """Compare per-vertex triangles and the total with ``networkx.triangles``.

    Parameters
    ----------
    graph:
        The graph the result was computed on.
    result:
        The :func:`run` result.

    Raises
    ------
    AssertionError
        Naming the first vertices whose counts differ (a test oracle, not input validation).
    """
    import networkx as nx

    src, dst, _ = graph.edges()
    simple = nx.Graph()
    simple.add_nodes_from(range(graph.num_vertices))
    simple.add_edges_from(zip(to_numpy(src).tolist(), to_numpy(dst).tolist()))
    simple.remove_edges_from(nx.selfloop_edges(simple))
    reference = nx.triangles(simple)
    expected = np.array([reference[v] for v in range(graph.num_vertices)], dtype=np.int64)
    counts = to_numpy(result["triangles"])
    differ = np.flatnonzero(counts != expected)
    assert differ.size == 0, (
        f"triangles of vertices {differ[:5].tolist()} are {counts[differ[:5]].tolist()}, "
        f"NetworkX says {expected[differ[:5]].tolist()}"
    )
    assert result.stats["total"] == int(expected.sum()) // 3, "total differs from NetworkX"
