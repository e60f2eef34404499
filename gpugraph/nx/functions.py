"""NetworkX functions computed by gpugraph: same names, parameters, results and exceptions.

Each takes a :class:`~gpugraph.nx.graph.BackendGraph` (NetworkX's dispatcher converts the
caller's graph and caches the conversion) and returns what NetworkX returns: dicts keyed by node
label with Python numbers, generators of sets, NetworkX graphs. Arguments the library cannot honour
are refused beforehand by :func:`gpugraph.nx.interface.BackendInterface.can_run` (so NetworkX runs
instead or says why), never answered differently.

Traversals that promise NetworkX's visiting order (``bfs_edges``, ``bfs_tree``,
``bfs_predecessors``, ``bfs_successors``, ``bfs_layers``) walk the arcs in NetworkX's order on the
host (:mod:`gpugraph.nx._ordered_bfs`); everything else runs the library's algorithm on the
configured device (``nx.config.backends.gpugraph.device``; default: a GPU when one is usable).
"""

from __future__ import annotations

import gc

import networkx as nx
import numpy as np

from gpugraph.algorithms import betweenness as library_betweenness
from gpugraph.algorithms import bfs as library_bfs
from gpugraph.algorithms import kcore as library_kcore
from gpugraph.algorithms import lcc as library_lcc
from gpugraph.algorithms import pagerank as library_pagerank
from gpugraph.algorithms import scc as library_scc
from gpugraph.algorithms import sssp as library_sssp
from gpugraph.algorithms import triangles as library_triangles
from gpugraph.algorithms import wcc as library_wcc
from gpugraph.backend import to_numpy
from gpugraph.config import NX_SETS_PER_BATCH
from gpugraph.nx._label_propagation import label_propagation
from gpugraph.nx._ordered_bfs import ordered_bfs


def _device():
    return nx.config.backends.get("gpugraph", {}).get("device")


def _graph(G, *, weighted: bool = False):
    return G.library_graph(_device(), weighted=weighted)


# --- link analysis -------------------------------------------------------------------------
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight",
             dangling=None):
    """``networkx.pagerank`` (``nstart`` and ``dangling`` are refused by ``can_run``).

    Raises
    ------
    networkx.PowerIterationFailedConvergence
        If ``max_iter`` iterations do not reach the tolerance.
    ZeroDivisionError
        If ``personalization`` sums to zero (as NetworkX).
    NotImplementedError
        If a weight is negative or NaN (NetworkX's formula still gives numbers; with the backend
        chosen by priority NetworkX then answers).
    """
    if len(G) == 0:
        return {}
    if max_iter < 1:
        raise nx.PowerIterationFailedConvergence(max_iter)
    weighted = G.weights is not None and bool(np.any(G.weights != 1))
    if weighted and not bool(np.all(G.weights >= 0)):
        raise NotImplementedError("gpugraph's weighted pagerank needs non-negative weights")
    teleport = None
    if personalization is not None:
        teleport = np.zeros(len(G))
        for node, value in personalization.items():
            if node in G:
                teleport[G.index[node]] = value
        if teleport.sum() == 0:
            raise ZeroDivisionError
    result = library_pagerank.run(_graph(G, weighted=weighted), alpha, tol, max_iter, personalization=teleport,
                                  weighted=weighted)
    if not result.stats["converged"]:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return dict(zip(G.nodes, result.to_numpy("rank").tolist()))


# --- breadth-first traversals in NetworkX's order --------------------------------------------
def _bfs_tree_arrays(G, sources, depth_limit):
    """Queue order, parents and depths of NetworkX's BFS (``sources``: labels, all in ``G``)."""
    limit = len(G) if depth_limit is None else depth_limit
    starts = np.fromiter((G.index[s] for s in sources), np.int64, len(sources))
    return ordered_bfs(G.indptr, G.indices, starts, limit)


def _missing(G, node):
    return nx.NetworkXError(f"The node {node} is not in the graph.")


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """``networkx.bfs_edges``: tree edges in NetworkX's order (a generator, as NetworkX's).

    Raises
    ------
    networkx.NetworkXError
        When iterated, if ``source`` is not in ``G``.
    """
    if source not in G:
        raise _missing(G, source)
    order, parent, _ = _bfs_tree_arrays(G, [source], depth_limit)
    children = order[1:]
    yield from zip(G.labels(parent[children]), G.labels(children))


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """``networkx.bfs_tree``: the BFS tree as a ``networkx.DiGraph``.

    Raises
    ------
    networkx.NetworkXError
        If ``source`` is not in ``G``.
    """
    tree = nx.DiGraph()
    tree.add_node(source)
    tree.add_edges_from(bfs_edges(G, source, depth_limit=depth_limit))
    return tree


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """``networkx.bfs_predecessors``: ``(node, parent)`` pairs in BFS order.

    Raises
    ------
    networkx.NetworkXError
        When iterated, if ``source`` is not in ``G``.
    """
    for parent, child in bfs_edges(G, source, depth_limit=depth_limit):
        yield child, parent


