"""Local clustering coefficient against the Graphalytics definition (recounted with sets) and,
for undirected graphs, NetworkX's ``clustering``; CUDA kernel under the simulator and as PTX."""

import networkx as nx
import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import lcc


def _messy(device, directed, n=40, m=200, seed=0):
    """Random arcs with parallel arcs, both directions and self-loops kept."""
    rng = np.random.default_rng(seed)
    return gg.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n, directed=directed, device=device)


def _networkx_clustering(graph):
    src, dst, _ = graph.edges()
    simple = nx.Graph()
    simple.add_nodes_from(range(graph.num_vertices))
    simple.add_edges_from(zip(src.tolist(), dst.tolist()))
    simple.remove_edges_from(nx.selfloop_edges(simple))
    reference = nx.clustering(simple)
    return np.array([reference[v] for v in range(graph.num_vertices)])


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_messy_graphs_match_the_definition(device, directed, seed):
    graph = _messy(device, directed, seed=seed)
    result = lcc.run(graph)
    assert result.to_numpy("lcc").dtype == np.float64
    lcc.verify(graph, result)


@pytest.mark.parametrize(
    "make",
    [
        lambda: gg.gnm(300, 3000, seed=1, directed=False, device="cpu"),
        lambda: gg.gnm(300, 3000, seed=2, directed=True, self_loops=True, device="cpu"),
        lambda: gg.rmat(9, 8, seed=3, device="cpu"),
        lambda: gg.grid(12, 9, diagonal=True, device="cpu"),
    ],
    ids=["gnm-undirected", "gnm-directed", "rmat-9", "grid-diagonal"],
)
def test_generated_graphs_match_the_definition(make):
    graph = make()
    lcc.verify(graph, lcc.run(graph))


@pytest.mark.parametrize(
    "name",
    ["karate.mtx", "power.graph", "polblogs.graph", "PGPgiantcompo.graph", "wiki-Vote.txt.gz",
     "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx"],
)
def test_datasets_match_the_definition(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    lcc.verify(graph, lcc.run(graph))


@pytest.mark.parametrize("name", ["karate.mtx", "polblogs.graph", "ldbc-undirected-example.mtx"])
def test_undirected_datasets_match_networkx_clustering(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    assert np.allclose(lcc.run(graph).to_numpy("lcc"), _networkx_clustering(graph), rtol=1e-12, atol=0)


def test_undirected_messy_graph_matches_networkx_clustering():
    graph = _messy("cpu", False, n=60, m=400)
    assert np.allclose(lcc.run(graph).to_numpy("lcc"), _networkx_clustering(graph), rtol=1e-12, atol=0)


def test_ldbc_directed_example_by_hand(dataset):
    graph = gg.load(dataset("ldbc-directed-example.mtx"), device="cpu")
    values = lcc.run(graph).by_original_id("lcc")
    # Vertex 1: N = {3, 5, 8} (out 3, 5; in 3, 8); arcs among them 3->5, 3->8, 5->3, 5->8: 4 / 6.
    assert values[1] == pytest.approx(4 / 6)
    # Vertex 6 has out-neighbours 3, 4 and no arc between them.
    assert values[6] == 0.0


def test_small_cases(device):
    # Directed: N(0) = {1, 2, 3} holds arcs 1->2, 2->1: 2 / 6. N(1) = {0, 2}: 0->2, 2->0: 2 / 2.
    # N(2) = {0, 1}: only 0->1: 1 / 2. Vertex 3 (one neighbour besides its self-loop) and the
    # isolated vertex 4: 0.
    graph = gg.from_edges([0, 0, 1, 2, 2, 3, 3], [1, 2, 2, 1, 0, 0, 3], num_vertices=5, directed=True, device=device)
    assert lcc.run(graph).to_numpy("lcc").tolist() == [2 / 6, 1.0, 0.5, 0.0, 0.0]
    # Undirected triangle with a parallel edge and a self-loop: every vertex 1.
    triangle = gg.from_edges([0, 1, 2, 0, 1], [1, 2, 0, 1, 1], num_vertices=3, directed=False, device=device)
    assert lcc.run(triangle).to_numpy("lcc").tolist() == [1.0, 1.0, 1.0]


def test_empty_graph_raises():
    with pytest.raises(gg.EmptyGraphError):
        lcc.run(gg.from_edges(np.array([], int), np.array([], int), device="cpu"))


def test_verify_catches_a_wrong_value():
    graph = _messy("cpu", True)
    result = lcc.run(graph)
    result.values["lcc"] = result.to_numpy("lcc") * 0.5
    with pytest.raises(AssertionError):
        lcc.verify(graph, result)


def test_cuda_kernel_compiles_to_ptx(ptx_of, captured_launches, fake_cuda_graph):
    lcc.run(fake_cuda_graph(directed=True, m=200))
    assert captured_launches
    for kernel, args in captured_launches:
        assert ".target sm_90" in ptx_of(kernel, args)
