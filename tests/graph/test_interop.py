"""Interop with other libraries: zero-copy proofs, round trips, limits and errors.

Host tests run everywhere; tests marked ``gpu`` need a real CUDA GPU with CuPy and a CUDA build
of PyTorch and are skipped otherwise.
"""

import sys

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import torch

import gpugraph as gg
from gpugraph.algorithms.result import Result
from gpugraph.backend import as_array, cuda_available, to_numpy
from gpugraph.graph.edgelist import EdgeList

needs_gpu = pytest.mark.skipif(
    not (cuda_available() and torch.cuda.is_available()), reason="needs a CUDA GPU, CuPy and CUDA PyTorch"
)


def _address(array) -> int:
    """Address of the first element of a NumPy array, CuPy array or PyTorch tensor."""
    if isinstance(array, torch.Tensor):
        return array.data_ptr()
    if isinstance(array, np.ndarray):
        return array.ctypes.data
    return array.data.ptr  # CuPy


def _sparse_id_graph(directed: bool, weighted: bool) -> gg.Graph:
    rng = np.random.default_rng(7)
    ids = np.array([3, 17, 40, 41, 1_000_000_007, 2**40])
    src, dst = ids[rng.integers(0, 6, 30)], ids[rng.integers(0, 6, 30)]
    weights = rng.random(30) if weighted else None
    return gg.from_edges(src, dst, weights, directed=directed, duplicates="first", device="cpu")


def _dense_graph(directed: bool, weighted: bool) -> gg.Graph:
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 25, 120), rng.integers(0, 25, 120)
    weights = rng.integers(1, 9, 120).astype(np.float64) if weighted else None
    return gg.from_edges(src, dst, weights, num_vertices=25, directed=directed, device="cpu")


kinds = pytest.mark.parametrize(
    "directed, weighted", [(True, True), (True, False), (False, True), (False, False)],
    ids=["directed-weighted", "directed", "undirected-weighted", "undirected"],
)


# --- arrays in -------------------------------------------------------------------------------------
def test_host_tensors_and_arrays_are_read_in_place():
    tensor = torch.arange(10, dtype=torch.int64)
    for view in (as_array(tensor), to_numpy(tensor)):
        assert isinstance(view, np.ndarray) and _address(view) == _address(tensor)
    array = np.arange(4)
    assert as_array(array) is array and to_numpy(array) is array
    assert as_array([1, 2]).tolist() == [1, 2]


def test_a_tensor_that_requires_grad_is_a_named_error():
    with pytest.raises(gg.InvalidParameterError, match="DLPack"):
        as_array(torch.ones(3, requires_grad=True))


def test_from_edges_takes_torch_tensors():
    src, dst, weights = [0, 4, 2, 2, 9], [4, 2, 0, 9, 9], [0.5, 1.0, 2.0, 0.25, 3.0]
    expected = gg.from_edges(np.array(src), np.array(dst), np.array(weights, dtype=np.float32), device="cpu")
    graph = gg.from_edges(
        torch.tensor(src), torch.tensor(dst), torch.tensor(weights, dtype=torch.float32), device="cpu"
    )
    assert graph.equals(expected)


def test_sorted_directed_csr_shares_the_callers_tensors():
    indptr = torch.tensor([0, 2, 2, 5, 6], dtype=torch.int64)
    indices = torch.tensor([1, 3, 0, 1, 3, 2], dtype=torch.int32)
    weights = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=torch.float64)
    graph = gg.from_csr(indptr, indices, weights, device="cpu")
    assert _address(graph.indptr) == _address(indptr)
    assert _address(graph.indices) == _address(indices)
    assert _address(graph.weights) == _address(weights)
    src = np.repeat(np.arange(4), np.diff(indptr.numpy()))
    assert graph.equals(gg.from_edges(src, indices.numpy(), weights.numpy(), num_vertices=4, device="cpu"))


