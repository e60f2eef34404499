"""The edge distributor (Pan et al., Algorithm 1) and the four local subgraphs nn, nd, dn, dd.

Processes are laid out as ``hosts x gpus_per_host`` (process number ``host * gpus_per_host +
gpu``). A vertex ``v`` belongs to host ``P(v) = v mod hosts`` and, on it, to GPU
``G(v) = (v / hosts) mod gpus_per_host``: so its owner is a process, and its *local index* there
is ``v / p`` (``p`` processes), a 32-bit number. Each arc ``u -> v`` of the doubled graph goes to

1. the owner of ``u`` if ``u`` is normal, else
2. the owner of ``v`` if ``v`` is normal, else (both delegates)
3. the owner of the end of lower degree, or of ``min(u, v)`` on a tie.

So an undirected edge's two arcs land on the same process unless both ends are normal (the
subgraphs are symmetric apart from nn, which direction optimisation needs), a normal vertex's
nd and dn arcs are all on its owner, and only nn arcs point at other processes. Each process
stores its arcs as four CSRs (duplicates and self-loops removed): nn rows are local normals and
columns global ids (64-bit), nd rows local normals and columns delegate numbers, dn rows
delegates and columns local normals, dd rows and columns delegates, all 32-bit but nn's columns.
:meth:`Subgraphs.memory` compares the bytes with the paper's Table I.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpugraph.backend import array_module, to_numpy
from gpugraph.errors import InvalidParameterError


@dataclass(frozen=True)
class Layout:
    """Where vertices live: ``hosts x gpus_per_host`` processes (module docstring).

    Attributes
    ----------
    hosts, gpus_per_host:
        The paper's ``p_rank`` and ``p_gpu``.
    """

    hosts: int
    gpus_per_host: int = 1

    def __post_init__(self):
        if self.hosts < 1 or self.gpus_per_host < 1:
            raise InvalidParameterError(f"a layout needs at least one host and one GPU per host, got "
                                        f"{self.hosts} x {self.gpus_per_host}")

    @property
    def processes(self) -> int:
        """``p``."""
        return self.hosts * self.gpus_per_host

    def owner(self, vertices):
        """Process number of each vertex's owner."""
        return (vertices % self.hosts) * self.gpus_per_host + (vertices // self.hosts) % self.gpus_per_host

    def offset(self, process: int) -> int:
        """The smallest vertex id ``process`` owns: vertex ``i * p + offset`` has local index ``i``."""
        host, gpu = divmod(int(process), self.gpus_per_host)
        return gpu * self.hosts + host

    def local_count(self, process: int, num_vertices: int) -> int:
        """How many vertices ``process`` owns."""
        return max(0, -(-(num_vertices - self.offset(process)) // self.processes))


@dataclass
class Csr:
    """One subgraph: ``indptr`` (int32 while the arcs fit, else int64) and ``indices``."""

    indptr: object
    indices: object

    @property
    def num_rows(self) -> int:
        """Rows."""
        return int(self.indptr.size) - 1

    @property
    def num_arcs(self) -> int:
        """Arcs."""
        return int(self.indices.size)

    def degree(self):
        """Arcs per row, int32."""
        return (self.indptr[1:] - self.indptr[:-1]).astype(np.int32)

    def nbytes(self) -> int:
        """Bytes of both arrays."""
        return int(self.indptr.nbytes) + int(self.indices.nbytes)


@dataclass
class Subgraphs:
    """One process's share: the four CSRs and the vertex maps.

    Attributes
    ----------
    layout, process, num_vertices:
        The geometry and this process's number.
    delegate_ids:
        int64 global ids of the delegates (every process holds all of them).
    nn, nd, dn, dd:
        :class:`Csr` per arc kind (module docstring).
    global_arcs:
        Arc counts of all processes together, per kind (``nn``, ``nd``, ``dn``, ``dd``).
    """

    layout: Layout
    process: int
    num_vertices: int
    delegate_ids: object
    nn: Csr
    nd: Csr
    dn: Csr
    dd: Csr
    global_arcs: dict = field(default_factory=dict)

    @property
    def num_local(self) -> int:
        """Vertices this process owns (normal and delegate slots)."""
        return self.nn.num_rows

    @property
    def num_delegates(self) -> int:
        """``d``."""
        return int(self.delegate_ids.size)

    @property
    def offset(self) -> int:
        """Local index ``i`` is vertex ``i * p + offset``."""
        return self.layout.offset(self.process)

    def memory(self) -> dict:
        """Bytes of the subgraphs on this process, next to the paper's Table I.

        Returns
        -------
        dict
            ``bytes``: the four CSRs as stored; ``table_i``: the paper's per-GPU formula
            ``(8 n + 8 d p + 4 m + 4 |E_nn|) / p`` with this graph's global counts (``m`` arcs);
            ``edge_list``: the ``16 m / p`` of a 64-bit edge list; ``csr``: ``(8 n + 8 m) / p`` of a
            32-bit CSR without separation.
        """
        p = self.layout.processes
        n, d = self.num_vertices, self.num_delegates
        m = sum(self.global_arcs.values())
        nn = self.global_arcs.get("nn", 0)
        return {"bytes": sum(csr.nbytes() for csr in (self.nn, self.nd, self.dn, self.dd)),
                "table_i": (8 * n + 8 * d * p + 4 * m + 4 * nn) / p,
                "edge_list": 16 * m / p, "csr": (8 * n + 8 * m) / p}


def destinations(layout: Layout, sources, targets, delegate_index, degree):
    """Algorithm 1: the process of each arc ``sources[i] -> targets[i]`` (module docstring).

    Parameters
    ----------
    layout:
        The process layout.
    sources, targets:
        int64 global ids.
    delegate_index:
        int32 per vertex, -1 for normal vertices (:class:`~gpugraph.graph500.separation.Separation`).
    degree:
        Degree per vertex.

    Returns
    -------
    array
        int64 process number per arc.
    """
    xp = array_module(sources)
    source_normal = delegate_index[sources] < 0
    target_normal = delegate_index[targets] < 0
    source_degree, target_degree = degree[sources], degree[targets]
    lower = xp.where(source_degree == target_degree, xp.minimum(sources, targets),
                     xp.where(source_degree < target_degree, sources, targets))
    anchor = xp.where(source_normal, sources, xp.where(target_normal, targets, lower))
    return layout.owner(anchor).astype(np.int64)


def build(comm, layout: Layout, sources, targets, separation) -> Subgraphs:
    """This process's :class:`Subgraphs` from the arcs it holds (collective).

    Parameters
    ----------
    comm:
        The process group (:class:`gpugraph.graph500.bfs.Group`); its rank is the process number.
    layout:
        The layout (its process count equals the group's size).
    sources, targets:
        This process's slice of the doubled graph's arcs (int64 global ids; any process may hold
        any arc: they are sent to their process here).
    separation:
        The delegates (:func:`gpugraph.graph500.separation.separate`), the same on every process.

    Returns
    -------
    Subgraphs
    """
    xp = array_module(sources)
    keep = sources != targets
    sources, targets = sources[keep], targets[keep]
    if comm.size > 1:
        process = destinations(layout, sources, targets, separation.delegate_index, separation.degree)
        order = xp.argsort(process)
        counts = to_numpy(xp.bincount(process, minlength=comm.size)).astype(np.int64)
        del process
        pairs = xp.stack((sources[order], targets[order]), axis=1).reshape(-1)
        del order, sources, targets
        received = comm.exchange(pairs, counts * 2, 0).wait().received.reshape(-1, 2)
        del pairs
        sources, targets = received[:, 0].copy(), received[:, 1].copy()
        del received
    index = separation.delegate_index
    source_delegate, target_delegate = index[sources], index[targets]
    p = layout.processes
    num_local = layout.local_count(comm.rank, int(index.size))
    d = separation.num_delegates
    kinds = {}
    for name, rows_are_delegates, columns_are_delegates in (("nn", False, False), ("nd", False, True),
                                                            ("dn", True, False), ("dd", True, True)):
        chosen = ((source_delegate >= 0) == rows_are_delegates) & ((target_delegate >= 0) == columns_are_delegates)
        rows = source_delegate[chosen].astype(np.int64) if rows_are_delegates else sources[chosen] // p
        if columns_are_delegates:
            columns, width = target_delegate[chosen].astype(np.int64), d
        elif name == "dn":
            columns, width = targets[chosen] // p, num_local
        else:
            columns, width = targets[chosen], int(index.size)
        kinds[name] = _csr(xp, rows, columns, d if rows_are_delegates else num_local, width,
                           np.int64 if name == "nn" else np.int32)
        del chosen, rows, columns
    arcs = np.array([kinds[name].num_arcs for name in ("nn", "nd", "dn", "dd")], dtype=np.int64)
    totals = comm.allreduce(arcs)
    return Subgraphs(layout, comm.rank, int(index.size), separation.delegate_ids, kinds["nn"], kinds["nd"],
                     kinds["dn"], kinds["dd"], dict(zip(("nn", "nd", "dn", "dd"), (int(t) for t in totals))))


def _csr(xp, rows, columns, num_rows: int, width: int, column_dtype) -> Csr:
    """Rows sorted, each row's columns sorted and unique."""
    keys = xp.unique(rows * max(width, 1) + columns)
    indptr = xp.searchsorted(keys, xp.arange(num_rows + 1, dtype=np.int64) * max(width, 1))
    offsets_dtype = np.int32 if keys.size < np.iinfo(np.int32).max else np.int64
    return Csr(indptr.astype(offsets_dtype), (keys % max(width, 1)).astype(column_dtype))
