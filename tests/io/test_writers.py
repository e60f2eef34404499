"""Text writers, checked with independent parsers (NumPy, SciPy), plus save() dispatch and
atomicity."""

import bz2
import gzip
import lzma
import os

import numpy as np
import pytest
import scipy.io

import gpugraph as gg
from gpugraph import config
from gpugraph.errors import InvalidParameterError, UnknownFormatError
from gpugraph.io import binary, writers


def _graph(directed=True, weights=None, sparse_ids=False, seed=0, n=40, m=300):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    values = {
        None: None,
        "int": rng.integers(-1000, 10**6, m),
        "float": rng.random(m) * 10.0 ** rng.integers(-8, 8, m),
        "float32": rng.random(m).astype(np.float32),
        "integral float": rng.integers(0, 100, m).astype(np.float64),
    }[weights]
    if sparse_ids:
        ids = rng.choice(10**12, size=n, replace=False)
        return gg.from_edges(ids[src], ids[dst], values, directed=directed, device="cpu", name="sparse")
    return gg.from_edges(src, dst, values, num_vertices=n, directed=directed, device="cpu", name="g")


def _expected_rows(graph, original_ids=True):
    """(src, dst, weight) of every edge, once per undirected edge, from the CSR: the reference."""
    src, dst, weights = graph.edges()
    keep = np.ones(src.size, bool) if graph.directed else src <= dst
    src, dst = src[keep], dst[keep]
    if original_ids:
        src, dst = graph.to_original(src), graph.to_original(dst)
    weights = None if weights is None else weights[keep]
    return src, dst, weights


def _sorted_triples(src, dst, weights):
    weights = np.zeros(len(src)) if weights is None else weights
    return sorted(zip(np.asarray(src).tolist(), np.asarray(dst).tolist(), np.asarray(weights).tolist()))


# --- edge lists ----------------------------------------------------------------------------------
@pytest.mark.parametrize("weights", [None, "int", "float", "float32", "integral float"])
@pytest.mark.parametrize("directed", [True, False])
def test_edge_list_reads_back_with_numpy(tmp_path, directed, weights):
    graph = _graph(directed, weights, sparse_ids=True)
    path = tmp_path / "g.txt"
    writers.write_edge_list(graph, path)
    table = np.loadtxt(path, comments="#", dtype=object, ndmin=2)
    src, dst, values = _expected_rows(graph)
    assert table.shape[0] == graph.num_edges == src.size
    assert np.array_equal(table[:, 0].astype(np.int64), src)
    assert np.array_equal(table[:, 1].astype(np.int64), dst)
    if values is None:
        assert table.shape[1] == 2
    else:
        parsed = table[:, 2].astype(np.float64 if values.dtype.kind == "f" else np.int64)
        assert np.array_equal(parsed.astype(values.dtype), values)  # exact, not approximately
    header = path.read_text().splitlines()[:3]
    assert header[0].startswith("# Directed graph" if directed else "# Undirected graph")
    assert header[1] == f"# Nodes: {graph.num_vertices} Edges: {graph.num_edges}"


def test_edge_list_internal_ids_and_no_weights(tmp_path):
    graph = _graph(weights="int", sparse_ids=True)
    path = tmp_path / "g.tsv"
    writers.write_edge_list(graph, path, original_ids=False, weights=False)
    table = np.loadtxt(path, comments="#", dtype=np.int64)
    src, dst, _ = _expected_rows(graph, original_ids=False)
    assert table.shape == (graph.num_edges, 2)
    assert np.array_equal(table[:, 0], src) and np.array_equal(table[:, 1], dst)


def test_edge_list_reads_back_with_gpugraph(tmp_path):
    graph = _graph(weights="float", sparse_ids=True)
    path = tmp_path / "g.el"
    gg.save(graph, path)
    again = gg.load(path, device="cpu")
    assert np.array_equal(again.original_ids, graph.original_ids)
    assert np.array_equal(again.indptr, graph.indptr) and np.array_equal(again.indices, graph.indices)
    assert np.array_equal(again.weights, graph.weights)


@pytest.mark.parametrize("suffix, opener", [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)])
def test_compressed_outputs_hold_the_same_text(tmp_path, suffix, opener):
    graph = _graph(weights="int")
    plain, packed = tmp_path / "g.txt", tmp_path / f"g.txt{suffix}"
    gg.save(graph, plain)
    gg.save(graph, packed)
    with opener(packed, "rb") as handle:
        assert handle.read() == plain.read_bytes()
    assert gg.load(packed, device="cpu").equals(gg.load(plain, device="cpu"))


def test_gzip_output_is_reproducible(tmp_path):
    graph = _graph()
    first, second = tmp_path / "a.txt.gz", tmp_path / "b.txt.gz"
    writers.write_edge_list(graph, first)
    writers.write_edge_list(graph, second)
    assert first.read_bytes() == second.read_bytes()  # no time stamp in the gzip header


