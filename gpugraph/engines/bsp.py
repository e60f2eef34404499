"""The bsp engine: synchronous rounds with a barrier between them.

Each round (superstep) runs a program's steps once over the active vertices; the engine then
waits for the device (the barrier), decides what is active next and whether to stop:

* a program in *queue* mode (``set_active``) continues with the vertices that voted in the
  round; none voting halts it (Medusa's SetActive queues);
* otherwise every vertex stays active, and the run halts when no vertex votes to continue
  (Medusa's ``halt``: all instances vote to stop) — or never, for programs whose functions
  return nothing;
* ``max_iterations`` rounds at most.

Counters (returned in ``Result.stats``): ``rounds``; ``vertex_updates`` (vertex-function
calls); ``edges_traversed`` (edges visited by edge steps, gathers and scatters); ``votes``
(vertices that voted to continue, summed over rounds); ``seconds`` (run time without
compilation) and ``compile_seconds`` (kernel compilation or cache loads during the run).

The engine knows nothing of the model: a program supplies ``start(graph, active)`` and
``superstep(round)`` (see :class:`gpugraph.model.emv.Program`).
"""

from __future__ import annotations

import time

from gpugraph.backend.kernels import compile_seconds
from gpugraph.progress import Progress


class Round:
    """What a superstep sees: the graph, the active frontier, the round number and counters.

    Attributes
    ----------
    graph, active, iteration, counters:
        As named; ``counters`` is the dict the engine returns as statistics.
    """

    def __init__(self, graph, active, iteration: int, counters: dict):
        self.graph = graph
        self.active = active
        self.iteration = iteration
        self.counters = counters

    def count(self, name: str, amount: int) -> None:
        """Add ``amount`` to counter ``name``."""
        self.counters[name] = self.counters.get(name, 0) + int(amount)


def run(program, graph, active, max_iterations: int, *, show_progress: bool = False) -> dict:
    """Run ``program`` on ``graph`` in synchronous rounds.

    Parameters
    ----------
    program:
        An object with ``set_active`` (bool) and ``superstep(round) -> Frontier | None``
        (the vertices that voted, or ``None`` when its functions do not vote).
    graph:
        The graph.
    active:
        The first round's active vertices (:class:`gpugraph.ops.Frontier`).
    max_iterations:
        Most rounds to run.
    show_progress:
        Draw a progress bar of rounds on stderr (when it is a terminal) for long runs.

    Returns
    -------
    dict
        The counters (module docstring).
    """
    from gpugraph.ops import Frontier

    counters = {"rounds": 0, "vertex_updates": 0, "edges_traversed": 0, "votes": 0}
    compiled_before = compile_seconds()
    start = time.perf_counter()
    progress = Progress(getattr(program, "name", "program"), unit=" rounds", enabled=None if show_progress else False)
    everything = Frontier.all(graph)
    for iteration in range(max_iterations):
        if active.size == 0:
            break
        voters = program.superstep(Round(graph, active, iteration, counters))
        graph.backend.synchronize()  # the barrier: this round's writes are visible to the next
        counters["rounds"] += 1
        progress.update(1)
        if voters is None:
            continue
        counters["votes"] += voters.size
        if voters.size == 0:
            break
        active = voters if program.set_active else everything
    progress.close()
    counters["compile_seconds"] = compile_seconds() - compiled_before
    counters["seconds"] = time.perf_counter() - start - counters["compile_seconds"]
    return counters
