"""Graph generators: determinism, sizes, distributions against their definitions, CPU == CUDA."""

import math
import os

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import gpugraph as gg
from gpugraph import config
from gpugraph.errors import InvalidParameterError
from gpugraph.io import generators


def _pairs(edges):
    return np.stack([np.asarray(edges.src, dtype=np.int64), np.asarray(edges.dst, dtype=np.int64)])


# --- RMAT ----------------------------------------------------------------------------------------
def test_rmat_sizes_ids_and_direction():
    edges = generators.rmat_edges(10, edge_factor=8, seed=3)
    assert edges.num_vertices == 1024 and edges.num_entries == 8 * 1024
    assert not edges.directed and edges.weights is None
    assert edges.src.dtype == np.int32 and edges.dst.dtype == np.int32
    assert 0 <= edges.src.min() and max(edges.src.max(), edges.dst.max()) < 1024
    assert edges.metadata["generator"] == "rmat" and edges.metadata["seed"] == 3


def test_rmat_is_deterministic_and_seeded():
    first = generators.rmat_edges(12, seed=7)
    again = generators.rmat_edges(12, seed=7)
    other = generators.rmat_edges(12, seed=8)
    assert np.array_equal(_pairs(first), _pairs(again))
    assert np.mean(first.src != other.src) > 0.9


def test_seeds_are_integers_modulo_2_to_the_64():
    assert np.array_equal(_pairs(generators.rmat_edges(6, seed=-1)), _pairs(generators.rmat_edges(6, seed=2**64 - 1)))
    for bad in (1.5, "3", None, True):
        with pytest.raises(InvalidParameterError, match="seed"):
            generators.gnm_edges(10, 10, seed=bad)


def test_rmat_edges_are_pinned_across_versions():
    """Generated benchmark graphs must not change between releases: pin the first edges."""
    edges = generators.rmat_edges(10, seed=42)
    assert edges.src[:6].tolist() == [868, 379, 493, 753, 690, 868]
    assert edges.dst[:6].tolist() == [215, 896, 419, 502, 379, 500]


def test_rmat_independent_of_pieces_and_threads(monkeypatch):
    reference = generators.rmat_edges(11, seed=5)
    monkeypatch.setattr(config, "GENERATOR_PIECE_EDGES", 1000)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        pieces = generators.rmat_edges(11, seed=5)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(_pairs(reference), _pairs(pieces))


@pytest.mark.parametrize("scale", [1, 2, 3, 9, 10])
def test_vertex_permutation_is_a_bijection(scale):
    table = generators.vertex_permutation(scale, seed=11)
    assert table.size == 2**scale
    assert np.array_equal(np.sort(table), np.arange(2**scale))


def test_rmat_permutation_relabels_the_unpermuted_edges():
    raw = generators.rmat_edges(9, seed=2, permute=False)
    permuted = generators.rmat_edges(9, seed=2)
    table = generators.vertex_permutation(9, seed=2)
    assert np.array_equal(table[raw.src], permuted.src)
    assert np.array_equal(table[raw.dst], permuted.dst)
    assert not np.array_equal(table, np.arange(table.size))


def test_rmat_quadrant_frequencies_match_the_initiator():
    """Unpermuted, every bit level of (src, dst) is an independent quadrant draw: (1, 1) with
    probability d, a 1 in src with c + d, a 1 in dst with b + d."""
    a, b, c = 0.5, 0.2, 0.1
    d = 1 - a - b - c
    scale = 10
    edges = generators.rmat_edges(scale, a=a, b=b, c=c, seed=1, permute=False)
    levels = 1 << np.arange(scale)
    src_bits = (edges.src[:, None] & levels) > 0
    dst_bits = (edges.dst[:, None] & levels) > 0
    draws = src_bits.size
    for observed, expected in [
        (src_bits.mean(), c + d),
        (dst_bits.mean(), b + d),
        ((src_bits & dst_bits).mean(), d),
    ]:
        sigma = math.sqrt(expected * (1 - expected) / draws)
        assert abs(observed - expected) < 5 * sigma, (observed, expected)


def test_rmat_degrees_are_skewed():
    edges = generators.rmat_edges(14, seed=0)
    degree = np.bincount(np.concatenate([edges.src, edges.dst]), minlength=2**14)
    assert degree.mean() == pytest.approx(32.0)
    assert degree.max() > 20 * degree.mean()
    assert np.count_nonzero(degree == 0) > 0.1 * degree.size  # many isolated vertices, as Graph500


