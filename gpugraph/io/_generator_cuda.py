"""numba-cuda kernels of the graph generators (private: use gpugraph.io.generators).

Each kernel is the CPU kernel of the same name in :mod:`gpugraph.io._generator_kernels` with its
parallel loop replaced by one thread per item, calling the same scalar functions compiled for the
GPU, so a seed gives the same edges on both. Importing this module loads numba-cuda; it is
imported only when a CUDA backend is in use.
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend.cuda_device import thread_index
from gpugraph.backend.numba_cuda import load_numba_cuda
from gpugraph.io._generator_kernels import compile_scalar_functions

cuda = load_numba_cuda()
_gpu = compile_scalar_functions(cuda.jit(device=True))
_random_word = _gpu.random_word
_rmat_endpoints = _gpu.rmat_endpoints
_permuted_id = _gpu.permuted_id
_uniform_pair = _gpu.uniform_pair


@cuda.jit(cache=True)
def permutation_table_kernel(key, bits, table_out):
    """One thread per vertex (see ``permutation_table_cpu``)."""
    vertex = thread_index()
    if vertex < table_out.shape[0]:
        table_out[vertex] = _permuted_id(np.uint64(vertex), bits, key)


@cuda.jit(cache=True)
def rmat_kernel(
    key, scale, threshold_a, threshold_ab, threshold_abc, permutation_key, permute, first_edge, src_out, dst_out
):
    """One thread per RMAT edge (see ``rmat_cpu``)."""
    index = thread_index()
    if index >= src_out.shape[0]:
        return
    src, dst = _rmat_endpoints(
        key, np.uint64(first_edge + index), scale, threshold_a, threshold_ab, threshold_abc
    )
    if permute:
        src = _permuted_id(src, scale, permutation_key)
        dst = _permuted_id(dst, scale, permutation_key)
    src_out[index] = src
    dst_out[index] = dst


@cuda.jit(cache=True)
def gnm_kernel(key, num_vertices, self_loops, first_edge, src_out, dst_out):
    """One thread per G(n, m) edge (see ``gnm_cpu``)."""
    index = thread_index()
    if index < src_out.shape[0]:
        src, dst = _uniform_pair(key, np.uint64(first_edge + index), np.uint64(num_vertices), self_loops)
        src_out[index] = src
        dst_out[index] = dst


@cuda.jit(cache=True)
def uniform_integers_kernel(key, low, high, values_out):
    """One thread per value (see ``uniform_integers_cpu``)."""
    index = thread_index()
    if index < values_out.shape[0]:
        span = np.uint64(high - low + 1)
        values_out[index] = low + np.int64(_random_word(key, np.uint64(index)) % span)
