"""Adsorption against SciPy's exact solve, CPU and CUDA kernels (simulator), datasets."""

import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import adsorption
from gpugraph.errors import EmptyGraphError, InvalidParameterError, InvalidWeightError


def test_matches_exact_solution(device):
    n = 40 if device == "cuda" else 400
    for graph in (gg.gnm(n, 5 * n, seed=3, device=device), gg.grid(5, 8, weighted=True, device=device)):
        injection = np.random.default_rng(1).random(graph.num_vertices)
        result = adsorption.run(graph, injection, p_inject=0.3, p_continue=0.6)
        assert result.stats["converged"]
        adsorption.verify(graph, result)


@pytest.mark.parametrize("name", ["cnr-2000.txt.gz", "wiki-Vote.txt.gz", "USA-road-d.NY.gr.gz", "karate.mtx"])
def test_datasets(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    adsorption.verify(graph, adsorption.run(graph))


def test_rejects_bad_input():
    graph = gg.gnm(10, 30, seed=1, device="cpu")
    with pytest.raises(InvalidParameterError):
        adsorption.run(graph, p_inject=0.7, p_continue=0.5)
    with pytest.raises(InvalidParameterError):
        adsorption.run(graph, injection=np.ones(3))
    with pytest.raises(InvalidWeightError):
        adsorption.run(gg.from_edges([0, 1], [1, 2], [1.0, -1.0], device="cpu"))
    with pytest.raises(EmptyGraphError):
        adsorption.run(gg.from_edges([], [], num_vertices=0, device="cpu"))


def test_kernels_compile(ptx_of, captured_launches, fake_cuda_graph):
    adsorption.run(fake_cuda_graph(weighted=True), max_iterations=1)
    for kernel, args in captured_launches:
        assert ".target sm_90" in ptx_of(kernel, args)
