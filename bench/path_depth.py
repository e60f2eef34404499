"""D_MAX of the path partitioning against what the path engine's runs gain, on the layout a
graph on a GPU gets (built on the device).

For each table graph and algorithm, ``async`` is timed, then for each D_MAX the layout is
built ``--repeat`` times warm (dropped from the graph each time, the device waited for) and the
``path`` schedule run ``--repeat`` times on it after a warm-up, each answer checked against
``bsp``'s; the medians, rounds and vertex updates are printed as a table and saved.

    python3 bench/path_depth.py --datasets .data --out docs/runs/...json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpugraph as gg  # noqa: E402
from gpugraph import config  # noqa: E402
from gpugraph.engines.path import engine, solve  # noqa: E402
from gpugraph.engines.path.programs import make_program  # noqa: E402
from path_engine import ALGORITHMS, TABLE_GRAPHS, TOLERANCE, error, finish, parameters  # noqa: E402


def warm_layout_seconds(graph, program, max_depth: int, repeat: int) -> float:
    """The median time of building ``program``'s layout ``repeat`` times, after one build."""
    times = []
    for _ in range(repeat + 1):
        graph.__dict__.pop("_path_layouts", None)
        graph.backend.synchronize()
        start = time.perf_counter()
        engine.path_layout(graph, program, max_depth, config.PATH_CHUNK_ARCS, config.PATH_PIECES, "device")
        graph.backend.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=".data")
    parser.add_argument("--graphs", default=",".join(TABLE_GRAPHS))
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--depths", default="1,2,4,16", help="D_MAX values, comma-separated")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--device", default="cuda", help="cpu: a rehearsal (the same steps on one core)")
    parser.add_argument("--out")
    args = parser.parse_args()
    depths = [int(depth) for depth in args.depths.split(",")]
    rows, failures = [], []
    print("| graph | algorithm | async ms | " + " | ".join(f"D_MAX {d}: layout ms / run ms (rounds)" for d in depths)
          + " |\n|---|---|---:|" + "---|" * len(depths), flush=True)
    for name in args.graphs.split(","):
        graph = gg.load(Path(args.datasets) / name, device=args.device)
        for algorithm in args.algorithms.split(","):
            given = parameters(graph, algorithm)
            expected = next(iter(solve(graph, algorithm, schedule="bsp", **given).values.values()))
            program = make_program(graph, algorithm, **given)
            baseline = [solve(graph, algorithm, schedule="async", **given).stats["seconds"]
                        for _ in range(args.repeat + 1)][1:]
            row = {"graph": name, "algorithm": algorithm, "async_seconds": statistics.median(baseline), "depths": {}}
            for depth in depths:
                layout_seconds = warm_layout_seconds(graph, program, depth, args.repeat)
                stats = []
                for attempt in range(args.repeat + 1):
                    result = solve(graph, algorithm, schedule="path", max_depth=depth, layout="device", **given)
                    err = error(algorithm, next(iter(result.values.values())), expected)
                    if err > TOLERANCE[algorithm]:
                        failures.append(f"{name} {algorithm} D_MAX {depth}: error {err}")
                    if attempt:
                        stats.append(result.stats)
                row["depths"][depth] = {"layout_seconds": layout_seconds,
                                        "seconds": statistics.median(s["seconds"] for s in stats),
                                        "seconds_runs": [s["seconds"] for s in stats], "rounds": stats[-1]["rounds"],
                                        "vertex_updates": stats[-1]["vertex_updates"]}
            rows.append(row)
            print(f"| {name} | {algorithm} | {row['async_seconds'] * 1e3:.2f} | "
                  + " | ".join(f"{cell['layout_seconds'] * 1e3:.2f} / {cell['seconds'] * 1e3:.2f} ({cell['rounds']})"
                               for cell in row["depths"].values()) + " |", flush=True)
    return finish(rows, failures, args.out)


if __name__ == "__main__":
    sys.exit(main())
