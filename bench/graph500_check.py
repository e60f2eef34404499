"""Graph500 BFS with degree separation on the GPUs of one machine: checks, then the tables of issue 8.

One device call runs, in order (each step prints its lines and the JSON grows as it goes):

1. ``check``: scale 18, 8 roots, every tree validated (also compiles the kernels: the first
   search's compile time is printed);
2. ``main``: scale ``--scale`` per GPU, 64 roots, validated (``--main-unvalidated``: not, for
   graphs whose whole edge list does not fit process 0's GPU; TEPS then count the reached
   vertices' degrees), the reference's output block (``quick``, not among the defaults: 16
   roots, not validated, before it);
3. ``profile``: the same graph, 8 roots with the per-phase timers (Figure 8's breakdown);
4. ``options``: DO off (with the per-phase timers); with one process the levels launched one
   by one, in batches, in batches from a CUDA graph; with several processes the base case,
   exchange through peer memory (P), non-blocking reduction (IR), uniquify (U), the pairs sent
   while the delegate visits run (O, alone and with IR), nn visits allowed backward over a
   gathered frontier bitmap (B, alone and with O), with several GPUs per host local
   all-to-all (L, alone and with U); 16 roots each, without timers (their synchronisations would undo the overlaps; the
   ``profile`` step gives the base case's breakdown, Figure 8);
5. ``sweep``: the delegate threshold over powers of two (Figure 6), 16 roots each
   (``factors``: direction factors around the defaults, ``--factor-variants``, 64 roots each);
6. ``micro``: where one search's host time goes (cProfile), single primitives timed alone, and
   the device time of every kernel over five searches (torch.profiler / CUPTI), each kernel of
   one search and of the slowest of 8 roots in order (with ``blocks``: the launch settings of
   blocks per multiprocessor swept);
7. ``ncu``: one search inside a CUDA profiler range, for Nsight Compute started with
   ``--profile-from-start off`` (e.g. ``ncu --profile-from-start off --kernel-name
   regex:normal_pass --section SpeedOfLight --section WarpStateStats python
   bench/graph500_check.py --steps ncu``).

Usage: ``python bench/graph500_check.py [--scale 24] [--gpus 1] [--steps check,main,...] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=24, help="scale per GPU (default 24)")
    parser.add_argument("--gpus", type=int, default=1, help="processes (one GPU each, or Gloo ranks on the CPU)")
    parser.add_argument("--gpus-per-host", type=int, default=1, help="processes per host in the layout")
    parser.add_argument("--steps", default="check,main,profile,options,sweep")
    parser.add_argument("--sweep", default="8,16,32,64,128,256,1024")
    parser.add_argument("--factor-variants", default="defaults;dd:0.1;dd:0.05;dd:0.02;dd:0.1,dn:0.2;dd:0.1,nn:0.01;defaults",
                        help="step factors: variants separated by ';', each 'kind:factor0,...' or "
                             "'kind:factor0/factor1,...' (both of a kind's factors) or 'defaults'")
    parser.add_argument("--options", default="",
                        help="Options of the check, main and profile steps: boolean fields to turn on, "
                             "comma-separated ('no-NAME' turns one off, 'NAME=N' sets an integer field), "
                             "e.g. nn_backward,overlap or levels_ahead=8")
    parser.add_argument("--main-unvalidated", action="store_true",
                        help="the main step without validation (TEPS from the reached vertices' degrees)")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    from gpugraph.backend.kernels import compile_report
    from gpugraph.graph500 import harness
    from gpugraph.graph500.bfs import Options, default_factors

    chosen = _chosen_options(parser, args.options, Options)
    scale = args.scale + (args.gpus - 1).bit_length()
    results = {"scale_per_gpu": args.scale, "scale": scale, "gpus": args.gpus, "steps": {}}
    out = Path(args.out) / f"graph500-{args.device}-{args.gpus}.json"
    out.parent.mkdir(parents=True, exist_ok=True)

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
              f"construction {record['construction_seconds']:.2f} s (pool {max(record['construction_pool_bytes']) / 2**30:.1f} GiB), nn pairs sent {record['nn_pairs_sent']:,} "
              f"in {record['nn_messages']:,} messages, {record['searches_from_cuda_graphs']} searches from CUDA "
              f"graphs (failure: {record['cuda_graph_failure']}), wall {time.perf_counter() - began:.1f} s",
              flush=True)
        results["steps"].setdefault(name, []).append(record)
        save()
        return record

    steps = args.steps.split(",")
    if "micro" in steps:
        _micro(scale, args)
    if "ncu" in steps:
        _profiled_search(scale, args)
    if "check" in steps:
        run("check", min(18, scale), 8, options=Options(**chosen))
        print("compile:", [(item.kernel, round(item.seconds, 2)) for item in compile_report()], flush=True)
    if "quick" in steps:  # a first timing: 16 roots, not validated
        run("quick", scale, 16, validate=False, options=Options(**chosen))
    if "main" in steps:
        record = run("main", scale, 64, validate=not args.main_unvalidated, options=Options(**chosen))
        print("first search:", record["first_search"], flush=True)
    if "profile" in steps:
        record = run("profile", scale, 8, validate=False, options=Options(profile=True, **chosen))
        print("phases:", {k: round(v, 4) for k, v in record["phases"].items()}, flush=True)
    if "options" in steps:
        # Several processes: the options of the paper's Figure 8 tune the collectives, so those
        # rows exchange through them (peer_memory=False; P: through peer memory).
        collectives = {"peer_memory": False} if args.gpus > 1 else {}
        variants = {"no-DO": Options(direction_optimizing=False, profile=True, **collectives)}
        if args.gpus == 1:  # how one process launches its levels
            variants.update({"level by level": Options(levels_ahead=1), "batches, no graph": Options(cuda_graphs=False),
                             "batches as CUDA graphs": Options()})
        if args.gpus > 1:  # not profiled: the timers' device synchronisations would undo the overlaps
            variants.update({"base": Options(peer_memory=False), "P": Options(peer_memory=True),
                             "IR": Options(blocking_reduction=False), "U": Options(uniquify=True),
                             "O": Options(overlap=True), "O+IR": Options(overlap=True, blocking_reduction=False),
                             "B": Options(nn_backward=True, peer_memory=False),
                             "B+O": Options(nn_backward=True, overlap=True)})
        if args.gpus_per_host > 1:
            variants.update({"L": Options(local_all2all=True), "L+U": Options(local_all2all=True, uniquify=True)})
        for label, options in variants.items():
            print(f"[options] {label}", flush=True)
            record = run("options", scale, 16, validate=False, options=options)
            record["label"] = label
            save()
    if "factors" in steps:
        run("warm-up", scale, 2, validate=False)  # compiles the kernels outside the measured runs
        default = default_factors(args.gpus)
        variants = [dict(pair.split(":") for pair in text.split(",")) if text != "defaults" else {}
                    for text in args.factor_variants.split(";")]
        for changes in variants:
            factors = {kind: _factor_pair(changes.get(kind), values) for kind, values in default.items()}
            label = ", ".join(f"{kind} factors {value}" for kind, value in changes.items()) or "defaults"
            print(f"[factors] {label}", flush=True)
            record = run("factors", scale, 64, validate=False, options=Options(factors=factors))
            record["label"] = label
            save()
    if "sweep" in steps:
        for threshold in (int(value) for value in args.sweep.split(",")):
            run("sweep", scale, 16, validate=False, threshold=threshold)
    return 0


def _factor_pair(text: str | None, default: tuple) -> tuple:
    """A kind's (factor0, factor1) from ``--factor-variants`` text: ``None`` keeps ``default``,
    ``"f0"`` replaces factor0, ``"f0/f1"`` both."""
    if text is None:
        return default
    values = [float(value) for value in text.split("/")]
    return (values[0], values[1] if len(values) > 1 else default[1])


def _chosen_options(parser, text: str, options_class) -> dict:
    """``--options`` as keyword arguments of :class:`Options` (boolean fields, and those whose
    default ``None`` means automatic; ``no-NAME`` turns one off, ``NAME=N`` gives an integer
    field, e.g. ``levels_ahead=8``)."""
    chosen = {}
    for name in filter(None, text.split(",")):
        if "=" in name:
            field, value = name.split("=", 1)
            if not hasattr(options_class(), field) or not value.isdigit():
                parser.error(f"--options: {name!r} is not NAME=N with NAME a field of Options")
            chosen[field] = int(value)
            continue
        field = name.removeprefix("no-")
        default = getattr(options_class(), field, "not a field")
        if default is not None and not isinstance(default, bool):
            parser.error(f"--options: {field!r} is not a boolean field of Options")
        chosen[field] = not name.startswith("no-")
    return chosen


def captured_searcher(scale: int, device: str, roots: int, all_roots: bool = False):
    """One process's harness run (no validation) and the :class:`Searcher` it built: the
    searcher and the run's first root (all its roots with ``all_roots``), for timing primitives
    on a real graph."""
    from gpugraph.graph500 import harness

    captured = []
    plain = harness.Searcher

    class Capturing(plain):
        def __init__(self, *arguments, **keywords):
            super().__init__(*arguments, **keywords)
            captured.append(self)

    harness.Searcher = Capturing
    try:
        record = harness.run(scale, processes=1, device=device, roots=roots, validate=False)
    finally:
        harness.Searcher = plain
    return captured[-1], (record["roots"] if all_roots else record["roots"][0])


def _micro(scale, args):
    """cProfile of searches and primitives timed alone, on a searcher captured from the harness."""
    import cProfile
    import pstats

    from gpugraph.backend import to_numpy

    searcher, roots = captured_searcher(scale, args.device, 8, all_roots=True)
    root = roots[0]
    searcher.search(root)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(5):
        searcher.search(root)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    backend = searcher.backend

    def timed(label, function, repeats=20):
        backend.synchronize()
        began = time.perf_counter()
        for _ in range(repeats):
            function()
        backend.synchronize()
        print(f"[micro] {label}: {(time.perf_counter() - began) / repeats * 1e6:.1f} us", flush=True)

    timed("counters read", lambda: to_numpy(searcher.counts))
    timed("close delegates", lambda: searcher._close(9))
    timed("search", lambda: searcher.search(root), 10)
    _searches_after_pauses(searcher, root)
    slowest = _roots_in_turn(searcher, roots)
    print("[micro] CUDA graphs of level batches (first level: captured):",
          {level: graph is not None for level, graph in searcher._graphs.items()}, flush=True)
    if backend.is_cuda and not backend.simulated:
        _kernel_times(searcher, root, slowest)
        if "blocks" in args.steps.split(","):
            _block_sweeps(searcher, root)


def _searches_after_pauses(searcher, root, pause=0.3, repeats=8):
    """Median search time right after another search, after ``pause`` seconds asleep, after
    ``pause`` seconds of host work (what validation does between the harness's searches) and
    after ``pause`` seconds of device work: whether an idle GPU slows the next search."""
    import numpy as np

    xp = searcher.xp
    host_work = np.random.default_rng(0).random(1 << 20)
    device_work = xp.ones(1 << 24, dtype=np.float32)

    def busy(work):
        began = time.perf_counter()
        while time.perf_counter() - began < pause:
            work()
        searcher.backend.synchronize()

    for label, before in (("back to back", lambda: None), ("asleep", lambda: time.sleep(pause)),
                          ("host busy", lambda: busy(lambda: np.sort(host_work))),
                          ("device busy", lambda: busy(lambda: device_work.sum()))):
        seconds = []
        for _ in range(repeats):
            before()
            seconds.append(searcher.search(root)["seconds"])
        print(f"[micro] search {label} ({pause} s before each): median {np.median(seconds) * 1e3:.3f} ms", flush=True)


def _roots_in_turn(searcher, roots):
    """Each root searched once in turn, twice over: back to back, then each after the previous
    search's tree is gathered to the host (``Searcher.parents``, as the harness does before
    validating): whether the roots or the work between searches make the harness slower.
    Returns the slowest root of the back-to-back round."""
    import numpy as np

    slowest = None
    for label, between in (("back to back", lambda: None), ("after parents()", searcher.parents)):
        seconds = []
        for root in roots:
            between()
            seconds.append(searcher.search(root)["seconds"])
        if slowest is None:
            slowest = roots[int(np.argmax(seconds))]
        print(f"[micro] {len(roots)} roots {label}: median {np.median(seconds) * 1e3:.3f} ms, "
              f"{' '.join(f'{value * 1e3:.2f}' for value in seconds)}", flush=True)
    return slowest


def _profiled_search(scale, args):
    """One search (after a warm one) between cudaProfilerStart and cudaProfilerStop."""
    from cupy.cuda import profiler

    searcher, root = captured_searcher(scale, args.device, 1)
    searcher.search(root)
    searcher.backend.synchronize()
    profiler.start()
    stats = searcher.search(root)
    searcher.backend.synchronize()
    profiler.stop()
    print("[ncu] profiled one search:", stats["frontiers"], flush=True)


def _kernel_times(searcher, root, slowest):
    """Device time per kernel over 5 searches from ``root`` (CUPTI through torch.profiler sees
    every kernel of the process, Numba's and CuPy's alike), then each kernel of one search from
    ``root`` and one from ``slowest`` in order, and the kernels' registers per thread."""
    try:
        from torch.profiler import ProfilerActivity, profile
    except ImportError as error:
        print(f"[micro] no kernel times: {error}", flush=True)
        return
    searcher.search(root)
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        for _ in range(5):
            searcher.search(root)
        searcher.backend.synchronize()
    print(profiler.key_averages().table(sort_by="cuda_time_total", row_limit=20, max_name_column_width=60),
          flush=True)
    for label, traced in (("one search", root), ("the slowest root", slowest)):
        searcher.search(traced)
        with profile(activities=[ProfilerActivity.CUDA]) as profiler:
            stats = searcher.search(traced)
        kernels = [event for event in profiler.events() if event.device_type.name == "CUDA"]
        names = [event.name.split("::")[-1].split("[")[0] for event in kernels]
        print(f"[micro] {label}'s kernels in order (us), root {traced}:",
              " ".join(f"{name}={event.device_time:.0f}" for name, event in zip(names, kernels)), flush=True)
        print("[micro] its frontiers and directions:", stats["frontiers"], stats["directions"], flush=True)
    for name in ("normal_pass", "close_delegates", "pull_delegates", "push"):
        registers = getattr(searcher.kernels, name).get_regs_per_thread()
        values = sorted(set(registers.values())) if isinstance(registers, dict) else [registers]
        print(f"[micro] registers per thread, {name}: {values}", flush=True)


