"""Where a small graph's k-core time goes on the GPU: its undirected graph's path layout, and
one ``path`` and one ``async`` run (issue 6's last preprocessing target, k-core on Slashdot).

Per graph: the layout built as the engine builds it (median of ``--repeat`` warm builds, and by
step with a wait after each), each schedule's run (median ``stats["seconds"]`` and host wall
time); then one of each under torch.profiler (CUPTI): wall time, kernels and their device time,
and the CUDA API calls the host made (count and host time by name).

    python3 bench/path_kcore_probe.py --datasets .data [--graphs soc-Slashdot0902.txt.gz] [--k 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpugraph as gg  # noqa: E402
from gpugraph.engines.path import solve  # noqa: E402
from gpugraph.engines.path.device_layout import build_device_layout  # noqa: E402
from gpugraph.engines.path.programs import make_program  # noqa: E402


def profiled(work, label: str) -> None:
    """Run ``work()`` once under CUPTI and print what the device and the host's CUDA calls did."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        began = time.perf_counter()
        work()
        torch.cuda.synchronize()
        wall = time.perf_counter() - began
    kernels, calls = Counter(), Counter()
    kernel_us, call_us = Counter(), Counter()
    spans = []
    for event in prof.events():
        name = event.name.split("[")[0][:50]
        if event.device_type.name == "CUDA":
            kernels[name] += 1
            kernel_us[name] += event.device_time
            spans.append((event.time_range.start, event.time_range.end))
        elif name.startswith("cu"):
            calls[name] += 1
            call_us[name] += event.cpu_time
    busy = sum(end - start for start, end in spans)
    first = min((start for start, _ in spans), default=0)
    last = max((end for _, end in spans), default=0)
    print(f"  [{label}] wall {wall * 1e3:.3f} ms; {sum(kernels.values())} kernels, device busy {busy:.1f} us "
          f"from first start to last end {last - first:.1f} us", flush=True)
    for name, count in kernels.most_common():
        print(f"    kernel {name:50s} x{count:3d} {kernel_us[name]:8.1f} us", flush=True)
    for name, count in calls.most_common(12):
        print(f"    call   {name:50s} x{count:3d} {call_us[name]:8.1f} us host", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=".data")
    parser.add_argument("--graphs", default="soc-Slashdot0902.txt.gz,cnr-2000.txt.gz")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    for name in args.graphs.split(","):
        graph = gg.load(Path(args.datasets) / name, device="cuda")
        program = make_program(graph, "kcore", k=args.k)
        csr = program.device_csr or (program.indptr, program.indices)

        def build(**timed):
            return build_device_layout(*csr, graph.backend, sort_hubs=program.sorts_hubs, **timed)

        build(), build()
        walls, totals = [], []
        for _ in range(args.repeat):
            began = time.perf_counter()
            totals.append(build().seconds)
            walls.append(time.perf_counter() - began)
        steps = [build(timed_steps=True).stage_seconds for _ in range(args.repeat)]
        print(f"{name}: k-core's graph {len(csr[1]):,} arcs; layout {statistics.median(totals) * 1e3:.3f} ms "
              f"(wall {statistics.median(walls) * 1e3:.3f}); by step "
              + " ".join(f"{step}={statistics.median(s[step] for s in steps) * 1e3:.3f}" for step in steps[0]),
              flush=True)
        for schedule in ("path", "async", "bsp"):
            solve(graph, "kcore", schedule=schedule, k=args.k)
            seconds, walls = [], []
            for _ in range(args.repeat):
                began = time.perf_counter()
                seconds.append(solve(graph, "kcore", schedule=schedule, k=args.k).stats["seconds"])
                walls.append(time.perf_counter() - began)
            print(f"  {schedule:5s} run {statistics.median(seconds) * 1e3:.3f} ms (wall of solve "
                  f"{statistics.median(walls) * 1e3:.3f})", flush=True)
        profiled(build, "layout")
        profiled(lambda: solve(graph, "kcore", schedule="path", k=args.k), "path run")
        profiled(lambda: solve(graph, "kcore", schedule="async", k=args.k), "async run")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
