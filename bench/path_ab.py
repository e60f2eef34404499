"""Time the path engine's schedules in snapshots of the repository, alternating, in one call.

Machines of one kind differ from lend to lend, so versions are compared only within a call
(as ``bench/device_ab.sh`` does for Graph500). Each snapshot runs in a process of its own with
its own kernel caches; the rounds alternate between the snapshots.

Here:   rm -rf .snap && mkdir -p .snap/A .snap/B && git archive main | tar -x -C .snap/A
        git archive wip/branch | tar -x -C .snap/B && cp bench/path_ab.py .snap/ && cp -r .data .snap/data
Device: run(command="cd .snap && python3 path_ab.py A B --datasets data --algorithms kcore", carry=[".snap"])

Prints, per graph, algorithm and schedule, each snapshot's median time over its runs (all
rounds, the first run of each process left out) and rounds; ``--out`` gets the rows as JSON.

``--layouts 1,8`` times building the layout instead (of the graph of each program of
``--layout-programs``, default PageRank's, in that many pieces; two warm builds first): the median total and each step's median, the paths in place of the
rounds, and a digest of the layout's arrays, the same in every snapshot if the layouts are.
Set ``NUMBA_NUM_THREADS`` for the cores the layout may use.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

GRAPHS = ("cnr-2000.txt.gz", "soc-Slashdot0902.txt.gz")


def worker(args) -> None:
    """Run in one snapshot (the working directory; its ``gpugraph`` first on the path): one JSON
    line per run, each algorithm with the parameters of the snapshot's own
    ``bench/path_engine.py`` table."""
    sys.path.insert(0, str(Path.cwd() / "bench"))
    import gpugraph as gg
    from gpugraph.engines.path import solve
    from path_engine import parameters

    if args.layouts:
        layouts(args)
        return
    warm = gg.rmat(8, device=args.device)
    for algorithm in args.algorithms:
        for schedule in args.schedules:
            solve(warm, algorithm, schedule=schedule, **parameters(warm, algorithm))
    for name in args.graphs:
        graph = gg.load(Path(args.datasets) / name, device=args.device)
        for algorithm in args.algorithms:
            for schedule in args.schedules:
                for run in range(args.repeat + 1):
                    result = solve(graph, algorithm, schedule=schedule, **parameters(graph, algorithm))
                    if run:
                        print(json.dumps({"graph": name, "algorithm": algorithm, "schedule": schedule,
                                          "seconds": result.stats["seconds"], "rounds": result.stats["rounds"]}),
                              flush=True)


def layouts(args) -> None:
    """The worker's ``--layouts`` mode: one JSON line per timed build."""
    import numpy as np

    import gpugraph as gg
    from gpugraph.engines.path.layout import build_layout
    from gpugraph.engines.path.programs import make_program

    from path_engine import parameters

    for name, algorithm in ((name, algorithm) for name in args.graphs for algorithm in args.layout_programs):
        graph = gg.load(Path(args.datasets) / name, device="cpu")
        program = make_program(graph, algorithm, **parameters(graph, algorithm))
        # snapshots from before build_layout took ``symmetric`` have no such attribute
        options = {"symmetric": program.symmetric} if hasattr(program, "symmetric") else {}
        for pieces in args.layouts:
            for run in range(args.repeat + 2):
                layout = build_layout(program.indptr, program.indices, pieces=pieces, **options)
                if run >= 2:
                    digest = hashlib.sha256()
                    for array in (layout.vertices, layout.arcs, layout.offsets, layout.chunk_offsets,
                                  layout.source_chunks, layout.chunk_layer):
                        digest.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
                    print(json.dumps({"graph": name, "algorithm": f"layout {algorithm}", "schedule": f"pieces {pieces}",
                                      "seconds": layout.seconds, "rounds": layout.num_paths,
                                      "stages": layout.stage_seconds, "digest": digest.hexdigest()[:12]}),
                          flush=True)


