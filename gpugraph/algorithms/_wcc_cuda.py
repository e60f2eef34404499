"""numba-cuda kernels of weakly connected components (private: call gpugraph.algorithms.wcc.run).

The parent array keeps ``parent[v] <= v`` at all times, which is what makes the lock-free
hooking and the racy path compression safe (Jaiganesh & Burtscher, ECL-CC, HPDC 2018).
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend.cuda_device import thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(device=True)
def _representative(parent, vertex):
    """The root of ``vertex``, pointing each visited vertex at its grandparent (intermediate
    pointer jumping: concurrent writers only ever store an ancestor, which is smaller)."""
    current = parent[vertex]
    if current != vertex:
        previous = vertex
        following = parent[current]
        while current > following:
            parent[previous] = following
            previous = current
            current = following
            following = parent[current]
    return current


@cuda.jit(cache=True)
def hook(indptr, indices, lower_only, parent):
    """One thread per vertex: union it with each out-neighbour (only smaller ones when
    ``lower_only``), hooking the larger root under the smaller with a compare-and-swap and
    retrying from what the swap found when another thread got there first."""
    vertex = thread_index()
    if vertex >= parent.shape[0]:
        return
    for edge in range(indptr[vertex], indptr[vertex + 1]):
        neighbour = indices[edge]
        if lower_only and neighbour >= vertex:
            continue
        _union(parent, vertex, neighbour)


@cuda.jit(cache=True)
def hook_range(indptr, indices, first, count, skip, parent):
    """Afforest's hooking (Sutton et al., IPDPS 2018): one thread per vertex unions it with its
    neighbours ``first .. first + count - 1`` (all from ``first`` when ``count < 0``), unless
    the vertex already belongs to the component rooted at ``skip`` (``-1``: skip none)."""
    vertex = thread_index()
    if vertex >= parent.shape[0]:
        return
    if skip >= 0 and _representative(parent, vertex) == skip:
        return
    begin = indptr[vertex] + first
    end = indptr[vertex + 1]
    if count >= 0 and begin + count < end:
        end = begin + count
    for edge in range(begin, end):
        _union(parent, vertex, indices[edge])


@cuda.jit(device=True)
def _union(parent, vertex, neighbour):
    """Join the trees of ``vertex`` and ``neighbour``, the larger root under the smaller."""
    mine = _representative(parent, vertex)
    theirs = _representative(parent, neighbour)
    while mine != theirs:
        if mine < theirs:
            found = cuda.atomic.cas(parent, theirs, theirs, mine)
            if found == theirs:
                break
            theirs = found
        else:
            found = cuda.atomic.cas(parent, mine, mine, theirs)
            if found == mine:
                break
            mine = found




@cuda.jit(cache=True)
def compress(parent):
    """One thread per vertex, after all hooks: point the vertex straight at its root."""
    vertex = thread_index()
    if vertex >= parent.shape[0]:
        return
    root = parent[vertex]
    while root > parent[root]:
        root = parent[root]
    parent[vertex] = root


def afforest(graph, parent) -> None:
    """Components of an undirected graph into ``parent`` (``arange(n)`` on entry), Afforest's way.

    Link every vertex to its first ``config.WCC_SAMPLED_NEIGHBOURS`` neighbours, one neighbour
    per round with a compression after each; sample ``config.WCC_SAMPLES`` vertices to find the
    most frequent root (on power-law graphs, the giant component's); then only the vertices
    outside it link their remaining neighbours. An edge between the giant component and another
    vertex is stored at that vertex too, so skipping the giant component's vertices (most of the
    edges) loses no link.
    """
    from gpugraph import config
    from gpugraph.backend.kernels import launch_cuda_kernel

    backend = graph.backend
    xp = backend.xp
    n = graph.num_vertices
    indptr, indices = graph.indptr, graph.indices
    for neighbour in range(config.WCC_SAMPLED_NEIGHBOURS):
        launch_cuda_kernel(hook_range, backend, n, indptr, indices, np.int64(neighbour), np.int64(1), np.int64(-1), parent)
        launch_cuda_kernel(compress, backend, n, parent)
    picks = np.random.default_rng(config.WCC_SAMPLE_SEED).integers(0, n, config.WCC_SAMPLES)
    roots = parent[xp.asarray(picks)]
    roots = roots.get() if hasattr(roots, "get") else np.asarray(roots)
    values, counts = np.unique(roots, return_counts=True)
    giant = np.int64(values[np.argmax(counts)])
    launch_cuda_kernel(hook_range, backend, n, indptr, indices, np.int64(config.WCC_SAMPLED_NEIGHBOURS),
                       np.int64(-1), giant, parent)
    launch_cuda_kernel(compress, backend, n, parent)
