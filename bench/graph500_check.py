"""Graph500 BFS with degree separation on the GPUs of one machine: checks, then the tables of issue 8.

One device call runs, in order (each step prints its lines and the JSON grows as it goes):

1. ``check``: scale 18, 8 roots, every tree validated (also compiles the kernels: the first
   search's compile time is printed);
2. ``main``: scale ``--scale`` per GPU, 64 roots, validated, the reference's output block;
3. ``profile``: the same graph, 8 roots with the per-phase timers (Figure 8's breakdown);
4. ``options``: DO off, and with several processes the base case, non-blocking reduction and
   uniquify, with several GPUs per host local all-to-all (alone and with uniquify), 16 roots,
   with the per-phase timers (Figure 8's breakdown);
5. ``sweep``: the delegate threshold over powers of two (Figure 6), 16 roots each;
6. ``micro``: where one search's host time goes (cProfile), single primitives timed alone, and
   for the per-level kernels the host time of the launch call next to the device time.

Usage: ``python bench/graph500_check.py [--scale 24] [--gpus 1] [--steps check,main,...] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=24, help="scale per GPU (default 24)")
    parser.add_argument("--gpus", type=int, default=1, help="processes (one GPU each, or Gloo ranks on the CPU)")
    parser.add_argument("--gpus-per-host", type=int, default=1, help="processes per host in the layout")
    parser.add_argument("--steps", default="check,main,profile,options,sweep")
    parser.add_argument("--sweep", default="8,16,32,64,128,256,1024")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    from gpugraph.backend.kernels import compile_report
    from gpugraph.graph500 import harness
    from gpugraph.graph500.bfs import Options

    scale = args.scale + (args.gpus - 1).bit_length()
    results = {"scale_per_gpu": args.scale, "scale": scale, "gpus": args.gpus, "steps": {}}
    out = Path(args.out) / f"graph500-{args.device}-{args.gpus}.json"

    def save():
        out.write_text(json.dumps(results, indent=1))

    def run(name, graph_scale, roots, validate=True, **keywords):
        began = time.perf_counter()
        record = harness.run(graph_scale, processes=args.gpus, device=args.device, roots=roots, validate=validate,
                             gpus_per_host=args.gpus_per_host, **keywords)
        text = record.pop("text")
        if name == "main":
            print(text)
        teps = record["harmonic_mean_teps"] / 1e9
        median = sorted(record["seconds"])[len(record["seconds"]) // 2]
        print(f"[{name}] scale {graph_scale} TH {record['threshold']} delegates {record['delegates']:,} "
              f"arcs {record['arcs']} harmonic {teps:.1f} GTEPS, median {median * 1e3:.3f} ms, "
              f"construction {record['construction_seconds']:.2f} s, nn pairs sent {record['nn_pairs_sent']:,} "
              f"in {record['nn_messages']:,} messages, wall {time.perf_counter() - began:.1f} s",
              flush=True)
        results["steps"].setdefault(name, []).append(record)
        save()
        return record

    steps = args.steps.split(",")
    if "micro" in steps:
        _micro(harness, scale, args)
    if "check" in steps:
        run("check", min(18, scale), 8)
        print("compile:", [(item.kernel, round(item.seconds, 2)) for item in compile_report()], flush=True)
    if "main" in steps:
        record = run("main", scale, 64)
        print("first search:", record["first_search"], flush=True)
    if "profile" in steps:
        record = run("profile", scale, 8, validate=False, options=Options(profile=True))
        print("phases:", {k: round(v, 4) for k, v in record["phases"].items()}, flush=True)
    if "options" in steps:
        variants = {"no-DO": Options(direction_optimizing=False, profile=True)}
        if args.gpus > 1:
            variants.update({"base": Options(profile=True), "IR": Options(blocking_reduction=False, profile=True),
                             "U": Options(uniquify=True, profile=True)})
        if args.gpus_per_host > 1:
            variants.update({"L": Options(local_all2all=True, profile=True),
                             "L+U": Options(local_all2all=True, uniquify=True, profile=True)})
        for label, options in variants.items():
            print(f"[options] {label}", flush=True)
            record = run("options", scale, 16, validate=False, options=options)
            record["label"] = label
            save()
    if "sweep" in steps:
        for threshold in (int(value) for value in args.sweep.split(",")):
            run("sweep", scale, 16, validate=False, threshold=threshold)
    return 0


def _micro(harness, scale, args):
    """cProfile of searches and primitives timed alone, on a searcher captured from the harness."""
    import cProfile
    import pstats

    captured = []

    class Capturing(harness.Searcher):
        def __init__(self, *arguments, **keywords):
            super().__init__(*arguments, **keywords)
            captured.append(self)

    harness.Searcher = Capturing
    record = harness.run(scale, processes=1, device=args.device, roots=2, validate=False)
    harness.Searcher = Capturing.__mro__[1]
    searcher, root = captured[-1], record["roots"][0]
    searcher.search(root)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(5):
        searcher.search(root)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    backend = searcher.backend

    def timed(label, function, repeats=20):
        backend.synchronize()
        began = time.perf_counter()
        for _ in range(repeats):
            function()
        backend.synchronize()
        print(f"[micro] {label}: {(time.perf_counter() - began) / repeats * 1e6:.1f} us", flush=True)

    timed("previsit + read", lambda: searcher._previsit(2))
    timed("mark found", lambda: searcher._mark_found(9))
    timed("search", lambda: searcher.search(root), 10)
    if backend.is_cuda and not backend.simulated:
        _split_launches(searcher)


def _split_launches(searcher):
    """Host time of a launch call and device time of the kernel it starts, for the per-level
    kernels: which of the two makes the small levels cost ~0.45 ms."""
    import cupy

    from gpugraph import config
    from gpugraph.backend.kernels import launch_cuda_grid, launch_cuda_kernel

    backend, kernels, degree = searcher.backend, searcher.kernels, searcher.degree
    blocks = backend.multiprocessors() * config.GRAPH500_PREVISIT_BLOCKS_PER_SM
    previsit = (searcher.depth, searcher.delegate_depth, np.int32(2), searcher.has_nd, degree["nd"], degree["nn"],
                degree["dd"], degree["dn"], searcher.counts, searcher.normal_queue, searcher.delegate_queue,
                searcher.unvisited_queue)
    cases = {
        "previsit kernel": lambda: launch_cuda_grid(kernels.previsit, backend, blocks, backend.threads_per_block(),
                                                    *previsit),
        "mark_found kernel": lambda: launch_cuda_kernel(kernels.mark_found, backend, int(searcher.new.size),
                                                        searcher.new, searcher.delegate_depth, np.int32(9)),
        "cupy fill (counters)": lambda: searcher.counts.fill(0),
        "counters read": lambda: searcher.counts.get(),
    }
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    for label, function in cases.items():
        host = device = 0.0
        for _ in range(20):
            backend.synchronize()
            start.record()
            began = time.perf_counter()
            function()
            host += time.perf_counter() - began
            end.record()
            end.synchronize()
            device += cupy.cuda.get_elapsed_time(start, end) / 1e3
        print(f"[micro] {label}: host call {host / 20 * 1e6:.1f} us, start to end on the device "
              f"{device / 20 * 1e6:.1f} us", flush=True)


if __name__ == "__main__":
    sys.exit(main())
