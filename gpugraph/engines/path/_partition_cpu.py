"""Numba kernels of the path engine's preprocessing (see :mod:`gpugraph.engines.path.partition`)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def depth_bounded_paths(indptr, order_arcs, successors, roots, max_depth):
    """Algorithm 1 of DiGraph with an explicit stack: cut the arcs into edge-disjoint paths.

    Parameters
    ----------
    indptr:
        CSR offsets (int64, ``n + 1``).
    order_arcs, successors:
        Per CSR slot ``i`` of vertex ``u``'s row, the arc id (CSR position) and head of ``u``'s
        ``i``-th arc in visiting order (highest-degree head first).
    roots:
        Vertices in the order traversals start from them (descending out-degree).
    max_depth:
        D_MAX: a vertex reached at this depth is not expanded by the traversal that reached it.

    Returns
    -------
    (vertices, arcs, path_offsets)
        ``vertices`` holds each path's vertices in order, paths one after another;
        ``arcs[j]`` the arc from ``vertices[j]`` to ``vertices[j + 1]`` (-1 at a path's last
        vertex); ``path_offsets`` where each path starts (``P + 1`` entries).
    """
    n = indptr.size - 1
    m = indptr[n]
    cursor = indptr[:-1].copy()  # next unvisited arc slot of each vertex
    visited = np.zeros(n, dtype=np.bool_)
    vertices = np.empty(2 * m, dtype=np.int64)
    arcs = np.empty(2 * m, dtype=np.int64)
    path_offsets = np.empty(m + 1, dtype=np.int64)
    stack_vertex = np.empty(max_depth + 1, dtype=np.int64)
    stack_depth = np.empty(max_depth + 1, dtype=np.int64)
    length = 0
    paths = 0
    for root in roots:
        if cursor[root] == indptr[root + 1]:
            continue
        visited[root] = True
        top = 0
        stack_vertex[0] = root
        stack_depth[0] = 0
        open_path = False
        while top >= 0:
            u = stack_vertex[top]
            if stack_depth[top] < max_depth and cursor[u] < indptr[u + 1]:
                slot = cursor[u]
                cursor[u] += 1
                v = successors[slot]
                if not open_path:  # the arc starts a new path at u
                    path_offsets[paths] = length
                    paths += 1
                    vertices[length] = u
                    length += 1
                    open_path = True
                arcs[length - 1] = order_arcs[slot]
                vertices[length] = v
                arcs[length] = -1
                length += 1
                if visited[v]:
                    open_path = False  # Algorithm 1, lines 15-16: v is met again, the path ends
                else:
                    visited[v] = True
                    top += 1
                    stack_vertex[top] = v
                    stack_depth[top] = stack_depth[top - 1] + 1
            else:
                open_path = False  # line 21 (no arc left or depth bound), or the row is done
                top -= 1
    path_offsets[paths] = length
    return vertices[:length].copy(), arcs[:length].copy(), path_offsets[: paths + 1].copy()


@njit(cache=True)
def merge_head_to_tail(vertices, path_offsets, in_degree, out_degree, max_length):
    """Link short paths head to tail (a path ending at ``x`` to one starting at ``x``).

    A pair is linked when the result has at most ``max_length`` arcs, it closes no cycle of
    links, and — if ``x`` has in- and out-degree above one — ``x`` is an inner vertex of no
    other path (the paper's constraint). Linking makes ``x`` an inner vertex of the result.

    Returns
    -------
    (next_path, has_previous)
        ``next_path[p]`` the path linked after ``p`` (-1 if none) and whether ``p`` has one
        before it; chains start at paths without a previous one.
    """
    n = in_degree.size
    paths = path_offsets.size - 1
    inner_count = np.zeros(n, dtype=np.int64)
    for p in range(paths):
        for j in range(path_offsets[p] + 1, path_offsets[p + 1] - 1):
            inner_count[vertices[j]] += 1
    heads = np.zeros(n + 1, dtype=np.int64)  # CSR of the paths starting at each vertex
    for p in range(paths):
        heads[vertices[path_offsets[p]] + 1] += 1
    for v in range(n):
        heads[v + 1] += heads[v]
    fill = heads[:-1].copy()
    starting = np.empty(paths, dtype=np.int64)
    for p in range(paths):
        h = vertices[path_offsets[p]]
        starting[fill[h]] = p
        fill[h] += 1
    next_path = np.full(paths, -1, dtype=np.int64)
    previous = np.full(paths, -1, dtype=np.int64)
    chain_length = np.empty(paths, dtype=np.int64)  # arcs of the chain a path heads (heads only)
    chain_first = np.arange(paths)
    for p in range(paths):
        chain_length[p] = path_offsets[p + 1] - path_offsets[p] - 1
    for p in range(paths):
        if next_path[p] != -1:
            continue
        first = chain_first[p]
        x = vertices[path_offsets[p + 1] - 1]
        hub = in_degree[x] > 1 and out_degree[x] > 1
        if hub and inner_count[x] > 0:
            continue
        for i in range(heads[x], heads[x + 1]):
            q = starting[i]
            if previous[q] != -1 or q == first:
                continue
            if chain_length[first] + chain_length[q] > max_length:
                continue
            next_path[p] = q
            previous[q] = p
            chain_length[first] += chain_length[q]
            # every path of q's chain now belongs to first's chain
            r = q
            while r != -1:
                chain_first[r] = first
                r = next_path[r]
            inner_count[x] += 1
            break
    return next_path, previous != -1


@njit(cache=True)
def layout_chains(vertices, arcs, path_offsets, next_path, has_previous):
    """Write the linked chains out as paths: a chain's vertices once each, in order."""
    paths = path_offsets.size - 1
    out_vertices = np.empty(vertices.size, dtype=np.int64)
    out_arcs = np.empty(vertices.size, dtype=np.int64)
    out_offsets = np.empty(paths + 1, dtype=np.int64)
    length = 0
    chains = 0
    for p in range(paths):
        if has_previous[p]:
            continue
        out_offsets[chains] = length
        chains += 1
        q = p
        first = True
        while q != -1:
            start = path_offsets[q] if first else path_offsets[q] + 1  # the joint is written once
            if not first:
                out_arcs[length - 1] = arcs[path_offsets[q]]
            for j in range(start, path_offsets[q + 1]):
                out_vertices[length] = vertices[j]
                out_arcs[length] = arcs[j]
                length += 1
            first = False
            q = next_path[q]
    out_offsets[chains] = length
    return out_vertices[:length].copy(), out_arcs[:length].copy(), out_offsets[: chains + 1].copy()


@njit(cache=True)
def longest_path_layers(offsets, targets, weight):
    """Layer of every node of a DAG: the most ``weight`` summed over any chain of predecessors.

    Parameters
    ----------
    offsets, targets:
        CSR of the DAG's arcs.
    weight:
        Per node, 1 if it counts as a layer step (it holds paths), else 0.

    Returns
    -------
    ndarray of int64
        ``layer[c] = max over arcs b -> c of layer[b] + weight[b]`` (0 for sources).
    """
    nodes = offsets.size - 1
    indegree = np.zeros(nodes, dtype=np.int64)
    for i in range(targets.size):
        indegree[targets[i]] += 1
    layer = np.zeros(nodes, dtype=np.int64)
    queue = np.empty(nodes, dtype=np.int64)
    tail = 0
    for c in range(nodes):
        if indegree[c] == 0:
            queue[tail] = c
            tail += 1
    head = 0
    while head < tail:
        b = queue[head]
        head += 1
        for i in range(offsets[b], offsets[b + 1]):
            c = targets[i]
            if layer[b] + weight[b] > layer[c]:
                layer[c] = layer[b] + weight[b]
            indegree[c] -= 1
            if indegree[c] == 0:
                queue[tail] = c
                tail += 1
    return layer


@njit(cache=True)
def chunk_boundaries(lengths, max_arcs):
    """Cut consecutive paths into chunks of at most ``max_arcs`` arcs (a longer path alone).

    Returns
    -------
    ndarray of int64
        Chunk ``c`` holds paths ``bounds[c]`` to ``bounds[c + 1] - 1``.
    """
    bounds = np.empty(lengths.size + 1, dtype=np.int64)
    chunks = 0
    arcs = max_arcs  # forces a new chunk at the first path
    for p in range(lengths.size):
        if arcs + lengths[p] > max_arcs:
            bounds[chunks] = p
            chunks += 1
            arcs = 0
        arcs += lengths[p]
    bounds[chunks] = lengths.size
    return bounds[: chunks + 1].copy()
