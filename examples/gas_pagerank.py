"""PageRank in the gather-apply-scatter model: the same meaning as ``emv_pagerank.py``.

Run: ``python examples/gas_pagerank.py [graph file] [--device cuda]``.
"""

import sys

import numpy as np

from gpugraph.model import gas


def pagerank_program(damping=0.85, tol=1e-6, max_iterations=100):
    """The GAS program; run it with ``init={"rank": 1 / n}``."""
    def gather(src, rank, out_degree):                    # over in-edges: rank shared by src
        return rank[src] / out_degree[src]

    def dangling_rank(v, rank, out_degree):               # aggregate: rank of sinks
        return rank[v] if out_degree[v] == 0 else 0.0

    def apply(v, gathered, rank, dangling, num_vertices):
        new = (1 - damping) / num_vertices + damping * (gathered + dangling / num_vertices)
        change = abs(new - rank[v])
        rank[v] = new
        return change > tol

    return gas.Program(
        gather=gather, apply=apply, vertex={"rank": np.float64}, activate="all",
        aggregates={"dangling": ("sum", dangling_rank)}, max_iterations=max_iterations, name="pagerank",
    )


def pagerank(graph, **parameters):
    """Run the GAS PageRank on ``graph``; returns the Result (``result["rank"]``)."""
    return pagerank_program(**parameters).run(graph, init={"rank": 1.0 / graph.num_vertices})


if __name__ == "__main__":
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from examples._cli import main

    sys.exit(main(pagerank, "rank"))
