"""Numba CPU kernel of strongly connected components (private: call gpugraph.algorithms.scc.run)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def tarjan(indptr, indices, component):
    """Tarjan's algorithm with an explicit call stack (no recursion, so no depth limit).

    ``component`` (pre-set to -1) receives the smallest vertex id of each vertex's SCC.
    """
    n = component.shape[0]
    order = np.full(n, -1, dtype=np.int64)  # discovery index; -1: not visited
    lowlink = np.empty(n, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    call_vertex = np.empty(n, dtype=np.int64)
    call_edge = np.empty(n, dtype=np.int64)  # next out-arc of the frame to look at
    counter = 0
    top = 0
    for root in range(n):
        if order[root] != -1:
            continue
        order[root] = counter
        lowlink[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        on_stack[root] = True
        depth = 0
        call_vertex[0] = root
        call_edge[0] = indptr[root]
        while depth >= 0:
            vertex = call_vertex[depth]
            edge = call_edge[depth]
            if edge < indptr[vertex + 1]:
                call_edge[depth] = edge + 1
                neighbour = indices[edge]
                if order[neighbour] == -1:
                    order[neighbour] = counter
                    lowlink[neighbour] = counter
                    counter += 1
                    stack[top] = neighbour
                    top += 1
                    on_stack[neighbour] = True
                    depth += 1
                    call_vertex[depth] = neighbour
                    call_edge[depth] = indptr[neighbour]
                elif on_stack[neighbour]:
                    lowlink[vertex] = min(lowlink[vertex], order[neighbour])
                continue
            if lowlink[vertex] == order[vertex]:
                # The stack from ``vertex`` up is one SCC: label it with its smallest id.
                bottom = top - 1
                while stack[bottom] != vertex:
                    bottom -= 1
                smallest = vertex
                for slot in range(bottom, top):
                    smallest = min(smallest, stack[slot])
                for slot in range(bottom, top):
                    component[stack[slot]] = smallest
                    on_stack[stack[slot]] = False
                top = bottom
            depth -= 1
            if depth >= 0:
                caller = call_vertex[depth]
                lowlink[caller] = min(lowlink[caller], lowlink[vertex])
