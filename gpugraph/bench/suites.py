"""Benchmark suites: which graphs ``gpugraph bench --suite NAME`` runs on each device kind.

A suite names Graph500 RMAT scales (built by the generator, ``example:rmatS``) and graph files
looked up in the datasets folder (``--datasets``, ``$GPUGRAPH_DATASETS``, else
``../shared/datasets``). Missing files are reported, not fatal.
"""

from __future__ import annotations

import os
from pathlib import Path

from gpugraph import config

#: Algorithms a suite runs when none are named.
DEFAULT_ALGORITHMS = ("bfs", "pagerank", "sssp", "wcc")

#: The real graphs of the standard suite (whichever exist in the datasets folder).
STANDARD_DATASETS = ("soc-Slashdot0902.txt.gz", "pace-FLA.gr.xz", "USA-road-d.NY.gr.gz", "cnr-2000.txt.gz")

#: ``SUITES[name][device kind]``: ``rmat_scales`` (Graph500 RMAT, edge factor 16) and ``graphs``
#: (``example:NAME`` or file names in the datasets folder). RMAT scales above the device kind's
#: maximum (``config.BENCH_*_MAX_SCALE`` or ``--max-scale``) are left out.
SUITES = {
    "smoke": {
        "cpu": {"rmat_scales": (10, 12), "graphs": ("example:grid40x40",)},
        "cuda": {"rmat_scales": (12, 14), "graphs": ("example:grid100x100",)},
    },
    "standard": {
        "cpu": {"rmat_scales": (16, 17, 18), "graphs": STANDARD_DATASETS},
        "cuda": {"rmat_scales": (20, 22, 24, 26), "graphs": STANDARD_DATASETS},
    },
}


def suite_graphs(suite: str, device_kind: str, max_scale: int | None = None) -> list[str]:
    """The graph names of a suite for a device kind, RMAT scales first (smallest first).

    Parameters
    ----------
    suite:
        A key of :data:`SUITES`.
    device_kind:
        ``"cpu"`` or ``"cuda"``.
    max_scale:
        Largest RMAT scale to include; ``None``: ``config.BENCH_CPU_MAX_SCALE`` or
        ``config.BENCH_CUDA_MAX_SCALE``.

    Returns
    -------
    list of str
        ``example:rmatS`` names, then the suite's other graphs as listed.

    Raises
    ------
    KeyError
        For an unknown suite or device kind.
    """
    entry = SUITES[suite][device_kind]
    if max_scale is None:
        max_scale = config.BENCH_CUDA_MAX_SCALE if device_kind == "cuda" else config.BENCH_CPU_MAX_SCALE
    rmat = [f"example:rmat{scale}" for scale in entry["rmat_scales"] if scale <= max_scale]
    return rmat + list(entry["graphs"])


def datasets_folder(explicit: str | None = None) -> Path:
    """Where suite files are looked up.

    Parameters
    ----------
    explicit:
        A folder given on the command line, or ``None``.

    Returns
    -------
    Path
        ``explicit``, else ``$GPUGRAPH_DATASETS``, else ``../shared/datasets`` from the current
        directory if it exists, else ``shared/datasets`` beside the gpugraph checkout.
    """
    chosen = explicit or os.environ.get("GPUGRAPH_DATASETS")
    if chosen:
        return Path(chosen)
    here = Path("..") / "shared" / "datasets"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[3] / "shared" / "datasets"


def resolve(entry: str, folder: Path) -> str | None:
    """The source to load for a graph entry: ``example:NAME`` as is, an existing path as is, else
    the file of that name in ``folder``; ``None`` when no such file exists.

    Parameters
    ----------
    entry:
        ``example:NAME``, a path, or a file name in ``folder``.
    folder:
        The datasets folder.

    Returns
    -------
    str or None
    """
    if entry.startswith("example:") or os.path.exists(entry):
        return entry
    candidate = Path(folder) / entry
    return str(candidate) if candidate.exists() else None