def stage_table(rows: list[dict], args) -> None:
    """Each layout step's median time (ms) per graph, program, pieces and snapshot, and the
    digests."""
    steps = list(dict.fromkeys(step for row in rows for step in row["stages"]))
    print("| graph | layout | pieces | snapshot | digest | " + " | ".join(steps) + " |")
    print("|---|---|---:|---|---|" + "---:|" * len(steps))
    for name, algorithm, pieces, snapshot in ((name, algorithm, pieces, snapshot) for name in args.graphs
                                              for algorithm in args.algorithms for pieces in args.layouts
                                              for snapshot in args.snapshots):
        mine = [row for row in rows if (row["graph"], row["algorithm"], row["schedule"], row["snapshot"])
                == (name, algorithm, f"pieces {pieces}", snapshot)]
        if mine:
            cells = [f"{statistics.median(row['stages'].get(step, 0) for row in mine) * 1e3:.1f}" for step in steps]
            digests = ",".join(sorted({row["digest"] for row in mine}))
            print(f"| {name.split('.')[0]} | {algorithm} | {pieces} | {snapshot} | {digests} | " + " | ".join(cells)
                  + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshots", nargs="+", help="folders holding a copy of the repository")
    parser.add_argument("--datasets", default="data")
    parser.add_argument("--graphs", default=",".join(GRAPHS))
    parser.add_argument("--algorithms", default="kcore")
    parser.add_argument("--schedules", default="async,path-w,path")
    parser.add_argument("--repeat", type=int, default=6, help="timed runs per entry in each round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    parser.add_argument("--layouts", default="", help="pieces to time the layout's building in, comma-separated")
    parser.add_argument("--layout-programs", default="pagerank",
                        help="with --layouts: the programs whose graphs are laid out, comma-separated")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.layouts = [int(count) for count in args.layouts.split(",") if count]
    args.layout_programs = [name for name in args.layout_programs.split(",") if name]
    if args.layouts and not args.worker:
        args.algorithms = ",".join(f"layout {name}" for name in args.layout_programs)
        args.schedules = ",".join(f"pieces {count}" for count in args.layouts)
    args.graphs, args.algorithms, args.schedules = (
        [item for item in text.split(",") if item] for text in (args.graphs, args.algorithms, args.schedules))
    if args.worker:
        worker(args)
        return 0
    rows = []
    for round_number in range(args.rounds):
        for snapshot in args.snapshots:
            folder = Path(snapshot).resolve()
            environment = dict(os.environ, PYTHONPATH=str(folder), NUMBA_CACHE_DIR=f"/tmp/nbcache-{folder.name}",
                               GPUGRAPH_CACHE_DIR=f"/tmp/ggcache-{folder.name}")
            command = [sys.executable, str(Path(__file__).resolve()), snapshot, "--worker",
                       "--datasets", str(Path(args.datasets).resolve()), "--graphs", ",".join(args.graphs),
                       "--algorithms", ",".join(args.algorithms), "--schedules", ",".join(args.schedules),
                       "--repeat", str(args.repeat), "--device", args.device,
                       "--layouts", ",".join(map(str, args.layouts)),
                       "--layout-programs", ",".join(args.layout_programs)]
            start = time.perf_counter()
            done = subprocess.run(command, env=environment, cwd=folder, capture_output=True, text=True)
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            print(f"=== {snapshot}, round {round_number + 1}: {len(lines)} runs, rc {done.returncode}, "
                  f"{time.perf_counter() - start:.1f} s", flush=True)
            if done.returncode:
                print(done.stderr[-3000:], flush=True)
            rows += [dict(json.loads(line), snapshot=snapshot, round=round_number + 1) for line in lines]
    print("| graph | algorithm | schedule | " + " | ".join(f"{s} ms (rounds)" for s in args.snapshots) + " |")
    print("|---|---|---|" + "---:|" * len(args.snapshots))
    for name in args.graphs:
        for algorithm in args.algorithms:
            for schedule in args.schedules:
                cells = []
                for snapshot in args.snapshots:
                    mine = [row for row in rows if (row["graph"], row["algorithm"], row["schedule"], row["snapshot"])
                            == (name, algorithm, schedule, snapshot)]
                    cells.append(f"{statistics.median(r['seconds'] for r in mine) * 1e3:.2f} "
                                 f"({statistics.median(r['rounds'] for r in mine):g})" if mine else "-")
                print(f"| {name.split('.')[0]} | {algorithm} | {schedule} | " + " | ".join(cells) + " |")
    if args.layouts:
        stage_table(rows, args)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "path_ab.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
