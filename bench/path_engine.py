"""The path engine (issue 6) on the GPU: answers checked, schedules timed, ablations. One call.

Run on the device machine (see docs/path-engine.md):

    PYTHONUNBUFFERED=1 python3 bench/path_engine.py --datasets .data --out $OUT

1. Every algorithm (PageRank, adsorption, SSSP, k-core) with every schedule (bsp, bsp-delta,
   async, path-w, path) on cnr-2000, soc-Slashdot0902, wiki-Vote, pace-FLA and RMAT: the answer
   is compared with the library algorithm on the same device (PageRank / adsorption: L1
   distance; SSSP: equal distances; k-core: equal membership of the k-core); time, rounds,
   vertex updates, arcs, bytes and utilisation; times are the median of the runs after the
   first (``--repeat``, default 2).
2. The same checks on the CPU backend for bsp and path on the two table graphs.
3. The library's own PageRank and adsorption on the table graphs, at about the same accuracy.
4. Ablations on cnr-2000: PageRank with the walk kernel timed alone, the dispatch window,
   layered dispatch, D_MAX and chunk size; every algorithm with 1 and 2 sweeps per chunk (4 is the default).
5. Layout modes on the table graphs (``--pieces``, also with ``--quick``): the layout built
   sequentially (1 piece) and in parallel over 2, 4, ... pieces, each ``--repeat`` times (warm;
   the minimum per step), and PageRank with the ``path`` schedule on each layout: rounds,
   vertex updates, time. ``--pieces-only`` runs just this (with ``bsp`` and ``async``
   PageRank for reference).
6. Shared-memory proxy vertices (``--proxies 64,256``, also with ``--quick``): every algorithm
   with the ``path`` schedule on the table graphs with each count of proxies, against the
   table's ``path`` row. ``--proxies-only`` runs just this (with the plain ``path`` rows).
7. Weighted SSSP (``--weighted``, also with ``--quick``): SSSP with every schedule on the named
   graphs with each arc weighted independently, uniform integers 1-100 (seeded), against the
   library's SSSP on the same weights; the table graphs are unweighted, where ``bsp`` updates
   each reached vertex once. ``--weighted-only`` runs just this.
8. Buckets for MIN programs (``--bucket-weights 1,4,inf``, with section 7): SSSP with the
   ``path`` schedule and each bucket width, in mean arc weights (``inf``: no buckets), on
   section 7's weighted graphs and on the table graphs as they are (unweighted, with ``bsp``
   and ``async`` for reference).
9. Message batching (``--batching``, also with ``--quick``; ``--batching-only`` runs just this,
   with the plain ``path`` rows): every algorithm with the ``path`` schedule on the table graphs
   with ``batching=True`` against the same without it, both without proxies (SSSP's default has
   them, and batching runs without).

Every run's line says which layout it used (``pieces=``, ``layout=`` seconds). Prints one line
per run, markdown tables at the end, and writes the rows as JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import gpugraph as gg  # noqa: E402
from gpugraph.algorithms import adsorption, kcore, pagerank, sssp  # noqa: E402
from gpugraph.backend import to_numpy  # noqa: E402
from gpugraph.backend.kernels import compile_report  # noqa: E402
from gpugraph.engines.path import SCHEDULES, solve  # noqa: E402
from gpugraph.engines.path.layout import build_layout  # noqa: E402
from gpugraph.engines.path.programs import make_program  # noqa: E402

ALGORITHMS = ("pagerank", "adsorption", "sssp", "kcore")
#: The largest :func:`error` an answer may have: relative L1 for the accumulative programs, none
#: for SSSP and k-core.
TOLERANCE = {"pagerank": 1e-5, "adsorption": 1e-5, "sssp": 0, "kcore": 0}
TABLE_GRAPHS = ("cnr-2000.txt.gz", "soc-Slashdot0902.txt.gz")
CHECK_GRAPHS = ("wiki-Vote.txt.gz", "pace-FLA.gr.xz")
#: k of the k-core runs: deletes a large share of both table graphs' vertices.
KCORE_K = 10
RMAT_SCALE = 20
#: Section 7's arc weights: uniform integers in [1, WEIGHT_MAX], drawn with WEIGHT_SEED.
WEIGHT_MAX = 100
WEIGHT_SEED = 1
WEIGHTED = f" (arcs weighted 1-{WEIGHT_MAX})"
#: PageRank on cnr-2000 with one option changed (the schedule "path" otherwise as in the table).
ABLATIONS = (
    {"profile": True}, {"priority_min_chunks": 0}, {"layered": True},
    {"max_depth": 2}, {"max_depth": 4}, {"max_depth": 64}, {"chunk_arcs": 4}, {"chunk_arcs": 64},
)
ABLATION_OPTIONS = ("profile", "priority_min_chunks", "layered", "max_depth", "chunk_arcs", "sweeps", "pieces",
                    "proxies", "bucket_weights", "batching")
DEVICE = ["cuda"]  # the device of the table's rows (--device)
ROWS: list[dict] = []
FAILURES: list[str] = []
_START = time.perf_counter()


def log(text: str) -> None:
    print(f"{time.perf_counter() - _START:7.1f}s {text}", flush=True)


def parameters(graph, algorithm: str) -> dict:
    if algorithm == "sssp":
        return {"source": int(np.argmax(to_numpy(graph.out_degree())))}
    if algorithm == "kcore":
        return {"k": KCORE_K}
    return {}


def reference(graph, algorithm: str, params: dict) -> np.ndarray:
    """The library algorithm's answer, in the path engine's terms."""
    if algorithm == "pagerank":
        return to_numpy(pagerank.run(graph, tol=1e-13, max_iterations=2000)["rank"])
    if algorithm == "adsorption":
        return to_numpy(adsorption.run(graph, tol=1e-14, max_iterations=5000)["score"])
    if algorithm == "sssp":
        return to_numpy(sssp.run(graph, **params)["distance"])
    return to_numpy(kcore.run(graph)["core"]) >= params["k"]


def error(algorithm: str, value: np.ndarray, expected: np.ndarray) -> float:
    """L1 distance (PageRank, adsorption: relative to the reference's L1 norm) or count of
    differing vertices (SSSP, k-core)."""
    if algorithm in ("pagerank", "adsorption"):
        return float(np.abs(value - expected).sum() / max(np.abs(expected).sum(), 1e-300))
    return float(np.count_nonzero(value != expected))


def run_one(graph, label: str, algorithm: str, schedule: str, expected, device: str, repeat: int = 2,
            marks: dict | None = None, **options):
    """``solve`` with ``options``, timed (the median of the runs after the first) and checked; the
    row gets ``marks`` too (what the options were chosen as)."""
    params = parameters(graph, algorithm)
    result = None
    times = []
    for _ in range(max(repeat, 2)):  # the first run compiles kernels and builds the layout
        result = solve(graph, algorithm, schedule=schedule, **params, **options)
        times.append(result.stats["seconds"])
    result.stats["seconds"] = float(np.median(times[1:]))
    result.stats["seconds_runs"] = times[1:]
    value = to_numpy(next(iter(result.values.values())))
    err = error(algorithm, value, expected)
    ok = err <= TOLERANCE[algorithm]
    if not ok:
        FAILURES.append(f"{label} {algorithm} {schedule} {device}: error {err}")
    stats = result.stats
    row = {"graph": label, "algorithm": algorithm, "schedule": schedule, "device": device, "error": err, "ok": ok,
           **options, **(marks or {}), **{k: v for k, v in stats.items() if not isinstance(v, str)},
           "layout_built_on": stats.get("layout_built_on")}
    ROWS.append(row)
    log(f"{label:24s} {algorithm:10s} {schedule:9s} {device:4s} {'ok ' if ok else 'BAD'} err={err:.2e} "
        f"time={stats['seconds'] * 1e3:9.2f} ms rounds={stats['rounds']:5d} updates={stats['vertex_updates']:11d} "
        f"arcs={stats['arcs_loaded']:11d} util={stats['utilisation']:.2f} layout={stats.get('layout_seconds', 0):.3f}s "
        f"pieces={stats.get('layout_pieces', '-')} on={stats.get('layout_built_on', '-')} "
        f"{' '.join(f'{k}={v}' for k, v in options.items() if k != 'pieces')}")
    return row


def check_graph(graph, label: str, device: str, schedules=SCHEDULES, algorithms=ALGORITHMS, repeat: int = 2) -> None:
    for algorithm in algorithms:
        expected = reference(graph, algorithm, parameters(graph, algorithm))
        for schedule in schedules:
            try:
                run_one(graph, label, algorithm, schedule, expected, device, repeat)
            except Exception as exc:  # noqa: BLE001 - record and go on: one call must report everything
                FAILURES.append(f"{label} {algorithm} {schedule} {device}: {type(exc).__name__}: {exc}")
                log(f"FAILED {label} {algorithm} {schedule} {device}: {type(exc).__name__}: {exc}")


def library_rows(graph, label: str, device: str, repeat: int) -> None:
    """The library's own PageRank and adsorption (pull, no atomics) at the tolerance that gives
    about the path engine's accuracy, timed the same way, for comparison."""
    for algorithm, module, tol, name in (("pagerank", pagerank, 1e-13, "rank"), ("adsorption", adsorption, 1e-8, "score")):
        expected = reference(graph, algorithm, {})
        times = []
        for _ in range(max(repeat, 2)):
            result = module.run(graph, tol=tol, max_iterations=5000)
            times.append(result.stats["seconds"])
        err = error(algorithm, to_numpy(result[name]), expected)
        seconds = float(np.median(times[1:]))
        ROWS.append({"graph": label, "algorithm": algorithm, "schedule": "library", "device": device, "error": err,
                     "ok": err <= 1e-5, "tol": tol, "seconds": seconds, "rounds": result.stats["rounds"]})
        log(f"{label:24s} {algorithm:10s} library   {device:4s} err={err:.2e} time={seconds * 1e3:9.2f} ms "
            f"rounds={result.stats['rounds']:5d} (algorithms.{algorithm}, tol={tol})")


def layout_rows(graph, label: str, device: str, pieces: list[int], repeat: int) -> None:
    """Section 5: each layout mode built ``repeat`` times (warm; the minimum of each step and of
    the total), then PageRank on it with the ``path`` schedule."""
    program = make_program(graph, "pagerank")
    expected = reference(graph, "pagerank", {})
    for count in pieces:
        layouts = [build_layout(program.indptr, program.indices, pieces=count) for _ in range(max(repeat, 2))]
        steps = {step: min(layout.stage_seconds[step] for layout in layouts) for step in layouts[0].stage_seconds}
        seconds = min(layout.seconds for layout in layouts)
        ROWS.append({"graph": label, "schedule": "layout", "device": "host", "pieces": count, "seconds": seconds,
                     "stage_seconds": steps, **{k: v for k, v in layouts[0].summary().items() if k != "layout_seconds"}})
        log(f"{label:24s} layout in {count:3d} piece(s): {seconds * 1e3:8.1f} ms (min of {len(layouts)}) "
            + " ".join(f"{step}={value * 1e3:.1f}" for step, value in steps.items())
            + f" paths={layouts[0].num_paths} sccs={layouts[0].num_sccs} layers={layouts[0].num_layers}")
        run_one(graph, label, "pagerank", "path", expected, device, repeat, pieces=count, layout="host")


def layout_table() -> str:
    """Section 5 as a table: per graph and layout mode, the layout's time by step and PageRank's
    rounds, vertex updates and time on it."""
    layouts = [r for r in ROWS if r["schedule"] == "layout"]
    if not layouts:
        return ""
    steps = list(layouts[0]["stage_seconds"])
    lines = ["| graph | pieces | layout (ms) | " + " | ".join(steps) + " | paths | PageRank rounds | vertex updates "
             "| time (ms) |", "|---|---:|---:|" + "---:|" * (len(steps) + 4)]
    for layout in layouts:
        run = next((r for r in ROWS if r["graph"] == layout["graph"] and r.get("pieces") == layout["pieces"]
                    and r["schedule"] == "path"), None)
        lines.append(
            f"| {layout['graph']} | {layout['pieces']} | {layout['seconds'] * 1e3:.1f} | "
            + " | ".join(f"{layout['stage_seconds'].get(step, 0) * 1e3:.1f}" for step in steps)
            + f" | {layout['paths']:,} | " + (f"{run['rounds']} | {run['vertex_updates']:,} | {run['seconds'] * 1e3:.2f} |"
                                             if run else "| | |"))
    return "\n".join(lines)


def weighted(graph):
    """``graph`` with each arc weighted independently, uniform integers in [1, WEIGHT_MAX]."""
    rng = np.random.default_rng(WEIGHT_SEED)
    weights = rng.integers(1, WEIGHT_MAX + 1, graph.num_arcs).astype(np.float64)
    return gg.from_csr(to_numpy(graph.indptr), to_numpy(graph.indices), weights, directed=True, device=graph.device)


def weighted_table() -> str:
    """Section 7: weighted SSSP per graph and schedule, updates against ``bsp``, time against
    ``async``."""
    rows = {(r["graph"], r["schedule"]): r for r in ROWS if r["graph"].endswith(WEIGHTED) and r["device"] == DEVICE[0]
            and not set(ABLATION_OPTIONS) & set(r)}
    lines = ["| graph | schedule | time (ms) | rounds | vertex updates | updates / bsp "
             "| time / async |", "|---|---|---:|---:|---:|---:|---:|"]
    for (label, schedule), row in rows.items():
        bsp, asynchronous = rows.get((label, "bsp")), rows.get((label, "async"))
        lines.append(f"| {label} | {schedule} | {row['seconds'] * 1e3:.2f} | {row['rounds']} | {row['vertex_updates']:,} | "
                     + (f"{row['vertex_updates'] / max(bsp['vertex_updates'], 1):.2f}" if bsp else "") + " | "
                     + (f"{row['seconds'] / max(asynchronous['seconds'], 1e-12):.2f}" if asynchronous else "") + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


def bucket_rows(graph, label: str, device: str, factors: list[float], repeat: int) -> None:
    """Section 8: SSSP with the ``path`` schedule and each bucket width (``factors`` times the
    mean arc weight)."""
    expected = reference(graph, "sssp", parameters(graph, "sssp"))
    mean = float(to_numpy(graph.weights).mean()) if graph.weights is not None else 1.0
    for factor in factors:
        run_one(graph, label, "sssp", "path", expected, device, repeat, marks={"bucket_weights": factor},
                bucket_width=factor * mean)


def bucket_table() -> str:
    """Section 8: per graph and bucket width, SSSP's time and updates against ``bsp`` and
    ``async`` on the same graph."""
    rows = [r for r in ROWS if "bucket_weights" in r and r["device"] == DEVICE[0]]
    base = {(r["graph"], r["schedule"]): r for r in ROWS if r.get("algorithm") == "sssp"
            and r["device"] == DEVICE[0] and not set(ABLATION_OPTIONS) & set(r)}
    lines = ["| graph | bucket width (mean weights) | time (ms) | rounds | vertex updates | updates / bsp "
             "| time / async |", "|---|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        bsp, asynchronous = base.get((row["graph"], "bsp")), base.get((row["graph"], "async"))
        lines.append(f"| {row['graph']} | {row['bucket_weights']:g} | {row['seconds'] * 1e3:.2f} | {row['rounds']} | "
                     f"{row['vertex_updates']:,} | "
                     + (f"{row['vertex_updates'] / max(bsp['vertex_updates'], 1):.3f}" if bsp else "") + " | "
                     + (f"{row['seconds'] / max(asynchronous['seconds'], 1e-12):.2f}" if asynchronous else "") + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


def proxy_rows(graph, label: str, device: str, proxies: list[int], repeat: int) -> None:
    """Section 6: every algorithm with the ``path`` schedule and each count of proxies."""
    for count in proxies:
        for algorithm in ALGORITHMS:
            run_one(graph, label, algorithm, "path", reference(graph, algorithm, parameters(graph, algorithm)),
                    device, repeat, proxies=count)


def batching_rows(graph, label: str, device: str, repeat: int) -> None:
    """Section 9: every algorithm with the ``path`` schedule, without proxies, without and with
    message batching, alternating."""
    for algorithm in ALGORITHMS:
        expected = reference(graph, algorithm, parameters(graph, algorithm))
        for batching in (False, True):
            run_one(graph, label, algorithm, "path", expected, device, repeat, proxies=0,
                    **({"batching": True} if batching else {}))


def batching_table() -> str:
    """Section 9: each run with batching against the same graph's and algorithm's ``path`` row
    without proxies."""
    plain = {(r["graph"], r["algorithm"]): r for r in ROWS if r["schedule"] == "path" and r.get("proxies") == 0
             and "batching" not in r and r.get("device") == DEVICE[0]}
    lines = ["| graph | algorithm | time (ms) | time / path without proxies | rounds (without) | vertex updates "
             "(without) |", "|---|---|---:|---:|---|---|"]
    for row in (r for r in ROWS if r.get("batching") and r.get("device") == DEVICE[0]):
        base = plain.get((row["graph"], row["algorithm"]))
        if base:
            lines.append(f"| {row['graph']} | {row['algorithm']} | {row['seconds'] * 1e3:.2f} | "
                         f"{row['seconds'] / base['seconds']:.2f} | {row['rounds']} ({base['rounds']}) | "
                         f"{row['vertex_updates']:,} ({base['vertex_updates']:,}) |")
    return "\n".join(lines) if len(lines) > 2 else ""


def proxies_table() -> str:
    """Section 6: each run with proxies against the same graph's and algorithm's ``path`` row."""
    plain = {(r["graph"], r["algorithm"]): r for r in ROWS if r["schedule"] == "path" and r.get("device") == DEVICE[0]
             and not set(ABLATION_OPTIONS) & set(r)}
    lines = ["| graph | algorithm | proxies | used | time (ms) | time / path | rounds | vertex updates |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for row in (r for r in ROWS if "proxies" in r and "batching" not in r and r["schedule"] == "path"
                and r.get("device") == DEVICE[0]):
        base = plain.get((row["graph"], row["algorithm"]))
        ratio = f"{row['seconds'] / base['seconds']:.2f}" if base else "-"
        lines.append(f"| {row['graph']} | {row['algorithm']} | {row['proxies']} | {row.get('proxy_vertices', '-')} | "
                     f"{row['seconds'] * 1e3:.2f} | {ratio} | {row['rounds']} | {row['vertex_updates']:,} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def table() -> str:
    """The issue's table: the table graphs' rows without ablation options, with the ratios of
    vertex updates to ``bsp`` and of time to ``async`` (blank where that row is missing)."""
    lines = ["| graph | algorithm | schedule | time (ms) | rounds | vertex updates | updates / bsp "
             "| time / async | arcs loaded | utilisation | layout built (ms) | layout built on (pieces) |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    base = {(r["graph"], r["algorithm"], r["schedule"]): r for r in ROWS
            if r["device"] == DEVICE[0] and r["graph"] in TABLE_GRAPHS
            and r["schedule"] in SCHEDULES and not set(ABLATION_OPTIONS) & set(r)}
    for (label, algorithm, schedule), row in base.items():
        bsp = base.get((label, algorithm, "bsp"))
        asynchronous = base.get((label, algorithm, "async"))
        updates = f"{row['vertex_updates'] / max(bsp['vertex_updates'], 1):.2f}" if bsp else ""
        time_ratio = f"{row['seconds'] / max(asynchronous['seconds'], 1e-12):.2f}" if asynchronous else ""
        lines.append(
            f"| {label} | {algorithm} | {schedule} | {row['seconds'] * 1e3:.2f} | {row['rounds']} | "
            f"{row['vertex_updates']:,} | {updates} | {time_ratio} | {row['arcs_loaded']:,} | "
            f"{row['utilisation']:.2f} | {row.get('layout_seconds', 0) * 1e3:.1f} | "
            + (f"{row['layout_built_on']} ({row['layout_pieces']:,}) |" if row.get("layout_built_on") else " |"))
    return "\n".join(lines)


def finish(rows: list, failures: list, out: str | None) -> int:
    """The end of a bench run: the failures listed, ``rows`` and them saved to ``out`` (a JSON
    file) if given; the exit status (1 if any failed)."""
    print(f"\nfailures: {len(failures)}")
    for failure in failures:
        print("  " + failure)
    if out:
        Path(out).write_text(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows,
                                         "failures": failures}, indent=1))
    return 1 if failures else 0


def save(folder: Path) -> None:
    """Write the rows so far (a run cut short still reports what it measured)."""
    (folder / "path_engine.json").write_text(json.dumps({"rows": ROWS, "failures": FAILURES}, indent=1, default=str))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=REPO / ".data")
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--quick", action="store_true", help="table graphs only, no ablations")
    parser.add_argument("--repeat", type=int, default=2, help="runs per table entry (the median of all but the first)")
    parser.add_argument("--device", default="cuda", help="where the main runs go (cpu: a local rehearsal)")
    parser.add_argument("--pieces", default="1,2,4,8,16,32",
                        help="layout modes of section 5: pieces of the partitioning, comma-separated ('' skips it)")
    parser.add_argument("--proxies", default="",
                        help="section 6: counts of shared-memory proxy vertices, comma-separated ('' skips it)")
    parser.add_argument("--proxies-only", action="store_true",
                        help="section 6 alone on the table graphs, with the plain path rows")
    parser.add_argument("--weighted", default="cnr-2000.txt.gz,soc-Slashdot0902.txt.gz,pace-FLA.gr.xz",
                        help="section 7: graphs for weighted SSSP, comma-separated ('' skips it)")
    parser.add_argument("--weighted-only", action="store_true", help="section 7 alone")
    parser.add_argument("--bucket-weights", default="",
                        help="section 8: bucket widths in mean arc weights, comma-separated (inf: none)")
    parser.add_argument("--batching", action="store_true", help="section 9: message batching on the table graphs")
    parser.add_argument("--batching-only", action="store_true",
                        help="section 9 alone on the table graphs, with the plain path rows")
    parser.add_argument("--pieces-only", action="store_true",
                        help="section 5 alone on the table graphs, with bsp and async PageRank for reference")
    args = parser.parse_args()
    pieces = [int(count) for count in args.pieces.split(",") if count.strip()]
    proxies = [int(count) for count in args.proxies.split(",") if count.strip()]
    buckets = [float(factor) for factor in args.bucket_weights.split(",") if factor.strip()]
    DEVICE[0] = args.device
    args.out.mkdir(parents=True, exist_ok=True)
    warm = gg.rmat(8, device=args.device)
    for algorithm in ALGORITHMS:
        for schedule in ("path",) if args.proxies_only or args.batching_only else SCHEDULES:
            solve(warm, algorithm, schedule=schedule, **parameters(warm, algorithm))
    log("compiled: " + ", ".join(f"{r.kernel.rsplit('.', 1)[-1]}/{r.target} {r.seconds:.2f}s"
                                 for r in compile_report()))
    for name in () if args.weighted_only else TABLE_GRAPHS + (() if args.quick else CHECK_GRAPHS):
        path = args.datasets / name
        if not path.exists():
            log(f"skip {name}: not in {args.datasets}")
            continue
        graph = gg.load(path, device=args.device)
        log(f"loaded {graph}")
        if args.proxies_only or args.batching_only:
            if name in TABLE_GRAPHS:
                check_graph(graph, name, args.device, schedules=("path",), repeat=args.repeat)
                proxy_rows(graph, name, args.device, proxies, args.repeat)
                if args.batching or args.batching_only:
                    batching_rows(graph, name, args.device, args.repeat)
                save(args.out)
            continue
        if args.pieces_only:
            if name in TABLE_GRAPHS:
                check_graph(graph, name, args.device, schedules=("bsp", "async"), algorithms=("pagerank",),
                            repeat=args.repeat)
                layout_rows(graph, name, args.device, pieces, args.repeat)
                save(args.out)
            continue
        check_graph(graph, name, args.device, repeat=args.repeat if name in TABLE_GRAPHS else 2)
        if name in TABLE_GRAPHS:
            layout_rows(graph, name, args.device, pieces, args.repeat)
        if name in TABLE_GRAPHS:
            library_rows(graph, name, args.device, args.repeat)
            proxy_rows(graph, name, args.device, proxies, args.repeat)
            if args.batching:
                batching_rows(graph, name, args.device, args.repeat)
        if name in TABLE_GRAPHS and args.device != "cpu":
            check_graph(graph.to("cpu"), name, "cpu", schedules=("bsp", "path"))
        if name == "cnr-2000.txt.gz" and not args.quick:
            expected = reference(graph, "pagerank", {})
            for options in ABLATIONS:
                run_one(graph, name, "pagerank", "path", expected, args.device, **options)
            for options in ({"sweeps": 1}, {"sweeps": 2}):
                for algorithm in ALGORITHMS:
                    run_one(graph, name, algorithm, "path", reference(graph, algorithm, parameters(graph, algorithm)),
                            args.device, **options)
        del graph
        save(args.out)
    only_a_section = args.pieces_only or args.proxies_only or args.batching_only
    for name in [] if only_a_section else [n for n in args.weighted.split(",") if n.strip()]:
        if not (args.datasets / name).exists():
            log(f"skip weighted {name}: not in {args.datasets}")
            continue
        graph = weighted(gg.load(args.datasets / name, device=args.device))
        check_graph(graph, name + WEIGHTED, args.device, algorithms=("sssp",), repeat=args.repeat)
        bucket_rows(graph, name + WEIGHTED, args.device, buckets, args.repeat)
        del graph
        save(args.out)
    for name in TABLE_GRAPHS if buckets and not only_a_section else ():
        graph = gg.load(args.datasets / name, device=args.device)
        if args.weighted_only:  # the table's bsp and async rows are not there
            check_graph(graph, name, args.device, schedules=("bsp", "async"), algorithms=("sssp",), repeat=args.repeat)
        bucket_rows(graph, name, args.device, buckets, args.repeat)
        del graph
        save(args.out)
    if not args.quick and not only_a_section and not args.weighted_only:
        graph = gg.rmat(RMAT_SCALE, device=args.device)
        log(f"generated {graph}")
        check_graph(graph, f"rmat-{RMAT_SCALE}", args.device)
    print(table())
    print(layout_table())
    print(proxies_table())
    print(batching_table())
    print(weighted_table())
    print(bucket_table())
    save(args.out)
    log(f"{len(ROWS)} runs, {len(FAILURES)} failures")
    for failure in FAILURES:
        print("FAIL", failure)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
