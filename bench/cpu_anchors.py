"""Issue 5's CPU target in one run: BFS, WCC and PageRank against SciPy and igraph.

Run on two cores, the CI-like setting of the target:

    NUMBA_NUM_THREADS=2 taskset -c 0,1 python bench/cpu_anchors.py [--datasets ../shared/datasets]

Graphs: pace-FLA (road, ~1.07M vertices, ~2000 BFS levels) and soc-Slashdot0902 (directed social,
82k vertices, 948k arcs). Each time is the best of ``--trials`` calls after one warm-up call
(compilation apart), every implementation timed in the same process, one after the other.

* BFS from vertex 0: gpugraph's default (direction-optimizing) and top-down variants,
  ``scipy.sparse.csgraph.breadth_first_order`` (order and predecessors) and ``igraph.Graph.bfs``.
* WCC: ``connected_components(connection="weak")`` and ``Graph.connected_components("weak")``.
* PageRank (damping 0.85, tolerance ``n * 1e-6`` on the L1 change, NetworkX's meaning):
  igraph's PRPACK solver and a SciPy-sparse power iteration written here with NetworkX's
  semantics (the rank of vertices without out-edges spread uniformly; the transition matrix
  built before the clock starts, as gpugraph's CSC is).

Every gpugraph result is checked before it is timed: BFS with the Graph500 rules and the
depths of igraph's layers, WCC against SciPy, PageRank within ``n * tol`` (L1) of the SciPy
anchor. Prints a Markdown table; exits 1 if a check failed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import gpugraph as gg  # noqa: E402
from gpugraph.algorithms import bfs, pagerank, wcc  # noqa: E402

GRAPHS = ("pace-FLA.gr.xz", "soc-Slashdot0902.txt.gz")
DAMPING = 0.85
TOLERANCE = 1e-6
MAX_ITERATIONS = 100


def best_ms(function, trials: int) -> float:
    """Best wall time in ms of ``trials`` calls of ``function`` after one warm-up call."""
    function()
    times = []
    for _ in range(trials):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


def scipy_pagerank_operator(graph):
    """The power iteration's fixed parts: ``flow[v, u] = (arcs u -> v) / out_degree(u)`` and
    the mask of vertices without out-edges."""
    import scipy.sparse as sp

    n = graph.num_vertices
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    out_degree = np.diff(indptr).astype(np.float64)
    inverse = np.divide(1.0, out_degree, out=np.zeros(n), where=out_degree > 0)
    transition = sp.csr_matrix((np.repeat(inverse, np.diff(indptr)), indices, indptr), shape=(n, n))
    return transition.T.tocsr(), out_degree == 0


def scipy_pagerank(flow, dangling) -> np.ndarray:
    """NetworkX's PageRank by SciPy-sparse power iteration: uniform teleport, the dangling
    vertices' rank spread uniformly, stop when the L1 change is below ``n * TOLERANCE``."""
    n = flow.shape[0]
    rank = np.full(n, 1.0 / n)
    for _ in range(MAX_ITERATIONS):
        previous = rank
        rank = DAMPING * (flow @ previous) + (DAMPING * previous[dangling].sum() + 1.0 - DAMPING) / n
        if np.abs(rank - previous).sum() < n * TOLERANCE:
            break
    return rank


def compare(graph, trials: int) -> tuple[list[tuple], list[str]]:
    """Time and check the three algorithms on ``graph``; ``(table rows, failed checks)``."""
    import igraph
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    n = graph.num_vertices
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    matrix = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(n, n))
    arcs = np.stack([np.repeat(np.arange(n), np.diff(indptr)), indices], axis=1)
    other = igraph.Graph(n=n, edges=arcs, directed=graph.directed)
    flow, dangling = scipy_pagerank_operator(graph)
    failures = []

    def check(name: str, ok: bool) -> None:
        if not ok:
            failures.append(f"{graph.name}: {name}")

    order, layers, _ = other.bfs(0)
    expected_depth = np.full(n, -1)
    for level in range(len(layers) - 1):
        expected_depth[order[layers[level]:layers[level + 1]]] = level
    for variant in bfs.VARIANTS:
        result = bfs.run(graph, 0, variant=variant)
        bfs.verify(graph, result)
        check(f"bfs {variant} depths", np.array_equal(result.to_numpy("depth"), expected_depth))
        check(f"bfs {variant} frontier sizes",
              sum(result.stats["frontier_sizes"]) == int((expected_depth >= 0).sum()))
    wcc.verify(graph, wcc.run(graph))
    ours = pagerank.run(graph, DAMPING, TOLERANCE, MAX_ITERATIONS)
    check("pagerank vs scipy", np.abs(ours.to_numpy("rank") - scipy_pagerank(flow, dangling)).sum() < n * TOLERANCE)

    rows = [
        ("bfs (source 0)", best_ms(lambda: bfs.run(graph, 0), trials),
         best_ms(lambda: breadth_first_order(matrix, 0, return_predecessors=True), trials),
         best_ms(lambda: other.bfs(0), trials), ""),
        ("bfs top-down", best_ms(lambda: bfs.run(graph, 0, variant="top-down"), trials), None, None, ""),
        ("wcc", best_ms(lambda: wcc.run(graph), trials),
         best_ms(lambda: connected_components(matrix, directed=True, connection="weak"), trials),
         best_ms(lambda: other.connected_components(mode="weak"), trials), ""),
        ("pagerank", best_ms(lambda: pagerank.run(graph, DAMPING, TOLERANCE, MAX_ITERATIONS), trials),
         best_ms(lambda: scipy_pagerank(flow, dangling), trials),
         best_ms(lambda: other.pagerank(damping=DAMPING, implementation="prpack"), trials),
         "scipy: power iteration; igraph: prpack"),
    ]
    return rows, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=REPO.parent / "shared" / "datasets",
                        help="folder holding pace-FLA.gr.xz and soc-Slashdot0902.txt.gz")
    parser.add_argument("--trials", type=int, default=5, help="timed calls per measurement (best is kept)")
    args = parser.parse_args(argv)
    import numba

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"cores available: {cores}; Numba threads: {numba.get_num_threads()}; best of {args.trials} (ms)\n")
    print("| graph | algorithm | gpugraph | scipy | igraph | notes |")
    print("|---|---|---:|---:|---:|---|")
    failures = []
    for name in GRAPHS:
        graph = gg.load(args.datasets / name, device="cpu")
        rows, failed = compare(graph, args.trials)
        failures += failed
        for algorithm, ours, scipy_ms, igraph_ms, notes in rows:
            cells = [f"{value:.1f}" if value is not None else "-" for value in (ours, scipy_ms, igraph_ms)]
            print(f"| {name.split('.')[0]} | {algorithm} | {' | '.join(cells)} | {notes} |", flush=True)
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
