"""Device functions that every numba-cuda kernel module shares.

Imported only when a CUDA backend (or the simulator) is in use, like the kernel modules.
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(device=True)
def thread_index():
    """The calling thread's index in the grid, as int64 (correct past 2^31 threads)."""
    return np.int64(cuda.blockIdx.x) * np.int64(cuda.blockDim.x) + np.int64(cuda.threadIdx.x)


@cuda.jit(device=True)
def last_at_most(ascending, count, value):
    """The largest ``k < count`` with ``ascending[k] <= value`` (binary search; ``ascending[0] <=
    value`` is assumed): which run of a prefix sum or of CSR offsets position ``value`` lies in.
    What the edge-balanced kernels use to find the source of their first arc."""
    low = np.int64(0)
    high = np.int64(count) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if ascending[middle] <= value:
            low = middle
        else:
            high = middle - 1
    return low
