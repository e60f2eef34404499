"""``gpugraph bench``: run algorithms on graphs with warm-up and trials, report medians.

Each (algorithm, graph) pair gives one record: what ran where (device, software versions, git
revision, parameters), the load time, the first run's compile time, every trial's run time and
their median, and the algorithm's counters (rounds, edges traversed...). Records are written
as JSON and summarised as a Markdown table. Run times come from the algorithms' own ``seconds``
(wall time with the device synchronised, compilation excluded).

Suites name a list of graphs per device kind: ``smoke`` (seconds, for CI), ``standard`` (the
real datasets and RMAT graphs sized for the device).
"""

from __future__ import annotations

import platform
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

SUITES = {
    "smoke": {"cpu": ["example:rmat12", "example:grid40x40"], "cuda": ["example:rmat14", "example:grid100x100"]},
    "standard": {
        "cpu": ["example:rmat18", "soc-Slashdot0902.txt.gz", "pace-FLA.gr.xz", "USA-road-d.NY.gr.gz", "cnr-2000.txt.gz"],
        "cuda": ["example:rmat22", "soc-Slashdot0902.txt.gz", "pace-FLA.gr.xz", "USA-road-d.NY.gr.gz", "cnr-2000.txt.gz"],
    },
}
#: Algorithms a suite runs when none are named.
DEFAULT_ALGORITHMS = ("bfs", "pagerank", "sssp", "wcc")


def versions() -> dict:
    """Versions of Python and the array / kernel packages in use (``None`` when absent)."""
    import importlib

    found = {"python": platform.python_version()}
    for name in ("numpy", "numba", "numba_cuda", "cupy", "scipy"):
        try:
            found[name] = importlib.import_module(name).__version__
        except Exception:  # noqa: BLE001 - absent or broken: report None
            found[name] = None
    return found


def git_revision() -> str | None:
    """The commit of the gpugraph checkout, or ``None`` outside a git checkout."""
    try:
        completed = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).resolve().parent,
            capture_output=True, text=True, timeout=10, check=False,
        )
    except OSError:
        return None
    return completed.stdout.strip() or None


def benchmark(spec, graph, graph_name: str, load_seconds: float, trials: int, parameters: dict) -> dict:
    """Run one algorithm ``trials`` times after a warm-up run and return its record.

    Parameters
    ----------
    spec:
        The algorithm's :class:`gpugraph.algorithms.catalog.AlgorithmSpec`.
    graph:
        The graph, already on its device.
    graph_name:
        How the record names the graph.
    load_seconds:
        Time spent loading or generating the graph.
    trials:
        Timed runs after the warm-up.
    parameters:
        Keyword arguments of ``run``.

    Returns
    -------
    dict
        The JSON-ready record.
    """
    from gpugraph.backend.kernels import compile_seconds

    module = spec.load()
    compiled = compile_seconds()
    start = time.perf_counter()
    warm = module.run(graph, **parameters)
    warm_wall = time.perf_counter() - start
    compile_time = compile_seconds() - compiled
    seconds, stats = [], warm.stats
    for _ in range(trials):
        result = module.run(graph, **parameters)
        seconds.append(float(result.stats["seconds"]))
        stats = result.stats
    median = statistics.median(seconds) if seconds else float(warm.stats["seconds"])
    edges = stats.get("edges_traversed")
    return {
        "algorithm": spec.name, "graph": graph_name, "n": graph.num_vertices, "m": graph.num_edges,
        "arcs": graph.num_arcs, "device": graph.backend.device_description(), "parameters": _jsonable(parameters),
        "load_seconds": load_seconds, "compile_seconds": compile_time, "first_run_seconds": warm_wall,
        "trial_seconds": seconds, "median_seconds": median,
        "edges_per_second": (edges / median) if edges and median > 0 else None,
        "counters": _jsonable({key: value for key, value in stats.items() if key != "seconds"}),
    }


def markdown_table(records: list[dict]) -> str:
    """A Markdown table of the records: one row per (algorithm, graph)."""
    lines = [
        "| algorithm | graph | n | m | device | median (ms) | trials | G edges/s | rounds | compile (s) |",
        "|---|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for record in records:
        rate = record["edges_per_second"]
        lines.append(
            f"| {record['algorithm']} | {record['graph']} | {record['n']:,} | {record['m']:,} | {record['device']} | "
            f"{record['median_seconds'] * 1e3:.3f} | {len(record['trial_seconds'])} | "
            f"{'' if rate is None else f'{rate / 1e9:.3f}'} | {record['counters'].get('rounds', '')} | "
            f"{record['compile_seconds']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def _jsonable(values: dict) -> dict:
    converted = {}
    for key, value in values.items():
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, np.ndarray):
            value = f"array({value.shape})"
        converted[key] = value
    return converted