def test_unsorted_or_undirected_csr_is_rebuilt_like_from_edges():
    indptr, indices, weights = np.array([0, 3, 3, 5]), np.array([2, 0, 1, 2, 0]), np.arange(5.0)
    src = np.repeat(np.arange(3), np.diff(indptr))
    graph = gg.from_csr(indptr, indices, weights, device="cpu")
    assert not np.shares_memory(graph.indices, indices)
    assert graph.equals(gg.from_edges(src, indices, weights, num_vertices=3, device="cpu"))
    symmetric = sp.csr_array(np.array([[0, 1, 2], [1, 0, 0], [2, 0, 5]], dtype=np.float64))
    undirected = gg.from_csr(
        symmetric.indptr, symmetric.indices, symmetric.data, directed=False, device="cpu"
    )
    expected = gg.from_edges([0, 0, 2], [1, 2, 2], [1.0, 2.0, 5.0], num_vertices=3, directed=False, device="cpu")
    assert undirected.equals(expected)


def test_from_scipy_shares_a_canonical_csr():
    matrix = sp.random_array((40, 40), density=0.1, format="csr", rng=np.random.default_rng(5))
    matrix.indices = matrix.indices.astype(np.int32)
    graph = gg.from_scipy(matrix, device="cpu")
    assert np.shares_memory(graph.indices, matrix.indices) and np.shares_memory(graph.weights, matrix.data)
    coo = matrix.tocoo()
    assert graph.equals(gg.from_edges(coo.row, coo.col, coo.data, num_vertices=40, device="cpu"))


def test_csr_errors_are_named():
    with pytest.raises(gg.VertexIdError, match="outside the declared range"):
        gg.from_csr(np.array([0, 1, 2]), np.array([1, 2]), device="cpu")
    for directed in (True, False):
        with pytest.raises(gg.InvalidParameterError, match="weights has 1 entries"):
            gg.from_csr([0, 1, 2], [1, 0], [1.0], directed=directed, device="cpu")
    with pytest.raises(gg.InvalidParameterError, match="non-decreasing"):
        gg.from_csr(torch.tensor([0, 2, 1]), torch.tensor([0]), device="cpu")


def test_mismatched_edge_arrays_are_named_errors():
    with pytest.raises(gg.InvalidParameterError, match="dst has 2"):
        gg.from_edges(torch.tensor([0, 1, 2]), torch.tensor([1, 2]), device="cpu")
    with pytest.raises(gg.InvalidParameterError, match="weights has 1 entries"):
        gg.from_edges([0, 1], [1, 2], torch.tensor([1.0]), device="cpu")


# --- graphs out ------------------------------------------------------------------------------------
def test_to_scipy_shares_the_graphs_arrays():
    graph = _dense_graph(directed=True, weighted=True)
    matrix = graph.to_scipy()
    assert np.shares_memory(matrix.indices, graph.indices) and np.shares_memory(matrix.data, graph.weights)
    assert matrix.indptr.dtype == matrix.indices.dtype == np.int32
    src, dst, weights = graph.edges()
    dense = np.zeros((25, 25))
    np.add.at(dense, (src, dst), weights)
    assert np.array_equal(matrix.toarray(), dense)
    copied = graph.to_scipy(copy=True)
    assert not np.shares_memory(copied.indices, graph.indices)
    assert not np.shares_memory(copied.data, graph.weights)
    assert np.array_equal(copied.toarray(), dense)


def test_unweighted_to_scipy_is_boolean():
    graph = _dense_graph(directed=False, weighted=False)
    matrix = graph.to_scipy()
    assert matrix.dtype == np.bool_ and matrix.nnz == graph.num_arcs
    assert (matrix != matrix.T).nnz == 0


@kinds
def test_scipy_round_trip(directed, weighted):
    graph = _dense_graph(directed, weighted)
    assert gg.from_scipy(graph.to_scipy(), directed=directed, device="cpu").equals(graph)


