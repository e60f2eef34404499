"""The path engine (issue 6): partitioning, dependency layers, and answers of every schedule.

Answers are compared with the library algorithms (PageRank, adsorption: L1 distance within the
tolerance; SSSP distances and k-core membership: exactly). CPU kernels run in the main
invocation; the CUDA kernels under the simulator (``-m cudasim``) on tiny graphs.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

import gpugraph as gg
from gpugraph.algorithms import adsorption, kcore, pagerank, sssp
from gpugraph.engines.path import SCHEDULES, accumulative, engine, minimum, solve
from gpugraph.engines.path.dependency import path_dependencies
from gpugraph.engines.path.layout import build_layout
from gpugraph.engines.path.partition import partition_paths
from gpugraph.errors import (
    DeviceOutOfMemoryError, EmptyGraphError, InvalidParameterError, InvalidWeightError, VertexIdError,
)


def random_graph(n=60, m=400, seed=3, device="cpu", weighted=False):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    weights = rng.integers(1, 9, m).astype(np.float64) if weighted else None
    return gg.from_edges(src, dst, weights, num_vertices=n, device=device)


def csr(graph):
    return np.asarray(graph.indptr), np.asarray(graph.indices)


def check_partition(indptr, indices, max_depth, pieces=1):
    paths = partition_paths(indptr, indices, max_depth, pieces)
    arcs = paths.arcs[paths.arcs >= 0]
    assert np.array_equal(np.sort(arcs), np.arange(indices.size)), "every arc on exactly one path"
    tails = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    for p in range(paths.num_paths):
        span = slice(paths.offsets[p], paths.offsets[p + 1])
        vertices, path_arcs = paths.vertices[span], paths.arcs[span]
        assert 1 <= vertices.size - 1 <= max_depth
        assert path_arcs[-1] == -1
        assert np.array_equal(tails[path_arcs[:-1]], vertices[:-1])
        assert np.array_equal(indices[path_arcs[:-1]], vertices[1:])
    # the paper's constraint: a vertex is an inner vertex of at most one path
    inner = np.concatenate([paths.vertices[paths.offsets[p] + 1:paths.offsets[p + 1] - 1]
                            for p in range(paths.num_paths)] or [np.zeros(0, dtype=np.int64)])
    assert np.bincount(inner, minlength=indptr.size - 1).max(initial=0) <= 1
    return paths


@pytest.mark.parametrize("pieces", [1, 2, 7, 100])
@pytest.mark.parametrize("max_depth", [1, 2, 16])
def test_partition_covers_every_arc_once_within_the_depth_bound(max_depth, pieces):
    graph = random_graph()
    check_partition(*csr(graph), max_depth, pieces)


def test_pieces_end_paths_at_their_borders_and_link_across_them():
    chain = gg.from_edges(np.arange(40), np.arange(1, 41), num_vertices=41)
    assert list(partition_paths(*csr(chain), 16, 1).lengths) == [16, 16, 8]
    # two pieces of 20 arcs: each traversal stops at 16 arcs and at the border; the short
    # paths are linked within and across the border while the result stays within D_MAX
    assert list(partition_paths(*csr(chain), 16, 2).lengths) == [16, 4, 16, 4]
    assert list(partition_paths(*csr(chain), 16, 4).lengths) == [10, 10, 10, 10]


@pytest.mark.parametrize("pieces", [1, 3, 16])
def test_tiny_and_empty_graphs_in_pieces(pieces):
    for src, dst, n in (([], [], 0), ([], [], 3), ([0], [0], 1), ([0, 1], [1, 0], 2), ([0, 0, 2], [1, 2, 0], 5)):
        graph = gg.from_edges(src, dst, num_vertices=n)
        layout = build_layout(*csr(graph), pieces=pieces)
        assert np.array_equal(np.sort(layout.arcs[layout.arcs >= 0]), np.arange(len(src)))
        assert layout.pieces == pieces and layout.num_paths <= len(src)
    with pytest.raises(InvalidParameterError, match="pieces"):
        build_layout(*csr(random_graph()), pieces=0)
    with pytest.raises(InvalidParameterError, match="pieces"):
        solve(random_graph(), "pagerank", pieces=0)


def test_layers_follow_dependencies_and_sccs_match_scipy():
    graph = random_graph(n=40, m=90, seed=5)
    indptr, indices = csr(graph)
    paths = partition_paths(indptr, indices, 4)
    dependencies = path_dependencies(paths, indptr, indices)
    # the explicit path dependency graph: p -> q when p enters a vertex q leaves
    entered, left = {}, {}
    for p in range(paths.num_paths):
        vertices = paths.vertices[paths.offsets[p]:paths.offsets[p + 1]]
        for v in vertices[1:]:
            entered.setdefault(int(v), set()).add(p)
        for v in vertices[:-1]:
            left.setdefault(int(v), set()).add(p)
    pairs = [(p, q) for v in entered for p in entered[v] for q in left.get(v, ())]
    source, target = zip(*pairs)
    matrix = sp.csr_array((np.ones(len(pairs)), (source, target)), shape=(paths.num_paths,) * 2)
    _, expected = connected_components(matrix, directed=True, connection="strong")
    scc = dependencies.scc
    assert all((expected[p] == expected[q]) == (scc[p] == scc[q]) for p in range(paths.num_paths)
               for q in range(paths.num_paths))
    for p, q in pairs:
        if scc[p] == scc[q]:
            assert dependencies.layer[p] == dependencies.layer[q]
        else:
            assert dependencies.layer[q] > dependencies.layer[p]


def test_layout_orders_paths_by_layer_and_chunks_them():
    graph = random_graph(n=80, m=500, seed=8)
    layout = build_layout(*csr(graph), 16, 8)
    assert np.all(np.diff(layout.chunk_layer) >= 0)
    arcs_per_chunk = np.diff(layout.offsets[layout.chunk_offsets]) - np.diff(layout.chunk_offsets)
    single = np.diff(layout.chunk_offsets) == 1
    assert np.all((arcs_per_chunk <= 8) | single)
    assert layout.chunk_offsets[-1] == layout.num_paths
    assert np.array_equal(np.sort(layout.arcs[layout.arcs >= 0]), np.arange(graph.num_arcs))


def expected_answer(graph, algorithm, parameters):
    if algorithm == "pagerank":
        return np.asarray(gg.backend.to_numpy(pagerank.run(graph, tol=1e-13, max_iterations=3000)["rank"]))
    if algorithm == "adsorption":
        return gg.backend.to_numpy(adsorption.run(graph, tol=1e-14, max_iterations=5000)["score"])
    if algorithm == "sssp":
        return gg.backend.to_numpy(sssp.run(graph, **parameters)["distance"])
    return gg.backend.to_numpy(kcore.run(graph)["core"]) >= parameters["k"]


def assert_same_answer(graph, algorithm, result, parameters):
    expected = expected_answer(graph.to("cpu"), algorithm, parameters)
    value = next(iter(result.values.values()))
    if algorithm in ("pagerank", "adsorption"):
        assert np.abs(value - expected).sum() <= 1e-5 * np.abs(expected).sum()
    else:
        assert np.array_equal(value, expected)


CASES = [("pagerank", {}), ("adsorption", {}), ("sssp", {"source": 0}), ("kcore", {"k": 14})]


@pytest.mark.parametrize("algorithm, parameters", CASES)
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_every_schedule_converges_to_the_library_answer_on_the_cpu(algorithm, parameters, schedule):
    graph = random_graph(n=300, m=2400, seed=11, weighted=algorithm == "sssp")
    result = solve(graph, algorithm, schedule=schedule, **parameters)
    assert result.stats["converged"]
    assert result.stats["vertex_updates"] > 0 and result.stats["arcs_loaded"] >= result.stats["arcs_delivered"]
    assert_same_answer(graph, algorithm, result, parameters)


@pytest.mark.parametrize("algorithm, parameters", CASES)
@pytest.mark.parametrize("pieces", [1, 2, 9, 400])
def test_layout_in_pieces_converges_to_the_library_answer(algorithm, parameters, pieces):
    graph = random_graph(n=300, m=2400, seed=11, weighted=algorithm == "sssp")
    for schedule in ("path", "path-w"):
        result = solve(graph, algorithm, schedule=schedule, pieces=pieces, **parameters)
        assert result.stats["converged"] and result.stats["layout_pieces"] == pieces
        assert_same_answer(graph, algorithm, result, parameters)


def test_partition_starts_at_the_hottest_vertex_and_follows_hot_successors():
    # a hub 0 -> 1..5; vertex 3 has the highest out-degree of the heads
    src = [0, 0, 0, 0, 0, 3, 3, 3, 2]
    dst = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    graph = gg.from_edges(src, dst, num_vertices=10)
    paths = check_partition(*csr(graph), 16)
    first = paths.vertices[paths.offsets[0]:paths.offsets[1]]
    assert list(first[:2]) == [0, 3], first


def test_a_chain_becomes_one_path():
    graph = gg.from_edges(np.arange(9), np.arange(1, 10), num_vertices=10)
    paths = partition_paths(*csr(graph), 16)
    assert paths.num_paths == 1 and list(paths.vertices) == list(range(10))


def test_short_paths_are_linked_head_to_tail_only_within_the_bound():
    graph = gg.from_edges(np.arange(40), np.arange(1, 41), num_vertices=41)
    paths = partition_paths(*csr(graph), 16)
    assert list(paths.lengths) == [16, 16, 8]


@pytest.mark.cudasim
@pytest.mark.parametrize("algorithm, parameters", CASES)
def test_cuda_kernels_match_the_cpu_under_the_simulator(device, algorithm, parameters):
    graph = random_graph(n=24, m=90, seed=2, device=device, weighted=algorithm == "sssp")
    parameters = {**parameters, "k": 6} if algorithm == "kcore" else parameters
    for schedule in ("bsp", "async", "path"):
        result = solve(graph, algorithm, schedule=schedule, **parameters)
        assert result.stats["converged"]
        assert_same_answer(graph, algorithm, result, parameters)


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
@pytest.mark.parametrize("algorithm, parameters", CASES)
def test_shared_memory_proxies_keep_every_answer_under_the_simulator(algorithm, parameters):
    """With proxies the CUDA walks deliver to the hottest vertices through the block's shared
    memory (SUM adds, MIN takes the minimum, PEEL counts deletions), read those vertices with
    what the proxies hold and apply them at the block's end: the same answers, for both round
    kernels (every round listed by the host with ``profile``, launched ahead without it)."""
    graph = random_graph(n=24, m=90, seed=2, device="cuda", weighted=algorithm == "sssp")
    parameters = {**parameters, "k": 6} if algorithm == "kcore" else parameters
    for profile in (False, True):
        result = solve(graph, algorithm, schedule="path", proxies=6, profile=profile, **parameters)
        assert result.stats["converged"] and result.stats["proxy_vertices"] == 6
        assert_same_answer(graph, algorithm, result, parameters)


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_a_walk_reads_a_hot_vertex_with_what_its_proxy_holds():
    """The path 0 -> 1 -> 2 -> 5 through the hot vertex 1 (three arcs in): the walk's delivery to
    1's proxy goes on to 2 and 5 in the same round (the paper's proxies, used by the local
    mirrors), so SSSP takes the rounds it takes without proxies, not one more."""
    graph = gg.from_edges(np.array([0, 1, 3, 4, 2]), np.array([1, 2, 1, 1, 5]), np.ones(5), num_vertices=6,
                          device="cuda")
    layout, _ = engine.path_layout(graph, engine.make_program(graph, "sssp", source=0))
    walks = {tuple(layout.vertices[layout.offsets[p]:layout.offsets[p + 1]]) for p in range(layout.offsets.size - 1)}
    assert (0, 1, 2, 5) in walks
    plain = solve(graph, "sssp", schedule="path", source=0, proxies=0, profile=True)
    hot = solve(graph, "sssp", schedule="path", source=0, proxies=1, profile=True)
    assert hot.stats["proxy_vertices"] == 1 and hot.stats["rounds"] == plain.stats["rounds"]
    assert np.array_equal(hot["distance"], [0, 1, 2, np.inf, np.inf, 3])


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
@pytest.mark.parametrize("algorithm, parameters", CASES[1:])  # a SUM (adsorption), MIN and PEEL program
def test_blocks_owning_stretches_of_chunks_with_and_without_stealing_keep_every_answer(algorithm, parameters,
                                                                                       monkeypatch):
    """``balance="static"`` and ``"stealing"``: a grid of blocks, each taking its stretch of the
    round's chunks through its cursor (and then, stealing, half of what is left of the nearest
    block's with chunks left), gives the same answers, launched ahead, for SSSP also with proxies,
    and for k-core (few rounds) also statically and listed by the host (``profile``); blocks of
    32 threads, so that the simulator runs several blocks and their cursors' two rows alternate
    between rounds."""
    from gpugraph import config

    monkeypatch.setattr(config, "CUDA_THREADS_PER_BLOCK", 32)
    graph = random_graph(n=40, m=240, seed=3, device="cuda", weighted=algorithm == "sssp")
    parameters = {**parameters, "k": 6} if algorithm == "kcore" else parameters
    variants = {"adsorption": (("stealing", False, 0),), "sssp": (("stealing", False, 0), ("stealing", False, 6)),
                "kcore": (("static", False, 0), ("stealing", True, 0))}[algorithm]
    for balance, profile, proxies in variants:
        result = solve(graph, algorithm, schedule="path", balance=balance, proxies=proxies, chunk_arcs=2,
                       profile=profile, **parameters)
        assert result.stats["converged"] and result.stats["chunks"] > 2 * 32
        assert result.stats["proxy_vertices"] == proxies
        assert_same_answer(graph, algorithm, result, parameters)


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_work_stealing_refuses_buckets_on_a_gpu():
    graph = random_graph(n=24, m=90, seed=2, device="cuda", weighted=True)
    with pytest.raises(InvalidParameterError, match="without buckets"):
        solve(graph, "sssp", schedule="path", balance="stealing", bucket_width=2.0, source=0)


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
@pytest.mark.parametrize("algorithm, parameters", CASES[1:])  # a SUM (adsorption), MIN and PEEL program
@pytest.mark.parametrize("slots, profile", [(1024, False), (3, True)])
def test_batched_messages_keep_every_answer_under_the_simulator(algorithm, parameters, slots, profile, monkeypatch):
    """``batching=True``: the messages of arcs into vertices their chunk does not read wait in the
    block's shared memory and are pushed at its end by destination partition; the same answers,
    launched ahead, and listed by the host (``profile``) with a batch that overflows (3 slots:
    the rest delivered at once). MIN programs then use no proxies by default."""
    from gpugraph.engines.path import _rounds_cuda

    monkeypatch.setattr(_rounds_cuda, "BATCH_SLOTS", slots)
    graph = random_graph(n=24, m=90, seed=2, device="cuda", weighted=algorithm == "sssp")
    parameters = {**parameters, "k": 6} if algorithm == "kcore" else parameters
    result = solve(graph, algorithm, schedule="path", batching=True, chunk_arcs=4, profile=profile, **parameters)
    assert result.stats["converged"] and result.stats["batched"] and result.stats["proxy_vertices"] == 0
    assert_same_answer(graph, algorithm, result, parameters)


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_unread_heads_are_the_arcs_into_vertices_their_chunk_does_not_hold_elsewhere():
    """``unread_heads`` flags an arc position when its head is at no other position of its chunk
    (positions without an arc: 0), against a loop over the layout; batching refuses proxies,
    buckets and a balance, and the CPU ignores it."""
    graph = random_graph(n=24, m=90, seed=2, device="cuda")
    layout, _ = engine.path_layout(graph, engine.make_program(graph, "pagerank"), chunk_arcs=4)
    kernels = engine._kernels(graph.backend)
    unread = kernels.unread_heads(*(graph.backend.asarray(a) for a in (layout.chunk_offsets, layout.offsets,
                                                                         layout.vertices, layout.arcs)))
    expected = np.zeros(layout.vertices.size, dtype=np.uint8)
    for c in range(layout.num_chunks):
        first, last = layout.offsets[layout.chunk_offsets[c]], layout.offsets[layout.chunk_offsets[c + 1]]
        chunk = list(layout.vertices[first:last])
        for j in range(first, last):
            if layout.arcs[j] >= 0:
                expected[j] = chunk.count(layout.vertices[j + 1]) == 1
    assert 0 < expected.sum() < np.count_nonzero(layout.arcs >= 0)
    assert np.array_equal(np.asarray(unread), expected)
    for options in ({"proxies": 4}, {"bucket_width": 2.0}, {"proxies": 0, "balance": "static"}):
        with pytest.raises(InvalidParameterError, match="batching runs plain rounds"):
            solve(graph, "sssp", schedule="path", batching=True, source=0, **options)
    assert not solve(graph.to("cpu"), "pagerank", schedule="path", batching=True).stats["batched"]


def test_the_cpu_takes_any_balance_and_an_unknown_one_is_refused():
    """The CPU's rounds take chunks from a dynamic schedule whatever ``balance`` says."""
    graph = random_graph(n=24, m=90, seed=2, device="cpu")
    assert_same_answer(graph, "pagerank", solve(graph, "pagerank", balance="stealing", proxies=4), {})
    with pytest.raises(InvalidParameterError, match="unknown balance 'dynamic'"):
        solve(graph, "pagerank", balance="dynamic")


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_minimum_programs_use_proxies_by_default_and_the_others_do_not():
    """``proxies=None``: ``config.PATH_MIN_PROXY_VERTICES`` for MIN programs (SSSP), none for
    SUM (PageRank) on the GPU."""
    from gpugraph import config

    graph = random_graph(n=200, m=1500, seed=4, device="cuda", weighted=True)
    hot = int((np.bincount(np.asarray(graph.to("cpu").indices), minlength=200) > 1).sum())
    assert solve(graph, "sssp", source=0).stats["proxy_vertices"] == min(config.PATH_MIN_PROXY_VERTICES, hot) > 0
    assert solve(graph, "pagerank").stats["proxy_vertices"] == 0


