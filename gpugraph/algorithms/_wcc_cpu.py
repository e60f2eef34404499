"""Numba CPU kernel of weakly connected components (private: call gpugraph.algorithms.wcc.run).

Vertex ids and edge positions are cast to unsigned integers before they index an array: Numba
then leaves out the negative-index wrap-around test of every access (a quarter of the time on
soc-Slashdot0902 and pace-FLA).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def union_find(indptr, indices, lower_only, parent):
    """Serial union-find over the arcs, the larger root always hooked under the smaller.

    Parameters
    ----------
    indptr, indices:
        CSR arcs (rows sorted).
    lower_only:
        Both directions of every edge are stored (undirected graph): read only the arcs to a
        smaller id.
    parent:
        int64, ``0..n-1`` on entry; on return each vertex's root, the minimum id of its component.

    Each arc's union walks both end points up their trees together, the way Afforest links
    (Sutton, Ben-Nun & Barak, IPDPS 2018): it stops as soon as the two meet, so an arc inside
    an already joined, shallow tree costs two reads. Every parent stays smaller than its child,
    so one pass in id order finishes the labels.
    """
    one = np.uint64(1)
    for vertex in range(parent.shape[0]):
        source = np.uint64(vertex)
        for edge in range(np.uint64(indptr[source]), np.uint64(indptr[source + one])):
            neighbour = np.uint64(indices[edge])
            if lower_only and neighbour >= source:
                break  # rows are sorted: the rest of the row is larger too
            first = np.uint64(parent[source])
            second = np.uint64(parent[neighbour])
            while first != second:
                high = max(first, second)
                low = min(first, second)
                above = np.uint64(parent[high])
                if above == low:
                    break
                if above == high:
                    parent[high] = low
                    break
                first = np.uint64(parent[above])
                second = np.uint64(parent[low])
    for vertex in range(parent.shape[0]):
        parent[vertex] = parent[np.uint64(parent[vertex])]  # parents are smaller: already final
