"""The layout built on the device (issue 6, :mod:`gpugraph.engines.path.device_layout`).

Its CPU build (the same steps compiled for the CPU) is held to the host layout's own Algorithm 1
kernel run piece by piece, and to plain definitions of the chunks and the vertex -> chunk index;
its CUDA build, under the simulator (``-m cudasim``), to the CPU build, array for array. The
engine's answers on it are checked against ``bsp`` on the CPU here, and on the simulated GPU
(where it is the default layout) in ``test_path_engine.py``.
"""

import numpy as np
import pytest

import gpugraph as gg
from gpugraph import config
from gpugraph.engines.path import _device_layout_steps as steps
from gpugraph.engines.path import _partition_cpu as kernels
from gpugraph.engines.path import solve
from gpugraph.engines.path.device_layout import build_device_layout
from gpugraph.errors import InvalidParameterError

ARRAYS = ("vertices", "arcs", "offsets", "chunk_offsets", "source_offsets", "source_chunks", "chunk_layer",
          "chunk_mean_degree")


def random_csr(n, m, seed):
    rng = np.random.default_rng(seed)
    graph = gg.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n)
    return np.asarray(graph.indptr).astype(np.int64), np.asarray(graph.indices)


def expected_pieces(indptr, piece_arcs):
    """Where the device layout's pieces start (and ``n``): at the first vertex whose row starts
    at or after each multiple of ``piece_arcs`` arcs, and at each vertex of more out-arcs than
    that and the vertex after it."""
    n, m = indptr.size - 1, int(indptr[-1])
    hubs = np.flatnonzero(np.diff(indptr) > piece_arcs)
    cuts = np.searchsorted(indptr, np.arange(0, m + 1, piece_arcs), side="left")
    return np.unique(np.concatenate([[0, n], np.minimum(cuts, n), hubs, hubs + 1]))


def expected_visiting_order(indptr, indices, hubs_above=None):
    """The host layout's visiting order; with ``hubs_above``, each row of more arcs (a hub, a
    piece alone) in CSR order."""
    m = indices.size
    order, slots = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64)
    kernels.visiting_order(indptr, indices, config.PATH_INSERTION_SORT_MAX_ARCS, config.PATH_VISITING_ORDER_BLOCKS,
                           order, slots)
    if hubs_above is not None:
        for u in np.flatnonzero(np.diff(indptr) > hubs_above):
            order[indptr[u]:indptr[u + 1]] = np.arange(indptr[u], indptr[u + 1])
    return order


def algorithm_1_by_piece(indptr, indices, max_depth, piece_arcs, sort_hubs=True):
    """The host layout's traversal kernel on each piece alone (its roots by descending
    out-degree, arcs leaving the piece ending their paths): the pieces' positions one after
    another, and each piece's path offsets."""
    n = indptr.size - 1
    order = expected_visiting_order(indptr, indices, None if sort_hubs else piece_arcs)
    starts = expected_pieces(indptr, piece_arcs)
    state, first_from = np.zeros(n, dtype=np.int8), np.full(n, -1, dtype=np.int64)
    vertices, arcs, piece_offsets = [], [], []
    for k in range(starts.size - 1):
        first, last = starts[k], starts[k + 1]
        arcs_in_piece = int(indptr[last] - indptr[first])
        roots = np.empty(last - first, dtype=np.int64)
        found = kernels.roots_by_degree(indptr, first, last, roots)
        piece_vertices = np.empty(2 * arcs_in_piece, dtype=indices.dtype)
        piece_arc_ids = np.empty(2 * arcs_in_piece, dtype=np.int64)
        offsets = np.empty(arcs_in_piece + 1, dtype=np.int64)
        length, paths, _ = kernels.depth_bounded_paths(
            indptr, indices, order, roots[:found], first, last, max_depth, piece_vertices, piece_arc_ids, offsets,
            np.empty(arcs_in_piece, dtype=np.int64), first_from, state, np.empty(arcs_in_piece, dtype=np.int64))
        vertices.append(piece_vertices[:length])
        arcs.append(piece_arc_ids[:length])
        piece_offsets.append(offsets[:paths + 1])
    return np.concatenate(vertices), np.concatenate(arcs), piece_offsets


def greedy_chunks(piece_offsets, chunk_arcs):
    """Each piece's paths cut greedily into chunks of at most ``chunk_arcs`` arcs (a longer path
    alone), chunks never spanning two pieces: the first path of each chunk, and the paths."""
    bounds, before = [], 0
    for offsets in piece_offsets:
        held = chunk_arcs
        for p, path_arcs in enumerate(np.diff(offsets) - 1):
            if held + path_arcs > chunk_arcs:
                bounds.append(before + p)
                held = 0
            held += path_arcs
        before += offsets.size - 1
    return np.array(bounds + [before])