@pytest.mark.parametrize("width", [None, 1.0, 3.0, 1e9])
def test_buckets_keep_sssp_exact_and_narrow_ones_update_fewer_vertices(width, monkeypatch):
    """MIN programs' buckets (``bucket_width``): every width, with and without layered dispatch
    and per-round listing (``profile``), gives ``bsp``'s distances; ``None`` takes
    ``config.PATH_MIN_BUCKET_WEIGHTS`` mean weights (set to 2 here; infinite, no buckets, by
    default), ``math.inf`` turns the buckets off."""
    monkeypatch.setattr(engine.config, "PATH_MIN_BUCKET_WEIGHTS", 2.0)
    graph = random_graph(n=300, m=2400, seed=5, weighted=True)
    expected = solve(graph, "sssp", schedule="bsp", source=0)["distance"]
    for schedule, options in (("path", {}), ("path-w", {}), ("path", {"layered": True}),
                              ("path", {"profile": True})):
        result = solve(graph, "sssp", schedule=schedule, source=0, bucket_width=width, **options)
        assert result.stats["converged"] and np.array_equal(result["distance"], expected), (schedule, options)
        mean_weight = float(np.asarray(graph.weights).mean())
        assert result.stats["bucket_width"] == pytest.approx(width if width is not None else 2.0 * mean_weight)
    plain = solve(graph, "sssp", schedule="path", source=0, bucket_width=np.inf)
    assert "bucket_width" not in plain.stats and np.array_equal(plain["distance"], expected)
    narrow = solve(graph, "sssp", schedule="path", source=0, bucket_width=1.0)
    assert narrow.stats["vertex_updates"] <= plain.stats["vertex_updates"]
    monkeypatch.undo()
    assert "bucket_width" not in solve(graph, "sssp", schedule="path", source=0).stats  # off by default


