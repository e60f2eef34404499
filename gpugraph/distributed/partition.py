"""Partitioning a graph over hosts or GPUs: policies, master and mirror proxies, local ids.

Every vertex has one *master* proxy, on the host that owns it; every host that holds an arc
touching a vertex it does not own keeps a *mirror* proxy of it. Masters are assigned in
contiguous blocks of vertex ids, balanced by the arcs the policy groups by vertex (CuSP's
edge-balanced blocked assignment). Arcs are assigned by the policy (the D-IrGL study,
`../shared/seeds/002_82ae0756ac4dc8c4.txt`):

``oec``  outgoing edge-cut: an arc goes with its source's master (blocks balance out-arcs).
         Structural invariant: every local arc's source is a master, so push algorithms need
         no broadcast from masters to mirrors.
``iec``  incoming edge-cut: an arc goes with its destination's master (blocks balance in-arcs);
         every local arc's destination is a master (pull algorithms need no reduction).
``hvc``  hybrid vertex-cut (PowerLyra): arcs into a vertex with at most
         :data:`gpugraph.config.HVC_DEGREE_THRESHOLD` in-arcs go with the destination, arcs into
         a higher-degree vertex with the source (blocks balance in-arcs).
``cvc``  Cartesian vertex-cut: hosts form a ``rows x columns`` grid (as square as the host
         count allows); arc ``u -> v`` goes to the host in the row of ``u``'s master and the
         column of ``v``'s master (blocks balance out-arcs). Proxies of a vertex then live only
         in its master's grid row (as sources) and column (as destinations), so
         synchronisation stays within row and column groups.
``metis`` Medusa's multi-GPU partitions (§4.3 of ``003_...``): METIS (through ``pymetis``) splits
         the undirected graph into parts with few cut edges; masters are the vertices of a part
         (not a contiguous block) and an arc goes with its source's master, as under ``oec``.

A :class:`Partition` numbers its proxies locally: masters first (in global order), then mirrors
(in global order); its arcs form a CSR over local ids. Partitioning runs where the graph lives
(NumPy on the host, CuPy on a GPU), and the parts' arrays stay there.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpugraph import config
from gpugraph.backend import array_module, to_numpy
from gpugraph.errors import DistributedError, GraphFormatError, InvalidParameterError

POLICIES = ("oec", "iec", "hvc", "cvc", "metis")
_FORMAT_VERSION = 2


@dataclass
class Partition:
    """One host's part of a partitioned graph (host arrays).

    Attributes
    ----------
    host, num_hosts, policy:
        This part's number, how many there are, and the policy that made them.
    num_vertices:
        Vertices of the whole graph.
    local_to_global:
        int64 global id of each local proxy: ``num_masters`` masters, then the mirrors.
    num_masters:
        Masters on this host (global ids ``local_to_global[:num_masters]``, increasing).
    mirror_owner:
        int32 per mirror (local ids ``num_masters`` onwards): the host that owns its master.
    indptr, indices:
        CSR of the local arcs over local ids.
    weights:
        float64 per local arc, or ``None`` for an unweighted graph.
    global_arcs:
        int64 per local arc: its position in the whole graph's CSR (``None`` for parts built
        from a stream of edges, :mod:`gpugraph.distributed.build`).
    out_degree:
        int64 per local proxy: the vertex's out-degree in the whole graph.
    """

    host: int
    num_hosts: int
    policy: str
    num_vertices: int
    local_to_global: np.ndarray
    num_masters: int
    mirror_owner: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray | None
    global_arcs: np.ndarray | None
    out_degree: np.ndarray

    @property
    def num_proxies(self) -> int:
        """Masters and mirrors on this host."""
        return self.local_to_global.size

    @property
    def num_arcs(self) -> int:
        """Arcs on this host."""
        return self.indices.size

    def to(self, backend) -> "Partition":
        """This part with its arrays on ``backend`` (itself when they are there already)."""
        names = ("local_to_global", "mirror_owner", "indptr", "indices", "weights", "global_arcs", "out_degree")
        if all(array_module(getattr(self, name)) is backend.xp for name in names if getattr(self, name) is not None):
            return self
        with backend.activate():
            moved = {name: None if getattr(self, name) is None else backend.asarray(getattr(self, name))
                     for name in names}
        return dataclasses.replace(self, **moved)

    def save(self, path) -> None:
        """Write this part to ``path`` (NumPy ``.npz``), to be loaded by its rank alone."""
        arrays = {
            "header": np.array([_FORMAT_VERSION, self.host, self.num_hosts, self.num_vertices, self.num_masters],
                               dtype=np.int64),
            "policy": np.array(self.policy), "local_to_global": to_numpy(self.local_to_global),
            "mirror_owner": to_numpy(self.mirror_owner), "indptr": to_numpy(self.indptr),
            "indices": to_numpy(self.indices), "out_degree": to_numpy(self.out_degree),
        }
        if self.global_arcs is not None:
            arrays["global_arcs"] = to_numpy(self.global_arcs)
        if self.weights is not None:
            arrays["weights"] = to_numpy(self.weights)
        with open(path, "wb") as handle:
            np.savez(handle, **arrays)

    @classmethod
    def load(cls, path) -> "Partition":
        """Read a part written by :meth:`save`.

        Raises
        ------
        GraphFormatError
            If the file is not a partition of this format version.
        """
        try:
            with np.load(path, allow_pickle=False) as data:
                header = data["header"]
                if header[0] != _FORMAT_VERSION:
                    raise GraphFormatError(f"{path}: partition format version {header[0]}, expected {_FORMAT_VERSION}")
                return cls(
                    host=int(header[1]), num_hosts=int(header[2]), policy=str(data["policy"]),
                    num_vertices=int(header[3]), local_to_global=data["local_to_global"],
                    num_masters=int(header[4]),
                    mirror_owner=data["mirror_owner"], indptr=data["indptr"], indices=data["indices"],
                    weights=data["weights"] if "weights" in data else None,
                    global_arcs=data["global_arcs"] if "global_arcs" in data else None,
                    out_degree=data["out_degree"],
                )
        except (OSError, KeyError, ValueError, IndexError) as exc:
            raise GraphFormatError(f"{Path(path)}: not a gpugraph partition ({exc})") from None


def partition_graph(graph, num_hosts: int, policy: str = "oec", *, hosts=None,
                    hvc_threshold: int = config.HVC_DEGREE_THRESHOLD, seed: int = 0) -> list[Partition]:
    """Split ``graph`` into ``num_hosts`` parts with ``policy`` (module docstring).

    Parameters
    ----------
    graph:
        The graph; partitioning runs on its device and the parts' arrays stay there.
    num_hosts:
        Number of parts (hosts or GPUs), at least 1.
    policy:
        ``"oec"``, ``"iec"``, ``"hvc"``, ``"cvc"`` or ``"metis"``.
    hosts:
        Which parts to build (a rank builds only its own); ``None`` for all.
    hvc_threshold:
        In-degree above which HVC places a vertex's in-arcs with their sources.
    seed:
        METIS's random seed (the other policies are deterministic).

    Returns
    -------
    list of Partition
        The parts asked for, in host order.

    Raises
    ------
    InvalidParameterError
        For an unknown policy, fewer than one host, or a host number out of range.
    DistributedError
        For ``"metis"`` without the ``pymetis`` package.
    """
    if policy not in POLICIES:
        raise InvalidParameterError(f"unknown partitioning policy {policy!r}; use one of {', '.join(POLICIES)}")
    if int(num_hosts) < 1:
        raise InvalidParameterError(f"need at least one host, got {num_hosts}")
    num_hosts = int(num_hosts)
    hosts = range(num_hosts) if hosts is None else [int(host) for host in hosts]
    if any(not 0 <= host < num_hosts for host in hosts):
        raise InvalidParameterError(f"host numbers must be in [0, {num_hosts}), got {list(hosts)}")
    xp = graph.backend.xp
    n = graph.num_vertices
    out_degree = xp.diff(graph.indptr.astype(xp.int64))
    sources = xp.repeat(xp.arange(n, dtype=xp.int64), out_degree)
    indices = graph.indices.astype(xp.int64)
    in_degree = xp.bincount(indices, minlength=n)
    if policy == "metis":
        owner = xp.asarray(_metis_owner(graph, num_hosts, seed))
    else:
        owner = block_owners(policy, out_degree, in_degree, num_hosts)
    arc_host = arc_hosts(policy, owner[sources], owner[indices], in_degree[indices] > hvc_threshold, num_hosts)
    del in_degree
    parts = []
    for host in hosts:
        mine = xp.flatnonzero(arc_host == host)
        parts.append(local_part(host, num_hosts, policy, owner, sources[mine], indices[mine],
                                None if graph.weights is None else graph.weights[mine], mine, out_degree))
    return parts


def replication_factor(parts) -> float:
    """Proxies (masters and mirrors) over all parts per vertex of the graph (1.0: no mirrors)."""
    return sum(part.num_proxies for part in parts) / max(parts[0].num_vertices, 1)


def static_balance(parts) -> dict:
    """The study's static load-balance measures: arcs and proxies, each max / mean over parts."""
    arcs = np.array([part.num_arcs for part in parts], dtype=np.float64)
    proxies = np.array([part.num_proxies for part in parts], dtype=np.float64)
    return {"arcs_max_over_mean": float(arcs.max() / max(arcs.mean(), 1e-300)),
            "proxies_max_over_mean": float(proxies.max() / max(proxies.mean(), 1e-300))}


