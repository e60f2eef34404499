"""The distributed engines: synchronous (BSP) and bulk-asynchronous (BASP) rounds on one rank.

Both run a :mod:`~gpugraph.distributed.programs` program on this rank's part and exchange
proxies through a :class:`~gpugraph.distributed.sync.SyncPlan`; they differ in when a rank waits:

``bsp``   a round is one local computation, then an exchange every rank waits for, then folding
          in what arrived. Every rank sees the others' updates of round ``r`` in round ``r + 1``.
``basp``  a rank starts an exchange and, while it is in flight, goes on with local rounds on
          what it has (D-IrGL's bulk-asynchronous execution): at least one, more while the
          exchange has not arrived; it folds updates in when they arrive and starts the next
          exchange. A rank with no local work waits for the exchange. Fast ranks do more local
          rounds instead of idling at a barrier. (Without the first round a rank whose
          exchanges complete at once, one GPU on NCCL, would exchange forever and never compute.)

Termination is the same for both: every exchange carries each rank's status word (busy: it has
local work or is sending something). An exchange in which no rank is busy ends the phase: no
rank had work, and nothing was in flight, since exchanges are the only way updates travel and
each one completes before the next starts.

Counters (:func:`run_on_rank`): ``rounds`` (local computations, most on a rank), of them
``push_rounds`` (pushed from the active proxies rather than pulled over all arcs),
``exchanges``; totals over ranks of ``vertex_updates``, ``edges_traversed``, ``bytes_sent``,
``messages``; the time breakdown, slowest rank: ``compute_seconds``, ``communication_seconds``
(payload collectives), ``waiting_seconds`` (header collectives: waiting for the slowest rank);
``replication_factor``; the study's load balance ``balance`` = max / mean over ranks of arcs
(static), compute time (dynamic) and partition memory (memory); and ``per_rank``: max and mean of
every counter.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from gpugraph.backend import to_numpy
from gpugraph.distributed import programs
from gpugraph.distributed.comm import Communicator
from gpugraph.distributed.sync import SyncPlan
from gpugraph.errors import InvalidParameterError
from gpugraph.graph.graph import Graph

MODES = ("bsp", "basp")
ALGORITHMS = ("bfs", "sssp", "wcc", "pagerank", "kcore")
#: Algorithms whose partitions must come from the simple symmetric graph of the arcs.
SYMMETRIC = ("wcc", "kcore")


@dataclass
class RankContext:
    """What a program sees: this rank's part, its local graph, the communicator, the array module."""

    part: object
    graph: Graph
    comm: Communicator
    xp: object


def local_graph(part, backend) -> Graph:
    """The part's arcs as a :class:`Graph` over local proxy ids (masters first), on ``backend``."""
    with backend.activate():
        return Graph(backend.asarray(part.indptr), backend.asarray(part.indices),
                     None if part.weights is None else backend.asarray(part.weights),
                     directed=True, num_edges=int(part.num_arcs), backend=backend, name=f"part {part.host}")


def make_program(context: RankContext, algorithm: str, parameters: dict, mode: str = "bsp"):
    """The program object for ``algorithm`` with its ``parameters`` (PageRank: power iteration
    in ``bsp`` mode, residual form in ``basp``).

    Raises
    ------
    InvalidParameterError
        For an unknown algorithm.
    """
    if algorithm in ("bfs", "sssp", "wcc"):
        return programs.MinPropagation(context, algorithm, **parameters)
    if algorithm == "pagerank":
        return (programs.PowerPageRank if mode == "bsp" else programs.PageRank)(context, **parameters)
    if algorithm == "kcore":
        return programs.KCore(context)
    raise InvalidParameterError(f"no distributed {algorithm!r}; use one of {', '.join(ALGORITHMS)}")


