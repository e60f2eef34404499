"""The benchmark loop: graphs x algorithms x implementations, one record per run.

For each graph: load it (timed apart), draw the Graph500 roots, add SSSP weights when the graph
has none; for each algorithm: gpugraph's run (a warm-up run whose compile time is reported
apart, then the timed trials), then every anchor that implements the algorithm on this device
kind. BFS runs once per root instead of ``trials`` times (the Graph500 way), on 64 roots for
RMAT graphs and ``trials`` roots on other graphs unless ``roots`` says otherwise. Other
algorithms that take a source start from the first root.

A graph that cannot be loaded, an algorithm or anchor that raises, and an anchor that is not
installed each give a record with ``error`` or ``skipped`` and the run goes on. A line on stderr
(or the given ``report`` callable) follows every record.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import math
import os
import platform
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpugraph import config
from gpugraph.backend import to_numpy
from gpugraph.bench import anchors as anchor_registry
from gpugraph.bench import ceilings as ceiling_probe
from gpugraph.bench import graphs as graph_tools
from gpugraph.bench import metrics
from gpugraph.bench.suites import resolve
from gpugraph.bench.timing import Stopwatch, median

#: Packages whose versions every record carries (import names; read from the installed metadata,
#: nothing is imported).
VERSIONED_PACKAGES = ("numpy", "numba", "numba_cuda", "cupy", "scipy", "igraph", "networkit", "graphblas",
                      "graphblas_algorithms", "networkx", "matplotlib")
#: PageRank parameters of every implementation (NetworkX's defaults).
PAGERANK_PARAMETERS = {"damping": 0.85, "tol": 1e-6, "max_iterations": 100}


@dataclass
class Plan:
    """What a benchmark run does besides the graph list.

    Attributes
    ----------
    algorithms:
        Catalog names (:data:`gpugraph.algorithms.catalog.SPECS`).
    trials:
        Timed runs after the warm-up (BFS: roots on non-RMAT graphs).
    roots:
        BFS roots per graph; ``None``: ``config.BENCH_GRAPH500_ROOTS`` on RMAT graphs, ``trials``
        on others.
    anchors:
        Run the anchor libraries too.
    datasets:
        Folder where graph names that are not paths are looked up.
    load_options:
        Keywords of :func:`gpugraph.io.load` for files.
    """

    algorithms: list
    trials: int = config.BENCH_TRIALS
    roots: int | None = None
    anchors: bool = True
    datasets: Path = field(default_factory=lambda: Path("."))
    load_options: dict = field(default_factory=dict)


def versions() -> dict:
    """Versions of Python, gpugraph and the packages of :data:`VERSIONED_PACKAGES` (``None`` when
    absent), read from the installed distributions' metadata without importing them.

    Returns
    -------
    dict
    """
    from gpugraph import __version__

    found = {"python": platform.python_version(), "gpugraph": __version__}
    distributions = importlib.metadata.packages_distributions()
    for name in VERSIONED_PACKAGES:
        found[name] = None
        for distribution in distributions.get(name, ()):
            try:
                found[name] = importlib.metadata.version(distribution)
                break
            except importlib.metadata.PackageNotFoundError:
                continue
    return found


def git_revision() -> str | None:
    """The commit of the gpugraph checkout (``-dirty`` when files differ): ``$GPUGRAPH_GIT_REVISION``
    if set (for an exported copy of the tree, e.g. on a benchmark machine), else what git says
    when the package's parent folder is the top of a git work tree, else ``None`` (a copy inside
    some other repository must not report that repository's commit)."""
    given = os.environ.get("GPUGRAPH_GIT_REVISION")
    if given:
        return given
    checkout = Path(__file__).resolve().parents[2]
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=checkout, capture_output=True,
                             text=True, timeout=10, check=False)
        if not top.stdout.strip() or Path(top.stdout.strip()).resolve() != checkout:
            return None
        completed = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"], cwd=checkout,
                                   capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return completed.stdout.strip() or None


