"""The CPU BFS kernel against the Graph500 rules and SciPy."""

import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import bfs


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_bfs_matches_reference(directed, seed):
    rng = np.random.default_rng(seed)
    n, m = 500, 1500
    graph = gg.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n, directed=directed, device="cpu")
    result = bfs.run(graph, int(rng.integers(0, n)))
    bfs.verify(graph, result)
    assert result.stats["edges_traversed"] <= graph.num_arcs


def test_bfs_unreachable_and_by_original_id():
    graph = gg.from_edges([10, 20], [20, 30], [1, 1], num_vertices=None, device="cpu")
    graph_isolated = gg.from_edges([0], [1], num_vertices=3, device="cpu")
    result = bfs.run(graph_isolated, 0)
    assert result.to_numpy("depth").tolist() == [0, 1, -1]
    assert result.to_numpy("parent").tolist() == [0, 0, -1]
    assert bfs.run(graph, 0).by_original_id("depth") == {10: 0, 20: 1, 30: 2}


def test_bfs_errors():
    with pytest.raises(gg.EmptyGraphError):
        bfs.run(gg.from_edges(np.array([], int), np.array([], int), device="cpu"), 0)
    with pytest.raises(gg.VertexIdError):
        bfs.run(gg.from_edges([0], [1], device="cpu"), 5)


def test_verify_catches_a_wrong_tree():
    graph = gg.from_edges([0, 1, 0], [1, 2, 2], num_vertices=3, device="cpu")
    result = bfs.run(graph, 0)
    result.values["depth"] = np.array([0, 1, 2], dtype=np.int32)  # vertex 2 is really at depth 1
    with pytest.raises(AssertionError):
        bfs.verify(graph, result)


@pytest.mark.parametrize("variant", ["direction-optimizing", "top-down"])
@pytest.mark.parametrize("directed", [True, False])
def test_variants_on_both_backends(device, variant, directed):
    n = 50 if device == "cuda" else 2000
    graph = gg.gnm(n, 8 * n, seed=5, directed=directed, device=device)
    for source in (0, n // 2):
        result = bfs.run(graph, source, variant=variant)
        bfs.verify(graph, result)
        assert result.parameters["variant"] == variant


def test_direction_optimizing_goes_bottom_up_on_a_dense_frontier():
    graph = gg.rmat(12, seed=3, device="cpu")
    result = bfs.run(graph, int(np.argmax(np.diff(graph.indptr))))
    bfs.verify(graph, result)
    assert result.stats["bottom_up_rounds"] >= 1
    top_down = bfs.run(graph, int(np.argmax(np.diff(graph.indptr))), variant="top-down")
    assert np.array_equal(top_down.to_numpy("depth"), result.to_numpy("depth"))


def test_graph500_validation_for_64_roots():
    """Graph500: 64 random roots with at least one edge, each result passes the validation."""
    graph = gg.rmat(14, seed=1, device="cpu")
    rng = np.random.default_rng(500)
    candidates = np.flatnonzero(np.diff(graph.indptr) > 0)
    for source in rng.choice(candidates, 64, replace=False):
        bfs.verify(graph, bfs.run(graph, int(source)))


def test_unknown_variant():
    with pytest.raises(gg.InvalidParameterError, match="variant"):
        bfs.run(gg.from_edges([0], [1], device="cpu"), 0, variant="sideways")


def test_bfs_kernels_compile(ptx_of, captured_launches, fake_cuda_graph):
    graph = fake_cuda_graph(n=60, m=900)
    bfs.run(graph, 0)
    for kernel, args in captured_launches:
        assert ".target sm_90" in ptx_of(kernel, args)


@pytest.mark.parametrize(
    "name", ["karate.mtx", "wiki-Vote.txt.gz", "soc-Slashdot0902.txt.gz", "cnr-2000.txt.gz", "USA-road-d.NY.gr.gz",
             "pace-FLA.gr.xz", "power.graph", "polblogs.graph", "PGPgiantcompo.graph", "pushpull.mtx", "lp_afiro.mtx",
             "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx"],
)
def test_datasets_pass_graph500_rules(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    source = int(np.argmax(np.diff(graph.indptr)))
    for variant in ("direction-optimizing", "top-down"):
        bfs.verify(graph, bfs.run(graph, source, variant=variant))
