"""PageRank: NetworkX's results (plain and personalised), LDBC fixed iterations, both
variants, CPU and CUDA kernels (simulator), every dataset."""

import networkx as nx
import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import pagerank
from gpugraph.backend import to_numpy
from gpugraph.errors import EmptyGraphError, InvalidParameterError, VertexIdError


def _networkx(graph):
    """The multigraph of the arcs, as NetworkX PageRank counts parallel arcs."""
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    multigraph = nx.MultiDiGraph()
    multigraph.add_nodes_from(range(graph.num_vertices))
    multigraph.add_edges_from(zip(np.repeat(np.arange(graph.num_vertices), np.diff(indptr)).tolist(), indices.tolist()))
    return multigraph


def _as_array(ranks, n):
    return np.array([ranks[v] for v in range(n)])


@pytest.mark.parametrize("variant", ["pull", "push"])
def test_matches_networkx(device, variant):
    n = 40 if device == "cuda" else 300
    graph = gg.gnm(n, 6 * n, seed=2, device=device)  # directed, parallel arcs and sinks
    result = pagerank.run(graph, variant=variant, tol=1e-8)
    expected = _as_array(nx.pagerank(_networkx(graph), tol=1e-12, max_iter=1000), n)
    assert np.abs(result.to_numpy("rank") - expected).sum() < 1e-5
    assert result.stats["converged"]
    pagerank.verify(graph, result)


def test_personalised_matches_networkx(device):
    graph = gg.gnm(40, 200, seed=4, device=device)
    weights = {int(graph.to_original([v])[0]): float(v % 3) for v in range(10)}
    result = pagerank.run(graph, personalization=weights, tol=1e-9)
    expected = _as_array(nx.pagerank(_networkx(graph), personalization={v: weights.get(v, 0) for v in range(40)}, tol=1e-12, max_iter=1000), 40)
    assert np.abs(result.to_numpy("rank") - expected).sum() < 1e-6
    pagerank.verify(graph, result)


def test_fixed_iterations_follow_the_ldbc_definition(dataset):
    graph = gg.load(dataset("ldbc-directed-example.mtx"), device="cpu")
    result = pagerank.run(graph, damping=0.85, iterations=2)
    n = graph.num_vertices
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    degree = np.diff(indptr)
    rank = np.full(n, 1.0 / n)
    for _ in range(2):  # Graphalytics: (1-d)/|V| + d * (sum in-neighbour rank / out-degree + dangling / |V|)
        new = np.full(n, (1 - 0.85) / n) + 0.85 * rank[degree == 0].sum() / n
        for u in range(n):
            for v in indices[indptr[u]:indptr[u + 1]]:
                new[v] += 0.85 * rank[u] / degree[u]
        rank = new
    assert np.allclose(result.to_numpy("rank"), rank, rtol=1e-12)
    assert result.stats["rounds"] == 2


@pytest.mark.parametrize(
    "name", ["karate.mtx", "wiki-Vote.txt.gz", "soc-Slashdot0902.txt.gz", "cnr-2000.txt.gz", "USA-road-d.NY.gr.gz",
             "pace-FLA.gr.xz", "power.graph", "polblogs.graph", "PGPgiantcompo.graph", "pushpull.mtx", "lp_afiro.mtx",
             "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx"],
)
def test_datasets(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    for variant in ("pull", "push"):
        pagerank.verify(graph, pagerank.run(graph, variant=variant))


def test_rejects_bad_parameters():
    graph = gg.gnm(10, 20, seed=1, device="cpu")
    with pytest.raises(InvalidParameterError, match="damping"):
        pagerank.run(graph, damping=1.0)
    with pytest.raises(InvalidParameterError, match="variant"):
        pagerank.run(graph, variant="magic")
    with pytest.raises(InvalidParameterError, match="pull"):
        pagerank.run(graph, variant="push", iterations=3)
    with pytest.raises(InvalidParameterError, match="tol"):
        pagerank.run(graph, tol=0)
    with pytest.raises(InvalidParameterError, match="personalization"):
        pagerank.run(graph, personalization=np.zeros(10))
    with pytest.raises(InvalidParameterError, match="10 vertices"):
        pagerank.run(graph, personalization=np.ones(3))
    with pytest.raises(VertexIdError):
        pagerank.run(graph, personalization={99: 1.0})
    with pytest.raises(EmptyGraphError):
        pagerank.run(gg.from_edges([], [], num_vertices=0, device="cpu"))


def test_fixed_iterations_are_the_same_on_both_backends(device):
    """Every iteration, the first included, teleports the dangling rank of the one before."""
    graph = gg.gnm(40, 80, seed=2, device=device)  # three sinks
    expected = pagerank.run(graph.to("cpu"), iterations=3).to_numpy("rank")
    assert np.allclose(pagerank.run(graph, iterations=3).to_numpy("rank"), expected, rtol=1e-12, atol=0)


def test_cpu_kernel_runs_exact_iteration_counts_from_the_uniform_vector():
    # The CPU pull runs every iteration in one compiled call; zero iterations leave the start.
    graph = gg.gnm(50, 200, seed=1, directed=True, device="cpu")
    untouched = pagerank.run(graph, iterations=0)
    assert untouched.stats["rounds"] == 0 and np.allclose(untouched.to_numpy("rank"), 1 / 50)
    three = pagerank.run(graph, iterations=3)
    assert three.stats["rounds"] == 3 and three.stats["edges_traversed"] == 3 * graph.num_arcs
    assert np.isclose(three.to_numpy("rank").sum(), 1.0)
