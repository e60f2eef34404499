"""Triangle counting against NetworkX: generated and real graphs on the CPU, tiny graphs on the
CUDA kernel under the simulator, and the kernel compiled to PTX."""

import networkx as nx
import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import triangles


def _messy(device, directed, n=40, m=200, seed=0):
    """Random arcs with parallel arcs, both directions and self-loops kept."""
    rng = np.random.default_rng(seed)
    return gg.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n, directed=directed, device=device)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_messy_graphs_match_networkx(device, directed, seed):
    graph = _messy(device, directed, seed=seed)
    assert graph.self_loop_count() > 0
    result = triangles.run(graph)
    assert result.to_numpy("triangles").dtype == np.int64
    triangles.verify(graph, result)


@pytest.mark.parametrize(
    "make",
    [
        lambda: gg.gnm(300, 3000, seed=1, directed=False, device="cpu"),
        lambda: gg.gnm(300, 3000, seed=2, directed=True, self_loops=True, device="cpu"),
        lambda: gg.rmat(9, 8, seed=3, device="cpu"),
        lambda: gg.grid(12, 9, diagonal=True, device="cpu"),
        lambda: gg.grid(12, 9, device="cpu"),
    ],
    ids=["gnm-undirected", "gnm-directed", "rmat-9", "grid-diagonal", "grid"],
)
def test_generated_graphs_match_networkx(make):
    graph = make()
    result = triangles.run(graph)
    triangles.verify(graph, result)


def test_grid_without_diagonals_has_no_triangles():
    assert triangles.run(gg.grid(7, 5, device="cpu")).stats["total"] == 0


@pytest.mark.parametrize(
    "name",
    ["karate.mtx", "power.graph", "polblogs.graph", "PGPgiantcompo.graph", "wiki-Vote.txt.gz",
     "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx"],
)
def test_datasets_match_networkx(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    triangles.verify(graph, triangles.run(graph))


def test_published_totals(dataset):
    # Zachary's karate club has 45 triangles; SNAP lists 608,389 for wiki-Vote.
    assert triangles.run(gg.load(dataset("karate.mtx"), device="cpu")).stats["total"] == 45
    assert triangles.run(gg.load(dataset("wiki-Vote.txt.gz"), device="cpu")).stats["total"] == 608389


def test_small_cases(device):
    # A 4-clique with a pendant vertex, given in both directions and with a parallel arc.
    src = [0, 0, 0, 1, 1, 2, 3, 1, 0]
    dst = [1, 2, 3, 2, 3, 3, 4, 0, 1]
    graph = gg.from_edges(src, dst, num_vertices=6, directed=True, device=device)
    result = triangles.run(graph)
    assert result.to_numpy("triangles").tolist() == [3, 3, 3, 3, 0, 0]
    assert result.stats["total"] == 4
    lonely = gg.from_edges([0], [0], num_vertices=1, device=device)
    assert triangles.run(lonely).to_numpy("triangles").tolist() == [0]


def test_matches_nx_on_karate_by_original_id(dataset):
    graph = gg.load(dataset("karate.mtx"), device="cpu")
    reference = nx.triangles(nx.Graph(list(zip(*[a.tolist() for a in graph.edges()[:2]]))))
    counts = triangles.run(graph).by_original_id("triangles")
    assert counts == {graph.to_original(np.array([v]))[0]: c for v, c in reference.items()}


def test_empty_graph_raises():
    with pytest.raises(gg.EmptyGraphError):
        triangles.run(gg.from_edges(np.array([], int), np.array([], int), device="cpu"))


def test_verify_catches_a_wrong_count():
    graph = _messy("cpu", False)
    result = triangles.run(graph)
    result.values["triangles"] = result.to_numpy("triangles") + 1
    with pytest.raises(AssertionError):
        triangles.verify(graph, result)


def test_cuda_kernel_compiles_to_ptx(ptx_of, captured_launches, fake_cuda_graph):
    triangles.run(fake_cuda_graph(directed=False, m=200))
    assert captured_launches
    for kernel, args in captured_launches:
        assert ".target sm_90" in ptx_of(kernel, args)
