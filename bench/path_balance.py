"""How the path engine's GPU rounds spread their chunks over the SMs: the block scheduler, static
stretches per block, and stretches with work stealing (``solve(balance=...)``, DiGraph §3.2.2).

For each table graph and algorithm (``path`` and ``path-w``, no proxies unless ``--proxies``
says how many), the three balances run in turn ``--repeat`` times after a warm-up, each answer
checked against ``bsp``'s; the medians, rounds and vertex updates are printed as a table and
saved with every run's time.

    python3 bench/path_balance.py --datasets .data --out docs/runs/...json
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpugraph as gg  # noqa: E402
from gpugraph.engines.path import solve  # noqa: E402
from gpugraph.engines.path.engine import BALANCES  # noqa: E402
from path_engine import ALGORITHMS, TABLE_GRAPHS, TOLERANCE, error, finish, parameters  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=".data")
    parser.add_argument("--graphs", default=",".join(TABLE_GRAPHS))
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--schedules", default="path,path-w")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--proxies", type=int, default=0, help="shared-memory proxy vertices of every run")
    parser.add_argument("--device", default="cuda", help="cpu: a rehearsal (the CPU ignores the balance)")
    parser.add_argument("--out")
    args = parser.parse_args()
    rows, failures = [], []
    print("| graph | algorithm | schedule | " + " | ".join(f"{b} ms (rounds)" for b in BALANCES)
          + " | stealing / hardware |\n|---|---|---|" + "---:|" * (len(BALANCES) + 1), flush=True)
    for name in args.graphs.split(","):
        graph = gg.load(Path(args.datasets) / name, device=args.device)
        for algorithm in args.algorithms.split(","):
            given = parameters(graph, algorithm)
            expected = next(iter(solve(graph, algorithm, schedule="bsp", **given).values.values()))
            for schedule in args.schedules.split(","):
                runs = {balance: [] for balance in BALANCES}
                for attempt in range(args.repeat + 1):  # the balances in turn; the first round of runs warms up
                    for balance in BALANCES:
                        result = solve(graph, algorithm, schedule=schedule, balance=balance, proxies=args.proxies,
                                       **given)
                        value = next(iter(result.values.values()))
                        err = error(algorithm, value, expected)
                        if err > TOLERANCE[algorithm]:
                            failures.append(f"{name} {algorithm} {schedule} {balance}: error {err}")
                        if attempt:
                            runs[balance].append(result.stats)
                medians = {balance: statistics.median(s["seconds"] for s in stats) for balance, stats in runs.items()}
                for balance, stats in runs.items():
                    rows.append({"graph": name, "algorithm": algorithm, "schedule": schedule, "balance": balance,
                                 "proxies": args.proxies,
                                 "seconds": medians[balance], "seconds_runs": [s["seconds"] for s in stats],
                                 "rounds": stats[-1]["rounds"], "vertex_updates": stats[-1]["vertex_updates"]})
                print(f"| {name} | {algorithm} | {schedule} | "
                      + " | ".join(f"{medians[b] * 1e3:.2f} ({runs[b][-1]['rounds']})" for b in BALANCES)
                      + f" | {medians['stealing'] / medians['hardware']:.2f} |", flush=True)
    return finish(rows, failures, args.out)


if __name__ == "__main__":
    sys.exit(main())