def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """``networkx.bfs_successors``: ``(node, [children])`` in BFS order.

    Raises
    ------
    networkx.NetworkXError
        When iterated, if ``source`` is not in ``G``.
    """
    current, children = source, []
    for parent, child in bfs_edges(G, source, depth_limit=depth_limit):
        if parent != current:
            yield current, children
            current, children = parent, []
        children.append(child)
    yield current, children


def bfs_layers(G, sources):
    """``networkx.bfs_layers``: lists of nodes per distance from ``sources``, in NetworkX's order.

    Raises
    ------
    networkx.NetworkXError
        When iterated, if a source is not in ``G``.
    """
    if sources in G:
        sources = [sources]
    first = list(set(sources))  # NetworkX's first layer is list(set(sources))
    for source in first:
        if source not in G:
            raise _missing(G, source)
    order, _, depth = _bfs_tree_arrays(G, first, None)
    if order.size == 0:
        return
    bounds = np.flatnonzero(np.diff(depth[order])) + 1
    for layer in np.split(order, bounds):
        yield G.labels(layer)


# --- shortest path lengths -----------------------------------------------------------------
def _by_distance(G, distance, reached):
    """``{label: distance}`` of the reached vertices, nearest first (ties in node order)."""
    ids = np.flatnonzero(reached)
    ids = ids[np.argsort(distance[ids], kind="stable")]
    return dict(zip(G.labels(ids), distance[ids].tolist()))


def _hops(G, source):
    return library_bfs.run(_graph(G), G.index[source]).to_numpy("depth")


def single_source_shortest_path_length(G, source, cutoff=None):
    """``networkx.single_source_shortest_path_length`` (library BFS on the device).

    Raises
    ------
    networkx.NodeNotFound
        If ``source`` is not in ``G``.
    """
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    depth = _hops(G, source).astype(np.int64)
    reached = depth >= 0
    if cutoff is not None:
        reached &= depth <= cutoff
    return _by_distance(G, depth, reached)


def _distances(G, source):
    graph = _graph(G, weighted=True)
    distance = library_sssp.run(graph, G.index[source]).to_numpy("distance")
    reached = np.isfinite(distance)
    if G.weights is None or np.issubdtype(G.weights.dtype, np.integer):
        distance = np.where(reached, distance, 0).astype(np.int64)
    return distance, reached


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """``networkx.single_source_dijkstra_path_length`` (library SSSP on the device).

    Raises
    ------
    networkx.NodeNotFound
        If ``source`` is not in ``G``.
    gpugraph.InvalidWeightError
        (a ``ValueError``) if a weight is negative or NaN.
    """
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    distance, reached = _distances(G, source)
    if cutoff is not None:
        reached &= distance <= cutoff
    return _by_distance(G, distance, reached)


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """``networkx.shortest_path_length`` from one ``source`` (``can_run`` refuses the rest).

    Raises
    ------
    ValueError
        For an unknown ``method``.
    networkx.NodeNotFound
        If ``source`` or ``target`` is not in ``G``.
    networkx.NetworkXNoPath
        If ``target`` cannot be reached.
    """
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    if weight is None:
        if target is None:
            return single_source_shortest_path_length(G, source)
        for role, node in (("Source", source), ("Target", target)):
            if node not in G:
                raise nx.NodeNotFound(f"{role} {node} is not in G")
        depth = int(_hops(G, source)[G.index[target]])
        if depth < 0:
            raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
        return depth
    if target is None:
        return single_source_dijkstra_path_length(G, source, weight=weight)
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if target not in G:
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    distance, reached = _distances(G, source)
    if not reached[G.index[target]]:
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return distance[G.index[target]].item()


# --- components ----------------------------------------------------------------------------
def _component_sets(G, labels):
    """Sets of node labels per component, in the order NetworkX finds them (by first node).

    The library labels each component with its smallest vertex id, which is its first node, so
    sorting by label orders the components as NetworkX does.
    """
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    members = G.labels(order)
    starts, ends = [0, *bounds.tolist()], [*bounds.tolist(), len(members)]
    for first in range(0, len(starts), NX_SETS_PER_BATCH):
        spans = zip(starts[first:first + NX_SETS_PER_BATCH], ends[first:first + NX_SETS_PER_BATCH])
        yield from _without_collector(lambda: [set(members[start:end]) for start, end in spans])


