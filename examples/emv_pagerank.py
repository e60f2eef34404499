"""PageRank in Medusa's EMV model: 14 lines of user code (between the markers).

Same meaning as NetworkX ``pagerank``: damping 0.85, the rank of vertices without out-edges
spread uniformly, stop when the L1 change of the ranks is below ``num_vertices * tol``.

Run: ``python examples/emv_pagerank.py [graph file] [--device cuda]``.
"""

import sys

import numpy as np

from gpugraph.model import emv


def pagerank_program(damping=0.85, tol=1e-6, max_iterations=100):
    """The EMV program; run it with ``program.run(graph, init={"rank": 1 / n})``."""
    # --- user code ---------------------------------------------------------------------------
    def send(src, rank, out_degree):                      # EDGE: rank shared along out-edges
        return rank[src] / out_degree[src]

    def dangling_rank(v, rank, out_degree):               # aggregate: rank of sinks
        return rank[v] if out_degree[v] == 0 else 0.0

    def update(v, share, rank, dangling, num_vertices):   # VERTEX: new rank, vote if changed
        new = (1 - damping) / num_vertices + damping * (share + dangling / num_vertices)
        change = abs(new - rank[v])
        rank[v] = new
        return change > tol

    return emv.Program(
        [emv.EDGE(send), emv.Combiner("sum"), emv.VERTEX(update)],
        vertex={"rank": np.float64}, message={"share": np.float64},
        aggregates={"dangling": ("sum", dangling_rank)}, max_iterations=max_iterations, name="pagerank",
    )
    # --- end of user code --------------------------------------------------------------------


def pagerank(graph, **parameters):
    """Run the EMV PageRank on ``graph``; returns the Result (``result["rank"]``)."""
    return pagerank_program(**parameters).run(graph, init={"rank": 1.0 / graph.num_vertices})


if __name__ == "__main__":
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from examples._cli import main

    sys.exit(main(pagerank, "rank"))
