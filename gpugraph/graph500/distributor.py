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

from gpugraph import config
from gpugraph.backend import array_module, to_numpy
from gpugraph.errors import InvalidParameterError
from gpugraph.graph500.bfs import pack_pairs, pair_entries, unpack_pairs
from gpugraph.graph500.separation import edge_chunks


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
    """This process's :class:`Subgraphs` from its edge slice (collective): Algorithm 1.

    A counting build in two passes over the edges, ``config.GRAPH500_BUILD_CHUNK_EDGES`` at a
    time: each pass makes a chunk's two arcs per edge, drops self-loops and sends each arc to
    its process (:func:`destinations`; an all-to-all per chunk, arcs packed as nn pairs are,
    :func:`~gpugraph.graph500.bfs.pack_pairs`). The first pass counts each kind's rows in what
    this process receives, the second puts each arc's column at its row's cursor; then each
    row's columns are sorted and made unique in bands of rows. The arcs are never held whole:
    beside the edges (8 bytes an edge) this holds the columns (4 bytes an arc, nn's 8) and a
    chunk's temporaries, where holding the exchanged arcs for a second pass took 8 bytes an arc
    more and one sort key per arc another 8.

    Parameters
    ----------
    comm:
        The process group (:class:`gpugraph.graph500.bfs.Group`, with its ``backend``); its rank
        is the process number.
    layout:
        The layout. With a group of one process but a layout of several (building one process's
        part alone), only the arcs of process ``comm.rank`` are kept.
    sources, targets:
        This process's slice of the undirected edges, each edge once (int32 or int64 global ids;
        any process may hold any edge; self-loops and duplicates are dropped here).
    separation:
        The delegates (:func:`gpugraph.graph500.separation.separate`), the same on every process.

    Returns
    -------
    Subgraphs
    """
    index = separation.delegate_index
    backend = comm.backend
    n = int(index.size)
    num_local = layout.local_count(comm.rank, n)
    d = separation.num_delegates
    shapes = {"nn": (num_local, n, np.int64), "nd": (num_local, d, np.int32), "dn": (d, num_local, np.int32),
              "dd": (d, d, np.int32)}
    backend.release_cached_memory()  # the degrees' and the threshold table's blocks: the rows get their own
    filled = _rows_filled(backend, lambda: _arc_pieces(comm, layout, sources, targets, separation), index,
                          layout.processes, shapes)
    kinds = {}
    for name, (_, width, _) in shapes.items():
        kinds[name] = _sorted_unique_rows(backend, *filled.pop(name), width)
    backend.release_cached_memory()  # what the searcher allocates next lives as long as it
    totals = comm.allreduce(np.array([kinds[name].num_arcs for name in ("nn", "nd", "dn", "dd")], dtype=np.int64))
    return Subgraphs(layout, comm.rank, n, separation.delegate_ids, kinds["nn"], kinds["nd"], kinds["dn"], kinds["dd"],
                     dict(zip(("nn", "nd", "dn", "dd"), (int(t) for t in totals))))


def _arc_pieces(comm, layout: Layout, sources, targets, separation):
    """This process's arcs, one chunk of every process's edge slice at a time (collective: every
    process takes part in as many exchanges as the one with most chunks). A piece is packed arcs
    ``(from, to)``, or with a layout of one process a chunk of the edges ``(sources, targets)``
    whose arcs :func:`_kind_parts` makes (all of them stay here). Nothing of a chunk but the
    piece outlives its making, so a piece is freed once its user drops it."""
    pieces = edge_chunks(sources.size)
    if layout.processes == 1:
        yield from ((sources[piece], targets[piece]) for piece in pieces)
        return
    if comm.size > 1:
        pieces += [slice(0, 0)] * (int(comm.allreduce([len(pieces)], "max")[0]) - len(pieces))
    for piece in pieces:
        yield _arcs_of_chunk(comm, layout, sources[piece], targets[piece], separation)


def _arcs_of_chunk(comm, layout: Layout, sources, targets, separation):
    """This process's packed arcs of one chunk of every process's edges: each arc sent to its
    process (:func:`destinations`; an all-to-all when ``comm`` has several processes)."""
    xp = array_module(sources)
    n = int(separation.delegate_index.size)
    arc_from, arc_to = _both_arcs(xp, sources, targets)
    process = destinations(layout, arc_from, arc_to, separation.delegate_index, separation.degree)
    if comm.size == 1:
        mine = process == comm.rank
        return pack_pairs(xp, arc_from[mine], arc_to[mine], n)
    order = xp.argsort(process)
    counts = to_numpy(xp.bincount(process, minlength=comm.size)).astype(np.int64)
    packed = pack_pairs(xp, arc_from[order], arc_to[order], n)
    del process, order, arc_from, arc_to
    return comm.exchange(packed, counts * pair_entries(n), 0).wait().received


def _both_arcs(xp, sources, targets):
    """``(tails, heads)``, int64: both arcs of each edge, self-loops dropped."""
    keep = sources != targets
    ends = (sources[keep].astype(np.int64), targets[keep].astype(np.int64))
    return xp.concatenate(ends), xp.concatenate(ends[::-1])