def grid_shape(num_hosts: int) -> tuple[int, int]:
    """``(rows, columns)`` of the CVC host grid: the most square factorisation, rows <= columns."""
    rows = int(np.sqrt(num_hosts))
    while num_hosts % rows:
        rows -= 1
    return rows, num_hosts // rows


def block_owners(policy: str, out_degree, in_degree, num_hosts: int):
    """int32 host of every vertex's master under a blocked policy (oec, iec, hvc, cvc):
    contiguous blocks of ids balanced by out-arcs (oec, cvc) or in-arcs (iec, hvc)."""
    xp = array_module(out_degree)
    bounds = _blocks(out_degree if policy in ("oec", "cvc") else in_degree, num_hosts, xp)
    return xp.repeat(xp.arange(num_hosts, dtype=xp.int32), xp.diff(bounds))


def arc_hosts(policy, source_owner, destination_owner, heavy_destination, num_hosts):
    """int32 host of every arc from its end points' owners (and, for hvc, whether its
    destination has more in-arcs than the threshold)."""
    xp = array_module(source_owner)
    if policy in ("oec", "metis"):
        return source_owner
    if policy == "iec":
        return destination_owner
    if policy == "hvc":
        return xp.where(heavy_destination, source_owner, destination_owner).astype(xp.int32)
    rows, columns = grid_shape(num_hosts)
    return ((source_owner // columns) * columns + destination_owner % columns).astype(xp.int32)


def _blocks(load, num_hosts: int, xp):
    """Block boundaries of vertex ids so each host gets about the same load (+1 per vertex so
    that vertices without arcs spread too)."""
    cumulative = xp.concatenate((xp.zeros(1, dtype=xp.int64), xp.cumsum(load.astype(xp.int64) + 1)))
    targets = xp.asarray(int(cumulative[-1]) * np.arange(1, num_hosts) / num_hosts)
    inner = xp.searchsorted(cumulative, targets, side="left")
    return xp.concatenate((xp.zeros(1, dtype=xp.int64), xp.minimum(inner, load.size).astype(xp.int64),
                           xp.full(1, load.size, dtype=xp.int64)))


def _metis_owner(graph, num_hosts: int, seed: int) -> np.ndarray:
    """Part of every vertex from METIS on the simple undirected graph of the arcs."""
    if num_hosts == 1:
        return np.zeros(graph.num_vertices, dtype=np.int32)
    try:
        import pymetis
    except ImportError:
        raise DistributedError("the 'metis' policy needs the pymetis package: pip install pymetis") from None
    n = graph.num_vertices
    indptr = to_numpy(graph.indptr).astype(np.int64)
    sources = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    destinations = to_numpy(graph.indices).astype(np.int64)
    keep = sources != destinations
    keys = np.unique(np.concatenate((sources[keep] * n + destinations[keep], destinations[keep] * n + sources[keep])))
    xadj = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys // n, minlength=n), out=xadj[1:])
    options = pymetis.Options(seed=int(seed))
    _, membership = pymetis.part_graph(num_hosts, pymetis.CSRAdjacency(xadj, keys % n), options=options)
    return np.asarray(membership, dtype=np.int32)


def local_part(host, num_hosts, policy, owner, sources, destinations, weights, arc_ids, out_degree) -> Partition:
    """Host ``host``'s :class:`Partition` from the arcs placed on it (global ids, any order).

    Parameters
    ----------
    host, num_hosts, policy:
        As :class:`Partition`.
    owner:
        int32 per vertex of the graph: the host of its master.
    sources, destinations, weights:
        This host's arcs (weights ``None`` for an unweighted graph).
    arc_ids:
        Their positions in the whole graph's CSR, or ``None`` when they came from a stream of edges.
    out_degree:
        Every vertex's out-degree in the whole graph.

    Returns
    -------
    Partition
        Arrays on the device of ``sources`` (NumPy or CuPy); local indices are int32 while the
        proxies fit.
    """
    xp = array_module(sources)
    n = owner.size
    masters = xp.flatnonzero(owner == host)
    touched = xp.zeros(n, dtype=bool)  # marks, not a sort: O(arcs + n)
    touched[sources] = True
    touched[destinations] = True
    touched[masters] = False
    mirrors = xp.flatnonzero(touched)
    del touched
    local_to_global = xp.concatenate((masters, mirrors)).astype(xp.int64)
    global_to_local = xp.full(n, -1, dtype=xp.int64)
    global_to_local[local_to_global] = xp.arange(local_to_global.size)
    local_sources = global_to_local[sources]
    order = xp.argsort(local_sources, kind="stable") if xp is np else xp.argsort(local_sources)
    indptr = xp.zeros(local_to_global.size + 1, dtype=xp.int64)
    xp.cumsum(xp.bincount(local_sources, minlength=local_to_global.size), out=indptr[1:])
    del local_sources
    index_type = xp.int32 if local_to_global.size < config.INT32_VERTEX_LIMIT else xp.int64
    return Partition(
        host=host, num_hosts=num_hosts, policy=policy, num_vertices=n, local_to_global=local_to_global,
        num_masters=int(masters.size), mirror_owner=owner[mirrors], indptr=indptr,
        indices=global_to_local[destinations[order]].astype(index_type),
        weights=None if weights is None else weights[order],
        global_arcs=None if arc_ids is None else arc_ids[order], out_degree=out_degree[local_to_global],
    )
