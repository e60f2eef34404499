"""numba-cuda kernels of strongly connected components (private: call
gpugraph.algorithms.scc.run). Every kernel runs one thread per vertex and only looks at vertices
still ``active`` (not yet assigned a component)."""

from __future__ import annotations

from gpugraph.backend.cuda_device import thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(device=True)
def _has_active_neighbour(offsets, neighbours, vertex, active):
    for edge in range(offsets[vertex], offsets[vertex + 1]):
        neighbour = neighbours[edge]
        if neighbour != vertex and active[neighbour]:
            return True
    return False


@cuda.jit(cache=True)
def trim(indptr, indices, in_indptr, in_indices, active, component, trimmed):
    """An active vertex with no active in-neighbour or no active out-neighbour (self-loops
    aside) is an SCC by itself. Vertices trimmed concurrently only make others' counts smaller,
    so a stale read can miss a trim (the next launch finds it) but never trims wrongly."""
    vertex = thread_index()
    if vertex >= active.shape[0] or not active[vertex]:
        return
    if not _has_active_neighbour(indptr, indices, vertex, active) or not _has_active_neighbour(
        in_indptr, in_indices, vertex, active
    ):
        component[vertex] = vertex
        active[vertex] = 0
        trimmed[0] = 1


@cuda.jit(cache=True)
def push_colors(indptr, indices, active, color, changed, next_changed, any_change):
    """Forward coloring step: each active vertex whose color dropped last step offers it to its
    active out-neighbours (atomic minimum); every neighbour it lowers is flagged for the next."""
    vertex = thread_index()
    if vertex >= active.shape[0] or not changed[vertex] or not active[vertex]:
        return
    mine = color[vertex]
    for edge in range(indptr[vertex], indptr[vertex + 1]):
        neighbour = indices[edge]
        if active[neighbour] and mine < color[neighbour]:
            if mine < cuda.atomic.min(color, neighbour, mine):
                next_changed[neighbour] = 1
                any_change[0] = 1


@cuda.jit(cache=True)
def claim_backward(in_indptr, in_indices, active, color, in_component, frontier, next_frontier, any_change):
    """Backward step from the roots: each frontier vertex claims its active in-neighbours of
    the same color that are not claimed yet; they form the next frontier."""
    vertex = thread_index()
    if vertex >= active.shape[0] or not frontier[vertex]:
        return
    mine = color[vertex]
    for position in range(in_indptr[vertex], in_indptr[vertex + 1]):
        neighbour = in_indices[position]
        if active[neighbour] and color[neighbour] == mine and not in_component[neighbour]:
            in_component[neighbour] = 1
            next_frontier[neighbour] = 1
            any_change[0] = 1