@pytest.mark.parametrize("n, m, seed", [(1, 0, 0), (2, 3, 1), (30, 100, 2), (200, 2000, 4), (60, 3000, 6)])
@pytest.mark.parametrize("piece_arcs", [1, 7, 64, 10_000])
@pytest.mark.parametrize("max_depth, chunk_arcs, sort_hubs", [(16, 16, True), (2, 4, True), (16, 16, False)])
def test_the_device_layout_is_algorithm_1_over_pieces_with_chunks_and_an_index(n, m, seed, piece_arcs, max_depth,
                                                                               chunk_arcs, sort_hubs):
    indptr, indices = random_csr(n, m, seed)
    layout = build_device_layout(indptr, indices, None, max_depth, chunk_arcs, piece_arcs, sort_hubs)
    vertices, arcs, piece_offsets = algorithm_1_by_piece(indptr, indices, max_depth, piece_arcs, sort_hubs)
    assert layout.pieces == expected_pieces(indptr, piece_arcs).size - 1
    assert layout.built_on == "device" and layout.num_layers == 1
    assert np.array_equal(layout.vertices, vertices) and np.array_equal(layout.arcs, arcs)
    lengths = np.concatenate([np.diff(offsets) for offsets in piece_offsets] + [np.zeros(0, dtype=np.int64)])
    assert np.array_equal(layout.offsets, np.concatenate([[0], np.cumsum(lengths)]))
    assert np.array_equal(layout.chunk_offsets, greedy_chunks(piece_offsets, chunk_arcs))
    # every arc on one path, once; each row's chunks ascending and holding that row's arcs
    on_path = np.flatnonzero(layout.arcs >= 0)
    assert np.array_equal(np.sort(layout.arcs[on_path]), np.arange(m))
    chunk_of_position = np.repeat(np.arange(layout.num_chunks), np.diff(layout.offsets[layout.chunk_offsets]))
    tails = np.repeat(np.arange(n), np.diff(indptr))
    for u in range(n):
        row = layout.source_chunks[indptr[u]:indptr[u + 1]]
        assert np.all(np.diff(row) >= 0)
        assert np.array_equal(row, np.sort(chunk_of_position[on_path[tails[layout.arcs[on_path]] == u]]))
    positions = np.diff(layout.offsets[layout.chunk_offsets])
    degree_sums = np.bincount(chunk_of_position, weights=np.diff(indptr)[layout.vertices], minlength=layout.num_chunks)
    assert np.allclose(layout.chunk_mean_degree, degree_sums / np.maximum(positions, 1))
    assert not layout.chunk_layer.any()


@pytest.mark.parametrize("n, m, seed", [(1, 0, 0), (30, 100, 2), (200, 2000, 4), (60, 3000, 6)])
@pytest.mark.parametrize("piece_arcs", [1, 7, 64, 10_000])
@pytest.mark.parametrize("insertion_max", [0, 3, 64])
def test_each_rows_visiting_order_and_the_piece_starts(n, m, seed, piece_arcs, insertion_max):
    indptr, indices = random_csr(n, m, seed)
    order, slots, flags = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(n + 1, dtype=np.int8)
    heads = np.empty(m, dtype=indices.dtype)
    keys = np.empty(insertion_max, dtype=np.int64)  # longer rows heap-sorted
    for v in range(n + 1):
        steps._order_row(v, indptr, indices, piece_arcs, keys, order, heads, slots, flags, False)
    keys = np.empty(m, dtype=np.int64)  # the hubs' rows (left by order_row) by one stable sort
    steps.arc_keys(m, indptr, indices, keys)
    steps.order_hub_slots(m, indptr, indices, piece_arcs, np.argsort(keys, kind="stable"), order, heads, slots)
    assert np.array_equal(order, expected_visiting_order(indptr, indices))
    assert np.array_equal(slots[order], np.arange(m))
    assert np.array_equal(heads, indices[order])
    starts = np.flatnonzero(flags)
    assert np.array_equal(starts, expected_pieces(indptr, piece_arcs))
    assert starts[0] == 0 and starts[-1] == n and np.all(np.diff(starts) > 0)
    degree = np.diff(indptr)
    for first, last in zip(starts[:-1], starts[1:]):
        assert last - first == 1 or degree[first:last].max(initial=0) <= piece_arcs
        assert last - first == 1 or degree[first:last].sum() <= 2 * piece_arcs  # up to a multiple, and one row


