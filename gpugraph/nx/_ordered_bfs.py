"""Breadth-first search in NetworkX's visiting order (host, compiled).

NetworkX's ``bfs_edges`` / ``bfs_layers`` promise an order: vertices leave the queue in the order
they entered it and scan their neighbours in adjacency order, and a vertex's parent is the first
queued vertex that reaches it. One FIFO pass over the arcs in NetworkX's order
(:class:`gpugraph.nx.graph.BackendGraph` keeps them so) gives exactly that tree and order; it is
serial by nature, and linear, so it runs compiled on one core.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def ordered_bfs(indptr, indices, sources, depth_limit):
    """FIFO breadth-first search from ``sources`` (internal ids, already unique).

    Parameters
    ----------
    indptr, indices:
        Host CSR (int64) with neighbours in visiting order.
    sources:
        Start vertices, in the order they enter the queue.
    depth_limit:
        Vertices at this depth are reached but not expanded.

    Returns
    -------
    order, parent, depth
        ``order``: reached vertices in queue order; ``parent`` (-1 for sources and unreached
        vertices) and ``depth`` (-1 if unreached) per vertex.
    """
    n = indptr.shape[0] - 1
    order = np.empty(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    depth = np.full(n, -1, dtype=np.int64)
    tail = 0
    for s in sources:
        depth[s] = 0
        order[tail] = s
        tail += 1
    head = 0
    while head < tail:
        u = order[head]
        head += 1
        if depth[u] >= depth_limit:
            continue
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if depth[v] < 0:
                depth[v] = depth[u] + 1
                parent[v] = u
                order[tail] = v
                tail += 1
    return order[:tail], parent, depth
