"""Issue 5's single-GPU targets in one run: build the graphs, check every result, time each target.

Run on the device machine (see docs/gpu.md):

    PYTHONUNBUFFERED=1 python3 bench/speed_check.py --datasets .data --out $OUT [--only bfs-road,...]

Parts (``--only``): ``ceilings`` (device copy, random 4-byte gathers), ``bfs-road`` (pace-FLA and
USA-road-d.NY from vertex 0), ``bfs-graph500`` (64 roots at ``--bfs-scale``, harmonic-mean GTEPS
with the Graph500 edge count), ``pagerank`` (RMAT ``--pagerank-scale``: ms per iteration against
cuSPARSE SpMV power iteration in the same run), ``wcc`` (RMAT ``--wcc-scale``), ``sssp`` (RMAT
``--sssp-scale`` with weights in [1, 255]; USA-road-d.NY against the EMV Bellman-Ford program),
``sssp-sweep`` (SSSP's arcs per work item and blocks per multiprocessor), ``bfs-direction``
(Graph500 BFS against the direction-switch settings alpha and beta).
GPU times are medians of CUDA-event-timed trials after a warm-up (compilation apart). Each
result is checked against the CPU implementation or the module's verifier; a failed check is
printed and listed at the end. Writes ``speed_check.json`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import gpugraph as gg  # noqa: E402
from gpugraph.algorithms import bfs, pagerank, sssp, wcc  # noqa: E402
from gpugraph.backend import to_numpy  # noqa: E402

RECORDS: list[dict] = []
FAILURES: list[str] = []
_START = time.perf_counter()


def say(text: str) -> None:
    print(f"[{time.perf_counter() - _START:7.1f}s] {text}", flush=True)


def record(**fields) -> None:
    RECORDS.append(fields)
    say("  ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in fields.items()))


def check(name: str, ok: bool, detail: str = "") -> None:
    say(f"{'PASS' if ok else 'FAIL'} {name} {detail}")
    if not ok:
        FAILURES.append(f"{name} {detail}")


def gpu_ms(function, trials: int) -> tuple[float, list[float], object]:
    """Median ms of ``trials`` CUDA-event-timed calls after one warm-up call; the last result."""
    import cupy

    result = function()
    cupy.cuda.get_current_stream().synchronize()
    times = []
    for _ in range(trials):
        begin, end = cupy.cuda.Event(), cupy.cuda.Event()
        begin.record()
        result = function()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(begin, end))
    return statistics.median(times), times, result


def ceilings() -> None:
    import cupy

    a = cupy.ones(1 << 28, dtype=np.float32)
    b = cupy.empty_like(a)
    ms, _, _ = gpu_ms(lambda: cupy.copyto(b, a), 10)
    record(part="ceilings", what="device copy", gb_per_s=2 * a.nbytes / ms / 1e6)
    index = cupy.random.randint(0, a.size, size=1 << 26, dtype=np.int64)
    ms, _, _ = gpu_ms(lambda: a.take(index), 10)
    record(part="ceilings", what="random 4-byte gathers", g_per_s=index.size / ms / 1e6)


def bfs_road(datasets: Path) -> None:
    for name in ("pace-FLA.gr.xz", "USA-road-d.NY.gr.gz"):
        path = datasets / name
        if not path.exists():
            say(f"skip {name}: not in {datasets}")
            continue
        host = gg.load(path, device="cpu")
        graph = host.to("cuda")
        ms, times, result = gpu_ms(lambda: bfs.run(graph, 0), 10)
        expected = bfs.run(host, 0, variant="top-down").to_numpy("depth")
        check(f"bfs {name}", np.array_equal(result.to_numpy("depth"), expected))
        bfs.verify(host, result)
        levels = result.stats["rounds"]
        record(part="bfs-road", graph=name, ms=ms, min_ms=min(times), levels=levels,
               us_per_level=1000 * ms / max(levels, 1), bottom_up=result.stats["bottom_up_rounds"])


def bfs_graph500(scale: int, roots: int) -> None:
    start = time.perf_counter()
    graph = gg.rmat(scale, seed=1, device="cuda")
    say(f"rmat{scale}: n={graph.num_vertices:,} arcs={graph.num_arcs:,} built in {time.perf_counter() - start:.1f}s")
    degrees = to_numpy(graph.out_degree())
    candidates = np.flatnonzero(degrees > 0)
    sources = np.random.default_rng(500).choice(candidates, roots, replace=False)
    bfs.run(graph, int(sources[0]))
    teps, times, edges = [], [], []
    for position, source in enumerate(sources):
        ms, _, result = gpu_ms(lambda: bfs.run(graph, int(source)), 1)
        undirected_edges = result.stats["edges_traversed"] / 2
        teps.append(undirected_edges / (ms / 1e3))
        times.append(ms)
        edges.append(undirected_edges)
        if position < 3:
            bfs.verify(graph, result)
            check(f"bfs rmat{scale} root {source}", True, f"{ms:.2f} ms {result.stats['frontier_sizes']} {[(k, n, round(s * 1e3, 2)) for k, n, s in result.stats['steps']]}")
    harmonic = len(teps) / sum(1 / t for t in teps)
    record(part="bfs-graph500", scale=scale, roots=roots, harmonic_gteps=harmonic / 1e9,
           min_gteps=min(teps) / 1e9, max_gteps=max(teps) / 1e9, median_ms=statistics.median(times),
           median_edges=statistics.median(edges))
    del graph


def bfs_direction_sweep(scale: int, roots: int) -> None:
    """Harmonic-mean GTEPS for several direction-switch settings (config.BFS_ALPHA: go
    bottom-up; config.BFS_CUDA_BETA: come back top-down below n / beta vertices), each result
    checked against the default setting's depths."""
    from gpugraph import config

    graph = gg.rmat(scale, seed=1, device="cuda")
    sources = np.random.default_rng(500).choice(np.flatnonzero(to_numpy(graph.out_degree()) > 0), roots, replace=False)
    defaults = config.BFS_ALPHA, config.BFS_CUDA_BETA
    expected = {}
    for alpha, beta in ((15.0, 18.0), (15.0, 100.0), (15.0, 1000.0), (15.0, 1e6), (60.0, 1000.0)):
        config.BFS_ALPHA, config.BFS_CUDA_BETA = alpha, beta
        teps, times, same = [], [], True
        for source in sources:
            ms, _, result = gpu_ms(lambda: bfs.run(graph, int(source)), 1)
            teps.append(result.stats["edges_traversed"] / 2 / (ms / 1e3))
            times.append(ms)
            depth = result.to_numpy("depth")
            same &= np.array_equal(expected.setdefault(int(source), depth), depth)
        check(f"bfs alpha={alpha} beta={beta} depths", same)
        record(part="bfs-direction", scale=scale, alpha=alpha, beta=beta, roots=roots,
               harmonic_gteps=len(teps) / sum(1 / t for t in teps) / 1e9, max_gteps=max(teps) / 1e9,
               median_ms=statistics.median(times))
    config.BFS_ALPHA, config.BFS_CUDA_BETA = defaults


