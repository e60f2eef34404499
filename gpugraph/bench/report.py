"""Reports of benchmark records: Markdown tables and matplotlib plots, from a run or a JSON file.

The summary table has one row per (algorithm, graph) and one column per implementation
(gpugraph first, then the anchors): median time and rate (GTEPS for BFS, 10^9 arcs traversed
per second otherwise), then gpugraph's speedup over the fastest anchor (median time ratio). A
details table lists every run with its counters, bytes model and ceiling fractions. Plots (only
when matplotlib imports): time against RMAT scale per algorithm, BFS frontier size per level,
PageRank L1 change per iteration. Everything renders again from the saved JSON, so results of a
device run can be turned into tables and plots elsewhere.
"""

from __future__ import annotations

import json
from pathlib import Path

#: Column order of implementations (anchors after gpugraph, as in gpugraph.bench.anchors).
IMPLEMENTATION_ORDER = ("gpugraph", "scipy", "igraph", "graphblas", "networkit", "networkx", "cusparse")


def load_records(path) -> list[dict]:
    """Read records written by ``gpugraph bench --json``.

    Parameters
    ----------
    path:
        A JSON file holding a list of records (or an object with a ``records`` list, as the first
        harness wrote).

    Returns
    -------
    list of dict

    Raises
    ------
    OSError
        When the file cannot be read.
    ValueError
        When it is not JSON or holds no record list.
    """
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if isinstance(data, dict):
        data = data.get("records")
    if not isinstance(data, list) or not all(isinstance(record, dict) for record in data):
        raise ValueError(f"{path}: expected a JSON list of benchmark records")
    return data


def title(records: list[dict]) -> str:
    """One line: date, device, git revision of the run (from the first record)."""
    first = records[0] if records else {}
    return f"gpugraph bench, {first.get('date', '?')}, {first.get('device', '?')}, git {first.get('git_revision')}"


def markdown_table(records: list[dict]) -> str:
    """The summary table (module docstring) followed by the ceilings and notes on skipped or
    failed runs.

    Parameters
    ----------
    records:
        Benchmark records.

    Returns
    -------
    str
        Markdown text ending with a newline.
    """
    implementations = _implementations(records)
    rows = _rows(records)
    header = ["algorithm", "graph", "n", "arcs", *implementations, "gpugraph vs best anchor"]
    lines = ["| " + " | ".join(header) + " |", "|---|---|---:|---:|" + "---:|" * (len(implementations) + 1)]
    for (algorithm, graph), cell_records in rows.items():
        sample = next(iter(cell_records.values()))
        cells = [_cell(cell_records.get(name)) for name in implementations]
        lines.append(f"| {algorithm} | {graph} | {_count(sample.get('n'))} | {_count(sample.get('arcs'))} | "
                     + " | ".join(cells) + f" | {_speedup(cell_records)} |")
    lines.append("")
    lines.append("Cells: median ms · rate. BFS: median time per root · Graph500 GTEPS, harmonic mean over the "
                 "roots (a root in a small component pulls it down; the median over roots follows). Others: 10^9 "
                 "arcs traversed per second (GE/s; no rate where an anchor does not report its iterations). "
                 "Speedup: fastest anchor's median time / gpugraph's.")
    lines.append(_ceiling_text(records))
    notes = _notes(records)
    if notes:
        lines.append("")
        lines.extend(notes)
    return "\n".join(lines) + "\n"


