"""Text readers against the real datasets and against naive, independent references."""

from __future__ import annotations

import bz2
import gzip
import lzma
import random
import struct

import numpy as np
import pandas as pd
import pytest
import scipy.io

from gpugraph import config
from gpugraph.errors import UnknownFormatError
from gpugraph.io.readers import FORMATS, detect_format, read_edge_list

# name, format, declared n (None: ids as they come), entries, distinct ids, directed, weight kind
DATASETS = [
    ("USA-road-d.NY.gr.gz", "dimacs", 264_346, 733_846, 264_346, True, "i"),
    ("pace-FLA.gr.xz", "pace", 1_070_376, 1_343_951, 1_070_376, False, None),
    ("soc-Slashdot0902.txt.gz", "edgelist", None, 948_464, 82_168, True, None),
    ("wiki-Vote.txt.gz", "edgelist", None, 103_689, 7_115, True, None),
    ("cnr-2000.txt.gz", "edgelist", None, 3_216_152, 325_557, True, None),
    ("karate.mtx", "mtx", 34, 78, 34, False, None),
    ("pushpull.mtx", "mtx", 4_000, 99_208, 4_000, False, None),
    ("lp_afiro.mtx", "mtx", 51, 102, 51, True, "f"),
    ("ldbc-directed-example.mtx", "mtx", 10, 17, 10, True, "f"),
    ("ldbc-undirected-example.mtx", "mtx", 9, 12, 9, False, "f"),
    ("power.graph", "metis", 4_941, 6_594, 4_941, False, None),
    ("polblogs.graph", "metis", 1_490, 16_715, 1_224, False, None),
    ("PGPgiantcompo.graph", "metis", 10_680, 24_316, 10_680, False, None),
]


@pytest.mark.parametrize("name, fmt, n, entries, distinct, directed, weight_kind", DATASETS)
def test_dataset_counts(dataset, name, fmt, n, entries, distinct, directed, weight_kind):
    path = dataset(name)
    assert detect_format(path) == fmt
    edges = read_edge_list(path)
    assert edges.num_vertices == n
    assert edges.id_base == (0 if n is None else 1)
    assert edges.num_entries == entries
    assert np.unique(np.concatenate([edges.src, edges.dst])).size == distinct
    assert edges.directed is directed
    assert (edges.weights is None) == (weight_kind is None)
    if weight_kind is not None:
        assert edges.weights.dtype.kind == weight_kind
    assert edges.source == str(path)


def test_metis_headers_declare_what_was_read(dataset):
    for name in ("power.graph", "polblogs.graph", "PGPgiantcompo.graph"):
        path = dataset(name)
        n, m = (int(word) for word in path.read_text().split("\n", 1)[0].split()[:2])
        edges = read_edge_list(path)
        assert (edges.num_vertices, edges.num_entries) == (n, m)
        assert np.all(edges.src <= edges.dst)


def test_snap_matches_numpy_loadtxt(dataset):
    path = dataset("wiki-Vote.txt.gz")
    with gzip.open(path, "rt") as handle:
        reference = np.loadtxt(handle, dtype=np.int64, comments="#")
    edges = read_edge_list(path)
    assert np.array_equal(edges.src, reference[:, 0]) and np.array_equal(edges.dst, reference[:, 1])


def test_dimacs_matches_pandas(dataset):
    path = dataset("USA-road-d.NY.gr.gz")
    frame = pd.read_csv(path, sep=" ", header=None, comment="c", names=["kind", "u", "v", "w"], dtype=str)
    arcs = frame[frame.kind == "a"]
    edges = read_edge_list(path)
    for ours, column in ((edges.src, "u"), (edges.dst, "v"), (edges.weights, "w")):
        assert np.array_equal(ours, arcs[column].astype(np.int64).to_numpy())


