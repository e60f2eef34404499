"""Weakly connected components (WCC): which component every vertex is in, directions ignored.

Returns
-------
``component``  int64 per vertex: the smallest internal vertex id of its component, so two
               vertices share a label exactly when a path joins them with arcs taken in either
               direction. An isolated vertex is its own component.

Semantics
---------
``scipy.sparse.csgraph.connected_components(connection="weak")`` and NetworkX's
``weakly_connected_components`` (``connected_components`` on an undirected graph), with labels
made canonical: the minimum vertex id of each component. Weights, self-loops and parallel arcs
make no difference.

Algorithm
---------
Union-find with the larger root always hooked under the smaller, so every tree's root is its
minimum and ``parent[v] <= v`` holds throughout (the invariant of Shiloach & Vishkin's hooking,
J. Algorithms 3, 1982). CPU: serial union-find over the arcs, each union walking both end points
up their trees until they meet or one reaches its root (Afforest's link), then one pass pointing
each vertex at its root. GPU: ECL-CC (Jaiganesh &
Burtscher, HPDC 2018): one thread per vertex hooks it to each neighbour with compare-and-swap on
the roots, retrying from what the swap found, with intermediate pointer jumping in the root
searches; then one thread per vertex jumps to its root. On undirected graphs the GPU hooks
Afforest's way (Sutton, Ben-Nun & Barak, IPDPS 2018): a few sampled neighbours per vertex
first, then only the vertices outside the (sampled) largest component link their other
neighbours, which skips most edges of a power-law graph. Undirected graphs store every edge
twice, so the CPU reads only arcs to smaller ids.

``stats``: ``rounds`` (1: a single hooking pass), ``components``, ``seconds``.

Verification compares with SciPy (see :func:`verify`).
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph.algorithms.result import Result
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import EmptyGraphError


def run(graph) -> Result:
    """Label every vertex with the minimum vertex id of its weakly connected component.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph` (directed or undirected; weights are ignored).

    Returns
    -------
    Result
        ``values``: ``component`` (int64); ``stats``: ``rounds``, ``components``, ``seconds``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("WCC needs at least one vertex; the graph is empty")
    backend = graph.backend
    xp = backend.xp
    start = time.perf_counter()
    with backend.activate():
        parent = xp.arange(n, dtype=np.int64)
        lower_only = not graph.directed
        if backend.is_cuda:
            from gpugraph.algorithms import _wcc_cuda

            if graph.directed:
                launch_cuda_kernel(_wcc_cuda.hook, backend, n, graph.indptr, graph.indices, lower_only, parent)
                launch_cuda_kernel(_wcc_cuda.compress, backend, n, parent)
            else:
                _wcc_cuda.afforest(graph, parent)
        else:
            from gpugraph.algorithms import _wcc_cpu

            run_cpu_kernel(_wcc_cpu.union_find, graph.indptr, graph.indices, lower_only, parent)
        components = int(xp.count_nonzero(parent == xp.arange(n, dtype=np.int64)))
    backend.synchronize()
    return Result(
        "wcc",
        graph,
        {"component": parent},
        {"rounds": 1, "components": components, "seconds": time.perf_counter() - start},
        {},
    )


def canonical_labels(labels: np.ndarray) -> np.ndarray:
    """Relabel a partition so that each part is named by its smallest vertex id.

    Parameters
    ----------
    labels:
        Host integer array: any label per vertex, equal labels meaning the same part.

    Returns
    -------
    numpy.ndarray
        int64 per vertex: the minimum vertex id carrying the same label.
    """
    labels = np.asarray(labels)
    smallest = np.full(int(labels.max()) + 1 if labels.size else 0, labels.size, dtype=np.int64)
    np.minimum.at(smallest, labels, np.arange(labels.size, dtype=np.int64))
    return smallest[labels]


def compare_components(graph, result: Result, connection: str) -> None:
    """Compare ``result["component"]`` with SciPy's components of kind ``connection``.

    Parameters
    ----------
    graph:
        The graph the result was computed on.
    result:
        A result with a ``component`` array (WCC or SCC).
    connection:
        ``"weak"`` or ``"strong"``, as ``scipy.sparse.csgraph.connected_components`` takes it.

    Raises
    ------
    AssertionError
        Naming the first vertices whose labels differ.
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    n = graph.num_vertices
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    matrix = sp.csr_matrix((np.ones(indices.size, dtype=np.int32), indices, indptr), shape=(n, n))
    _, labels = connected_components(matrix, directed=True, connection=connection)
    expected = canonical_labels(labels)
    got = result.to_numpy("component")
    differ = np.flatnonzero(got != expected)
    assert differ.size == 0, (
        f"component labels of vertices {differ[:5].tolist()} are {got[differ[:5]].tolist()}, "
        f"SciPy ({connection}) gives {expected[differ[:5]].tolist()}"
    )


def verify(graph, result: Result) -> None:
    """Check a WCC result against ``scipy.sparse.csgraph.connected_components(connection="weak")``
    with each component labelled by its smallest vertex id.

    Parameters
    ----------
    graph:
        The graph the result was computed on.
    result:
        The :func:`run` result.

    Raises
    ------
    AssertionError
        Naming the first vertices whose labels differ (a test oracle, not input validation).
    """
    compare_components(graph, result, "weak")
