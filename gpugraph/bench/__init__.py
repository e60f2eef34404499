"""``gpugraph bench``: algorithms timed on graphs beside the libraries users would pick instead.

One run measures the memory ceilings of the device, then for every graph (generated Graph500
RMAT scales, real graphs, any file) and algorithm: gpugraph's run (warm-up with its compile time
apart, then trials; BFS on Graph500 roots) and the anchors (SciPy, igraph, python-graphblas,
NetworKit, NetworkX on the CPU; cuSPARSE PageRank on a GPU). Each run is one JSON record with
what ran where, times, counters and metrics; reports are a Markdown table and plots, which
render again from the JSON. ``docs/benchmarking.md`` explains the metrics.

Modules: :mod:`~gpugraph.bench.suites` (graph lists), :mod:`~gpugraph.bench.graphs` (loading,
roots, SSSP weights), :mod:`~gpugraph.bench.timing` (CUDA events / perf_counter),
:mod:`~gpugraph.bench.ceilings`, :mod:`~gpugraph.bench.anchors`, :mod:`~gpugraph.bench.metrics`,
:mod:`~gpugraph.bench.harness` (the loop), :mod:`~gpugraph.bench.report` (Markdown, plots).
"""

from gpugraph.bench.harness import Plan, environment, git_revision, progress_line, run_benchmarks, versions
from gpugraph.bench.report import load_records, markdown_document, markdown_table, render, title, write_plots
from gpugraph.bench.suites import DEFAULT_ALGORITHMS, SUITES, datasets_folder, suite_graphs

__all__ = [
    "DEFAULT_ALGORITHMS", "SUITES", "Plan", "datasets_folder", "environment", "git_revision", "load_records",
    "markdown_document", "markdown_table", "progress_line", "render", "run_benchmarks", "suite_graphs", "title",
    "versions", "write_plots",
]
