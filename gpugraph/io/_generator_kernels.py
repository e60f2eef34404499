"""Random numbers and CPU kernels of the graph generators (private: use gpugraph.io.generators).

Counter-based randomness
------------------------
Every random number is a pure function of ``(key, counter)``: the SplitMix64 output function
(Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) applied to
``key + counter * golden_gamma``, which is output number ``counter`` of the SplitMix64 stream whose
state starts at ``key``. No state is shared between threads, so the edges do not depend on the
number of threads, on the order they run in, or on the device.

The scalar functions below are written once and compiled twice by
:func:`compile_scalar_functions`: with ``numba.njit`` here, and with
``numba.cuda.jit(device=True)`` in :mod:`gpugraph.io._generator_cuda`. All their arithmetic is on
unsigned 64-bit integers (no floating point), so a seed gives bit-identical edges on the CPU, the
GPU and the CUDA simulator.

Counter layout: RMAT edge ``e`` uses words ``e * WORDS_PER_RMAT_EDGE + j`` (one 64-bit word gives
two levels, 32 bits of resolution each); G(n, m) edge ``e`` uses words ``2e`` and ``2e + 1``;
weight ``i`` uses word ``i``. Each use has its own key (see ``generators._stream_key``).
"""

from __future__ import annotations

from types import SimpleNamespace

import numba
import numpy as np

