"""gpugraph as a NetworkX backend: ``nx.pagerank(G, backend="gpugraph")``.

Installing gpugraph registers the backend through the ``networkx.backends`` and
``networkx.backend_info`` entry points. Call a function with ``backend="gpugraph"``, or make
gpugraph the first choice for every supported call::

    import networkx as nx
    nx.config.backend_priority = ["gpugraph"]     # unsupported calls still run in NetworkX
    nx.config.backends.gpugraph.device = "cpu"    # default None: a GPU when one is usable

The converted graph is cached on ``G.__networkx_cache__`` by NetworkX (emptied when ``G`` is
changed through its methods), so a second call on the same graph converts nothing. The functions
and their limits are listed in :data:`FUNCTIONS` and in ``docs/guide/networkx.md``.
"""

from __future__ import annotations

from gpugraph.nx.graph import BACKEND_NAME, BackendGraph, from_networkx, to_networkx

# NetworkX function name -> what the backend does not support (None: everything NetworkX does).
FUNCTIONS = {
    "betweenness_centrality": "weight and endpoints=True are not supported",
    "bfs_edges": "sort_neighbors and reverse=True on directed graphs are not supported",
    "bfs_layers": None,
    "bfs_predecessors": "sort_neighbors is not supported",
    "bfs_successors": "sort_neighbors is not supported",
    "bfs_tree": "sort_neighbors and reverse=True on directed graphs are not supported",
    "clustering": "directed graphs, multigraphs and weight are not supported",
    "connected_components": None,
    "core_number": "directed graphs are not supported (NetworkX counts in- plus out-degree)",
    "label_propagation_communities": "multigraphs are not supported",
    "number_connected_components": None,
    "number_strongly_connected_components": None,
    "number_weakly_connected_components": None,
    "pagerank": "nstart and dangling are not supported",
    "shortest_path_length": "source=None, a weight function and method='bellman-ford' are not supported",
    "single_source_dijkstra_path_length": "a weight function is not supported",
    "single_source_shortest_path_length": None,
    "strongly_connected_components": "components come in order of their first node, not Tarjan's order",
    "triangles": "multigraphs are not supported",
    "weakly_connected_components": None,
}


def get_info() -> dict:
    """What NetworkX shows about this backend (the ``networkx.backend_info`` entry point).

    Returns
    -------
    dict
        Backend name, project, summary, default configuration and per-function notes.
    """
    return {
        "backend_name": BACKEND_NAME,
        "project": "gpugraph",
        "package": "gpugraph",
        "url": "https://github.com/gpugraph/gpugraph",
        "short_summary": "Graph algorithms on GPUs with a fast multi-core CPU fallback.",
        "default_config": {"device": None},
        "functions": {
            name: {"additional_docs": limits} if limits else {}
            for name, limits in FUNCTIONS.items()
        },
    }


__all__ = ["BACKEND_NAME", "BackendGraph", "FUNCTIONS", "from_networkx", "get_info", "to_networkx"]
