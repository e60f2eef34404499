"""numba-cuda kernels of weakly connected components (private: call gpugraph.algorithms.wcc.run).

The parent array keeps ``parent[v] <= v`` at all times, which is what makes the lock-free
hooking and the racy path compression safe (Jaiganesh & Burtscher, ECL-CC, HPDC 2018).
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(device=True)
def _thread_index():
    return np.int64(cuda.blockIdx.x) * np.int64(cuda.blockDim.x) + np.int64(cuda.threadIdx.x)


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
    vertex = _thread_index()
    if vertex >= parent.shape[0]:
        return
    for edge in range(indptr[vertex], indptr[vertex + 1]):
        neighbour = indices[edge]
        if lower_only and neighbour >= vertex:
            continue
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
    vertex = _thread_index()
    if vertex >= parent.shape[0]:
        return
    root = parent[vertex]
    while root > parent[root]:
        root = parent[root]
    parent[vertex] = root
