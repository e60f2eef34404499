"""Breadth-first search: hop distance and a BFS parent tree from one source.

Returns
-------
``depth``  int32 per vertex: hops from the source, -1 if unreachable.
``parent`` int64 per vertex: the vertex it was reached from (``parent[source] == source``),
           -1 if unreachable. Any valid BFS tree may be returned (GPU runs can pick different
           parents at the same depth).

Algorithm
---------
Top-down, level-synchronous BFS: each level expands the frontier along out-edges and claims
unvisited neighbours (a compare-and-swap on ``depth`` on the GPU, so each vertex is claimed once).
The CPU kernel is the serial queue BFS, which does the same work without atomics. Direction
optimisation (Beamer et al., SC'12) arrives with the algorithm library.

Verification follows the Graph500 rules (see :func:`verify`).
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph.algorithms.result import Result
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import EmptyGraphError, VertexIdError


def run(graph, source: int = 0) -> Result:
    """Run BFS from ``source`` (an internal vertex id) on the graph's backend.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph` (directed graphs are traversed along out-edges).
    source:
        Internal id of the start vertex; use ``graph.to_internal(original_id)`` to convert.

    Returns
    -------
    Result
        ``values``: ``depth``, ``parent``; ``stats``: ``rounds``, ``edges_traversed``,
        ``seconds``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    VertexIdError
        If ``source`` is not in ``[0, n)``.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("BFS needs at least one vertex; the graph is empty")
    if not 0 <= int(source) < n:
        raise VertexIdError(f"BFS source {source} is outside [0, {n - 1}]")
    backend = graph.backend
    start = time.perf_counter()
    if backend.is_cuda:
        depth, parent, rounds, edges = _run_cuda(graph, int(source))
    else:
        depth = np.full(n, -1, dtype=np.int32)
        parent = np.full(n, -1, dtype=np.int64)
        rounds, edges = run_cpu_kernel(
            _cpu().bfs_queue, graph.indptr, graph.indices, np.int64(source), depth, parent
        )
    backend.synchronize()
    seconds = time.perf_counter() - start
    return Result(
        "bfs",
        graph,
        {"depth": depth, "parent": parent},
        {"rounds": int(rounds), "edges_traversed": int(edges), "seconds": seconds},
        {"source": int(source)},
    )


def _cpu():
    from gpugraph.algorithms import _bfs_cpu

    return _bfs_cpu


def _run_cuda(graph, source: int):
    from gpugraph.algorithms import _bfs_cuda

    backend = graph.backend
    xp = backend.xp
    n = graph.num_vertices
    with backend.activate():
        depth = xp.full(n, -1, dtype=np.int32)
        parent = xp.full(n, -1, dtype=np.int64)
        depth[source] = 0
        parent[source] = source
        frontier = xp.empty(n, dtype=graph.indices.dtype)
        next_frontier = xp.empty(n, dtype=graph.indices.dtype)
        frontier[0] = source
        frontier_size = xp.ones(1, dtype=np.int64)
        next_size = xp.zeros(1, dtype=np.int64)
        size, level = 1, 0
        while size:
            launch_cuda_kernel(
                _bfs_cuda.expand_frontier, backend, size,
                graph.indptr, graph.indices, frontier, frontier_size, np.int32(level),
                depth, parent, next_frontier, next_size,
            )
            size = int(next_size[0])  # the one device->host read per level
            frontier, next_frontier = next_frontier, frontier
            frontier_size[0] = size
            next_size[0] = 0
            level += 1
        # Every reached vertex is expanded exactly once, so the edges scanned are the reached
        # vertices' out-degrees: counted once here instead of with a reduction per level.
        edges = int(xp.diff(graph.indptr)[depth >= 0].sum())
    return depth, parent, level, edges


def verify(graph, result: Result) -> None:
    """Check a BFS result against the Graph500 rules and a serial reference.

    Rules: ``parent[source] == source`` and ``depth[source] == 0``; for every reached vertex
    ``v != source``, the edge ``parent[v] -> v`` exists and ``depth[v] == depth[parent[v]] + 1``;
    every edge ``u -> v`` with ``u`` reached has ``v`` reached and ``depth[v] <= depth[u] + 1``;
    the set of reached vertices and their depths equal a serial BFS's.

    Raises
    ------
    AssertionError
        Describing the first rule broken (this is a test oracle, not input validation).
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order, shortest_path

    source = result.parameters["source"]
    depth = to_numpy(result["depth"]).astype(np.int64)
    parent = to_numpy(result["parent"])
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    n = graph.num_vertices
    assert parent[source] == source and depth[source] == 0, "source must be its own parent at depth 0"
    matrix = sp.csr_matrix((np.ones(indices.size, dtype=np.int8), indices, indptr), shape=(n, n))
    reached_ref = breadth_first_order(matrix, source, directed=True, return_predecessors=False)
    reference = np.full(n, -1, dtype=np.int64)
    reference[reached_ref] = shortest_path(
        matrix, method="D", unweighted=True, indices=source
    )[reached_ref].astype(np.int64)
    mismatch = np.flatnonzero(reference != depth)
    assert mismatch.size == 0, f"depth of vertex {mismatch[:5]} differs from the reference"
    reached = np.flatnonzero(depth >= 0)
    others = reached[reached != source]
    assert np.all(parent[depth < 0] == -1), "unreached vertices must have parent -1"
    assert np.all(depth[parent[others]] + 1 == depth[others]), "depth[v] != depth[parent[v]] + 1"
    edge_keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr)) * n + indices
    tree_keys = parent[others].astype(np.int64) * n + others
    missing = others[~np.isin(tree_keys, edge_keys)]
    assert missing.size == 0, f"parent edge {parent[missing[:1]]} -> {missing[:1]} is not in the graph"
