"""Where the time of an EMV program's round goes on the device (Python side, syncs included).

    PYTHONUNBUFFERED=1 python3 bench/profile_programs.py --datasets .data

Profiles EMV BFS on USA-road-d.NY (hundreds of short rounds: per-round overhead) and EMV PageRank
on RMAT-22 (few long rounds: kernel time) with cProfile, and prints the top entries by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import gpugraph as gg  # noqa: E402
from examples.emv_bfs import bfs  # noqa: E402
from examples.emv_pagerank import pagerank  # noqa: E402
from gpugraph import ops  # noqa: E402


def profile(label: str, function) -> None:
    function()  # compile
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    result = function()
    profiler.disable()
    print(f"== {label}: {time.perf_counter() - start:.3f} s, {result.stats}")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(22)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--scale", type=int, default=22)
    args = parser.parse_args()
    road = gg.load(Path(args.datasets) / "USA-road-d.NY.gr.gz", device="cuda")
    profile("emv bfs USA-road-d.NY", lambda: bfs(road, 0))
    rmat = gg.rmat(args.scale, seed=1, device="cuda")
    profile(f"emv pagerank rmat{args.scale}", lambda: pagerank(rmat))
    import cupy

    for graph, name in ((rmat, f"rmat{args.scale}"), (gg.grid(4096, 4096, device="cuda"), "grid4096")):
        rank = cupy.full(graph.num_vertices, 1.0)
        for strategy in ("auto", "thread"):
            run = lambda: ops.pull(graph, ops.Frontier.all(graph), lambda src, rank: rank[src], bindings={"rank": rank}, strategy=strategy)  # noqa: E731
            run()
            cupy.cuda.get_current_stream().synchronize()
            start = time.perf_counter()
            for _ in range(10):
                run()
            cupy.cuda.get_current_stream().synchronize()
            seconds = (time.perf_counter() - start) / 10
            print(f"pull {name} {strategy}: {seconds * 1e3:.3f} ms, {graph.num_arcs / seconds / 1e9:.2f} G edges/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
