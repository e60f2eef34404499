"""The path engine's layout built on the GPU against the host layout, and against what it saves.

For each graph and each size of piece (``--piece-arcs``): the device layout built ``--repeat``
times warm as the engine builds it (median total), as many times waiting after each step (median
by step), checked array for array against its CPU build (the same
steps compiled for the CPU); the host layout (``build_layout``, the default pieces) timed the
same way; then each algorithm's ``async`` run and ``path`` runs on either layout (medians of
``--repeat`` runs after a first, answers checked against ``bsp``). The summary says, per graph
and algorithm, the time one ``path`` run saves against ``async`` and the layout's time.

    python3 bench/path_device_layout.py --datasets .data --out docs/runs/...json
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpugraph as gg  # noqa: E402
from gpugraph import config  # noqa: E402
from gpugraph.backend import to_numpy  # noqa: E402
from gpugraph.engines.path import solve  # noqa: E402
from gpugraph.engines.path.device_layout import build_device_layout  # noqa: E402
from gpugraph.engines.path.layout import build_layout  # noqa: E402
from gpugraph.engines.path.programs import make_program  # noqa: E402
from path_engine import ALGORITHMS, TABLE_GRAPHS, TOLERANCE, error, finish, parameters  # noqa: E402

ARRAYS = ("vertices", "arcs", "offsets", "chunk_offsets", "source_offsets", "source_chunks", "chunk_layer",
          "chunk_mean_degree")


def digest(layout) -> str:
    hashed = hashlib.sha256()
    for name in ARRAYS:
        hashed.update(np.ascontiguousarray(to_numpy(getattr(layout, name))).tobytes())
    return hashed.hexdigest()[:16]


def median_build(build, repeat: int) -> tuple[float, dict, object]:
    """Median seconds of ``repeat`` builds after a first, as the engine builds; median seconds
    by step of as many builds that wait for the device after each step (``timed_steps``, the
    device layout; the host layout times its steps anyway); and the last layout."""
    layouts = [build() for _ in range(repeat + 1)][1:]
    timed = [build(timed_steps=True) for _ in range(repeat)] if not layouts[0].stage_seconds else layouts
    steps = {step: statistics.median(layout.stage_seconds[step] for layout in timed) for step in timed[0].stage_seconds}
    return statistics.median(layout.seconds for layout in layouts), steps, layouts[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=".data")
    parser.add_argument("--graphs", default=",".join(TABLE_GRAPHS))
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--piece-arcs", default="128,512,2048")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--out")
    args = parser.parse_args()
    sizes = [int(value) for value in args.piece_arcs.split(",")]
    rows, failures = [], []
    for name in args.graphs.split(","):
        graph = gg.load(Path(args.datasets) / name, device=args.device)
        backend = graph.backend if graph.backend.is_cuda else None
        for algorithm in args.algorithms.split(","):
            program = make_program(graph, algorithm, **parameters(graph, algorithm))
            if algorithm in ("pagerank", "kcore"):  # the two layouts' graphs: the arcs, and k-core's undirected one
                seconds, steps, layout = median_build(
                    lambda **_: build_layout(program.indptr, program.indices, symmetric=program.symmetric), args.repeat)
                rows.append({"graph": name, "graph_of": algorithm, "layout": "host", "seconds": seconds,
                             "steps": steps, "paths": layout.num_paths})
                print(f"{name[:12]:12s} {algorithm:10s} host layout {seconds * 1e3:8.1f} ms "
                      + " ".join(f"{k}={v * 1e3:.1f}" for k, v in steps.items()), flush=True)
                # as the engine does: a GPU graph's own CSR is already on the device, and so is k-core's
                csr = (graph.indptr, graph.indices) if backend and program.layout_key == "arcs" else (
                    program.device_csr or (program.indptr, program.indices))
                for size in sizes:
                    sort_hubs = program.sorts_hubs  # as the engine builds it
                    seconds, steps, layout = median_build(lambda **timed: build_device_layout(
                        *csr, backend, piece_arcs=size, sort_hubs=sort_hubs, **timed), args.repeat)
                    same = digest(layout) == digest(build_device_layout(program.indptr, program.indices, None,
                                                                        piece_arcs=size, sort_hubs=sort_hubs))
                    if not same:
                        failures.append(f"{name} {algorithm} {size}: the GPU layout differs from its CPU build")
                    rows.append({"graph": name, "graph_of": algorithm, "layout": "device", "piece_arcs": size,
                                 "seconds": seconds, "steps": steps, "paths": layout.num_paths,
                                 "pieces": layout.pieces, "same_as_cpu_build": same})
                    print(f"{name[:12]:12s} {algorithm:10s} device layout {size:5d} arcs/piece ({layout.pieces} pieces)"
                          f" {seconds * 1e3:7.2f} ms same-as-cpu={same} "
                          + " ".join(f"{k}={v * 1e3:.2f}" for k, v in steps.items()), flush=True)
            expected = solve(graph, algorithm, schedule="bsp", **parameters(graph, algorithm))
            value = next(iter(expected.values.values()))
            variants = [("async", {}, None), ("path", {"layout": "host"}, None)]
            variants += [("path", {"layout": "device"}, size) for size in sizes]
            for schedule, options, size in variants:
                if size is not None:
                    config.PATH_DEVICE_PIECE_ARCS = size
                runs = [solve(graph, algorithm, schedule=schedule, **options, **parameters(graph, algorithm))
                        for _ in range(args.repeat + 1)]
                got = next(iter(runs[-1].values.values()))
                err = error(algorithm, got, value)
                if err > TOLERANCE[algorithm]:
                    failures.append(f"{name} {algorithm} {schedule} {options} {size}: error {err}")
                stats = runs[-1].stats
                row = {"graph": name, "algorithm": algorithm, "schedule": schedule, **options, "piece_arcs": size,
                       "seconds": statistics.median(r.stats["seconds"] for r in runs[1:]),
                       "seconds_runs": [r.stats["seconds"] for r in runs[1:]],
                       "setup_seconds": statistics.median(r.stats["setup_seconds"] for r in runs[1:]),
                       "updates": stats["vertex_updates"], "rounds": stats["rounds"], "error": err}
                rows.append(row)
                print(f"{name[:12]:12s} {algorithm:10s} {schedule:5s} {options.get('layout', ''):6s} "
                      f"{size or '':>5} {row['seconds'] * 1e3:8.2f} ms setup={row['setup_seconds'] * 1e3:6.2f} ms "
                      f"updates={row['updates']:9d} "
                      f"rounds={row['rounds']:4d} err={err:.1e}", flush=True)
            config.PATH_DEVICE_PIECE_ARCS = sizes[0]
    print("\nper run: time path saves against async, and the warm layout's median time (ms)")
    for run in [r for r in rows if r.get("schedule") == "path"]:
        plain = next(r for r in rows if r.get("schedule") == "async" and r["graph"] == run["graph"]
                     and r["algorithm"] == run["algorithm"])
        graph_of = "kcore" if run["algorithm"] == "kcore" else "pagerank"
        layout = next((r for r in rows if "graph_of" in r and r["graph"] == run["graph"] and r["graph_of"] == graph_of
                       and r["layout"] == run["layout"] and r.get("piece_arcs") == run["piece_arcs"]), None)
        if layout is None:
            continue
        saved = (plain["seconds"] - run["seconds"]) * 1e3
        run["saved_ms"], run["layout_ms"] = saved, layout["seconds"] * 1e3
        print(f"{run['graph'][:12]:12s} {run['algorithm']:10s} {run['layout']:6s} {run['piece_arcs'] or '':>5} "
              f"path/async {run['seconds'] / plain['seconds']:.2f} saved {saved:7.2f} layout {run['layout_ms']:7.2f} "
              f"{'below' if run['layout_ms'] < saved else 'ABOVE'}")
    return finish(rows, failures, args.out)


if __name__ == "__main__":
    sys.exit(main())
