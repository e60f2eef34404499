"""SSSP against SciPy's Dijkstra and the shortest-path-tree rules: generated and real graphs on
the CPU, tiny graphs on the CUDA kernels under the simulator, the kernels as PTX, and bad input."""

import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import sssp


def _messy(device, directed=True, weights="random", n=40, m=160, seed=0):
    """Random arcs with parallel arcs, self-loops, and (``weights="ties"``) many zero weights."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    values = {
        "none": None,
        "random": rng.random(m),
        "ties": rng.integers(0, 3, m).astype(np.float64),  # zero-weight cycles and equal paths
        "integer": rng.integers(1, 9, m),
    }[weights]
    return gg.from_edges(src, dst, values, num_vertices=n, directed=directed, device=device)


@pytest.mark.parametrize("weights", ["none", "random", "ties", "integer"])
@pytest.mark.parametrize("directed", [True, False])
def test_messy_graphs_match_dijkstra(device, weights, directed):
    graph = _messy(device, directed, weights, seed=len(weights))
    for source in (0, 39):
        result = sssp.run(graph, source)
        assert result.to_numpy("distance").dtype == np.float64
        assert result.to_numpy("predecessor").dtype == np.int64
        sssp.verify(graph, result)


@pytest.mark.parametrize("delta", [0.05, 1.0, 1e9])
def test_any_delta_gives_the_same_distances(device, delta):
    graph = _messy(device, weights="random", seed=5)
    result = sssp.run(graph, 3, delta=delta)
    sssp.verify(graph, result)
    assert result.parameters["delta"] == delta


@pytest.mark.parametrize("chunk", [1, 3])
def test_vertices_split_into_chunks_of_arcs(device, chunk, monkeypatch):
    # The GPU relaxes a vertex's arcs in items of config.SSSP_CHUNK_ARCS arcs and its tree passes
    # give each thread SSSP_TREE_ARCS_PER_THREAD arcs; tiny values split every vertex of these
    # graphs over several items and threads (the CPU ignores both).
    from gpugraph import config

    monkeypatch.setattr(config, "SSSP_CHUNK_ARCS", chunk)
    monkeypatch.setattr(config, "SSSP_TREE_ARCS_PER_THREAD", chunk)
    graph = _messy(device, weights="integer", seed=7)
    for delta in (1.0, 4.0):
        sssp.verify(graph, sssp.run(graph, 0, delta=delta))


def test_small_example(device):
    # 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (2), 1 -> 3 (1), 3 -> 3 (0); 4 is unreachable.
    graph = gg.from_edges([0, 0, 2, 1, 3], [1, 2, 1, 3, 3], [4.0, 1.0, 2.0, 1.0, 0.0], num_vertices=5, device=device)
    result = sssp.run(graph, 0)
    assert result.to_numpy("distance").tolist() == [0.0, 3.0, 1.0, 4.0, np.inf]
    assert result.to_numpy("predecessor").tolist() == [0, 2, 0, 1, -1]


def test_zero_weight_cycle_still_gives_a_tree(device):
    # 0 -> 1 (1); 1, 2, 3 form a zero-weight cycle, every one of them at distance 1.
    graph = gg.from_edges([0, 1, 2, 3, 3], [1, 2, 3, 1, 2], [1.0, 0.0, 0.0, 0.0, 0.0], num_vertices=4, device=device)
    result = sssp.run(graph, 0)
    assert result.to_numpy("distance").tolist() == [0.0, 1.0, 1.0, 1.0]
    sssp.verify(graph, result)


@pytest.mark.parametrize(
    "make",
    [
        lambda: gg.gnm(500, 3000, seed=1, directed=True, device="cpu"),
        lambda: gg.gnm(500, 1500, seed=2, directed=False, self_loops=True, device="cpu"),
        lambda: gg.rmat(10, 8, seed=3, device="cpu"),
        lambda: gg.grid(20, 17, weighted=True, device="cpu"),
        lambda: gg.grid(12, 9, diagonal=True, device="cpu"),
    ],
    ids=["gnm-directed", "gnm-undirected", "rmat-10", "grid-weighted", "grid-diagonal"],
)
def test_generated_graphs_match_dijkstra(make):
    graph = make()
    for source in (0, graph.num_vertices // 2):
        sssp.verify(graph, sssp.run(graph, source))


@pytest.mark.parametrize(
    "name",
    ["USA-road-d.NY.gr.gz", "wiki-Vote.txt.gz", "soc-Slashdot0902.txt.gz", "karate.mtx", "power.graph",
     "PGPgiantcompo.graph", "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx", "cnr-2000.txt.gz",
     "pace-FLA.gr.xz", "polblogs.graph", "pushpull.mtx"],
)
def test_datasets_match_dijkstra(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    sssp.verify(graph, sssp.run(graph, 0))


def test_negative_weights_of_a_dataset_are_rejected(dataset):
    graph = gg.load(dataset("lp_afiro.mtx"), device="cpu")
    with pytest.raises(gg.InvalidWeightError, match="non-negative"):
        sssp.run(graph, 0)


@pytest.mark.parametrize("bad", [-0.5, np.nan])
def test_bad_weights_name_the_arc(device, bad):
    graph = gg.from_edges([5, 6, 7], [6, 7, 5], [1.0, bad, 2.0], device=device)
    with pytest.raises(gg.InvalidWeightError, match=r"arc 6 -> 7 \(original ids\)"):
        sssp.run(graph, 0)


@pytest.mark.parametrize("source", [-1, 40, 2.0, True, "0"])
def test_bad_source(source):
    with pytest.raises(gg.VertexIdError):
        sssp.run(_messy("cpu"), source)


@pytest.mark.parametrize("delta", [0, -1.0, np.inf, np.nan, "1", True])
def test_bad_delta(delta):
    with pytest.raises(gg.InvalidParameterError):
        sssp.run(_messy("cpu"), 0, delta=delta)


def test_empty_graph_raises():
    with pytest.raises(gg.EmptyGraphError):
        sssp.run(gg.from_edges(np.array([], int), np.array([], int), device="cpu"))


def test_verify_catches_wrong_results():
    graph = _messy("cpu", weights="random")
    result = sssp.run(graph, 0)
    distance = result.to_numpy("distance")
    reached = np.flatnonzero(np.isfinite(distance) & (distance > 0))
    result.values["distance"] = distance.copy()
    result.values["distance"][reached[0]] += 0.5
    with pytest.raises(AssertionError, match="distance"):
        sssp.verify(graph, result)
    result = sssp.run(graph, 0)
    predecessor = result.to_numpy("predecessor").copy()
    predecessor[reached[0]] = reached[0]
    result.values["predecessor"] = predecessor
    with pytest.raises(AssertionError):
        sssp.verify(graph, result)


@pytest.mark.parametrize("weighted", [True, False])
def test_cuda_kernels_compile_to_ptx(ptx_of, captured_launches, fake_cuda_graph, weighted):
    # Launches are captured, not run: nothing relaxes, so the loops stop after one launch each.
    sssp.run(fake_cuda_graph(weighted=weighted), 0)
    kernels = {kernel.py_func.__name__ for kernel, _ in captured_launches}
    assert kernels == {"near_far", "tight_arcs"}
    for kernel, args in captured_launches:
        assert ".target sm_90" in ptx_of(kernel, args)
