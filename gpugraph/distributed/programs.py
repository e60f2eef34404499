"""The distributed programs: what one rank computes on its part, and what it sends and folds in.

Every program keeps per-proxy arrays on the rank's device and exposes, for
:class:`gpugraph.distributed.sync.SyncPlan`, ``reduce_values`` / ``reduce_dirty`` (mirrors ->
masters) and ``broadcast_values`` / ``broadcast_dirty`` (masters -> mirrors). ``compute`` is one
local round over the local arcs: a push from the active proxies (:mod:`gpugraph.distributed.push`)
while they hold few arcs, else a pull over every local arc with the shared
:func:`gpugraph.ops.pull` operator (load balanced by in-degree on the GPU); ``fold`` applies what
arrived; ``has_work`` says whether another local round could change anything. Every program's updates are monotone (a
minimum that only falls) or accumulative (sums of residuals), so rounds may run on stale values
and still reach the synchronous answer: that is what makes bulk-asynchronous execution correct.

``bfs``, ``sssp``, ``wcc``  minimum propagation: ``value[v] = min(value[v], value[u] + cost)``
                          over arcs ``u -> v`` (cost 1, the arc weight, 0); WCC runs on the
                          symmetric graph with every vertex starting at its own id.
``pagerank``              synchronous rounds: the power iteration of the library (NetworkX's
                          meaning and stopping rule, L1 change below ``n * tol``), two
                          exchanges per iteration (:class:`PowerPageRank`). Bulk-asynchronous
                          rounds: residual (delta) PageRank as in Gluon's ``pagerank-push``
                          (:class:`PageRank`): a master whose residual exceeds ``tol / n``
                          fires, keeping it and sending ``damping * residual / out_degree``
                          along its arcs. The fixed point of ``y = damping * A y +
                          (1 - damping) / n`` normalised to sum 1 is the PageRank with dangling
                          rank spread uniformly.
``kcore``                 core numbers by level-synchronous peeling: at level ``k`` every live
                          vertex of degree ``<= k`` is peeled with core ``k``, its neighbours'
                          degrees fall; a level ends when every rank is quiet, and the next level
                          is the smallest live degree (:meth:`KCore.phases`).
"""

from __future__ import annotations

import numpy as np

from gpugraph.distributed import push
from gpugraph.ops import Frontier, pull


def _hop(src, value):
    return value[src] + 1.0


def _path(src, weight, value):
    return value[src] + weight


def _label(src, value):
    return value[src]


def _share(src, share):
    return share[src]


def _scatter(xp, combine: str, target, ids, values) -> None:
    """``target[ids] = combine(target[ids], values)`` with repeated ids combined too
    (``"add"`` or ``"min"``; NumPy's ``ufunc.at``, CuPy's ``cupyx.scatter_*``)."""
    if xp is np:
        {"add": np.add, "min": np.minimum}[combine].at(target, ids, values)
        return
    import cupyx

    {"add": cupyx.scatter_add, "min": cupyx.scatter_min}[combine](target, ids, values)


class Program:
    """State and steps of one rank's run (module docstring).

    Parameters
    ----------
    context:
        :class:`gpugraph.distributed.engine.RankContext` of this rank.
    """

    #: Sum programs hand over what they send (it is zeroed once sent); minimum programs keep it.
    consumes_sent = False

    def __init__(self, context):
        self.context = context
        self.graph, self.xp, self.masters = context.graph, context.xp, context.part.num_masters
        proxies = context.part.num_proxies
        self.reduce_dirty = self.xp.zeros(proxies, dtype=bool)
        self.broadcast_dirty = self.xp.zeros(proxies, dtype=bool)
        self.counters = {"vertex_updates": 0, "edges_traversed": 0, "push_rounds": 0}
        self.out_degree = self.xp.diff(self.graph.indptr)

    def sent(self, reduce_ids, broadcast_ids) -> None:
        """Mark what :meth:`SyncPlan.start` has just packed as sent."""
        self.reduce_dirty[reduce_ids] = False
        self.broadcast_dirty[broadcast_ids] = False
        if self.consumes_sent:
            self.reduce_values[reduce_ids] = 0.0
            self.broadcast_values[broadcast_ids] = 0.0

    def phases(self, run_phase) -> None:
        """Run the program: by default one phase to global quiescence."""
        run_phase()

    def _gather(self, function, combine, **bindings):
        return pull(self.graph, Frontier.all(self.graph), function, combine, bindings=bindings, counters=self.counters)

    def _pushing(self, frontier) -> bool:
        """Whether this round pushes from ``frontier`` (counted) rather than pulls."""
        arcs = int(self.out_degree[frontier].sum()) if frontier.size else 0
        if not push.use_push(self.graph, arcs):
            return False
        self.counters["push_rounds"] += 1
        self.counters["edges_traversed"] += arcs
        return True

    def _send_from_masters(self, masters, amounts) -> None:
        """Queue ``amounts`` for the mirrors of ``masters`` (a sum program's broadcast)."""
        self.broadcast_values[masters] += amounts
        self.broadcast_dirty[masters] = True
        self.counters["vertex_updates"] += int(masters.size)

    def _spread(self, share):
        """Send ``share[u]`` along every local arc ``u -> v`` (push or pull) and zero ``share``;
        what reaches mirrors is queued for their masters; returns what reached the masters."""
        frontier = self.xp.flatnonzero(share)
        if self._pushing(frontier):
            arrived = push.push_add(self.graph, frontier, share)
        else:
            arrived = self._gather(_share, "sum", share=share)
        share[:] = 0.0
        self.reduce_values[self.masters:] += arrived[self.masters:]
        self.reduce_dirty[self.masters:] |= arrived[self.masters:] != 0.0
        return arrived[: self.masters]


