"""Scalar functions and CPU kernels of the graph generators (private).

The scalar functions are plain Python written for Numba's uint64 arithmetic. They are compiled
twice from this one source by :func:`compile_scalar_functions`: with ``numba.njit`` here and with
``numba.cuda.jit(device=True)`` in :mod:`gpugraph.io._generator_cuda`, so the CPU and the GPU produce bit-identical edges for a
seed. Randomness is counter-based (the SplitMix64 stream at a position derived from the edge index
and level), so no RNG state is
shared between threads and the result does not depend on the number of threads.
"""

from __future__ import annotations

from types import SimpleNamespace

import numba
import numpy as np

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_LEVEL_STRIDE = np.uint64(64)  # levels per edge in the counter space (scale <= 40 < 64)
_FEISTEL_ROUNDS = 4
_TWO_POW_MINUS_32 = 1.0 / 4294967296.0


def compile_scalar_functions(jit):
    """Compile the generators' scalar functions with ``jit`` (``numba.njit`` or
    ``numba.cuda.jit(device=True)``); return them as a namespace."""

    @jit
    def splitmix64(x):
        """SplitMix64 finaliser: a bijective 64-bit mix (Steele et al., OOPSLA'14)."""
        z = x + GOLDEN_GAMMA
        z = (z ^ (z >> _S30)) * _MIX1
        z = (z ^ (z >> _S27)) * _MIX2
        return z ^ (z >> _S31)

    @jit
    def stream(key, counter):
        """Output ``counter`` of the SplitMix64 stream seeded with ``key``."""
        return splitmix64(key + counter * GOLDEN_GAMMA)

    @jit
    def rmat_edge(key, edge, scale, a, ab, abc):
        """Endpoints of RMAT edge number ``edge``: one quadrant choice per level, MSB first.

        Quadrant probabilities: a (0,0), b (0,1), c (1,0), d (1,1); ``ab = a+b``, ``abc = a+b+c``.
        Each 64-bit random word serves two levels (32 bits of resolution per choice).
        """
        src = np.uint64(0)
        dst = np.uint64(0)
        base = edge * _LEVEL_STRIDE
        bits = np.uint64(0)
        for level in range(scale):
            if level % 2 == 0:
                bits = stream(key, base + np.uint64(level))
            else:
                bits = bits >> _S32
            u = float(bits & _LOW32) * _TWO_POW_MINUS_32
            src_bit = np.uint64(1) if u >= ab else np.uint64(0)
            dst_bit = np.uint64(1) if (u >= a and u < ab) or u >= abc else np.uint64(0)
            src = (src << np.uint64(1)) | src_bit
            dst = (dst << np.uint64(1)) | dst_bit
        return src, dst

    @jit
    def permute_id(vertex, bits, key):
        """A seeded bijection of [0, 2^bits): a balanced Feistel network with cycle walking."""
        half = np.uint64((bits + 1) // 2)
        mask = (np.uint64(1) << half) - np.uint64(1)
        domain = np.uint64(1) << np.uint64(bits)
        x = vertex
        while True:
            left = x >> half
            right = x & mask
            for round_index in range(_FEISTEL_ROUNDS):
                mixed = splitmix64(key ^ (right + np.uint64(round_index) * GOLDEN_GAMMA)) & mask
                left, right = right, left ^ mixed
            x = (left << half) | right
            if x < domain:
                return x

    @jit
    def uniform_pair(key, edge, num_vertices):
        """Endpoints of G(n, m) edge number ``edge``: uniform over ordered pairs u != v."""
        src = stream(key, edge * np.uint64(2)) % num_vertices
        offset = stream(key, edge * np.uint64(2) + np.uint64(1)) % (num_vertices - np.uint64(1))
        return src, (src + np.uint64(1) + offset) % num_vertices

    return SimpleNamespace(
        splitmix64=splitmix64, stream=stream, rmat_edge=rmat_edge,
        permute_id=permute_id, uniform_pair=uniform_pair,
    )


_cpu = compile_scalar_functions(numba.njit)
_stream, _rmat_edge, _permute_id, _uniform_pair = (
    _cpu.stream, _cpu.rmat_edge, _cpu.permute_id, _cpu.uniform_pair,
)


@numba.njit(cache=True, parallel=True)
def rmat_cpu(key, permutation_key, scale, a, ab, abc, permute, src_out, dst_out):
    """Fill ``src_out``/``dst_out`` with RMAT edges 0..m-1 (permuted ids if ``permute``)."""
    for edge in numba.prange(src_out.shape[0]):
        src, dst = _rmat_edge(key, np.uint64(edge), scale, a, ab, abc)
        if permute:
            src = _permute_id(src, scale, permutation_key)
            dst = _permute_id(dst, scale, permutation_key)
        src_out[edge] = np.int64(src)
        dst_out[edge] = np.int64(dst)


@numba.njit(cache=True, parallel=True)
def gnm_cpu(key, num_vertices, src_out, dst_out):
    """Fill ``src_out``/``dst_out`` with uniform random edges u != v."""
    for edge in numba.prange(src_out.shape[0]):
        src, dst = _uniform_pair(key, np.uint64(edge), np.uint64(num_vertices))
        src_out[edge] = np.int64(src)
        dst_out[edge] = np.int64(dst)


@numba.njit(cache=True, parallel=True)
def hashed_weights_cpu(key, low, high, weights_out):
    """``weights_out[i]`` = an integer in [low, high] determined by (key, i)."""
    span = np.uint64(high - low + 1)
    for index in numba.prange(weights_out.shape[0]):
        weights_out[index] = low + np.int64(_stream(key, np.uint64(index)) % span)