def test_buckets_leave_other_programs_alone_and_reject_widths_below_zero():
    graph = random_graph(n=120, m=900, seed=6, weighted=True)
    assert "bucket_width" not in solve(graph, "pagerank", bucket_width=2.0).stats
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(InvalidParameterError, match="bucket_width"):
            solve(graph, "sssp", source=0, bucket_width=bad)


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_buckets_keep_sssp_exact_on_the_cuda_kernels_under_the_simulator():
    """The CUDA wake with buckets (``bucket_bound``, then only states within the width) and the
    walks that leave the others pending: the distances of ``bsp``, rounds launched ahead and
    listed by the host; proxies are not used with buckets."""
    graph = random_graph(n=24, m=90, seed=2, device="cuda", weighted=True)
    expected = solve(graph.to("cpu"), "sssp", schedule="bsp", source=0)["distance"]
    for options in ({}, {"profile": True}, {"proxies": 6}, {"layered": True}):
        result = solve(graph, "sssp", schedule="path", source=0, bucket_width=2.0, **options)
        assert result.stats["converged"] and np.array_equal(result["distance"], expected), options
        assert result.stats["proxy_vertices"] == 0


def test_proxies_are_the_hottest_vertices_and_the_cpu_ignores_them():
    """``_proxy_slots`` picks the vertices with the most path arcs into them (more than one) and
    names the slot of the vertex at each position of the layout; the CPU rounds use none and
    keep the answer; a count outside [0, PATH_PROXY_SLOTS] is a named error."""
    from gpugraph import config

    graph = random_graph(n=200, m=1500, seed=4)
    program_result = solve(graph, "pagerank", schedule="path", proxies=8)
    assert program_result.stats["proxy_vertices"] == 0
    expected = solve(graph, "pagerank", schedule="bsp")["rank"]
    assert np.abs(program_result["rank"] - expected).sum() <= 1e-5
    layout, _ = engine.path_layout(graph, engine.make_program(graph, "pagerank"))
    position_proxy, hot = engine._proxy_slots(layout, graph.num_vertices, 8)
    arcs_in = np.bincount(layout.vertices[np.flatnonzero(layout.arcs >= 0) + 1], minlength=graph.num_vertices)
    assert hot.size == 8 and arcs_in[hot].min() >= np.sort(arcs_in)[-9]
    assert position_proxy.shape == layout.vertices.shape
    assert np.array_equal(position_proxy >= 0, np.isin(layout.vertices, hot))
    assert np.array_equal(hot[position_proxy[position_proxy >= 0]], layout.vertices[position_proxy >= 0])
    chain = gg.from_edges(np.arange(5), np.arange(1, 6), num_vertices=6)  # every vertex has one arc in
    chain_layout, _ = engine.path_layout(chain, engine.make_program(chain, "pagerank"))
    assert engine._proxy_slots(chain_layout, 6, 4)[1].size == 0
    for bad in (-1, config.PATH_PROXY_SLOTS + 1):
        with pytest.raises(InvalidParameterError, match="proxies"):
            solve(graph, "pagerank", proxies=bad)


