"""numba-cuda kernels used to build and inspect graphs (private: call through gpugraph.graph).

Importing this module loads numba-cuda (after the NumPy compatibility shim); it is imported only
when a CUDA backend is in use.
"""

from __future__ import annotations

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()


@cuda.jit(cache=True)
def count_ids_kernel(ids, counts):
    """counts[ids[i]] += 1 for every i, one thread per id (atomic increments)."""
    i = cuda.grid(1)
    if i < ids.shape[0]:
        cuda.atomic.add(counts, ids[i], 1)
