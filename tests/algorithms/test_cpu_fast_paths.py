"""The CPU fast paths of issue 5: the one-call BFS (``_bfs_cpu.search``) and the union-find WCC,
against SciPy and against each other, on generated graphs and the real road and social graphs.

No timings here: ``bench/cpu_anchors.py`` measures them against SciPy and igraph.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

import gpugraph as gg
from gpugraph import config
from gpugraph.algorithms import bfs, wcc


def _hops(graph, source: int) -> np.ndarray:
    """SciPy's unweighted shortest-path lengths along arcs, -1 where unreachable (the oracle)."""
    n = graph.num_vertices
    matrix = sp.csr_matrix((np.ones(graph.num_arcs), graph.indices, graph.indptr), shape=(n, n))
    hops = shortest_path(matrix, directed=True, unweighted=True, indices=source)
    return np.where(np.isinf(hops), -1, hops).astype(np.int64)


def _check_bfs(graph, source: int) -> dict:
    """Both variants from ``source``: the oracle's depths, the Graph500 rules, consistent stats.
    Returns the direction-optimizing result's stats."""
    expected = _hops(graph, source)
    reached = expected >= 0
    results = {variant: bfs.run(graph, source, variant=variant) for variant in bfs.VARIANTS}
    for variant, result in results.items():
        bfs.verify(graph, result)
        assert np.array_equal(result.to_numpy("depth"), expected), variant
        sizes = result.stats["frontier_sizes"]
        assert isinstance(sizes, list) and all(isinstance(size, int) for size in sizes)
        assert sizes[0] == 1 and sizes[-1] == 0 and len(sizes) == result.stats["rounds"] + 1
        assert sum(sizes) == int(reached.sum())
        assert sizes[:-1] == np.bincount(expected[reached]).tolist()
        assert result.stats["edges_traversed"] == int(np.diff(graph.indptr)[reached].sum())
    assert results["top-down"].stats["bottom_up_rounds"] == 0
    return results["direction-optimizing"].stats


def _disconnected(directed: bool):
    """Two random blobs, a path, isolated vertices and a self-loop; blob ids interleaved."""
    rng = np.random.default_rng(7)
    blob = rng.integers(0, 150, (2, 900))
    path = np.arange(300, 340)
    sources = np.concatenate([2 * blob[0], 2 * blob[1] + 1, path[:-1], [345]])
    targets = np.concatenate([2 * rng.permutation(blob[1]), 2 * blob[0] + 1, path[1:], [345]])
    return gg.from_edges(sources, targets, num_vertices=360, directed=directed, device="cpu")


def _lollipop():
    """A 120-clique with a 60-vertex path hanging off it: the clique's level goes bottom-up and
    the path's levels return top-down, so the queue is rebuilt from the depths."""
    clique = np.array([(u, v) for u in range(120) for v in range(120) if u != v]).T
    path = np.arange(119, 180)
    return gg.from_edges(np.concatenate([clique[0], path[:-1]]), np.concatenate([clique[1], path[1:]]),
                         num_vertices=180, directed=False, device="cpu")


@pytest.mark.parametrize("seed", range(3))
def test_rmat_goes_bottom_up_and_matches_scipy(seed):
    graph = gg.rmat(12, seed=seed, device="cpu")
    degrees = np.diff(graph.indptr)
    stats = _check_bfs(graph, int(np.argmax(degrees)))
    assert stats["bottom_up_rounds"] >= 1
    for source in np.random.default_rng(seed).choice(np.flatnonzero(degrees), 8, replace=False):
        _check_bfs(graph, int(source))


