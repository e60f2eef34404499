"""Every real graph of ../shared/datasets loads with the counts its README gives, and survives
file -> Graph -> binary -> Graph unchanged (also memory-mapped, also after a move and back)."""

import pytest

import gpugraph as gg

# name: (vertices, edges as the README counts them, directed, weighted)
DATASETS = {
    "USA-road-d.NY.gr.gz": (264_346, 733_846, True, True),
    "pace-FLA.gr.xz": (1_070_376, 1_343_951, False, False),
    "soc-Slashdot0902.txt.gz": (82_168, 948_464, True, False),
    "wiki-Vote.txt.gz": (7_115, 103_689, True, False),
    "cnr-2000.txt.gz": (325_557, 3_216_152, True, False),
    "karate.mtx": (34, 78, False, False),
    "pushpull.mtx": (4_000, 99_208, False, False),
    "lp_afiro.mtx": (51, 102, True, True),
    "ldbc-directed-example.mtx": (10, 17, True, True),
    "ldbc-undirected-example.mtx": (9, 12, False, True),
    "power.graph": (4_941, 6_594, False, False),
    "polblogs.graph": (1_490, 16_715, False, False),
    "PGPgiantcompo.graph": (10_680, 24_316, False, False),
}


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_dataset_counts_and_binary_round_trip(dataset, tmp_path, name):
    vertices, edges, directed, weighted = DATASETS[name]
    graph = gg.load(dataset(name), device="cpu")
    assert (graph.num_vertices, graph.num_edges) == (vertices, edges)
    assert graph.directed == directed and graph.is_weighted == weighted
    expected_arcs = edges if directed else 2 * edges - graph.self_loop_count()
    assert graph.num_arcs == expected_arcs
    saved = tmp_path / "graph.gg"
    gg.save(graph, saved)
    assert gg.load(saved, device="cpu").equals(graph)
    assert gg.load(saved, device="cpu", mmap=True).equals(graph)


def test_sparse_ids_map_back(dataset):
    graph = gg.load(dataset("wiki-Vote.txt.gz"), device="cpu")
    assert graph.original_ids is not None and graph.original_ids.size == 7_115
    first_line = next(
        line for line in __import__("gzip").open(dataset("wiki-Vote.txt.gz"), "rt") if not line.startswith("#")
    )
    src, dst = (int(token) for token in first_line.split())
    u, v = graph.to_internal([src, dst])
    row = graph.indices[graph.indptr[u] : graph.indptr[u + 1]]
    assert v in row


def test_one_based_ids_map_back(dataset):
    graph = gg.load(dataset("USA-road-d.NY.gr.gz"), device="cpu")
    # First arc of the file: "a 1 2 803".
    u, v = graph.to_internal([1, 2])
    row = slice(graph.indptr[u], graph.indptr[u + 1])
    assert 803 in graph.weights[row][graph.indices[row] == v]
    assert graph.to_original([0]).tolist() == [1]


def _original_edges(graph):
    src, dst, weights = graph.edges()
    return sorted(zip(graph.to_original(src).tolist(), graph.to_original(dst).tolist(), weights.tolist()))


def test_round_trip_through_text_formats(dataset, tmp_path):
    graph = gg.load(dataset("ldbc-directed-example.mtx"), device="cpu")
    for suffix in (".mtx", ".txt", ".el.gz"):
        path = tmp_path / f"copy{suffix}"
        gg.save(graph, path)
        again = gg.load(path, device="cpu")
        assert again.num_edges == graph.num_edges
        assert _original_edges(again) == _original_edges(graph)
