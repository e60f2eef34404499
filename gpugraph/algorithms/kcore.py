"""k-core decomposition: the core number of every vertex.

Returns
-------
``core``  int64 per vertex: the largest ``k`` such that the vertex belongs to the k-core, the
          maximal subgraph in which every vertex has at least ``k`` neighbours (0 for isolated
          vertices).

Semantics
---------
Those of NetworkX's ``core_number`` on the simple undirected graph of the arcs:
``networkx.Graph`` built from every arc ``u -> v`` with the self-loops removed. So directions are
ignored (a vertex's neighbours are its in- and out-neighbours together), parallel arcs and
the two directions of a pair count as one edge, self-loops are ignored, and weights are not read.

Algorithm
---------
The simple undirected neighbour lists are built once (sorted, de-duplicated arc keys).
CPU: the O(n + m) bucket peel of Batagelj & Zaversnik ("An O(m) algorithm for cores
decomposition of networks", arXiv cs/0310049, 2003). GPU: a level-synchronous peel (as in
Kabir & Madduri, "Parallel k-core decomposition on multicore platforms", IPDPSW 2017, and the
GPU peels that follow it): at level ``k``, every live vertex of degree ``<= k`` is peeled at once
with core number ``k``, one thread per peeled vertex decrementing its live neighbours' degrees
with atomics, until no live vertex has degree ``<= k``; then ``k`` jumps to the smallest live
degree.

``stats``: ``rounds`` (CPU: distinct core values; GPU: peel rounds), ``max_core`` (the
degeneracy), ``seconds``.

Verification peels the graph again with SciPy sparse products (see :func:`verify`); the tests
also compare with NetworkX.
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph.algorithms.result import Result
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import EmptyGraphError


def run(graph) -> Result:
    """Compute the core number of every vertex on the graph's backend.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph` (directions, parallel arcs, self-loops and weights are
        treated as in the module docstring).

    Returns
    -------
    Result
        ``values``: ``core`` (int64); ``stats``: ``rounds``, ``max_core``, ``seconds``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("k-core needs at least one vertex; the graph is empty")
    backend = graph.backend
    xp = backend.xp
    start = time.perf_counter()
    with backend.activate():
        offsets, neighbours = simple_neighbour_lists(graph)
        core = xp.diff(offsets)
        if backend.is_cuda:
            rounds = _peel_levels(graph, offsets, neighbours, core)
        else:
            from gpugraph.algorithms import _kcore_cpu

            rounds = run_cpu_kernel(_kcore_cpu.batagelj_zaversnik, offsets, neighbours, core)
        max_core = int(core.max())
    backend.synchronize()
    return Result(
        "kcore",
        graph,
        {"core": core},
        {"rounds": int(rounds), "max_core": max_core, "seconds": time.perf_counter() - start},
        {},
    )


def simple_neighbour_lists(graph):
    """``(offsets, neighbours)`` of the simple undirected graph of the arcs (module docstring)."""
    xp = graph.backend.xp
    n = graph.num_vertices
    src, dst, _ = graph.edges()
    keep = src != dst
    src = src[keep].astype(np.int64)
    dst = dst[keep].astype(np.int64)
    keys = xp.unique(xp.concatenate((src * n + dst, dst * n + src)))
    offsets = xp.zeros(n + 1, dtype=np.int64)
    offsets[1:] = xp.cumsum(xp.bincount(keys // n, minlength=n))
    return offsets, (keys % n).astype(graph.indices.dtype)


def _peel_levels(graph, offsets, neighbours, degree) -> int:
    """Level-synchronous peel on a CUDA backend; turns ``degree`` into core numbers in place
    (a vertex's entry is frozen at its level when peeled). Returns the peel rounds."""
    from gpugraph.algorithms import _kcore_cuda

    xp = graph.backend.xp
    alive = xp.ones(graph.num_vertices, dtype=np.uint8)
    remaining = graph.num_vertices
    level, rounds = 0, 0
    while remaining:
        live = alive.astype(bool)
        peeled = xp.flatnonzero(live & (degree <= level))
        if peeled.size == 0:
            level = int(degree[live].min())
            continue
        degree[peeled] = level
        alive[peeled] = 0
        remaining -= int(peeled.size)
        launch_cuda_kernel(_kcore_cuda.peel, graph.backend, int(peeled.size), peeled, offsets, neighbours, alive, degree)
        rounds += 1
    return rounds


def verify(graph, result: Result) -> None:
    """Peel the simple undirected graph of the arcs with SciPy and compare core numbers.

    The oracle is the definition: at level ``k = 0, 1, ...`` delete every vertex of remaining
    degree ``<= k`` (giving it core number ``k``) until none is left, recounting degrees with
    a sparse matrix-vector product; the graph is built with SciPy, independently of :func:`run`.

    Parameters
    ----------
    graph:
        The graph the result was computed on.
    result:
        The :func:`run` result.

    Raises
    ------
    AssertionError
        Naming the first vertices whose core numbers differ (a test oracle, not input validation).
    """
    import scipy.sparse as sp

    n = graph.num_vertices
    src = to_numpy(graph.edges()[0]).astype(np.int64)
    dst = to_numpy(graph.indices).astype(np.int64)
    keep = src != dst
    rows = np.concatenate((src[keep], dst[keep]))
    columns = np.concatenate((dst[keep], src[keep]))
    adjacency = sp.csr_matrix((np.ones(rows.size, dtype=np.int32), (rows, columns)), shape=(n, n))
    adjacency.sum_duplicates()
    adjacency.data[:] = 1  # one edge per neighbour pair, however many arcs join it
    degree = np.diff(adjacency.indptr).astype(np.int64)
    alive = np.ones(n, dtype=bool)
    expected = np.zeros(n, dtype=np.int64)
    level = 0
    while alive.any():
        peeled = alive & (degree <= level)
        if not peeled.any():
            level = int(degree[alive].min())
            continue
        expected[peeled] = level
        alive[peeled] = False
        degree -= adjacency @ peeled.astype(np.int32)
    got = result.to_numpy("core")
    differ = np.flatnonzero(got != expected)
    assert differ.size == 0, (
        f"core numbers of vertices {differ[:5].tolist()} are {got[differ[:5]].tolist()}, "
        f"peeling gives {expected[differ[:5]].tolist()}"
    )
