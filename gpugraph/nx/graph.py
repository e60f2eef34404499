"""The NetworkX backend's graph: NetworkX's adjacency as CSR, in NetworkX's own order.

A :class:`BackendGraph` keeps

* ``nodes``: the node labels in ``list(G)`` order; internal id ``i`` is ``nodes[i]``;
* ``indptr`` / ``indices`` (host, int64): every arc ``u -> v`` of ``G._adj`` in NetworkX's
  iteration order (rows in node order, neighbours in insertion order; an undirected edge gives
  both arcs, a self-loop one, a multigraph edge one arc per key), so traversals that promise
  NetworkX's visiting order (``bfs_edges``, ``bfs_layers``) walk the same order;
* ``weights``: one value per arc of the edge attribute the call asked for (missing values take
  the call's default), or ``None`` when the call needs no weights.

The library's sorted :class:`gpugraph.Graph` is built from these arrays on first use, per device,
and kept: NetworkX caches the converted object on ``G.__networkx_cache__`` (cleared by NetworkX
when ``G`` is mutated through its methods), so repeated calls convert nothing.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np

from gpugraph.errors import InvalidParameterError

BACKEND_NAME = "gpugraph"


class BackendGraph:
    """A NetworkX graph converted for the ``gpugraph`` backend (see the module docstring).

    Parameters
    ----------
    nodes:
        Node labels in NetworkX order.
    indptr, indices:
        Host CSR (int64) of the arcs in NetworkX order.
    weights:
        ``None`` or one number per arc.
    directed, multigraph:
        The kind of the NetworkX graph.
    weight_name:
        The edge attribute ``weights`` came from (``None`` when unweighted).
    graph_attrs:
        A copy of ``G.graph``.
    """

    __networkx_backend__ = BACKEND_NAME

    def __init__(self, nodes, indptr, indices, weights, *, directed: bool, multigraph: bool,
                 weight_name: str | None = None, graph_attrs: dict | None = None):
        self.nodes = nodes
        self.indptr = indptr
        self.indices = indices
        self.weights = weights
        self.directed = bool(directed)
        self.multigraph = bool(multigraph)
        self.weight_name = weight_name
        self.graph = dict(graph_attrs or {})
        self._index = None
        self._library_graphs = {}

    # --- what NetworkX's dispatcher and decorators ask of a backend graph -------------------
    def is_directed(self) -> bool:
        """Whether the NetworkX graph was directed."""
        return self.directed

    def is_multigraph(self) -> bool:
        """Whether the NetworkX graph was a multigraph."""
        return self.multigraph

    def __len__(self) -> int:
        return len(self.nodes)

    def number_of_nodes(self) -> int:
        """Number of nodes."""
        return len(self.nodes)

    def number_of_edges(self) -> int:
        """Number of edges as NetworkX counts them: the arcs of a directed graph; for an undirected
        one each edge gives two arcs, a self-loop one (multigraphs: per key)."""
        arcs = len(self.indices)
        return arcs if self.directed else (arcs + self.self_loop_count()) // 2

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:  # unhashable, as NetworkX answers
            return False

    def __repr__(self) -> str:
        kind = ("Multi" if self.multigraph else "") + ("DiGraph" if self.directed else "Graph")
        return f"BackendGraph({kind}, n={len(self.nodes):,}, m={self.number_of_edges():,})"

    # --- ids ---------------------------------------------------------------------------------
    @property
    def index(self) -> dict:
        """``{label: internal id}``, built on first use."""
        if self._index is None:
            self._index = {node: i for i, node in enumerate(self.nodes)}
        return self._index

    def labels(self, internal) -> list:
        """Node labels of an array of internal ids, as a Python list."""
        nodes = self.nodes
        if isinstance(nodes, range):
            return np.asarray(internal).tolist()
        return [nodes[i] for i in np.asarray(internal).tolist()]

    def self_loop_count(self) -> int:
        """Number of self-loop arcs."""
        rows = np.repeat(np.arange(len(self.nodes), dtype=np.int64), np.diff(self.indptr))
        return int(np.count_nonzero(rows == self.indices))

    # --- the library's graph -----------------------------------------------------------------
    def library_graph(self, device=None, *, weighted: bool = False):
        """The sorted :class:`gpugraph.Graph` of these arcs on ``device`` (built once, kept).

        Internal ids equal this graph's ids (``original_ids`` stays ``None``), so results index
        ``nodes`` directly. ``weighted=False`` leaves the weights out.
        """
        from gpugraph.backend import get_backend
        from gpugraph.graph.build import from_csr

        name = get_backend(device).name
        key = (name, weighted and self.weights is not None)
        if key not in self._library_graphs:
            self._library_graphs[key] = from_csr(
                self.indptr, self.indices, self.weights if key[1] else None, directed=self.directed,
                device=name, name="networkx graph")
        return self._library_graphs[key]


def from_networkx(G, *, weight: str | None = None, default=1, graph_attrs: bool = False) -> BackendGraph:
    """Convert a NetworkX graph (see the module docstring for what is kept).

    Parameters
    ----------
    G:
        Any NetworkX ``Graph``, ``DiGraph``, ``MultiGraph`` or ``MultiDiGraph``.
    weight:
        Edge attribute to keep as arc weights, or ``None``.
    default:
        Value for edges without ``weight``.
    graph_attrs:
        Whether to copy ``G.graph``.

    Returns
    -------
    BackendGraph

    Raises
    ------
    InvalidParameterError
        If the ``weight`` values are not all numbers.
    """
    nodes = list(G)
    n = len(nodes)
    if nodes == list(range(n)):
        nodes = range(n)
    adj = _adjacency(G)
    multigraph = G.is_multigraph()
    if multigraph:  # one arc per key: neighbour v repeated len(keys) times
        rows = [list(itertools.chain.from_iterable(
            itertools.repeat(v, len(keys)) for v, keys in nbrs.items())) for nbrs in adj.values()]
        degrees = np.fromiter(map(len, rows), np.int64, n)
        neighbours = itertools.chain.from_iterable(rows)
    else:
        degrees = np.fromiter(map(len, adj.values()), np.int64, n)
        neighbours = itertools.chain.from_iterable(adj.values())
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degrees, out=indptr[1:])
    arcs = int(indptr[-1])
    if not isinstance(nodes, range):
        index = {node: i for i, node in enumerate(nodes)}
        neighbours = map(index.__getitem__, neighbours)
    indices = np.fromiter(neighbours, np.int64, arcs)
    weights = None if weight is None else _arc_weights(adj, multigraph, weight, default, arcs)
    converted = BackendGraph(
        nodes, indptr, indices, weights, directed=G.is_directed(), multigraph=multigraph,
        weight_name=weight, graph_attrs=G.graph if graph_attrs else None)
    if not isinstance(nodes, range):
        converted._index = index
    return converted


def _adjacency(G):
    """``G._adj`` (the fast path) unless ``G``'s class redefines ``adj`` (as NetworkX's own
    ``_AntiGraph`` does, whose ``_adj`` holds the complement): then the public ``G.adj``."""
    import networkx as nx

    for base in (nx.MultiDiGraph, nx.MultiGraph, nx.DiGraph, nx.Graph):
        if isinstance(G, base):
            return G._adj if type(G).adj is base.adj else G.adj
    return G.adj


def _arc_weights(adj, multigraph: bool, weight: str, default, arcs: int):
    """One value per arc: each edge's ``weight`` attribute, ``default`` where it has none. A graph
    whose edges carry no attributes at all (checked at C speed) gets ``default`` everywhere
    without a Python object per arc."""
    values_of = operator.methodcaller("values")

    def records():  # edge data dicts, arc order
        data = itertools.chain.from_iterable(map(values_of, adj.values()))
        return itertools.chain.from_iterable(map(values_of, data)) if multigraph else data

    if any(map(len, records())):
        values = np.asarray(list(map(operator.methodcaller("get", weight, default), records())))
    else:
        values = np.full(arcs, default)
    if arcs == 0:
        return np.zeros(0, dtype=np.float64)
    if values.dtype == np.bool_ or not np.issubdtype(values.dtype, np.number):
        raise InvalidParameterError(
            f"edge attribute {weight!r} must be numeric for the gpugraph backend, got {values.dtype}")
    return values


def to_networkx(graph: BackendGraph):
    """Build the NetworkX graph a :class:`BackendGraph` came from (with its one weight attribute).

    Returns
    -------
    networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
    """
    import networkx as nx

    kind = {(False, False): nx.Graph, (True, False): nx.DiGraph,
            (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}
    G = kind[(graph.directed, graph.multigraph)]()
    G.graph.update(graph.graph)
    G.add_nodes_from(graph.nodes)
    n = len(graph.nodes)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.indptr))
    dst = graph.indices
    weights = graph.weights
    if not graph.directed:  # an undirected edge (or multi-edge key) is listed from both ends
        once = src <= dst
        src, dst = src[once], dst[once]
        weights = None if weights is None else weights[once]
    heads, tails = graph.labels(src), graph.labels(dst)
    if weights is None:
        G.add_edges_from(zip(heads, tails))
    else:
        name = graph.weight_name
        G.add_edges_from((u, v, {name: w}) for u, v, w in zip(heads, tails, weights.tolist()))
    return G

