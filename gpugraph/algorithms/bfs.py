"""Breadth-first search: hop distance and a BFS parent tree from one source.

Returns
-------
``depth``  int32 per vertex: hops from the source, -1 if unreachable.
``parent`` int64 per vertex: the vertex it was reached from (``parent[source] == source``),
           -1 if unreachable. Any valid BFS tree may be returned (parallel runs pick any parent
           at the right depth).

Algorithm
---------
``variant="direction-optimizing"`` (default; Beamer, Asanovic & Patterson, SC'12): level-
synchronous, each level either *top-down* (the frontier pushes along out-edges with
:func:`gpugraph.ops.advance`, edge-balanced on skewed frontiers) or *bottom-up* (every unvisited
vertex scans its in-edges for a frontier vertex and stops at the first). It switches to
bottom-up when the frontier's out-edges exceed the unexplored vertices' edges / ``alpha`` while
the frontier grows, and back when the frontier has fewer than ``n / beta`` vertices (Beamer's
heuristic, alpha = 15, beta = 18 in ``config``; the GPU uses ``config.BFS_CUDA_BETA``).
``variant="top-down"``: top-down levels only.

On the CPU the whole search is one compiled call (:func:`gpugraph.algorithms._bfs_cpu.search`):
top-down levels expand a serial queue, bottom-up levels run in parallel, and a level goes
bottom-up only if its frontier also holds ``config.CPU_BFS_BOTTOM_UP_MIN_SHARE`` of the
vertices. On the GPU, top-down levels run in a persistent kernel until the frontier grows
large, then through :func:`gpugraph.ops.advance` or the bottom-up kernels
(:mod:`gpugraph.algorithms._bfs_cuda`).

``stats["edges_traversed"]`` counts the arcs out of reached vertices (the Graph500 TEPS
numerator, in arcs); ``stats["bottom_up_rounds"]`` the levels done bottom-up;
``stats["frontier_sizes"]`` the frontier size of every level and a final 0; on the GPU
``stats["steps"]`` lists ``(kind, levels, seconds)`` per kernel step.

Verification follows the Graph500 rules (see :func:`verify`).
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph import config
from gpugraph.algorithms.result import Result
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import run_cpu_kernel
from gpugraph.errors import EmptyGraphError, InvalidParameterError, VertexIdError

VARIANTS = ("direction-optimizing", "top-down")


def _discover(src, dst, depth, parent):
    """Top-down edge: an unvisited destination takes the source as parent and joins the
    frontier. Every source of a level is a valid parent, so concurrent writes are benign."""
    if depth[dst] < 0:
        parent[dst] = src
        return True
    return False


def run(graph, source: int = 0, *, variant: str = "direction-optimizing") -> Result:
    """Run BFS from ``source`` (an internal vertex id) on the graph's backend.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph` (directed graphs are traversed along out-edges).
    source:
        Internal id of the start vertex; use ``graph.to_internal(original_id)`` to convert.
    variant:
        ``"direction-optimizing"`` or ``"top-down"`` (module docstring).

    Returns
    -------
    Result
        ``values``: ``depth``, ``parent``; ``stats``: ``rounds``, ``bottom_up_rounds``,
        ``edges_traversed``, ``frontier_sizes``, ``seconds`` (and ``steps`` on the GPU).

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    VertexIdError
        If ``source`` is not in ``[0, n)``.
    InvalidParameterError
        For an unknown variant.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("BFS needs at least one vertex; the graph is empty")
    if not 0 <= int(source) < n:
        raise VertexIdError(f"BFS source {source} is outside [0, {n - 1}]")
    if variant not in VARIANTS:
        raise InvalidParameterError(f"unknown BFS variant {variant!r}; use one of {', '.join(VARIANTS)}")
    backend = graph.backend
    xp = backend.xp
    start = time.perf_counter()
    with backend.activate():
        depth = xp.full(n, -1, dtype=np.int32)
        parent = xp.full(n, -1, dtype=np.int64)
        extra = {}
        if backend.is_cuda:
            from gpugraph.algorithms import _bfs_cuda

            rounds, bottom_up_rounds, edges, extra["frontier_sizes"], extra["steps"] = _bfs_cuda.levels(
                graph, int(source), depth, parent, variant == "direction-optimizing")
        else:
            switch = variant == "direction-optimizing"
            # Only bottom-up levels read in-edges (a directed graph's CSC is built once and cached);
            # the top-down variant passes the CSR in their place, so it never builds one.
            in_edges = (graph.in_indptr, graph.in_indices) if switch else (graph.indptr, graph.indices)
            rounds, bottom_up_rounds, edges, sizes = run_cpu_kernel(
                _cpu().search, graph.indptr, graph.indices, *in_edges, np.int64(source), switch, config.BFS_ALPHA,
                config.BFS_BETA, config.CPU_BFS_BOTTOM_UP_MIN_SHARE, depth, parent)
            edges = int(edges)
            extra["frontier_sizes"] = sizes.tolist()
    backend.synchronize()
    return Result(
        "bfs",
        graph,
        {"depth": depth, "parent": parent},
        {"rounds": int(rounds), "bottom_up_rounds": int(bottom_up_rounds), "edges_traversed": edges,
         "seconds": time.perf_counter() - start, **extra},
        {"source": int(source), "variant": variant},
    )