def environment(backend) -> dict:
    """The fields every record of a run shares: device, timer, date, git revision, versions, host.

    Parameters
    ----------
    backend:
        The benchmark's backend.

    Returns
    -------
    dict
    """
    return {
        "device": backend.device_description(), "device_kind": backend.kind, "timer": Stopwatch(backend).name,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_revision": git_revision(), "versions": versions(),
        "host": {"cpu": _cpu_model(), "cores": os.cpu_count(), "platform": platform.platform(),
                 "numba_threads": os.environ.get("NUMBA_NUM_THREADS")},
    }


def run_benchmarks(entries: list[str], plan: Plan, backend, report=None) -> list[dict]:
    """Measure the memory ceilings, then benchmark every algorithm of ``plan`` on every graph.

    Parameters
    ----------
    entries:
        Graph names: ``example:rmatS`` / ``example:gridRxC``, paths, or file names in
        ``plan.datasets``.
    plan:
        Algorithms, trials, roots, anchors (:class:`Plan`).
    backend:
        Where gpugraph runs (:func:`gpugraph.backend.get_backend`).
    report:
        Called with one line of text per record and for the ceilings; ``None``: nothing.

    Returns
    -------
    list of dict
        One record per (graph, algorithm, implementation), in run order; failures included.
    """
    report = report or (lambda line: None)
    started = time.perf_counter()
    shared = environment(backend)
    ceilings = ceiling_probe.measure(backend)
    report(_ceiling_line(ceilings))
    records = []
    for entry in entries:
        for record in _benchmark_graph(entry, plan, backend, {**shared, "ceilings": ceilings}):
            records.append(record)
            report(f"[{time.perf_counter() - started:7.1f}s] {progress_line(record)}")
    return records


def progress_line(record: dict) -> str:
    """One line describing a finished record (time and rate, or why it did not run)."""
    if record.get("algorithm") is None:
        return f"skipped {record['graph']}: {record.get('error')}"
    label = f"{record.get('algorithm') or '-':<9} {record['graph']:<26} {record['implementation']:<10}"
    if record.get("skipped"):
        return f"{label} skipped: {record['skipped']}"
    if record.get("error"):
        return f"{label} error: {record['error']}"
    rate = record["metrics"].get("gteps") or {}
    if rate:
        text = f"{rate['harmonic_mean']:.4g} GTEPS (harmonic mean of {rate['roots']} roots)"
    else:
        edges = record["metrics"].get("edges_per_second")
        text = "" if edges is None else f"{edges / 1e9:.4g} G edges/s"
    return f"{label} {record['median_seconds'] * 1e3:10.3f} ms  {text}"


# --- one graph ------------------------------------------------------------------------------------
def _benchmark_graph(entry: str, plan: Plan, backend, shared: dict):
    """Yield the records of one graph (module docstring)."""
    base = {"graph": entry, "scale": graph_tools.rmat_scale(entry), **shared}
    source = resolve(entry, plan.datasets)
    if source is None:
        yield {**base, "algorithm": None, "implementation": "gpugraph",
               "error": f"not found (looked for {entry} in {plan.datasets})"}
        return
    try:
        graph, load_seconds = graph_tools.load_graph(entry, source, backend, plan.load_options)
    except Exception as exc:  # noqa: BLE001 - a graph that fails to load is a record, not the end
        yield {**base, "algorithm": None, "implementation": "gpugraph", "error": _describe(exc)}
        return
    base.update(source=source, n=graph.num_vertices, m=graph.num_edges, arcs=graph.num_arcs, directed=graph.directed,
                load_seconds=load_seconds, index_bytes=graph.indices.dtype.itemsize)
    from gpugraph.algorithms.catalog import SPECS

    needs_roots = any(SPECS[name].needs_source for name in plan.algorithms)
    count = plan.roots or (config.BENCH_GRAPH500_ROOTS if base["scale"] is not None else plan.trials)
    try:
        roots = graph_tools.graph500_roots(graph, count) if needs_roots and graph.num_vertices else np.zeros(0, np.int64)
        weighted = graph_tools.with_sssp_weights(graph) if "sssp" in plan.algorithms else graph
        out_degree = to_numpy(graph.out_degree()).astype(np.int64)
    except Exception as exc:  # noqa: BLE001 - e.g. out of device memory for the weights
        yield {**base, "algorithm": None, "implementation": "gpugraph", "error": f"preparing the graph: {_describe(exc)}"}
        return
    weights = "file" if graph.is_weighted else (f"hash in {list(config.BENCH_SSSP_WEIGHT_RANGE)}" if weighted is not graph else None)
    prepared = {}
    for position, name in enumerate(plan.algorithms):
        target = weighted if name == "sssp" else graph
        context = {**base, "algorithm": name, "weights": weights if name == "sssp" else None,
                   "weight_bytes": target.weights.dtype.itemsize if target.is_weighted else 8}
        parameters = _parameters(name, graph, roots)
        yield _gpugraph_record(SPECS[name], target, context, parameters, roots, plan, out_degree)
        if not plan.anchors:
            continue
        for anchor in anchor_registry.anchors_for(name, backend.kind):
            # Weights only matter to SSSP; other anchors convert the graph itself.
            converted = weighted if "sssp" in anchor.methods else graph
            yield _anchor_record(anchor, converted, context, parameters, roots, plan, out_degree, prepared)
        later = set(plan.algorithms[position + 1:])
        for anchor in [anchor for anchor in prepared if not later & set(anchor.methods)]:
            del prepared[anchor]
    del graph, weighted, prepared
    backend.release_cached_memory()