def test_rmat_graph_keeps_graph500_edges_and_isolated_vertices():
    graph = generators.rmat(8, device="cpu")
    assert isinstance(graph, gg.Graph) and not graph.directed
    assert graph.num_vertices == 256 and graph.num_edges == 16 * 256
    assert graph.name.startswith("rmat(scale=8")
    deduplicated = generators.rmat(8, device="cpu", duplicates="first", self_loops="drop")
    assert deduplicated.num_edges < graph.num_edges


@pytest.mark.parametrize(
    "kwargs",
    [
        {"scale": 0},
        {"scale": 41},
        {"scale": 3.5},
        {"scale": True},
        {"scale": 5, "edge_factor": 0},
        {"scale": 5, "a": 0.6, "b": 0.2, "c": 0.2},
        {"scale": 5, "a": -0.1},
        {"scale": 5, "b": float("nan")},
        {"scale": 5, "c": "x"},
    ],
)
def test_rmat_rejects_bad_parameters(kwargs):
    with pytest.raises(InvalidParameterError):
        generators.rmat_edges(**kwargs)


def test_rmat_edge_count_checks_what_it_counts():
    assert generators.rmat_edge_count(5, 4) == 128 == generators.rmat_edges(5, 4).num_entries
    for scale, edge_factor in ((-3, 16), (0, 16), (41, 16), (5, 0), (5.5, 16)):
        with pytest.raises(InvalidParameterError):
            generators.rmat_edge_count(scale, edge_factor)


# --- G(n, m) -------------------------------------------------------------------------------------
def test_gnm_sizes_no_self_loops_and_determinism():
    edges = generators.gnm_edges(50, 5000, seed=4)
    again = generators.gnm_edges(50, 5000, seed=4)
    assert edges.num_vertices == 50 and edges.num_entries == 5000 and edges.directed
    assert np.array_equal(_pairs(edges), _pairs(again))
    assert not np.any(edges.src == edges.dst)
    assert 0 <= min(edges.src.min(), edges.dst.min()) and max(edges.src.max(), edges.dst.max()) < 50
    assert generators.gnm_edges(1000, 10, seed=42).src[:6].tolist() == [524, 313, 920, 719, 382, 232]


def test_gnm_is_uniform_over_pairs():
    n, m = 20, 200_000
    edges = generators.gnm_edges(n, m, seed=9)
    counts = np.zeros((n, n))
    np.add.at(counts, (edges.src, edges.dst), 1)
    off_diagonal = counts[~np.eye(n, dtype=bool)]
    expected = m / (n * (n - 1))
    chi_square = ((off_diagonal - expected) ** 2 / expected).sum()
    dof = off_diagonal.size - 1
    assert abs(chi_square - dof) < 6 * math.sqrt(2 * dof)


def test_gnm_self_loops_option_and_undirected():
    edges = generators.gnm_edges(3, 3000, seed=1, self_loops=True, directed=False)
    assert not edges.directed
    loops = np.count_nonzero(edges.src == edges.dst)
    assert abs(loops - 1000) < 150
    assert generators.gnm_edges(1, 5, self_loops=True).num_entries == 5


def test_gnm_graph_and_empty_cases():
    graph = generators.gnm(100, 300, seed=2, device="cpu")
    assert graph.directed and graph.num_vertices == 100 and graph.num_edges == 300
    assert generators.gnm_edges(0, 0).num_entries == 0
    assert generators.gnm(10, 0, device="cpu").num_edges == 0


@pytest.mark.parametrize(
    "args, kwargs",
    [((-1, 5), {}), ((5, -1), {}), ((1, 3), {}), ((0, 1), {"self_loops": True}), ((2**41, 1), {}), ((5.0, 2), {})],
)
def test_gnm_rejects_bad_parameters(args, kwargs):
    with pytest.raises(InvalidParameterError):
        generators.gnm_edges(*args, **kwargs)


# --- grids ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 6), (4, 1), (5, 7)])
def test_grid_edges_join_neighbours(rows, cols):
    edges = generators.grid_edges(rows, cols)
    assert edges.num_entries == rows * (cols - 1) + cols * (rows - 1)
    assert edges.num_vertices == rows * cols and not edges.directed
    (src_row, src_col), (dst_row, dst_col) = np.divmod(edges.src, cols), np.divmod(edges.dst, cols)
    assert np.all(np.abs(src_row - dst_row) + np.abs(src_col - dst_col) == 1)
    assert len({(u, v) for u, v in zip(edges.src.tolist(), edges.dst.tolist())}) == edges.num_entries


