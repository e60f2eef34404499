"""Degree separation, the edge distributor and the BFS over processes (issue 8).

Every tree is checked by the independent validator (gpugraph.graph500.validate) and its levels
against SciPy's hop distances; several processes run as Gloo ranks on the CPU; the CUDA kernels
run under the simulator (``-m cudasim``) and compile to sm_90 PTX here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from gpugraph import config
from gpugraph.backend import get_backend
from gpugraph.errors import InvalidParameterError, VertexIdError
from gpugraph.graph500 import distributor, harness, separation
from gpugraph.graph500.bfs import Group, Options, Searcher
from gpugraph.graph500.validate import validate
from gpugraph.io.generators import rmat_edges


def _edges(scale=9, seed=3):
    edges = rmat_edges(scale, seed=seed)
    return edges.src.astype(np.int64), edges.dst.astype(np.int64), 1 << scale


def _build(comm, layout, sources, targets, delegates):
    """A process's subgraphs from its edge slice, as the harness builds them."""
    return distributor.build(comm, layout, sources, targets, delegates)


def _searcher(sources, targets, n, threshold=None, options=None, device="cpu", relabel=False):
    group = Group(get_backend(device))
    xp = group.backend.xp
    sources, targets = xp.asarray(sources), xp.asarray(targets)
    degree = separation.degrees(group, sources, targets, n)
    if threshold is None:
        threshold = separation.choose_threshold(degree, separation.edge_share_table(group, sources, targets, degree), 1)
    relabeling = separation.by_degree(degree) if relabel else None
    if relabeling is not None:
        sources, targets, degree = relabeling.new_id[sources], relabeling.new_id[targets], degree[relabeling.original_id]
    delegates = separation.separate(degree, threshold)
    parts = _build(group, distributor.Layout(1), sources, targets, delegates)
    return Searcher(group, parts, options, relabeling)


def _hops(sources, targets, n, root):
    keep = sources != targets
    matrix = sp.csr_matrix((np.ones(2 * int(keep.sum())), (np.concatenate((sources[keep], targets[keep])),
                                                           np.concatenate((targets[keep], sources[keep])))),
                           shape=(n, n))
    hops = shortest_path(matrix, unweighted=True, indices=root)
    return np.where(np.isfinite(hops), hops, -1).astype(np.int64)


@pytest.mark.parametrize("threshold", [None, 0, 4, 1 << 30])
@pytest.mark.parametrize("direction_optimizing", [True, False])
def test_one_process_trees_are_valid_bfs_trees(threshold, direction_optimizing):
    sources, targets, n = _edges()
    searcher = _searcher(sources, targets, n, threshold, Options(direction_optimizing=direction_optimizing))
    for root in np.flatnonzero(np.bincount(np.concatenate((sources, targets)), minlength=n))[:4]:
        stats = searcher.search(int(root))
        outcome = validate(sources, targets, n, int(root), searcher.parents())
        np.testing.assert_array_equal(outcome["levels"], _hops(sources, targets, n, int(root)))
        assert stats["levels"] == outcome["max_level"] + 1
        if not direction_optimizing:
            assert all(set(level.values()) == {"forward"} for level in stats["directions"])


def test_direction_optimisation_goes_backward_on_rmat():
    sources, targets, n = _edges(scale=11)
    searcher = _searcher(sources, targets, n)
    stats = searcher.search(int(np.argmax(np.bincount(sources, minlength=n))))
    assert any("backward" in level.values() for level in stats["directions"])
    assert len(stats["frontiers"]) == stats["levels"]


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.cudasim)])
def test_nn_goes_backward_on_one_process(device):
    """With factor0 = 0 a kind goes backward as soon as it has forward work, nn included: the pass
    over the normals then finds normals through their nn rows (one process only)."""
    from gpugraph.backend.numba_cuda import simulator_enabled

    if device == "cuda" and not simulator_enabled():
        pytest.skip("needs NUMBA_ENABLE_CUDASIM=1")
    sources, targets, n = _edges(scale=7)
    factors = {kind: (0.0, 0.0) for kind in ("dd", "dn", "nd", "nn")}
    searcher = _searcher(sources, targets, n, threshold=8, options=Options(factors=factors), device=device)
    root = int(np.flatnonzero(np.bincount(np.concatenate((sources, targets)), minlength=n))[0])
    stats = searcher.search(root)
    assert any(step["nn"] == "backward" for step in stats["directions"])
    outcome = validate(sources, targets, n, root, searcher.parents())
    np.testing.assert_array_equal(outcome["levels"], _hops(sources, targets, n, root))


