"""NetworkX's semi-synchronous label propagation (Cordasco and Gargano 2010), compiled (host).

``networkx.label_propagation_communities`` colours the graph greedily (largest degree first,
smallest free colour), labels every node with its position in ``G``, then sweeps the colour
classes in colour order until every node with neighbours holds one of its neighbourhood's most
frequent labels. A node takes the most frequent label; on a tie it keeps its own label if that
is among the most frequent, else takes the largest of them (Prec-Max). Nodes of one colour are
never adjacent, so a class updates in parallel with the result of NetworkX's sequential sweep.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def greedy_colouring(indptr, indices, order):
    """First-fit colours of the vertices taken in ``order`` (NetworkX's ``greedy_color``)."""
    n = indptr.shape[0] - 1
    colour = np.full(n, -1, dtype=np.int64)
    taken = np.full(n + 1, -1, dtype=np.int64)  # taken[c] == v: colour c is used next to v
    for v in order:
        for k in range(indptr[v], indptr[v + 1]):
            c = colour[indices[k]]
            if c >= 0:
                taken[c] = v
        c = 0
        while taken[c] == v:
            c += 1
        colour[v] = c
    return colour


@numba.njit(cache=True)
def _best_label(v, indptr, indices, label, scratch):
    """``(label to take, whether the current label is already a most frequent one)``."""
    start, end = indptr[v], indptr[v + 1]
    count = end - start
    for k in range(count):
        scratch[k] = label[indices[start + k]]
    values = np.sort(scratch[:count])
    best_frequency, best_label, own_is_best = 0, -1, False
    run = 0
    for k in range(count):
        run = run + 1 if k > 0 and values[k] == values[k - 1] else 1
        if k + 1 == count or values[k + 1] != values[k]:
            if run > best_frequency:
                best_frequency, best_label, own_is_best = run, values[k], values[k] == label[v]
            elif run == best_frequency:
                best_label = max(best_label, values[k])  # ascending: the larger label
                own_is_best = own_is_best or values[k] == label[v]
    return best_label, own_is_best


@numba.njit(cache=True, parallel=True)
def _sweep_class(members, indptr, indices, label, new_label):
    for i in numba.prange(members.shape[0]):
        v = members[i]
        if indptr[v + 1] == indptr[v]:  # no neighbours: a community of its own
            continue
        scratch = np.empty(indptr[v + 1] - indptr[v], dtype=np.int64)
        best, own_is_best = _best_label(v, indptr, indices, label, scratch)
        new_label[v] = label[v] if own_is_best else best
    for i in range(members.shape[0]):
        label[members[i]] = new_label[members[i]]


@numba.njit(cache=True, parallel=True)
def _settled(indptr, indices, label):
    n = indptr.shape[0] - 1
    unsettled = 0
    for v in numba.prange(n):
        if indptr[v + 1] > indptr[v]:
            scratch = np.empty(indptr[v + 1] - indptr[v], dtype=np.int64)
            _, own_is_best = _best_label(v, indptr, indices, label, scratch)
            if not own_is_best:
                unsettled += 1
    return unsettled == 0


def label_propagation(indptr, indices, degree):
    """Final labels (int64 per vertex) of NetworkX's semi-synchronous label propagation.

    Parameters
    ----------
    indptr, indices:
        Host CSR (int64) of a simple undirected graph, both directions of each edge stored.
    degree:
        NetworkX's degree of each vertex (a self-loop counts twice), which orders the colouring.

    Returns
    -------
    numpy.ndarray
        The label of each vertex: the position in ``G`` of the node whose label it took.
    """
    order = np.argsort(-degree, kind="stable")  # NetworkX: sorted(G, key=G.degree, reverse=True)
    colour = greedy_colouring(indptr, indices, order)
    by_colour = np.argsort(colour, kind="stable")
    classes = np.split(by_colour, np.flatnonzero(np.diff(colour[by_colour])) + 1)
    label = np.arange(indptr.size - 1, dtype=np.int64)
    new_label = label.copy()
    while not _settled(indptr, indices, label):
        for members in classes:
            _sweep_class(members, indptr, indices, label, new_label)
    return label
