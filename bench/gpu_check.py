"""One-call GPU check for the device machine: versions, compat shim, kernels, graph movement, BFS.

Run on the device machine (see docs/gpu.md):

    PYTHONUNBUFFERED=1 python3 bench/gpu_check.py --scale 22 --out $OUT

Prints a short report last and writes the full record as JSON to ``--out``. Exits non-zero if any
check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import gpugraph as gg  # noqa: E402
from gpugraph.algorithms import bfs  # noqa: E402
from gpugraph.backend import to_numpy  # noqa: E402
from gpugraph.backend.kernels import compile_report  # noqa: E402

FAILURES: list[str] = []


_START = time.perf_counter()


def check(name: str, ok: bool, detail: str = "") -> None:
    """Record and print one check (with seconds since the start)."""
    print(f"[{'PASS' if ok else 'FAIL'}] {time.perf_counter() - _START:6.1f}s {name} {detail}", flush=True)
    if not ok:
        FAILURES.append(name)


def versions() -> dict:
    import numba

    record = {"python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__}
    for module in ("numba_cuda", "cupy", "torch"):
        try:
            record[module] = __import__(module).__version__
        except Exception as exc:  # noqa: BLE001 - report whatever is missing
            record[module] = f"missing ({exc.__class__.__name__})"
    return record


def first_kernel_in_fresh_process() -> float:
    """First-launch time of a CUDA kernel in a new process (shows the on-disk cache at work)."""
    code = (
        "import gpugraph as gg;"
        "from gpugraph.backend.kernels import compile_report;"
        "g = gg.from_edges([0, 1], [1, 0], device='cuda');"
        "print([e.seconds for e in compile_report() if e.target.startswith('cuda')][0])"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    if output.returncode != 0:
        check("kernel in a fresh process", False, output.stderr.strip()[-500:])
        return float("nan")
    return float(output.stdout.split()[-1])


def copy_bandwidth(backend) -> float:
    """Device-to-device copy rate in bytes/s (read + write), median of 10."""
    xp = backend.xp
    source = xp.arange(2**28, dtype=np.float32)  # 1 GiB
    target = xp.empty_like(source)
    start, stop = xp.cuda.Event(), xp.cuda.Event()
    times = []
    for _ in range(10):
        start.record()
        target[...] = source
        stop.record()
        stop.synchronize()
        times.append(xp.cuda.get_elapsed_time(start, stop) / 1e3)
    return 2 * source.nbytes / float(np.median(times))


def time_bfs(graph, sources, backend) -> tuple[float, list]:
    """Median BFS seconds over ``sources`` (after the compile launch) and the results."""
    results, seconds = [], []
    for source in sources:
        backend.synchronize()
        start = time.perf_counter()
        result = bfs.run(graph, int(source))
        backend.synchronize()
        seconds.append(time.perf_counter() - start)
        results.append(result)
    return float(np.median(seconds)), results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=int, default=22)
    parser.add_argument("--sources", type=int, default=8)
    parser.add_argument("--datasets", default=str(REPO / ".data"), help="folder of real graphs to load")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    record: dict = {"versions": versions()}
    print(json.dumps(record["versions"]), flush=True)

    from gpugraph.backend.numba_cuda import apply_numpy_compat

    shim = apply_numpy_compat()
    record["row_stack_shim_applied"] = shim
    check("numpy row_stack shim", True, f"(applied={shim}, numpy {np.__version__})")

    backend = gg.get_backend("cuda")
    record["device"] = backend.device_description()
    check("cuda backend", backend.kind == "cuda" and not backend.simulated, record["device"])

    # 1. Graphs built on the GPU equal the CPU build, for every duplicate policy and direction.
    rng = np.random.default_rng(7)
    src, dst, weights = rng.integers(0, 1000, 20000), rng.integers(0, 1000, 20000), rng.random(20000)
    start = time.perf_counter()
    for duplicates in ("keep", "first", "min", "max", "sum"):
        for directed in (True, False):
            options = dict(num_vertices=1000, duplicates=duplicates, directed=directed)
            on_gpu = gg.from_edges(src, dst, weights, device="cuda", **options)
            on_cpu = gg.from_edges(src, dst, weights, device="cpu", **options)
            same = on_gpu.equals(on_cpu)
            detail = ""
            if not same:
                for name in ("indptr", "indices", "weights"):
                    mine, theirs = to_numpy(getattr(on_gpu, name)), getattr(on_cpu, name)
                    if mine.shape != theirs.shape or not np.array_equal(mine, theirs):
                        detail = f"first difference in {name}: {mine[:8]} vs {theirs[:8]}"
                        break
            check(f"cuda build == cpu build (duplicates={duplicates}, directed={directed})", same, detail)
    record["gpu_build_checks_seconds"] = time.perf_counter() - start
    check("cuda CSC == cpu CSC", np.array_equal(to_numpy(on_gpu.in_indices), on_cpu.in_indices)
          and np.array_equal(to_numpy(on_gpu.in_edge_ids), on_cpu.in_edge_ids))

    # 2. RMAT graph: generate, move to the GPU and back unchanged.
    from gpugraph.io import generators

    start = time.perf_counter()
    host = generators.rmat(args.scale, seed=1, device="cpu")
    record["rmat_cpu_seconds"] = time.perf_counter() - start
    start = time.perf_counter()
    device_generated = generators.rmat(args.scale, seed=1, device="cuda")
    backend.synchronize()
    record["rmat_gpu_seconds"] = time.perf_counter() - start
    check(f"rmat scale {args.scale}: GPU generation == CPU generation", device_generated.equals(host),
          f"(cpu {record['rmat_cpu_seconds']:.2f} s, gpu {record['rmat_gpu_seconds']:.2f} s)")
    host.in_indices  # noqa: B018 - build the CSC so it travels too
    start = time.perf_counter()
    on_gpu = host.to("cuda")
    backend.synchronize()
    record["to_cuda_seconds"] = time.perf_counter() - start
    back = on_gpu.to("cpu")
    check("graph -> cuda -> cpu unchanged", back.equals(host) and on_gpu.device == "cuda:0",
          f"({host!r}, {host.memory_footprint()['total'] / 2**20:.0f} MiB, to cuda {record['to_cuda_seconds']:.3f} s)")

    # 3. BFS on the GPU: first launch (compile), then timed runs validated against the rules.
    degrees = to_numpy(host.out_degree())
    candidates = np.flatnonzero(degrees > 0)
    sources = np.random.default_rng(3).choice(candidates, size=args.sources, replace=False)
    gpu_seconds, gpu_results = time_bfs(on_gpu, sources, backend)
    cpu_seconds, cpu_results = time_bfs(host, sources[:1], gg.get_backend("cpu"))
    bfs.verify(on_gpu, gpu_results[0])
    same = all(np.array_equal(a.to_numpy("depth"), b.to_numpy("depth")) for a, b in zip(gpu_results, cpu_results))
    check("GPU BFS valid (Graph500 rules) and depths == CPU", same)
    undirected_edges = host.num_edges
    record["bfs"] = {
        "gpu_median_seconds": gpu_seconds,
        "cpu_median_seconds": cpu_seconds,
        "gpu_gteps": undirected_edges / gpu_seconds / 1e9,
        "cpu_gteps": undirected_edges / cpu_seconds / 1e9,
        "rounds": [r.stats["rounds"] for r in gpu_results],
    }

    # 4. Kernel compile time and the on-disk cache.
    record["first_launches"] = [vars(entry) for entry in compile_report()]
    record["fresh_process_first_launch_seconds"] = first_kernel_in_fresh_process()
    record["copy_bandwidth_bytes_per_second"] = 0.0 if backend.simulated else copy_bandwidth(backend)

    # 5. Real graphs carried along in .data/ (optional).
    record["datasets"] = {}
    for path in sorted(Path(args.datasets).glob("*")) if Path(args.datasets).is_dir() else []:
        graph = gg.load(path, device="cpu")
        moved = graph.to("cuda").to("cpu")
        record["datasets"][path.name] = [graph.num_vertices, graph.num_edges]
        check(f"{path.name} -> cuda -> cpu unchanged", moved.equals(graph),
              f"(n={graph.num_vertices:,} m={graph.num_edges:,})")

    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "gpu_check.json").write_text(json.dumps(record, indent=2, default=str))
    print("\n## summary")
    print(f"device                     {record['device']}")
    print(f"numpy / numba / numba-cuda {np.__version__} / {record['versions']['numba']} / {record['versions']['numba_cuda']}")
    for entry in record["first_launches"]:
        print(f"first launch               {entry['kernel']:<22} [{entry['target']}] {entry['seconds']:.3f} s")
    print(f"first launch, new process  {record['fresh_process_first_launch_seconds']:.3f} s (disk cache)")
    print(f"copy bandwidth             {record['copy_bandwidth_bytes_per_second'] / 1e12:.2f} TB/s")
    print(f"rmat scale {args.scale}              cpu {record['rmat_cpu_seconds']:.2f} s, gpu {record['rmat_gpu_seconds']:.2f} s")
    print(f"bfs (top-down, naive)      gpu {gpu_seconds * 1e3:.1f} ms = {record['bfs']['gpu_gteps']:.2f} GTEPS; "
          f"cpu {cpu_seconds * 1e3:.1f} ms = {record['bfs']['cpu_gteps']:.3f} GTEPS")
    print(f"failures                   {FAILURES or 'none'}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