def _kind_parts(xp, piece, index, processes: int):
    """The arcs of one piece of :func:`_arc_pieces` a chunk at a time, per kind (nn, nd, dn,
    dd): ``(name, rows, columns)`` in the kind's local numbering (module docstring), rows
    int64. A piece is packed arcs, or with one process an edge slice ``(sources, targets)``
    whose two arcs per edge are made here (self-loops dropped; the slice is already a chunk)."""
    if isinstance(piece, tuple):
        yield from _split_by_kind(index, processes, *_both_arcs(xp, *piece))
        return
    n = int(index.size)
    entries = pair_entries(n)
    for part in edge_chunks(piece.size // entries):
        yield from _split_by_kind(index, processes, *unpack_pairs(piece[part.start * entries:part.stop * entries], n))


def _split_by_kind(index, processes: int, tails, heads):
    """Arcs ``tails -> heads`` (global ids) as ``(name, rows, columns)`` per kind."""
    tail_delegate, head_delegate = index[tails], index[heads]
    tail_normal, head_normal = tail_delegate < 0, head_delegate < 0
    local_tails, local_heads = (tails // processes, heads // processes) if processes > 1 else (tails, heads)
    for name, chosen, rows, columns in (
            ("nn", tail_normal & head_normal, local_tails, heads),
            ("nd", tail_normal & ~head_normal, local_tails, head_delegate),
            ("dn", ~tail_normal & head_normal, tail_delegate, local_heads),
            ("dd", ~tail_normal & ~head_normal, tail_delegate, head_delegate)):
        yield name, rows[chosen].astype(np.int64), columns[chosen]


def _rows_filled(backend, arc_pieces, index, processes: int, shapes: dict) -> dict:
    """Per kind ``(indptr, columns)``: every arc in its row, duplicates kept, a row's columns in
    no particular order. ``arc_pieces()`` makes this process's arcs piece by piece (collective:
    :func:`_arc_pieces`); it is called twice. The first pass counts the rows; in the second
    each chunk's keys ``row * width + column`` are sorted, and each row's run of them goes to
    the row's cursor. The pool's cached blocks go back after each piece, so that chunks of
    other sizes do not cut new blocks beside them."""
    xp = array_module(index)
    counts = {name: xp.zeros(rows, dtype=np.int64) for name, (rows, _, _) in shapes.items()}
    for piece in arc_pieces():
        for name, rows, _ in _kind_parts(xp, piece, index, processes):
            if rows.size:
                counts[name] += xp.bincount(rows, minlength=counts[name].size)
        del piece
        backend.release_cached_memory()
    indptr, columns, cursor = {}, {}, {}
    for name, (_, _, dtype) in shapes.items():
        indptr[name] = xp.concatenate((xp.zeros(1, dtype=np.int64), xp.cumsum(counts.pop(name))))
        columns[name] = xp.empty(int(indptr[name][-1]), dtype=dtype)
        cursor[name] = indptr[name][:-1].copy()
    for piece in arc_pieces():
        for name, rows, row_columns in _kind_parts(xp, piece, index, processes):
            if rows.size == 0:
                continue
            width = max(shapes[name][1], 1)
            keys = rows * width + row_columns
            del rows, row_columns
            keys.sort()
            rows = keys // width
            run = _first_of_runs(xp, rows)
            starts = xp.flatnonzero(run)
            within = xp.arange(rows.size, dtype=np.int64) - starts[xp.cumsum(run) - 1]  # place in the run
            del run
            columns[name][cursor[name][rows] + within] = keys - rows * width
            del keys, within
            cursor[name][rows[starts]] += xp.diff(xp.concatenate((starts, xp.full(1, rows.size, dtype=starts.dtype))))
        del piece
        backend.release_cached_memory()
    return {name: (indptr[name], columns[name]) for name in shapes}


def _sorted_unique_rows(backend, indptr, columns, width: int) -> Csr:
    """The CSR of rows filled by :func:`_rows_filled`, each row's columns sorted and unique.

    Whole rows are taken ``2 * config.GRAPH500_BUILD_CHUNK_EDGES`` arcs at a time (a longer row
    alone) as keys ``row in the band * width + column``, sorted, made unique and written back
    over the columns already done (never past the band's start), so the temporaries are a
    band's (their blocks given back after each band); the columns are copied to their final
    size at the end."""
    xp = array_module(columns)
    num_rows = indptr.size - 1
    band_arcs = 2 * config.GRAPH500_BUILD_CHUNK_EDGES
    width = max(width, 1)
    kept = xp.zeros(num_rows, dtype=np.int64)
    written = row = 0
    while row < num_rows:
        begin = int(indptr[row])
        stop = int(xp.searchsorted(indptr, xp.asarray([begin + band_arcs]), side="right")[0]) - 1
        stop = min(max(stop, row + 1), num_rows)
        end = int(indptr[stop])
        if end > begin:
            band_rows = xp.searchsorted(indptr[row:stop + 1], xp.arange(begin, end, dtype=np.int64), side="right") - 1
            keys = band_rows * width + columns[begin:end]
            del band_rows
            keys.sort()
            keys = keys[_first_of_runs(xp, keys)]
            kept[row:stop] = xp.bincount(keys // width, minlength=stop - row)
            columns[written:written + keys.size] = keys % width
            written += keys.size
            del keys
            backend.release_cached_memory()
        row = stop
    indptr = xp.concatenate((xp.zeros(1, dtype=np.int64), xp.cumsum(kept)))
    offsets_dtype = np.int32 if written < np.iinfo(np.int32).max else np.int64
    return Csr(indptr.astype(offsets_dtype), columns[:written].copy())


def _first_of_runs(xp, values):
    """True where a run of equal ``values`` (non-empty, sorted or grouped) starts."""
    first = xp.empty(values.size, dtype=bool)
    first[0] = True
    xp.not_equal(values[1:], values[:-1], out=first[1:])
    return first
