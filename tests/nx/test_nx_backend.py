"""The NetworkX backend: registration, answers equal NetworkX's, caching, refusals, errors."""

import gc
import math
import random

import networkx as nx
import pytest

from gpugraph.errors import InvalidWeightError
from gpugraph.nx import FUNCTIONS, get_info
from gpugraph.nx.graph import BackendGraph
from gpugraph.nx.interface import BackendInterface

pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs")


def _directed():
    G = nx.gnp_random_graph(120, 0.04, directed=True, seed=7)
    G.add_nodes_from([500, 501])  # isolated, out of order
    return G


def _undirected():
    G = nx.relabel_nodes(nx.gnp_random_graph(150, 0.05, seed=3), {i: f"v{i}" for i in range(150)})
    G.add_edges_from([("a", "b"), ("b", "c"), ("c", "a"), ("z", "z2")])
    return G


def _weighted():
    G = nx.gnp_random_graph(100, 0.06, directed=True, seed=11)
    rng = random.Random(5)
    for u, v in G.edges:
        G[u][v]["weight"] = rng.randint(1, 9)
    return G


def _same(a, b, tol=1e-9):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], tol) for k in a)
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=tol, abs_tol=tol)
    return a == b


def _components(result):
    return sorted(sorted(map(str, component)) for component in result)


CALLS = [
    ("pagerank", _directed, {}),
    ("pagerank", _undirected, {"alpha": 0.9}),
    ("pagerank", _weighted, {}),
    ("pagerank", _directed, {"personalization": {0: 1, 3: 2}}),
    ("bfs_edges", _directed, {"source": 0}),
    ("bfs_edges", _undirected, {"source": "v0", "depth_limit": 2}),
    ("bfs_layers", _directed, {"sources": [0, 1, 2]}),
    ("bfs_layers", _undirected, {"sources": "v3"}),
    ("bfs_predecessors", _directed, {"source": 0}),
    ("bfs_successors", _undirected, {"source": "v0"}),
    ("single_source_shortest_path_length", _directed, {"source": 0}),
    ("single_source_shortest_path_length", _undirected, {"source": "v0", "cutoff": 2}),
    ("shortest_path_length", _directed, {"source": 0}),
    ("shortest_path_length", _directed, {"source": 0, "target": 5}),
    ("shortest_path_length", _weighted, {"source": 0, "weight": "weight"}),
    ("shortest_path_length", _weighted, {"source": 0, "target": 9, "weight": "weight"}),
    ("single_source_dijkstra_path_length", _weighted, {"source": 0}),
    ("single_source_dijkstra_path_length", _weighted, {"source": 0, "cutoff": 6}),
    ("core_number", _undirected, {}),
    ("triangles", _undirected, {}),
    ("triangles", _undirected, {"nodes": "v1"}),
    ("clustering", _undirected, {}),
    ("clustering", _undirected, {"nodes": ["v1", "v2", "missing"]}),
    ("betweenness_centrality", _directed, {}),
    ("betweenness_centrality", _undirected, {"normalized": False}),
    ("number_connected_components", _undirected, {}),
    ("number_weakly_connected_components", _directed, {}),
    ("number_strongly_connected_components", _directed, {}),
]


@pytest.mark.parametrize("name,make,kwargs", CALLS, ids=[f"{c[0]}-{c[1].__name__}-{i}" for i, c in enumerate(CALLS)])
def test_answers_equal_networkx(name, make, kwargs):
    G = make()
    function = getattr(nx, name)
    got = function(G, backend="gpugraph", **kwargs)
    expected = function(G, **kwargs)
    if not isinstance(got, (dict, int, float)):
        got, expected = list(got), list(expected)
    assert _same(got, expected, tol=1e-6 if name == "pagerank" else 1e-9)


@pytest.mark.parametrize("name,make", [("connected_components", _undirected),
                                        ("weakly_connected_components", _directed),
                                        ("strongly_connected_components", _directed)])
def test_components_equal_networkx(name, make):
    G = make()
    function = getattr(nx, name)
    assert _components(function(G, backend="gpugraph")) == _components(function(G))


def test_components_built_in_batches_keep_networkx_order(monkeypatch):
    monkeypatch.setattr("gpugraph.nx.functions.NX_SETS_PER_BATCH", 3)
    G = _directed()
    assert list(nx.weakly_connected_components(G, backend="gpugraph")) == list(nx.weakly_connected_components(G))
    assert gc.isenabled()


def test_sampled_betweenness_draws_networkx_sources():
    G = _undirected()
    got = nx.betweenness_centrality(G, k=10, seed=42, backend="gpugraph")
    assert _same(got, nx.betweenness_centrality(G, k=10, seed=42))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_label_propagation_gives_networkx_communities_in_order(seed):
    G = nx.relabel_nodes(nx.barabasi_albert_graph(400, 2, seed=seed), lambda v: f"n{v}")
    G.add_edges_from([("n3", "n3"), ("x", "y")])
    G.add_node("alone")
    lpa = nx.community.label_propagation_communities
    assert list(lpa(G, backend="gpugraph")) == list(lpa(G))
    assert list(lpa(nx.karate_club_graph(), backend="gpugraph")) == list(lpa(nx.karate_club_graph()))


