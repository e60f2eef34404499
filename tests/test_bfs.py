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