@pytest.mark.parametrize("name", ["karate.mtx", "lp_afiro.mtx", "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx"])
def test_matrix_market_matches_scipy(dataset, name):
    path = dataset(name)
    matrix = scipy.io.mmread(path).tocoo()
    edges = read_edge_list(path)
    assert (edges.metadata["rows"], edges.metadata["cols"]) == matrix.shape
    ours = _triples(edges.src - 1, edges.dst - 1, edges.weights)
    if not edges.directed:  # scipy expands symmetric files to both triangles
        off = edges.src != edges.dst
        ours += _triples(edges.dst[off] - 1, edges.src[off] - 1, None if edges.weights is None else edges.weights[off])
    theirs = _triples(matrix.row, matrix.col, None if edges.weights is None else matrix.data)
    assert sorted(ours) == sorted(theirs)


@pytest.mark.parametrize("name", ["power.graph", "polblogs.graph"])
def test_metis_matches_naive_reader(dataset, name):
    path = dataset(name)
    src, dst = _naive_metis(path.read_text())
    edges = read_edge_list(path)
    assert np.array_equal(edges.src, src) and np.array_equal(edges.dst, dst)


# --- synthetic files against a naive parser, across piece boundaries and thread counts -----------
@pytest.mark.parametrize("piece_bytes", [7, 64, 1000, 16 * 2**20])
@pytest.mark.parametrize("threads", [1, None])
def test_edge_list_pieces_and_threads_agree(tmp_path, monkeypatch, piece_bytes, threads):
    monkeypatch.setattr(config, "READ_PIECE_BYTES", piece_bytes)
    monkeypatch.setattr(config, "READ_THREADS", threads)
    text, src, dst, weights = _random_edge_list(random.Random(piece_bytes), 2000, weighted=True)
    path = tmp_path / "g.txt"
    path.write_text(text)
    edges = read_edge_list(path)
    assert np.array_equal(edges.src, src) and np.array_equal(edges.dst, dst)
    assert np.array_equal(edges.weights, weights)
    assert edges.num_vertices is None and edges.directed


@pytest.mark.parametrize("piece_bytes", [5, 100, 16 * 2**20])
def test_metis_pieces_agree(tmp_path, monkeypatch, piece_bytes):
    monkeypatch.setattr(config, "READ_PIECE_BYTES", piece_bytes)
    rng = np.random.default_rng(3)
    n = 300
    pairs = {tuple(sorted(pair)) for pair in rng.integers(1, n + 1, size=(900, 2)).tolist() if pair[0] != pair[1]}
    neighbours = {v: [] for v in range(1, n + 1)}
    for u, v in pairs:
        neighbours[u].append(v)
        neighbours[v].append(u)
    lines = [f"% comment\n{n} {len(pairs)}"] + [" ".join(map(str, neighbours[v])) for v in range(1, n + 1)]
    lines.insert(40, "% a comment between vertices")
    path = tmp_path / "g.graph"
    path.write_text("\n".join(lines) + "\n")
    src, dst = _naive_metis(path.read_text())
    edges = read_edge_list(path)
    assert np.array_equal(edges.src, src) and np.array_equal(edges.dst, dst)
    assert edges.num_entries == len(pairs)


def test_weights_are_parsed_exactly(tmp_path):
    rng = random.Random(11)
    tokens = ["0.5", "-0.5", ".5", "5.", "1e-3", "1E+3", "+2.5", "-0", "4.9e-324", "2.2250738585072011e-308",
              "1e400", "9007199254740993", "123456789012345678901234567890", "inf", "-Infinity", "NaN"]
    tokens += [repr(struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]) for _ in range(3000)]
    tokens += ["%.18e" % rng.uniform(-1e6, 1e6) for _ in range(3000)]
    tokens = [token for token in tokens if token not in ("nan", "inf", "-inf")]
    path = tmp_path / "w.el"
    path.write_text("".join(f"{k} {k + 1} {token}\n" for k, token in enumerate(tokens)))
    weights = read_edge_list(path).weights
    expected = np.array([float(token) for token in tokens])
    assert weights.dtype == np.float64
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(weights), nan)
    assert np.array_equal(weights[~nan].view(np.uint64), expected[~nan].view(np.uint64))