def _parameters(name: str, graph, roots: np.ndarray) -> dict:
    """The run keywords of an algorithm in a suite (the BFS source is set per root)."""
    from gpugraph.algorithms.catalog import SPECS

    parameters = {}
    if SPECS[name].needs_source and roots.size:
        parameters["source"] = int(roots[0])
    if name == "pagerank":
        parameters.update(PAGERANK_PARAMETERS)
    if name == "betweenness" and graph.num_vertices > config.BENCH_BETWEENNESS_EXACT_VERTICES:
        parameters["samples"] = config.BENCH_BETWEENNESS_SAMPLES
    return parameters


# --- gpugraph -------------------------------------------------------------------------------------
def _gpugraph_record(spec, graph, context: dict, parameters: dict, roots, plan: Plan, out_degree) -> dict:
    from gpugraph.backend.kernels import compile_seconds

    record = {**context, "implementation": "gpugraph", "parameters": dict(parameters),
              "method": f"{spec.module}.run"}
    stopwatch = Stopwatch(graph.backend)
    try:
        module = spec.load()
        compiled = compile_seconds()
        if spec.name == "bfs":
            warm = stopwatch.time(lambda: module.run(graph, int(roots[0])))
            record["compile_seconds"] = compile_seconds() - compiled
            timings = [stopwatch.time(lambda root=root: module.run(graph, int(root))) for root in roots]
        else:
            warm, timings = stopwatch.repeat(lambda: module.run(graph, **parameters), plan.trials)
            record["compile_seconds"] = compile_seconds() - compiled
    except Exception as exc:  # noqa: BLE001 - an algorithm that raises is a record
        return {**record, "error": _describe(exc)}
    record["first_run_seconds"] = warm.seconds
    record["algorithm_seconds"] = [float(timing.result.stats["seconds"]) for timing in timings]
    counters = _jsonable({key: value for key, value in timings[-1].result.stats.items() if key != "seconds"})
    per_root = None
    if spec.name == "bfs":
        record["parameters"] = {**record["parameters"], "roots": [int(root) for root in roots]}
        per_root = [int(timing.result.stats["edges_traversed"]) if "edges_traversed" in timing.result.stats
                    else graph_tools.reached_arcs(out_degree, timing.result.to_numpy("depth") >= 0) for timing in timings]
    return _finish(record, graph, timings, counters, per_root)


