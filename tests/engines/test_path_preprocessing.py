"""The path engine's preprocessing kernels against plain references (issue 6).

The layout is built by Numba kernels (row sorts, the traversal, linking with lists, Tarjan on
the vertices instead of SciPy on the bipartite path graph, counting sorts, parallel writes).
Each is compared here with a direct Python / NumPy / SciPy version of the same definition — the
code the kernels replaced — on small graphs: the layout must come out the same, array for array.
"""

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

import gpugraph as gg
from gpugraph import config
from gpugraph.engines.path import _partition_cpu as kernels
from gpugraph.engines.path.dependency import graph_components, path_dependencies
from gpugraph.engines.path.layout import build_layout
from gpugraph.engines.path.partition import link_paths, partition_paths


def random_csr(n, m, seed):
    rng = np.random.default_rng(seed)
    graph = gg.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n)
    return np.asarray(graph.indptr).astype(np.int64), np.asarray(graph.indices)


GRAPHS = [(1, 0, 0), (2, 3, 1), (30, 100, 2), (50, 49, 3), (200, 2000, 4), (400, 900, 5), (60, 3000, 6)]


def reference_pieces(indptr, pieces):
    """The piece of each vertex: ``pieces`` ranges of consecutive vertices, the ``k``-th from
    the first vertex whose out-arcs start at or after ``k * m // pieces``."""
    n, m = indptr.size - 1, int(indptr[-1])
    starts = [0] + [int(np.searchsorted(indptr, k * m // pieces)) for k in range(1, pieces)] + [n]
    return np.repeat(np.arange(pieces), np.diff(starts))


def reference_paths(indptr, indices, max_depth, pieces=1):
    """Algorithm 1 and head-to-tail linking, written plainly (lists of vertices and arcs); in
    ``pieces``: each piece traversed alone, its roots by descending out-degree and its paths
    ending at other pieces' vertices, the pieces' paths one after another; then the paths
    ending in their own piece linked in order, then the others in order."""
    n = indptr.size - 1
    out_degree = np.diff(indptr)
    in_degree = np.bincount(indices, minlength=n)
    piece = reference_pieces(indptr, pieces)
    rows = [sorted(range(indptr[u], indptr[u + 1]), key=lambda a: -out_degree[indices[a]]) for u in range(n)]
    cursor = [0] * n
    visited = [False] * n
    paths = []  # (vertices, arcs)
    for root in sorted(range(n), key=lambda u: (piece[u], -out_degree[u])):
        if cursor[root] == len(rows[root]):
            continue
        visited[root] = True
        stack = [(root, 0)]
        current = None
        while stack:
            u, depth = stack[-1]
            if depth < max_depth and cursor[u] < len(rows[u]):
                arc = rows[u][cursor[u]]
                cursor[u] += 1
                v = int(indices[arc])
                if current is None:
                    current = ([u], [])
                    paths.append(current)
                current[0].append(v)
                current[1].append(arc)
                if visited[v] or piece[v] != piece[root]:
                    current = None
                else:
                    visited[v] = True
                    stack.append((v, depth + 1))
            else:
                current = None
                stack.pop()
    inner = np.zeros(n, dtype=np.int64)
    for vertices, _ in paths:
        for v in vertices[1:-1]:
            inner[v] += 1
    after, before = [-1] * len(paths), [-1] * len(paths)
    head = list(range(len(paths)))
    length = [len(arcs) for _, arcs in paths]
    starting = {}
    for q, (vertices, _) in enumerate(paths):
        starting.setdefault(vertices[0], []).append(q)
    own = [p for p, (vertices, _) in enumerate(paths) if piece[vertices[0]] == piece[vertices[-1]]]
    for p in own + [p for p, (vertices, _) in enumerate(paths) if piece[vertices[0]] != piece[vertices[-1]]]:
        x = paths[p][0][-1]
        if in_degree[x] > 1 and out_degree[x] > 1 and inner[x] > 0:
            continue
        for q in starting.get(x, ()):
            if before[q] != -1 or q == head[p] or length[head[p]] + length[q] > max_depth:
                continue
            after[p], before[q] = q, p
            length[head[p]] += length[q]
            r = q
            while r != -1:
                head[r] = head[p]
                r = after[r]
            inner[x] += 1
            break
    chains = []
    for p in range(len(paths)):
        if before[p] == -1:
            vertices, arcs = list(paths[p][0]), list(paths[p][1])
            q = after[p]
            while q != -1:
                vertices += paths[q][0][1:]
                arcs += paths[q][1]
                q = after[q]
            chains.append((vertices, arcs))
    return chains


def reference_layers(paths, num_vertices):
    """SCCs of the bipartite path graph with SciPy, and longest chains of path-holding SCCs."""
    nodes = paths.num_paths + num_vertices
    source, target = [], []
    for p in range(paths.num_paths):
        vertices = paths.vertices[paths.offsets[p]:paths.offsets[p + 1]]
        source += [p] * (vertices.size - 1) + list(paths.num_paths + vertices[:-1])
        target += list(paths.num_paths + vertices[1:]) + [p] * (vertices.size - 1)
    graph = sp.csr_array((np.ones(len(source)), (source, target)), shape=(nodes, nodes))
    count, label = connected_components(graph, directed=True, connection="strong")
    holds = np.zeros(count, dtype=np.int64)
    holds[label[:paths.num_paths]] = 1
    successors = {}
    for s, t in zip(source, target):
        if label[s] != label[t]:
            successors.setdefault(label[s], set()).add(label[t])
    indegree = np.zeros(count, dtype=np.int64)
    for targets in successors.values():
        for t in targets:
            indegree[t] += 1
    layer = np.zeros(count, dtype=np.int64)
    ready = [c for c in range(count) if indegree[c] == 0]
    while ready:
        b = ready.pop()
        for c in successors.get(b, ()):
            layer[c] = max(layer[c], layer[b] + holds[b])
            indegree[c] -= 1
            if indegree[c] == 0:
                ready.append(c)
    scc = label[:paths.num_paths]
    sizes = np.bincount(scc, minlength=count)
    return scc, layer[scc], int(np.count_nonzero(sizes)), int(sizes.max(initial=0))


@pytest.mark.parametrize("insertion_max, blocks", [(0, 1), (2, 3), (64, 1024)])
@pytest.mark.parametrize("n, m, seed", GRAPHS)
def test_visiting_order_is_a_stable_sort_by_head_out_degree(n, m, seed, insertion_max, blocks):
    indptr, indices = random_csr(n, m, seed)
    out_degree = np.diff(indptr)
    order, slots = np.empty(indices.size, dtype=np.int32), np.empty(indices.size, dtype=np.int32)
    kernels.visiting_order(indptr, indices, insertion_max, blocks, order, slots)
    rows = np.repeat(np.arange(n), out_degree)
    assert np.array_equal(order, np.lexsort((-out_degree[indices], rows)))
    assert np.array_equal(slots[order], np.arange(indices.size))
    roots = np.empty(n, dtype=np.int64)
    found = kernels.roots_by_degree(indptr, 0, n, roots)
    expected = np.argsort(-out_degree, kind="stable")
    assert np.array_equal(roots[:found], expected[out_degree[expected] > 0])
    first, last = n // 3, n - n // 4  # one piece's vertices
    found = kernels.roots_by_degree(indptr, first, last, roots)
    expected = first + np.argsort(-out_degree[first:last], kind="stable")
    assert np.array_equal(roots[:found], expected[out_degree[expected] > 0])


@pytest.mark.parametrize("pieces", [1, 2, 5, 64])
@pytest.mark.parametrize("max_depth", [1, 2, 16])
@pytest.mark.parametrize("n, m, seed", GRAPHS)
def test_partition_equals_the_plain_algorithm(n, m, seed, max_depth, pieces):
    indptr, indices = random_csr(n, m, seed)
    paths = partition_paths(indptr, indices, max_depth, pieces)
    expected = reference_paths(indptr, indices, max_depth, pieces)
    assert paths.num_paths == len(expected)
    for p, (vertices, arcs) in enumerate(expected):
        span = slice(paths.offsets[p], paths.offsets[p + 1])
        assert paths.vertices[span].tolist() == vertices
        assert paths.arcs[span].tolist() == arcs + [-1]


@pytest.mark.parametrize("block", [1, 3, 64, 1 << 14])
@pytest.mark.parametrize("n, m, seed", GRAPHS)
def test_writing_by_layer_is_a_stable_sort_whatever_the_block(n, m, seed, block):
    indptr, indices = random_csr(n, m, seed)
    linked = link_paths(indptr, indices, 4)
    chains = partition_paths(indptr, indices, 4)  # the chains written in chain order
    num_layers = 5  # some layers hold no chain, the last one included
    layer = np.random.default_rng(seed).choice([0, 1, 3], linked.num_chains).astype(np.int64)
    positions = chains.vertices.size
    vertices, arcs = np.empty(positions, dtype=indices.dtype), np.empty(positions, dtype=np.int64)
    offsets, layer_ends = np.empty(linked.num_chains + 1, dtype=np.int64), np.empty(num_layers, dtype=np.int64)
    traversed = linked.traversed
    kernels.write_by_layer(layer, num_layers, linked.lengths, block, traversed.vertices, traversed.arcs,
                           traversed.offsets, linked.next_path, linked.heads, vertices, arcs, offsets, layer_ends)
    order = np.argsort(layer, kind="stable")
    expected = np.concatenate([np.arange(chains.offsets[c], chains.offsets[c + 1]) for c in order] or [[]])
    assert np.array_equal(offsets, np.concatenate(([0], np.cumsum(np.diff(chains.offsets)[order]))))
    assert np.array_equal(vertices, chains.vertices[expected.astype(np.int64)])
    assert np.array_equal(arcs, chains.arcs[expected.astype(np.int64)])
    assert np.array_equal(layer_ends, np.cumsum(np.bincount(layer, minlength=num_layers)))


@pytest.mark.parametrize("pieces", [1, 3])
@pytest.mark.parametrize("max_depth", [1, 3, 16])
@pytest.mark.parametrize("n, m, seed", GRAPHS)
def test_dependencies_equal_scipy_on_the_bipartite_path_graph(n, m, seed, max_depth, pieces):
    indptr, indices = random_csr(n, m, seed)
    paths = partition_paths(indptr, indices, max_depth, pieces)
    dependencies = path_dependencies(paths, indptr, indices)
    scc, layer, num_sccs, largest_scc = reference_layers(paths, n)
    assert np.array_equal(dependencies.layer, layer)
    assert (dependencies.num_sccs, dependencies.largest_scc) == (num_sccs, largest_scc)
    pairs = set(zip(scc.tolist(), dependencies.scc.tolist()))  # the same partition of the paths
    assert len(pairs) == len(set(scc.tolist())) == len(set(dependencies.scc.tolist()))


def symmetric_csr(n, m, seed):
    """A random graph with ``v -> u`` for each of its arcs ``u -> v`` (duplicates and loops kept)."""
    rng = np.random.default_rng(seed)
    tails, heads = rng.integers(0, n, m), rng.integers(0, n, m)
    graph = gg.from_edges(np.concatenate((tails, heads)), np.concatenate((heads, tails)), num_vertices=n)
    return np.asarray(graph.indptr).astype(np.int64), np.asarray(graph.indices)


@pytest.mark.parametrize("pieces", [1, 3])
@pytest.mark.parametrize("n, m, seed", GRAPHS)
def test_a_symmetric_graph_skips_joining_along_paths_with_the_same_dependencies_and_layout(n, m, seed, pieces):
    indptr, indices = symmetric_csr(n, m, seed)
    linked = link_paths(indptr, indices, 16, pieces)
    general, symmetric = (path_dependencies(linked, indptr, indices, symmetric=claim) for claim in (False, True))
    assert np.array_equal(general.layer, symmetric.layer) and not symmetric.layer.any()
    assert (general.num_sccs, general.largest_scc) == (symmetric.num_sccs, symmetric.largest_scc)
    pairs = set(zip(general.scc.tolist(), symmetric.scc.tolist()))  # the same partition of the chains
    assert len(pairs) == len(set(general.scc.tolist())) == len(set(symmetric.scc.tolist()))
    plain, short = build_layout(indptr, indices, pieces=pieces), build_layout(indptr, indices, pieces=pieces,
                                                                              symmetric=True)
    for name in ("vertices", "arcs", "offsets", "chunk_offsets", "source_chunks", "chunk_layer", "chunk_mean_degree"):
        assert np.array_equal(getattr(plain, name), getattr(short, name))
    assert (plain.num_sccs, plain.largest_scc, plain.num_layers) == (short.num_sccs, short.largest_scc,
                                                                     short.num_layers)
    assert "SCCs joined along paths" not in short.stage_seconds


@pytest.mark.parametrize("n, m, seed", GRAPHS)
def test_graph_components_equal_scipy_and_path_dependencies_take_them(n, m, seed):
    indptr, indices = random_csr(n, m, seed)
    components = graph_components(indptr, indices)
    tails = np.repeat(np.arange(n), np.diff(indptr))
    graph = sp.csr_array((np.ones(indices.size), (tails, indices)), shape=(n, n))
    count, label = connected_components(graph, directed=True, connection="strong")
    assert components.count == count
    assert len(set(zip(label.tolist(), components.component.tolist()))) == count  # the same partition
    assert np.array_equal(np.sort(components.emitted), np.arange(n))
    assert np.all(np.diff(components.component[components.emitted]) >= 0)  # grouped, in number order
    assert np.all(components.component[tails] >= components.component[indices])  # after what they reach
    linked = link_paths(indptr, indices, 3)
    given, found = path_dependencies(linked, indptr, indices, components=components), path_dependencies(
        linked, indptr, indices)
    assert np.array_equal(given.layer, found.layer) and np.array_equal(given.scc, found.scc)


@pytest.mark.parametrize("own_core", [False, True])
@pytest.mark.parametrize("n, m, seed", GRAPHS[-3:])
def test_layout_is_the_same_with_the_components_beside_the_partitioning_or_after(n, m, seed, own_core,
                                                                                 monkeypatch):
    indptr, indices = random_csr(n, m, seed)
    threads = numba.get_num_threads()
    if own_core:  # Tarjan's thread given a core of its own, the partitioning one thread fewer
        monkeypatch.setattr(config, "PATH_SCC_OWN_CORE_THREADS", 2)
    beside = build_layout(indptr, indices)
    assert numba.get_num_threads() == threads
    numba.set_num_threads(1)
    try:
        after = build_layout(indptr, indices)
    finally:
        numba.set_num_threads(threads)
    for name in ("vertices", "arcs", "offsets", "chunk_offsets", "source_chunks", "chunk_layer", "chunk_mean_degree"):
        assert np.array_equal(getattr(beside, name), getattr(after, name))
    assert "SCCs of the graph (Tarjan)" in beside.stage_seconds


@pytest.mark.parametrize("pieces", [1, 4])
@pytest.mark.parametrize("chunk_arcs", [1, 4, 16])
@pytest.mark.parametrize("n, m, seed", GRAPHS)
def test_layout_equals_sorting_by_layer_and_grouping_by_source(n, m, seed, chunk_arcs, pieces):
    indptr, indices = random_csr(n, m, seed)
    layout = build_layout(indptr, indices, 16, chunk_arcs, pieces)
    assert layout.pieces == pieces and sum(layout.stage_seconds.values()) <= layout.seconds
    paths = partition_paths(indptr, indices, 16, pieces)
    dependencies = path_dependencies(paths, indptr, indices)
    order = np.argsort(dependencies.layer, kind="stable")
    sizes = np.diff(paths.offsets)[order]
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    positions = np.concatenate([np.arange(paths.offsets[p], paths.offsets[p + 1]) for p in order] or [[]])
    positions = positions.astype(np.int64)
    assert np.array_equal(layout.offsets, offsets)
    assert np.array_equal(layout.vertices, paths.vertices[positions])
    assert layout.vertices.dtype == indices.dtype
    assert np.array_equal(layout.arcs, paths.arcs[positions])
    bounds, arcs = [], chunk_arcs
    for p, length in enumerate(sizes - 1):
        if arcs + length > chunk_arcs:
            bounds.append(p)
            arcs = 0
        arcs += length
    assert layout.chunk_offsets.tolist() == bounds + [order.size]
    chunk_of_position = np.repeat(np.repeat(np.arange(len(bounds)), np.diff(layout.chunk_offsets)), sizes)
    sends = layout.arcs >= 0
    by_source = np.argsort(layout.vertices[sends], kind="stable")
    assert np.array_equal(layout.source_offsets, indptr)
    assert np.array_equal(layout.source_chunks, chunk_of_position[sends][by_source])
    degree = np.diff(indptr)[layout.vertices]
    starts = offsets[layout.chunk_offsets]
    expected_degree = [degree[a:b].sum() / (b - a) for a, b in zip(starts[:-1], starts[1:])]
    assert np.array_equal(layout.chunk_mean_degree, np.array(expected_degree, dtype=np.float64))
    assert np.array_equal(layout.chunk_layer, dependencies.layer[order][layout.chunk_offsets[:-1]])
    assert (layout.num_sccs, layout.largest_scc) == (dependencies.num_sccs, dependencies.largest_scc)
