"""numba-cuda kernel of BFS's bottom-up step (private: call gpugraph.algorithms.bfs.run).

The top-down step is :func:`gpugraph.ops.advance`; the bottom-up step needs an early exit per
vertex, which a generic operator does not offer.
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(cache=True)
def bottom_up_step(in_indptr, in_indices, frontier_flags, level, depth, parent, next_flags):
    """One thread per vertex (see ``_bfs_cpu.bottom_up_step``)."""
    vertex = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if vertex >= depth.shape[0] or depth[vertex] >= 0:
        return
    for position in range(in_indptr[vertex], in_indptr[vertex + 1]):
        candidate = in_indices[position]
        if frontier_flags[candidate]:
            depth[vertex] = level + 1
            parent[vertex] = candidate
            next_flags[vertex] = 1
            break
