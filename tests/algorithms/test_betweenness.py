"""Betweenness centrality against NetworkX: exact and sampled, generated and real graphs on the
CPU, tiny graphs on the CUDA kernels under the simulator, and the kernels as PTX."""

import random

import networkx as nx
import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import betweenness


def _messy(device, directed, n=30, m=90, seed=0):
    """Random arcs with parallel arcs, both directions and self-loops kept."""
    rng = np.random.default_rng(seed)
    return gg.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n, directed=directed, device=device)


def _simple_networkx(graph):
    simple = nx.DiGraph() if graph.directed else nx.Graph()
    simple.add_nodes_from(range(graph.num_vertices))
    src, dst, _ = graph.edges()
    simple.add_edges_from(zip(np.asarray(src).tolist(), np.asarray(dst).tolist()))
    simple.remove_edges_from(nx.selfloop_edges(simple))
    return simple


@pytest.mark.parametrize("directed", [True, False])
def test_exact_matches_networkx(device, directed):
    # Small: under the simulator every source costs two launches per BFS level.
    graph = _messy(device, directed, n=16, m=40, seed=int(directed))
    result = betweenness.run(graph, normalized=directed)
    assert result.to_numpy("betweenness").dtype == np.float64
    assert result.stats["sources"] == graph.num_vertices
    betweenness.verify(graph, result)


@pytest.mark.parametrize("directed", [True, False])
def test_sources_match_networkx_subsets(device, directed):
    graph = _messy(device, directed, seed=5)
    betweenness.verify(graph, betweenness.run(graph, sources=[3, 0, 17], normalized=not directed))


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("k", [1, 4, 20])
def test_sampling_matches_networkx_k(directed, k):
    # NetworkX draws its k sources with Python's random; replaying that draw through `sources`
    # must give NetworkX's estimate, scaling included.
    graph = _messy("cpu", directed, n=50, m=160, seed=k)
    simple = _simple_networkx(graph)
    for normalized in (True, False):
        reference = nx.betweenness_centrality(simple, k=k, normalized=normalized, seed=7)
        drawn = random.Random(7).sample(list(simple), k)
        got = betweenness.run(graph, sources=drawn, normalized=normalized).to_numpy("betweenness")
        expected = np.array([reference[v] for v in range(graph.num_vertices)])
        assert np.allclose(got, expected, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_samples_draw_from_the_seed():
    graph = _messy("cpu", True, n=50, m=200)
    sampled = betweenness.run(graph, samples=10, seed=3)
    drawn = sampled.parameters["sources"]
    assert np.array_equal(drawn, np.random.default_rng(3).choice(50, 10, replace=False))
    again = betweenness.run(graph, sources=drawn)
    assert np.array_equal(sampled.to_numpy("betweenness"), again.to_numpy("betweenness"))
    betweenness.verify(graph, sampled)
    exact = betweenness.run(graph)
    assert np.array_equal(betweenness.run(graph, samples=50).to_numpy("betweenness"), exact.to_numpy("betweenness"))
    assert exact.parameters["sources"] is None


@pytest.mark.parametrize(
    "make",
    [
        lambda: gg.gnm(120, 400, seed=1, directed=False, device="cpu"),
        lambda: gg.gnm(120, 400, seed=2, directed=True, self_loops=True, device="cpu"),
        lambda: gg.rmat(7, 6, seed=3, device="cpu"),
        lambda: gg.grid(9, 8, device="cpu"),
    ],
    ids=["gnm-undirected", "gnm-directed", "rmat-7", "grid"],
)
def test_generated_graphs_match_networkx(make):
    graph = make()
    betweenness.verify(graph, betweenness.run(graph))


@pytest.mark.parametrize("name", ["karate.mtx", "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx"])
def test_small_datasets_exact(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    for normalized in (True, False):
        betweenness.verify(graph, betweenness.run(graph, normalized=normalized))


@pytest.mark.parametrize("name", ["power.graph", "polblogs.graph", "wiki-Vote.txt.gz"])
def test_larger_datasets_sampled(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    betweenness.verify(graph, betweenness.run(graph, samples=24, seed=1))


def test_karate_known_value(dataset):
    # Zachary's club: vertex 1 (the instructor) has normalized betweenness 0.4376 (NetworkX docs).
    graph = gg.load(dataset("karate.mtx"), device="cpu")
    values = betweenness.run(graph).by_original_id("betweenness")
    assert values[1] == pytest.approx(0.43763528, rel=1e-6)


def test_path_graph(device):
    # 0 - 1 - 2 - 3 undirected with a parallel edge and a self-loop: pairs through 1 are
    # (0,2), (0,3): unnormalized 2; normalized 2 / ((n - 1)(n - 2) / 2) = 2 / 3.
    graph = gg.from_edges([0, 1, 2, 1, 2], [1, 2, 3, 2, 2], num_vertices=4, directed=False, device=device)
    assert betweenness.run(graph, normalized=False).to_numpy("betweenness").tolist() == [0.0, 2.0, 2.0, 0.0]
    assert np.allclose(betweenness.run(graph).to_numpy("betweenness"), [0, 2 / 3, 2 / 3, 0])
    tiny = gg.from_edges([0], [1], num_vertices=2, device=device)
    assert betweenness.run(tiny).to_numpy("betweenness").tolist() == [0.0, 0.0]


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("normalized", [True, False])
def test_exact_messy_graphs_on_the_cpu(directed, normalized):
    graph = _messy("cpu", directed, n=60, m=200, seed=int(directed) + 2 * int(normalized))
    betweenness.verify(graph, betweenness.run(graph, normalized=normalized))


def test_bad_parameters():
    graph = _messy("cpu", True)
    for samples in (0, 31, 2.5, True):
        with pytest.raises(gg.InvalidParameterError):
            betweenness.run(graph, samples=samples)
    with pytest.raises(gg.InvalidParameterError):
        betweenness.run(graph, sources=[1], samples=2)
    with pytest.raises(gg.InvalidParameterError):
        betweenness.run(graph, sources=[1, 1])
    with pytest.raises(gg.InvalidParameterError):
        betweenness.run(graph, sources=[])
    with pytest.raises(gg.VertexIdError):
        betweenness.run(graph, sources=[30])
    with pytest.raises(gg.EmptyGraphError):
        betweenness.run(gg.from_edges(np.array([], int), np.array([], int), device="cpu"))


def test_verify_catches_a_wrong_value():
    graph = _messy("cpu", False)
    result = betweenness.run(graph)
    result.values["betweenness"] = result.to_numpy("betweenness") * 1.01
    with pytest.raises(AssertionError):
        betweenness.verify(graph, result)


def test_cuda_kernels_compile_to_ptx(ptx_of, captured_launches, fake_cuda_graph):
    graph = fake_cuda_graph(directed=True)
    # Launches are captured, not run, so the driver sees one level per source; the backward
    # kernel is reached by running a source of a real level structure below.
    betweenness.run(graph, sources=[0])
    kernels = {kernel.py_func.__name__: (kernel, args) for kernel, args in captured_launches}
    assert "expand_level" in kernels
    from gpugraph.algorithms import _betweenness_cuda

    kernel, args = kernels["expand_level"]
    indptr, indices, order, begin, end, depth, sigma, _ = args
    delta = np.zeros_like(sigma)
    backward_args = (indptr, indices, order, begin, end, depth, sigma, delta, np.zeros_like(sigma))
    for compiled, compile_args in ((kernel, args), (_betweenness_cuda.accumulate_level, backward_args)):
        assert ".target sm_90" in ptx_of(compiled, compile_args)
