"""Graph500 runs of one call compared root by root.

Every run of a device call (``bench/device_ab.sh``, the factors step of
``bench/graph500_check.py``) searches the same roots, and a search's time depends on its root far
more (1.2-1.8 ms at 4 GPUs) than on the versions compared (tens of microseconds). So beside each
run's harmonic GTEPS and median, this prints its time minus the baseline's for the same root,
summarised over the roots: the median difference, a 95% interval for it (roots resampled), and
on how many roots the run was faster. The baseline of a root is the median of the baseline
label's runs; a baseline run is compared with its other runs (a lone one gives 0), which shows
how far runs of the same code drift apart within a call (at 2 GPUs by ±15 us a search,
docs/graph500.md, "Thirty-first session").

Usage::

    python bench/graph500_paired.py M=out/M-1/graph500-cuda-4.json T=out/T-1/graph500-cuda-4.json \\
        M=out/M-1-2/graph500-cuda-4.json [--baseline M] [--step main]

An argument ``LABEL=FILE`` names a run; a bare ``FILE`` takes its label from the record (the
factors step labels its runs) or from the file's folder. A step holding several records gives
a run for each.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

#: Resamplings of the roots for the interval of the median difference.
RESAMPLES = 2000


def load_runs(arguments: list[str], step: str) -> list[tuple[str, dict]]:
    """``(label, record)`` for every run named by ``arguments`` (``LABEL=FILE`` or ``FILE``).

    Raises
    ------
    ValueError
        If a file is not JSON, has no step ``step``, or a record of it has no per-root
        ``roots`` and ``seconds``.
    """
    runs = []
    for argument in arguments:
        label, _, name = argument.rpartition("=")
        path = Path(name)
        steps = json.loads(path.read_text()).get("steps", {})
        if step not in steps:
            raise ValueError(f"{path} has no step {step!r} (it has {', '.join(steps) or 'none'})")
        records = steps[step] if isinstance(steps[step], list) else [steps[step]]
        for record in records:
            if not {"roots", "seconds", "nedge"} <= record.keys():
                raise ValueError(f"a record of step {step!r} in {path} has no per-root roots, seconds and nedge")
            runs.append((label or record.get("label") or path.parent.name, record))
    return runs


def compare(runs: list[tuple[str, dict]], baseline: str, seed: int = 0) -> list[dict]:
    """Each run against the baseline, root by root (module docstring).

    Parameters
    ----------
    runs:
        ``(label, record)`` pairs; every record searched the same roots.
    baseline:
        The label whose runs make the baseline.
    seed:
        Of the roots' resampling.

    Returns
    -------
    list of dict
        Per run, in order: ``label``, ``gteps`` (harmonic), ``median_ms``, ``median_diff_us``,
        ``low_us`` / ``high_us`` (the 95% interval of the median difference) and ``faster``
        (roots on which the run was faster than the baseline).

    Raises
    ------
    ValueError
        If no run has the baseline's label, or the runs did not search the same roots.
    """
    roots = runs[0][1]["roots"]
    if any(record["roots"] != roots for _, record in runs):
        raise ValueError("the runs searched different roots: compare runs of one scale and seed only")
    seconds = np.array([record["seconds"] for _, record in runs])
    own = [index for index, (label, _) in enumerate(runs) if label == baseline]
    if not own:
        raise ValueError(f"no run is labelled {baseline!r}; labels: {', '.join(sorted({name for name, _ in runs}))}")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(roots), (RESAMPLES, len(roots)))
    rows = []
    for index, (label, record) in enumerate(runs):
        others = [other for other in own if other != index] or own
        diff = (seconds[index] - np.median(seconds[others], axis=0)) * 1e6
        medians = np.median(diff[picks], axis=1)
        edges = np.array(record["nedge"], dtype=np.float64)
        rows.append({"label": label, "gteps": len(edges) / np.sum(seconds[index] / edges) / 1e9,
                     "median_ms": float(np.median(seconds[index])) * 1e3, "median_diff_us": float(np.median(diff)),
                     "low_us": float(np.percentile(medians, 2.5)), "high_us": float(np.percentile(medians, 97.5)),
                     "faster": int(np.sum(diff < 0))})
    return rows


def table(rows: list[dict], baseline: str, roots: int) -> str:
    """:func:`compare`'s rows as a markdown table."""
    lines = [f"| run | harmonic GTEPS | median ms | minus {baseline}, median us (95%) | faster on |",
             "|---|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row['label']} | {row['gteps']:.1f} | {row['median_ms']:.3f} | {row['median_diff_us']:+.1f} "
                     f"({row['low_us']:+.1f} .. {row['high_us']:+.1f}) | {row['faster']}/{roots} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="LABEL=FILE or FILE (a graph500_check.py record)")
    parser.add_argument("--baseline", default=None, help="label of the baseline runs (default: the first run's)")
    parser.add_argument("--step", default="main", help="the record's step (main, factors, quick, ...)")
    args = parser.parse_args()
    try:
        runs = load_runs(args.runs, args.step)
        baseline = args.baseline or runs[0][0]
        rows = compare(runs, baseline)
    except (OSError, ValueError) as exc:
        print(f"graph500_paired: {exc}", file=sys.stderr)
        return 2
    print(table(rows, baseline, len(runs[0][1]["roots"])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
