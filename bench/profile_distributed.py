"""Where a distributed round's time goes on one rank: cProfile of the engine on a real graph.

Run on the device machine (docs/scaling.md, per-round fixed cost):

    PYTHONUNBUFFERED=1 python3 bench/profile_distributed.py --datasets .data --device cuda

Runs BFS and BSP PageRank once to compile, then once under cProfile, and prints the functions
with the most cumulative and own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from gpugraph.distributed.runner import launch  # noqa: E402


def worker(rank, kind, path):
    import gpugraph as gg
    from gpugraph.backend import get_backend
    from gpugraph.distributed.engine import run_on_rank
    from gpugraph.distributed.partition import partition_graph

    backend = get_backend(f"cuda:{rank}" if kind == "cuda" else "cpu")
    graph = gg.load(path, device=backend, progress=False)
    (part,) = partition_graph(graph, 1, "oec")
    for algorithm, parameters in (("bfs", {"source": 0}), ("pagerank", {"tol": 1e-13})):
        run_on_rank(part, backend, algorithm, parameters)
        profile = cProfile.Profile()
        profile.enable()
        _, stats = run_on_rank(part, backend, algorithm, parameters)
        profile.disable()
        print(f"\n## {algorithm}: {stats['seconds'] * 1e3:.1f} ms, {stats['rounds']} rounds, "
              f"compute {stats['compute_seconds'] * 1e3:.1f} ms", flush=True)
        table = pstats.Stats(profile)
        table.sort_stats("cumulative").print_stats(25)
        table.sort_stats("tottime").print_stats(15)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--graph", default="cnr-2000.txt.gz")
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    args = parser.parse_args()
    launch(worker, 1, args.device, str(Path(args.datasets) / args.graph))
    return 0


if __name__ == "__main__":
    sys.exit(main())
