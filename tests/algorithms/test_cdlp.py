"""CDLP against the Graphalytics definition recounted with Python counters: generated and real
graphs on the CPU, tiny graphs on the CUDA kernel under the simulator, and the kernel as PTX."""

import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import cdlp


def _messy(device, directed, n=40, m=120, seed=0):
    """Random arcs with parallel arcs, both directions and self-loops kept."""
    rng = np.random.default_rng(seed)
    return gg.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n, directed=directed, device=device)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("iterations", [0, 1, 2, 5])
def test_messy_graphs_match_the_definition(device, directed, iterations):
    graph = _messy(device, directed, seed=iterations)
    result = cdlp.run(graph, max_iterations=iterations)
    assert result.to_numpy("label").dtype == np.int64
    assert result.stats["rounds"] <= iterations
    cdlp.verify(graph, result)


def test_labels_are_original_ids(device):
    # Sparse original ids: 10 - 20 - 30 path plus 40 -> 20; ties go to the smallest id.
    graph = gg.from_edges([10, 20, 40], [20, 30, 20], device=device)
    result = cdlp.run(graph, max_iterations=1)
    assert result.by_original_id("label") == {10: 20, 20: 10, 30: 20, 40: 20}
    cdlp.verify(graph, result)


def test_both_directions_count_twice(device):
    # Vertex 0 hears label 1 over 0 <-> 1 (twice) and labels 2, 3 once each.
    graph = gg.from_edges([0, 1, 2, 0, 4], [1, 0, 0, 3, 4], num_vertices=5, directed=True, device=device)
    labels = cdlp.run(graph, max_iterations=1).to_numpy("label").tolist()
    assert labels[0] == 1
    assert labels[4] == 4  # only a self-loop: its own label, out and in


@pytest.mark.parametrize(
    "make",
    [
        lambda: gg.gnm(400, 1600, seed=1, directed=False, device="cpu"),
        lambda: gg.gnm(400, 1600, seed=2, directed=True, self_loops=True, device="cpu"),
        lambda: gg.rmat(9, 8, seed=3, device="cpu"),
        lambda: gg.grid(15, 11, device="cpu"),
    ],
    ids=["gnm-undirected", "gnm-directed", "rmat-9", "grid"],
)
def test_generated_graphs_match_the_definition(make):
    graph = make()
    cdlp.verify(graph, cdlp.run(graph, max_iterations=6))


@pytest.mark.parametrize(
    "name",
    ["karate.mtx", "power.graph", "polblogs.graph", "PGPgiantcompo.graph", "wiki-Vote.txt.gz",
     "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx"],
)
def test_datasets_match_the_definition(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    cdlp.verify(graph, cdlp.run(graph))


def test_stopping_early_gives_the_fixed_iteration_result(dataset):
    graph = gg.load(dataset("ldbc-undirected-example.mtx"), device="cpu")
    converged = cdlp.run(graph, max_iterations=50)
    assert converged.stats["converged"] and converged.stats["rounds"] < 50
    cdlp.verify(graph, converged)


def test_ldbc_directed_example_first_iteration(dataset):
    graph = gg.load(dataset("ldbc-directed-example.mtx"), device="cpu")
    labels = cdlp.run(graph, max_iterations=1).by_original_id("label")
    # Vertex 1: out 3, 5, in 3, 8 -> label 3 twice. Vertex 4: in 2, 5, 6, 7, 9 -> tie, 2.
    assert labels[1] == 3 and labels[4] == 2


@pytest.mark.parametrize("bad", [-1, 2.5, True, "3"])
def test_bad_max_iterations(bad):
    with pytest.raises(gg.InvalidParameterError):
        cdlp.run(_messy("cpu", True), max_iterations=bad)


def test_empty_graph_raises():
    with pytest.raises(gg.EmptyGraphError):
        cdlp.run(gg.from_edges(np.array([], int), np.array([], int), device="cpu"))


def test_verify_catches_a_wrong_label():
    graph = _messy("cpu", True)
    result = cdlp.run(graph, max_iterations=2)
    result.values["label"] = result.to_numpy("label")[::-1].copy()
    with pytest.raises(AssertionError):
        cdlp.verify(graph, result)


def test_cuda_kernel_compiles_to_ptx(ptx_of, captured_launches, fake_cuda_graph):
    graph = fake_cuda_graph(directed=True)
    # Launches are captured, not run: the labels never change, so one iteration is launched.
    cdlp.run(graph, max_iterations=3)
    assert captured_launches
    for kernel, args in captured_launches:
        assert ".target sm_90" in ptx_of(kernel, args)
