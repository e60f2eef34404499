"""Every library algorithm on the GPU: checked against its verifier and the CPU, and timed.

Run on the device machine (one call; see docs/gpu.md):

    PYTHONUNBUFFERED=1 python3 bench/algorithms_check.py --datasets .data --out $OUT

1. Each algorithm of the CLI catalog on small and medium graphs: the GPU result passes the
   module's ``verify`` (independent oracle) where that oracle is affordable, and equals the CPU
   result (or lies within tolerance for iterative ones) everywhere; GPU and CPU times.
2. Graph500 BFS on RMAT scale 20: 64 random roots with an edge, on GPU and CPU, every result
   validated with the Graph500 rules (in a process pool).

Prints one line per check and writes the table as JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import gpugraph as gg  # noqa: E402
from gpugraph.algorithms import bfs  # noqa: E402
from gpugraph.algorithms.catalog import SPECS  # noqa: E402
from gpugraph.backend import to_numpy  # noqa: E402

ROWS: list[dict] = []
FAILURES: list[str] = []
_START = time.perf_counter()
#: Oracles written as Python loops (CDLP, LCC, betweenness) run on graphs up to this many arcs.
SLOW_ORACLE_ARCS = 300_000
#: Exact betweenness is one BFS per vertex (and NetworkX's check as many in Python): sampled
#: sources on graphs past this many vertices.
BETWEENNESS_EXACT_VERTICES = 2_000


def log(text: str) -> None:
    print(f"{time.perf_counter() - _START:7.1f}s {text}", flush=True)


def timed_run(module, graph, parameters):
    module.run(graph, **parameters)  # compile / warm up
    start = time.perf_counter()
    result = module.run(graph, **parameters)
    graph.backend.synchronize()
    return result, time.perf_counter() - start


def parameters_for(name: str, graph) -> dict:
    degrees = to_numpy(graph.out_degree())
    if SPECS[name].needs_source:
        return {"source": int(np.argmax(degrees > 0))}
    if name == "betweenness" and graph.num_vertices > BETWEENNESS_EXACT_VERTICES:
        return {"samples": 32}
    return {}


def same(name: str, gpu, cpu) -> bool:
    value = SPECS[name].value
    a, b = gpu.to_numpy(value), cpu.to_numpy(value)
    if name in ("bfs", "matching"):  # any valid tree / maximal matching: compare what is unique
        return name == "matching" or np.array_equal(a, b)
    if a.dtype.kind == "f":
        return bool(np.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True))
    return bool(np.array_equal(a, b))


def check_algorithm(name: str, label: str, gpu_graph, cpu_graph) -> None:
    module = SPECS[name].load()
    parameters = parameters_for(name, cpu_graph)
    try:
        gpu_result, gpu_seconds = timed_run(module, gpu_graph, parameters)
        cpu_result, cpu_seconds = timed_run(module, cpu_graph, parameters)
        verified = "skipped (oracle too slow)"
        if gpu_graph.num_arcs <= SLOW_ORACLE_ARCS or name not in ("cdlp", "lcc", "betweenness"):
            module.verify(cpu_graph, gpu_result)
            verified = "PASS"
        agree = same(name, gpu_result, cpu_result)
        ok = agree
    except Exception as exc:  # noqa: BLE001 - report and go on with the next check
        ROWS.append({"algorithm": name, "graph": label, "error": f"{type(exc).__name__}: {exc}"})
        FAILURES.append(f"{name} {label}")
        log(f"[FAIL] {name:<12} {label:<14} {type(exc).__name__}: {str(exc)[:200]}")
        return
    row = {"algorithm": name, "graph": label, "gpu_seconds": gpu_seconds, "cpu_seconds": cpu_seconds,
           "verify": verified, "gpu_equals_cpu": agree, "rounds": gpu_result.stats.get("rounds")}
    ROWS.append(row)
    if not ok:
        FAILURES.append(f"{name} {label}")
    log(f"[{'PASS' if ok else 'FAIL'}] {name:<12} {label:<14} gpu {gpu_seconds * 1e3:9.2f} ms  cpu "
        f"{cpu_seconds * 1e3:9.2f} ms  verify {verified}  gpu==cpu {agree}")


_HOST = None  # the Graph500 graph, inherited by the forked validators


def _validate(arguments):
    from gpugraph.algorithms.result import Result

    source, depth, parent = arguments
    try:
        bfs.verify(_HOST, Result("bfs", _HOST, {"depth": depth, "parent": parent}, {}, {"source": source}))
        return None
    except AssertionError as exc:
        return str(exc)


def graph500(scale: int, roots: int, device_name: str) -> None:
    global _HOST
    host = _HOST = gg.rmat(scale, seed=1, device="cpu")
    device = host.to(device_name)
    rng = np.random.default_rng(20261122)
    sources = rng.choice(np.flatnonzero(np.diff(host.indptr) > 0), roots, replace=False)
    results, timing = [], {"device": [], "cpu": []}
    for graph, kind in ((device, "device"), (host, "cpu")):
        bfs.run(graph, int(sources[0]))
        for source in sources:
            start = time.perf_counter()
            result = bfs.run(graph, int(source))
            timing[kind].append(time.perf_counter() - start)
            results.append((int(source), result.to_numpy("depth"), result.to_numpy("parent")))
    with multiprocessing.get_context("fork").Pool() as pool:
        errors = [error for error in pool.map(_validate, results) if error]
    edges = host.num_edges
    summary = {
        "scale": scale, "roots": roots, "validated": len(results) - len(errors), "errors": errors[:3],
        "gpu_median_ms": 1e3 * float(np.median(timing["device"])), "cpu_median_ms": 1e3 * float(np.median(timing["cpu"])),
        "gpu_gteps": edges / float(np.median(timing["device"])) / 1e9, "cpu_gteps": edges / float(np.median(timing["cpu"])) / 1e9,
    }
    ROWS.append({"algorithm": "bfs-graph500", **summary})
    if errors:
        FAILURES.append("graph500")
    log(f"[{'PASS' if not errors else 'FAIL'}] Graph500 BFS scale {scale}: {summary['validated']} of {2 * roots} results "
        f"valid; GPU median {summary['gpu_median_ms']:.2f} ms ({summary['gpu_gteps']:.2f} GTEPS), CPU median "
        f"{summary['cpu_median_ms']:.2f} ms ({summary['cpu_gteps']:.3f} GTEPS)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--roots", type=int, default=64)
    parser.add_argument("--out", default=".")
    parser.add_argument("--device", default="cuda", help="where the 'GPU' side runs (cpu for a dry run)")
    parser.add_argument("--only", default=None, help="comma-separated dataset names to use")
    parser.add_argument("--skip-generated", action="store_true", help="leave out the RMAT-16 and grid graphs")
    args = parser.parse_args()
    graphs = [] if args.skip_generated else [
        ("rmat16", gg.rmat(16, seed=2, device="cpu")), ("grid300", gg.grid(300, 300, device="cpu"))
    ]
    folder = Path(args.datasets)
    names = ("karate.mtx", "wiki-Vote.txt.gz", "PGPgiantcompo.graph", "soc-Slashdot0902.txt.gz",
             "cnr-2000.txt.gz", "USA-road-d.NY.gr.gz", "pace-FLA.gr.xz")
    for name in names if args.only is None else args.only.split(","):
        if (folder / name).exists():
            graphs.append((name.split(".")[0][:14], gg.load(folder / name, device="cpu")))
    for label, host in graphs:
        device = host.to(args.device)
        for name in sorted(SPECS):
            if name == "matching" and label != "grid300":
                continue  # needs an undirected bipartite graph: the grid is one
            check_algorithm(name, label, device, host)
    graph500(args.scale, args.roots, args.device)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "algorithms.json").write_text(json.dumps(ROWS, indent=1, default=str))
    log(f"failures: {FAILURES or 'none'}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
