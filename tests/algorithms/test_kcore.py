"""k-core decomposition against NetworkX's core_number and a SciPy peel: generated and real
graphs on the CPU, tiny graphs on the CUDA kernel under the simulator, the kernel as PTX."""

import networkx as nx
import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import kcore
from gpugraph.backend import to_numpy


def _messy(device, directed, n=40, m=160, seed=0):
    """Random arcs with parallel arcs, both directions and self-loops kept."""
    rng = np.random.default_rng(seed)
    return gg.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n, directed=directed, device=device)


def _networkx_cores(graph):
    """NetworkX core_number on nx.Graph of the arcs without self-loops (the documented meaning)."""
    src, dst, _ = graph.edges()
    simple = nx.Graph()
    simple.add_nodes_from(range(graph.num_vertices))
    simple.add_edges_from(zip(to_numpy(src).tolist(), to_numpy(dst).tolist()))
    simple.remove_edges_from(list(nx.selfloop_edges(simple)))
    cores = nx.core_number(simple)
    return np.array([cores[v] for v in range(graph.num_vertices)], dtype=np.int64)


def _check(graph, result):
    core = result.to_numpy("core")
    assert core.dtype == np.int64
    assert np.array_equal(core, _networkx_cores(graph))
    assert result.stats["max_core"] == core.max()
    kcore.verify(graph, result)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_messy_graphs_match_networkx(device, directed, seed):
    graph = _messy(device, directed, m=40 + 80 * seed, seed=seed)
    _check(graph, kcore.run(graph))


def test_small_example(device):
    # A 4-clique 0-3 with a tail 3 -> 4 -> 5, a self-loop on 5, parallel arcs 4 -> 5, isolated 6.
    src = [0, 0, 0, 1, 1, 2, 3, 4, 5, 4, 4]
    dst = [1, 2, 3, 2, 3, 3, 4, 5, 5, 5, 5]
    graph = gg.from_edges(src, dst, num_vertices=7, directed=True, device=device)
    assert kcore.run(graph).to_numpy("core").tolist() == [3, 3, 3, 3, 1, 1, 0]


@pytest.mark.parametrize(
    "make",
    [
        lambda: gg.gnm(500, 3000, seed=1, directed=True, self_loops=True, device="cpu"),
        lambda: gg.gnm(500, 1500, seed=2, directed=False, device="cpu"),
        lambda: gg.rmat(10, 16, seed=3, device="cpu"),
        lambda: gg.grid(20, 17, device="cpu"),
        lambda: gg.grid(12, 9, diagonal=True, device="cpu"),
    ],
    ids=["gnm-directed", "gnm-undirected", "rmat-10", "grid", "grid-diagonal"],
)
def test_generated_graphs_match_networkx(make):
    graph = make()
    _check(graph, kcore.run(graph))


@pytest.mark.parametrize(
    "name",
    ["wiki-Vote.txt.gz", "karate.mtx", "power.graph", "PGPgiantcompo.graph", "ldbc-directed-example.mtx",
     "ldbc-undirected-example.mtx", "polblogs.graph", "pushpull.mtx", "lp_afiro.mtx", "USA-road-d.NY.gr.gz"],
)
def test_datasets_match_networkx(dataset, name):
    graph = gg.load(dataset(name), device="cpu")
    _check(graph, kcore.run(graph))


@pytest.mark.parametrize("name", ["soc-Slashdot0902.txt.gz", "cnr-2000.txt.gz", "pace-FLA.gr.xz"])
def test_large_datasets_match_the_peel(dataset, name):
    # NetworkX takes over a minute on cnr-2000; the SciPy peel of verify is the oracle here.
    graph = gg.load(dataset(name), device="cpu")
    kcore.verify(graph, kcore.run(graph))


def test_karate_cores(dataset):
    # Zachary's karate club: the 4-core is the well-known group around vertices 1, 2, 3, 4, ...
    graph = gg.load(dataset("karate.mtx"), device="cpu")
    cores = kcore.run(graph).by_original_id("core")
    assert max(cores.values()) == 4 and cores[1] == 4 and cores[12] == 1


def test_empty_graph_raises():
    with pytest.raises(gg.EmptyGraphError):
        kcore.run(gg.from_edges(np.array([], int), np.array([], int), device="cpu"))


def test_verify_catches_a_wrong_core():
    graph = _messy("cpu", False)
    result = kcore.run(graph)
    result.values["core"] = result.to_numpy("core") + (np.arange(graph.num_vertices) == 3)
    with pytest.raises(AssertionError, match="core numbers of vertices"):
        kcore.verify(graph, result)


def test_cuda_kernel_compiles_to_ptx(ptx_of, captured_launches, fake_cuda_graph):
    # Launches are captured, not run: degrees never drop, so each level peels its vertices.
    kcore.run(fake_cuda_graph(directed=True))
    assert captured_launches
    for kernel, args in captured_launches:
        assert ".target sm_90" in ptx_of(kernel, args)
