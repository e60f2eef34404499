"""Graph builders and storage policies against naive references."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import gpugraph as gg
from gpugraph.graph.edgelist import EdgeList


def _edge_set(graph):
    src, dst, weights = graph.edges()
    if weights is None:
        return sorted(zip(src.tolist(), dst.tolist()))
    return sorted(zip(src.tolist(), dst.tolist(), weights.tolist()))


def test_csr_rows_sorted_and_offsets_int64():
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 50, 400), rng.integers(0, 50, 400)
    graph = gg.from_edges(src, dst, num_vertices=50, device="cpu")
    assert graph.indptr.dtype == np.int64 and graph.indices.dtype == np.int32
    assert graph.num_edges == graph.num_arcs == 400
    for v in range(50):
        row = graph.indices[graph.indptr[v] : graph.indptr[v + 1]]
        assert np.all(np.diff(row) >= 0)
        assert sorted(row.tolist()) == sorted(dst[src == v].tolist())


def test_in_edges_are_the_transpose_and_cached():
    rng = np.random.default_rng(2)
    src, dst, w = rng.integers(0, 30, 200), rng.integers(0, 30, 200), rng.random(200)
    graph = gg.from_edges(src, dst, w, num_vertices=30, device="cpu")
    assert not graph.has_in_edges
    assert np.array_equal(graph.in_indptr, np.concatenate([[0], np.cumsum(np.bincount(dst, minlength=30))]))
    first = graph.in_indices
    assert graph.in_indices is first  # cached
    in_src = np.repeat(np.arange(30), np.diff(graph.in_indptr))
    csr_src, csr_dst, csr_w = graph.edges()
    edge_ids = graph.in_edge_ids
    assert np.array_equal(csr_src[edge_ids], graph.in_indices)
    assert np.array_equal(csr_dst[edge_ids], in_src)
    assert np.array_equal(csr_w[edge_ids], graph.in_weights)
    assert "in_indices" in graph.memory_footprint()


def test_relabel_sparse_ids_and_map_back():
    graph = gg.from_edges([10, 7_000_000_000, 10], [99, 10, 42], device="cpu")
    assert graph.num_vertices == 4
    assert graph.original_ids.tolist() == [10, 42, 99, 7_000_000_000]
    assert graph.to_internal(7_000_000_000) == 3
    assert graph.to_original([0, 3]).tolist() == [10, 7_000_000_000]
    with pytest.raises(gg.VertexIdError, match=r"^vertex 11 is not in the graph \(n=4\)$"):
        graph.to_internal(11)
    named = gg.from_edges([0], [1], device="cpu", name="road")
    with pytest.raises(gg.VertexIdError, match=r"^vertex 5 is not in the graph 'road'$"):
        named.to_internal(5)


def test_relabel_false_keeps_ids():
    graph = gg.from_edges([0, 5], [5, 2], relabel=False, device="cpu")
    assert graph.num_vertices == 6 and graph.original_ids is None


def test_dense_ids_store_no_map():
    graph = gg.from_edges([0, 1, 2], [1, 2, 0], device="cpu")
    assert graph.original_ids is None and graph.num_vertices == 3


@pytest.mark.parametrize("bad", [[-1, 0], [0, 3]])
def test_out_of_range_ids_raise(bad):
    with pytest.raises(gg.VertexIdError):
        gg.from_edges(bad, [0, 1], num_vertices=3, device="cpu")


def test_declared_base_shifts_ids():
    edges = EdgeList(np.array([1, 3]), np.array([3, 2]), num_vertices=4, id_base=1)
    graph = gg.from_edge_list(edges, device="cpu")
    assert graph.num_vertices == 4 and graph.id_offset == 1
    assert graph.to_original([0, 3]).tolist() == [1, 4]
    with pytest.raises(gg.VertexIdError, match="declared range"):
        gg.from_edge_list(EdgeList(np.array([0]), np.array([1]), num_vertices=4, id_base=1), device="cpu")


@pytest.mark.parametrize(
    "policy, expected",
    [
        ("keep", [(0, 1, 5.0), (0, 1, 2.0), (0, 1, 9.0), (1, 0, 1.0)]),
        ("first", [(0, 1, 5.0), (1, 0, 1.0)]),
        ("min", [(0, 1, 2.0), (1, 0, 1.0)]),
        ("max", [(0, 1, 9.0), (1, 0, 1.0)]),
        ("sum", [(0, 1, 16.0), (1, 0, 1.0)]),
    ],
)
def test_duplicate_policies(policy, expected):
    graph = gg.from_edges([0, 0, 1, 0], [1, 1, 0, 1], [5.0, 2.0, 1.0, 9.0], duplicates=policy, device="cpu")
    assert _edge_set(graph) == sorted(expected)
    assert graph.num_edges == len(expected)


def test_keep_preserves_input_order_of_duplicates():
    graph = gg.from_edges([0, 0, 0], [1, 1, 1], [3, 1, 2], device="cpu")
    assert graph.weights.tolist() == [3, 1, 2]


def test_self_loop_policy():
    kept = gg.from_edges([0, 1, 1], [0, 1, 0], device="cpu")
    dropped = gg.from_edges([0, 1, 1], [0, 1, 0], self_loops="drop", num_vertices=2, device="cpu")
    assert kept.self_loop_count() == 2 and kept.num_edges == 3
    assert dropped.self_loop_count() == 0 and dropped.num_edges == 1


def test_undirected_stores_both_directions_loops_once():
    graph = gg.from_edges([0, 1, 2], [1, 2, 2], [1, 2, 3], directed=False, device="cpu")
    assert graph.num_edges == 3 and graph.num_arcs == 5
    assert _edge_set(graph) == [(0, 1, 1), (1, 0, 1), (1, 2, 2), (2, 1, 2), (2, 2, 3)]
    assert graph.in_indices is graph.indices
    assert "degree" in graph.degree_stats()


def test_undirected_duplicates_in_either_direction_merge():
    graph = gg.from_edges([0, 1], [1, 0], [4, 6], directed=False, duplicates="sum", device="cpu")
    assert graph.num_edges == 1 and _edge_set(graph) == [(0, 1, 10), (1, 0, 10)]


def test_policy_names_are_checked():
    with pytest.raises(gg.InvalidParameterError, match="duplicates"):
        gg.from_edges([0], [1], duplicates="avg", device="cpu")


def test_non_integer_ids_rejected():
    with pytest.raises(gg.VertexIdError):
        gg.from_edges([0.5], [1.0], device="cpu")


def test_empty_graph_builds():
    graph = gg.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64), device="cpu")
    assert graph.num_vertices == 0 and graph.num_edges == 0
    assert graph.degree_stats()["out"].maximum == 0


def test_isolated_vertices_kept_with_declared_count():
    graph = gg.from_edges([0], [1], num_vertices=5, device="cpu")
    assert graph.num_vertices == 5 and graph.degree_stats()["out"].isolated == 4


def test_from_scipy_and_csr_round_trip():
    matrix = sp.random(40, 40, density=0.1, format="csr", random_state=3)
    graph = gg.from_scipy(matrix, device="cpu")
    assert np.array_equal(graph.indptr, matrix.indptr)
    assert np.array_equal(graph.indices, matrix.indices)
    assert np.allclose(graph.weights, matrix.data)
    again = gg.from_csr(graph.indptr, graph.indices, graph.weights, device="cpu")
    assert again.equals(graph)


def test_from_scipy_undirected_needs_symmetry():
    matrix = sp.csr_matrix(np.array([[0, 1], [0, 0]]))
    with pytest.raises(gg.InvalidParameterError, match="symmetric"):
        gg.from_scipy(matrix, directed=False, device="cpu")
    graph = gg.from_scipy(matrix + matrix.T, directed=False, device="cpu")
    assert graph.num_edges == 1


def test_from_networkx_keeps_labels_and_isolated_nodes():
    nx_graph = nx.DiGraph()
    nx_graph.add_nodes_from([30, 10, 20, 40])
    nx_graph.add_edge(10, 30, weight=2.5)
    nx_graph.add_edge(30, 20, weight=1.0)
    graph = gg.from_networkx(nx_graph, device="cpu")
    assert graph.num_vertices == 4 and graph.original_ids.tolist() == [10, 20, 30, 40]
    src, dst, weights = graph.edges()
    pairs = {(int(a), int(b)): float(w) for a, b, w in zip(graph.to_original(src), graph.to_original(dst), weights)}
    assert pairs == {(10, 30): 2.5, (30, 20): 1.0}


def test_from_networkx_undirected_karate():
    nx_graph = nx.karate_club_graph()
    graph = gg.from_networkx(nx_graph, weight=None, device="cpu")
    assert not graph.directed and graph.num_edges == nx_graph.number_of_edges() == 78
    degrees = dict(nx_graph.degree())
    assert graph.out_degree().tolist() == [degrees[v] for v in range(34)]


def test_from_networkx_rejects_string_labels():
    with pytest.raises(gg.InvalidParameterError, match="integer"):
        gg.from_networkx(nx.path_graph(["a", "b"]), device="cpu")


def test_from_pandas():
    frame = pd.DataFrame({"a": [5, 6], "b": [6, 7], "w": [1.5, 2.5]})
    graph = gg.from_pandas(frame, "a", "b", "w", device="cpu")
    assert graph.original_ids.tolist() == [5, 6, 7] and graph.weights.tolist() == [1.5, 2.5]
    with pytest.raises(gg.InvalidParameterError, match="column"):
        gg.from_pandas(frame, "x", "b", device="cpu")


def test_to_same_device_is_identity_and_repr():
    graph = gg.from_edges([0], [1], device="cpu")
    assert graph.to("cpu") is graph
    assert "n=2" in repr(graph) and "device='cpu'" in repr(graph)


def test_large_vertex_count_uses_int64_indices(monkeypatch):
    from gpugraph import config

    monkeypatch.setattr(config, "INT32_VERTEX_LIMIT", 10)
    graph = gg.from_edges([0, 11], [11, 0], num_vertices=12, device="cpu")
    assert graph.indices.dtype == np.int64