def pagerank_part(scale: int, iterations: int) -> None:
    import cupy
    import cupyx.scipy.sparse as sparse

    small = gg.rmat(14, seed=2, device="cuda")
    pagerank.verify(small, pagerank.run(small))
    check("pagerank rmat14 verify", True)
    graph = gg.rmat(scale, seed=1, device="cuda")
    ms, _, result = gpu_ms(lambda: pagerank.run(graph, iterations=iterations), 5)
    per_iteration = ms / iterations
    record(part="pagerank", implementation="gpugraph", scale=scale, arcs=graph.num_arcs,
           ms_per_iteration=per_iteration, g_edges_per_s=graph.num_arcs / per_iteration / 1e6)
    n = graph.num_vertices
    out_degree = graph.out_degree().astype(np.float64)
    inverse = cupy.where(out_degree > 0, 1.0 / cupy.maximum(out_degree, 1.0), 0.0)
    matrix = sparse.csr_matrix((inverse[graph.in_indices], graph.in_indices, graph.in_indptr), shape=(n, n))
    dangling = out_degree == 0

    def power_iteration():
        rank = cupy.full(n, 1.0 / n)
        for _ in range(iterations):
            rank = 0.85 * (matrix @ rank + rank[dangling].sum() / n) + 0.15 / n
        return rank

    sp_ms, _, sp_rank = gpu_ms(power_iteration, 5)
    check("pagerank vs cuSPARSE", float(cupy.abs(sp_rank - result["rank"]).sum()) < 1e-8,
          f"L1 {float(cupy.abs(sp_rank - result['rank']).sum()):.2e}")
    record(part="pagerank", implementation="cuSPARSE SpMV", scale=scale, ms_per_iteration=sp_ms / iterations,
           g_edges_per_s=graph.num_arcs / (sp_ms / iterations) / 1e6, speedup=sp_ms / ms)