def test_the_device_layout_refuses_bad_sizes():
    indptr, indices = random_csr(10, 30, 1)
    for bad in ({"max_depth": 0}, {"chunk_arcs": 0}, {"piece_arcs": 0}):
        with pytest.raises(InvalidParameterError, match="must be >= 1"):
            build_device_layout(indptr, indices, None, **bad)
    with pytest.raises(InvalidParameterError, match="max_depth up to"):
        build_device_layout(indptr, indices, None, max_depth=config.PATH_DEVICE_MAX_DEPTH + 1)


@pytest.mark.parametrize("algorithm, parameters", [("pagerank", {}), ("adsorption", {}), ("sssp", {"source": 0}),
                                                   ("kcore", {"k": 3})])
def test_the_engine_on_the_device_layout_gives_bsp_answers(algorithm, parameters):
    rng = np.random.default_rng(8)
    graph = gg.from_edges(rng.integers(0, 300, 2400), rng.integers(0, 300, 2400),
                          rng.integers(1, 9, 2400).astype(np.float64), num_vertices=300)
    expected = solve(graph, algorithm, schedule="bsp", **parameters)
    for schedule in ("path", "path-w"):
        result = solve(graph, algorithm, schedule=schedule, layout="device", **parameters)
        assert result.stats["converged"] and result.stats["layout_built_on"] == "device"
        for key, value in expected.values.items():
            if algorithm in ("sssp", "kcore"):
                assert np.array_equal(result[key], value), key
            else:
                assert np.abs(result[key] - value).sum() <= 1e-5 * np.abs(value).sum(), key


def test_the_engine_builds_pieces_of_the_configured_size(monkeypatch):
    rng = np.random.default_rng(9)
    graph = gg.from_edges(rng.integers(0, 200, 1600), rng.integers(0, 200, 1600), num_vertices=200)
    indptr = np.asarray(graph.indptr).astype(np.int64)
    for piece_arcs in (8, 100):
        monkeypatch.setattr(config, "PATH_DEVICE_PIECE_ARCS", piece_arcs)
        stats = solve(graph, "pagerank", layout="device").stats
        assert stats["layout_pieces"] == expected_pieces(indptr, piece_arcs).size - 1


def test_the_host_layout_is_the_default_on_the_cpu_and_a_bad_name_is_refused():
    graph = gg.from_edges([0, 1, 2], [1, 2, 0])
    assert solve(graph, "pagerank").stats["layout_built_on"] == "host"
    with pytest.raises(InvalidParameterError, match="unknown layout 'gpu'"):
        solve(graph, "pagerank", layout="gpu")


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
# (150, 300): a piece of more than 64 vertices, its roots sorted in global memory; (20, 900),
# (60, 1500): rows of 33-59 and 10-40 arcs, those of more than 16 sorted by the CUDA build's
# warps, several rounds of them a block; (10, 900): rows of more than 64 arcs, heap-sorted
@pytest.mark.parametrize("n, m, piece_arcs", [(40, 300, 5), (40, 300, 60), (40, 300, 1000), (150, 300, 1000),
                                              (20, 900, 40), (20, 900, 1000), (60, 1500, 1000), (10, 900, 1000)])
def test_the_cuda_build_equals_the_cpu_build_under_the_simulator(n, m, piece_arcs):
    from gpugraph.backend import get_backend

    indptr, indices = random_csr(n, m, 1)
    for sort_hubs in (True, False):
        on_cpu = build_device_layout(indptr, indices, None, piece_arcs=piece_arcs, sort_hubs=sort_hubs)
        simulated = build_device_layout(indptr, indices, get_backend("cuda"), piece_arcs=piece_arcs,
                                        sort_hubs=sort_hubs)
        for name in ARRAYS:
            assert np.array_equal(getattr(on_cpu, name), getattr(simulated, name)), name


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_a_gpu_graph_uses_the_device_layout_unless_dispatch_is_layered():
    graph = gg.from_edges([0, 1, 2, 2], [1, 2, 0, 1], device="cuda")
    assert solve(graph, "pagerank").stats["layout_built_on"] == config.PATH_GPU_LAYOUT == "device"
    assert solve(graph, "pagerank", layered=True).stats["layout_built_on"] == "host"
    assert solve(graph, "pagerank", layout="host").stats["layout_built_on"] == "host"
    deep = config.PATH_DEVICE_MAX_DEPTH + 1  # deeper than a thread's stack: the host layout
    assert solve(graph, "pagerank", max_depth=deep).stats["layout_built_on"] == "host"
