"""Serial reference implementations (SciPy), independent of gpugraph's kernels, for verifiers.

They define what results *mean* — NetworkX's PageRank, Dijkstra's distances — so that every
engine and model can be checked against the same oracle. Each copies the graph to the host.
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend import to_numpy


def _host_csr(graph):
    return to_numpy(graph.indptr), to_numpy(graph.indices), None if graph.weights is None else to_numpy(graph.weights)


def pagerank(graph, damping: float = 0.85, tol: float = 1e-6, max_iterations: int = 100, personalization=None,
             weighted: bool = False) -> np.ndarray:
    """PageRank with NetworkX's meaning (``networkx.pagerank`` on the multigraph of the arcs).

    Damping ``damping``; the rank of vertices without out-edges is spread like the teleport
    (uniform, or ``personalization``: ``n`` weights in internal order); iterate until the L1
    change is below ``n * tol`` (``tol=0``: exactly ``max_iterations`` iterations). An undirected
    graph's arcs go both ways. ``weighted``: arcs count with their weights (``weight=`` in
    NetworkX), so out-degrees become sums of out-weights.

    Returns
    -------
    numpy.ndarray
        float64 rank per vertex, summing to 1.
    """
    import scipy.sparse as sp

    indptr, indices, weights = _host_csr(graph)
    n = graph.num_vertices
    strength = weights.astype(np.float64) if weighted else np.ones(indices.size)
    # A[u, v] = (weight of the arcs u -> v) / out_degree(u); ranks flow along A's rows.
    transition = sp.csr_matrix((strength, indices, indptr), shape=(n, n))
    out_degree = np.asarray(transition.sum(axis=1)).ravel()
    inverse = np.divide(1.0, out_degree, out=np.zeros(n), where=out_degree > 0)
    flow = (sp.diags(inverse) @ transition).T.tocsr()
    dangling = out_degree == 0
    teleport = np.full(n, 1.0 / n) if personalization is None else np.asarray(personalization, dtype=np.float64)
    teleport = teleport / teleport.sum()
    rank = np.full(n, 1.0 / n)
    for _ in range(max_iterations):
        previous = rank
        rank = damping * (flow @ previous + previous[dangling].sum() * teleport) + (1 - damping) * teleport
        if np.abs(rank - previous).sum() < n * tol:
            break
    return rank


def shortest_paths(graph, source: int) -> np.ndarray:
    """Dijkstra distances from ``source`` along arcs (unit weights when unweighted).

    Of several arcs between the same two vertices the lightest counts.

    Returns
    -------
    numpy.ndarray
        float64 distance per vertex, +inf where unreachable.
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    indptr, indices, weights = _host_csr(graph)
    n = graph.num_vertices
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    weights = np.ones(indices.size) if weights is None else weights.astype(np.float64)
    # Lightest parallel arc first, then keep the first of each (row, column) pair.
    order = np.lexsort((weights, indices, rows))
    rows, columns, weights = rows[order], indices[order].astype(np.int64), weights[order]
    first = np.ones(rows.size, dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]) | (columns[1:] != columns[:-1])
    rows, columns, weights = rows[first], columns[first], weights[first]
    # Zero weights are real edges, but a sparse matrix drops explicit zeros: make them the
    # smallest positive double, which adds nothing visible to any sum of ordinary weights.
    weights = np.where(weights == 0, np.finfo(np.float64).tiny, weights)
    matrix = sp.csr_matrix((weights, (rows, columns)), shape=(n, n))
    return dijkstra(matrix, directed=True, indices=source)