def _block_sweeps(searcher, root):
    """Each launch setting of blocks per multiprocessor over 4, 8, 16, 32 (step ``blocks``, with
    ``micro``): the device time of its kernel's launches in one search."""
    from torch.profiler import ProfilerActivity, profile

    from gpugraph import config

    for setting, kernel in (("GRAPH500_DELEGATE_BLOCKS_PER_SM", "pull_delegates"),
                            ("GRAPH500_CLOSE_BLOCKS_PER_SM", "close_delegates"),
                            ("GRAPH500_PULL_BLOCKS_PER_SM", "pull_long_rows"),
                            ("GRAPH500_PUSH_BLOCKS_PER_SM", "push")):
        default = getattr(config, setting)
        for blocks_per_sm in (4, 8, 16, 32):
            setattr(config, setting, blocks_per_sm)
            searcher._graphs.clear()  # captured with the default grid
            searcher.search(root)
            searcher.search(root)
            with profile(activities=[ProfilerActivity.CUDA]) as profiler:
                searcher.search(root)
            times = [event.device_time for event in profiler.events()
                     if event.device_type.name == "CUDA" and kernel in event.name]
            print(f"[micro] {setting} {blocks_per_sm}: {kernel} {' '.join(f'{t:.0f}' for t in times)} us", flush=True)
        setattr(config, setting, default)
        searcher._graphs.clear()


if __name__ == "__main__":
    sys.exit(main())
