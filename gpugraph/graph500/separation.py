"""Degree separation (Pan et al., §III-A): delegates and normal vertices, and the threshold TH.

A vertex with more than ``TH`` neighbours (its out-degree in the doubled, undirected graph,
self-loops left out) is a *delegate*; the others are *normal*. Every process keeps a copy of
every delegate, so edges that touch a delegate never cross between processes; only
normal-to-normal (nn) edges do. Delegates are numbered by decreasing degree (ties by id), so a
neighbour list sorted by delegate number lists the hubs first: a bottom-up search over it meets
a visited hub after few tries.

Choosing TH
-----------
A low TH makes many delegates (their visited masks travel to every process at each level, and
each process stores their rows) and few nn edges (the only point-to-point traffic); a high TH the
reverse. The paper keeps the delegates below ``4 n / p`` and tunes TH so that both kinds of
traffic take about the same time, and reports the nn edges as a small share. :func:`choose_threshold`
follows that: among the powers of two, the largest TH whose nn edges are at most
``config.GRAPH500_NN_EDGE_SHARE`` of all edges (``GRAPH500_NN_EDGE_SHARE_SEVERAL`` with several
processes, measured for peer memory) while the delegates stay below ``4 n / p``; when no
power of two meets both, the one with the fewest nn edges under the delegate bound. One pass over
the edges gives the nn-edge count of every candidate at once (an edge is nn for every TH at or
above the larger degree of its ends).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpugraph import config
from gpugraph.backend import array_module, to_numpy
from gpugraph.errors import InvalidParameterError

#: Candidate thresholds are 2^0 .. 2^(_LOG2_CANDIDATES - 1).
_LOG2_CANDIDATES = 40


@dataclass
class Separation:
    """The delegates of one threshold.

    Attributes
    ----------
    threshold:
        TH: vertices of degree above it are delegates.
    delegate_ids:
        int64 global ids of the delegates, by decreasing degree (delegate number = position).
    delegate_index:
        int32 per vertex: its delegate number, or -1 for a normal vertex.
    degree:
        int64 out-degree per vertex (self-loops left out).
    """

    threshold: int
    delegate_ids: object
    delegate_index: object
    degree: object

    @property
    def num_delegates(self) -> int:
        """How many delegates there are (``d`` in the paper)."""
        return int(self.delegate_ids.size)


def degrees(comm, sources, destinations, num_vertices: int):
    """Every vertex's degree in the doubled graph, summed over all processes' edge slices.

    Parameters
    ----------
    comm:
        The process group (:class:`gpugraph.graph500.bfs.Group`); collective.
    sources, destinations:
        This process's slice of the undirected input edges (each edge once).
    num_vertices:
        ``n``.

    Returns
    -------
    array
        int64 per vertex on the process's device: how many arcs leave it (self-loops left out).
    """
    xp = array_module(sources)
    degree = xp.zeros(num_vertices, dtype=np.int64)
    for piece in edge_chunks(sources.size):
        keep = sources[piece] != destinations[piece]
        for ends in (sources[piece], destinations[piece]):
            degree += xp.bincount(ends[keep], minlength=num_vertices)
    return comm.allreduce_array(degree)


def edge_share_table(comm, sources, destinations, degree) -> np.ndarray:
    """How many edges would be nn edges, per candidate threshold ``2^k``.

    Returns
    -------
    numpy.ndarray
        int64, entry ``k``: edges (each counted once, self-loops left out) whose two ends both
        have degree at most ``2^k``, summed over all processes.
    """
    xp = array_module(sources)
    histogram = xp.zeros(_LOG2_CANDIDATES, dtype=np.int64)
    for piece in edge_chunks(sources.size):
        keep = sources[piece] != destinations[piece]
        larger = xp.maximum(degree[sources[piece][keep]], degree[destinations[piece][keep]])
        histogram += xp.bincount(_candidate_of(xp, larger), minlength=_LOG2_CANDIDATES)[:_LOG2_CANDIDATES]
    return np.cumsum(to_numpy(comm.allreduce_array(histogram)))


def edge_chunks(count: int) -> list:
    """Slices of ``range(count)`` of ``config.GRAPH500_BUILD_CHUNK_EDGES`` entries (the last
    shorter): how the construction bounds its temporaries."""
    size = config.GRAPH500_BUILD_CHUNK_EDGES
    return [slice(first, min(first + size, int(count))) for first in range(0, int(count), size)]


def choose_threshold(degree, nn_edges: np.ndarray, processes: int) -> int:
    """TH by the rule in the module docstring.

    Parameters
    ----------
    degree:
        Degree per vertex (:func:`degrees`).
    nn_edges:
        :func:`edge_share_table`.
    processes:
        ``p``, the number of processes (GPUs) sharing the graph.

    Returns
    -------
    int
        A power of two.
    """
    xp = array_module(degree)
    n = int(degree.size)
    counts = to_numpy(xp.bincount(_candidate_of(xp, degree), minlength=_LOG2_CANDIDATES))[:_LOG2_CANDIDATES]
    # delegates(2^k) = vertices with degree > 2^k = those whose candidate exceeds k.
    delegates = counts.sum() - np.cumsum(counts)
    total = max(int(nn_edges[-1]), 1)
    allowed = delegates < config.GRAPH500_MAX_DELEGATES_PER_PROCESS * n / processes
    shares = nn_edges / total
    share = config.GRAPH500_NN_EDGE_SHARE if processes == 1 else config.GRAPH500_NN_EDGE_SHARE_SEVERAL
    good = np.flatnonzero(allowed & (shares <= share))
    if good.size:
        return 1 << int(good[-1])
    candidates = np.flatnonzero(allowed)  # never empty: the largest candidate has no delegates
    return 1 << int(candidates[np.argmin(shares[candidates])])


@dataclass
class Relabeling:
    """Vertex ids by decreasing degree, the search's own numbering (part of the construction).

    With the ids in that order the delegates come first and the isolated vertices last, so the
    pass over the normals (a segment of the normals at a time) never reads the isolated ones'
    segments after level 0 (nearly half the normals of a Kronecker graph), a warp's normals have
    rows of about one length, and rows sorted by id list the busier columns first. The Graph500
    input is already randomly permuted: no locality is lost.

    Attributes
    ----------
    new_id:
        int64 per original vertex: its id in the search.
    original_id:
        int64 per search id: the original vertex.
    """

    new_id: object
    original_id: object

    def tree_in_original_ids(self, parent):
        """A parent array over search ids (search ids as values, -1: unreached) over original
        ids, in ``parent``'s array module.

        Parameters
        ----------
        parent:
            int64 per search id.

        Returns
        -------
        array
            int64 per original vertex: the parent's original id, -1 where unreached.
        """
        xp = array_module(parent)
        original = self.original_id
        if array_module(original) is not xp:
            original = xp.asarray(to_numpy(original))
        tree = xp.empty(parent.size, dtype=np.int64)
        tree[original] = xp.where(parent >= 0, original[xp.maximum(parent, 0)], -1)
        return tree


def by_degree(degree) -> Relabeling:
    """The :class:`Relabeling` of ``degree`` (:func:`degrees`): decreasing degree, ties by id.

    Parameters
    ----------
    degree:
        int64 degree per vertex.

    Returns
    -------
    Relabeling
        Its arrays in ``degree``'s array module.
    """
    xp = array_module(degree)
    n = int(degree.size)
    ids = xp.arange(n, dtype=np.int64)
    original_id = xp.lexsort(xp.stack((ids, -degree))).astype(np.int64)
    new_id = xp.empty(n, dtype=np.int64)
    new_id[original_id] = ids
    return Relabeling(new_id, original_id)


def _candidate_of(xp, degrees):
    """The smallest ``k`` with ``degree <= 2^k``, i.e. ``ceil(log2(degree))`` (0 for degrees 0 and 1)."""
    return xp.ceil(xp.log2(xp.maximum(degrees, 1).astype(np.float64))).astype(np.int64)


def separate(degree, threshold: int) -> Separation:
    """The delegates of ``threshold``, numbered by decreasing degree.

    Parameters
    ----------
    degree:
        int64 degree per vertex (:func:`degrees`).
    threshold:
        TH, at least 0.

    Returns
    -------
    Separation

    Raises
    ------
    InvalidParameterError
        If ``threshold`` is negative.
    """
    if int(threshold) < 0:
        raise InvalidParameterError(f"the delegate threshold must be at least 0, got {threshold}")
    xp = array_module(degree)
    ids = xp.flatnonzero(degree > int(threshold)).astype(np.int64)
    # Decreasing degree, ties by increasing id: sort on (-degree, id) as one key.
    order = xp.lexsort(xp.stack((ids, -degree[ids])))
    delegate_ids = ids[order]
    delegate_index = xp.full(degree.size, -1, dtype=np.int32)
    delegate_index[delegate_ids] = xp.arange(delegate_ids.size, dtype=np.int32)
    return Separation(int(threshold), delegate_ids, delegate_index, degree)