@kinds
def test_pandas_round_trip_keeps_sparse_original_ids(directed, weighted):
    graph = _sparse_id_graph(directed, weighted)
    frame = graph.to_pandas()
    assert list(frame.columns) == ["source", "target"] + (["weight"] if weighted else [])
    assert len(frame) == graph.num_edges
    assert set(frame["source"]) | set(frame["target"]) == set(graph.original_ids.tolist())
    if not directed:
        assert (frame["source"] <= frame["target"]).all()
    rebuilt = gg.from_pandas(frame, weight="weight" if weighted else None, directed=directed, device="cpu")
    assert rebuilt.equals(graph)


def test_to_pandas_does_not_share_the_graphs_weights():
    graph = _dense_graph(directed=True, weighted=True)
    frame = graph.to_pandas()
    assert not np.shares_memory(frame["weight"].to_numpy(), graph.weights)


def _nx_graph(directed: bool, weighted: bool):
    nx_graph = nx.DiGraph() if directed else nx.Graph()
    nx_graph.add_nodes_from([5, 2**33, 12, 99])  # 99 stays isolated
    edges = [(5, 12, 1.5), (12, 2**33, 2.0), (2**33, 5, 0.5), (12, 12, 4.0), (5, 2**33, 3.0)]
    if weighted:
        nx_graph.add_weighted_edges_from(edges)
    else:
        nx_graph.add_edges_from((u, v) for u, v, _ in edges)
    return nx_graph


@kinds
def test_networkx_round_trip_keeps_isolated_vertices_and_ids(directed, weighted):
    original = _nx_graph(directed, weighted)
    graph = gg.from_networkx(original, device="cpu")
    back = graph.to_networkx()
    assert type(back) is type(original) and nx.utils.graphs_equal(back, original)
    assert gg.from_networkx(back, device="cpu").equals(graph)


def test_to_networkx_maps_offset_ids_and_names_the_weight_attribute():
    edge_list = EdgeList(src=np.array([1, 2]), dst=np.array([2, 3]), weights=np.array([7, 8]),
                         num_vertices=4, id_base=1)
    graph = gg.from_edge_list(edge_list, device="cpu")
    nx_graph = graph.to_networkx(weight="cost")
    assert sorted(nx_graph.nodes) == [1, 2, 3, 4]
    assert sorted(nx_graph.edges(data="cost")) == [(1, 2, 7), (2, 3, 8)]


def test_to_networkx_refuses_large_graphs_unless_asked():
    graph = _dense_graph(directed=True, weighted=False)
    with pytest.raises(gg.InvalidParameterError, match=r"120 edges, more than max_edges=100"):
        graph.to_networkx(max_edges=100)
    assert graph.to_networkx(max_edges=None).number_of_nodes() == 25


def test_missing_optional_packages_are_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"Graph.to_pandas needs pandas.*gpugraph\[interop\]"):
        _dense_graph(directed=True, weighted=False).to_pandas()


# --- results out -----------------------------------------------------------------------------------
def test_result_to_torch_shares_memory():
    graph = _sparse_id_graph(directed=True, weighted=False)
    result = gg.pagerank(graph)
    tensor = result.to_torch("rank")
    assert _address(tensor) == _address(result.values["rank"])
    assert torch.equal(tensor, torch.from_numpy(result.to_numpy("rank")))
    with pytest.raises(KeyError):
        result.to_torch("missing")


def test_result_to_pandas_and_the_networkx_recipe():
    graph = _sparse_id_graph(directed=False, weighted=False)
    result = gg.bfs(graph, 17)
    frame = result.to_pandas()
    assert list(frame.columns) == ["vertex", "depth", "parent"]
    assert frame["vertex"].tolist() == graph.original_ids.tolist()
    assert np.shares_memory(frame["depth"].to_numpy(), result.values["depth"])
    assert dict(zip(frame["vertex"], frame["parent"])) == result.by_original_id("parent")
    assert list(result.to_pandas("depth").columns) == ["vertex", "depth"]
    nx_graph = graph.to_networkx()
    nx.set_node_attributes(nx_graph, result.by_original_id("depth"), "depth")
    assert nx_graph.nodes[17]["depth"] == 0
    hops = nx.single_source_shortest_path_length(nx_graph, 17)
    assert all(nx_graph.nodes[v]["depth"] == d for v, d in hops.items())