def wcc_part(scale: int) -> None:
    graph = gg.rmat(scale, seed=1, device="cuda")
    ms, times, result = gpu_ms(lambda: wcc.run(graph), 5)
    record(part="wcc", scale=scale, arcs=graph.num_arcs, ms=ms, min_ms=min(times),
           components=result.stats["components"])
    host = graph.to("cpu")
    expected = wcc.run(host).to_numpy("component")
    check(f"wcc rmat{scale}", np.array_equal(result.to_numpy("component"), expected))


def sssp_part(scale: int, datasets: Path) -> None:
    from gpugraph.io.generators import rmat_edges

    edges = rmat_edges(scale, seed=1, device="cuda")
    import cupy

    weights = cupy.random.default_rng(7).integers(1, 256, size=edges.src.shape[0]).astype(np.float64)
    graph = gg.from_edges(edges.src, edges.dst, weights, num_vertices=1 << scale, directed=False, device="cuda")
    source = int(np.flatnonzero(to_numpy(graph.out_degree()) > 0)[0])
    ms, times, result = gpu_ms(lambda: sssp.run(graph, source), 5)
    record(part="sssp", graph=f"rmat{scale} w[1,255]", arcs=graph.num_arcs, ms=ms, min_ms=min(times),
           rounds=result.stats["rounds"])
    expected = sssp.run(graph.to("cpu"), source).to_numpy("distance")
    check(f"sssp rmat{scale}", np.array_equal(result.to_numpy("distance"), expected))
    path = datasets / "USA-road-d.NY.gr.gz"
    if path.exists():
        sys.path.insert(0, str(REPO / "examples"))
        from emv_sssp import sssp as bellman_ford

        road = gg.load(path, device="cuda")
        ms, _, result = gpu_ms(lambda: sssp.run(road, 0), 5)
        bf_ms, _, bf = gpu_ms(lambda: bellman_ford(road, 0), 2)
        check("sssp NY vs Bellman-Ford", np.array_equal(result.to_numpy("distance"), bf.to_numpy("distance")))
        record(part="sssp", graph="USA-road-d.NY", ms=ms, bellman_ford_ms=bf_ms, speedup=bf_ms / ms,
               rounds=result.stats["rounds"])