def test_pieces_do_not_change_the_text(tmp_path, monkeypatch):
    graph = _graph(weights="float", m=1000)
    whole, pieces = tmp_path / "whole.mtx", tmp_path / "pieces.mtx"
    writers.write_matrix_market(graph, whole)
    monkeypatch.setattr(config, "WRITE_PIECE_ROWS", 37)
    writers.write_matrix_market(graph, pieces)
    assert whole.read_bytes() == pieces.read_bytes()


def test_every_float_reads_back_exactly(tmp_path):
    rng = np.random.default_rng(5)
    values = np.concatenate([
        rng.integers(0, 2**64, 20000, dtype=np.uint64).view(np.float64),  # every exponent
        rng.random(20000),
        np.round(rng.random(2000) * 100, 2),
        [0.0, -0.0, 1.0, -1.5, 0.1, 2.0**53, 2.0**53 + 2, 5e-324, 1.7976931348623157e308, np.inf, -np.inf],
    ])
    values = values[~np.isnan(values)]
    for dtype in (np.float64, np.float32):
        with np.errstate(over="ignore"):
            typed = values.astype(dtype)
        graph = gg.from_edges(np.zeros(typed.size, int), np.zeros(typed.size, int), typed, num_vertices=1, device="cpu")
        path = tmp_path / "w.txt"
        writers.write_edge_list(graph, path)
        text = [line.split("\t")[2] for line in path.read_text().splitlines() if not line.startswith("#")]
        parsed = np.array([float(token) for token in text]).astype(dtype)
        assert np.array_equal(parsed, graph.weights)
        assert np.array_equal(np.signbit(parsed), np.signbit(graph.weights))
        if dtype == np.float32:  # and when parsed straight to float32
            assert all(np.float32(token) == value for token, value in zip(text[:3000], graph.weights[:3000]))


def test_integer_extremes(tmp_path):
    values = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1, 7])
    graph = gg.from_edges([0, 1, 2, 3, 4], [1, 2, 3, 4, 0], values, device="cpu")
    path = tmp_path / "g.txt"
    writers.write_edge_list(graph, path)
    assert np.array_equal(np.loadtxt(path, comments="#", dtype=np.int64)[:, 2], graph.weights)
    big = np.array([2**64 - 1, 5], dtype=np.uint64)
    graph = gg.from_edges([0, 1], [1, 0], big, device="cpu")
    writers.write_edge_list(graph, path)
    assert [line.split("\t")[2] for line in path.read_text().splitlines()[3:]] == [str(2**64 - 1), "5"]


# --- Matrix Market -------------------------------------------------------------------------------
def _mmread(path):
    try:
        return scipy.io.mmread(path, spmatrix=False)  # SciPy >= 1.15; the old default warns
    except TypeError:
        return scipy.io.mmread(path)


@pytest.mark.parametrize("weights", [None, "int", "float"])
@pytest.mark.parametrize("directed", [True, False])
def test_matrix_market_reads_back_with_scipy(tmp_path, directed, weights):
    graph = _graph(directed, weights)
    path = tmp_path / "g.mtx"
    writers.write_matrix_market(graph, path)
    matrix = _mmread(path).tocoo()
    assert matrix.shape == (graph.num_vertices, graph.num_vertices)
    banner = path.read_text().splitlines()[0].split()
    assert banner[3] == {None: "pattern", "int": "integer", "float": "real"}[weights]
    assert banner[4] == ("general" if directed else "symmetric")
    src, dst, values = graph.edges()  # every stored arc: SciPy mirrors the symmetric entries
    expected = _sorted_triples(src, dst, None if values is None else values.astype(np.float64))
    found = _sorted_triples(matrix.row, matrix.col, None if values is None else matrix.data.astype(np.float64))
    assert found == expected


def test_matrix_market_symmetric_is_lower_triangle_once(tmp_path):
    graph = _graph(directed=False)
    path = tmp_path / "g.mtx"
    writers.write_matrix_market(graph, path)
    lines = [line for line in path.read_text().splitlines() if not line.startswith("%")]
    assert lines[0].split() == [str(graph.num_vertices), str(graph.num_vertices), str(graph.num_edges)]
    entries = np.array([line.split() for line in lines[1:]], dtype=np.int64)
    assert len(entries) == graph.num_edges
    assert np.all(entries[:, 0] >= entries[:, 1]) and entries.min() >= 1


def test_matrix_market_keeps_isolated_vertices_through_gpugraph(tmp_path):
    graph = gg.from_edges([0, 2], [2, 5], [1.25, 2.5], num_vertices=9, directed=False, device="cpu")
    path = tmp_path / "g.mtx"
    gg.save(graph, path)
    again = gg.load(path, device="cpu")
    assert again.num_vertices == 9 and again.id_offset == 1 and not again.directed
    assert np.array_equal(again.indptr, graph.indptr) and np.array_equal(again.weights, graph.weights)