def _without_collector(build):
    """``build()`` with Python's cyclic garbage collector paused (see ``config.NX_SETS_PER_BATCH``);
    the collector's state is restored before returning."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return build()
    finally:
        if was_enabled:
            gc.enable()


def _component_labels(G, module):
    return to_numpy(module.run(_graph(G)).values["component"])


def connected_components(G):
    """``networkx.connected_components``: a generator of node sets (library WCC)."""
    if len(G):
        yield from _component_sets(G, _component_labels(G, library_wcc))


def number_connected_components(G):
    """``networkx.number_connected_components``."""
    return int(np.unique(_component_labels(G, library_wcc)).size) if len(G) else 0


def weakly_connected_components(G):
    """``networkx.weakly_connected_components``: a generator of node sets (library WCC)."""
    if len(G):
        yield from _component_sets(G, _component_labels(G, library_wcc))


def number_weakly_connected_components(G):
    """``networkx.number_weakly_connected_components``."""
    return number_connected_components(G)


def strongly_connected_components(G):
    """``networkx.strongly_connected_components``: a generator of node sets (library SCC).

    NetworkX yields them in Tarjan's completion order; these come in order of their first node.
    """
    if len(G):
        yield from _component_sets(G, _component_labels(G, library_scc))


def number_strongly_connected_components(G):
    """``networkx.number_strongly_connected_components``."""
    return int(np.unique(_component_labels(G, library_scc)).size) if len(G) else 0


# --- cores, triangles, clustering, betweenness -------------------------------------------------
def core_number(G):
    """``networkx.core_number`` of an undirected graph (library k-core).

    Raises
    ------
    networkx.NetworkXNotImplemented
        If ``G`` has self-loops (as NetworkX).
    """
    if G.self_loop_count():
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")
    if len(G) == 0:
        return {}
    core = library_kcore.run(_graph(G)).to_numpy("core")
    return dict(zip(G.nodes, core.tolist()))


def _per_node(G, values, nodes):
    """NetworkX's ``nodes=`` convention: one node -> its value; else ``{node: value}``."""
    if nodes in G:
        return values[G.index[nodes]]
    if nodes is None:
        return dict(zip(G.nodes, values))
    return {node: values[G.index[node]] for node in nodes if node in G}


def triangles(G, nodes=None):
    """``networkx.triangles`` (library triangle count); unknown ``nodes`` are skipped, as in NetworkX."""
    if len(G) == 0:
        return {} if nodes is None or nodes not in G else 0
    counts = library_triangles.run(_graph(G)).to_numpy("triangles").tolist()
    return _per_node(G, counts, nodes)


def clustering(G, nodes=None, weight=None):
    """``networkx.clustering`` of an undirected, unweighted graph (library LCC)."""
    if len(G) == 0:
        return {}
    coefficients = library_lcc.run(_graph(G)).to_numpy("lcc").tolist()
    return _per_node(G, coefficients, nodes)


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """``networkx.betweenness_centrality``, unweighted, exact or from ``k`` sampled sources.

    The sources are drawn exactly as NetworkX draws them (``seed.sample(list(G), k)``), so a
    seeded call gives NetworkX's numbers.
    """
    if len(G) == 0:
        return {}
    sources = None
    if k == 0:
        raise ZeroDivisionError("betweenness_centrality with k=0 sampled sources")
    if k is not None:
        sources = np.asarray([G.index[node] for node in seed.sample(list(G.nodes), k)], dtype=np.int64)
    result = library_betweenness.run(_graph(G), sources, None, 0, normalized)
    return dict(zip(G.nodes, result.to_numpy("betweenness").tolist()))


# --- communities -----------------------------------------------------------------------------
def label_propagation_communities(G):
    """``networkx.label_propagation_communities``: NetworkX's semi-synchronous algorithm
    (:mod:`gpugraph.nx._label_propagation`), so the same communities; a ``dict_values`` of sets."""
    rows = np.repeat(np.arange(len(G), dtype=np.int64), np.diff(G.indptr))
    loops = np.bincount(rows[rows == G.indices], minlength=len(G))
    labels = label_propagation(G.indptr, G.indices, np.diff(G.indptr) + loops)
    communities = {}
    for node, label in zip(G.nodes, labels.tolist()):
        communities.setdefault(label, set()).add(node)
    return communities.values()