def test_cuda_path_rounds_compile_to_ptx(ptx_of):
    """The CUDA path round kernels compile for sm_90; only the one with proxies uses shared float
    atomics (the proxies' sums) or takes ``position_proxy`` (the plain rounds are compiled without
    the proxies' branches), only the batched one counts its messages in shared memory."""
    from gpugraph.engines.path import _rounds_cuda as kernels

    chunks, positions, n = 4, 12, 8
    offsets, chunk_offsets = np.arange(0, positions + 1, 3, dtype=np.int64), np.arange(chunks + 1, dtype=np.int64)
    vertices, floats = np.zeros(positions, dtype=np.int64), np.zeros(n)
    tail = (chunk_offsets, offsets, vertices, np.ones(positions), np.zeros(positions), floats,
            np.zeros(n, dtype=np.int64), np.float64(0.0), np.zeros(n, dtype=np.uint8), np.int64(4),
            np.zeros(2, dtype=np.int64))
    position_proxy = np.full(positions, -1, dtype=np.int16)
    listed, active, hot = np.arange(chunks, dtype=np.int64), np.ones(chunks, dtype=np.int64), np.zeros(2, np.int64)
    unread = np.zeros(positions, dtype=np.uint8)
    for kernel, arguments, proxies in ((kernels.path_round, (listed, *tail), False),
                                       (kernels.path_round_active, (active, *tail), False),
                                       (kernels.path_round_proxies, (True, listed, *tail, position_proxy, hot), True),
                                       (kernels.path_round_batched, (True, listed, *tail, unread), False)):
        ptx = ptx_of(kernel, (np.int64(1), *arguments))
        assert ("atom.shared.add.f64" in ptx) == proxies, kernel
        assert ("atom.shared.add.u32" in ptx) == (kernel is kernels.path_round_batched), kernel  # the batch's count


