"""The Graph500 BFS validator: correct trees pass with the right levels and edge count; each rule catches its fault."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import breadth_first_order, shortest_path

from gpugraph import config
from gpugraph.errors import GpugraphError, Graph500ValidationError, InvalidParameterError, VertexIdError
from gpugraph.graph500.validate import _check_tree_levels, validate
from gpugraph.io.generators import rmat_edges


def bfs_parent(src, dst, n: int, root: int) -> np.ndarray:
    """A Graph500 parent array from SciPy's BFS: ``parent[root] = root``, -1 where not reached."""
    graph = coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    _, predecessors = breadth_first_order(graph, root, directed=False, return_predecessors=True)
    parent = np.where(predecessors < 0, -1, predecessors).astype(np.int64)
    parent[root] = root
    return parent


def bfs_levels(src, dst, n: int, root: int) -> np.ndarray:
    """SciPy's hop distances from ``root``, -1 where not reached."""
    graph = coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    distance = shortest_path(graph, directed=False, unweighted=True, indices=root)
    return np.where(np.isinf(distance), -1, distance).astype(np.int64)


def edges(*pairs) -> tuple[np.ndarray, np.ndarray]:
    array = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return array[:, 0].copy(), array[:, 1].copy()


def check_passes(src, dst, n: int, root: int, expected_edges: int, **kwargs) -> dict:
    parent = bfs_parent(src, dst, n, root)
    result = validate(src, dst, n, root, parent, **kwargs)
    levels = bfs_levels(src, dst, n, root)
    assert result["levels"].dtype == np.int64
    np.testing.assert_array_equal(result["levels"], levels)
    assert result["reached_vertices"] == int((levels >= 0).sum())
    assert result["max_level"] == int(levels.max())
    assert result["edges_in_component"] == expected_edges
    return result


def raises_rule(rule: int, src, dst, n: int, root: int, parent, match: str = "", **kwargs):
    with pytest.raises(Graph500ValidationError, match=f"^rule {rule}: .*{match}"):
        validate(src, dst, n, root, np.asarray(parent), **kwargs)


# --- correct results pass ------------------------------------------------------------------------


def test_path():
    src, dst = edges((0, 1), (1, 2), (2, 3), (3, 4))
    result = check_passes(src, dst, 5, 2, expected_edges=4)
    assert result["levels"].tolist() == [2, 1, 0, 1, 2]
    assert result["max_level"] == 2
    assert result["reached_vertices"] == 5


def test_star_with_self_loops_and_duplicates():
    # 5 spokes, spoke 0-1 twice (counted twice), self-loops at 0 and 3 (not counted).
    src, dst = edges((0, 1), (0, 2), (3, 0), (0, 4), (5, 0), (1, 0), (0, 0), (3, 3))
    result = check_passes(src, dst, 6, 0, expected_edges=6)
    assert result["levels"].tolist() == [0, 1, 1, 1, 1, 1]
    # From a leaf: the same edges, one level deeper.
    check_passes(src, dst, 6, 4, expected_edges=6)


def test_two_components_and_isolated_vertex():
    # Component {0,1,2} (a triangle plus a repeated edge and a self-loop), component {3,4,5}, isolated 6.
    src, dst = edges((0, 1), (1, 2), (2, 0), (2, 1), (1, 1), (3, 4), (4, 5), (5, 3), (5, 5))
    result = check_passes(src, dst, 7, 1, expected_edges=4)
    assert result["levels"].tolist() == [1, 0, 1, -1, -1, -1, -1]
    assert result["reached_vertices"] == 3
    result = check_passes(src, dst, 7, 5, expected_edges=3)
    assert result["reached_vertices"] == 3
    # The isolated vertex as root: a tree of one vertex, no edges.
    result = check_passes(src, dst, 7, 6, expected_edges=0)
    assert result["max_level"] == 0 and result["reached_vertices"] == 1


def test_single_vertex_without_edges():
    empty = np.zeros(0, dtype=np.int64)
    result = validate(empty, empty, 1, 0, np.array([0]))
    assert result["levels"].tolist() == [0]
    assert result["edges_in_component"] == 0


