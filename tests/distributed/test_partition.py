"""Partitioning policies (issue 7): every arc placed once, proxies and local ids consistent,
each policy's structural invariant, save / load per rank."""

import numpy as np
import pytest

import gpugraph as gg
from gpugraph.distributed.partition import (
    POLICIES, Partition, grid_shape, partition_graph, replication_factor, static_balance,
)
from gpugraph.errors import GraphFormatError, InvalidParameterError


def random_graph(n=200, m=1500, seed=5, weighted=True):
    rng = np.random.default_rng(seed)
    src = np.concatenate((rng.integers(0, n, m), np.zeros(150, dtype=np.int64)))  # vertex 0: a hub
    dst = np.concatenate((rng.integers(0, n, m), rng.integers(0, n, 150)))
    dst[:120] = 7  # vertex 7: high in-degree
    weights = rng.random(src.size) if weighted else None
    return gg.from_edges(src, dst, weights, num_vertices=n)


def owners(parts):
    """The host of every vertex's master."""
    owner = np.full(parts[0].num_vertices, -1)
    for part in parts:
        owner[part.local_to_global[: part.num_masters]] = part.host
    return owner


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("hosts", [1, 2, 3, 4, 6])
def test_parts_hold_every_arc_once_with_consistent_proxies(policy, hosts):
    graph = random_graph()
    parts = partition_graph(graph, hosts, policy, hvc_threshold=50)
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    sources = np.repeat(np.arange(graph.num_vertices), np.diff(indptr))
    placed = np.concatenate([part.global_arcs for part in parts])
    assert np.array_equal(np.sort(placed), np.arange(graph.num_arcs))
    masters = np.concatenate([part.local_to_global[: part.num_masters] for part in parts])
    assert np.array_equal(np.sort(masters), np.arange(graph.num_vertices))
    owner = owners(parts)
    for part in parts:
        local_sources = np.repeat(np.arange(part.num_proxies), np.diff(part.indptr))
        assert np.array_equal(part.local_to_global[local_sources], sources[part.global_arcs])
        assert np.array_equal(part.local_to_global[part.indices], indices[part.global_arcs])
        assert np.array_equal(part.weights, np.asarray(graph.weights)[part.global_arcs])
        mirrors = part.local_to_global[part.num_masters:]
        assert np.all(owner[mirrors] != part.host)
        assert np.array_equal(part.mirror_owner, owner[mirrors])
        used = np.zeros(part.num_proxies, dtype=bool)
        used[local_sources] = used[part.indices] = True
        assert np.all(used[part.num_masters:]), "a mirror exists only for a vertex of a local arc"
    if hosts == 1:
        assert replication_factor(parts) == 1.0
    assert static_balance(parts)["arcs_max_over_mean"] >= 1.0


@pytest.mark.parametrize("hosts", [2, 4, 6])
def test_structural_invariants_of_each_policy(hosts):
    graph = random_graph()
    in_degree = np.bincount(np.asarray(graph.indices), minlength=graph.num_vertices)
    for policy in POLICIES:
        parts = partition_graph(graph, hosts, policy, hvc_threshold=50)
        owner = owners(parts)
        rows, columns = grid_shape(hosts)
        for part in parts:
            local_sources = np.repeat(np.arange(part.num_proxies), np.diff(part.indptr))
            source_global = part.local_to_global[local_sources]
            destination_global = part.local_to_global[part.indices]
            if policy in ("oec", "metis"):
                assert np.all(local_sources < part.num_masters)
            elif policy == "iec":
                assert np.all(part.indices < part.num_masters)
            elif policy == "hvc":
                light = in_degree[destination_global] <= 50
                assert np.all(owner[destination_global[light]] == part.host)
                assert np.all(owner[source_global[~light]] == part.host)
            else:
                assert np.all(owner[source_global] // columns == part.host // columns)
                assert np.all(owner[destination_global] % columns == part.host % columns)


def test_grid_shape():
    assert grid_shape(4) == (2, 2) and grid_shape(6) == (2, 3) and grid_shape(7) == (1, 7)
    assert grid_shape(8) == (2, 4) and grid_shape(1) == (1, 1)


def test_save_and_load_one_part_per_rank(tmp_path):
    graph = random_graph()
    for part in partition_graph(graph, 3, "cvc"):
        path = tmp_path / f"part{part.host}.npz"
        part.save(path)
        loaded = Partition.load(path)
        assert loaded.policy == "cvc" and loaded.host == part.host
        for name in ("local_to_global", "mirror_owner", "indptr", "indices", "weights", "global_arcs", "out_degree"):
            assert np.array_equal(getattr(loaded, name), getattr(part, name))
    unweighted = partition_graph(random_graph(weighted=False), 2, "oec")[1]
    unweighted.save(tmp_path / "u.npz")
    assert Partition.load(tmp_path / "u.npz").weights is None
    (tmp_path / "bad.npz").write_bytes(b"not a partition")
    with pytest.raises(GraphFormatError, match="not a gpugraph partition"):
        Partition.load(tmp_path / "bad.npz")


def test_bad_parameters():
    graph = random_graph()
    with pytest.raises(InvalidParameterError, match="policy"):
        partition_graph(graph, 2, "metis-like")
    with pytest.raises(InvalidParameterError, match="at least one host"):
        partition_graph(graph, 0)


def test_metis_cuts_fewer_edges_than_blocks_on_a_clustered_graph():
    pytest.importorskip("pymetis", reason="the metis policy needs pymetis")
    rng = np.random.default_rng(3)
    clusters = rng.permutation(400).reshape(4, 100)  # four dense clusters, ids shuffled
    src = np.concatenate([rng.choice(c, 800) for c in clusters])
    dst = np.concatenate([rng.choice(c, 800) for c in clusters])
    graph = gg.from_edges(np.concatenate((src, [0])), np.concatenate((dst, [399])), num_vertices=400)
    metis = replication_factor(partition_graph(graph, 4, "metis"))
    assert metis < replication_factor(partition_graph(graph, 4, "oec")) and metis < 1.1


def test_only_the_parts_asked_for():
    graph = random_graph()
    whole = partition_graph(graph, 3, "hvc", hvc_threshold=50)
    (mine,) = partition_graph(graph, 3, "hvc", hosts=[1], hvc_threshold=50)
    assert mine.host == 1 and np.array_equal(mine.indices, whole[1].indices)
    with pytest.raises(InvalidParameterError, match="host numbers"):
        partition_graph(graph, 3, hosts=[3])


def test_more_hosts_than_vertices_leaves_some_empty():
    graph = gg.from_edges([0, 1], [1, 2], num_vertices=3)
    parts = partition_graph(graph, 5, "oec")
    assert sum(part.num_masters for part in parts) == 3
    assert sum(part.num_arcs for part in parts) == 2


def test_a_part_moves_to_a_backend_and_stays_when_already_there():
    from gpugraph.backend import get_backend

    part = partition_graph(random_graph(), 2, "hvc", hvc_threshold=50)[0]
    assert part.to(get_backend("cpu")) is part
