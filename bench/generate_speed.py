"""Speed of the Graph500 RMAT generator, and of building a Graph from its edges.

For each scale (default 18, 20, 22: 4.2M, 17M, 67M edges) and each device (the CPU, and the GPU
when CuPy sees one), times ``rmat_edges`` (seed 1, Graph500 parameters, permuted ids) and then
``from_edge_list`` on the same device, ``--repeats`` times each; the median is reported. Kernels
are compiled (or loaded from Numba's cache) by an untimed scale-10 run first. GPU timings
synchronise the device before the clock stops. With ``--io``, also times, at the largest scale,
saving and loading the binary ``.gg`` file and writing the edge list as text.

Usage::

    python bench/generate_speed.py [--scales 18 20 22] [--repeats 3] [--devices cpu cuda] [--io]

Prints Markdown tables: device, scale, vertices, edges, generation seconds and million edges per
second, build seconds and million edges per second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpugraph.backend import cuda_available, get_backend  # noqa: E402
from gpugraph.graph.build import from_edge_list  # noqa: E402
from gpugraph.io import binary, generators, writers  # noqa: E402

_WARM_UP_SCALE = 10
_SEED = 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[18, 20, 22])
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (median reported)")
    parser.add_argument("--devices", nargs="+", default=None,
                        help="devices to time (default: cpu, and cuda when a GPU is usable)")
    parser.add_argument("--io", action="store_true", help="also time .gg save/load and text writing")
    args = parser.parse_args()
    devices = args.devices or (["cpu", "cuda"] if cuda_available() else ["cpu"])

    print(f"# RMAT generation and Graph build ({_machine()}, median of {args.repeats})\n")
    print("| device | scale | vertices | edges | generate (s) | M edges/s | build (s) | M edges/s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for device in devices:
        backend = get_backend(device)
        _generate_and_build(backend, _WARM_UP_SCALE)
        for scale in args.scales:
            generate, build = _median_times(backend, scale, args.repeats)
            edges = generators.GRAPH500_EDGE_FACTOR << scale
            print(
                f"| {backend.device_description()} | {scale} | {1 << scale:,} | {edges:,} | "
                f"{generate:.3f} | {edges / generate / 1e6:,.1f} | {build:.3f} | {edges / build / 1e6:,.1f} |",
                flush=True,
            )
    if args.io:
        _io_table(max(args.scales), args.repeats)


def _machine() -> str:
    return f"{os.cpu_count()} CPU cores, {numba.get_num_threads()} Numba threads"


def _generate_and_build(backend, scale: int) -> tuple[float, float]:
    start = time.perf_counter()
    edges = generators.rmat_edges(scale, seed=_SEED, device=backend)
    backend.synchronize()
    generated = time.perf_counter()
    from_edge_list(edges, device=backend)
    backend.synchronize()
    return generated - start, time.perf_counter() - generated


def _median_times(backend, scale: int, repeats: int) -> tuple[float, float]:
    runs = [_generate_and_build(backend, scale) for _ in range(repeats)]
    return statistics.median(run[0] for run in runs), statistics.median(run[1] for run in runs)


def _io_table(scale: int, repeats: int) -> None:
    graph = generators.rmat(scale, seed=_SEED, device="cpu")
    print(f"\n# Writing and reading the scale-{scale} graph ({graph.num_edges:,} edges, median of {repeats})\n")
    print("| operation | seconds | file MB |")
    print("|---|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="gpugraph-bench-") as folder:
        gg_path, text_path = Path(folder) / "g.gg", Path(folder) / "g.txt"
        binary.save_binary(generators.rmat(_WARM_UP_SCALE, device="cpu"), gg_path)
        writers.write_edge_list(generators.rmat(_WARM_UP_SCALE, device="cpu"), text_path)
        operations = [
            ("save_binary (.gg)", lambda: binary.save_binary(graph, gg_path), gg_path),
            ("load_binary (verify)", lambda: binary.load_binary(gg_path, device="cpu"), gg_path),
            (
                "load_binary (mmap, no verify)",
                lambda: binary.load_binary(gg_path, mmap=True, verify=False, device="cpu"),
                gg_path,
            ),
            ("write_edge_list (.txt)", lambda: writers.write_edge_list(graph, text_path), text_path),
        ]
        for label, operation, path in operations:
            seconds = []
            for _ in range(repeats):
                start = time.perf_counter()
                operation()
                seconds.append(time.perf_counter() - start)
            print(f"| {label} | {statistics.median(seconds):.3f} | {path.stat().st_size / 1e6:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