def test_bfs_tree_and_multigraph():
    G = nx.MultiDiGraph([(0, 1), (0, 1), (1, 2), (2, 0), (2, 3)])
    tree = nx.bfs_tree(G, 0, backend="gpugraph")
    assert isinstance(tree, nx.DiGraph) and list(tree.edges) == list(nx.bfs_tree(G, 0).edges)
    assert _same(nx.pagerank(G, backend="gpugraph"), nx.pagerank(G), 1e-6)


def test_backend_is_registered():
    assert "gpugraph" in nx.utils.backends.backends
    info = get_info()
    assert info["backend_name"] == "gpugraph" and set(info["functions"]) == set(FUNCTIONS)
    assert nx.config.backends.gpugraph.device is None


def test_conversion_is_cached_until_the_graph_changes():
    G = _directed()
    nx.pagerank(G, backend="gpugraph")
    cache = G.__networkx_cache__["backends"]["gpugraph"]
    (converted,) = cache.values()
    assert isinstance(converted, BackendGraph)
    nx.pagerank(G, backend="gpugraph")
    nx.weakly_connected_components(G, backend="gpugraph")
    assert list(cache.values()) == [converted]  # reused, not converted again
    library_graph = converted.library_graph("cpu")
    assert converted.library_graph("cpu") is library_graph
    G.add_edge(0, 999)
    assert not G.__networkx_cache__
    assert 999 in nx.pagerank(G, backend="gpugraph")


def test_round_trip_to_networkx():
    for G in (_directed(), _undirected(), _weighted(), nx.MultiGraph([(0, 1), (0, 1), (1, 1)])):
        converted = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1} if G is not None else None)
        back = BackendInterface.convert_to_nx(converted)
        assert type(back) is type(G)
        assert list(back.nodes) == list(G.nodes)
        assert sorted(map(repr, back.edges)) == sorted(map(repr, G.edges))


def test_unsupported_arguments_are_refused_not_answered():
    G = _directed()
    with pytest.raises(NotImplementedError, match="not implemented by 'gpugraph'"):
        nx.pagerank(G, nstart={0: 1.0}, backend="gpugraph")
    assert "nstart" in BackendInterface.can_run("pagerank", (G,), {"nstart": {0: 1.0}})
    assert "reverse" in BackendInterface.can_run("bfs_edges", (G, 0), {"reverse": True})
    assert "directed" in BackendInterface.can_run("core_number", (G,), {})
    assert BackendInterface.can_run("all_pairs_shortest_path", (G,), {}) is False
    with nx.config(backend_priority=["gpugraph"]):  # unsupported calls fall back to NetworkX
        assert nx.pagerank(G, nstart={0: 1.0}) == nx.pagerank(G, nstart={0: 1.0}, backend="networkx")


def test_networkx_exceptions():
    G = _weighted()
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(G, -5, backend="gpugraph")
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_dijkstra_path_length(G, -5, backend="gpugraph")
    with pytest.raises(nx.NetworkXNoPath):
        nx.shortest_path_length(nx.DiGraph([(0, 1), (2, 3)]), 0, 3, backend="gpugraph")
    with pytest.raises(nx.NetworkXError):
        list(nx.bfs_edges(G, -5, backend="gpugraph"))
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=1, backend="gpugraph")
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(G, personalization={0: 0}, backend="gpugraph")
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.core_number(nx.Graph([(0, 0), (0, 1)]), backend="gpugraph")
    G.add_edge(0, next(iter(G[0])), weight=-1)  # through a method, so NetworkX empties the cache
    with pytest.raises(InvalidWeightError):
        nx.single_source_dijkstra_path_length(G, 0, backend="gpugraph")
    with pytest.raises(ValueError, match="method"):
        nx.shortest_path_length(G, 0, method="astar", backend="gpugraph")


def test_empty_graphs():
    for kind in (nx.Graph, nx.DiGraph):
        G = kind()
        assert nx.pagerank(G, backend="gpugraph") == {}
        assert nx.betweenness_centrality(G, backend="gpugraph") == {}
    assert list(nx.connected_components(nx.Graph(), backend="gpugraph")) == []
    assert nx.number_strongly_connected_components(nx.DiGraph(), backend="gpugraph") == 0
    assert nx.core_number(nx.Graph(), backend="gpugraph") == {}
    assert nx.triangles(nx.Graph(), backend="gpugraph") == {}


def test_results_are_python_numbers():
    G = _undirected()
    for value in (*nx.pagerank(G, backend="gpugraph").values(), *nx.core_number(G, backend="gpugraph").values(),
                  *nx.single_source_shortest_path_length(G, "v0", backend="gpugraph").values()):
        assert type(value) in (int, float)


@pytest.mark.parametrize("kind", [nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph])
def test_converted_edge_count_equals_networkx(kind):
    G = kind([(0, 1), (1, 2), (2, 2), (3, 3), (0, 1), (4, 0)])
    G.add_node(9)
    converted = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert converted.number_of_edges() == G.number_of_edges()
    assert converted.weights.tolist() == [1] * len(converted.indices)