def details_table(records: list[dict]) -> str:
    """Every run that worked: times, counters, rates, modelled bytes and ceiling fractions.

    Parameters
    ----------
    records:
        Benchmark records.

    Returns
    -------
    str
        Markdown text ending with a newline.
    """
    lines = ["| algorithm | graph | implementation | median ms | min ms | trials | rounds | GE/s | GTEPS hm / min / max | "
             "GB moved (model) | of copy BW | of gathers | load s | prepare s | compile s |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for record in records:
        if record.get("error") or record.get("skipped"):
            continue
        found = record["metrics"]
        gteps = found.get("gteps")
        fractions = found.get("ceiling_fractions") or {}
        summary = "" if not gteps else f"{gteps['harmonic_mean']:.3g} / {gteps['min']:.3g} / {gteps['max']:.3g}"
        lines.append(
            f"| {record['algorithm']} | {record['graph']} | {record['implementation']} | {record['median_seconds'] * 1e3:.3f} | "
            f"{record['min_seconds'] * 1e3:.3f} | {record['trials']} | {_blank(found.get('rounds'))} | "
            f"{_blank(found.get('edges_per_second'), 1e-9, '.3g')} | "
            f"{summary} | "
            f"{_blank(found.get('bytes_moved'), 1e-9, '.3g')} | {_blank(fractions.get('bandwidth'), 1, '.1%')} | "
            f"{_blank(fractions.get('gathers'), 1, '.1%')} | {_blank(record.get('load_seconds'), 1, '.2f')} | "
            f"{_blank(record.get('prepare_seconds'), 1, '.2f')} | {_blank(record.get('compile_seconds'), 1, '.2f')} |"
        )
    return "\n".join(lines) + "\n"


def markdown_document(records: list[dict]) -> str:
    """The Markdown file ``--markdown`` writes: title, summary table, details table."""
    return f"{title(records)}\n\n{markdown_table(records)}\n{details_table(records)}"


def write_plots(records: list[dict], folder) -> tuple[list[str], list[str]]:
    """Draw the plots of the module docstring into ``folder`` (created if needed).

    Parameters
    ----------
    records:
        Benchmark records.
    folder:
        Output folder.

    Returns
    -------
    tuple
        ``(paths written, notes on plots left out)``; with matplotlib absent, no paths and one
        note saying so.
    """
    try:
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        return [], ["matplotlib not installed: no plots (pip install gpugraph[bench])"]
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ok = [record for record in records if not record.get("error") and not record.get("skipped") and record.get("algorithm")]
    written, notes = [], []
    algorithms = list(dict.fromkeys(record["algorithm"] for record in ok if record.get("scale") is not None))
    for algorithm in algorithms:
        figure = Figure(figsize=(6.4, 4.2))
        axes = figure.add_subplot()
        for implementation in _implementations(ok):
            points = sorted((record["scale"], record["median_seconds"] * 1e3) for record in ok
                            if record["algorithm"] == algorithm and record["implementation"] == implementation
                            and record.get("scale") is not None)
            if points:
                axes.plot(*zip(*points), marker="o", label=implementation)
        axes.set(xlabel="Graph500 RMAT scale (log2 vertices, edge factor 16)", ylabel="median time (ms)",
                 yscale="log", title=f"{algorithm}: time vs graph scale ({ok[0]['device']})")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.legend()
        written.append(_save(figure, folder / f"time_vs_scale_{algorithm}.png"))
    if not algorithms:
        notes.append("no RMAT graphs in the records: no time-vs-scale plot")
    frontier = [record for record in ok if record["algorithm"] == "bfs" and record.get("counters", {}).get("frontier_sizes")]
    if frontier:
        figure = Figure(figsize=(6.4, 4.2))
        axes = figure.add_subplot()
        for record in frontier:
            levels = [(level, size) for level, size in enumerate(record["counters"]["frontier_sizes"]) if size > 0]
            if levels:
                axes.plot(*zip(*levels), label=f"{record['graph']} ({record['implementation']})")
        axes.set(xlabel="BFS level", ylabel="frontier size (vertices)", yscale="log", title="BFS frontier size per level (last root)")
        axes.legend(fontsize="small")
        written.append(_save(figure, folder / "bfs_frontier_sizes.png"))
    else:
        notes.append("no BFS record reports frontier_sizes: no frontier plot")
    converging = [record for record in ok if record["algorithm"] == "pagerank" and record.get("counters", {}).get("residuals")]
    if converging:
        figure = Figure(figsize=(6.4, 4.2))
        axes = figure.add_subplot()
        for record in converging:
            residuals = record["counters"]["residuals"]
            axes.plot(range(1, len(residuals) + 1), residuals, marker=".", label=f"{record['graph']} ({record['implementation']})")
        axes.set(xlabel="iteration", ylabel="L1 change of the ranks", yscale="log", title="PageRank convergence")
        axes.legend(fontsize="small")
        written.append(_save(figure, folder / "pagerank_convergence.png"))
    else:
        notes.append("no PageRank record reports residuals: no convergence plot")
    return written, notes


def render(records: list[dict], markdown_path=None, plots_folder=None) -> tuple[str, list[str]]:
    """Write the Markdown document and the plots of ``records`` where asked.

    Parameters
    ----------
    records:
        Benchmark records (a run's, or :func:`load_records` output).
    markdown_path:
        Where to write :func:`markdown_document`, or ``None``.
    plots_folder:
        Where to draw :func:`write_plots`, or ``None``.

    Returns
    -------
    tuple
        ``(summary table text, lines to show: plots written and notes)``.

    Raises
    ------
    OSError
        When a file cannot be written.
    """
    from gpugraph.io._atomic import atomic_output

    messages = []
    if markdown_path:
        with atomic_output(markdown_path, mode="w") as handle:
            handle.write(markdown_document(records))
        messages.append(f"wrote {markdown_path}")
    if plots_folder:
        written, notes = write_plots(records, plots_folder)
        messages.extend(f"wrote {path}" for path in written)
        messages.extend(notes)
    return markdown_table(records), messages


# --- helpers --------------------------------------------------------------------------------------
def _implementations(records: list[dict]) -> list[str]:
    present = list(dict.fromkeys(record["implementation"] for record in records if record.get("algorithm")))
    known = [name for name in IMPLEMENTATION_ORDER if name in present]
    return known + [name for name in present if name not in known]


def _rows(records: list[dict]) -> dict:
    rows = {}
    for record in records:
        if record.get("algorithm"):
            rows.setdefault((record["algorithm"], record["graph"]), {})[record["implementation"]] = record
    return rows


def _cell(record: dict | None) -> str:
    if record is None:
        return ""
    if record.get("skipped"):
        return "–"
    if record.get("error"):
        return "error"
    gteps = record["metrics"].get("gteps")
    rate = record["metrics"].get("edges_per_second")
    if gteps:
        text = f"{gteps['harmonic_mean']:.3g} GTEPS (median {gteps['median']:.3g})"
    else:
        text = "" if rate is None else f"{rate / 1e9:.3g} GE/s"
    return f"{_ms(record['median_seconds'])}" + (f" · {text}" if text else "")


def _speedup(cell_records: dict) -> str:
    ours = cell_records.get("gpugraph")
    anchors = [record for name, record in cell_records.items()
               if name != "gpugraph" and not record.get("error") and not record.get("skipped")]
    if not ours or ours.get("error") or not anchors or not ours["median_seconds"]:
        return ""
    best = min(anchors, key=lambda record: record["median_seconds"])
    return f"{best['median_seconds'] / ours['median_seconds']:.3g}x vs {best['implementation']}"


def _ceiling_text(records: list[dict]) -> str:
    ceilings = next((record["ceilings"] for record in records if record.get("ceilings")), None)
    if not ceilings:
        return "Memory ceilings: not in the records."
    if "error" in ceilings:
        return f"Memory ceilings: not measured ({ceilings['error']})."
    return (f"Memory ceilings measured in this run ({ceilings['tool']}, {ceilings['timer']}): copy "
            f"{ceilings['copy_bytes_per_second'] / 1e9:.1f} GB/s (read + write, {ceilings['array_bytes'] >> 20} MiB), random "
            f"4-byte gathers {ceilings['gathers_per_second'] / 1e9:.3f} G/s.")


def _notes(records: list[dict]) -> list[str]:
    grouped = {}
    for record in records:
        reason = record.get("skipped") or record.get("error")
        if not reason:
            continue
        kind = "skipped" if record.get("skipped") else "error"
        grouped.setdefault((kind, record["implementation"], reason), []).append((record.get("algorithm") or "load", record["graph"]))
    return [f"- {kind}, {implementation}: {reason} ({_places(pairs)})" for (kind, implementation, reason), pairs in grouped.items()]


def _places(pairs: list) -> str:
    """``bfs, wcc on g1, g2`` when the pairs are every algorithm on every graph, else each pair."""
    algorithms, graphs = list(dict.fromkeys(a for a, _ in pairs)), list(dict.fromkeys(g for _, g in pairs))
    if len(set(pairs)) == len(algorithms) * len(graphs):
        return f"{', '.join(algorithms)} on {', '.join(graphs)}"
    return ", ".join(f"{algorithm} on {graph}" for algorithm, graph in pairs)


def _save(figure, path: Path) -> str:
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    return str(path)


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:,.0f} ms" if ms >= 1000 else f"{ms:.3g} ms"


def _count(value) -> str:
    return "" if value is None else f"{value:,}"


def _blank(value, scale: float = 1, spec: str = "") -> str:
    if value is None:
        return ""
    return format(value * scale, spec) if spec else str(value)