# --- DIMACS --------------------------------------------------------------------------------------
@pytest.mark.parametrize("directed", [True, False])
def test_dimacs_lists_every_arc(tmp_path, directed):
    graph = _graph(directed, "int")
    path = tmp_path / "g.gr"
    gg.save(graph, path)
    lines = path.read_text().splitlines()
    problem = [line.split() for line in lines if line.startswith("p ")]
    assert problem == [["p", "sp", str(graph.num_vertices), str(graph.num_arcs)]]
    arcs = np.array([line.split()[1:] for line in lines if line.startswith("a ")], dtype=np.int64)
    src, dst, weights = graph.edges()
    assert _sorted_triples(arcs[:, 0] - 1, arcs[:, 1] - 1, arcs[:, 2]) == _sorted_triples(src, dst, weights)


def test_dimacs_needs_integer_weights(tmp_path):
    for graph in (_graph(), _graph(weights="float")):
        with pytest.raises(InvalidParameterError, match="integer edge weights"):
            writers.write_dimacs(graph, tmp_path / "g.gr")
    assert not (tmp_path / "g.gr").exists()


# --- save() and atomicity ------------------------------------------------------------------------
def test_save_dispatches_on_suffix(tmp_path):
    graph = _graph(weights="int")
    for name, first_bytes in [("a.gg", binary.MAGIC), ("a.mtx", b"%%MatrixMarket"), ("a.gr", b"c written"),
                              ("a.txt", b"# Directed"), ("a.edges", b"# Directed"), ("a.el", b"# Directed")]:
        gg.save(graph, tmp_path / name)
        assert (tmp_path / name).read_bytes().startswith(first_bytes), name
    gg.save(graph, tmp_path / "forced.dat", format="mtx")
    assert (tmp_path / "forced.dat").read_bytes().startswith(b"%%MatrixMarket")


@pytest.mark.parametrize("name, error", [("g.csv", UnknownFormatError), ("g", UnknownFormatError),
                                         ("g.gz", UnknownFormatError), ("g.gg.gz", InvalidParameterError)])
def test_save_rejects_unknown_or_impossible_outputs(tmp_path, name, error):
    with pytest.raises(error):
        gg.save(_graph(), tmp_path / name)
    assert os.listdir(tmp_path) == []
    with pytest.raises(UnknownFormatError, match="unknown output format"):
        gg.save(_graph(), tmp_path / "g.txt", format="graphml")


def _fail_after_first_piece(monkeypatch):
    monkeypatch.setattr(config, "WRITE_PIECE_ROWS", 50)
    calls = []
    original = writers._fill_rows

    def failing(*args):
        calls.append(1)
        if len(calls) >= 2:
            raise MemoryError("simulated failure mid-write")
        return original(*args)

    monkeypatch.setattr(writers, "_fill_rows", failing)


@pytest.mark.parametrize("name", ["g.txt", "g.mtx.gz"])
def test_failed_write_leaves_nothing_and_keeps_an_old_file(tmp_path, monkeypatch, name):
    graph = _graph(weights="int")
    path = tmp_path / name
    _fail_after_first_piece(monkeypatch)
    with pytest.raises(MemoryError):
        gg.save(graph, path)
    assert os.listdir(tmp_path) == []
    path.write_bytes(b"old contents")
    with pytest.raises(MemoryError):
        gg.save(graph, path)
    assert path.read_bytes() == b"old contents" and os.listdir(tmp_path) == [name]


def test_replacing_keeps_permissions(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("old")
    os.chmod(path, 0o640)
    gg.save(_graph(), path)
    assert os.stat(path).st_mode & 0o777 == 0o640 and path.read_text().startswith("# Directed")


@pytest.mark.slow
def test_large_write_reads_back(tmp_path):
    edges = gg.io.generators.rmat_edges(17, seed=3)
    graph = gg.from_edge_list(edges, device="cpu")
    path = tmp_path / "big.txt.gz"
    gg.save(graph, path)
    table = np.loadtxt(path, comments="#", dtype=np.int64)
    src, dst, _ = _expected_rows(graph)
    assert np.array_equal(table[:, 0], src) and np.array_equal(table[:, 1], dst)


def test_atomic_text_output_compresses_by_suffix_and_cleans_up(tmp_path):
    from gpugraph.io._atomic import atomic_output

    path = tmp_path / "result.tsv.gz"
    with atomic_output(path, mode="w") as handle:
        handle.write("# vertex\tdepth\nä\t1\n")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        assert handle.read() == "# vertex\tdepth\nä\t1\n"
    with pytest.raises(RuntimeError):
        with atomic_output(path, mode="w") as handle:
            handle.write("partial")
            raise RuntimeError("interrupted")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        assert handle.read().startswith("# vertex")
    assert os.listdir(tmp_path) == ["result.tsv.gz"]
    with pytest.raises(InvalidParameterError):
        with atomic_output(tmp_path / "x", mode="a"):
            pass
