"""Shared command line of the examples: load a graph (or generate one), run, print a summary."""

import argparse

import numpy as np

import gpugraph as gg
from gpugraph.errors import GpugraphError


def main(run, field: str, needs_source: bool = False, default_graph=None) -> int:
    """Parse ``[graph] [--device D] [--source S]``, run ``run(graph[, source])``, print ``field``.

    ``default_graph(device)`` builds the graph when no file is given (default: RMAT scale 14).

    Returns
    -------
    int
        Exit status: 0, or 1 with a one-line message for any gpugraph error.
    """
    parser = argparse.ArgumentParser()
    parser.add_argument("graph", nargs="?", help="graph file (default: a generated graph)")
    parser.add_argument("--device", default=None, help="cpu, cuda, cuda:N (default: auto)")
    parser.add_argument("--source", type=int, default=None, help="source vertex (original id)")
    args = parser.parse_args()
    try:
        if args.graph:
            graph = gg.load(args.graph, device=args.device)
        else:
            graph = (default_graph or (lambda device: gg.rmat(14, seed=1, device=device)))(args.device)
        if needs_source:
            source = 0 if args.source is None else int(graph.to_internal(args.source))
            result = run(graph, source)
        else:
            result = run(graph)
    except GpugraphError as error:
        print(f"error: {error}")
        return 1
    values = result.to_numpy(field)
    finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
    print(f"{result.algorithm} on {graph!r}")
    print(f"  {field}: min {finite.min()} max {finite.max()} ({finite.size:,} finite of {values.size:,})")
    for key, value in result.stats.items():
        print(f"  {key:<16} {value:,.4f}" if isinstance(value, float) else f"  {key:<16} {value:,}")
    return 0
