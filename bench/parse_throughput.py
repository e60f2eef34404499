"""Parsing throughput of gpugraph's text reader against pandas' C parser and NetworkX.

Files: SNAP's soc-Slashdot0902.txt.gz from the shared datasets, and a generated edge list of
``--edges`` random edges (ids < 2**24, ``u<TAB>v`` lines, uncompressed) in a temporary folder.
Each tool parses each file ``--repeats`` times; the median is reported. NetworkX runs on the
small file only (for the large one it would need tens of GB of memory). gpugraph's kernels are
compiled (or loaded from Numba's cache) by one untimed warm-up read first; the files sit in the
page cache for every tool alike.

Usage::

    python bench/parse_throughput.py [--edges 50000000] [--repeats 3] [--datasets DIR]

Prints a Markdown table: file, size of its text (decompressed), edges, tool, seconds (median),
million edges per second and MB of text per second.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import tempfile
import time
from pathlib import Path

import networkx as nx
import numba
import numpy as np
import pandas as pd

from gpugraph.io.readers import read_edge_list

#: Generated ids lie in [0, 2**24): up to 8 digits, as in large real graphs.
_GENERATED_ID_LIMIT = 2**24
_DEFAULT_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", type=int, default=50_000_000, help="edges of the generated file")
    parser.add_argument("--repeats", type=int, default=3, help="runs per tool and file (median reported)")
    parser.add_argument(
        "--datasets", type=Path, default=Path(os.environ.get("GPUGRAPH_DATASETS", _DEFAULT_DATASETS))
    )
    args = parser.parse_args()

    rows = []
    with tempfile.TemporaryDirectory(prefix="gpugraph-bench-") as folder:
        warm_up = Path(folder) / "warm_up.txt"
        warm_up.write_text("0\t1\n")
        read_edge_list(warm_up)

        slashdot = args.datasets / "soc-Slashdot0902.txt.gz"
        rows += _measure(slashdot, args.repeats, with_networkx=True)

        generated = Path(folder) / f"random-{args.edges}.txt"
        _write_random_edge_list(generated, args.edges)
        rows += _measure(generated, args.repeats, with_networkx=False)

    print("| file | text (MB) | edges | tool | seconds | M edges/s | MB/s |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
    for row in rows:
        print(
            "| {file} | {size:.1f} | {edges:,} | {tool} | {seconds:.3f} | {rate:.2f} | {bandwidth:.1f} |"
            .format(**row)
        )


def _measure(path: Path, repeats: int, with_networkx: bool) -> list[dict]:
    tools = {
        "gpugraph read_edge_list": lambda: read_edge_list(path, progress=False).num_entries,
        "pandas read_csv (C engine)": lambda: len(
            pd.read_csv(path, sep="\t", comment="#", header=None, engine="c", dtype=np.int64)
        ),
    }
    if with_networkx:
        tools["networkx read_edgelist"] = lambda: nx.read_edgelist(
            path, comments="#", nodetype=int, create_using=nx.DiGraph
        ).number_of_edges()
    size_mb = _text_bytes(path) / 1e6
    name = path.name
    if path.suffix == ".gz":
        name += f" (gzip, {path.stat().st_size / 1e6:.1f} MB on disk)"
    # Repeats are interleaved across tools so that a noisy neighbour or a slow first touch of
    # fresh memory does not favour whichever tool runs last.
    times = {tool: [] for tool in tools}
    edges = {}
    for _ in range(repeats):
        for tool, run in tools.items():
            start = time.perf_counter()
            edges[tool] = run()  # NetworkX merges parallel edges, so it may count fewer
            times[tool].append(time.perf_counter() - start)
    rows = []
    for tool in tools:
        seconds = statistics.median(times[tool])
        rows.append(
            {"file": name, "size": size_mb, "edges": edges[tool], "tool": tool, "seconds": seconds,
             "rate": edges[tool] / seconds / 1e6, "bandwidth": size_mb / seconds}
        )
    return rows


def _text_bytes(path: Path) -> int:
    """Size of the text a parser reads (after decompression)."""
    if path.suffix != ".gz":
        return path.stat().st_size
    with gzip.open(path, "rb") as stream:
        return sum(len(chunk) for chunk in iter(lambda: stream.read(1 << 24), b""))


def _write_random_edge_list(path: Path, count: int) -> None:
    rng = np.random.default_rng(2026)
    ids = rng.integers(0, _GENERATED_ID_LIMIT, size=(count, 2), dtype=np.int64)
    path.write_bytes(_format_edges(ids).tobytes())


@numba.njit(cache=True)
def _format_edges(ids):
    """``u<TAB>v\\n`` lines as bytes: NumPy's savetxt would take minutes for 50M lines."""
    out = np.empty(ids.shape[0] * 2 * 21, dtype=np.uint8)
    position = 0
    digits = np.empty(20, dtype=np.uint8)
    for row in range(ids.shape[0]):
        for column in range(2):
            value = ids[row, column]
            count = 0
            while True:
                digits[count] = 48 + value % 10
                value //= 10
                count += 1
                if value == 0:
                    break
            for k in range(count):
                out[position + k] = digits[count - 1 - k]
            position += count
            out[position] = 9 if column == 0 else 10
            position += 1
    return out[:position]


if __name__ == "__main__":
    main()