def test_dispatch_window_and_layout_options_keep_the_answer():
    graph = random_graph(n=200, m=1500, seed=4)
    expected = solve(graph, "pagerank", schedule="bsp")["rank"]
    for options in ({"priority_min_chunks": 0}, {"layered": True}, {"priority_min_chunks": 0, "layered": True},
                    {"sweeps": 4},
                    {"max_depth": 2}, {"chunk_arcs": 1}):
        for schedule in ("path", "path-w"):
            result = solve(graph, "pagerank", schedule=schedule, **options)
            assert np.abs(result["rank"] - expected).sum() < 1e-5, (schedule, options)


def test_path_schedule_needs_fewer_vertex_updates_than_bsp():
    graph = gg.rmat(10, seed=1)
    bsp = solve(graph, "pagerank", schedule="bsp").stats
    path = solve(graph, "pagerank", schedule="path").stats
    assert path["vertex_updates"] < 0.6 * bsp["vertex_updates"]
    assert path["paths"] > 0 and path["layout_seconds"] > 0


@pytest.mark.parametrize("name", ["wiki-Vote.txt.gz", "soc-Slashdot0902.txt.gz"])
def test_real_graphs_pagerank_and_sssp(dataset, name):
    graph = gg.load(dataset(name))
    for algorithm, parameters in (("pagerank", {}), ("sssp", {"source": 0})):
        result = solve(graph, algorithm, **parameters)
        assert_same_answer(graph, algorithm, result, parameters)


