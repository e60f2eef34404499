"""CUDA kernels of the graph generators: the same scalar functions as the CPU kernels, compiled
for the GPU, so a seed gives identical edges on both (private)."""

from __future__ import annotations

import numpy as np

from gpugraph.backend.numba_cuda import load_numba_cuda
from gpugraph.io._generator_kernels import compile_scalar_functions

cuda = load_numba_cuda()
_gpu = compile_scalar_functions(cuda.jit(device=True))
_stream, _rmat_edge, _permute_id, _uniform_pair = (
    _gpu.stream, _gpu.rmat_edge, _gpu.permute_id, _gpu.uniform_pair,
)


@cuda.jit(cache=True)
def rmat_kernel(key, permutation_key, scale, a, ab, abc, permute, src_out, dst_out):
    """One thread per RMAT edge (see gpugraph.io._generator_kernels.rmat_cpu)."""
    edge = cuda.grid(1)
    if edge >= src_out.shape[0]:
        return
    src, dst = _rmat_edge(key, np.uint64(edge), scale, a, ab, abc)
    if permute:
        src = _permute_id(src, scale, permutation_key)
        dst = _permute_id(dst, scale, permutation_key)
    src_out[edge] = np.int64(src)
    dst_out[edge] = np.int64(dst)


@cuda.jit(cache=True)
def gnm_kernel(key, num_vertices, src_out, dst_out):
    """One thread per uniform random edge (see gnm_cpu)."""
    edge = cuda.grid(1)
    if edge >= src_out.shape[0]:
        return
    src, dst = _uniform_pair(key, np.uint64(edge), np.uint64(num_vertices))
    src_out[edge] = np.int64(src)
    dst_out[edge] = np.int64(dst)


@cuda.jit(cache=True)
def hashed_weights_kernel(key, low, high, weights_out):
    """One thread per weight (see hashed_weights_cpu)."""
    index = cuda.grid(1)
    if index >= weights_out.shape[0]:
        return
    span = np.uint64(high - low + 1)
    weights_out[index] = low + np.int64(_stream(key, np.uint64(index)) % span)
