"""Every frontier operator, every strategy, on the CPU and (under the simulator) CUDA kernels,
against naive NumPy loops on small random graphs."""

import numpy as np
import pytest

import gpugraph as gg
from gpugraph import ops
from gpugraph.backend import to_numpy
from gpugraph.errors import InvalidParameterError, ProgramError, VertexIdError


def _graph(device, directed=True, weighted=True, n=40, m=160, seed=3):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = np.where(rng.random(m) < 0.3, 0, rng.integers(0, n, m))  # a hub, for skew
    weights = rng.random(m) if weighted else None
    return gg.from_edges(src, dst, weights, num_vertices=n, directed=directed, device=device)


def _arcs(graph):
    indptr, indices = to_numpy(graph.indptr), to_numpy(graph.indices)
    src = np.repeat(np.arange(graph.num_vertices), np.diff(indptr))
    return src, indices.astype(np.int64), np.arange(indices.size)


def _array(graph, values):
    return graph.backend.asarray(values)


def _unvisited(dst, label):
    return label[dst] < 0


def _odd_source(src, dst, edge, weight):
    return (src + edge) % 2 == 1 and weight >= 0


@pytest.mark.parametrize("strategy", ["thread", "twc", "edge", "auto"])
@pytest.mark.parametrize("output", ["sparse", "dense"])
def test_advance_activates_what_the_function_says(device, strategy, output):
    graph = _graph(device)
    label = np.where(np.arange(40) % 3 == 0, 0, -1).astype(np.int32)
    src, dst, edge = _arcs(graph)
    for ids in (None, [0, 5, 7, 7, 39]):
        frontier = ops.Frontier.all(graph) if ids is None else ops.Frontier.from_ids(graph, ids)
        chosen = np.isin(src, frontier.to_numpy())
        expected = np.unique(dst[chosen & (label[dst] < 0)])
        result = ops.advance(graph, frontier, _unvisited, bindings={"label": _array(graph, label)}, strategy=strategy, output=output)
        assert result.kind == output
        assert np.array_equal(result.to_numpy(), expected)
        builtins = ops.advance(graph, frontier, _odd_source, strategy=strategy)
        assert np.array_equal(builtins.to_numpy(), np.unique(dst[chosen & ((src + edge) % 2 == 1)]))


@pytest.mark.parametrize("strategy", ["thread", "twc", "edge"])
def test_advance_messages_land_at_the_reverse_edge_index(device, strategy):
    graph = _graph(device)
    src, dst, edge = _arcs(graph)
    buffers = (_array(graph, np.zeros(graph.num_arcs)), _array(graph, np.full(graph.num_arcs, -1, np.int64)))
    counters = {}
    reached = ops.advance(
        graph, ops.Frontier.all(graph), lambda src, weight: (weight, src), strategy=strategy,
        messages=buffers, counters=counters,
    )
    assert counters["edges_traversed"] == graph.num_arcs
    assert np.array_equal(reached.to_numpy(), np.unique(dst))
    rid = to_numpy(graph.reverse_edge_index)
    in_indptr, in_indices = to_numpy(graph.in_indptr), to_numpy(graph.in_indices)
    assert np.array_equal(to_numpy(buffers[0])[rid], to_numpy(graph.weights))
    senders = to_numpy(buffers[1])
    assert np.array_equal(senders, in_indices)  # each slot holds the message of its in-edge's source
    owners = np.repeat(np.arange(graph.num_vertices), np.diff(in_indptr))
    assert np.array_equal(owners[rid], dst)  # messages to v are v's contiguous CSC range


def test_advance_rejects_bad_arguments():
    graph = _graph("cpu")
    everything = ops.Frontier.all(graph)
    with pytest.raises(InvalidParameterError, match="strategy"):
        ops.advance(graph, everything, _unvisited, strategy="magic")
    with pytest.raises(ProgramError, match=r"advance function _unvisited .*unknown parameter 'label'"):
        ops.advance(graph, everything, _unvisited)
    with pytest.raises(InvalidParameterError, match="provided by the operator"):
        ops.advance(graph, everything, _unvisited, bindings={"label": np.zeros(40), "dst": 1})
    with pytest.raises(InvalidParameterError, match="frontier belongs"):
        ops.advance(graph, ops.Frontier.all(_graph("cpu", n=10)), _unvisited, bindings={"label": np.zeros(40)})
    with pytest.raises(ProgramError, match="2 field"):
        ops.advance(graph, everything, lambda src: (src, src), messages=(np.zeros(graph.num_arcs),))


def _contribution(src, dst, weight, rank):
    return rank[src] * weight + dst


@pytest.mark.parametrize("strategy", ["thread", "warp", "block", "auto"])
@pytest.mark.parametrize("directed", [True, False])
def test_pull_combines_over_in_edges(device, strategy, directed):
    graph = _graph(device, directed=directed)
    rank = np.random.default_rng(0).random(40)
    src, dst, edge = _arcs(graph)
    weights = to_numpy(graph.weights)
    expected = np.zeros(40)
    np.add.at(expected, dst, rank[src] * weights + dst)
    result = ops.pull(graph, ops.Frontier.all(graph), _contribution, bindings={"rank": _array(graph, rank)}, strategy=strategy)
    assert np.allclose(to_numpy(result), expected)
    lowest = ops.pull(graph, ops.Frontier.from_ids(graph, [0, 3]), lambda src: src, "min", strategy=strategy)
    lowest = to_numpy(lowest)
    for v in (0, 3):
        assert lowest[v] == (src[dst == v].min() if np.any(dst == v) else np.iinfo(np.int64).max)
    assert lowest[1] == np.iinfo(np.int64).max  # not in the frontier: identity


