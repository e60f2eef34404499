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
meeting is the one the others waited for); ``stamps`` (as ``default``, no profiler: each
rank's host clock at a search's start, when its launches returned, when its counters were read
and at its end; the processes of one host share the clock, so the start skew between them and
the search's span from the first start to the last end are printed per search); ``clocks``
(as ``default``, no profiler, on GPUs: one-thread kernels inside the search's CUDA graph write
the GPU's ``%globaltimer`` at its start, after the reset, after level 0's first meeting, after
level 0's first merge and at the batch's end, and the host's clock is read just before the
launch; each measured search is then run again from the same root after each idle spell of
``--repeat-after-ms`` (0: at once, hot), the processes meeting at a host barrier first; per
rank the medians of each phase, cold and after each spell, and the spread of the ranks'
arrivals at the first meeting; one process has no meetings, only the start-to-end phase);
``kernels_split`` (as ``kernels``, each pass over the normals launched as its forward
visits, then its backward ones); ``rows`` (as ``default``, no profiler: after each measured
search, what the backward visits into delegates did with their long rows, replayed from the
search's final depths: rows queued,
skipped, found here, scanned to the end for a delegate another process found at that level or
one no process found, with their steps; per rank and summed over the ranks).
The 2026-11-26 diagnosis ran ``base`` (lazy connections) against ``connect``; see
docs/graph500.md. ``--options`` turns on boolean fields of ``graph500.bfs.Options`` (e.g.
``peer_memory``).

``--threshold`` sets the delegate threshold (default: the library's rule), e.g. to see where
the time of a lower threshold's searches goes.

Usage: ``python bench/graph500_multi_diag.py --gpus 2 --scale 20 --roots 16 --out $OUT``.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _rank(rank: int, kind: str, out: str, tag: str, scale: int, roots: int, options: dict, processes: int,
          delays: tuple, threshold: int | None) -> None:
    from gpugraph.backend import get_backend
    from gpugraph.graph500 import harness
    from gpugraph.graph500.bfs import Group, Options, Searcher

    kernels, stamps, clocks, rows = (tag.startswith(name) for name in ("kernels", "stamps", "clocks", "rows"))
    profile = (_KernelProfile() if kernels else _Stamps(Searcher) if stamps else _Clocks(Searcher) if clocks
               else _LongRows() if rows else cProfile.Profile())
    if "split" in tag:  # the pass over the normals as two launches a level: its forward visits, then its backward
        _split_normal_pass(Searcher)
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
            if rows:
                profile.add(self, stats)
            for delay in delays if clocks else ():  # the same search again after an idle spell
                time.sleep(delay / 1e3)
                self.group.start_together()
                profile.enable()
                original(self, root)
                profile.disable()
        return stats

    def warm_up(self, root, _original=Searcher.warm_up):
        _original(self, root)
        self._diag_warm = True

    Searcher.search, Searcher.warm_up = search, warm_up
    backend = get_backend(f"cuda:{rank}" if kind == "cuda" else "cpu")
    began = time.perf_counter()
    harness.run_process(Group(backend, distributed=processes > 1), scale, roots=roots, validate=False,
                        options=Options(**options), threshold=threshold)
    if kernels:
        text = io.StringIO(profile.table(len(own)))
    elif rows:
        text = io.StringIO(profile.table())
    elif stamps or clocks:
        text = io.StringIO(json.dumps(profile.searches))
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


def _wrap_method(cls, name: str, before=None, after=None) -> None:
    """Replace method ``name`` of ``cls`` by one that calls ``before`` and ``after`` (each with
    the method's arguments) around it."""
    original = getattr(cls, name)

    def wrapped(instance, *args, **kwargs):
        if before:
            before(instance, *args, **kwargs)
        result = original(instance, *args, **kwargs)
        if after:
            after(instance, *args, **kwargs)
        return result

    setattr(cls, name, wrapped)


def _median(values):
    """The upper median of ``values`` (NaN when empty)."""
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else float("nan")


def _rank_records(out: str, tag: str, processes: int) -> list:
    """Every rank's JSON list of searches at the end of its ``$OUT/diag-<tag>-rank<r>.txt``."""
    ranks = []
    for rank in range(processes):
        text = Path(out, f"diag-{tag}-rank{rank}.txt").read_text()
        ranks.append(json.loads(text[text.index("["):]))
    return ranks


def _split_normal_pass(searcher_class) -> None:
    """``kernels_split``: each pass over the normals launched twice, first with its forward
    visits only (nd marks, nn pairs), then with its backward ones only, so the kernel trace
    tells them apart. The same claims: with several processes the forward pass writes pairs
    and claims no normal, so the backward one may claim by plain stores as before."""
    from gpugraph.graph500 import _kernels_cpu as cells

    original = searcher_class._normal_pass
    forward = cells.ND_FORWARD | cells.NN_FORWARD

    def split(searcher, level, next_slot, allowed, pairs=None, bitmap=None):
        original(searcher, level, next_slot, allowed & forward, pairs, bitmap)
        original(searcher, level, next_slot, allowed & ~forward, pairs, bitmap)

    searcher_class._normal_pass = split


class _Stamps:
    """Host clock readings (``time.perf_counter``, shared by the processes of a host) at a
    search's start, when its timer has started (before the root is set), after the root was set,
    after its batches were launched, after its counters were read, after their levels were
    recorded and at its end, per measured search (enable / disable around each, like cProfile)."""

    #: The readings in the order a search takes them (``start`` and ``end``: enable, disable).
    MARKS = ("start", "rooting", "rooted", "launched", "counted", "recorded", "end")

    def __init__(self, searcher_class):
        self.searches = []
        self._on = False
        _wrap_method(searcher_class, "_set_root", before=lambda searcher, *args: self._stamp("rooting"),
                     after=lambda searcher, *args: self._stamp("rooted"))
        for name, mark in (("_batch", "launched"), ("_read_counts", "counted"), ("_record", "recorded")):
            _wrap_method(searcher_class, name, after=lambda searcher, *args, mark=mark, **kwargs: self._stamp(mark))

    def _stamp(self, mark: str) -> None:
        if self._on:
            self.searches[-1].setdefault(mark, time.perf_counter())

    def enable(self):
        self._on = True
        self.searches.append({"start": time.perf_counter()})

    def disable(self):
        self.searches[-1]["end"] = time.perf_counter()
        self._on = False


class _Clocks:
    """Device clock readings inside each measured search's CUDA graph (module docstring,
    ``clocks``): a CuPy kernel of one thread writes ``%globaltimer`` (ns) into a cell per point;
    the host's ``time.time_ns()`` just before the batch's launch. After each search one more
    stamp between two host readings gives the GPU clock's offset from the host's (``offset``,
    within about a launch's latency), so the launch's latency can be told. Per search a dict
    of ns."""

    POINTS = ("start", "reset", "met", "merged", "end", "calibrate")

    def __init__(self, searcher_class):
        self.searches = []
        self._on = False
        self._cells = self._kernel = None
        clocks = self

        def stamp(point):
            import cupy

            if clocks._kernel is None:
                clocks._kernel = cupy.RawKernel(
                    'extern "C" __global__ void stamp(unsigned long long* cells, int cell) {'
                    ' unsigned long long now; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));'
                    ' cells[cell] = now; }', "stamp")
                clocks._cells = cupy.zeros(len(clocks.POINTS), dtype=cupy.uint64)
            clocks._kernel((1,), (1,), (clocks._cells, np.int32(clocks.POINTS.index(point))))
            return True

        self._stamp = stamp
        wrap = functools.partial(_wrap_method, searcher_class)

        def launching(searcher, level, *args):
            if clocks._on and level == 0:
                clocks.searches[-1]["host_launch"] = time.time_ns()

        def merged(searcher, parity, resolve=False):
            if not resolve and getattr(searcher, "_diag_level", -1) == 0:  # level 0's middle merge
                stamp("merged")

        wrap("_batch", before=launching)
        wrap("_reset", before=lambda searcher: stamp("start"), after=lambda searcher: stamp("reset"))
        wrap("_peer_level", before=lambda searcher, level, *args: setattr(searcher, "_diag_level", level))
        wrap("_share_numbers", after=lambda searcher, slot, row, parity: row == 0 and stamp("met"))
        wrap("_merge_marks", after=merged)
        wrap("_launch_batch", after=lambda searcher, level, *args: level == 0 and stamp("end"))

    def enable(self):
        self._on = True
        self.searches.append({})

    def disable(self):
        self._on = False
        if self._cells is not None:
            before = time.time_ns()
            self._stamp("calibrate")
            cells = self._cells.get()
            after = time.time_ns()
            search = self.searches[-1]
            # one process has no meeting: its cell stays 0
            search.update((point, int(value)) for point, value in zip(self.POINTS, cells) if value)
            search["offset"] = search.pop("calibrate") - (before + after) // 2


def _clock_table(out: str, tag: str, processes: int, delays: tuple) -> str:
    """Per rank, the medians (us) of the phases of its cold (measured) searches and of their
    repeats after each of ``delays`` ms from ``_Clocks``; then the median spread of the ranks'
    arrivals at level 0's first meeting and of their departures from it, each GPU's clock moved
    onto the host's by its ``offset``."""
    ranks = _rank_records(out, tag, processes)
    phases = (("launch->start", "host_launch", "start"), ("reset", "start", "reset"), ("first meeting", "reset", "met"),
              ("L0 probes+merge", "met", "merged"), ("rest of batch", "merged", "end"), ("start->end", "start", "end"))
    kinds = ["cold"] + [f"after {delay:g} ms" for delay in delays]
    step = len(kinds)
    lines = ["rank  kind          " + "  ".join(f"{name:>16s}" for name, _, _ in phases)]
    for rank, searches in enumerate(ranks):
        for offset, kind in enumerate(kinds):
            chosen = searches[offset::step]
            values = [_median((search[last] - search[first] - (search["offset"] if first == "host_launch" else 0)) / 1e3
                              for search in chosen if first in search and last in search)
                      for _, first, last in phases]
            lines.append(f"{rank:4d}  {kind:12s}  " + "  ".join(f"{value:16.1f}" for value in values))
    spreads = []
    for index in range(min(len(searches) for searches in ranks)):
        stamps = [searches[index] for searches in ranks]
        if all("reset" in stamp and "met" in stamp for stamp in stamps):  # on the host's clock
            arrivals = [stamp["reset"] - stamp["offset"] for stamp in stamps]
            departures = [stamp["met"] - stamp["offset"] for stamp in stamps]
            spreads.append(((max(arrivals) - min(arrivals)) / 1e3, (max(departures) - min(departures)) / 1e3))
    for offset, kind in enumerate(kinds):
        chosen = spreads[offset::step]
        if chosen:
            arrive, leave = _median(value for value, _ in chosen), _median(value for _, value in chosen)
            lines.append(f"{kind}: median spread of the ranks' arrivals at the first meeting {arrive:.1f} us, "
                         f"of their departures {leave:.1f} us")
    return "\n".join(lines)


def _stamp_table(out: str, tag: str, processes: int) -> str:
    """Per search, from every rank's stamps (``$OUT/diag-<tag>-rank<r>.txt``): the start skew
    (the calls of ``search``), the clock skew (the timers' starts, after the link waker stopped),
    each phase between two of :attr:`_Stamps.MARKS` (its longest rank; the first reading of a
    mark), the span from the first start to the last end, and the longest rank's own time; us,
    then the medians."""
    ranks = _rank_records(out, tag, processes)
    marks = _Stamps.MARKS
    phases = [f"{first}->{last}" for first, last in zip(marks, marks[1:])]
    rows, lines = [], ["search: start skew, clock skew (the timers' starts), " + ", ".join(phases)
                       + " (longest rank), span first start -> last end, longest own time (us)"]
    for index in range(min(len(searches) for searches in ranks)):
        stamps = [searches[index] for searches in ranks]
        first = min(stamp["start"] for stamp in stamps)
        row = [max(stamp["start"] for stamp in stamps) - first]
        row.append(max(stamp["rooting"] for stamp in stamps) - min(stamp["rooting"] for stamp in stamps))
        row += [max(stamp.get(last, stamp["end"]) - stamp.get(earlier, stamp["start"]) for stamp in stamps)
                for earlier, last in zip(marks, marks[1:])]
        row += [max(stamp["end"] for stamp in stamps) - first, max(stamp["end"] - stamp["start"] for stamp in stamps)]
        rows.append(row)
        lines.append(f"  {index:3d}: " + " ".join(f"{value * 1e6:8.1f}" for value in row))
    medians = [_median(column) for column in zip(*rows)]
    lines.append("  med: " + " ".join(f"{value * 1e6:8.1f}" for value in medians))
    return "\n".join(lines)


class _LongRows:
    """What the backward visits into delegates did with their long rows (``rows``), replayed on
    the host side from a search's final depths, level by level, for the levels whose plan on
    this process pulled through dd rows (dd backward) or dn rows (nd backward). Per level and
    kind: the rows queued after this process's first probes (unvisited delegates whose row here
    is longer than the probes and whose probes found nothing), those skipped because some
    process's probes found the delegate (and, for dn rows, this process's dd rows), those found
    here, and those scanned to their end, split into delegates found by another process at this
    level and delegates no process found (two levels away or more); rows and steps of
    ``GRAPH500_PULL_THREADS`` columns. Summed over the measured searches; every rank's sums are
    also summed over the ranks (collective). Not a model of the CUDA kernel's timing: forward
    visits at the same level (which mark delegates before the dn probes) are left out."""

    KINDS = ("dd", "dn")
    FIELDS = ("queued", "skipped", "found", "found_steps", "elsewhere", "elsewhere_steps", "nowhere",
              "nowhere_steps")

    def __init__(self):
        self.sums = {}  # level -> array (kinds x fields)
        self.group = None

    def enable(self):
        return None

    def disable(self):
        return None

    def add(self, searcher, stats: dict) -> None:
        from gpugraph.backend import to_numpy

        self.group = searcher.group
        xp = searcher.xp
        with searcher.backend.activate():
            for level, directions in enumerate(stats["directions"]):
                pulls = {"dd": directions["dd"] == "backward", "dn": directions["nd"] == "backward"}
                counts = to_numpy(self._level(searcher, xp, level, pulls))
                self.sums[level] = self.sums.get(level, 0) + counts

    def _level(self, searcher, xp, level: int, pulls: dict):
        from gpugraph import config
        from gpugraph.graph500._kernels_cuda import PROBE

        graph, delegate_depth = searcher.graph, searcher.delegate_depth
        unvisited = (delegate_depth < 0) | (delegate_depth > level)
        found_later = (delegate_depth < 0) | (delegate_depth > level + 1)
        first = {}
        probed = xp.zeros(delegate_depth.size, dtype=bool)  # this process's first probes found it
        for kind in self.KINDS:
            if not pulls[kind]:
                continue
            csr = getattr(graph, kind)
            column_depth = delegate_depth if kind == "dd" else searcher.depth
            first[kind] = self._first_hits(xp, csr.indptr, csr.indices, column_depth, level)
            probed |= unvisited & (first[kind] >= 0) & (first[kind] < PROBE)
        anywhere = searcher.group.allreduce_array(probed.astype(np.uint8), "max").astype(bool)
        counts = xp.zeros((len(self.KINDS), len(self.FIELDS)), dtype=np.int64)
        found_here = xp.zeros_like(probed)
        for row, kind in enumerate(self.KINDS):
            if kind not in first:
                continue
            csr = getattr(graph, kind)
            length = csr.indptr[1:] - csr.indptr[:-1]
            hit = first[kind]
            queued = unvisited & ~probed & (length > PROBE)
            skipped = queued & (anywhere | found_here)
            scanned = queued & ~skipped
            found = scanned & (hit >= 0)
            columns = xp.where(hit >= 0, hit + 1, length) - PROBE
            steps = -(-columns // config.GRAPH500_PULL_THREADS)
            ended = scanned & ~found
            for column, mask in ((0, queued), (1, skipped)):
                counts[row, column] = xp.count_nonzero(mask)
            for column, mask in ((2, found), (4, ended & ~found_later), (6, ended & found_later)):
                counts[row, column] = xp.count_nonzero(mask)
                counts[row, column + 1] = steps[mask].sum()
            found_here |= found
        return counts

    @staticmethod
    def _first_hits(xp, indptr, indices, column_depth, level: int):
        """Per row, the position of its first column at depth ``level`` (-1: none)."""
        hits = xp.flatnonzero(column_depth[indices] == level)
        first = xp.full(indptr.size - 1, -1, dtype=np.int64)
        if hits.size:
            rows = xp.searchsorted(indptr, hits, side="right") - 1
            starts = xp.concatenate((xp.ones(1, dtype=bool), rows[1:] != rows[:-1]))
            first[rows[starts]] = hits[starts] - indptr[rows[starts]]
        return first

    def table(self) -> str:
        levels = sorted(self.sums)
        own = np.array([self.sums[level] for level in levels]) if levels else np.zeros((0, 2, 8), dtype=np.int64)
        total = own.copy()
        if self.group is not None and self.group.size > 1:
            total = self.group.allreduce(own.reshape(-1)).reshape(own.shape)
        lines = ["long delegate rows, summed over the measured searches (rows; steps of GRAPH500_PULL_THREADS "
                 "columns): level kind " + " ".join(self.FIELDS)]
        for name, values in (("this rank", own), ("all ranks", total)):
            lines.append(f"{name}:")
            for index, level in enumerate(levels):
                for row, kind in enumerate(self.KINDS):
                    if values[index, row].any():
                        lines.append(f"  L{level} {kind} " + " ".join(str(int(value)) for value in values[index, row]))
        return "\n".join(lines) + "\n"


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
    parser.add_argument("--threshold", type=int, default=None,
                        help="the delegate threshold TH (default: the library's rule)")
    parser.add_argument("--repeat-after-ms", default="0",
                        help="clocks: each measured search run again after each of these idle spells (ms, "
                             "comma-separated; 0: at once)")
    args = parser.parse_args()
    delays = tuple(float(value) for value in args.repeat_after_ms.split(",") if value)
    from gpugraph.distributed.runner import launch

    options = {name: True for name in args.options.split(",") if name}
    Path(args.out).mkdir(parents=True, exist_ok=True)
    for variant in args.variants.split(","):
        if variant not in ("default", "lazy", "kernels", "kernels_split", "stamps", "clocks", "rows"):
            parser.error(f"unknown variant {variant!r}: use default, lazy, kernels, kernels_split, stamps, clocks "
                         "or rows")
        os.environ["NCCL_RUNTIME_CONNECT"] = "1" if variant == "lazy" else "0"
        began = time.perf_counter()
        launch(_rank, args.gpus, args.device, args.out, f"{variant}-{args.gpus}", args.scale, args.roots, options,
               args.gpus, delays, args.threshold)
        print(f"[{variant}] {args.gpus} processes, scale {args.scale}: {time.perf_counter() - began:.1f} s", flush=True)
        if variant == "stamps":
            print(_stamp_table(args.out, f"{variant}-{args.gpus}", args.gpus), flush=True)
        if variant == "clocks":
            print(_clock_table(args.out, f"{variant}-{args.gpus}", args.gpus, delays), flush=True)
        if variant == "rows":
            text = Path(args.out, f"diag-{variant}-{args.gpus}-rank0.txt").read_text()
            print(text[text.index("all ranks:"):], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