def test_random_graph_with_self_loops_and_duplicates():
    rng = np.random.default_rng(7)
    n = 300
    src = rng.integers(0, n, 900)
    dst = rng.integers(0, n, 900)
    src[:40], dst[:40] = np.arange(40), np.arange(40)  # self-loops
    src, dst = np.concatenate([src, dst[:100]]), np.concatenate([dst, src[:100]])  # reversed duplicates
    root = int(src[50])
    reached = bfs_levels(src, dst, n, root) >= 0
    expected = int((reached[src] & (src != dst)).sum())
    assert expected > 500
    check_passes(src, dst, n, root, expected_edges=expected)
    check_passes(src.astype(np.int32), dst.astype(np.uint32), n, root, expected_edges=expected, chunk_edges=97)


def test_rmat_scale_8():
    edge_list = rmat_edges(scale=8, seed=1)
    src, dst = np.asarray(edge_list.src), np.asarray(edge_list.dst)
    n = 1 << 8
    degree = np.bincount(src[src != dst], minlength=n) + np.bincount(dst[src != dst], minlength=n)
    root = int(degree.argmax())
    reached = bfs_levels(src, dst, n, root) >= 0
    expected = int((reached[src] & (src != dst)).sum())
    result = check_passes(src, dst, n, root, expected_edges=expected)
    assert result["reached_vertices"] > n // 2
    chunked = check_passes(src, dst, n, root, expected_edges=expected, chunk_edges=333)
    np.testing.assert_array_equal(chunked["levels"], result["levels"])


def test_cpu_path_does_not_import_cupy():
    if "cupy" in sys.modules:
        pytest.skip("CuPy already imported by another test")
    src, dst = edges((0, 1), (1, 2))
    validate(src, dst, 3, 0, np.array([0, 0, 1]))
    assert "cupy" not in sys.modules


def test_default_chunk_is_config_value():
    assert config.GRAPH500_VALIDATE_CHUNK_EDGES == 1 << 24


# --- each rule catches its fault -----------------------------------------------------------------

#: A square 0-1-2-3-0 with a tail 2-4, and vertex 5 joined to the root only.
SQUARE = edges((0, 1), (1, 2), (2, 3), (3, 0), (2, 4), (0, 5))
SQUARE_PARENT = [0, 0, 1, 0, 2, 0]  # levels 0 1 2 1 3 1


def test_square_parent_is_valid():
    result = validate(*SQUARE, 6, 0, np.array(SQUARE_PARENT))
    assert result["levels"].tolist() == [0, 1, 2, 1, 3, 1]
    assert result["edges_in_component"] == 6


def test_rule_0_wrong_size():
    raises_rule(0, *SQUARE, 6, 0, SQUARE_PARENT[:5], "5 entries")
    raises_rule(0, *SQUARE, 6, 0, [SQUARE_PARENT], "1-D")


def test_rule_0_parent_out_of_range():
    for value in (6, -2, 1 << 40):
        parent = list(SQUARE_PARENT)
        parent[4] = value
        raises_rule(0, *SQUARE, 6, 0, parent, f"parent of vertex 4 is {value}")
    raises_rule(0, *SQUARE, 6, 0, np.array([0, 0, 1, 0, 2**63 + 5, 0], dtype=np.uint64), "vertex 4")
    raises_rule(0, *SQUARE, 6, 0, np.array(SQUARE_PARENT, dtype=float), "integer")


def test_rule_0_root():
    raises_rule(0, *SQUARE, 6, 1, SQUARE_PARENT, "parent of root 1 is 0")
    raises_rule(0, *SQUARE, 6, 6, SQUARE_PARENT, "root 6 is not a vertex")
    raises_rule(0, *SQUARE, 6, -1, SQUARE_PARENT, "root -1 is not a vertex")


def test_rule_1_cycle():
    # 2 -> 3 -> 2 (both input edges), with 4 hanging on 2: none of them reaches the root.
    raises_rule(1, *SQUARE, 6, 0, [0, 0, 3, 2, 2, 0], "vertex 2 run into a cycle through vertex [23]")
    # 1 -> 2 -> 1 with 4 hanging on 2; 3 and 5 are fine.
    raises_rule(1, *SQUARE, 6, 0, [0, 2, 1, 0, 2, 0], "vertex 1 run into a cycle")