@pytest.mark.parametrize("strategy", ["thread", "warp", "block", "auto"])
@pytest.mark.parametrize("combine", ["sum", "min", "max", "bitwise-or"])
def test_segmented_reduce_matches_numpy(device, strategy, combine):
    rng = np.random.default_rng(5)
    lengths = np.array([0, 1, 3, 0, 40, 1100, 2, 33])
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    values = rng.integers(-50, 50, offsets[-1]).astype(np.int64)
    operator = (lambda a, b: a | b) if combine == "bitwise-or" else combine
    identity = 0 if combine == "bitwise-or" else None
    backend = gg.get_backend(device)
    result = ops.segmented_reduce(backend.asarray(values), backend.asarray(offsets), operator, identity=identity, strategy=strategy, device=device)
    reducer = {"sum": np.add, "min": np.minimum, "max": np.maximum, "bitwise-or": np.bitwise_or}[combine]
    empty = {"sum": 0, "min": np.iinfo(np.int64).max, "max": np.iinfo(np.int64).min, "bitwise-or": 0}[combine]
    expected = [reducer.reduce(values[a:b]) if b > a else empty for a, b in zip(offsets[:-1], offsets[1:])]
    assert np.array_equal(to_numpy(result), expected)


def test_segmented_reduce_resets_what_it_read(device):
    backend = gg.get_backend(device)
    offsets = backend.asarray(np.array([0, 2, 5, 6], dtype=np.int64))
    values = backend.asarray(np.arange(6, dtype=np.float64))
    result = ops.segmented_reduce(values, offsets, "max", segments=backend.asarray(np.array([1])), reset=True, device=device)
    assert to_numpy(result)[1] == 4.0
    assert np.array_equal(to_numpy(values), [0, 1, -np.inf, -np.inf, -np.inf, 5])


def test_reduce_rejects_bad_arguments():
    graph = _graph("cpu")
    with pytest.raises(InvalidParameterError, match="identity"):
        ops.segmented_reduce(np.zeros(3), np.array([0, 3]), lambda a, b: a + b)
    with pytest.raises(InvalidParameterError, match="combiner"):
        ops.segmented_reduce(np.zeros(3), np.array([0, 3]), "product")
    with pytest.raises(ProgramError, match="one number"):
        ops.pull(graph, ops.Frontier.all(graph), lambda src: (src, src))
    with pytest.raises(ProgramError, match="combiner"):
        ops.pull(graph, ops.Frontier.all(graph), lambda src: src, lambda a, b, c: a, identity=0)


def test_vertex_map_filter_and_values(device):
    graph = _graph(device)
    label = _array(graph, (np.arange(40) % 4).astype(np.int32))
    everything = ops.Frontier.all(graph)
    chosen = ops.vertex_map(graph, everything, lambda v, label: label[v] == 1, bindings={"label": label}, output="dense")
    assert chosen.kind == "dense" and np.array_equal(chosen.to_numpy(), np.arange(1, 40, 4))
    assert ops.vertex_map(graph, everything, lambda v, label: label[v] == 1, bindings={"label": label}) is None
    repeated = ops.Frontier.from_ids(graph, [5, 3, 5, 9, 3, 5], deduplicate=False)
    assert repeated.size == 6
    assert np.array_equal(ops.filter(graph, repeated).to_numpy(), [3, 5, 9])
    assert np.array_equal(ops.filter(graph, repeated, lambda v: v > 3).to_numpy(), [5, 9])
    doubled = ops.vertex_values(graph, lambda v, label: label[v] * 2.0, bindings={"label": label})
    assert np.array_equal(to_numpy(doubled), (np.arange(40) % 4) * 2.0)


def test_frontier_conversions(device):
    graph = _graph(device)
    sparse = ops.Frontier.from_ids(graph, [7, 1, 7, 30])
    dense = sparse.to_dense()
    assert dense.kind == "dense" and dense.size == 3
    assert np.array_equal(dense.to_sparse().to_numpy(), [1, 7, 30])
    assert ops.Frontier.all(graph).size == 40 and np.array_equal(ops.Frontier.all(graph).to_dense().to_numpy(), np.arange(40))
    assert ops.Frontier.empty(graph).size == 0 and not ops.Frontier.empty(graph)
    assert "3 of 40" in repr(dense)


def test_frontier_rejects_bad_ids():
    graph = _graph("cpu")
    with pytest.raises(VertexIdError, match="40"):
        ops.Frontier.from_ids(graph, [0, 40])
    with pytest.raises(VertexIdError, match="-1"):
        ops.Frontier.from_ids(graph, [-1])
    with pytest.raises(InvalidParameterError, match="flags"):
        ops.Frontier.from_flags(graph, np.ones(3, np.uint8))