def test_bad_input_raises_named_errors():
    graph = random_graph()
    with pytest.raises(InvalidParameterError, match="schedule"):
        solve(graph, "pagerank", schedule="fast")
    with pytest.raises(InvalidParameterError, match="path engine runs"):
        solve(graph, "bfs")
    with pytest.raises(InvalidParameterError, match="k >= 1"):
        solve(graph, "kcore")
    with pytest.raises(InvalidParameterError):
        solve(graph, "pagerank", damping=1.5)
    with pytest.raises(InvalidParameterError, match="takes damping, tol; not source"):
        solve(graph, "pagerank", source=3)
    with pytest.raises(VertexIdError):
        solve(graph, "sssp", source=10_000)
    negative = gg.from_edges([0, 1], [1, 2], [1.0, -2.0])
    with pytest.raises(InvalidWeightError, match="1 -> 2"):
        solve(negative, "sssp")
    with pytest.raises(InvalidWeightError):
        solve(gg.from_edges([0, 1], [1, 2], [1.0, np.nan]), "sssp")
    with pytest.raises(EmptyGraphError):
        solve(gg.from_edges([], [], num_vertices=0), "pagerank")


def test_graph_without_arcs():
    graph = gg.from_edges([], [], num_vertices=3)
    for schedule in SCHEDULES:
        assert np.allclose(solve(graph, "pagerank", schedule=schedule)["rank"], 1 / 3)
        assert solve(graph, "kcore", schedule=schedule, k=1)["in_core"].sum() == 0


