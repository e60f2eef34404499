"""CPU kernels of the distributed programs' push rounds (Numba, parallel over frontier proxies).

Twins of :mod:`gpugraph.distributed._push_cuda`; what they compute is documented in
:mod:`gpugraph.distributed.push`. Shared values change through the atomics of
:mod:`gpugraph.backend._atomics_cpu`; a source's value read without one may be stale, which
minimum propagation tolerates (a later round sends the lower value).
"""

from __future__ import annotations

from numba import njit, prange

from gpugraph.backend._atomics_cpu import atomic_add_f64, atomic_min_nonnegative_f64


@njit(parallel=True, cache=True)
def push_min(indptr, indices, weights, cost, frontier, value, improved):
    """``value[v] = min(value[v], value[u] + step)`` along the out-arcs of every frontier proxy
    ``u``; ``improved[v] = 1`` where that lowered ``value[v]``."""
    for k in prange(frontier.size):
        u = frontier[k]
        base = value[u]
        for e in range(indptr[u], indptr[u + 1]):
            step = weights[e] if cost == 2 else (1.0 if cost == 1 else 0.0)
            candidate = base + step
            v = indices[e]
            if candidate < value[v] and candidate < atomic_min_nonnegative_f64(value, v, candidate):
                improved[v] = 1


@njit(parallel=True, cache=True)
def push_add(indptr, indices, frontier, share, arrived):
    """``arrived[v] += share[u]`` along the out-arcs of every frontier proxy ``u``."""
    for k in prange(frontier.size):
        u = frontier[k]
        amount = share[u]
        for e in range(indptr[u], indptr[u + 1]):
            atomic_add_f64(arrived, indices[e], amount)