from gpugraph import config

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_SHIFT27, _SHIFT30, _SHIFT31, _SHIFT32 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(32)
_ONE = np.uint64(1)
_LOW32 = np.uint64(0xFFFFFFFF)
#: 64-bit words reserved per RMAT edge: two levels per word, up to the largest scale.
WORDS_PER_RMAT_EDGE = np.uint64((config.GENERATOR_MAX_SCALE + 1) // 2)
#: Luby and Rackoff: four Feistel rounds of a pseudorandom function give a strong pseudorandom
#: permutation, so permuted vertex ids keep no trace of the RMAT recursion.
FEISTEL_ROUNDS = 4
#: RMAT quadrant choices compare 32 random bits with thresholds ``ceil(p * 2^32)``.
THRESHOLD_SCALE = 2**32


def compile_scalar_functions(jit):
    """Compile the generators' scalar functions with ``jit``.

    Parameters
    ----------
    jit:
        ``numba.njit`` or ``numba.cuda.jit(device=True)``.

    Returns
    -------
    types.SimpleNamespace
        ``splitmix64``, ``random_word``, ``rmat_endpoints``, ``permuted_id``, ``uniform_pair``.
    """

    @jit
    def splitmix64(state):
        """The SplitMix64 output function: a bijective mix of a 64-bit word."""
        z = state + GOLDEN_GAMMA
        z = (z ^ (z >> _SHIFT30)) * _MIX1
        z = (z ^ (z >> _SHIFT27)) * _MIX2
        return z ^ (z >> _SHIFT31)

    @jit
    def random_word(key, counter):
        """Random 64-bit word number ``counter`` of the stream ``key``."""
        return splitmix64(key + counter * GOLDEN_GAMMA)

    @jit
    def rmat_endpoints(key, edge, scale, threshold_a, threshold_ab, threshold_abc):
        """Endpoints of RMAT edge number ``edge`` (unsigned, before the vertex permutation).

        One quadrant choice per level, most significant bit first: with ``x`` uniform in
        ``[0, 2^32)``, ``x < ceil(a 2^32)`` picks quadrant (0, 0), then (0, 1) below
        ``ceil((a+b) 2^32)``, (1, 0) below ``ceil((a+b+c) 2^32)``, else (1, 1); so each quadrant
        has exactly the probability that comparing ``x / 2^32`` with ``a, a+b, a+b+c`` gives.
        """
        src = np.uint64(0)
        dst = np.uint64(0)
        first_word = edge * WORDS_PER_RMAT_EDGE
        word = np.uint64(0)
        for level in range(scale):
            if level % 2 == 0:
                word = random_word(key, first_word + np.uint64(level // 2))
            else:
                word = word >> _SHIFT32
            x = word & _LOW32
            src_bit = _ONE if x >= threshold_ab else np.uint64(0)
            dst_bit = (
                _ONE if (x >= threshold_a and x < threshold_ab) or x >= threshold_abc else np.uint64(0)
            )
            src = (src << _ONE) | src_bit
            dst = (dst << _ONE) | dst_bit
        return src, dst

    @jit
    def permuted_id(vertex, bits, key):
        """Image of ``vertex`` under a seeded bijection of ``[0, 2^bits)``.

        A Feistel network on the split ``vertex = (high, low)`` with ``floor(bits / 2)`` high and
        ``ceil(bits / 2)`` low bits: rounds alternately XOR a keyed hash of one half into the
        other, and each round is its own inverse, so the map is a bijection for every ``bits``
        (odd ones too, without cycle walking). For even ``bits`` it is the classic balanced
        Feistel network.
        """
        high_bits = np.uint64(bits // 2)
        low_bits = np.uint64(bits) - high_bits
        high_mask = (_ONE << high_bits) - _ONE
        low_mask = (_ONE << low_bits) - _ONE
        high = vertex >> low_bits
        low = vertex & low_mask
        for round_index in range(FEISTEL_ROUNDS):
            round_key = key + np.uint64(round_index) * GOLDEN_GAMMA
            if round_index % 2 == 0:
                high = high ^ (splitmix64(round_key ^ low) & high_mask)
            else:
                low = low ^ (splitmix64(round_key ^ high) & low_mask)
        return (high << low_bits) | low

    @jit
    def uniform_pair(key, edge, num_vertices, self_loops):
        """Endpoints of G(n, m) edge number ``edge``: uniform over the ``n^2`` ordered pairs, or
        over the ``n (n - 1)`` pairs with ``u != v`` when ``self_loops`` is false.

        Reducing a 64-bit word modulo ``n`` favours some values by at most ``n / 2^64``
        (below ``2^-24`` for every ``n`` the generators accept).
        """
        first = random_word(key, edge * np.uint64(2))
        second = random_word(key, edge * np.uint64(2) + _ONE)
        src = first % num_vertices
        if self_loops:
            return src, second % num_vertices
        return src, (src + _ONE + second % (num_vertices - _ONE)) % num_vertices

    return SimpleNamespace(
        splitmix64=splitmix64,
        random_word=random_word,
        rmat_endpoints=rmat_endpoints,
        permuted_id=permuted_id,
        uniform_pair=uniform_pair,
    )


_cpu = compile_scalar_functions(numba.njit)
_random_word = _cpu.random_word
_rmat_endpoints = _cpu.rmat_endpoints
_permuted_id = _cpu.permuted_id
_uniform_pair = _cpu.uniform_pair


@numba.njit(cache=True, parallel=True)
def permutation_table_cpu(key, bits, table_out):
    """``table_out[v]`` = image of ``v`` under the seeded bijection of ``[0, 2^bits)``."""
    for vertex in numba.prange(table_out.shape[0]):
        table_out[vertex] = _permuted_id(np.uint64(vertex), bits, key)


@numba.njit(cache=True, parallel=True)
def rmat_cpu(
    key, scale, threshold_a, threshold_ab, threshold_abc, permutation_key, permute, first_edge, src_out, dst_out
):
    """Fill ``src_out[i], dst_out[i]`` with RMAT edge ``first_edge + i``.

    The thresholds are those of ``rmat_endpoints``; with ``permute`` the endpoints are mapped by
    ``permuted_id(., scale, permutation_key)`` (computed, not looked up: on a CPU two random
    reads of a table cost more than the arithmetic).
    """
    for index in numba.prange(src_out.shape[0]):
        src, dst = _rmat_endpoints(
            key, np.uint64(first_edge + index), scale, threshold_a, threshold_ab, threshold_abc
        )
        if permute:
            src = _permuted_id(src, scale, permutation_key)
            dst = _permuted_id(dst, scale, permutation_key)
        src_out[index] = src
        dst_out[index] = dst


@numba.njit(cache=True, parallel=True)
def gnm_cpu(key, num_vertices, self_loops, first_edge, src_out, dst_out):
    """Fill ``src_out[i], dst_out[i]`` with G(n, m) edge ``first_edge + i``."""
    for index in numba.prange(src_out.shape[0]):
        src, dst = _uniform_pair(key, np.uint64(first_edge + index), np.uint64(num_vertices), self_loops)
        src_out[index] = src
        dst_out[index] = dst


@numba.njit(cache=True, parallel=True)
def uniform_integers_cpu(key, low, high, values_out):
    """``values_out[i]`` = an integer in ``[low, high]`` drawn from word ``i`` of stream ``key``."""
    span = np.uint64(high - low + 1)
    for index in numba.prange(values_out.shape[0]):
        values_out[index] = low + np.int64(_random_word(key, np.uint64(index)) % span)
