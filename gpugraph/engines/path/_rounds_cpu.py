"""CPU kernels of the path engine's rounds (Numba, parallel over chunks or vertices).

The kinds (``0`` SUM, ``1`` MIN, ``2`` PEEL) are those of :mod:`gpugraph.engines.path.programs`.
Shared vertex states are updated with the atomics of :mod:`gpugraph.backend._atomics_cpu`;
a value read without one is a snapshot, which the delta form tolerates (what an arc carries is
recorded as exactly the value that was read).

The CUDA twins in :mod:`gpugraph.engines.path._rounds_cuda` repeat the arc updates rather than
share a step function with these kernels: a cached ``prange`` kernel can lose the array writes
of a function it calls (docs/architecture.md, "Generated CPU kernels do not use prange"), so
each kernel writes its updates itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gpugraph import config
from gpugraph.backend._atomics_cpu import (
    atomic_add_f64,
    atomic_add_i64,
    atomic_min_nonnegative_f64,
    atomic_min_nonnegative_f64_seq_cst,
)
from gpugraph.backend.kernels import dynamic_schedule, run_cpu_kernel


@njit(parallel=True, cache=True)
def wake_chunks(woken, source_offsets, source_chunks, activity):
    """``activity[c] += 1`` for every arc that chunk ``c`` sends along from a woken vertex."""
    for i in prange(woken.size):
        v = woken[i]
        for e in range(source_offsets[v], source_offsets[v + 1]):
            atomic_add_i64(activity, source_chunks[e], 1)


@njit(parallel=True, cache=True)
def path_round(kind, chunks, chunk_offsets, offsets, vertices, values, sent, x, count,
               threshold, changed, pending, limit, sweeps, work):
    """Walk the paths of ``chunks`` (in that order, dynamically scheduled), each sequentially.

    At position ``j`` (arc ``u -> v``) the arc carries what changed at ``u`` since it last
    carried something; ``v``'s new state is used at once by the next position. ``changed[v]``
    marks a vertex that received more than ``threshold`` (SUM; smaller amounts are added but
    wake nothing) or got a new state (MIN, PEEL). MIN: a state above ``limit`` (the round's
    bucket bound, :meth:`Kernels.wake_all`) is not sent yet; ``pending[u]`` marks its vertex.
    The atomics' return values are not waited for (SUM, MIN: a plain read decides whether to
    send): a walk's steps stay independent memory operations, which matters on the GPU twin of
    this kernel. A chunk that woke a vertex which
    sends along one of the chunk's own arcs is walked again, at most ``sweeps`` walks in all.

    ``work[i]`` receives the arcs examined and the arcs that carried an update for
    ``chunks[i]`` (per-item counts rather than ``prange`` scalar reductions, which Numba's
    parfor pass fails to recognise in this loop under Python 3.12).
    """
    k = np.int64(threshold)
    for i in prange(chunks.size):
        c = chunks[i]
        first = offsets[chunk_offsets[c]]
        last = offsets[chunk_offsets[c + 1]]
        chunk_loaded = 0
        chunk_delivered = 0
        for sweep in range(sweeps):
            fed_back = False
            for p in range(chunk_offsets[c], chunk_offsets[c + 1]):
                for j in range(offsets[p], offsets[p + 1] - 1):
                    u = vertices[j]
                    v = vertices[j + 1]
                    chunk_loaded += 1
                    woke = False
                    if kind == 0:
                        state = x[u]
                        change = state - sent[j]
                        if abs(change) > threshold:
                            sent[j] = state
                            amount = values[j] * change
                            atomic_add_f64(x, v, amount)
                            if abs(amount) > threshold:
                                changed[v] = 1
                                woke = True
                            chunk_delivered += 1
                    elif kind == 1:
                        state = x[u]
                        if state < sent[j] and state > limit:
                            pending[u] = 1
                        elif state < sent[j]:
                            sent[j] = state
                            candidate = state + values[j]
                            if candidate < x[v]:
                                atomic_min_nonnegative_f64(x, v, candidate)
                                changed[v] = 1
                                woke = True
                                chunk_delivered += 1
                    elif x[u] != 0.0 and sent[j] == 0.0:
                        sent[j] = 1.0
                        chunk_delivered += 1
                        if atomic_add_i64(count, v, -1) == k:
                            x[v] = 1.0
                            changed[v] = 1
                            woke = True
                    if woke and sweeps > 1 and not fed_back:  # does v send along an arc of the chunk?
                        for q in range(first, last):
                            if vertices[q] == v:
                                fed_back = True
                                break
            if not fed_back:
                break
        work[i, 0] = chunk_loaded
        work[i, 1] = chunk_delivered


@njit(parallel=True, cache=True)
def vertex_round(kind, synchronous, frontier, indptr, indices, values, x, residual, incoming, pending,
                 count, threshold, changed, work):
    """One round of the vertex-centric engines over ``frontier``.

    Synchronous: SUM vertices apply their residual and push to
    ``incoming`` (added to the residual after the round); MIN vertices relax from their state at
    the round's start (``residual`` holds a copy of it); PEEL vertices were deleted last round.
    Asynchronous: SUM vertices whose residual exceeds ``threshold`` at
    their turn, and MIN / PEEL vertices whose ``pending`` flag is set, propagate their live
    state, and what they push is visible at once. ``changed[v]`` marks a vertex whose state
    changed in the round.

    ``work[i]`` receives the arcs examined and the arcs that carried an update for
    ``frontier[i]``.
    """
    k = np.int64(threshold)
    for i in prange(frontier.size):
        u = frontier[i]
        work[i, 0] = 0
        work[i, 1] = 0
        if kind == 0:
            change = residual[u]
            if abs(change) > threshold:
                atomic_add_f64(residual, u, -change)
                x[u] += change
                changed[u] = 1
                for e in range(indptr[u], indptr[u + 1]):
                    if synchronous:
                        atomic_add_f64(incoming, indices[e], values[e] * change)
                    else:
                        atomic_add_f64(residual, indices[e], values[e] * change)
                work[i, 0] = indptr[u + 1] - indptr[u]
                work[i, 1] = indptr[u + 1] - indptr[u]
        elif synchronous or pending[u] != 0:
            if synchronous:
                state = residual[u]
            else:
                pending[u] = 0
                # The state is read by a sequentially consistent read-modify-write that changes
                # nothing, ordered after the flag's clearing (as the improvements below are
                # before their flags): an improvement another thread makes meanwhile either
                # shows in this state or sets the flag again after it was cleared. A plain read
                # could be served before the clearing left this core's store buffer, and the
                # improvement was lost (wrong distances in ~1.5% of runs on 2 busy cores).
                state = atomic_min_nonnegative_f64_seq_cst(x, u, np.inf) if kind == 1 else x[u]
            delivered = 0
            for e in range(indptr[u], indptr[u + 1]):
                v = indices[e]
                if kind == 1:
                    candidate = state + values[e]
                    if candidate < x[v]:  # as in path_round: a plain read decides
                        atomic_min_nonnegative_f64_seq_cst(x, v, candidate)
                        changed[v] = 1
                        pending[v] = 1
                        delivered += 1
                else:
                    delivered += 1
                    if atomic_add_i64(count, v, -1) == k:
                        x[v] = 1.0
                        changed[v] = 1
                        pending[v] = 1
            work[i, 0] = indptr[u + 1] - indptr[u]
            work[i, 1] = delivered


class Kernels:
    """The engine's view of these kernels: compile-timed calls under a dynamic schedule, each
    round's arc counts added to a ``totals`` array (loaded, delivered)."""

    _no_pending = np.zeros(1, dtype=np.uint8)

    def wake_all(self, changed, buckets, source_offsets, source_chunks, activity, woken):
        """Wake the chunks of the vertices in ``changed`` and clear it; count the vertices and
        their arcs into ``woken`` (two cells; the CUDA twin does it on the device).

        With ``buckets`` (MIN programs) the vertices of ``changed`` and ``buckets.pending`` are
        the candidates: ``buckets.bound`` becomes their least state, and only those within
        ``buckets.width`` of it wake, the others stay pending (one each added to ``woken[1]``,
        so that a round ends the run only when nothing is left)."""
        if buckets is None:
            vertices = np.flatnonzero(changed)
        else:
            candidates = np.flatnonzero(changed | buckets.pending)
            states = buckets.x[candidates]
            buckets.bound[0] = states.min(initial=np.inf)
            within = states <= buckets.bound[0] + buckets.width
            vertices = candidates[within]
            buckets.pending[candidates] = ~within
            woken[1] += candidates.size - vertices.size
        woken[0] += np.count_nonzero(changed)
        changed[:] = 0
        run_cpu_kernel(wake_chunks, vertices, source_offsets, source_chunks, activity)
        woken[1] += int((source_offsets[vertices + 1] - source_offsets[vertices]).sum())

    def path_round_active(self, kind, activity, chunk_offsets, offsets, vertices, values, sent, x, count,
                          threshold, changed, buckets, sweeps, totals):
        """One round over the chunks with ``activity`` (cleared), in stored order."""
        chunks = np.flatnonzero(activity)
        activity[chunks] = 0
        self.path_round(kind, chunks, chunk_offsets, offsets, vertices, values, sent, x, count, threshold, changed,
                        buckets, sweeps, totals)

    def path_round(self, kind, chunks, chunk_offsets, offsets, vertices, values, sent, x, count,
                   threshold, changed, buckets, sweeps, totals):
        """One round over ``chunks`` in order (:func:`path_round`; MIN states above
        ``buckets``' bound plus width wait in ``buckets.pending``)."""
        work = np.empty((chunks.size, 2), dtype=np.int64)
        pending, limit = (self._no_pending, np.inf) if buckets is None else (
            buckets.pending, buckets.bound[0] + buckets.width)
        with dynamic_schedule(config.PATH_CPU_SCHEDULE_CHUNKS):
            run_cpu_kernel(path_round, np.int64(kind), chunks, chunk_offsets, offsets, vertices, values, sent, x,
                           count, np.float64(threshold), changed, pending, np.float64(limit), np.int64(sweeps), work)
        totals += work.sum(axis=0)

    def vertex_round(self, kind, synchronous, frontier, indptr, indices, values, x, residual, incoming, pending,
                     count, threshold, changed, totals):
        """One vertex-centric round (:func:`vertex_round`)."""
        work = np.empty((frontier.size, 2), dtype=np.int64)
        with dynamic_schedule(config.PATH_CPU_SCHEDULE_CHUNKS):
            run_cpu_kernel(vertex_round, np.int64(kind), bool(synchronous), frontier, indptr, indices, values, x,
                           residual, incoming, pending, count, np.float64(threshold), changed, work)
        totals += work.sum(axis=0)
