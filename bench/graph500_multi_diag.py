"""Where the time of a several-process Graph500 search goes (issue 8's weak scaling).

The first runs on 2 and 4 GPUs (2026-11-26, docs/graph500.md) took 20-45 ms a search at any
scale (18 or 24 per GPU) against 1 ms on one GPU, with single searches of 3-6 s. This runs the
harness on ``--gpus`` processes once per variant, each rank's searches (after the warm-up)
under cProfile, and writes per rank: its own search times and the functions where its host
time went (``$OUT/diag-<variant>-rank<r>.txt``); it prints rank 0's summary of each variant.

Variants (``--variants``, comma-separated): ``default`` (what the library does: each rank's GPU its
current device and ``NCCL_RUNTIME_CONNECT=0``, NCCL connecting every peer at the start, by
:func:`gpugraph.distributed.comm.use_rank_device`); ``lazy`` (``NCCL_RUNTIME_CONNECT=1``: NCCL
connects a peer at first use, as before 2026-11-26); ``kernels`` (as ``default``, but the
searches run under torch.profiler instead of cProfile: each rank's device time per kernel and
per search, CUPTI seeing Numba's, CuPy's and NCCL's kernels alike, those of CUDA graphs too;
then the last search's kernels in order with their starts and device times, and the time each
meeting kernel took there: compared across the ranks' files, the rank that waits least at a
meeting is the one the others waited for).
The 2026-11-26 diagnosis ran ``base`` (lazy connections) against ``connect``; see
docs/graph500.md. ``--options`` turns on boolean fields of ``graph500.bfs.Options`` (e.g.
``peer_memory``).

Usage: ``python bench/graph500_multi_diag.py --gpus 2 --scale 20 --roots 16 --out $OUT``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _rank(rank: int, kind: str, out: str, tag: str, scale: int, roots: int, options: dict) -> None:
    from gpugraph.backend import get_backend
    from gpugraph.graph500 import harness
    from gpugraph.graph500.bfs import Group, Options, Searcher

    kernels = tag.startswith("kernels")
    profile = _KernelProfile() if kernels else cProfile.Profile()
    original = Searcher.search
    own = []

    def search(self, root):
        measured = getattr(self, "_diag_warm", False)
        if measured:
            profile.enable()
        try:
            stats = original(self, root)
        finally:
            if measured:
                profile.disable()
        if measured:
            own.append(stats["seconds"])
        return stats

    def warm_up(self, root, _original=Searcher.warm_up):
        _original(self, root)
        self._diag_warm = True

    Searcher.search, Searcher.warm_up = search, warm_up
    backend = get_backend(f"cuda:{rank}" if kind == "cuda" else "cpu")
    began = time.perf_counter()
    harness.run_process(Group(backend, distributed=True), scale, roots=roots, validate=False,
                        options=Options(**options))
    if kernels:
        text = io.StringIO(profile.table(len(own)))
    else:
        text = io.StringIO()
        stats = pstats.Stats(profile, stream=text)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40)
    times = " ".join(f"{value * 1e3:.1f}" for value in own)
    ordered = sorted(own)
    summary = (f"{tag} rank {rank}: {len(own)} searches, median {ordered[len(own) // 2] * 1e3:.2f} ms, "
               f"min {ordered[0] * 1e3:.2f}, max {ordered[-1] * 1e3:.2f}; run {time.perf_counter() - began:.1f} s\n"
               f"ms: {times}\n")
    Path(out, f"diag-{tag}-rank{rank}.txt").write_text(summary + text.getvalue())
    print(summary, flush=True)


class _KernelProfile:
    """torch.profiler's CUDA activity over the measured searches (enable / disable around each,
    like cProfile), summed per kernel."""

    #: Kernels in which a process waits for the others (peer memory).
    MEETINGS = ("share_numbers", "barrier")

    def __init__(self):
        self.device_us = {}
        self.launches = {}
        self.last_search = []  # (name, start us, device us) of the last search's kernels, in order

    def enable(self):
        from torch.profiler import ProfilerActivity, profile

        self._profiler = profile(activities=[ProfilerActivity.CUDA])
        self._profiler.__enter__()

    def disable(self):
        import torch

        torch.cuda.synchronize()
        self._profiler.__exit__(None, None, None)
        self.last_search = []
        for event in self._profiler.events():
            if event.device_type.name == "CUDA":
                name = event.name.split("::")[-1].split("[")[0][:60]
                self.device_us[name] = self.device_us.get(name, 0.0) + event.device_time
                self.launches[name] = self.launches.get(name, 0) + 1
                self.last_search.append((name, event.time_range.start, event.device_time))
        self.last_search.sort(key=lambda item: item[1])

    def table(self, searches: int) -> str:
        searches = max(1, searches)
        rows = sorted(self.device_us.items(), key=lambda item: -item[1])
        total = sum(self.device_us.values()) / searches
        lines = [f"device time per search: {total:.1f} us over {searches} searches (kernel, us per search, "
                 "launches per search)"]
        lines += [f"  {name:60s} {value / searches:9.1f} {self.launches[name] / searches:6.1f}" for name, value in rows]
        first = self.last_search[0][1] if self.last_search else 0.0
        waits = [f"{name} {device:.1f}" for name, _, device in self.last_search if name in self.MEETINGS]
        lines.append("last search, meetings in order (kernel us): " + ", ".join(waits))
        lines.append("last search, kernels in order (start us from the first, device us):")
        lines += [f"  {start - first:9.1f} {device:8.1f}  {name}" for name, start, device in self.last_search]
        return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=2)
    parser.add_argument("--scale", type=int, default=20, help="scale of the whole graph")
    parser.add_argument("--roots", type=int, default=16)
    parser.add_argument("--variants", default="default,lazy")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--options", default="", help="boolean fields of graph500.bfs.Options to turn on")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    from gpugraph.distributed.runner import launch

    options = {name: True for name in args.options.split(",") if name}
    for variant in args.variants.split(","):
        if variant not in ("default", "lazy", "kernels"):
            parser.error(f"unknown variant {variant!r}: use default, lazy or kernels")
        os.environ["NCCL_RUNTIME_CONNECT"] = "1" if variant == "lazy" else "0"
        began = time.perf_counter()
        launch(_rank, args.gpus, args.device, args.out, f"{variant}-{args.gpus}", args.scale, args.roots, options)
        print(f"[{variant}] {args.gpus} processes, scale {args.scale}: {time.perf_counter() - began:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