def _cpu():
    from gpugraph.algorithms import _bfs_cpu

    return _bfs_cpu


def verify(graph, result: Result) -> None:
    """Check a BFS result against the Graph500 validation rules.

    Rules: ``parent[source] == source`` and ``depth[source] == 0``; the reached vertices are
    exactly those a serial BFS (SciPy) reaches, and unreached ones have depth and parent -1;
    for every reached ``v != source`` the arc ``parent[v] -> v`` exists and
    ``depth[v] == depth[parent[v]] + 1``; every arc ``u -> v`` with ``u`` reached has
    ``depth[v] <= depth[u] + 1``. Together these make every depth the hop distance.

    Raises
    ------
    AssertionError
        Describing the first rule broken (this is a test oracle, not input validation).
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order

    source = result.parameters["source"]
    depth = to_numpy(result["depth"]).astype(np.int64)
    parent = to_numpy(result["parent"]).astype(np.int64)
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices).astype(np.int64)
    n = graph.num_vertices
    assert parent[source] == source and depth[source] == 0, "source must be its own parent at depth 0"
    matrix = sp.csr_matrix((np.ones(indices.size, dtype=np.int8), indices, indptr), shape=(n, n))
    expected = np.zeros(n, dtype=bool)
    expected[breadth_first_order(matrix, source, directed=True, return_predecessors=False)] = True
    wrong = np.flatnonzero(expected != (depth >= 0))
    assert wrong.size == 0, f"vertices {wrong[:5]} are reached by one of the result and a serial BFS only"
    assert np.all(parent[depth < 0] == -1), "unreached vertices must have parent -1"
    reached = np.flatnonzero(depth >= 0)
    others = reached[reached != source]
    assert np.all(depth[parent[others]] + 1 == depth[others]), "depth[v] != depth[parent[v]] + 1"
    # CSR rows are sorted, so row * n + column is sorted too: binary search finds each tree arc.
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    edge_keys = rows * n + indices
    tree_keys = parent[others] * n + others
    found = np.searchsorted(edge_keys, tree_keys)
    missing = others[(found >= edge_keys.size) | (edge_keys[np.minimum(found, edge_keys.size - 1)] != tree_keys)]
    assert missing.size == 0, f"parent arc {parent[missing[:1]]} -> {missing[:1]} is not in the graph"
    from_reached = depth[rows] >= 0
    too_far = depth[indices[from_reached]] > depth[rows[from_reached]] + 1
    assert not np.any(too_far), "an arc u -> v has depth[v] > depth[u] + 1: a depth is not the hop distance"