# --- anchors --------------------------------------------------------------------------------------
def _anchor_record(anchor, graph, context: dict, parameters: dict, roots, plan: Plan, out_degree, prepared: dict) -> dict:
    name = context["algorithm"]
    method = anchor.methods[name]
    record = {**context, "implementation": anchor.implementation, "parameters": dict(parameters), "method": method.what,
              "compile_seconds": 0.0}
    reason = anchor_registry.unavailable(anchor) or anchor_registry.skip_reason(anchor, graph)
    if reason:
        return {**record, "skipped": reason}
    stopwatch = Stopwatch(graph.backend)
    try:
        if anchor not in prepared:
            start = time.perf_counter()
            prepared[anchor] = (anchor.prepare(graph), time.perf_counter() - start)
        converted, record["prepare_seconds"] = prepared[anchor]
        if name == "bfs":
            warm = stopwatch.time(lambda: method.run(converted, {"source": int(roots[0])}))
            timings = [stopwatch.time(lambda root=root: method.run(converted, {"source": int(root)})) for root in roots]
        else:
            warm, timings = stopwatch.repeat(lambda: method.run(converted, parameters), plan.trials)
        outcomes = [method.describe(timing.result) for timing in timings]
    except Exception as exc:  # noqa: BLE001 - an anchor that raises is a record
        return {**record, "error": _describe(exc)}
    record["first_run_seconds"] = warm.seconds
    counters = {key: value for key, value in outcomes[-1].items() if key != "reached"}
    per_root = None
    if "reached" in outcomes[-1]:
        arcs = [graph_tools.reached_arcs(out_degree, outcome["reached"]) for outcome in outcomes]
        counters["edges_traversed"] = arcs[-1]
        per_root = arcs if name == "bfs" else None
        if name == "bfs":
            record["parameters"] = {**record["parameters"], "roots": [int(root) for root in roots]}
    return _finish(record, graph, timings, _jsonable(counters), per_root)


# --- records --------------------------------------------------------------------------------------
def _finish(record: dict, graph, timings: list, counters: dict, per_root: list | None) -> dict:
    """Add times, counters and metrics to a record of a run that worked."""
    seconds = [float(timing.seconds) for timing in timings]
    middle = median(seconds)
    record.update(trials=len(seconds), trial_seconds=seconds, median_seconds=middle, min_seconds=min(seconds),
                  max_seconds=max(seconds), wall_seconds=[float(timing.wall_seconds) for timing in timings],
                  counters=counters)
    if per_root is not None:
        counters = {**counters, "edges_traversed": sum(per_root) / len(per_root)}
        middle = sum(seconds) / len(seconds)
    record["metrics"] = _metrics(record, counters, middle)
    if per_root is not None:
        record["metrics"]["gteps"] = metrics.gteps_summary([graph_tools.teps_edges(graph, arcs) for arcs in per_root], seconds)
        record["metrics"]["edges_per_root"] = per_root
    return record


def _metrics(record: dict, counters: dict, seconds: float) -> dict:
    """Rates, the bytes model and ceiling fractions of a record (see :mod:`gpugraph.bench.metrics`)."""
    name, arcs, n = record["algorithm"], record["arcs"], record["n"]
    edges, basis = metrics.arcs_traversed(name, arcs, counters)
    if record["implementation"] != "gpugraph" and basis == "edges_traversed":
        basis = "arcs out of the reached vertices (counted by the harness)"
    rounds = counters.get("rounds")
    moved, model = metrics.bytes_moved(name, n, arcs, edges, rounds, record["index_bytes"], 8, record["weight_bytes"])
    gathers = metrics.random_gathers(edges)
    positive = seconds and seconds > 0
    rate = edges / seconds if edges is not None and positive else None
    return {
        "edges_per_second": rate, "edges_basis": basis, "rounds": rounds,
        "vertex_updates": counters.get("vertex_updates"),
        "seconds_per_round": seconds / rounds if rounds and positive else None,
        "bytes_moved": moved, "bytes_model": model, "random_gathers": gathers,
        "ceiling_fractions": metrics.ceiling_fractions(
            moved / seconds if moved is not None and positive else None,
            gathers / seconds if gathers is not None and positive else None, record["ceilings"]),
    }


def _jsonable(value):
    """``value`` with NumPy scalars as Python numbers, tuples and small arrays as lists, large
    arrays summarised and non-finite floats as ``None`` (strict JSON)."""
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__"):
        return _jsonable(to_numpy(value).tolist()) if value.size <= 100_000 else f"array{tuple(value.shape)}"
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _ceiling_line(ceilings: dict) -> str:
    if "error" in ceilings:
        return f"memory ceilings: not measured ({ceilings['error']})"
    return (f"memory ceilings ({ceilings['tool']}, {ceilings['timer']}): copy {ceilings['copy_bytes_per_second'] / 1e9:.1f} GB/s, "
            f"random 4-byte gathers {ceilings['gathers_per_second'] / 1e9:.3f} G/s")


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None
