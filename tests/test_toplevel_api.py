"""Top-level algorithm functions take original ids and return Results keyed back to them."""

import numpy as np
import pytest

import gpugraph as gg


def test_bfs_by_original_ids():
    graph = gg.from_edges([10, 20, 40], [20, 30, 10], num_vertices=None, device="cpu")
    result = gg.bfs(graph, 10)
    assert result.by_original_id("depth") == {10: 0, 20: 1, 30: 2, 40: -1}
    assert result.by_original_id("parent") == {10: 10, 20: 10, 30: 20, 40: -1}
    with pytest.raises(gg.VertexIdError):
        gg.bfs(graph, 99)


def test_pagerank_top_level():
    graph = gg.gnm(50, 300, seed=1, device="cpu")
    result = gg.pagerank(graph, personalization={0: 1.0})
    assert result.stats["converged"] and abs(result.to_numpy("rank").sum() - 1) < 1e-9
    assert np.argmax(result.to_numpy("rank")) == 0 or result.to_numpy("rank")[0] > 1 / 50


def test_matching_and_adsorption_top_level(tmp_path):
    graph = gg.from_edges([10, 10, 30], [20, 40, 40], num_vertices=None, directed=False, device="cpu")
    result = gg.matching(graph, side={10: 0, 30: 0, 20: 1, 40: 1})
    pairs = result.by_original_id("match")
    assert all(pairs[pairs[v]] == v for v in pairs if pairs[v] >= 0)
    assert pairs[10] in (20, 40) and (pairs[30] == 40 or pairs[10] == 40)  # maximal
    scores = gg.adsorption(graph, injection={10: 1.0}).by_original_id("score")
    assert scores[10] == max(scores.values())


@pytest.mark.parametrize("name", ["cdlp", "lcc", "triangles", "betweenness", "pagerank", "adsorption", "bfs",
                                  "sssp", "wcc", "scc", "kcore", "matching"])
def test_every_algorithm_from_the_command_line(capsys, tmp_path, name):
    from gpugraph.cli import main

    output = tmp_path / "out.txt"
    code = main(["run", name, "example:grid6x7", "--device", "cpu", "-o", str(output), "--output-format", "ldbc"])
    assert code == 0, capsys.readouterr().err
    lines = output.read_text().splitlines()
    assert [int(line.split()[0]) for line in lines] == list(range(42))


def test_triangles_lcc_cdlp_betweenness_top_level():
    graph = gg.from_edges([1, 2, 3, 3], [2, 3, 1, 4], num_vertices=None, directed=False, device="cpu")
    assert gg.triangles(graph).by_original_id("triangles") == {1: 1, 2: 1, 3: 1, 4: 0}
    assert gg.lcc(graph).by_original_id("lcc")[1] == 1.0
    assert set(gg.cdlp(graph).by_original_id("label")) == {1, 2, 3, 4}
    assert gg.betweenness(graph, normalized=False).by_original_id("betweenness")[3] == 2.0


def test_sssp_wcc_scc_kcore_top_level():
    graph = gg.from_edges([1, 2, 3, 5], [2, 3, 1, 6], [1.0, 2.0, 3.0, 1.0], num_vertices=None, device="cpu")
    distance = gg.sssp(graph, 1).by_original_id("distance")
    assert distance[3] == 3.0 and distance[5] == np.inf
    assert gg.sssp(graph, 1).by_original_id("predecessor")[3] == 2
    assert gg.wcc(graph).by_original_id("component") == {1: 1, 2: 1, 3: 1, 5: 5, 6: 5}
    assert gg.scc(graph).by_original_id("component") == {1: 1, 2: 1, 3: 1, 5: 5, 6: 6}
    assert gg.kcore(graph).by_original_id("core")[1] == 2