def test_rule_1_own_parent_and_unreached_parent():
    raises_rule(1, *SQUARE, 6, 0, [0, 0, 2, 0, 2, 0], "vertex 2 is its own parent")
    raises_rule(1, *SQUARE, 6, 0, [0, 0, -1, 0, 2, 0], "vertex 4 has parent 2, which is not reached")


def test_rule_1_long_cycle():
    # A ring of 64 vertices, each pointing to the next, beside a root with no edges: it never converges.
    n = 65
    ring = np.arange(1, n)
    src, dst = ring, np.roll(ring, -1)
    parent = np.concatenate([[0], np.roll(ring, -1)])
    raises_rule(1, src, dst, n, 0, parent, "never reach root 0")


def test_rule_2_tree_edge_levels():
    # Unreachable from validate (levels come from the parents); check the rule on levels given by hand.
    parent = np.array(SQUARE_PARENT)
    _check_tree_levels(np, parent, np.array([0, 1, 2, 1, 3, 1]), 0)
    with pytest.raises(Graph500ValidationError, match=r"^rule 2: tree edge 4 -> 2 joins levels 4 and 2"):
        _check_tree_levels(np, parent, np.array([0, 1, 2, 1, 4, 1]), 0)


def test_rule_3_level_jump_of_two():
    # Vertex 3 hung below 2 (edge 2-3 exists): level 3, but the edge 3-0 joins it to the root.
    raises_rule(3, *SQUARE, 6, 0, [0, 0, 1, 2, 2, 0], "input edge 3 - 0 joins levels 3 and 0")


def test_rule_3_component_not_spanned():
    raises_rule(3, *SQUARE, 6, 0, [0, 0, 1, 0, -1, 0], "reached vertex 2 .* unreached vertex 4")
    # A vertex of another component claimed as reached: its edges lead to unreached vertices.
    src, dst = edges((0, 1), (2, 3))
    raises_rule(3, src, dst, 4, 0, [0, 0, 0, -1], "reached vertex 2 .* unreached vertex 3")


def test_rule_4_tree_edge_not_in_input():
    # 4 is hung on 5 (level 1): levels still fit every input edge, but there is no edge 4-5.
    src, dst = edges((0, 1), (1, 2), (2, 3), (3, 0), (2, 4), (0, 5), (5, 4))
    validate(src, dst, 6, 0, np.array([0, 0, 1, 0, 5, 0]))
    raises_rule(4, *SQUARE, 6, 0, [0, 0, 1, 0, 3, 0], "tree edge 4 -> 3")
    # Found only across chunks: each chunk of two edges holds part of the tree.
    validate(src, dst, 6, 0, np.array([0, 0, 1, 0, 5, 0]), chunk_edges=2)
    raises_rule(4, src[:-1], dst[:-1], 6, 0, [0, 0, 1, 0, 5, 0], "tree edge 4 -> 5", chunk_edges=2)


# --- arguments -----------------------------------------------------------------------------------


def test_error_class():
    assert issubclass(Graph500ValidationError, GpugraphError)
    assert issubclass(Graph500ValidationError, ValueError)


def test_bad_edges_and_parameters():
    src, dst = edges((0, 1), (1, 2))
    parent = np.array([0, 0, 1])
    with pytest.raises(VertexIdError, match="input edge 1"):
        validate(src, np.array([1, 3]), 3, 0, parent)
    with pytest.raises(InvalidParameterError, match="destinations has 1"):
        validate(src, dst[:1], 3, 0, parent)
    with pytest.raises(InvalidParameterError, match="integer"):
        validate(src.astype(float), dst, 3, 0, parent)
    with pytest.raises(InvalidParameterError, match="chunk_edges"):
        validate(src, dst, 3, 0, parent, chunk_edges=0)
    with pytest.raises(InvalidParameterError, match="num_vertices"):
        validate(src, dst, 0, 0, parent)
