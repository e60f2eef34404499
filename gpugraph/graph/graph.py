"""The Graph: CSR out-edges, lazily built CSC in-edges, weights, and the map to original ids.

Layout
------
``indptr``  int64, length ``n + 1``: out-edges of ``v`` are ``indptr[v]:indptr[v + 1]``. Offsets
            are always 64-bit so graphs past 2^31 edges work.
``indices`` int32 while ``n < 2^31`` (int64 beyond): destination of each out-edge, sorted
            within each row (ties keep input order).
``weights`` ``None`` or one value per stored edge (integer or floating point).

An undirected graph stores both directions of every edge (a self-loop once), so ``indptr`` /
``indices`` are symmetric and the in-edges are the out-edges. ``num_edges`` counts edges as the
input does (an undirected edge once); ``num_arcs`` counts stored CSR entries.

Internal vertex ids are ``0..n-1``. ``original_ids`` (sorted, int64) maps them back to the ids of
the input when those were sparse or arbitrary; otherwise original id = internal id + ``id_offset``
(1 for the 1-based formats: DIMACS, PACE, METIS, Matrix Market).

Other libraries' objects come out of :meth:`Graph.to_scipy` (sharing the CSR arrays),
:meth:`Graph.to_pandas` and :meth:`Graph.to_networkx` (docs/interop.md).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np

from gpugraph import config
from gpugraph.backend import Backend, get_backend, to_numpy
from gpugraph.errors import InvalidParameterError, VertexIdError

#: How to install each optional package that a conversion imports.
_INSTALL_HINTS = {
    "cupy": "pip install 'gpugraph[gpu]'",
    "networkx": "pip install 'gpugraph[interop]'",
    "pandas": "pip install 'gpugraph[interop]'",
    "torch": "pip install torch",
}


def optional_module(name: str, needed_by: str):
    """Import the optional package ``name`` that ``needed_by`` (a method's name) uses.

    Parameters
    ----------
    name:
        ``"cupy"``, ``"networkx"``, ``"pandas"`` or ``"torch"``.
    needed_by:
        What needs it, for the message, e.g. ``"Graph.to_networkx"``.

    Returns
    -------
    module

    Raises
    ------
    ImportError
        If the package is not installed; the message says what needs it and how to install it.
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        message = f"{needed_by} needs {name}, which is not installed: {_INSTALL_HINTS[name]}"
        raise ImportError(message) from exc


@dataclass(frozen=True)
class DegreeStats:
    """Summary of a degree distribution.

    Attributes
    ----------
    minimum, maximum, mean, median, std:
        The usual statistics over all vertices.
    isolated:
        Vertices of degree 0.
    """

    minimum: int
    maximum: int
    mean: float
    median: float
    std: float
    isolated: int

    @classmethod
    def of(cls, degrees: np.ndarray) -> "DegreeStats":
        """Compute the statistics of a host degree array (all zeros for an empty array)."""
        if degrees.size == 0:
            return cls(0, 0, 0.0, 0.0, 0.0, 0)
        return cls(
            minimum=int(degrees.min()),
            maximum=int(degrees.max()),
            mean=float(degrees.mean()),
            median=float(np.median(degrees)),
            std=float(degrees.std()),
            isolated=int(np.count_nonzero(degrees == 0)),
        )


class Graph:
    """A graph in CSR form on one backend (host or one GPU).

    Build graphs with :func:`gpugraph.load`, :func:`gpugraph.from_edges`,
    :func:`gpugraph.from_scipy`, :func:`gpugraph.from_networkx`, :func:`gpugraph.from_pandas`
    or a generator, rather than calling this constructor, which trusts its arrays.

    Parameters
    ----------
    indptr, indices, weights:
        CSR arrays as described in the module docstring, on ``backend``.
    directed:
        Whether edges are directed.
    num_edges:
        Edge count as the input counts them (see module docstring).
    backend:
        Where the arrays live.
    original_ids:
        Sorted host int64 array of original ids, or ``None``.
    id_offset:
        Added to internal ids to get original ids when ``original_ids`` is ``None``.
    name:
        A label (usually the file name) used in reports.
    in_edges:
        Already built ``(in_indptr, in_indices, in_edge_ids)`` of a directed graph, or ``None``.
    """

    def __init__(
        self,
        indptr,
        indices,
        weights=None,
        *,
        directed: bool,
        num_edges: int,
        backend: Backend,
        original_ids: np.ndarray | None = None,
        id_offset: int = 0,
        name: str | None = None,
        in_edges: tuple | None = None,
    ):
        self.indptr = indptr
        self.indices = indices
        self.weights = weights
        self.directed = bool(directed)
        self.num_edges = int(num_edges)
        self.backend = backend
        self.original_ids = original_ids
        self.id_offset = int(id_offset)
        self.name = name
        # (in_indptr, in_indices, in_edge_ids): built on first use unless given (moved or loaded).
        self._in_edges = tuple(in_edges) if in_edges is not None and directed else None
        # Built on first use: the CSR position of each in-edge of an undirected graph, and the
        # reverse-edge index (Medusa's rID) of any graph.
        self._undirected_in_edge_ids = None
        self._reverse_edge_index = None
        self._out_degree_skew = None

    # --- sizes -------------------------------------------------------------------------------
    @property
    def num_vertices(self) -> int:
        """Number of vertices ``n``."""
        return int(self.indptr.shape[0]) - 1

    @property
    def num_arcs(self) -> int:
        """Number of stored CSR entries (both directions of an undirected edge count)."""
        return int(self.indices.shape[0])

    @property
    def is_weighted(self) -> bool:
        """Whether the graph has edge weights."""
        return self.weights is not None

    @property
    def device(self) -> str:
        """Name of the backend the arrays live on (``"cpu"`` or ``"cuda:N"``)."""
        return self.backend.name

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        weighted = f", weights={self.weights.dtype}" if self.is_weighted else ""
        label = f"{self.name!r}, " if self.name else ""
        return (
            f"Graph({label}n={self.num_vertices:,}, m={self.num_edges:,}, {kind}{weighted}, "
            f"device={self.device!r})"
        )

    # --- in-edges ----------------------------------------------------------------------------
    def _build_in_edges(self):
        if self._in_edges is None:
            from gpugraph.graph.build import transpose_csr

            self._in_edges = transpose_csr(
                self.indptr, self.indices, self.num_vertices, self.backend
            )
        return self._in_edges

    @property
    def in_indptr(self):
        """CSC offsets (int64, length ``n + 1``) of in-edges; built on first use and cached."""
        if not self.directed:
            return self.indptr
        return self._build_in_edges()[0]

    @property
    def in_indices(self):
        """Source vertex of each in-edge, sorted within each vertex; built on first use."""
        if not self.directed:
            return self.indices
        return self._build_in_edges()[1]

    @property
    def in_edge_ids(self):
        """For each in-edge ``u -> v`` (CSC position), the CSR position of the arc ``u -> v``.

        For an undirected graph the CSC arrays are the CSR arrays, and in-edge ``k`` of ``v``
        (source ``indices[k]``) is the reverse of the stored arc ``k``; this array names the arc
        itself, so per-arc data (weights, edge fields, messages) is read in the right direction.
        Built on first use and cached (int64).
        """
        if not self.directed:
            if self._undirected_in_edge_ids is None:
                from gpugraph.graph.build import transpose_csr

                self._undirected_in_edge_ids = transpose_csr(
                    self.indptr, self.indices, self.num_vertices, self.backend
                )[2]
            return self._undirected_in_edge_ids
        return self._build_in_edges()[2]

    @property
    def reverse_edge_index(self):
        """Medusa's rID: for each CSR arc ``e = u -> v``, its position in the CSC arrays.

        Data written at ``reverse_edge_index[e]`` for every out-edge lands grouped by
        destination: the entries of ``v`` are ``in_indptr[v]:in_indptr[v + 1]``, in the order of
        ``in_indices``. Built on first use and cached (int64, one entry per arc).
        """
        if self._reverse_edge_index is None:
            xp = self.backend.xp
            with self.backend.activate():
                rid = xp.empty(self.num_arcs, dtype=np.int64)
                rid[self.in_edge_ids] = xp.arange(self.num_arcs, dtype=np.int64)
            self._reverse_edge_index = rid
        return self._reverse_edge_index

    @property
    def in_weights(self):
        """Weights in CSC order, or ``None`` for an unweighted graph."""
        if self.weights is None:
            return None
        return self.weights[self.in_edge_ids]

    @property
    def has_in_edges(self) -> bool:
        """Whether the CSC arrays are already built (always true for undirected graphs)."""
        return not self.directed or self._in_edges is not None

    # --- degrees -----------------------------------------------------------------------------
    def out_degree(self):
        """Out-degree of every vertex (int64 array on the graph's backend)."""
        return self.backend.xp.diff(self.indptr)

    def out_degree_skew(self) -> float:
        """Largest out-degree over the mean out-degree (0.0 without edges); computed once.

        Operators use it to pick a load-balancing strategy for a whole-graph frontier.
        """
        if self._out_degree_skew is None:
            with self.backend.activate():
                degrees = self.out_degree()
                mean = float(degrees.mean()) if degrees.size else 0.0
                self._out_degree_skew = float(degrees.max()) / mean if mean > 0 else 0.0
        return self._out_degree_skew

    def in_degree(self):
        """In-degree of every vertex (int64 array on the graph's backend)."""
        return self.backend.xp.diff(self.in_indptr)

    def degree_stats(self) -> dict[str, DegreeStats]:
        """Degree statistics: ``{"out": ..., "in": ...}`` for directed graphs, ``{"degree": ...}``
        for undirected ones. Building in-degree statistics builds the CSC.
        """
        if not self.directed:
            return {"degree": DegreeStats.of(to_numpy(self.out_degree()))}
        return {
            "out": DegreeStats.of(to_numpy(self.out_degree())),
            "in": DegreeStats.of(to_numpy(self.in_degree())),
        }

    def self_loop_count(self) -> int:
        """Number of stored self-loop entries."""
        xp = self.backend.xp
        rows = xp.repeat(xp.arange(self.num_vertices, dtype=self.indices.dtype), self.out_degree())
        return int(xp.count_nonzero(rows == self.indices))

    # --- memory ------------------------------------------------------------------------------
    def memory_footprint(self) -> dict[str, int]:
        """Bytes held by each array of the graph (only what is built), plus ``"total"``."""
        parts = {"indptr": self.indptr.nbytes, "indices": self.indices.nbytes}
        if self.weights is not None:
            parts["weights"] = self.weights.nbytes
        if self.directed and self._in_edges is not None:
            in_indptr, in_indices, in_edge_ids = self._in_edges
            parts["in_indptr"] = in_indptr.nbytes
            parts["in_indices"] = in_indices.nbytes
            parts["in_edge_ids"] = in_edge_ids.nbytes
        if self._undirected_in_edge_ids is not None:
            parts["in_edge_ids"] = self._undirected_in_edge_ids.nbytes
        if self._reverse_edge_index is not None:
            parts["reverse_edge_index"] = self._reverse_edge_index.nbytes
        if self.original_ids is not None:
            parts["original_ids"] = self.original_ids.nbytes
        parts["total"] = sum(parts.values())
        return {key: int(value) for key, value in parts.items()}

    # --- movement ----------------------------------------------------------------------------
    def to(self, device) -> "Graph":
        """Return this graph on ``device`` (``"cpu"``, ``"cuda"``, ``"cuda:N"`` or a Backend).

        The CSC, if built, moves too. Returns ``self`` when already there.

        Raises
        ------
        DeviceError
            If the device cannot be used.
        DeviceOutOfMemoryError
            If the graph does not fit in the device's memory.
        """
        target = get_backend(device)
        if target is self.backend:
            return self
        moved = Graph(
            target.asarray(self.indptr),
            target.asarray(self.indices),
            None if self.weights is None else target.asarray(self.weights),
            directed=self.directed,
            num_edges=self.num_edges,
            backend=target,
            original_ids=self.original_ids,
            id_offset=self.id_offset,
            name=self.name,
            in_edges=None
            if self._in_edges is None
            else tuple(target.asarray(array) for array in self._in_edges),
        )
        return moved

    # --- ids ---------------------------------------------------------------------------------
    def to_original(self, vertices) -> np.ndarray:
        """Map internal vertex ids (array-like, host or device) to the input's original ids."""
        internal = to_numpy(vertices)
        if self.original_ids is not None:
            return self.original_ids[internal]
        return internal.astype(np.int64) + self.id_offset

    def to_internal(self, original) -> np.ndarray:
        """Map original ids (scalar or array-like) to internal ids ``0..n-1``.

        Raises
        ------
        VertexIdError
            If an id is not a vertex of this graph.
        """
        ids = np.asarray(original)
        scalar = ids.ndim == 0
        ids = np.atleast_1d(ids)
        if not np.issubdtype(ids.dtype, np.integer):
            raise VertexIdError(f"vertex ids must be integers, got {ids.dtype}")
        if self.original_ids is not None:
            internal = np.searchsorted(self.original_ids, ids)
            clipped = np.minimum(internal, max(self.num_vertices - 1, 0))
            found = (internal < self.num_vertices) & (
                self.original_ids[clipped] == ids if self.num_vertices else False
            )
        else:
            internal = ids.astype(np.int64) - self.id_offset
            found = (internal >= 0) & (internal < self.num_vertices)
        if not np.all(found):
            bad = ids[~np.asarray(found)][0]
            raise VertexIdError(f"vertex {int(bad)} is not in the graph {self._label()}")
        return internal[0] if scalar else internal

    def _label(self) -> str:
        return f"{self.name!r}" if self.name else f"(n={self.num_vertices})"

    # --- whole-graph views -------------------------------------------------------------------
    def edges(self):
        """Return ``(src, dst, weights)`` arrays of the stored arcs, in CSR order, on the graph's
        backend (``weights`` is ``None`` when unweighted)."""
        xp = self.backend.xp
        src = xp.repeat(xp.arange(self.num_vertices, dtype=self.indices.dtype), self.out_degree())
        return src, self.indices, self.weights

    def _edges_once(self):
        """New host arrays ``(source, target, weights)`` in original ids, in CSR order: every
        directed edge, every undirected edge once as ``source <= target``."""
        with self.backend.activate():
            src, dst, weights = self.edges()
            if not self.directed:
                once = src <= dst
                src, dst = src[once], dst[once]
                weights = None if weights is None else weights[once]
            elif weights is not None:
                weights = weights.copy()  # the caller's arrays must not be the graph's
        weights = None if weights is None else to_numpy(weights)
        return self.to_original(src), self.to_original(dst), weights

    # --- other libraries ---------------------------------------------------------------------
    def to_scipy(self, *, copy: bool = False):
        """Return the adjacency matrix: entry ``(u, v)`` for each stored arc ``u -> v``.

        Rows and columns are internal ids (:meth:`to_original` maps them back). An undirected
        graph gives a symmetric matrix, parallel edges give duplicate entries, and an
        unweighted graph gives a boolean matrix (one byte of ``True`` per arc, which
        :func:`gpugraph.from_scipy` reads back as unweighted).

        Without ``copy`` the matrix shares a host graph's memory: ``data`` is :attr:`weights`
        and ``indices`` is :attr:`indices`, so writing to them changes the graph. ``indptr`` is
        shared as well when the ids are int64; with int32 ids it is an int32 copy (SciPy wants
        one index type for both arrays, and the offsets are the short one). Past 2^31 arcs with
        int32 ids, ``indices`` is an int64 copy instead. A GPU graph is copied to the host.

        Parameters
        ----------
        copy:
            Give the matrix arrays of its own instead of the graph's.

        Returns
        -------
        scipy.sparse.csr_array
            Shape ``(n, n)``.
        """
        import scipy.sparse

        indices = to_numpy(self.indices)
        index_dtype = indices.dtype if self.num_arcs <= np.iinfo(indices.dtype).max else np.int64
        own = copy and self.backend.on_host  # a GPU graph's arrays arrive as new host arrays
        indptr = to_numpy(self.indptr).astype(index_dtype, copy=own)
        indices = indices.astype(index_dtype, copy=own)
        if self.weights is None:
            data = np.ones(self.num_arcs, dtype=np.bool_)
        else:
            data = to_numpy(self.weights)
            data = data.copy() if own else data
        n = self.num_vertices
        matrix = scipy.sparse.csr_array((data, indices, indptr), shape=(n, n), copy=False)
        matrix.has_sorted_indices = True  # rows are sorted by construction: spares SciPy a pass
        return matrix

    def to_pandas(self):
        """Return the edges as a pandas DataFrame in original ids.

        Columns ``source``, ``target`` and, for a weighted graph, ``weight``; one row per edge as
        the input counts them (:attr:`num_edges`): an undirected edge once, as
        ``source <= target``. Vertices without edges do not appear. The frame's columns are new
        arrays (sources are expanded from the offsets and ids mapped back), and
        ``gpugraph.from_pandas(frame, weight="weight", directed=graph.directed)`` builds the
        graph again, but for isolated vertices.

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        ImportError
            If pandas is not installed.
        """
        pandas = optional_module("pandas", "Graph.to_pandas")
        source, target, weights = self._edges_once()
        columns = {"source": source, "target": target}
        if weights is not None:
            columns["weight"] = weights
        return pandas.DataFrame(columns, copy=False)

    def to_networkx(
        self, *, weight: str = "weight", max_edges: int | None = config.TO_NETWORKX_MAX_EDGES
    ):
        """Return the graph as a ``networkx.DiGraph`` (directed) or ``networkx.Graph``.

        Nodes are the original ids of every vertex, isolated ones too, in increasing order;
        each edge carries its weight in the attribute ``weight``. NetworkX's graphs hold one
        edge per pair, so parallel edges (``duplicates="keep"``) become one edge with the last
        copy's weight. Per-vertex results go onto the nodes with
        ``networkx.set_node_attributes(nx_graph, result.by_original_id("rank"), "rank")``.

        Parameters
        ----------
        weight:
            Name of the edge attribute that holds the weights (unweighted graphs get none).
        max_edges:
            Refuse graphs with more edges than this; ``None`` converts any graph. NetworkX
            keeps Python objects for every edge (``config.TO_NETWORKX_MAX_EDGES`` says how
            much), so this is for small graphs.

        Returns
        -------
        networkx.DiGraph or networkx.Graph

        Raises
        ------
        InvalidParameterError
            If the graph has more than ``max_edges`` edges.
        ImportError
            If NetworkX is not installed.
        """
        if max_edges is not None and self.num_edges > max_edges:
            raise InvalidParameterError(
                f"to_networkx: the graph {self._label()} has {self.num_edges:,} edges, more "
                f"than max_edges={max_edges:,}; pass a larger max_edges, or max_edges=None, to "
                "convert it anyway"
            )
        networkx = optional_module("networkx", "Graph.to_networkx")
        nx_graph = networkx.DiGraph() if self.directed else networkx.Graph()
        nx_graph.add_nodes_from(self.to_original(np.arange(self.num_vertices)).tolist())
        source, target, weights = self._edges_once()
        sources, targets = source.tolist(), target.tolist()
        if weights is None:
            nx_graph.add_edges_from(zip(sources, targets))
        else:
            nx_graph.add_weighted_edges_from(zip(sources, targets, weights.tolist()), weight=weight)
        return nx_graph

    def equals(self, other: "Graph") -> bool:
        """Whether two graphs have identical structure, weights, direction and id mapping
        (wherever their arrays live)."""
        if not isinstance(other, Graph):
            return False
        if (self.directed, self.num_edges, self.id_offset) != (
            other.directed,
            other.num_edges,
            other.id_offset,
        ):
            return False
        if (self.weights is None) != (other.weights is None):
            return False
        if (self.original_ids is None) != (other.original_ids is None):
            return False
        pairs = [(self.indptr, other.indptr), (self.indices, other.indices)]
        if self.weights is not None:
            pairs.append((self.weights, other.weights))
        if self.original_ids is not None:
            pairs.append((self.original_ids, other.original_ids))
        for mine, theirs in pairs:
            mine, theirs = to_numpy(mine), to_numpy(theirs)
            if mine.dtype != theirs.dtype or not np.array_equal(mine, theirs):
                return False
        return True