def test_grid_stays_top_down_and_matches_scipy(monkeypatch):
    # The widest level of a 120 x 150 grid holds 120 of its 18,000 vertices: under 1 %.
    monkeypatch.setattr(config, "CPU_BFS_BOTTOM_UP_MIN_SHARE", 0.01)
    graph = gg.grid(120, 150, device="cpu")
    for source in (0, 75, graph.num_vertices // 2):
        assert _check_bfs(graph, source)["bottom_up_rounds"] == 0


@pytest.mark.parametrize("directed", [True, False])
def test_disconnected_graphs(directed):
    graph = _disconnected(directed)
    for source in (0, 1, 300, 320, 345, 359):
        _check_bfs(graph, source)


@pytest.mark.parametrize("directed", [True, False])
def test_random_graphs_in_both_directions(directed):
    graph = gg.gnm(3000, 24000, seed=11, directed=directed, device="cpu")
    for source in (0, 1500, 2999):
        _check_bfs(graph, source)


def test_single_vertex():
    for sources in ([], [0]):  # alone, and with a self-loop
        graph = gg.from_edges(sources, sources, num_vertices=1, device="cpu")
        result = bfs.run(graph, 0)
        assert result.to_numpy("depth").tolist() == [0] and result.to_numpy("parent").tolist() == [0]
        assert result.stats["frontier_sizes"] == [1, 0] and result.stats["rounds"] == 1


def test_bottom_up_then_top_down_again(monkeypatch):
    monkeypatch.setattr(config, "CPU_BFS_BOTTOM_UP_MIN_SHARE", 0.0)
    stats = _check_bfs(_lollipop(), 0)
    assert 1 <= stats["bottom_up_rounds"] < stats["rounds"] - 1


def test_min_bottom_up_share_keeps_small_frontiers_top_down(monkeypatch):
    graph = gg.rmat(11, seed=4, device="cpu")
    source = int(np.argmax(np.diff(graph.indptr)))
    monkeypatch.setattr(config, "CPU_BFS_BOTTOM_UP_MIN_SHARE", 1.0)
    assert _check_bfs(graph, source)["bottom_up_rounds"] == 0
    monkeypatch.setattr(config, "CPU_BFS_BOTTOM_UP_MIN_SHARE", 0.0)
    assert _check_bfs(graph, source)["bottom_up_rounds"] >= 1


def test_graph500_validation_for_64_roots_of_a_directed_graph():
    graph = gg.gnm(4096, 4096 * 16, seed=500, directed=True, device="cpu")
    rng = np.random.default_rng(500)
    for source in rng.choice(np.flatnonzero(np.diff(graph.indptr) > 0), 64, replace=False):
        bfs.verify(graph, bfs.run(graph, int(source)))


@pytest.mark.parametrize("name", ["pace-FLA.gr.xz", "soc-Slashdot0902.txt.gz"])
def test_datasets_bfs_and_wcc(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    for source in (0, int(np.argmax(np.diff(graph.indptr)))):
        _check_bfs(graph, source)
    wcc.verify(graph, wcc.run(graph))


@pytest.mark.parametrize(
    "make",
    [
        lambda: gg.rmat(12, seed=2, device="cpu"),
        lambda: gg.grid(40, 70, device="cpu"),
        lambda: gg.gnm(5000, 4000, seed=3, directed=True, device="cpu"),
        lambda: gg.gnm(5000, 4000, seed=3, directed=False, device="cpu"),
        lambda: _disconnected(True),
        lambda: _disconnected(False),
        lambda: gg.from_edges([], [], num_vertices=1, device="cpu"),
    ],
    ids=["rmat", "grid", "sparse-directed", "sparse-undirected", "disconnected-directed",
         "disconnected-undirected", "single-vertex"],
)
def test_wcc_matches_scipy(make):
    graph = make()
    result = wcc.run(graph)
    wcc.verify(graph, result)
    assert result.stats["components"] == np.unique(result.to_numpy("component")).size


def test_wcc_hooks_arriving_from_both_ends():
    # Arcs from high to low ids and low to high, interleaved: every union walks a chain.
    n = 2000
    order = np.random.default_rng(9).permutation(n)
    graph = gg.from_edges(order[1:], order[:-1], num_vertices=n, device="cpu")
    assert wcc.run(graph).to_numpy("component").tolist() == [0] * n