def test_blanks_crlf_tabs_commas_and_comments(tmp_path):
    path = tmp_path / "g.csv"
    path.write_bytes(b"# header\r\n\r\n% other comment\r\n 1,\t2 , 0.25\r\n3\t4\t-1e2\r\n\r\n5 ,6,7\r\n")
    edges = read_edge_list(path)
    assert edges.src.tolist() == [1, 3, 5] and edges.dst.tolist() == [2, 4, 6]
    assert edges.weights.tolist() == [0.25, -100.0, 7.0]


def test_last_line_without_newline_and_huge_sparse_ids(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("9223372036854775807 0\n4000000000 12")
    edges = read_edge_list(path)
    assert edges.src.tolist() == [2**63 - 1, 4_000_000_000] and edges.dst.tolist() == [0, 12]
    assert edges.src.dtype == np.int64


def test_comments_only_edge_list_is_empty(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# nothing here\n")
    edges = read_edge_list(path)
    assert edges.num_entries == 0 and edges.weights is None


# --- compression, detection, forced formats -----------------------------------------------------
@pytest.mark.parametrize("compress, suffix", [(gzip.compress, ".gz"), (lzma.compress, ".xz"), (bz2.compress, ".bz2")])
def test_compressed_equals_uncompressed(tmp_path, monkeypatch, compress, suffix):
    # Several pieces, lines cut between reads.
    monkeypatch.setattr(config, "READ_PIECE_BYTES", 300)
    monkeypatch.setattr(config, "READ_STREAM_PIECE_BYTES", 300)
    text = "p sp 50 400\n" + "".join(f"a {1 + k % 50} {1 + k * 7 % 50} {k}\n" for k in range(400))
    plain = tmp_path / "g.gr"
    plain.write_text(text)
    packed = tmp_path / f"g.gr{suffix}"
    packed.write_bytes(compress(text.encode()))
    disguised = tmp_path / "g_compressed.gr"  # compression is recognised by magic bytes, not the name
    disguised.write_bytes(compress(text.encode()))
    reference = read_edge_list(plain)
    for path in (packed, disguised):
        edges = read_edge_list(path)
        assert np.array_equal(edges.src, reference.src) and np.array_equal(edges.dst, reference.dst)
        assert np.array_equal(edges.weights, reference.weights)
    assert reference.weights.tolist() == list(range(400))


def test_plain_file_with_compression_suffix(tmp_path):
    path = tmp_path / "g.txt.gz"
    path.write_text("0 1\n1 2\n")
    assert read_edge_list(path).src.tolist() == [0, 1]


@pytest.mark.parametrize(
    "name, text, fmt",
    [
        ("a.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", "mtx"),
        ("a.gr", "c road\np sp 2 1\na 1 2 3\n", "dimacs"),
        ("a.gr", "p tw 2 1\n1 2\n", "pace"),
        ("a.graph", "2 1\n2\n1\n", "metis"),
        ("a.metis", "2 1\n2\n1\n", "metis"),
        ("a.tsv", "0\t1\n", "edgelist"),
        ("a.edges", "0 1\n", "edgelist"),
        ("a.el", "0 1 2.5\n", "edgelist"),
        ("noext", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", "mtx"),
        ("noext.dat", "c x\np sp 2 1\na 1 2 3\n", "dimacs"),
        ("noext.dat", "c x\np tw 2 1\n1 2\n", "pace"),
        ("noext.dat", "# comment\n10 20\n", "edgelist"),
    ],
)
def test_detection(tmp_path, name, text, fmt):
    path = tmp_path / name
    path.write_text(text)
    assert detect_format(path) == fmt
    assert read_edge_list(path).num_entries == 1


def test_forced_format(tmp_path):
    path = tmp_path / "road.dat"
    path.write_text("p tw 3 2\n1 2\n2 3\n")
    edges = read_edge_list(path, "pace")
    assert (edges.num_vertices, edges.directed, edges.src.tolist()) == (3, False, [1, 2])
    as_list = tmp_path / "list.graph"  # a forced format wins over the name
    as_list.write_text("5 6\n7 8\n")
    assert read_edge_list(as_list, format="edgelist").src.tolist() == [5, 7]
    with pytest.raises(UnknownFormatError, match="unknown format 'gml'"):
        read_edge_list(path, "gml")
    assert set(FORMATS) == {"edgelist", "mtx", "dimacs", "pace", "metis", "ldbc"}


# --- format semantics ----------------------------------------------------------------------------
def test_matrix_market_symmetry_and_fields(tmp_path):
    skew = tmp_path / "skew.mtx"
    skew.write_text("%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 2 -7\n")
    edges = read_edge_list(skew)
    assert edges.directed and edges.weights.dtype == np.int64
    assert _triples(edges.src, edges.dst, edges.weights) == [(2, 1, 5), (3, 2, -7), (1, 2, -5), (2, 3, 7)]
    symmetric = tmp_path / "sym.mtx"
    symmetric.write_text("%%matrixmarket MATRIX Coordinate REAL Symmetric\n% c\n3 3 2\n1 1 1.5\n3 1 2.5\n")
    undirected = read_edge_list(symmetric)
    assert not undirected.directed and undirected.num_entries == 2
    both = read_edge_list(symmetric, directed=True)
    assert _triples(both.src, both.dst, both.weights) == [(1, 1, 1.5), (3, 1, 2.5), (1, 3, 2.5)]
    rectangular = tmp_path / "rect.mtx"
    rectangular.write_text("%%MatrixMarket matrix coordinate pattern general\n2 5 2\n1 5\n2 1\n")
    edges = read_edge_list(rectangular)
    assert edges.num_vertices == 5 and edges.weights is None and edges.metadata["rows"] == 2


@pytest.mark.parametrize(
    "header, lines, weights",
    [
        ("3 2 1", ["2 4", "1 4 3 6", "2 6"], [4, 6]),
        ("3 2 10", ["7 2", "8 1 3", "9 2"], None),
        ("3 2 11", ["7 2 4", "8 1 4 3 6", "9 2 6"], [4, 6]),
        ("3 2 100", ["1 2", "1 1 3", "1 2"], None),
        ("3 2 110 2", ["1 5 5 2", "1 5 5 1 3", "1 5 5 2"], None),
    ],
)
def test_metis_fmt_variants(tmp_path, header, lines, weights):
    path = tmp_path / "g.graph"
    path.write_text("\n".join([header] + lines) + "\n")
    edges = read_edge_list(path)
    assert edges.src.tolist() == [1, 2] and edges.dst.tolist() == [2, 3]
    assert (None if edges.weights is None else edges.weights.tolist()) == weights
    assert read_edge_list(path, weighted=False).weights is None


def test_undirected_formats_read_as_directed_list_both_directions(tmp_path):
    path = tmp_path / "g.graph"
    path.write_text("2 2\n1 2\n1\n")  # a self-loop at 1 (listed once, counted once) and the edge 1-2
    edges = read_edge_list(path, directed=True)
    assert edges.directed and sorted(zip(edges.src.tolist(), edges.dst.tolist())) == [(1, 1), (1, 2), (2, 1)]
    pace = tmp_path / "g.gr"
    pace.write_text("p tw 3 2\n1 2\n2 3\n")
    directed = read_edge_list(pace, directed=True)
    assert sorted(zip(directed.src.tolist(), directed.dst.tolist())) == [(1, 2), (2, 1), (2, 3), (3, 2)]
    snap = tmp_path / "g.txt"
    snap.write_text("0 1\n")
    assert read_edge_list(snap, directed=False).directed is False


def test_weighted_flag(tmp_path):
    path = tmp_path / "g.gr"
    path.write_text("p sp 2 1\na 1 2 9\n")
    assert read_edge_list(path).weights.tolist() == [9]
    assert read_edge_list(path, weighted=False).weights is None
    plain = tmp_path / "g.txt"
    plain.write_text("0 1\n")
    assert read_edge_list(plain, weighted=None).weights is None


def test_ldbc_any_path_and_properties(tmp_path):
    (tmp_path / "demo.v").write_text("1\n2\n3\n10\n")
    (tmp_path / "demo.e").write_text("1 2 0.5\n2 3 1.5\n3 1 2.5\n")
    (tmp_path / "demo.properties").write_text(
        "# LDBC\ngraph.demo.directed = false\ngraph.demo.meta.vertices = 4\ngraph.demo.meta.edges = 3\n"
    )
    for name in ("demo.v", "demo.e", "demo", "demo.properties"):
        edges = read_edge_list(tmp_path / name)
        assert edges.vertex_ids.tolist() == [1, 2, 3, 10]
        assert edges.src.tolist() == [1, 2, 3] and edges.weights.tolist() == [0.5, 1.5, 2.5]
        assert edges.directed is False
    assert read_edge_list(tmp_path / "demo", directed=True).directed is True
    (tmp_path / "demo.properties").unlink()
    assert read_edge_list(tmp_path / "demo.v").directed is True
    (tmp_path / "packed.v").write_text("5\n6\n7\n")  # isolated vertex 7; edges compressed
    (tmp_path / "packed.e.gz").write_bytes(gzip.compress(b"5 6\n6 5\n"))
    assert detect_format(tmp_path / "packed") == "ldbc"
    edges = read_edge_list(tmp_path / "packed")
    assert edges.vertex_ids.tolist() == [5, 6, 7] and edges.dst.tolist() == [6, 5] and edges.weights is None


def test_progress_bar_draws_for_long_reads(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(config, "PROGRESS_DELAY_SECONDS", 0.0)
    monkeypatch.setattr(config, "PROGRESS_REFRESH_SECONDS", 0.0)
    monkeypatch.setattr(config, "READ_PIECE_BYTES", 64)
    path = tmp_path / "g.txt"
    path.write_text("".join(f"{k} {k + 1}\n" for k in range(200)))
    read_edge_list(path, progress=True)
    assert "reading g.txt" in capsys.readouterr().err
    read_edge_list(path, progress=False)
    assert capsys.readouterr().err == ""


# --- helpers -------------------------------------------------------------------------------------
def _triples(src, dst, weights):
    weights = [None] * len(src) if weights is None else np.asarray(weights).tolist()
    return list(zip(np.asarray(src).tolist(), np.asarray(dst).tolist(), weights))


def _naive_metis(text: str):
    lines = [line for line in text.split("\n") if not line.startswith("%")]
    n = int(lines[0].split()[0])
    src, dst = [], []
    for u, line in enumerate(lines[1 : n + 1], start=1):
        for v in map(int, line.split()):
            if u <= v:
                src.append(u)
                dst.append(v)
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)


def _random_edge_list(rng: random.Random, count: int, weighted: bool):
    """Random edge list text with comments, blank lines, mixed blanks and float formats."""
    lines, src, dst, weights = ["# random graph"], [], [], []
    for _ in range(count):
        u, v = rng.randrange(10**rng.randint(1, 12)), rng.randrange(10**rng.randint(1, 12))
        weight = rng.choice([rng.random(), -rng.random() * 1e5, float(rng.randint(-9, 9)), rng.random() * 1e-200])
        separator = rng.choice([" ", "\t", "  ", " \t "])
        text = f"{u}{separator}{v}" + (f"{separator}{weight!r}" if weighted else "")
        lines.append(text + rng.choice(["", " ", "\r"]))
        src.append(u)
        dst.append(v)
        weights.append(weight)
        if rng.random() < 0.05:
            lines.append(rng.choice(["", "# note", "% other note", "   "]))
    return "\n".join(lines) + "\n", np.array(src), np.array(dst), np.array(weights) if weighted else None