@pytest.mark.parametrize("levels_ahead", [1, 2, 3, 20])
def test_levels_in_batches_plan_themselves_like_levels_one_by_one(levels_ahead):
    """Levels launched ahead of the counters' read (as on a GPU) make the same search: the same
    tree, levels, frontiers and directions, whether the search ends inside a batch or after it."""
    sources, targets, n = _edges(scale=10)
    root = int(np.argmax(np.bincount(sources, minlength=n)))
    one_by_one = _searcher(sources, targets, n)
    reference = one_by_one.search(root)
    searcher = _searcher(sources, targets, n, options=Options(levels_ahead=levels_ahead))
    stats = searcher.search(root)
    for key in ("levels", "frontiers", "directions"):
        assert stats[key] == reference[key], key
    np.testing.assert_array_equal(searcher.parents(), one_by_one.parents())
    np.testing.assert_array_equal(searcher.parents(on_device=True), searcher.parents())
    with pytest.raises(InvalidParameterError, match="levels_ahead"):
        _searcher(sources, targets, n, options=Options(levels_ahead=0))


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_cuda_pass_skips_segments_and_finds_the_same_tree(monkeypatch):
    """Segments of 32 normals (128 on a GPU; the simulator reads the constant when the kernel
    runs): the CUDA pass over the normals skips segments without frontier normals or normals
    left to find, yet its levels and tree are those of the CPU pass."""
    from gpugraph.graph500 import _kernels_cpu, _kernels_cuda

    monkeypatch.setattr(_kernels_cpu, "SEGMENT_BITS", 5)
    monkeypatch.setattr(_kernels_cuda, "SEGMENT_BITS", 5)
    sources, targets, n = _edges(scale=8)
    root = int(np.argmax(np.bincount(sources, minlength=n)))
    cpu = _searcher(sources, targets, n)
    reference = cpu.search(root)
    searcher = _searcher(sources, targets, n, device="cuda", options=Options(levels_ahead=4))
    segments = searcher.graph.num_local // 32
    assert searcher.flags.size == 3 * segments + _kernels_cpu.FLAG_PADDING
    stats = searcher.search(root)
    assert stats["levels"] == reference["levels"] and stats["frontiers"] == reference["frontiers"]
    assert any(step["dn"] == "backward" for step in stats["directions"])
    outcome = validate(sources, targets, n, root, searcher.parents())
    np.testing.assert_array_equal(outcome["levels"], _hops(sources, targets, n, root))
    # Every segment's count of normals left to find is what the search left unvisited.
    left = (searcher.depth < 0) & ((searcher.graph.nd.degree() > 0) | (searcher.graph.nn.degree() > 0))
    np.testing.assert_array_equal(searcher.flags[2 * segments:3 * segments],
                                  np.bincount(np.flatnonzero(left) // 32, minlength=segments))


def test_a_delegate_root_and_an_isolated_root():
    # A star (hub 0 is a delegate at TH 2) plus an isolated vertex 9 and a separate edge 7-8.
    sources = np.array([0, 0, 0, 0, 1, 7])
    targets = np.array([1, 2, 3, 4, 2, 8])
    searcher = _searcher(sources, targets, 10, threshold=2)
    assert searcher.graph.num_delegates == 1
    searcher.search(0)
    parent = searcher.parents()
    assert parent[0] == 0 and set(parent[[1, 2, 3, 4]]) == {0} and parent[7] == -1
    searcher.search(9)
    assert np.flatnonzero(searcher.parents() >= 0).tolist() == [9]
    searcher.search(8)
    assert searcher.parents()[[7, 8]].tolist() == [8, 8]


def test_relabelled_searcher_takes_roots_and_gives_trees_in_original_ids():
    sources, targets, n = _edges()
    searcher = _searcher(sources, targets, n, relabel=True)
    degree = np.bincount(np.concatenate((sources, targets)), minlength=n)
    # The searcher's normals: the busiest first, the isolated last.
    assert searcher.graph.nd.degree()[-1] == searcher.graph.nn.degree()[-1] == 0
    for root in (int(np.argmax(degree)), int(np.flatnonzero(degree == 1)[0]), int(np.flatnonzero(degree == 0)[0])):
        searcher.search(root)
        outcome = validate(sources, targets, n, root, searcher.parents())
        np.testing.assert_array_equal(outcome["levels"], _hops(sources, targets, n, root))


def test_relabeling_by_degree_and_back():
    relabeling = separation.by_degree(np.array([1, 3, 0, 3, 2]))
    assert relabeling.original_id.tolist() == [1, 3, 4, 0, 2]  # decreasing degree, ties by id
    assert relabeling.new_id.tolist() == [3, 0, 4, 1, 2]
    # A tree over the new ids (root new 0 = original 1; new 3 = original 0 reached from it).
    tree = relabeling.tree_in_original_ids(np.array([0, 0, -1, 0, -1]))
    assert tree.tolist() == [1, 1, -1, 1, -1]


def test_root_outside_the_graph_is_a_named_error():
    sources, targets, n = _edges(scale=6)
    with pytest.raises(VertexIdError, match="outside"):
        _searcher(sources, targets, n).search(n)


def test_factors_must_name_each_kind():
    sources, targets, n = _edges(scale=6)
    with pytest.raises(InvalidParameterError, match="dd, dn, nd"):
        _searcher(sources, targets, n, options=Options(factors={"dd": (0.5, 0.0)}))
    with pytest.raises(InvalidParameterError, match="dd, dn, nd"):
        _searcher(sources, targets, n, options=Options(factors={}))


# --- separation and distribution ------------------------------------------------------------------
def test_threshold_rule_keeps_nn_edges_small_and_delegates_bounded():
    sources, targets, n = _edges(scale=12)
    group = Group(get_backend("cpu"))
    degree = separation.degrees(group, sources, targets, n)
    table = separation.edge_share_table(group, sources, targets, degree)
    keep = sources != targets
    larger = np.maximum(degree[sources[keep]], degree[targets[keep]])
    for k in (0, 3, 7):
        assert table[k] == np.count_nonzero(larger <= 1 << k)
    for processes, most in ((1, config.GRAPH500_NN_EDGE_SHARE), (4, config.GRAPH500_NN_EDGE_SHARE_SEVERAL)):
        threshold = separation.choose_threshold(degree, table, processes)
        share = np.count_nonzero(larger <= threshold) / larger.size
        assert share <= most and np.count_nonzero(degree > threshold) < 4 * n / processes
        assert np.count_nonzero(larger <= 2 * threshold) / larger.size > most  # the largest such power of two
    with pytest.raises(InvalidParameterError):
        separation.separate(degree, -1)


def test_delegates_are_numbered_by_decreasing_degree():
    degree = np.array([5, 9, 1, 9, 7])
    delegates = separation.separate(degree, 4)
    assert delegates.delegate_ids.tolist() == [1, 3, 4, 0]
    assert delegates.delegate_index.tolist() == [3, 0, -1, 1, 2]


def test_layout_places_every_vertex_once():
    layout = distributor.Layout(hosts=3, gpus_per_host=2)
    vertices = np.arange(100)
    owner = layout.owner(vertices)
    for process in range(layout.processes):
        mine = vertices[owner == process]
        assert mine.size == layout.local_count(process, 100)
        np.testing.assert_array_equal(mine, np.arange(mine.size) * layout.processes + layout.offset(process))
    with pytest.raises(InvalidParameterError):
        distributor.Layout(0)


def test_algorithm_1_destinations():
    layout = distributor.Layout(hosts=3)
    index = np.array([-1, -1, 0, 1, 2, -1], dtype=np.int32)  # delegates: 2, 3, 4
    degree = np.array([1, 1, 8, 6, 8, 1])
    sources = np.array([0, 2, 3, 2, 4])
    targets = np.array([5, 1, 2, 4, 2])
    # normal source -> its owner; delegate to normal -> the normal's owner; delegates -> the lower
    # degree end's owner, or min(u, v)'s on a tie.
    np.testing.assert_array_equal(distributor.destinations(layout, sources, targets, index, degree),
                                  [0 % 3, 1 % 3, 3 % 3, 2 % 3, 2 % 3])


@pytest.mark.parametrize("processes", [2, 3])
def test_subgraphs_cover_every_arc_once_and_pair_nd_with_dn(processes):
    sources, targets, n = _edges(scale=8)
    group = Group(get_backend("cpu"))
    degree = separation.degrees(group, sources, targets, n)
    delegates = separation.separate(degree, 16)
    arcs_from, arcs_to = np.concatenate((sources, targets)), np.concatenate((targets, sources))
    keep = arcs_from != arcs_to
    expected = np.unique(arcs_from[keep] * n + arcs_to[keep])
    layout = distributor.Layout(processes)
    found = []
    for process in range(processes):
        # A group of one building process ``process``'s part keeps that process's arcs only.
        part = _build(_FixedRank(process), layout, sources, targets, delegates)
        ids = delegates.delegate_ids
        local = np.arange(part.num_local) * processes + part.offset
        for name, rows, columns in (("nn", local, None), ("nd", local, ids), ("dn", ids, local), ("dd", ids, ids)):
            csr = getattr(part, name)
            row_ids = np.repeat(rows, np.diff(csr.indptr))
            column_ids = csr.indices if columns is None else columns[csr.indices]
            found.append(row_ids * n + column_ids)
        # Both arcs of a normal-delegate edge are on the normal end's owner.
        nd = set(zip(np.repeat(local, np.diff(part.nd.indptr)).tolist(), ids[part.nd.indices].tolist()))
        dn = set(zip(local[part.dn.indices].tolist(), np.repeat(ids, np.diff(part.dn.indptr)).tolist()))
        assert nd == dn
        memory = part.memory()
        assert memory["bytes"] > 0 and memory["table_i"] < memory["edge_list"]
    np.testing.assert_array_equal(np.sort(np.concatenate(found)), expected)


def _built_in_chunks(sources, targets, n, processes):
    """Degrees, the threshold table and each process's subgraphs (a group of one per process)."""
    group = Group(get_backend("cpu"))
    degree = separation.degrees(group, sources, targets, n)
    table = separation.edge_share_table(group, sources, targets, degree)
    delegates = separation.separate(degree, 16)
    layout = distributor.Layout(processes)
    parts = [_build(_FixedRank(process), layout, sources, targets, delegates) for process in range(processes)]
    return degree, table, parts


def _assert_same_subgraphs(parts, others):
    for part, other in zip(parts, others, strict=True):
        for name in ("nn", "nd", "dn", "dd"):
            np.testing.assert_array_equal(getattr(part, name).indptr, getattr(other, name).indptr)
            np.testing.assert_array_equal(getattr(part, name).indices, getattr(other, name).indices)


@pytest.mark.parametrize("processes", [1, 3])
def test_the_construction_in_small_chunks_builds_the_same_subgraphs(monkeypatch, processes):
    sources, targets, n = _edges(scale=8)
    degree, table, parts = _built_in_chunks(sources, targets, n, processes)
    monkeypatch.setattr(config, "GRAPH500_BUILD_CHUNK_EDGES", 7)  # 586 chunks, the last of 1 edge
    chunked_degree, chunked_table, chunked_parts = _built_in_chunks(sources, targets, n, processes)
    np.testing.assert_array_equal(degree, chunked_degree)
    np.testing.assert_array_equal(table, chunked_table)
    _assert_same_subgraphs(parts, chunked_parts)



@pytest.mark.parametrize("processes", [1, 3])
def test_int32_edges_build_what_int64_edges_build(processes):
    """The harness keeps the generator's int32 ids (half the bytes); packing must widen them."""
    sources, targets, n = _edges(scale=8)
    delegates = separation.separate(separation.degrees(Group(get_backend("cpu")), sources, targets, n), 16)
    layout = distributor.Layout(processes)
    for process in range(processes):
        narrow = _build(_FixedRank(process), layout, sources.astype(np.int32), targets.astype(np.int32), delegates)
        wide = _build(_FixedRank(process), layout, sources.astype(np.int64), targets.astype(np.int64), delegates)
        _assert_same_subgraphs([narrow], [wide])


def test_rows_sorted_in_bands_equal_each_row_sorted_and_unique(monkeypatch):
    """Bands of 6 arcs: rows longer than a band (each a band alone), empty rows inside bands,
    duplicates within rows; every row comes out sorted and unique, as NumPy's ``unique`` makes
    it, and the columns are written back over those already done."""
    monkeypatch.setattr(config, "GRAPH500_BUILD_CHUNK_EDGES", 3)
    rng = np.random.default_rng(5)
    lengths = np.array([0, 2, 9, 0, 0, 3, 4, 14, 1, 0, 6, 5])
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    columns = rng.integers(0, 7, size=indptr[-1]).astype(np.int32)
    expected = [np.unique(columns[indptr[row]:indptr[row + 1]]) for row in range(lengths.size)]
    csr = distributor._sorted_unique_rows(get_backend("cpu"), indptr, columns.copy(), 7)
    assert csr.indices.dtype == np.int32
    np.testing.assert_array_equal(np.diff(csr.indptr), [part.size for part in expected])
    np.testing.assert_array_equal(csr.indices, np.concatenate(expected))


def _build_in_chunks_worker(rank, kind, folder, chunk_edges):
    """A rank of :func:`test_processes_exchanging_chunk_by_chunk_build_what_one_builds`: its
    slice of the edges (rank 1's is empty), built in chunks of ``chunk_edges``, saved."""
    config.GRAPH500_BUILD_CHUNK_EDGES = chunk_edges
    group = Group(get_backend("cpu"), distributed=True)
    sources, targets, n = _edges(scale=8)
    degree = separation.degrees(group, sources, targets, n)  # every rank counts all: summed, x2
    delegates = separation.separate(degree // group.size, 16)
    mine = slice(0, 0) if rank == 1 else slice(sources.size * rank // group.size, sources.size * (rank + 1) // group.size)
    part = _build(group, distributor.Layout(group.size), sources[mine], targets[mine], delegates)
    np.savez(Path(folder) / f"part{rank}.npz", **{f"{name}_{field}": getattr(getattr(part, name), field)
                                                  for name in ("nn", "nd", "dn", "dd") for field in ("indptr", "indices")})


def test_processes_exchanging_chunk_by_chunk_build_what_one_builds(tmp_path):
    """Three Gloo ranks, rank 1 with no edges and the others with different chunk counts (every
    rank takes part in as many exchanges as the busiest), build the parts one builds alone."""
    from gpugraph.distributed.runner import launch

    sources, targets, n = _edges(scale=8)
    launch(_build_in_chunks_worker, 3, "cpu", str(tmp_path), 100)
    # Ranks 0 and 2 hold the edges of slices 0 and 2 (rank 1's slice is built by no one), so
    # compare with each process's part built alone from those edges, with the same delegates.
    kept = np.r_[0:sources.size // 3, sources.size * 2 // 3:sources.size]
    delegates = separation.separate(separation.degrees(Group(get_backend("cpu")), sources, targets, n), 16)
    for rank in range(3):
        part = _build(_FixedRank(rank), distributor.Layout(3), sources[kept], targets[kept], delegates)
        saved = np.load(tmp_path / f"part{rank}.npz")
        for name in ("nn", "nd", "dn", "dd"):
            np.testing.assert_array_equal(getattr(part, name).indptr, saved[f"{name}_indptr"])
            np.testing.assert_array_equal(getattr(part, name).indices, saved[f"{name}_indices"])


class _FixedRank:
    """A group of one that claims to be ``rank`` (builds one process's part without exchanging)."""

    def __init__(self, rank):
        self.rank, self.size, self.backend = rank, 1, get_backend("cpu")

    def allreduce(self, values, op="sum"):
        return np.asarray(values)


# --- the harness, one and several processes -------------------------------------------------------
def test_harness_one_process_prints_the_reference_block():
    record = harness.run(9, processes=1, roots=4)
    assert len(record["seconds"]) == len(record["nedge"]) == 4
    lines = record["text"].splitlines()
    assert lines[0] == "SCALE:                          9" and "harmonic_mean_TEPS:     !  " in record["text"]
    assert record["threshold"] >= 1 and set(record["arcs"]) == {"nn", "nd", "dn", "dd"}


@pytest.mark.parametrize(("processes", "gpus_per_host", "options"), [
    (2, 1, Options()),
    (3, 1, Options(blocking_reduction=False, uniquify=True)),
    (4, 2, Options(direction_optimizing=False)),
    (4, 2, Options(local_all2all=True, uniquify=True)),
    (2, 1, Options(overlap=True)),
    (4, 2, Options(overlap=True, blocking_reduction=False, local_all2all=True)),
    (2, 1, Options(nn_backward=True)),
    (4, 2, Options(nn_backward=True, overlap=True, uniquify=True)),
])
def test_gloo_processes_give_validated_trees(processes, gpus_per_host, options):
    one = harness.run(10, processes=1, roots=3)
    many = harness.run(10, processes=processes, gpus_per_host=gpus_per_host, roots=3, options=options)
    assert many["processes"] == processes and many["roots"] == one["roots"]
    assert many["nedge"] == one["nedge"] and many["levels"] == one["levels"]  # every tree validated on rank 0
    assert len(many["memory"]) == processes
    assert many["nn_pairs_sent"] > 0 and many["nn_messages"] > 0


@pytest.mark.parametrize(("processes", "gpus_per_host", "options"), [
    (2, 1, Options(peer_memory=True)),
    (3, 1, Options(peer_memory=True, levels_ahead=2)),
    (4, 2, Options(peer_memory=True, direction_optimizing=False)),
])
def test_peer_memory_processes_give_validated_trees(processes, gpus_per_host, options):
    """Pairs stored into the owners' inboxes and marks read from every process's block (files in
    shared memory on the CPU), the processes meeting at barriers, the levels planned and ended on
    the devices: the same trees, levels and searched edges as one process."""
    one = harness.run(10, processes=1, roots=3)
    many = harness.run(10, processes=processes, gpus_per_host=gpus_per_host, roots=3, options=options)
    assert many["nedge"] == one["nedge"] and many["levels"] == one["levels"]  # every tree validated on rank 0
    assert many["nn_pairs_sent"] > 0 and many["nn_messages"] == 0
    directions = many["first_search"]["directions"]
    if options.direction_optimizing:  # nn goes backward over the bitmap shares in the blocks
        assert any(level["nn"] == "backward" for level in directions)
    else:
        assert all(level["nn"] == "forward" for level in directions)


def _share_numbers_of(processes, numbers, pulling=()):
    """Each of ``processes`` processes publishes (``share_numbers``, a level of parity 1) its
    three numbers ``numbers(me)``, then decides on its own block; returns every process's
    counters, the blocks and where the sums are. The processes in ``pulling`` also have a
    delegate frontier of one delegate whose dd rows hold 10^6 arcs here, with 1000 delegates
    unvisited, so their dd visit goes backward; the others have no delegate frontier."""
    from gpugraph.graph500 import _kernels_cpu as kernels
    from gpugraph.graph500.bfs import default_factors

    parity = np.int64(1)
    published = tuple(np.full(2 * processes * kernels.PUBLISHED_CELLS, -5, dtype=np.int64)
                      for _ in range(processes))
    shared = np.int64(kernels.counter_cells(2))
    slot = np.int64(parity * kernels.SLOT)
    factors = np.asarray([factor for pair in default_factors(processes).values() for factor in pair])
    counts, cursors = [], np.ones(processes, dtype=np.int64)
    for me in range(processes):
        mine = np.zeros(shared + kernels.SHARED_CELLS, dtype=np.int64)
        mine[slot + kernels.Q_NORMAL], mine[slot + kernels.FV_NN], mine[kernels.UNVISITED_NN] = numbers(me)
        if me in pulling:
            mine[slot + kernels.DD_QUEUE] = (1 << kernels.ARC_BITS) | 10 ** 6
            mine[slot + kernels.UNVISITED_DD] = 1000
        kernels.share_numbers(mine, slot, factors, True, np.int64(0), shared, published, parity, cursors,
                              None, np.int64(me), np.int64(0), np.int64(kernels.PUBLISH))
        assert mine[kernels.PLAN_BACKWARD] == 0  # publishing plans, but keeps the directions
        counts.append(mine)
    assert not cursors.any()  # the inbox's cursors are zeroed when publishing
    for me in range(processes):
        kernels.share_numbers(counts[me], slot, factors, True, np.int64(0), shared, published, parity, cursors,
                              None, np.int64(me), np.int64(0), np.int64(kernels.DECIDE))
    return counts, published, shared


def test_share_numbers_stores_each_process_numbers_in_every_block():
    """``share_numbers``: each process stores its three numbers of the level into its cells of
    the level's parity in every process's ``published``, and a process decides on the sums of
    its own block alone, the same sums on every process; the other parity's cells (the level
    before, which a slow peer may still read) are left alone."""
    from gpugraph.graph500 import _kernels_cpu as kernels

    processes, cells = 3, kernels.SHARED_CELLS
    counts, published, shared = _share_numbers_of(processes, lambda me: (10 + me, 100 * (me + 1), 1000 * (me + 1)))
    for me in range(processes):
        assert counts[me][shared:shared + cells].tolist() == [33, 600, 6000]
        assert (published[me][:processes * kernels.PUBLISHED_CELLS] == -5).all()


@pytest.mark.parametrize(("numbers", "pulling", "marks_meet", "bitmap_meets"), [
    ((10, 100, 10 ** 6), (), False, False),  # nn forward, no delegate pulls: neither meeting
    ((10, 100, 10 ** 6), (2,), True, False),  # one process's dd goes backward: every process meets
    ((10 ** 5, 10 ** 7, 10 ** 6), (), False, True),  # nn goes backward over the gathered bitmap
])
def test_meetings_are_planned_alike_where_some_process_needs_them(numbers, pulling, marks_meet, bitmap_meets):
    """Every process plans the marks' meeting (``MEET_MARKS``) where the delegate visits of
    any process pull (each published whether its own plan pulls), and the bitmap's meeting
    where the shared nn visit goes backward (``NN_BACKWARD``), so all meet or none; the
    processes still plan their own delegate visits."""
    from gpugraph.graph500 import _kernels_cpu as kernels

    counts, _, _ = _share_numbers_of(3, lambda me: numbers, pulling)
    for me, mine in enumerate(counts):
        assert bool(mine[kernels.PLAN_VISITS] & kernels.MEET_MARKS) == marks_meet, me
        assert bool(mine[kernels.PLAN_VISITS] & kernels.NN_BACKWARD) == bitmap_meets, me
        assert bool(mine[kernels.PLAN_VISITS] & kernels.PULL_DD) == (me in pulling), me


def test_merge_takes_the_candidates_of_delegates_only_others_marked():
    """The level's last merge: a delegate this process did not mark takes the candidate of the
    first process that did; its own candidates stay; the other parity's marks are zeroed. A word
    of visited delegates only is not read (nothing marks a visited delegate: the mark put there
    by hand stays out); past a search's end the merge does nothing."""
    from gpugraph.graph500 import _kernels_cpu as kernels

    processes, delegates, padded, me, parity = 3, 20, 24, 1, 1
    marks = [np.zeros(2 * padded, dtype=np.uint8) for _ in range(processes)]
    candidates = [np.full(delegates, -1, dtype=np.int32) for _ in range(processes)]
    for process, delegate in ((0, 3), (2, 3), (2, 9), (me, 5), (0, 5), (2, 17)):
        marks[process][parity * padded + delegate] = 1
        candidates[process][delegate] = 100 * process + delegate
    marks[me][:padded] = 1  # the other parity: zeroed by the merge
    delegate_depth = np.full(delegates, -1, dtype=np.int32)
    delegate_depth[8:20] = 2
    delegate_depth[9] = -1  # word 1 holds one unvisited delegate, word 2 none
    combined = np.zeros(padded // 8, dtype=np.uint64)
    words = tuple(mark.view(np.uint64) for mark in marks)
    counts = np.zeros(64, dtype=np.int64)
    arguments = (combined, words, np.int64(parity), np.int64(me), counts, tuple(candidates), True, delegate_depth)
    kernels.merge_marks(*arguments)
    assert np.flatnonzero(combined.view(np.uint8)).tolist() == [3, 5, 9]
    assert candidates[me][[3, 5, 9]].tolist() == [3, 105, 209]
    assert (np.delete(candidates[me], [3, 5, 9]) == -1).all()
    assert not marks[me][:padded].any()
    combined[:] = 7
    marks[me][:padded] = 1
    counts[kernels.PLAN_DONE] = 1
    kernels.merge_marks(*arguments)
    assert (combined == 7).all() and marks[me][:padded].all()


def test_peer_memory_is_the_default_for_gpus_of_one_host():
    import types

    class Comm:  # what the gather of the host names returns
        def __init__(self, names):
            self.names = names

        def all_gather(self, array):
            return [np.frombuffer(name.encode(), dtype=np.uint8) for name in self.names]

    gpu = types.SimpleNamespace(is_cuda=True, simulated=False)
    cpu = types.SimpleNamespace(is_cuda=False, simulated=False)

    def wants(options, names=("a", "a"), backend=gpu, tuned=False, vertices=1 << 20):
        group = types.SimpleNamespace(size=len(names), backend=backend, comm=Comm(names))
        searcher = types.SimpleNamespace(options=options)
        return Searcher._wants_peer_memory(searcher, group, types.SimpleNamespace(num_vertices=vertices), tuned)

    assert wants(Options())
    assert not wants(Options(), names=("a", "b"))  # two hosts
    assert not wants(Options(), tuned=True)  # uniquify, overlap, ... tune the collectives
    assert not wants(Options(), backend=cpu)
    assert not wants(Options(), backend=types.SimpleNamespace(is_cuda=True, simulated=True))
    assert not wants(Options(), vertices=1 << 33)
    assert not wants(Options(), names=("a",))  # one process
    assert not wants(Options(peer_memory=False))
    assert wants(Options(peer_memory=True), backend=cpu)


def test_peer_memory_refuses_the_options_of_collectives():
    sources, targets, n = _edges(scale=6)
    for options in (Options(peer_memory=True, uniquify=True), Options(peer_memory=True, blocking_reduction=False),
                    Options(peer_memory=True, overlap=True)):
        with pytest.raises(InvalidParameterError, match="peer_memory takes the place"):
            _searcher(sources, targets, n, options=options)


def test_torchrun_job_of_two_hosts_gives_validated_trees(tmp_path):
    """``gpugraph graph500`` as ranks of a torchrun job: two "hosts" of two ranks each on this
    machine (static rendezvous), the layout's GPUs per host taken from torchrun."""
    import json
    import shutil
    import socket
    import subprocess
    import sys

    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent)) or shutil.which("torchrun")
    if torchrun is None:
        pytest.skip("torchrun is not installed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    record_path = tmp_path / "record.json"
    job = [torchrun, "--nnodes", "2", "--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port", str(port)]
    benchmark = ["-m", "gpugraph", "graph500", "9", "--device", "cpu", "--roots", "3", "-q", "--local-all2all",
                 "--json", str(record_path)]
    hosts = [subprocess.Popen(job + ["--node-rank", str(rank)] + benchmark, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for rank in (0, 1)]
    try:
        outputs = [host.communicate(timeout=240) for host in hosts]
    finally:  # a job that hangs must not outlive the test
        for host in hosts:
            if host.poll() is None:
                host.kill()
    assert [host.returncode for host in hosts] == [0, 0], outputs
    assert outputs[0][0].startswith("SCALE:") and outputs[1][0] == ""  # global rank 0 reports
    record = json.loads(record_path.read_text())
    one = harness.run(9, processes=1, roots=3)
    assert (record["processes"], record["gpus_per_host"]) == (4, 2)
    assert record["nedge"] == one["nedge"] and record["levels"] == one["levels"]


def test_command_line_refuses_processes_under_torchrun(monkeypatch, capsys):
    from gpugraph import cli

    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "2")
    assert cli.main(["graph500", "8", "--device", "cpu", "--processes", "2", "-q"]) != 0
    assert "leave out --processes" in capsys.readouterr().err


def test_nn_backward_across_processes_sends_fewer_pairs():
    forward = harness.run(10, processes=2, roots=3, validate=False)
    backward = harness.run(10, processes=2, roots=3, options=Options(nn_backward=True))  # validated
    assert backward["nedge"] == forward["nedge"] and backward["levels"] == forward["levels"]
    assert any(level["nn"] == "backward" for level in backward["first_search"]["directions"])
    assert all(level["nn"] == "forward" for level in forward["first_search"]["directions"])
    assert backward["nn_pairs_sent"] < forward["nn_pairs_sent"] / 4


def test_local_all2all_sends_fewer_messages():
    direct = harness.run(11, processes=4, gpus_per_host=2, roots=2, validate=False)
    local = harness.run(11, processes=4, gpus_per_host=2, roots=2, validate=False, options=Options(local_all2all=True))
    assert local["nedge"] == direct["nedge"]
    # Each process sends to its one host peer and its one same-index peer, not to all three others.
    assert local["nn_messages"] < direct["nn_messages"]


def test_harness_rejects_bad_arguments():
    with pytest.raises(InvalidParameterError):
        harness.run(6, processes=0)
    with pytest.raises(InvalidParameterError):
        harness.run(6, device="tpu")
    with pytest.raises(InvalidParameterError):
        harness.run(6, roots=0)
    with pytest.raises(InvalidParameterError):
        harness.run(6, gpus_per_host=2)
    with pytest.raises(InvalidParameterError, match="whole number of hosts"):
        harness.run(6, processes=3, gpus_per_host=2)  # refused before any process starts
    for scale, edge_factor in ((-3, 16), (0, 16), (41, 16), (6, 0)):
        with pytest.raises(InvalidParameterError, match="scale|edge_factor"):
            harness.run(scale, edge_factor=edge_factor)
        with pytest.raises(InvalidParameterError, match="scale|edge_factor"):
            harness.run(scale, processes=2, edge_factor=edge_factor)  # before any process starts


def test_harness_without_relabeling_finds_the_same_components():
    relabelled, plain = harness.run(9, roots=3), harness.run(9, roots=3, relabel=False)
    assert relabelled["relabel"] and not plain["relabel"]
    assert relabelled["nedge"] == plain["nedge"] and relabelled["levels"] == plain["levels"]


def test_estimated_edges_without_validation_match_the_validated_count():
    checked = harness.run(9, roots=3)
    estimated = harness.run(9, roots=3, validate=False)
    assert estimated["nedge_estimated"]
    # The estimate counts duplicate edges like the validator and leaves self-loops out, as it does.
    assert estimated["nedge"] == checked["nedge"]


# --- CUDA kernels ---------------------------------------------------------------------------------
@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
@pytest.mark.parametrize("options, threshold", [(Options(), None), (Options(direction_optimizing=False), None),
                                                (Options(levels_ahead=3), 2)])
def test_cuda_kernels_under_the_simulator(options, threshold):
    """Threshold 2 makes most vertices delegates: long delegate rows go through pull_long_rows;
    there the levels go in batches of three (as on a GPU), ending inside a batch or after one."""
    record = harness.run(6, processes=1, device="cuda", roots=2, options=options, edge_factor=8, threshold=threshold)
    reference = harness.run(6, processes=1, device="cpu", roots=2, options=options, edge_factor=8,
                            threshold=threshold)
    assert record["nedge"] == reference["nedge"] and record["levels"] == reference["levels"]


def test_default_direction_factors_give_nn_its_own_pair_with_several_processes():
    """Without ``Options.factors`` one process uses ``config.GRAPH500_DIRECTION_FACTORS`` and
    several use nn's pair for several; factors given in the options are used as they are."""
    from gpugraph import config
    from gpugraph.graph500.bfs import default_factors

    assert default_factors(1) == config.GRAPH500_DIRECTION_FACTORS
    several = default_factors(4)
    assert several["nn"] == config.GRAPH500_NN_DIRECTION_FACTORS_SEVERAL
    assert {kind: several[kind] for kind in ("dd", "dn", "nd")} == \
        {kind: config.GRAPH500_DIRECTION_FACTORS[kind] for kind in ("dd", "dn", "nd")}
    sources, targets, n = _edges(scale=6)
    assert _searcher(sources, targets, n).direction_factors == default_factors(1)
    given = {kind: (0.3, 0.0) for kind in ("dd", "dn", "nd", "nn")}
    assert _searcher(sources, targets, n, options=Options(factors=given)).direction_factors == given


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_meeting_kernel_meets_while_the_search_goes_on_or_once_it_ended():
    """``barrier(..., ended)``: levels launched past a search's end skip their meetings, and a
    batch's last launch (``ended`` = 1) meets only once the search is over; a process alone
    meets itself (its arrival counted in its own cell)."""
    from gpugraph.graph500 import _kernels_cpu as cells
    from gpugraph.graph500 import _kernels_cuda as kernels

    counts = np.zeros(cells.counter_cells(3) + cells.SHARED_CELLS, dtype=np.int64)
    arrivals = np.zeros(3, dtype=np.int64)
    for done, ended, meets in ((0, 0, True), (0, 1, False), (1, 0, False), (1, 1, True)):
        counts[cells.PLAN_DONE] = done
        before = int(arrivals[0])
        kernels.barrier[1, 32]((arrivals,), np.int64(0), np.int64(1000), counts, np.int64(ended), np.int64(0))
        assert (int(arrivals[0]) == before + 1) == meets and arrivals[2] == 0, (done, ended)
    counts[cells.PLAN_DONE] = 0
    for visits, meets in ((cells.PULL_DD, False), (cells.PULL_DD | cells.MEET_MARKS, True)):  # the marks' meeting
        counts[cells.PLAN_VISITS] = visits
        before = int(arrivals[0])
        kernels.barrier[1, 32]((arrivals,), np.int64(0), np.int64(1000), counts, np.int64(0),
                               np.int64(cells.MEET_MARKS))
        assert (int(arrivals[0]) == before + 1) == meets, visits


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_frontier_bits_kernel_reads_only_the_segments_flagged_for_the_level():
    """The CUDA ``frontier_bits`` sets a bit for each normal at depth ``level`` in a segment whose
    frontier flag is ``level`` (what claims write), as the CPU twin does over every normal, and
    writes zeros elsewhere without reading the depths: a normal at ``level`` in an unflagged
    segment (never the case in a search) stays out, which shows the skip. Both store the share
    at its place in every process's gathered bitmap (three here, this process the second),
    leaving the other shares alone; the blocks loop over more words than the grid holds."""
    from gpugraph.graph500 import _kernels_cpu as cells
    from gpugraph.graph500 import _kernels_cuda as kernels

    segment = 1 << cells.SEGMENT_BITS
    segments, level = 130, np.int32(3)  # more words than a block's tile
    rng = np.random.default_rng(4)
    depth = rng.integers(-1, 5, size=segments * segment - 37).astype(np.int32)
    flags = np.full(3 * segments + cells.FLAG_PADDING, -1, dtype=np.int32)
    holds_frontier = [bool((depth[s * segment:(s + 1) * segment] == level).any()) for s in range(segments)]
    assert all(holds_frontier)
    flagged = [s for s in range(segments) if s % 4 != 1]  # the level's parity run; others unflagged on purpose
    flags[(level % 2) * segments + np.array(flagged)] = level
    flags[(1 - level % 2) * segments + 1] = level  # the other parity's run is not read
    counts = np.zeros(cells.counter_cells(2) + cells.SHARED_CELLS, dtype=np.int64)
    counts[cells.PLAN_VISITS] = cells.NN_BACKWARD
    share = segments * segment // 8  # bytes, a multiple of 8
    words, processes, me = share // 8, 3, 1
    bitmaps = tuple(np.full(processes * words, 0xABAB, dtype=np.uint64) for _ in range(processes))
    threads = kernels.FRONTIER_THREADS
    assert words > threads  # the one block takes the words in two tiles
    kernels.frontier_bits[1, threads](depth, level, counts, bitmaps, np.int64(me * words), np.int64(words), flags)
    everything = (np.zeros(words, dtype=np.uint64),)
    cells.frontier_bits(depth, level, counts, everything, np.int64(0), np.int64(words), flags)
    expected_bytes = everything[0].view(np.uint8)
    bit_of_normal = np.unpackbits(expected_bytes, bitorder="little")[:depth.size].astype(bool)
    np.testing.assert_array_equal(bit_of_normal, depth == level)
    for bitmap in bitmaps:
        np.testing.assert_array_equal(bitmap[:words], 0xABAB)
        np.testing.assert_array_equal(bitmap[2 * words:], 0xABAB)
        got = bitmap[words:2 * words].view(np.uint8)
        for s in range(segments):
            run = slice(s * segment // 8, (s + 1) * segment // 8)
            expected = expected_bytes[run] if s in flagged else 0
            np.testing.assert_array_equal(got[run], expected)


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
@pytest.mark.parametrize("options, threshold", [(Options(uniquify=True, blocking_reduction=False), None),
                                                (Options(overlap=True), None), (Options(nn_backward=True), None),
                                                (Options(peer_memory=True, levels_ahead=3), None),
                                                (Options(peer_memory=True, levels_ahead=3), 2)])
def test_cuda_kernels_of_several_processes_under_the_simulator(options, threshold):
    """The nn pair kernels (push_pairs, apply_pairs) run only with several processes; with
    ``overlap`` the pairs travel while the delegate kernels run; with peer memory the pairs are
    stored into the peers' inboxes (scatter_pairs, apply_inbox, merge_marks, share_numbers
    without its meeting) and levels go in batches; threshold 2 sends long delegate rows through
    pull_long_rows."""
    record = harness.run(6, processes=2, device="cuda", roots=2, options=options, edge_factor=8, threshold=threshold)
    reference = harness.run(6, processes=1, device="cpu", roots=2, edge_factor=8, threshold=threshold)
    assert record["nedge"] == reference["nedge"] and record["levels"] == reference["levels"]
    assert record["nn_pairs_sent"] > 0 or threshold is not None  # threshold 2 leaves almost no nn arcs


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_long_rows_skip_delegates_marked_here_or_anywhere():
    """``pull_long_rows`` scans each queued row to its frontier column (many steps of a block)
    unless the delegate is marked already: by this process (``new``: what its dd rows found,
    for its dn rows) or in the combined marks of every process. One block and 70 queued rows: it
    lists rows for two batches of 64."""
    from gpugraph.graph500 import _kernels_cpu as cells
    from gpugraph.graph500 import _kernels_cuda as kernels

    delegates, length, level = 70, 2 * 64, np.int32(2)
    indptr = np.arange(delegates + 1, dtype=np.int64) * length
    indices = np.tile(np.arange(length, dtype=np.int32), delegates)
    column_depth = np.full(length, 1, dtype=np.int32)
    hit = length - 5  # in the block's second step
    column_depth[hit] = level
    counts = np.zeros(cells.counter_cells(2) + cells.SHARED_CELLS, dtype=np.int64)
    counts[cells.LONG_DD] = delegates
    queue = np.arange(delegates, dtype=np.int32)[::-1].copy()

    def scan(own=(), anywhere=()):
        new = np.zeros(delegates, dtype=np.uint8)
        new[list(own)] = 1
        found_anywhere = np.zeros(delegates, dtype=np.uint8)
        found_anywhere[list(anywhere)] = 1
        candidate = np.full(delegates, -1, dtype=np.int32)
        kernels.pull_long_rows[1, 64](indptr, indices, new, candidate, level, column_depth, np.empty(0, np.int64),
                                      np.int64(1), np.int64(0), queue, counts, np.int64(cells.LONG_DD), found_anywhere)
        return new.tolist(), candidate.tolist()

    def expected(own=(), anywhere=()):
        marks = [0 if row in anywhere and row not in own else 1 for row in range(delegates)]
        return marks, [-1 if row in own or row in anywhere else hit for row in range(delegates)]

    for marked in ({}, {"own": [1, 64, 69]}, {"anywhere": [2, 65, 68]}, {"own": [0], "anywhere": [67]}):
        assert scan(**marked) == expected(**marked), marked


def test_cuda_kernels_compile_to_ptx(ptx_of):
    from gpugraph.graph500 import _kernels_cuda as kernels

    sources, targets, n = _edges(scale=6)
    searcher = _searcher(sources, targets, n)
    graph = searcher.graph
    queue = np.arange(4, dtype=np.int32)
    scan = np.arange(5, dtype=np.int64)
    level, p, offset, slot = np.int32(1), np.int64(1), np.int64(0), np.int64(8)
    ids = graph.delegate_ids
    nd, nn, counts, flags = graph.nd, graph.nn, searcher.counts, searcher.flags
    tail = (level, nd.indptr, nn.indptr, counts, slot)
    pairs = (np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64))
    csrs = (graph.dd.indptr, graph.dd.indices, graph.dn.indptr, graph.dn.indices)
    launches = [
        (kernels.push, (*csrs, queue, scan, queue, scan, slot, ids, searcher.delegate_depth, searcher.new,
                        searcher.candidate, searcher.depth, searcher.parent, *tail, flags)),
        *((kernel, (searcher.depth, parent, level, np.int64(240), nd.indptr, nd.indices, nn.indptr, nn.indices,
                    searcher.delegate_depth, searcher.new, searcher.candidate, ids, p, offset, counts, slot, flags,
                    *pairs, np.zeros(16, dtype=np.uint8), np.zeros(nn.indices.size, dtype=np.int32)))
          for kernel in (kernels.normal_pass, kernels.normal_pass_over_bitmap)
          for parent in (searcher.parent, searcher.parent.astype(np.int64))),  # 32-bit ids, and beyond scale 30
        (kernels.apply_pairs, (*pairs, searcher.depth, searcher.parent, *tail, flags)),
        (kernels.pull_delegates, (graph.dd.indptr, graph.dd.indices, searcher.new, searcher.candidate, level,
                                  searcher.delegate_depth, searcher.delegate_depth, ids, p, offset, counts,
                                  np.int64(1), queue, slot)),
        (kernels.pull_long_rows, (graph.dd.indptr, graph.dd.indices, searcher.new, searcher.candidate, level,
                                  searcher.delegate_depth, ids, p, offset, queue, counts, slot, searcher.new)),
        (kernels.close_delegates, (searcher.new, searcher.delegate_depth, level, searcher.degree["dd"],
                                   searcher.degree["dn"], *searcher.queues["dd"], *searcher.queues["dn"], counts, slot,
                                   np.int64(0))),
        (kernels.decide, (counts, slot, searcher.factors, True, True, np.int64(0), np.int64(-1), False)),
        (kernels.frontier_bits, (searcher.depth, level, counts, (np.zeros(8, dtype=np.uint64),) * 3, np.int64(0),
                                 np.int64(8), flags)),
        (kernels.start, (searcher.depth, searcher.parent, searcher.new, searcher.candidate, searcher.root_cells,
                         nd.indptr, nn.indptr, counts, np.int64(5), np.int64(5), flags)),
    ]
    # Peer memory: the peers' arrays as tuples a kernel indexes with a process number.
    peers, cells = 3, np.zeros(3, dtype=np.int64)
    inboxes = tuple(np.zeros(6, dtype=np.int64) for _ in range(peers))
    cursors = tuple(np.zeros(peers, dtype=np.int64) for _ in range(peers))
    published = tuple(np.zeros(2 * peers * 4, dtype=np.int64) for _ in range(peers))
    starts, me = np.zeros(peers * peers, dtype=np.int64), np.int64(1)
    words = tuple(np.zeros(8, dtype=np.uint64) for _ in range(peers))  # masks and bitmaps, 8 bytes a load
    launches += [
        (kernels.barrier, ((cells, cells.copy(), cells.copy()), me, np.int64(100), counts, np.int64(1), np.int64(256))),
        (kernels.share_numbers, (counts, slot, searcher.factors, True, np.int64(0), np.int64(40), published,
                                 np.int64(1), cursors[1], (cells, cells.copy(), cells.copy()), me, np.int64(100),
                                 np.int64(7))),
        (kernels.scatter_pairs, (*pairs, counts, inboxes, cursors, starts, me, np.int64(3), np.int64(1))),
        (kernels.merge_marks, (np.zeros(4, dtype=np.uint64), words, np.int64(0), me, counts,
                               tuple(np.zeros(32, dtype=np.int32) for _ in range(peers)), True,
                               searcher.delegate_depth)),
        (kernels.apply_inbox, (inboxes[1], cursors[1], starts, me, searcher.depth, searcher.parent, *tail, flags)),
    ]
    for kernel, arguments in launches:
        assert ".target sm_90" in ptx_of(kernel, arguments), kernel


def test_command_line(capsys, tmp_path):
    from gpugraph import cli

    record_path = tmp_path / "record.json"
    assert cli.main(["graph500", "8", "--device", "cpu", "--roots", "2", "-q", "--json", str(record_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("SCALE:") and "NBFS:                           2" in out
    assert record_path.exists()
    assert cli.main(["graph500", "8", "--device", "cpu", "--roots", "2", "-q", "--no-relabel", "--json",
                     str(record_path)]) == 0
    assert '"relabel": false' in record_path.read_text()
    assert cli.main(["graph500", "8", "--device", "cpu", "--roots", "2", "-q", "--processes", "2", "--overlap",
                     "--nonblocking-reduction", "--nn-backward", "--json", str(record_path)]) == 0
    text = record_path.read_text()
    assert '"overlap": true' in text and '"blocking_reduction": false' in text and '"nn_backward": true' in text
    assert cli.main(["graph500", "8", "--device", "cpu", "--roots", "2", "-q", "--processes", "2", "--peer-memory",
                     "--json", str(record_path)]) == 0
    record = json.loads(record_path.read_text())
    assert record["options"]["peer_memory"] is True and record["nn_messages"] == 0
    capsys.readouterr()
    assert cli.main(["graph500", "8", "--device", "cpu", "--processes", "2", "--peer-memory", "--uniquify", "-q"]) != 0
    assert "peer_memory takes the place of the collectives" in capsys.readouterr().err
    assert cli.main(["graph500", "8", "--device", "cpu", "--roots", "0", "-q"]) != 0
    assert "roots must be at least 1" in capsys.readouterr().err
    assert cli.main(["graph500", "8", "--device", "cpu", "--processes", "0", "-q"]) != 0
    assert "processes must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("num_vertices", [1 << 20, 1 << 31, (1 << 31) + 1, 1 << 40])
def test_nn_pairs_packed_for_the_wire_come_back_whole(num_vertices):
    from gpugraph.graph500.bfs import pack_pairs, pair_entries, unpack_pairs

    rng = np.random.default_rng(5)
    targets, sources = (rng.integers(0, num_vertices, size=100, dtype=np.int64) for _ in range(2))
    targets[:2], sources[:2] = num_vertices - 1, (0, num_vertices - 1)
    payload = pack_pairs(np, targets, sources, num_vertices)
    assert payload.dtype == np.int64 and payload.size == 100 * pair_entries(num_vertices)
    assert pair_entries(num_vertices) == (1 if num_vertices <= 1 << 31 else 2)
    back = unpack_pairs(payload, num_vertices)
    assert np.array_equal(back[0], targets) and np.array_equal(back[1], sources)


def test_long_row_replay_accounts_for_every_queued_row(repo_script):
    """The diagnosis's replay of the long delegate rows (``--variants rows``): each row's first
    column at the level's depth, and per level and kind every queued row either skipped, found,
    or scanned to its end (for a delegate found elsewhere at that level or by no one)."""
    replay = repo_script("bench/graph500_multi_diag.py")._LongRows
    indptr = np.array([0, 3, 3, 7])
    indices = np.array([0, 1, 2, 3, 0, 2, 1])
    assert replay._first_hits(np, indptr, indices, np.array([1, 2, 0, 2]), 2).tolist() == [1, -1, 0]
    sources, targets, n = _edges(scale=9)
    searcher = _searcher(sources, targets, n, threshold=4)
    rows = replay()
    for root in (0, 5):
        rows.add(searcher, searcher.search(root))
    sums = np.array([rows.sums[level] for level in sorted(rows.sums)])
    queued, skipped, found, _, elsewhere, _, nowhere, _ = np.moveaxis(sums, -1, 0)
    assert queued.sum() > 0 and (queued == skipped + found + elsewhere + nowhere).all()
    assert "all ranks:" in rows.table()
