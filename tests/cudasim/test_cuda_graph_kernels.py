"""CUDA kernels of graph building and BFS, run in Numba's CUDA simulator on tiny graphs.

Run with ``NUMBA_ENABLE_CUDASIM=1 pytest -m cudasim`` (the CI does); skipped otherwise.
"""

import os

import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import bfs

pytestmark = [
    pytest.mark.cudasim,
    pytest.mark.skipif(
        os.environ.get("NUMBA_ENABLE_CUDASIM") != "1", reason="needs NUMBA_ENABLE_CUDASIM=1"
    ),
]


def _random_edges(seed, n=40, m=150):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m), rng.random(m), n


@pytest.mark.parametrize("duplicates", ["keep", "first", "min", "sum"])
@pytest.mark.parametrize("directed", [True, False])
def test_cuda_build_matches_cpu(directed, duplicates):
    src, dst, weights, n = _random_edges(1)
    cpu = gg.from_edges(src, dst, weights, num_vertices=n, directed=directed, duplicates=duplicates, device="cpu")
    cuda = gg.from_edges(src, dst, weights, num_vertices=n, directed=directed, duplicates=duplicates, device="cuda")
    assert cuda.backend.simulated and cuda.device == "cuda:0"
    assert cuda.equals(cpu)
    assert np.array_equal(cuda.in_indptr, cpu.in_indptr)
    assert np.array_equal(cuda.in_indices, cpu.in_indices)
    assert np.array_equal(cuda.in_edge_ids, cpu.in_edge_ids)


def test_graph_moves_between_backends_unchanged():
    src, dst, weights, n = _random_edges(2)
    cpu = gg.from_edges(src, dst, weights, num_vertices=n, device="cpu")
    cpu.in_indices  # build the CSC so it moves too
    there = cpu.to("cuda")
    back = there.to("cpu")
    assert there.device == "cuda:0" and back.device == "cpu"
    assert back.equals(cpu) and there.has_in_edges


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_cuda_bfs_is_valid(seed):
    src, dst, _, n = _random_edges(seed)
    graph = gg.from_edges(src, dst, num_vertices=n, device="cuda")
    result = bfs.run(graph, 0)
    bfs.verify(graph, result)
    cpu_result = bfs.run(graph.to("cpu"), 0)
    assert np.array_equal(result.to_numpy("depth"), cpu_result.to_numpy("depth"))
