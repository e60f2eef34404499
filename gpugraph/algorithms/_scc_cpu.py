"""Numba CPU kernels of strongly connected components (private: call gpugraph.algorithms.scc.run;
the path engine's dependency layers, :mod:`gpugraph.engines.path.dependency`, use
:func:`strong_components` with its extra arcs and completion order)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def strong_components(indptr, indices, extra, component, emitted):
    """Tarjan's algorithm with an explicit call stack (no recursion, so no depth limit) over the
    CSR's arcs plus the arc ``v -> extra[v]`` of every vertex with ``extra[v] >= 0``.

    Parameters
    ----------
    component:
        Filled: components numbered in the order they are completed, so a component's number
        is above those of all components it reaches.
    emitted:
        Filled: the vertices grouped by component, in that order.

    Returns
    -------
    int
        Number of components.
    """
    n = indptr.size - 1
    component[:] = -1
    order = np.full(n, -1, dtype=component.dtype)  # discovery index; -1: not visited
    lowlink = np.empty(n, dtype=component.dtype)
    stack = np.empty(n, dtype=component.dtype)  # on it: discovered, component still -1
    call_vertex = np.empty(n, dtype=component.dtype)
    call_edge = np.empty(n, dtype=np.int64)  # next out-arc of the frame; indptr[v + 1]: the extra arc
    counter = 0
    top = 0
    count = 0
    done = 0
    for root in range(n):
        if order[root] != -1:
            continue
        order[root] = counter
        lowlink[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        depth = 0
        call_vertex[0] = root
        call_edge[0] = indptr[root]
        while depth >= 0:
            vertex = call_vertex[depth]
            edge = call_edge[depth]
            if edge <= indptr[vertex + 1]:
                call_edge[depth] = edge + 1
                neighbour = indices[edge] if edge < indptr[vertex + 1] else extra[vertex]
                if neighbour < 0:
                    continue
                if order[neighbour] == -1:
                    order[neighbour] = counter
                    lowlink[neighbour] = counter
                    counter += 1
                    stack[top] = neighbour
                    top += 1
                    depth += 1
                    call_vertex[depth] = neighbour
                    call_edge[depth] = indptr[neighbour]
                elif component[neighbour] == -1 and order[neighbour] < lowlink[vertex]:
                    lowlink[vertex] = order[neighbour]
                continue
            if lowlink[vertex] == order[vertex]:  # the stack from vertex up is one component
                while True:
                    top -= 1
                    member = stack[top]
                    component[member] = count
                    emitted[done] = member
                    done += 1
                    if member == vertex:
                        break
                count += 1
            depth -= 1
            if depth >= 0:
                caller = call_vertex[depth]
                lowlink[caller] = min(lowlink[caller], lowlink[vertex])
    return count


@numba.njit(cache=True, nogil=True)
def tarjan(indptr, indices, component):
    """Tarjan's algorithm (:func:`strong_components`): ``component`` (pre-set to -1) receives
    the smallest vertex id of each vertex's SCC."""
    n = component.shape[0]
    emitted = np.empty(n, dtype=component.dtype)
    count = strong_components(indptr, indices, np.full(n, -1, dtype=np.int64), component, emitted)
    smallest = np.full(count, n, dtype=component.dtype)
    for v in range(n):
        smallest[component[v]] = min(smallest[component[v]], v)
    for v in range(n):
        component[v] = smallest[component[v]]