class MinPropagation(Program):
    """``bfs`` / ``sssp`` / ``wcc`` (module docstring).

    Parameters
    ----------
    context:
        The rank's context.
    kind:
        ``"bfs"``, ``"sssp"`` or ``"wcc"``.
    source:
        Global id of the source (bfs, sssp).
    """

    def __init__(self, context, kind: str, source: int = 0):
        super().__init__(context)
        xp, global_ids = self.xp, context.part.local_to_global
        self.kind = kind
        self.gather = {"bfs": _hop, "sssp": _path, "wcc": _label}[kind]
        self.cost = {"bfs": "hop", "sssp": "weight", "wcc": "label"}[kind]
        if kind == "wcc":
            self.value = global_ids.astype(np.float64)
            self.active = xp.ones(global_ids.size, dtype=bool)
        else:
            self.active = global_ids == int(source)
            self.value = xp.where(self.active, 0.0, np.inf)
        self.reduce_values = self.broadcast_values = self.value

    def has_work(self) -> bool:
        return bool(self.active.any())

    def compute(self) -> None:
        frontier = self.xp.flatnonzero(self.active)
        if frontier.size == 0:
            return
        if self._pushing(frontier):
            improved = push.push_min(self.graph, frontier, self.value, self.cost)
        else:
            candidate = self._gather(self.gather, "min", value=self.value)
            improved = candidate < self.value
            self.xp.minimum(self.value, candidate, out=self.value)
        self.active = improved
        self.broadcast_dirty[: self.masters] |= improved[: self.masters]
        self.reduce_dirty[self.masters:] |= improved[self.masters:]
        self.counters["vertex_updates"] += int(improved.sum())

    def fold(self, reduce_ids, reduce_values, broadcast_ids, broadcast_values) -> None:
        for ids, values, to_mirrors in ((reduce_ids, reduce_values, True), (broadcast_ids, broadcast_values, False)):
            before = self.value[ids]
            _scatter(self.xp, "min", self.value, ids, values)
            improved = ids[self.value[ids] < before]
            self.active[improved] = True
            if to_mirrors:
                self.broadcast_dirty[improved] = True

    def results(self) -> dict:
        value = self.value[: self.masters]
        if self.kind == "sssp":
            return {"distance": value}
        if self.kind == "wcc":
            return {"component": value.astype(np.int64)}
        return {"depth": self.xp.where(self.xp.isinf(value), -1, value).astype(np.int64)}


class PageRank(Program):
    """Residual PageRank (module docstring).

    Parameters
    ----------
    context:
        The rank's context.
    damping, tol:
        As :func:`gpugraph.algorithms.pagerank.run`; a master fires while its residual exceeds
        ``tol / n``, so the rank left unpropagated sums to at most ``tol``.
    """

    consumes_sent = True

    def __init__(self, context, damping: float = 0.85, tol: float = 1e-6):
        super().__init__(context)
        xp, part = self.xp, context.part
        n = part.num_vertices
        self.damping, self.threshold = float(damping), float(tol) / n
        degree = part.out_degree[: self.masters].astype(np.float64)
        self.scale = xp.where(degree > 0, self.damping / xp.maximum(degree, 1.0), 0.0)
        self.rank = xp.zeros(self.masters)
        self.residual = xp.full(self.masters, (1.0 - self.damping) / n)
        self.share = xp.zeros(part.num_proxies)
        self.reduce_values = xp.zeros(part.num_proxies)
        self.broadcast_values = xp.zeros(part.num_proxies)

    def has_work(self) -> bool:
        return bool((self.residual > self.threshold).any() or self.share.any())

    def compute(self) -> None:
        fire = self.xp.flatnonzero(self.residual > self.threshold)
        if fire.size:
            fired = self.residual[fire]
            self.rank[fire] += fired
            self.residual[fire] = 0.0
            sent = fired * self.scale[fire]
            self.share[fire] += sent
            self._send_from_masters(fire, sent)
        if self.share.any():
            self.residual += self._spread(self.share)

    def fold(self, reduce_ids, reduce_values, broadcast_ids, broadcast_values) -> None:
        _scatter(self.xp, "add", self.residual, reduce_ids, reduce_values)
        _scatter(self.xp, "add", self.share, broadcast_ids, broadcast_values)

    def results(self) -> dict:
        rank = self.rank + self.residual
        total = self.context.comm.allreduce(float(rank.sum()))[0]
        return {"rank": rank / total}


