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