def test_grid_diagonal_edges():
    rows, cols = 4, 6
    edges = generators.grid_edges(rows, cols, diagonal=True)
    assert edges.num_entries == rows * (cols - 1) + cols * (rows - 1) + 2 * (rows - 1) * (cols - 1)
    (src_row, src_col), (dst_row, dst_col) = np.divmod(edges.src, cols), np.divmod(edges.dst, cols)
    assert np.all(np.maximum(np.abs(src_row - dst_row), np.abs(src_col - dst_col)) == 1)


def test_grid_diameter_is_rows_plus_cols():
    graph = generators.grid(6, 9, device="cpu")
    adjacency = sp.csr_matrix(
        (np.ones(graph.num_arcs), graph.indices, graph.indptr), shape=(graph.num_vertices,) * 2
    )
    distances = csgraph.shortest_path(adjacency, unweighted=True)
    assert distances.max() == 6 + 9 - 2


def test_grid_weights_are_seeded_integers_in_range():
    weighted = generators.grid_edges(30, 40, weighted=True, seed=1)
    again = generators.grid_edges(30, 40, weighted=True, seed=1)
    other = generators.grid_edges(30, 40, weighted=True, seed=2)
    low, high = generators.GRID_WEIGHT_RANGE
    assert weighted.weights.dtype == np.int64
    assert weighted.weights.min() == low and weighted.weights.max() == high
    assert np.array_equal(weighted.weights, again.weights)
    assert not np.array_equal(weighted.weights, other.weights)
    assert generators.grid_edges(2, 3, weighted=True, seed=42).weights.tolist() == [82, 6, 7, 81, 56, 22, 12]
    graph = generators.grid(30, 40, weighted=True, seed=1, device="cpu")
    assert graph.is_weighted and graph.num_edges == weighted.num_entries


@pytest.mark.parametrize("rows, cols", [(0, 5), (5, -1), (2**21, 2**20), (2.5, 3)])
def test_grid_rejects_bad_sizes(rows, cols):
    with pytest.raises(InvalidParameterError):
        generators.grid_edges(rows, cols)


# --- CPU == CUDA (simulator) ---------------------------------------------------------------------
needs_cudasim = pytest.mark.skipif(
    os.environ.get("NUMBA_ENABLE_CUDASIM") != "1", reason="needs NUMBA_ENABLE_CUDASIM=1"
)


@pytest.mark.cudasim
@needs_cudasim
@pytest.mark.parametrize("permute", [True, False])
def test_cuda_rmat_equals_cpu(permute):
    cpu = generators.rmat_edges(5, edge_factor=4, seed=13, permute=permute, device="cpu")
    cuda = generators.rmat_edges(5, edge_factor=4, seed=13, permute=permute, device="cuda")
    assert np.array_equal(_pairs(cpu), _pairs(cuda)) and cuda.src.dtype == cpu.src.dtype


@pytest.mark.cudasim
@needs_cudasim
def test_cuda_permutation_gnm_and_grid_equal_cpu():
    assert np.array_equal(
        generators.vertex_permutation(7, seed=3, device="cpu"),
        generators.vertex_permutation(7, seed=3, device="cuda"),
    )
    for self_loops in (False, True):
        cpu = generators.gnm_edges(40, 200, seed=6, self_loops=self_loops, device="cpu")
        cuda = generators.gnm_edges(40, 200, seed=6, self_loops=self_loops, device="cuda")
        assert np.array_equal(_pairs(cpu), _pairs(cuda))
    cpu = generators.grid_edges(6, 7, diagonal=True, weighted=True, seed=6, device="cpu")
    cuda = generators.grid_edges(6, 7, diagonal=True, weighted=True, seed=6, device="cuda")
    assert np.array_equal(_pairs(cpu), _pairs(cuda)) and np.array_equal(cpu.weights, cuda.weights)


@pytest.mark.cudasim
@needs_cudasim
def test_cuda_rmat_graph_equals_cpu_graph():
    cuda = generators.rmat(4, edge_factor=4, seed=1, device="cuda")
    assert cuda.device.startswith("cuda")
    assert cuda.equals(generators.rmat(4, edge_factor=4, seed=1, device="cpu"))
