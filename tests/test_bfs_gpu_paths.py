"""The GPU BFS's three kinds of step (persistent top-down kernel, heavy top-down levels with the
edge-balanced advance, bottom-up levels) under the simulator, each forced by shrinking the
thresholds so tiny graphs reach it, against the CPU's serial queue BFS."""

import numpy as np
import pytest

import gpugraph as gg
from gpugraph import config
from gpugraph.algorithms import bfs

pytestmark = [pytest.mark.cudasim]


def _graphs():
    return {
        "rmat": lambda device: gg.rmat(7, seed=2, device=device),
        "grid": lambda device: gg.grid(9, 7, device=device),
        "directed": lambda device: gg.gnm(60, 150, seed=4, directed=True, device=device),
        "disconnected": lambda device: gg.from_edges([0, 1, 5, 6], [1, 2, 6, 7], num_vertices=9, device=device),
    }


@pytest.fixture()
def simulated():
    import os

    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        pytest.skip("needs NUMBA_ENABLE_CUDASIM=1")
    return "cuda"


@pytest.mark.parametrize("thresholds", [(1 << 16, 2048, 1000.0), (6, 3, 2.0), (0, 0, 18.0)],
                         ids=["persistent", "mixed", "host-only"])
@pytest.mark.parametrize("name", sorted(_graphs()))
def test_every_step_kind_gives_the_serial_depths(simulated, monkeypatch, thresholds, name):
    # The third threshold (beta) brings bottom-up levels back top-down on these tiny graphs.
    monkeypatch.setattr(config, "BFS_PERSISTENT_EDGES", thresholds[0])
    monkeypatch.setattr(config, "BFS_PERSISTENT_DEGREE", thresholds[1])
    monkeypatch.setattr(config, "BFS_CUDA_BETA", thresholds[2])
    graph = _graphs()[name](simulated)
    expected = bfs.run(graph.to("cpu"), 1, variant="top-down").to_numpy("depth")
    for variant in bfs.VARIANTS:
        result = bfs.run(graph, 1, variant=variant)
        bfs.verify(graph, result)
        assert np.array_equal(result.to_numpy("depth"), expected)
        sizes = result.stats["frontier_sizes"]
        assert sum(sizes) == int((expected >= 0).sum())
        assert sizes[-1] == 0 and len(sizes) == result.stats["rounds"] + 1
        reached = expected >= 0
        assert result.stats["edges_traversed"] == int(np.diff(graph.to("cpu").indptr)[reached].sum())
