"""Building the parts from a stream of edges: no rank ever holds the whole graph.

:func:`gpugraph.distributed.partition.partition_graph` needs the whole graph on every rank, which
bounds a run by one device's memory. Here every rank brings only *some* arcs (its slice of a
file, or of a generator's edges), and the ranks together (CuSP's streaming partitioner, in
three collective steps):

1. sum their degree histograms (all-reduce), so every rank knows every vertex's in- and
   out-degree and can compute the same blocked master assignment;
2. place each arc they hold with the policy (:func:`~gpugraph.distributed.partition.arc_hosts`);
3. send every arc to its host (one all-to-all), where :func:`local_part` builds the part.

Per rank this holds ``O(n)`` for the degree and owner arrays and ``O(m / ranks)`` for arcs.
The METIS policy needs the whole graph and is not available here.
"""

from __future__ import annotations

import numpy as np

from gpugraph import config
from gpugraph.backend import array_module, to_numpy
from gpugraph.distributed.partition import POLICIES, arc_hosts, block_owners, local_part
from gpugraph.errors import InvalidParameterError


def partition_stream(comm, sources, destinations, weights, num_vertices: int, policy: str = "oec", *,
                     hvc_threshold: int = config.HVC_DEGREE_THRESHOLD):
    """This rank's :class:`~gpugraph.distributed.partition.Partition`, built from the arcs each
    rank holds (collective: every rank calls it with its own arcs).

    Parameters
    ----------
    comm:
        The :class:`~gpugraph.distributed.comm.Communicator`.
    sources, destinations:
        This rank's arcs, global ids, on the rank's device.
    weights:
        float64 per arc, or ``None``.
    num_vertices:
        Vertices of the whole graph.
    policy:
        ``"oec"``, ``"iec"``, ``"hvc"`` or ``"cvc"``.
    hvc_threshold:
        As :func:`~gpugraph.distributed.partition.partition_graph`.

    Returns
    -------
    Partition
        With ``global_arcs=None`` (the whole graph's CSR positions are not known to anyone).

    Raises
    ------
    InvalidParameterError
        For ``"metis"`` or an unknown policy.
    DeviceOutOfMemoryError
        If the rank's device runs out of memory (the message says which rank and how many arcs).
    """
    if policy not in POLICIES or policy == "metis":
        raise InvalidParameterError(f"streamed partitions take oec, iec, hvc or cvc, not {policy!r}")
    what = f"building part {comm.rank} of {comm.size} ({int(sources.size):,} arcs in)"
    with comm.backend.out_of_memory_named(what):
        return _partition_stream(comm, sources, destinations, weights, num_vertices, policy, hvc_threshold)


def _partition_stream(comm, sources, destinations, weights, num_vertices, policy, hvc_threshold):
    xp = comm.backend.xp
    sources, destinations = sources.astype(xp.int64), destinations.astype(xp.int64)
    out_degree = comm.allreduce_array(xp.bincount(sources, minlength=num_vertices))
    in_degree = comm.allreduce_array(xp.bincount(destinations, minlength=num_vertices))
    owner = block_owners(policy, out_degree, in_degree, comm.size)
    host = arc_hosts(policy, owner[sources], owner[destinations], in_degree[destinations] > hvc_threshold, comm.size)
    del in_degree
    order = xp.argsort(host)
    counts = to_numpy(xp.bincount(host, minlength=comm.size)).astype(np.int64)
    del host
    columns = [sources[order], destinations[order]]
    if weights is not None:
        columns.append(weights.astype(np.float64)[order].view(np.int64))
    del order, sources, destinations
    rows = xp.stack(columns, axis=1).reshape(-1)
    del columns
    exchange = comm.exchange(rows, counts * (2 if weights is None else 3), 0).wait()
    del rows
    mine = exchange.received.reshape(-1, 2 if weights is None else 3)
    arc_weights = None if weights is None else mine[:, 2].copy().view(np.float64)
    return local_part(comm.rank, comm.size, policy, owner, mine[:, 0].copy(), mine[:, 1].copy(), arc_weights,
                      None, out_degree)


def rmat_part(comm, scale: int, policy: str = "oec", *, edge_factor: int = 16, seed: int = 0,
              weighted: bool = False):
    """This rank's part of the Graph500 RMAT graph (undirected: both directions of every edge),
    generated in slices: rank ``r`` makes edges ``r * m / ranks`` to ``(r + 1) * m / ranks``.

    Parameters
    ----------
    comm:
        The communicator (the rank's backend generates).
    scale, edge_factor, seed:
        As :func:`gpugraph.io.generators.rmat_edges`.
    policy:
        As :func:`partition_stream`.
    weighted:
        Give every arc a weight in ``[1, 64)`` derived from its end points (the same for both
        directions of an edge, and for every rank count).

    Returns
    -------
    Partition

    Raises
    ------
    InvalidParameterError
        For a scale outside ``1..40`` or an edge factor below 1.
    DeviceOutOfMemoryError
        If the rank's slice or part does not fit on its device.
    """
    from gpugraph.io.generators import rmat_edge_count, rmat_edges

    xp = comm.backend.xp
    edges = rmat_edge_count(scale, edge_factor)
    first, end = edges * comm.rank // comm.size, edges * (comm.rank + 1) // comm.size
    what = f"generating RMAT scale {scale} edges {first:,}..{end:,} on rank {comm.rank}"
    with comm.backend.out_of_memory_named(what):
        generated = rmat_edges(scale, edge_factor, seed=seed, device=comm.backend, edge_range=(first, end),
                               progress=False)
        src, dst = generated.src.astype(xp.int64), generated.dst.astype(xp.int64)
        del generated
        sources, destinations = xp.concatenate((src, dst)), xp.concatenate((dst, src))
        del src, dst
    weights = edge_weights(sources, destinations) if weighted else None
    return partition_stream(comm, sources, destinations, weights, 1 << scale, policy)


def edge_weights(sources, destinations):
    """A weight in ``[1, 64)`` per arc from a hash of its unordered end points (symmetric,
    reproducible anywhere): for SSSP on generated graphs."""
    xp = array_module(sources)
    low, high = xp.minimum(sources, destinations), xp.maximum(sources, destinations)
    mixed = low.astype(xp.uint64) * xp.uint64(0x9E3779B97F4A7C15)
    mixed ^= high.astype(xp.uint64) + xp.uint64(0x632BE59BD9B4E019)
    mixed ^= mixed >> xp.uint64(29)
    mixed *= xp.uint64(0xBF58476D1CE4E5B9)
    mixed ^= mixed >> xp.uint64(32)
    return 1.0 + (mixed >> xp.uint64(11)).astype(xp.float64) * (63.0 / 2.0**53)
