"""Where the time of a several-process Graph500 search goes (issue 8's weak scaling).

The first runs on 2 and 4 GPUs (2026-11-26, docs/graph500.md) took 20-45 ms a search at any
scale (18 or 24 per GPU) against 1 ms on one GPU, with single searches of 3-6 s. This runs the
harness on ``--gpus`` processes once per variant, each rank's searches (after the warm-up)
under cProfile, and writes per rank: its own search times and the functions where its host
time went (``$OUT/diag-<variant>-rank<r>.txt``); it prints rank 0's summary of each variant.

Variants (``--variants``, comma-separated): ``default`` (what the library does: each rank's GPU its
current device and ``NCCL_RUNTIME_CONNECT=0``, NCCL connecting every peer at the start, by
:func:`gpugraph.distributed.comm.use_rank_device`); ``lazy`` (``NCCL_RUNTIME_CONNECT=1``: NCCL
connects a peer at first use, as before 2026-11-26). The 2026-11-26 diagnosis ran ``base`` (lazy
connections) against ``connect``; see docs/graph500.md.

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


def _rank(rank: int, kind: str, out: str, tag: str, scale: int, roots: int) -> None:
    from gpugraph.backend import get_backend
    from gpugraph.graph500 import harness
    from gpugraph.graph500.bfs import Group, Searcher

    profile = cProfile.Profile()
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
    harness.run_process(Group(backend, distributed=True), scale, roots=roots, validate=False)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=2)
    parser.add_argument("--scale", type=int, default=20, help="scale of the whole graph")
    parser.add_argument("--roots", type=int, default=16)
    parser.add_argument("--variants", default="default,lazy")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    from gpugraph.distributed.runner import launch

    for variant in args.variants.split(","):
        if variant not in ("default", "lazy"):
            parser.error(f"unknown variant {variant!r}: use default or lazy")
        os.environ["NCCL_RUNTIME_CONNECT"] = "1" if variant == "lazy" else "0"
        began = time.perf_counter()
        launch(_rank, args.gpus, args.device, args.out, f"{variant}-{args.gpus}", args.scale, args.roots)
        print(f"[{variant}] {args.gpus} processes, scale {args.scale}: {time.perf_counter() - began:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
