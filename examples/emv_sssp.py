"""Single-source shortest paths in Medusa's EMV model (Bellman-Ford with SetActive queues):
11 lines of user code (between the markers, the program declaration included).

Vertices whose distance dropped in the previous iteration offer ``distance + weight`` along
their out-edges; each vertex keeps the smallest offer if it improves its distance. Weights must
be non-negative (checked by :func:`sssp`); unreachable vertices keep +inf.

Run: ``python examples/emv_sssp.py [graph file] [--source S] [--device cuda]``.
"""

import sys

import numpy as np

import gpugraph as gg
from gpugraph.algorithms.sssp import check_weights
from gpugraph.model import emv


def sssp_program():
    """The EMV program; run it with ``active=[source]`` and ``distance`` 0 at the source."""
    # --- user code ---------------------------------------------------------------------------
    def relax(src, weight, distance):        # EDGE: a path through me
        return distance[src] + weight

    def improve(v, offered, distance):       # VERTEX: keep the shortest; vote = join queue
        if offered < distance[v]:
            distance[v] = offered
            return True
        return False

    return emv.Program(
        [emv.EDGE(relax), emv.Combiner("min"), emv.VERTEX(improve)],
        vertex={"distance": (np.float64, np.inf)}, message={"offered": np.float64}, set_active=True, name="sssp",
    )
    # --- end of user code --------------------------------------------------------------------


def sssp(graph, source=0):
    """Shortest distance of every vertex from ``source`` (internal id); +inf where unreachable.

    Raises
    ------
    InvalidWeightError
        If a weight is negative or NaN.
    """
    check_weights(graph)
    distance = np.full(graph.num_vertices, np.inf)
    distance[source] = 0.0
    result = sssp_program().run(graph, init={"distance": distance}, active=[source])
    result.parameters["source"] = int(source)
    return result


if __name__ == "__main__":
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from examples._cli import main

    sys.exit(main(sssp, "distance", needs_source=True,
                  default_graph=lambda device: gg.grid(128, 128, weighted=True, device=device)))
