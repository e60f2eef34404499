"""Numba CPU kernel of PageRank (private: call gpugraph.algorithms.pagerank.run).

:func:`pull_iterations` runs every pull iteration in one compiled call: the shares, the dangling
mass and the L1 change are computed inside the parallel loops that need them (the degrees from
the row offsets), so an iteration
costs two passes over the vertices and one over the in-arcs, with no Python work and no
temporary arrays (the per-iteration generic operator and NumPy temporaries made the CPU path
slower than SciPy's power iteration).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(parallel=True, cache=True, nogil=True)
def pull_iterations(indptr, in_indptr, in_indices, teleport, damping, limit, threshold):
    """Power iterations of PageRank from the uniform vector.

    Parameters
    ----------
    indptr:
        CSR row offsets (the out-degrees; vertices without out-arcs are dangling).
    in_indptr, in_indices:
        CSC in-arcs.
    teleport:
        The teleport distribution (sums to 1).
    damping:
        Probability of following an arc.
    limit:
        Most iterations to run (exactly this many when ``threshold`` is negative).
    threshold:
        Stop once the L1 change of an iteration is below it; negative: never.

    Returns
    -------
    tuple
        ``(rank, iterations run, L1 change of the last iteration)``.
    """
    n = teleport.shape[0]
    rank = np.full(n, 1.0 / n)
    new_rank = np.empty(n)
    share = np.empty(n)
    iterations = 0
    change = 0.0
    while iterations < limit:
        mass = 0.0
        for vertex in numba.prange(n):
            degree = indptr[vertex + 1] - indptr[vertex]
            if degree > 0:
                share[vertex] = rank[vertex] / degree
            else:
                share[vertex] = 0.0
                mass += rank[vertex]
        change = 0.0
        for vertex in numba.prange(n):
            gathered = 0.0
            # Unsigned indices spare Numba's negative-index test on every access.
            for position in range(np.uint64(in_indptr[vertex]), np.uint64(in_indptr[vertex + 1])):
                gathered += share[np.uint64(in_indices[position])]
            value = damping * (gathered + mass * teleport[vertex]) + (1.0 - damping) * teleport[vertex]
            new_rank[vertex] = value
            change += abs(value - rank[vertex])
        rank, new_rank = new_rank, rank
        iterations += 1
        if change < threshold:
            break
    return rank, iterations, change