def run_on_rank(part, backend, algorithm: str, parameters: dict | None = None, *, mode: str = "bsp",
                update_only: bool = True) -> tuple[dict | None, dict]:
    """Run ``algorithm`` on this rank's ``part`` (collective: every rank calls it).

    Parameters
    ----------
    part:
        This rank's :class:`~gpugraph.distributed.partition.Partition` (moved to ``backend`` if
        its arrays are elsewhere, e.g. loaded from a file).
    backend:
        The rank's backend (its GPU or the CPU).
    algorithm:
        One of :data:`ALGORITHMS` (``wcc`` / ``kcore`` need a part of the simple symmetric graph).
    parameters:
        The program's parameters (``source`` for bfs / sssp; ``damping``, ``tol`` for pagerank).
    mode:
        ``"bsp"`` or ``"basp"``.
    update_only:
        Send only changed proxies (else all shared proxies every exchange).

    Returns
    -------
    (values, stats)
        ``values``: on rank 0, ``{name: NumPy array over all vertices in global ids}``; ``None``
        elsewhere. ``stats``: the counters of the module docstring, ``seconds`` (the run, setup
        excluded) and ``setup_seconds``.

    Raises
    ------
    InvalidParameterError
        For an unknown algorithm or mode.
    """
    if mode not in MODES:
        raise InvalidParameterError(f"unknown distributed mode {mode!r}; use 'bsp' or 'basp'")
    comm = Communicator(backend)
    start = time.perf_counter()
    part = part.to(backend)
    what = f"running distributed {algorithm} on part {part.host} ({part.num_proxies:,} proxies, {part.num_arcs:,} arcs)"
    with backend.activate(), backend.out_of_memory_named(what):
        graph = local_graph(part, backend)
        context = RankContext(part, graph, comm, backend.xp)
        program = make_program(context, algorithm, parameters or {}, mode)
        plan = SyncPlan(part, comm, update_only=update_only)
        graph.in_indptr  # the CSC of the local arcs, built now rather than in the first round
        backend.synchronize()
        comm.allreduce(0)  # every rank ready: the run's clock starts together
        for name in ("bytes_sent", "messages", "exchanges", "communication_seconds", "waiting_seconds"):
            comm.counters[name] = 0
        setup_seconds = time.perf_counter() - start
        counters = {"rounds": 0, "compute_seconds": 0.0}
        start = time.perf_counter()
        program.phases(lambda: _phase(program, plan, mode, counters, backend))
        values = program.results()
        backend.synchronize()
        seconds = time.perf_counter() - start
    counters.update(program.counters)
    counters.update(comm.counters)
    stats = _summarise(comm, counters, part, seconds)
    stats.update(setup_seconds=setup_seconds, mode=mode, update_only=bool(update_only), ranks=comm.size,
                 reduce_mirrors=int(comm.allreduce(plan.reduce_mirrors)[0]),
                 broadcast_mirrors=int(comm.allreduce(plan.broadcast_mirrors)[0]))
    return _gather(comm, part, values), stats


def _phase(program, plan, mode, counters, backend) -> None:
    """Run until an exchange finds every rank idle (module docstring)."""
    if mode == "bsp":
        while True:
            _compute(program, counters, backend)
            exchange = plan.start(program, program.has_work()).wait()
            plan.fold(program, exchange)
            if not exchange.statuses.any():
                return
    while True:
        busy = program.has_work()
        exchange = plan.start(program, busy)
        if busy:  # at least one local round per exchange, however fast it completes
            _compute(program, counters, backend)
        while not exchange.done():
            if program.has_work():
                _compute(program, counters, backend)
            else:
                exchange.wait()
        plan.fold(program, exchange)
        if not exchange.statuses.any():
            return


def _compute(program, counters, backend) -> None:
    began = time.perf_counter()
    program.compute()
    backend.synchronize()
    counters["compute_seconds"] += time.perf_counter() - began
    counters["rounds"] += 1


_PER_RANK = ("rounds", "push_rounds", "exchanges", "vertex_updates", "edges_traversed", "bytes_sent", "messages",
             "compute_seconds", "communication_seconds", "waiting_seconds")


def _summarise(comm, counters, part, seconds) -> dict:
    """The counters over all ranks (module docstring)."""
    memory = sum(int(getattr(array, "nbytes", 0)) for array in
                 (part.indptr, part.indices, part.weights, part.local_to_global, part.global_arcs,
                  part.out_degree, part.mirror_owner) if array is not None)
    names = (*_PER_RANK, "arcs", "proxies", "memory_bytes", "seconds")
    mine = np.array([*(float(counters[name]) for name in _PER_RANK), part.num_arcs, part.num_proxies, memory, seconds])
    table = np.stack(comm.all_gather(mine)).reshape(comm.size, len(names))
    column = {name: table[:, k] for k, name in enumerate(names)}
    stats = {"seconds": float(column["seconds"].max()), "rounds": int(column["rounds"].max()),
             "push_rounds": int(column["push_rounds"].max()), "exchanges": int(column["exchanges"].max())}
    for name in ("vertex_updates", "edges_traversed", "bytes_sent", "messages"):
        stats[name] = int(column[name].sum())
    for name in ("compute_seconds", "communication_seconds", "waiting_seconds"):
        stats[name] = float(column[name].max())
    stats["replication_factor"] = float(column["proxies"].sum()) / max(part.num_vertices, 1)
    ratio = {"static": "arcs", "dynamic": "compute_seconds", "memory": "memory_bytes"}
    stats["balance"] = {kind: float(column[name].max() / max(column[name].mean(), 1e-300))
                        for kind, name in ratio.items()}
    stats["per_rank"] = {name: {"max": float(column[name].max()), "mean": float(column[name].mean())} for name in names}
    return stats


def _gather(comm, part, values: dict) -> dict | None:
    """Every rank's master values, assembled on rank 0 in global id order."""
    masters = to_numpy(part.local_to_global[: part.num_masters])
    all_masters = comm.all_gather(masters)
    gathered = {}
    for name, array in values.items():
        pieces = comm.all_gather(to_numpy(array))
        if comm.rank == 0:
            whole = np.empty(part.num_vertices, dtype=pieces[0].dtype)
            for ids, piece in zip(all_masters, pieces):
                whole[ids] = piece
            gathered[name] = whole
    return gathered if comm.rank == 0 else None
