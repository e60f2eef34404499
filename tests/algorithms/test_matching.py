"""Maximal bipartite matching: valid and maximal on CPU and CUDA kernels (simulator)."""

import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import matching
from gpugraph.errors import EmptyGraphError, InvalidParameterError


def _bipartite(device, left, edges, seed=0):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, left, edges), left + rng.integers(0, left, edges)
    return gg.from_edges(src, dst, num_vertices=2 * left, directed=False, device=device)


@pytest.mark.parametrize("seed", [0, 7])
def test_matching_is_valid_and_maximal(device, seed):
    graph = _bipartite(device, 12 if device == "cuda" else 500, 48 if device == "cuda" else 2500)
    result = matching.run(graph, seed=seed)
    matching.verify(graph, result)
    assert result.stats["matched"] > 0


def test_grid_and_given_sides():
    graph = gg.grid(20, 30, device="cpu")
    result = matching.run(graph)
    matching.verify(graph, result)
    side = (np.arange(600) // 30 + np.arange(600) % 30) % 2
    matching.verify(graph, matching.run(graph, side=side))


def test_rejects_bad_input():
    with pytest.raises(InvalidParameterError, match="not bipartite"):
        matching.run(gg.from_edges([0, 1, 2], [1, 2, 0], directed=False, device="cpu"))
    with pytest.raises(InvalidParameterError, match="undirected"):
        matching.run(gg.from_edges([0], [1], directed=True, device="cpu"))
    with pytest.raises(InvalidParameterError, match="side"):
        matching.run(_bipartite("cpu", 5, 10), side=np.zeros(3))
    with pytest.raises(EmptyGraphError):
        matching.run(gg.from_edges([], [], num_vertices=0, directed=False, device="cpu"))


def test_kernels_compile(ptx_of, captured_launches, fake_cuda_graph):
    graph = fake_cuda_graph(directed=False)
    matching._program().run(graph, init={"side": np.arange(30) % 2, "key": matching._keys(30, 0)}, max_iterations=1)
    for kernel, args in captured_launches:
        assert ".target sm_90" in ptx_of(kernel, args)