def test_out_of_memory_is_a_named_error(monkeypatch):
    def exhausted(*args, **kwargs):
        raise MemoryError("simulated allocation failure")

    monkeypatch.setattr(engine, "_PathRounds", exhausted)
    with pytest.raises(DeviceOutOfMemoryError, match="out of memory allocating the path schedule's state"):
        solve(random_graph(), "pagerank")


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_user_accumulative_program_katz_centrality(schedule):
    graph = random_graph(n=120, m=700, seed=9)
    indptr, indices = csr(graph)
    n = graph.num_vertices
    alpha = 0.9 / max(int(np.diff(indptr).max()), 1)
    program = accumulative(graph, np.full(graph.num_arcs, alpha), np.ones(n), tol=1e-10)
    result = solve(graph, program, schedule=schedule)
    adjacency = sp.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n))
    expected = sp.linalg.spsolve(sp.identity(n, format="csc") - alpha * adjacency.T.tocsc(), np.ones(n))
    assert result.algorithm == "accumulative"
    assert np.allclose(result["value"], expected, rtol=1e-7)


@pytest.mark.parametrize("schedule", ["bsp", "async", "path"])
def test_user_minimum_program_nearest_facility(schedule):
    graph = random_graph(n=150, m=600, seed=12, weighted=True)
    indptr, indices = csr(graph)
    weights = np.asarray(graph.weights)
    initial = np.full(graph.num_vertices, np.inf)
    initial[[3, 77]] = 0.0
    result = solve(graph, minimum(graph, weights, initial), schedule=schedule)
    matrix = sp.csr_array((weights, indices, indptr), shape=(graph.num_vertices,) * 2)
    expected = sp.csgraph.dijkstra(matrix, indices=[3, 77]).min(axis=0)
    assert np.array_equal(result["value"], expected)


def test_user_programs_refuse_bad_input():
    graph = random_graph()
    n, m = graph.num_vertices, graph.num_arcs
    with pytest.raises(InvalidParameterError, match="arc values and"):
        accumulative(graph, np.zeros(m - 1), np.ones(n))
    with pytest.raises(InvalidParameterError, match="converges only below 1"):
        accumulative(graph, np.ones(m), np.ones(n))
    with pytest.raises(InvalidParameterError, match="finite"):
        accumulative(graph, np.zeros(m), np.full(n, np.nan))
    with pytest.raises(InvalidParameterError, match="non-negative"):
        minimum(graph, -np.ones(m), np.zeros(n))
    with pytest.raises(InvalidParameterError, match="no parameters"):
        solve(graph, minimum(graph, np.ones(m), np.zeros(n)), source=1)


