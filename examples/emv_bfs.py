"""Breadth-first search in Medusa's EMV model with SetActive queues: 11 lines of user code
(between the markers, the program declaration included).

Each iteration, the vertices reached in the previous one (the queue) offer ``depth + 1`` along
their out-edges; a vertex takes the smallest offer if it is new, and joins the next queue.
The result matches ``gpugraph.algorithms.bfs`` (depth -1 for unreachable vertices).

Run: ``python examples/emv_bfs.py [graph file] [--source S] [--device cuda]``.
"""

import sys

import numpy as np

from gpugraph.model import emv

UNREACHED = np.iinfo(np.int32).max


def bfs_program():
    """The EMV program; run it with ``active=[source]`` and ``depth`` 0 at the source."""
    # --- user code ---------------------------------------------------------------------------
    def offer(src, depth):                  # EDGE: my depth + 1 to each neighbour
        return depth[src] + 1

    def settle(v, offered, depth):          # VERTEX: take the offer if new; vote = join queue
        if offered < depth[v]:
            depth[v] = offered
            return True
        return False

    return emv.Program(
        [emv.EDGE(offer), emv.Combiner("min"), emv.VERTEX(settle)],
        vertex={"depth": (np.int32, UNREACHED)}, message={"offered": np.int32}, set_active=True, name="bfs",
    )
    # --- end of user code --------------------------------------------------------------------


def bfs(graph, source=0):
    """Depth of every vertex from ``source`` (internal id), -1 where unreachable."""
    depth = np.full(graph.num_vertices, UNREACHED, dtype=np.int32)
    depth[source] = 0
    result = bfs_program().run(graph, init={"depth": depth}, active=[source])
    result.values["depth"][result.values["depth"] == UNREACHED] = -1
    result.parameters["source"] = int(source)
    return result


if __name__ == "__main__":
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from examples._cli import main

    sys.exit(main(bfs, "depth", needs_source=True))