def test_result_to_pandas_refuses_arrays_that_are_not_per_vertex():
    graph = _dense_graph(directed=True, weighted=False)
    result = Result("custom", graph, {"score": np.zeros(25), "pairs": np.zeros((25, 2))})
    assert list(result.to_pandas(["score"]).columns) == ["vertex", "score"]
    with pytest.raises(gg.InvalidParameterError, match="'pairs' of shape"):
        result.to_pandas()


# --- GPU -------------------------------------------------------------------------------------------
@pytest.mark.gpu
@needs_gpu
def test_cuda_tensors_are_read_in_place_and_copied_to_the_host_on_request():
    import cupy

    tensor = torch.arange(100, dtype=torch.int64, device="cuda")
    view = as_array(tensor)
    assert isinstance(view, cupy.ndarray) and _address(view) == _address(tensor)
    assert np.array_equal(to_numpy(tensor), np.arange(100))


@pytest.mark.gpu
@needs_gpu
def test_a_gpu_build_from_cuda_tensors_stays_on_the_device():
    rng = np.random.default_rng(11)
    src, dst, weights = rng.integers(0, 1000, 5000), rng.integers(0, 1000, 5000) * 3, rng.random(5000)
    expected = gg.from_edges(src, dst, weights, directed=False, device="cpu")
    on_device = [torch.from_numpy(array).cuda() for array in (src, dst, weights)]
    graph = gg.from_edges(*on_device, directed=False, device="cuda")
    assert graph.device == "cuda:0" and graph.to("cpu").equals(expected)
    host_graph = gg.from_edges(*on_device, directed=False, device="cpu")
    assert host_graph.equals(expected)


@pytest.mark.gpu
@needs_gpu
def test_a_sorted_csr_on_the_gpu_is_shared():
    import cupy

    matrix = sp.random_array((300, 300), density=0.05, format="csr", rng=np.random.default_rng(2))
    indptr = torch.from_numpy(matrix.indptr.astype(np.int64)).cuda()
    indices = torch.from_numpy(matrix.indices.astype(np.int32)).cuda()
    weights = torch.from_numpy(matrix.data).cuda()
    graph = gg.from_csr(indptr, indices, weights, device="cuda")
    assert [_address(a) for a in (graph.indptr, graph.indices, graph.weights)] == [
        _address(t) for t in (indptr, indices, weights)
    ]
    assert graph.to("cpu").equals(gg.from_scipy(matrix, device="cpu"))
    uploaded = gg.from_scipy(matrix, device="cuda")
    assert isinstance(uploaded.indices, cupy.ndarray) and isinstance(uploaded.weights, cupy.ndarray)
    assert uploaded.to("cpu").equals(gg.from_scipy(matrix, device="cpu"))
    unsorted = gg.from_csr(indptr, indices.flip(0), weights, device="cuda")
    expected = gg.from_csr(matrix.indptr, matrix.indices[::-1].copy(), matrix.data, device="cpu")
    assert unsorted.to("cpu").equals(expected)


@pytest.mark.gpu
@needs_gpu
def test_gpu_graphs_and_results_go_out():
    import cupy

    graph = _sparse_id_graph(directed=True, weighted=True)
    device_graph = graph.to("cuda")
    assert (device_graph.to_scipy() != graph.to_scipy()).nnz == 0
    assert device_graph.to_pandas().equals(graph.to_pandas())
    assert nx.utils.graphs_equal(device_graph.to_networkx(), graph.to_networkx())
    result = gg.pagerank(device_graph)
    tensor = result.to_torch("rank")
    assert tensor.is_cuda and _address(tensor) == _address(result.values["rank"])
    assert result.to_cupy("rank") is result.values["rank"]
    assert isinstance(gg.pagerank(graph).to_cupy("rank"), cupy.ndarray)
    assert result.to_pandas()["vertex"].tolist() == graph.original_ids.tolist()
