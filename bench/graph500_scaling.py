"""The weak-scaling and options tables of issue 8 from the records of ``bench/graph500_check.py``.

Reads every ``graph500-<device>-<processes>.json`` in the folders given (the records that
``graph500_check.py --out DIR`` writes, one per process count) and prints, as Markdown:

1. weak scaling (the ``main`` step of each record): processes, scale, harmonic-mean GTEPS, median
   search time, and the efficiency ``GTEPS(p) / (p * GTEPS(1))`` against the one-process record;
2. the options of the ``options`` step (Figure 8 of Pan et al.): GTEPS, median time and the
   per-phase seconds per search, for every record that has them.

Usage: ``python bench/graph500_scaling.py DIR [DIR ...]``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _records(folders):
    """``{processes: record}`` of every record file found (the last folder wins a tie)."""
    found = {}
    for folder in folders:
        for path in sorted(Path(folder).glob("graph500-*-*.json")):
            record = json.loads(path.read_text())
            found[int(record["gpus"])] = record
    return dict(sorted(found.items()))


def weak_scaling(records) -> list[str]:
    """Markdown rows of the weak-scaling table (the ``main`` step of each record)."""
    rows = ["| processes | scale | harmonic GTEPS | median ms | efficiency | TH | device |",
            "|---:|---:|---:|---:|---:|---:|---|"]
    single = None
    for processes, record in records.items():
        main = record["steps"].get("main")
        if not main:
            continue
        main = main[-1]
        teps = main["harmonic_mean_teps"] / 1e9
        if processes == 1:
            single = teps
        efficiency = f"{teps / (processes * single):.2f}" if single else "n/a"
        rows.append(f"| {processes} | {main['scale']} | {teps:.4g} | {_median(main['seconds']) * 1e3:.3f} | "
                    f"{efficiency} | {main['threshold']} | {main['device']} |")
    return rows


def options(records) -> list[str]:
    """Markdown rows of the options table (the ``options`` step of each record)."""
    rows = []
    for processes, record in records.items():
        for entry in record["steps"].get("options", []):
            searches = max(1, len(entry["seconds"]))
            phases = ", ".join(f"{name} {seconds / searches * 1e3:.3f}"
                               for name, seconds in entry["phases"].items() if seconds)
            rows.append(f"| {processes} | {entry.get('label', '')} | {entry['harmonic_mean_teps'] / 1e9:.4g} | "
                        f"{_median(entry['seconds']) * 1e3:.3f} | {entry['nn_pairs_sent']:,} | "
                        f"{entry['nn_messages']:,} | {phases or '-'} |")
    if rows:
        rows[:0] = ["| processes | option | harmonic GTEPS | median ms | nn pairs sent | nn messages | "
                    "ms per search by phase |", "|---:|---|---:|---:|---:|---:|---|"]
    return rows


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    records = _records(argv)
    if not records:
        print(f"no graph500-*-*.json records in {', '.join(argv)}")
        return 1
    print("\n".join(weak_scaling(records)))
    table = options(records)
    if table:
        print()
        print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
