"""numba-cuda kernels of the distributed programs' push rounds: one thread per frontier arc.

Twins of :mod:`gpugraph.distributed._push_cpu` (see :mod:`gpugraph.distributed.push`). The
frontier's arcs are numbered through ``starts`` (exclusive prefix sum of the frontier proxies'
out-degrees); thread ``i`` finds its proxy by binary search, so a hub's arcs spread over many
threads and power-law frontiers stay balanced (the edge-balanced strategy of
:mod:`gpugraph.ops.advance`).
"""

from __future__ import annotations

from gpugraph.backend.cuda_device import last_at_most, thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(device=True)
def _arc(indptr, frontier, starts, i):
    """``(u, e)``: the frontier proxy owning frontier arc ``i`` and the arc's CSR position."""
    k = last_at_most(starts, frontier.shape[0], i)
    u = frontier[k]
    return u, indptr[u] + (i - starts[k])


@cuda.jit(cache=True)
def push_min(indptr, indices, weights, cost, frontier, starts, total, value, improved):
    """Minimum propagation along frontier arc ``thread_index()`` (see ``_push_cpu.push_min``)."""
    i = thread_index()
    if i >= total:
        return
    u, e = _arc(indptr, frontier, starts, i)
    step = weights[e] if cost == 2 else (1.0 if cost == 1 else 0.0)
    candidate = value[u] + step
    v = indices[e]
    if candidate < value[v] and candidate < cuda.atomic.min(value, v, candidate):
        improved[v] = 1


@cuda.jit(cache=True)
def push_add(indptr, indices, frontier, starts, total, share, arrived):
    """``arrived[v] += share[u]`` along frontier arc ``thread_index()``."""
    i = thread_index()
    if i >= total:
        return
    u, e = _arc(indptr, frontier, starts, i)
    cuda.atomic.add(arrived, indices[e], share[u])