def sssp_sweep(scale: int, datasets: Path) -> None:
    """SSSP time against the arcs per work item and the resident blocks per multiprocessor, and
    the near-far kernel's share of a run (the rest recovers the predecessor tree)."""
    import cupy

    from gpugraph import config
    from gpugraph.io.generators import rmat_edges

    edges = rmat_edges(scale, seed=1, device="cuda")
    weights = cupy.random.default_rng(7).integers(1, 256, size=edges.src.shape[0]).astype(np.float64)
    graphs = {f"rmat{scale}": gg.from_edges(edges.src, edges.dst, weights, num_vertices=1 << scale, directed=False,
                                            device="cuda")}
    path = datasets / "USA-road-d.NY.gr.gz"
    if path.exists():
        graphs["USA-road-d.NY"] = gg.load(path, device="cuda")
    defaults = config.SSSP_CHUNK_ARCS, config.SSSP_PERSISTENT_BLOCKS_PER_SM
    for name, graph in graphs.items():
        source = int(np.flatnonzero(to_numpy(graph.out_degree()) > 0)[0])
        weights = graph.weights
        default_delta = sssp._default_delta(graph)
        settings = [(32, per_sm, 1.0) for per_sm in (1, 2, 4, 8)] + [(chunk, 2, 1.0) for chunk in (16, 64)]
        settings += [(32, 2, factor) for factor in (0.125, 0.25, 0.5, 2.0)]
        for chunk, per_sm, factor in settings:
            config.SSSP_CHUNK_ARCS, config.SSSP_PERSISTENT_BLOCKS_PER_SM = chunk, per_sm

            def near_far():
                distance = cupy.full(graph.num_vertices, np.inf)
                return sssp._near_far(graph, source, weights, False, default_delta * factor, distance)

            ms, _, (rounds, relaxed) = gpu_ms(near_far, 3)
            record(part="sssp-sweep", graph=name, chunk=chunk, blocks_per_sm=per_sm, delta=default_delta * factor,
                   near_far_ms=ms, rounds=rounds, relaxed_per_arc=relaxed / graph.num_arcs)
        config.SSSP_CHUNK_ARCS, config.SSSP_PERSISTENT_BLOCKS_PER_SM = defaults
        distance = cupy.full(graph.num_vertices, np.inf)
        sssp._near_far(graph, source, weights, False, default_delta, distance)
        predecessor = cupy.full(graph.num_vertices, -1, dtype=np.int64)

        def tree():
            predecessor.fill(-1)
            sssp._tree(graph, source, weights, False, distance, predecessor)

        ms, _, _ = gpu_ms(tree, 3)
        record(part="sssp-sweep", graph=name, tree_ms=ms)
        ms, _, result = gpu_ms(lambda: sssp.run(graph, source), 3)
        record(part="sssp-sweep", graph=name, whole_run_ms=ms, delta=default_delta)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=REPO.parent / "shared" / "datasets")
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--only", default="ceilings,bfs-road,bfs-graph500,pagerank,wcc,sssp")
    parser.add_argument("--bfs-scale", type=int, default=24)
    parser.add_argument("--roots", type=int, default=64)
    parser.add_argument("--pagerank-scale", type=int, default=22)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--wcc-scale", type=int, default=24)
    parser.add_argument("--sssp-scale", type=int, default=21)
    args = parser.parse_args()
    import cupy

    say(f"device {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    parts = {
        "ceilings": ceilings,
        "bfs-road": lambda: bfs_road(args.datasets),
        "bfs-graph500": lambda: bfs_graph500(args.bfs_scale, args.roots),
        "bfs-direction": lambda: bfs_direction_sweep(args.bfs_scale, args.roots),
        "pagerank": lambda: pagerank_part(args.pagerank_scale, args.iterations),
        "wcc": lambda: wcc_part(args.wcc_scale),
        "sssp": lambda: sssp_part(args.sssp_scale, args.datasets),
        "sssp-sweep": lambda: sssp_sweep(args.sssp_scale, args.datasets),
    }
    for name in args.only.split(","):
        try:
            parts[name]()
        except Exception as exc:  # noqa: BLE001 - report and go on with the other parts
            import traceback

            traceback.print_exc()
            FAILURES.append(f"{name}: {type(exc).__name__}: {exc}")
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "speed_check.json").write_text(json.dumps({"records": RECORDS, "failures": FAILURES}, indent=1, default=str))
    say(f"failures: {FAILURES or 'none'}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
