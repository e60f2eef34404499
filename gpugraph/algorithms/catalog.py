"""What the command line and the top-level API know about each algorithm.

An :class:`AlgorithmSpec` names the module, whether a source vertex is needed, the per-vertex
value written to output files, the options (with LDBC Graphalytics names where they exist) and
how the value is written in LDBC Graphalytics output files.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

import numpy as np

#: LDBC Graphalytics writes unreachable BFS depths as the largest 64-bit integer.
LDBC_UNREACHABLE_DEPTH = 9223372036854775807


@dataclass(frozen=True)
class Option:
    """One algorithm option on the command line.

    Attributes
    ----------
    flags:
        Command-line spellings, LDBC Graphalytics' name first where it has one.
    keyword:
        The ``run`` keyword it sets.
    kind:
        ``int``, ``float`` or ``str``.
    help:
        One line of help.
    """

    flags: tuple
    keyword: str
    kind: type
    help: str


@dataclass(frozen=True)
class AlgorithmSpec:
    """An algorithm as the CLI and API see it.

    Attributes
    ----------
    name:
        CLI name (``gpugraph run NAME``).
    module:
        Module path holding ``run`` and ``verify``.
    value:
        The per-vertex value written to output files.
    needs_source:
        Whether ``run`` takes a ``source`` vertex.
    options:
        Further options.
    ldbc_format:
        How one value is written in LDBC Graphalytics output (``"int"``, ``"float"``,
        ``"depth"`` for BFS, ``"distance"`` for SSSP).
    value_is_vertex:
        The value is a vertex id (a partner, a parent): written as the original id.
    """

    name: str
    module: str
    value: str
    needs_source: bool = False
    options: tuple = field(default_factory=tuple)
    ldbc_format: str = "float"
    value_is_vertex: bool = False

    def load(self):
        """The algorithm module."""
        return importlib.import_module(self.module)


_ITERATIONS = Option(("--max-iterations",), "max_iterations", int, "iteration limit")
_TOLERANCE = Option(("--tolerance", "--tol"), "tol", float, "L1 tolerance per vertex")

SPECS = {
    spec.name: spec
    for spec in (
        AlgorithmSpec(
            "bfs", "gpugraph.algorithms.bfs", "depth", needs_source=True, ldbc_format="depth",
            options=(Option(("--variant",), "variant", str, "direction-optimizing (default) or top-down"),),
        ),
        AlgorithmSpec(
            "pagerank", "gpugraph.algorithms.pagerank", "rank",
            options=(
                Option(("--damping-factor", "--damping"), "damping", float, "damping factor (default 0.85)"),
                Option(("--num-iterations",), "iterations", int, "exactly this many iterations (LDBC)"),
                _ITERATIONS,
                _TOLERANCE,
                Option(("--variant",), "variant", str, "pull (default) or push"),
            ),
        ),
        AlgorithmSpec(
            "adsorption", "gpugraph.algorithms.adsorption", "score",
            options=(
                Option(("--p-inject",), "p_inject", float, "injection probability (default 0.25)"),
                Option(("--p-continue",), "p_continue", float, "continuation probability (default 0.5)"),
                _ITERATIONS,
                _TOLERANCE,
            ),
        ),
        AlgorithmSpec("sssp", "gpugraph.algorithms.sssp", "distance", needs_source=True, ldbc_format="distance",
                      options=(Option(("--delta",), "delta", float, "near-far bucket width on the GPU"),)),
        AlgorithmSpec("wcc", "gpugraph.algorithms.wcc", "component", ldbc_format="int", value_is_vertex=True),
        AlgorithmSpec("scc", "gpugraph.algorithms.scc", "component", ldbc_format="int", value_is_vertex=True),
        AlgorithmSpec("kcore", "gpugraph.algorithms.kcore", "core", ldbc_format="int"),
        AlgorithmSpec("cdlp", "gpugraph.algorithms.cdlp", "label", ldbc_format="int", options=(_ITERATIONS,)),
        AlgorithmSpec("lcc", "gpugraph.algorithms.lcc", "lcc"),
        AlgorithmSpec("triangles", "gpugraph.algorithms.triangles", "triangles", ldbc_format="int"),
        AlgorithmSpec(
            "betweenness", "gpugraph.algorithms.betweenness", "betweenness",
            options=(
                Option(("--samples",), "samples", int, "number of random sources (default: all)"),
                Option(("--seed",), "seed", int, "seed of the sources drawn"),
            ),
        ),
        AlgorithmSpec(
            "matching", "gpugraph.algorithms.matching", "match", ldbc_format="int", value_is_vertex=True,
            options=(Option(("--seed",), "seed", int, "seed of the proposal priorities"),),
        ),
    )
}


def format_ldbc(kind: str, values: np.ndarray) -> list[str]:
    """The LDBC Graphalytics text of each value.

    BFS depths: integers, unreachable as 9223372036854775807. SSSP distances: shortest exact
    decimal, unreachable as ``Infinity``. Other integers as integers, floats as the shortest
    text that reads back exactly.
    """
    if kind == "depth":
        return [str(LDBC_UNREACHABLE_DEPTH) if value < 0 else str(int(value)) for value in values.tolist()]
    if kind == "int":
        return [str(int(value)) for value in values.tolist()]
    return ["Infinity" if value == np.inf else repr(float(value)) for value in values.tolist()]
