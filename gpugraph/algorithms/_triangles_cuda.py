"""numba-cuda kernel of weighted triangle enumeration (private: used by triangles.py and lcc.py)."""

from __future__ import annotations

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(cache=True)
def enumerate_triangles(indptr, indices, arc_source, arc_weight, vertex_count):
    """One thread per arc ``u -> v`` of the degree-oriented graph: merge the sorted rows of ``u``
    and ``v``; each common ``w`` closes a triangle found only here, and every corner is credited
    (atomically) the weight of the arc opposite to it."""
    arc = cuda.grid(1)
    if arc >= indices.shape[0]:
        return
    u = arc_source[arc]
    v = indices[arc]
    i = indptr[u]
    row_end = indptr[u + 1]
    j = indptr[v]
    other_end = indptr[v + 1]
    while i < row_end and j < other_end:
        mine = indices[i]
        theirs = indices[j]
        if mine < theirs:
            i += 1
        elif theirs < mine:
            j += 1
        else:
            cuda.atomic.add(vertex_count, u, arc_weight[j])
            cuda.atomic.add(vertex_count, v, arc_weight[i])
            cuda.atomic.add(vertex_count, mine, arc_weight[arc])
            i += 1
            j += 1
