"""Frontier operators and EMV programs on one device: correctness, then speed.

Run on the device machine (one call; see docs/gpu.md):

    PYTHONUNBUFFERED=1 python3 bench/operators.py --scale 22 --datasets .data --out $OUT

1. advance on a full frontier of a symmetrised RMAT graph (skewed) and of road networks (flat):
   every strategy, rates in G edges/s against the measured random-gather ceiling of the H100
   (28.6 G 4-byte reads/s); the edge-balanced strategy also with 4/8/16/32 edges per thread;
   a sparse frontier (10 % of the vertices) too.
2. pull (PageRank's gather) with each strategy.
3. EMV PageRank, BFS and SSSP on the GPU against the serial references, on RMAT and the
   datasets; run time per iteration; the naive library BFS for scale.
4. Compile time of a program in a fresh process, twice (the second loads the on-disk cache).

Prints one line per measurement and writes everything as JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import gpugraph as gg  # noqa: E402
from gpugraph import config, ops  # noqa: E402
from gpugraph.algorithms import bfs, reference  # noqa: E402
from gpugraph.backend import to_numpy  # noqa: E402
from gpugraph.backend.kernels import compile_report  # noqa: E402

GATHER_CEILING = 28.6e9  # random 4-byte reads per second, measured on the H100
RECORD: dict = {"advance": [], "pull": [], "programs": [], "failures": []}
_START = time.perf_counter()


def log(text: str) -> None:
    print(f"{time.perf_counter() - _START:7.1f}s {text}", flush=True)


def check(name: str, ok: bool, detail: str = "") -> None:
    log(f"[{'PASS' if ok else 'FAIL'}] {name} {detail}")
    if not ok:
        RECORD["failures"].append(name)


def timed(function, repeats: int) -> float:
    """Median seconds of ``function()`` after one warm-up call, synchronising the device."""
    import cupy

    function()
    cupy.cuda.get_current_stream().synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        cupy.cuda.get_current_stream().synchronize()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def unvisited(dst, label):
    return label[dst] < 0


def bench_advance(graph, name: str, repeats: int) -> None:
    import cupy

    n = graph.num_vertices
    rng = np.random.default_rng(0)
    label = cupy.asarray(np.where(rng.random(n) < 0.5, -1, 0).astype(np.int32))
    everything = ops.Frontier.all(graph)
    some = ops.Frontier.from_ids(graph, cupy.asarray(np.flatnonzero(rng.random(n) < 0.1)))
    some_edges = int((graph.indptr[some.ids() + 1] - graph.indptr[some.ids()]).sum())
    reference_flags = None
    for strategy in ("thread", "twc", "edge", "auto"):
        run = lambda: ops.advance(graph, everything, unvisited, bindings={"label": label}, strategy=strategy, output="dense")  # noqa: E731
        flags = to_numpy(run().flags())
        if reference_flags is None:
            reference_flags = flags
        check(f"advance {name} {strategy} same output", np.array_equal(flags, reference_flags))
        seconds = timed(run, repeats)
        sparse_seconds = timed(
            lambda: ops.advance(graph, some, unvisited, bindings={"label": label}, strategy=strategy, output="sparse"),
            repeats,
        )
        rate = graph.num_arcs / seconds
        entry = {
            "graph": name, "strategy": strategy, "arcs": graph.num_arcs, "ms": seconds * 1e3,
            "g_edges_per_s": rate / 1e9, "percent_of_gather_ceiling": 100 * rate / GATHER_CEILING,
            "sparse10_ms": sparse_seconds * 1e3, "sparse10_g_edges_per_s": some_edges / sparse_seconds / 1e9,
        }
        RECORD["advance"].append(entry)
        log(
            f"advance {name:<12} {strategy:<6} full {seconds * 1e3:8.3f} ms {rate / 1e9:6.2f} G edges/s "
            f"({entry['percent_of_gather_ceiling']:5.1f} % of gather ceiling) | 10 % frontier "
            f"{sparse_seconds * 1e3:7.3f} ms {entry['sparse10_g_edges_per_s']:6.2f} G edges/s"
        )
    default = config.EDGE_BALANCED_EDGES_PER_THREAD
    for per_thread in (4, 8, 16, 32):
        config.EDGE_BALANCED_EDGES_PER_THREAD = per_thread
        seconds = timed(
            lambda: ops.advance(graph, everything, unvisited, bindings={"label": label}, strategy="edge", output="dense"),
            repeats,
        )
        RECORD["advance"].append({"graph": name, "strategy": f"edge/{per_thread}", "ms": seconds * 1e3,
                                  "g_edges_per_s": graph.num_arcs / seconds / 1e9})
        log(f"advance {name:<12} edge, {per_thread:2d} edges/thread: {seconds * 1e3:8.3f} ms "
            f"{graph.num_arcs / seconds / 1e9:6.2f} G edges/s")
    config.EDGE_BALANCED_EDGES_PER_THREAD = default


def contribution(src, rank, out_degree):
    return rank[src] / out_degree[src]


def bench_pull(graph, name: str, repeats: int) -> None:
    import cupy

    n = graph.num_vertices
    rank = cupy.full(n, 1.0 / n)
    degree = cupy.maximum(graph.out_degree(), 1)
    everything = ops.Frontier.all(graph)
    expected = None
    for strategy in ("thread", "warp", "block", "auto"):
        run = lambda: ops.pull(graph, everything, contribution, bindings={"rank": rank, "out_degree": degree}, strategy=strategy)  # noqa: E731
        values = to_numpy(run())
        expected = values if expected is None else expected
        check(f"pull {name} {strategy} same values", np.allclose(values, expected, rtol=1e-9, atol=1e-15))
        seconds = timed(run, repeats)
        RECORD["pull"].append({"graph": name, "strategy": strategy, "ms": seconds * 1e3,
                               "g_edges_per_s": graph.num_arcs / seconds / 1e9})
        log(f"pull    {name:<12} {strategy:<6} {seconds * 1e3:8.3f} ms {graph.num_arcs / seconds / 1e9:6.2f} G edges/s")


def run_programs(graph, name: str, verify: bool) -> None:
    sys.path.insert(0, str(REPO))
    from examples.emv_bfs import bfs as emv_bfs
    from examples.emv_pagerank import pagerank as emv_pagerank
    from examples.emv_sssp import sssp as emv_sssp

    source = int(np.flatnonzero(to_numpy(graph.out_degree()) > 0)[0])
    host = graph.to("cpu") if verify else None
    emv_pagerank(graph)  # compile
    result = emv_pagerank(graph)
    stats = result.stats
    entry = {"graph": name, "program": "pagerank", **stats, "ms_per_round": 1e3 * stats["seconds"] / max(stats["rounds"], 1)}
    if verify:
        error = float(np.abs(result.to_numpy("rank") - reference.pagerank(host, tol=1e-10)).max())
        entry["max_error"] = error
        check(f"emv pagerank {name} matches reference", error < 1e-5, f"max error {error:.2e}")
    RECORD["programs"].append(entry)
    log(f"emv pagerank {name:<12} {stats['rounds']} rounds {stats['seconds']:.4f} s "
        f"({entry['ms_per_round']:.3f} ms/round, compile {stats['compile_seconds']:.2f} s)")

    emv_bfs(graph, source)
    result = emv_bfs(graph, source)
    naive = bfs.run(graph, source)
    naive = bfs.run(graph, source)
    entry = {"graph": name, "program": "bfs", **result.stats, "naive_library_seconds": naive.stats["seconds"]}
    if verify:
        same = np.array_equal(result.to_numpy("depth"), naive.to_numpy("depth"))
        if graph.num_arcs <= 2**26:
            bfs.verify(host, naive)
        check(f"emv bfs {name} equals library bfs", same)
    RECORD["programs"].append(entry)
    log(f"emv bfs      {name:<12} {result.stats['rounds']} rounds {result.stats['seconds']:.4f} s; naive library "
        f"bfs {naive.stats['seconds']:.4f} s (ratio {result.stats['seconds'] / naive.stats['seconds']:.2f})")

    emv_sssp(graph, source)
    result = emv_sssp(graph, source)
    entry = {"graph": name, "program": "sssp", **result.stats}
    if verify:
        expected = reference.shortest_paths(host, source)
        ok = np.allclose(result.to_numpy("distance"), expected)
        check(f"emv sssp {name} matches dijkstra", ok)
    RECORD["programs"].append(entry)
    log(f"emv sssp     {name:<12} {result.stats['rounds']} rounds {result.stats['seconds']:.4f} s")


def compile_in_fresh_process(cache: str) -> list[float]:
    code = (
        "import sys; sys.path.insert(0, '.');"
        "import gpugraph as gg; from examples.emv_pagerank import pagerank;"
        "g = gg.rmat(10, seed=1, device='cuda'); r = pagerank(g);"
        "print(r.stats['compile_seconds'])"
    )
    seconds = []
    for _ in range(2):
        output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                                env={**os.environ, "GPUGRAPH_CACHE_DIR": cache}, check=False)
        seconds.append(float(output.stdout.strip().splitlines()[-1]) if output.returncode == 0 else float("nan"))
        if output.returncode:
            log(output.stderr[-2000:])
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=22)
    parser.add_argument("--datasets", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--out", default=".")
    args = parser.parse_args()
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    RECORD["device"] = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    log(f"device {RECORD['device']}")

    cache = str(Path(args.out) / "kernel-cache")
    RECORD["fresh_process_compile_seconds"] = compile_in_fresh_process(cache)
    log(f"EMV PageRank compile in a fresh process: first {RECORD['fresh_process_compile_seconds'][0]:.2f} s, "
        f"second (on-disk cache) {RECORD['fresh_process_compile_seconds'][1]:.2f} s")

    start = time.perf_counter()
    rmat = gg.rmat(args.scale, seed=1, device="cuda")
    log(f"built {rmat!r} in {time.perf_counter() - start:.2f} s")
    bench_advance(rmat, f"rmat{args.scale}", args.repeats)
    bench_pull(rmat, f"rmat{args.scale}", args.repeats)
    run_programs(rmat, f"rmat{args.scale}", verify=False)
    del rmat
    cupy.get_default_memory_pool().free_all_blocks()

    grid = gg.grid(4096, 4096, device="cuda")
    bench_advance(grid, "grid4096", args.repeats)
    bench_pull(grid, "grid4096", args.repeats)
    del grid
    cupy.get_default_memory_pool().free_all_blocks()

    small = gg.rmat(18, seed=1, device="cuda")
    run_programs(small, "rmat18", verify=True)

    datasets = Path(args.datasets)
    for file in sorted(datasets.glob("*")) if datasets.is_dir() else []:
        if file.name.endswith(".md"):
            continue
        graph = gg.load(file, device="cuda")
        if graph.num_arcs == 0:
            continue
        if file.name.startswith(("USA-road", "pace-")):
            bench_advance(graph, file.name.split(".")[0][:12], args.repeats)
        run_programs(graph, file.name.split(".")[0][:12], verify=True)

    RECORD["first_launches"] = [vars(entry) for entry in compile_report()]
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "operators.json").write_text(json.dumps(RECORD, indent=1, default=float))
    log(f"failures: {RECORD['failures'] or 'none'}")
    return 1 if RECORD["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
