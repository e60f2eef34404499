"""Push rounds of the distributed programs: the CPU kernels, and the CUDA kernels under the
simulator, against a plain loop over the frontier's arcs."""

import numpy as np

import gpugraph as gg
from gpugraph.backend import to_numpy
from gpugraph.distributed import push


def weighted_graph(device):
    rng = np.random.default_rng(4)
    n = 60
    src = np.concatenate((rng.integers(0, n, 400), np.zeros(50, dtype=np.int64)))  # vertex 0: a hub
    dst = rng.integers(0, n, src.size)
    return gg.from_edges(src, dst, np.round(rng.random(src.size) * 5, 2), num_vertices=n, device=device)


def expected_min(graph, frontier, value, cost):
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    weights = to_numpy(graph.weights)
    value = value.copy()
    start = value.copy()
    for u in frontier:
        for e in range(indptr[u], indptr[u + 1]):
            step = {"label": 0.0, "hop": 1.0, "weight": weights[e]}[cost]
            value[indices[e]] = min(value[indices[e]], start[u] + step)
    return value


def check_push(device):
    graph = weighted_graph(device)
    xp = graph.backend.xp
    rng = np.random.default_rng(8)
    frontier = np.array([0, 3, 7, 11, 42])
    for cost in ("label", "hop", "weight"):
        start = np.where(rng.random(60) < 0.5, np.inf, rng.random(60) * 20)
        start[frontier] = 0.0  # nothing lowers a frontier value, so the order of arcs does not matter
        value = xp.asarray(start.copy())
        improved = push.push_min(graph, xp.asarray(frontier), value, cost)
        wanted = expected_min(graph, frontier, start, cost)
        np.testing.assert_allclose(to_numpy(value), wanted, err_msg=cost)
        assert np.array_equal(to_numpy(improved), wanted < start), cost
    share = rng.random(60)
    arrived = to_numpy(push.push_add(graph, xp.asarray(frontier), xp.asarray(share)))
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    wanted = np.zeros(60)
    for u in frontier:
        np.add.at(wanted, indices[indptr[u]:indptr[u + 1]], share[u])
    np.testing.assert_allclose(arrived, wanted, rtol=1e-12)


def test_push_kernels(device):
    """The CPU kernels natively, the CUDA kernels under the simulator (the ``device`` fixture)."""
    check_push(device)


def test_push_is_chosen_for_frontiers_with_few_arcs(monkeypatch):
    graph = weighted_graph("cpu")
    degree = np.diff(to_numpy(graph.indptr))
    assert push.use_push(graph, int(degree[5]))
    assert not push.use_push(graph, graph.num_arcs)
    monkeypatch.setattr(push.config, "DISTRIBUTED_PUSH_MAX_ARC_SHARE", 0.0)
    assert not push.use_push(graph, int(degree[5]))