@pytest.mark.parametrize("schedule", ["path", "path-w", "async"])
@pytest.mark.parametrize("algorithm, parameters", CASES)
def test_rounds_launched_ahead_count_the_same(monkeypatch, schedule, algorithm, parameters):
    # Rounds launched after convergence (the GPU launches config.PATH_ROUNDS_AHEAD before the host
    # checks) change nothing: the same answer, rounds, vertex updates and arcs as one at a time
    # (one thread: with several, the order of floating-point additions can move a round).
    import numba

    from gpugraph.engines.path import engine

    graph = random_graph(n=200, m=1500, seed=5, weighted=algorithm == "sssp")
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one = solve(graph, algorithm, schedule=schedule, **parameters)
        monkeypatch.setattr(engine, "_rounds_ahead", lambda backend: 5)
        ahead = solve(graph, algorithm, schedule=schedule, **parameters)
    finally:
        numba.set_num_threads(threads)
    assert one.stats["rounds"] > 1
    for key in ("rounds", "converged", "vertex_updates", "arcs_loaded", "arcs_delivered"):
        assert ahead.stats[key] == one.stats[key], key
    assert_same_answer(graph, algorithm, ahead, parameters)
    short = solve(graph, algorithm, schedule=schedule, max_rounds=1, **parameters)
    assert short.stats["rounds"] == min(1, one.stats["rounds"])
    assert short.stats["converged"] == (one.stats["rounds"] <= 1)


@pytest.mark.parametrize("algorithm, parameters", CASES)
def test_prioritised_rounds_go_one_at_a_time_like_the_timed_loop(algorithm, parameters):
    # priority_min_chunks=0: every round is listed in priority order by the host, in the rounds
    # launched ahead as in the loop that times each round (profile=True): the same counts.
    import numba

    graph = random_graph(n=200, m=1500, seed=6, weighted=algorithm == "sssp")
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        ahead = solve(graph, algorithm, schedule="path", priority_min_chunks=0, **parameters)
        timed = solve(graph, algorithm, schedule="path", priority_min_chunks=0, profile=True, **parameters)
    finally:
        numba.set_num_threads(threads)
    for key in ("rounds", "converged", "vertex_updates", "arcs_loaded", "arcs_delivered"):
        assert ahead.stats[key] == timed.stats[key], key
    assert "walk_seconds" in timed.stats and "walk_seconds" not in ahead.stats


def test_cuda_vertex_round_compiles_to_ptx(ptx_of):
    """The CUDA round of the vertex-centric schedules (bsp, async), with the async flag's
    clearing fenced before the state's atomic read, compiles for sm_90."""
    from gpugraph.engines.path import _rounds_cuda as kernels

    n, arcs = 8, 16
    indptr, indices = np.arange(0, arcs + 1, 2, dtype=np.int64), np.zeros(arcs, dtype=np.int64)
    floats = np.zeros(n)
    flags = np.zeros(n, dtype=np.uint8)
    ptx = ptx_of(kernels.vertex_round, (np.int64(1), False, np.arange(n, dtype=np.int64), indptr, indices,
                                        np.ones(arcs), floats, floats.copy(), floats.copy(), flags,
                                        np.zeros(n, dtype=np.int64), np.float64(0.0), flags.copy(),
                                        np.zeros(2, dtype=np.int64)))
    assert "membar.gl" in ptx or "fence" in ptx


def test_async_minimum_rounds_lose_no_concurrent_improvement():
    """The ``async`` schedule's MIN round clears a vertex's pending flag and reads its state
    while other threads may improve it: the read must not be served before the clearing, or an
    improvement is lost and a wrong answer "converges" (before the fix: ~0.5% of runs on 2 idle
    cores, ~1.5% on 2 busy ones). 1,000 runs of a few milliseconds."""
    graph = random_graph(n=300, m=2400, seed=11, weighted=True)
    expected = expected_answer(graph, "sssp", {"source": 0})
    wrong = sum(not np.array_equal(solve(graph, "sssp", schedule="async", source=0).values["distance"], expected)
                for _ in range(1000))
    assert wrong == 0