class PowerPageRank(Program):
    """PageRank by power iteration in synchronous rounds only (module docstring): a *gather*
    round pulls ``rank / out_degree`` over the local arcs and reduces the partial sums into the
    masters; an *apply* round updates the masters (the dangling rank and the L1 change are
    all-reduced, so every rank stops in the same round) and broadcasts the new shares.

    Parameters
    ----------
    context:
        The rank's context.
    damping, tol, max_iterations:
        As :func:`gpugraph.algorithms.pagerank.run`.
    """

    consumes_sent = True

    def __init__(self, context, damping: float = 0.85, tol: float = 1e-6, max_iterations: int = 100):
        super().__init__(context)
        xp, part = self.xp, context.part
        self.n, self.damping = part.num_vertices, float(damping)
        self.threshold, self.max_iterations = self.n * float(tol), int(max_iterations)
        degree = part.out_degree.astype(np.float64)
        self.inverse_degree = xp.where(degree > 0, 1.0 / xp.maximum(degree, 1.0), 0.0)
        self.dangling = degree[: self.masters] == 0
        self.rank = xp.full(self.masters, 1.0 / self.n)
        self.share = self.inverse_degree / self.n  # every proxy knows the first shares
        self.sums = xp.zeros(self.masters)
        self.reduce_values = xp.zeros(part.num_proxies)
        self.broadcast_values = xp.zeros(part.num_proxies)
        self.gathering, self.converged, self.iterations = True, False, 0

    def has_work(self) -> bool:
        return not self.converged

    def compute(self) -> None:
        if self.converged:
            return
        if self.gathering:
            gathered = self._gather(_share, "sum", share=self.share)
            self.sums = gathered[: self.masters].copy()
            self.reduce_values[self.masters:] = gathered[self.masters:]
            self.reduce_dirty[self.masters:] = True
        else:
            comm, xp = self.context.comm, self.xp
            dangling_rank = comm.allreduce(float(self.rank[self.dangling].sum()))[0]
            rank = self.damping * (self.sums + dangling_rank / self.n) + (1.0 - self.damping) / self.n
            change = comm.allreduce(float(xp.abs(rank - self.rank).sum()))[0]
            self.rank = rank
            self.iterations += 1
            self.counters["vertex_updates"] += self.masters
            self.share[: self.masters] = rank * self.inverse_degree[: self.masters]
            self.converged = change < self.threshold or self.iterations >= self.max_iterations
            if not self.converged:
                self.broadcast_values[: self.masters] = self.share[: self.masters]
                self.broadcast_dirty[: self.masters] = True
        self.gathering = not self.gathering

    def fold(self, reduce_ids, reduce_values, broadcast_ids, broadcast_values) -> None:
        _scatter(self.xp, "add", self.sums, reduce_ids, reduce_values)
        self.share[broadcast_ids] = broadcast_values

    def results(self) -> dict:
        return {"rank": self.rank}


class KCore(Program):
    """Core numbers by level-synchronous peeling (module docstring); the graph must be the
    simple symmetric graph of the arcs, so a proxy's out-degree is its degree."""

    consumes_sent = True

    def __init__(self, context):
        super().__init__(context)
        xp, part = self.xp, context.part
        self.degree = part.out_degree[: self.masters].astype(np.float64)
        self.alive = xp.ones(self.masters, dtype=bool)
        self.core = xp.zeros(self.masters, dtype=np.int64)
        self.level = 0
        self.peeled = xp.zeros(part.num_proxies)
        self.reduce_values = xp.zeros(part.num_proxies)
        self.broadcast_values = xp.zeros(part.num_proxies)

    def phases(self, run_phase) -> None:
        """One phase per level, each to global quiescence."""
        comm = self.context.comm
        while True:
            live = self.degree[self.alive]
            lowest = comm.allreduce(float(live.min()) if live.size else np.inf, "min")[0]
            if not np.isfinite(lowest):
                return
            self.level = int(lowest)
            run_phase()

    def has_work(self) -> bool:
        return bool((self.alive & (self.degree <= self.level)).any() or self.peeled.any())

    def compute(self) -> None:
        peel = self.xp.flatnonzero(self.alive & (self.degree <= self.level))
        if peel.size:
            self.core[peel] = self.level
            self.alive[peel] = False
            self.peeled[peel] = 1.0
            self._send_from_masters(peel, 1.0)
        if self.peeled.any():
            self.degree -= self._spread(self.peeled)

    def fold(self, reduce_ids, reduce_values, broadcast_ids, broadcast_values) -> None:
        _scatter(self.xp, "add", self.degree, reduce_ids, -reduce_values)
        _scatter(self.xp, "add", self.peeled, broadcast_ids, broadcast_values)

    def results(self) -> dict:
        return {"core": self.core}
