"""The NetworkX backend gives NetworkX's answers on the real datasets (skipped when absent)."""

import networkx as nx
import numpy as np
import pytest

import gpugraph as gg
from gpugraph.backend import to_numpy

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs")]

# name -> whether betweenness (k sampled sources) and the all-node functions are cheap enough for NetworkX
DATASETS = {
    "karate.mtx": True, "ldbc-directed-example.mtx": True, "ldbc-undirected-example.mtx": True,
    "lp_afiro.mtx": True, "power.graph": True, "polblogs.graph": True, "PGPgiantcompo.graph": True,
    "wiki-Vote.txt.gz": True, "soc-Slashdot0902.txt.gz": False, "USA-road-d.NY.gr.gz": False,
    "pace-FLA.gr.xz": False, "cnr-2000.txt.gz": False, "pushpull.mtx": True,
}


def _networkx_graph(path):
    """The NetworkX graph a user would build from the file (original ids, "weight" attributes)."""
    graph = gg.load(path, device="cpu")
    src, dst, weights = (to_numpy(a) if a is not None else None for a in graph.edges())
    src, dst = graph.to_original(src).tolist(), graph.to_original(dst).tolist()
    G = nx.DiGraph() if graph.directed else nx.Graph()
    G.add_nodes_from(graph.to_original(np.arange(graph.num_vertices)).tolist())
    if weights is None:
        G.add_edges_from(zip(src, dst))
    else:
        G.add_weighted_edges_from(zip(src, dst, weights.tolist()))
    return G


def _close(got, expected, tol):
    assert got.keys() == expected.keys()
    worst = max((abs(got[k] - expected[k]) for k in expected), default=0.0)
    assert worst <= tol, worst


def _components(result):
    return sorted(sorted(component) for component in result)


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_dataset_answers_equal_networkx(dataset, name):
    G = _networkx_graph(dataset(name))
    source = max(G, key=G.degree)
    if nx.is_negatively_weighted(G):
        with pytest.raises(NotImplementedError):
            nx.pagerank(G, backend="gpugraph")
    else:
        _close(nx.pagerank(G, backend="gpugraph"), nx.pagerank(G), 1e-6)
    assert list(nx.bfs_layers(G, source, backend="gpugraph")) == list(nx.bfs_layers(G, source))
    assert (nx.single_source_shortest_path_length(G, source, backend="gpugraph")
            == nx.single_source_shortest_path_length(G, source))
    if nx.is_weighted(G) and min(w for _, _, w in G.edges(data="weight")) >= 0:
        _close(nx.single_source_dijkstra_path_length(G, source, backend="gpugraph"),
               nx.single_source_dijkstra_path_length(G, source), 1e-9)
    if DATASETS[name]:
        _close(nx.betweenness_centrality(G, k=min(len(G), 20), seed=1, backend="gpugraph"),
               nx.betweenness_centrality(G, k=min(len(G), 20), seed=1), 1e-9)
    if G.is_directed():
        for function in (nx.weakly_connected_components, nx.strongly_connected_components):
            assert _components(function(G, backend="gpugraph")) == _components(function(G))
        return
    assert _components(nx.connected_components(G, backend="gpugraph")) == _components(nx.connected_components(G))
    if nx.number_of_selfloops(G) == 0:
        assert nx.core_number(G, backend="gpugraph") == nx.core_number(G)
    assert nx.triangles(G, backend="gpugraph") == nx.triangles(G)
    _close(nx.clustering(G, backend="gpugraph"), nx.clustering(G), 1e-12)
    if DATASETS[name]:
        lpa = nx.community.label_propagation_communities
        assert list(lpa(G, backend="gpugraph")) == list(lpa(G))
