"""numba-cuda kernel of the k-core peel (private: call gpugraph.algorithms.kcore.run)."""

from __future__ import annotations

from gpugraph.backend.cuda_device import thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(cache=True)
def peel(peeled, offsets, neighbours, alive, degree):
    """One thread per vertex peeled this round (already marked dead): every neighbour still
    alive loses one degree (atomically; several peeled vertices may share a neighbour)."""
    index = thread_index()
    if index >= peeled.shape[0]:
        return
    vertex = peeled[index]
    for edge in range(offsets[vertex], offsets[vertex + 1]):
        neighbour = neighbours[edge]
        if alive[neighbour]:
            cuda.atomic.sub(degree, neighbour, 1)
