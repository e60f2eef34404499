"""Push rounds of the distributed programs: work proportional to the active proxies' arcs.

A program's local round either *pulls* over every local arc (:func:`gpugraph.ops.pull`: no
atomics, every arc read once) or *pushes* from the active proxies only, with atomics. Pushing
wins while the active proxies hold few arcs (late PageRank rounds, BFS and SSSP away from the
peak level); :func:`use_push` decides by the active arcs' share of the local arcs
(``config.DISTRIBUTED_PUSH_MAX_ARC_SHARE``), as direction-optimising BFS does.

:func:`push_min`  ``value[v] = min(value[v], value[u] + step)`` over the active proxies' arcs,
                  ``step`` 0 (labels), 1 (hops) or the arc weight; returns which proxies fell.
:func:`push_add`  ``arrived[v] += share[u]`` over the active proxies' arcs.
"""

from __future__ import annotations

import numpy as np

from gpugraph import config
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel

#: ``cost`` codes of :func:`push_min`.
COSTS = {"label": 0, "hop": 1, "weight": 2}


def use_push(graph, frontier_arcs: int) -> bool:
    """Whether a frontier holding ``frontier_arcs`` of the local arcs is small enough to push
    from rather than pull over every arc."""
    return frontier_arcs <= config.DISTRIBUTED_PUSH_MAX_ARC_SHARE * max(graph.num_arcs, 1)


def push_min(graph, frontier, value, cost: str):
    """Lower ``value`` along the out-arcs of ``frontier`` (module docstring); returns a bool
    array over the proxies: which fell."""
    xp = graph.backend.xp
    improved = xp.zeros(graph.num_vertices, dtype=np.uint8)
    weights = graph.weights if graph.weights is not None else xp.zeros(0, dtype=np.float64)
    code = np.int64(COSTS[cost] if cost != "weight" or graph.weights is not None else COSTS["hop"])
    if graph.backend.is_cuda:
        from gpugraph.distributed import _push_cuda

        starts, total = _starts(graph, frontier)
        if total:
            launch_cuda_kernel(_push_cuda.push_min, graph.backend, total, graph.indptr, graph.indices, weights,
                               code, frontier, starts, np.int64(total), value, improved)
    else:
        from gpugraph.distributed import _push_cpu

        run_cpu_kernel(_push_cpu.push_min, graph.indptr, graph.indices, weights, code, frontier, value, improved)
    return improved.astype(bool)


def push_add(graph, frontier, share):
    """``arrived`` (float64 over the proxies, zero elsewhere) after sending ``share[u]`` along
    every out-arc of every ``u`` in ``frontier``."""
    xp = graph.backend.xp
    arrived = xp.zeros(graph.num_vertices)
    if graph.backend.is_cuda:
        from gpugraph.distributed import _push_cuda

        starts, total = _starts(graph, frontier)
        if total:
            launch_cuda_kernel(_push_cuda.push_add, graph.backend, total, graph.indptr, graph.indices, frontier,
                               starts, np.int64(total), share, arrived)
    else:
        from gpugraph.distributed import _push_cpu

        run_cpu_kernel(_push_cpu.push_add, graph.indptr, graph.indices, frontier, share, arrived)
    return arrived


def _starts(graph, frontier):
    """Exclusive prefix sum of the frontier proxies' out-degrees, and their total."""
    xp = graph.backend.xp
    degree = graph.indptr[frontier + 1] - graph.indptr[frontier]
    ends = xp.cumsum(degree)
    return ends - degree, int(ends[-1]) if frontier.size else 0
