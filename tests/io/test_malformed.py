"""Malformed input: every case raises a named error whose message names the file and 1-based line."""

from __future__ import annotations

import gzip

import pytest

from gpugraph import config
from gpugraph.errors import (
    FileVertexIdError,
    GpugraphError,
    GraphFileNotFoundError,
    GraphFormatError,
    UnknownFormatError,
    VertexIdError,
)
from gpugraph.io.readers import read_edge_list

MTX = "%%MatrixMarket matrix coordinate"

# case id, file name, content, expected exception, 1-based line, words the message must contain
CASES = [
    # SNAP / whitespace edge lists
    ("single token", "g.txt", "0 1\n2\n", GraphFormatError, 2, "truncated"),
    ("non-numeric id", "g.txt", "0 1\n1 x\n", GraphFormatError, 2, "'x'"),
    ("fractional id", "g.txt", "# c\n0 1\n1.5 2\n", GraphFormatError, 3, "integer"),
    ("negative id", "g.txt", "0 1\n-3 2\n", FileVertexIdError, 2, "negative"),
    ("id overflow", "g.txt", "0 1\n99999999999999999999 1\n", GraphFormatError, 2, "64-bit"),
    ("weight on first line only", "g.txt", "0 1 0.5\n1 2 1.5\n2 3\n", GraphFormatError, 3, "truncated"),
    ("weight on later line only", "g.txt", "0 1\n1 2 3.0\n", GraphFormatError, 2, "too many"),
    ("bad weight", "g.txt", "0 1 2.5\n1 2 1e\n", GraphFormatError, 2, "'1e'"),
    ("four columns", "g.txt", "0 1 2 3\n", GraphFormatError, 1, "4 columns"),
    ("trailing comma", "g.csv", "0,1\n1,2,\n", GraphFormatError, 2, "empty field"),
    ("two commas", "g.csv", "0,,1\n", GraphFormatError, 1, "empty field"),
    ("crlf and comments before error", "g.txt", "# c\r\n\r\n0 1\r\n0 y\r\n", GraphFormatError, 4, "'y'"),
    ("text", "g.txt", "hello world\n", GraphFormatError, 1, "'hello'"),
    # DIMACS shortest paths
    ("dimacs truncated arc", "g.gr", "p sp 3 2\na 1 2 5\na 1\n", GraphFormatError, 3, "truncated"),
    ("dimacs arc count", "g.gr", "c x\np sp 3 3\na 1 2 5\na 2 3 1\n", GraphFormatError, 2, "3 arcs"),
    ("dimacs too many arcs", "g.gr", "p sp 3 1\na 1 2 5\na 2 3 1\n", GraphFormatError, 1, "1 arcs"),
    ("dimacs id 0", "g.gr", "p sp 3 1\na 0 2 5\n", FileVertexIdError, 2, "[1, 3]"),
    ("dimacs id n+1", "g.gr", "p sp 3 2\nc\na 1 2 5\na 1 4 5\n", FileVertexIdError, 4, "vertex id 4"),
    ("dimacs float weight", "g.gr", "p sp 3 1\na 1 2 1.5\n", GraphFormatError, 2, "integer"),
    ("dimacs second problem line", "g.gr", "p sp 3 1\np sp 3 1\na 1 2 3\n", GraphFormatError, 2, "'a u v w'"),
    ("dimacs unknown line", "g.dimacs", "p sp 3 1\nx 1 2 3\n", GraphFormatError, 2, "'x 1 2 3'"),
    ("dimacs short problem line", "g.gr", "c x\np sp 3\n", GraphFormatError, 2, "problem line"),
    ("dimacs no problem line", "g.dimacs", "c x\na 1 2 3\n", GraphFormatError, 2, "problem line"),
    # PACE
    ("pace truncated", "g.gr", "p tw 3 2\n1 2\n2\n", GraphFormatError, 3, "truncated"),
    ("pace out of range", "g.gr", "p tw 3 1\n1 4\n", FileVertexIdError, 2, "[1, 3]"),
    ("pace edge count", "g.gr", "p tw 3 2\n1 2\n", GraphFormatError, 1, "2 edges"),
    ("pace negative", "g.gr", "p tw 3 1\n1 -2\n", FileVertexIdError, 2, "negative"),
    # Matrix Market
    ("mtx complex", "m.mtx", f"{MTX} complex general\n2 2 1\n1 1 1 0\n", UnknownFormatError, 1, "complex"),
    ("mtx array", "m.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", UnknownFormatError, 1, "array"),
    ("mtx hermitian", "m.mtx", f"{MTX} real hermitian\n2 2 1\n1 1 1\n", UnknownFormatError, 1, "hermitian"),
    ("mtx unknown field", "m.mtx", f"{MTX} quaternion general\n", UnknownFormatError, 1, "quaternion"),
    ("mtx vector", "m.mtx", "%%MatrixMarket vector coordinate real general\n", UnknownFormatError, 1, "vector"),
    ("mtx no banner", "m.mtx", "2 2 1\n1 1\n", UnknownFormatError, 1, "Matrix Market"),
    ("mtx short banner", "m.mtx", "%%MatrixMarket matrix coordinate\n", UnknownFormatError, 1, "banner"),
    ("mtx entry count", "m.mtx", f"{MTX} pattern general\n% c\n3 3 2\n1 1\n2 2\n3 3\n", GraphFormatError, 3, "2 entries"),
    ("mtx row out of range", "m.mtx", f"{MTX} real general\n3 3 1\n4 1 1.0\n", FileVertexIdError, 3, "[1, 3]"),
    ("mtx column out of range", "m.mtx", f"{MTX} pattern general\n2 3 2\n1 3\n1 4\n", FileVertexIdError, 4, "[1, 3]"),
    ("mtx missing value", "m.mtx", f"{MTX} real general\n3 3 2\n1 2 0.5\n2 3\n", GraphFormatError, 4, "truncated"),
    ("mtx bad size line", "m.mtx", f"{MTX} real general\n3 3\n", GraphFormatError, 2, "size line"),
    ("mtx real in integer", "m.mtx", f"{MTX} integer general\n3 3 1\n1 2 0.5\n", GraphFormatError, 3, "integer"),
    # METIS
    ("metis too few lines", "g.graph", "3 2\n2\n1 3\n", GraphFormatError, 1, "2 adjacency lines"),
    ("metis too many lines", "g.graph", "2 1\n2\n1\n1\n", GraphFormatError, 4, "more adjacency lines"),
    ("metis neighbour n+1", "g.graph", "2 1\n3\n1\n", FileVertexIdError, 2, "[1, 2]"),
    ("metis neighbour 0", "g.graph", "% c\n2 1\n0\n1\n", FileVertexIdError, 3, "[1, 2]"),
    ("metis not symmetric", "g.graph", "3 1\n2\n\n\n", GraphFormatError, 1, "not symmetric"),
    ("metis edge count", "g.graph", "2 2\n2\n1\n", GraphFormatError, 1, "2 edges"),
    ("metis bad fmt", "g.graph", "2 1 2\n2\n1\n", GraphFormatError, 1, "fmt"),
    ("metis missing edge weight", "g.graph", "2 1 1\n2\n1 5\n", GraphFormatError, 2, "no edge weight"),
    ("metis missing vertex weight", "g.graph", "2 1 10\n4 2\n\n", GraphFormatError, 3, "vertex size/weight"),
    ("metis non-numeric", "g.graph", "2 1\n2 x\n1\n", GraphFormatError, 2, "'x'"),
    ("metis bad header", "g.graph", "% c\nfour 1\n", GraphFormatError, 2, "header"),
]


@pytest.mark.parametrize("name, content, error, line, words", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_malformed_file(tmp_path, name, content, error, line, words):
    path = tmp_path / name
    path.write_text(content)
    _expect(path, error, line, words)


@pytest.mark.parametrize("piece_bytes", [16, 16 * 2**20])
def test_error_line_in_a_later_piece(tmp_path, monkeypatch, piece_bytes):
    monkeypatch.setattr(config, "READ_PIECE_BYTES", piece_bytes)
    monkeypatch.setattr(config, "READ_STREAM_PIECE_BYTES", piece_bytes)
    lines = ["# header"] + [f"{k} {k + 1}" for k in range(998)] + ["17 seventeen"] + ["1 2"] * 50
    text = "\n".join(lines) + "\n"
    plain = tmp_path / "g.txt"
    plain.write_text(text)
    packed = tmp_path / "h.txt.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    for path in (plain, packed):
        _expect(path, GraphFormatError, 1000, "'seventeen'")


def test_metis_error_line_in_a_later_piece(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "READ_PIECE_BYTES", 8)
    path = tmp_path / "g.graph"
    path.write_text("% c\n4 3\n2\n1 3\n% c\n2 4\n3 9\n")
    _expect(path, FileVertexIdError, 7, "vertex id 9")


@pytest.mark.parametrize("content", ["", "\n  \n\t\n"])
@pytest.mark.parametrize("name", ["g.txt", "g.gr", "g.mtx", "g.graph", "g.el.gz"])
def test_empty_file(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(gzip.compress(content.encode()) if name.endswith(".gz") else content.encode())
    with pytest.raises(GraphFormatError, match="empty") as info:
        read_edge_list(path)
    assert path.name in str(info.value)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.txt"
    with pytest.raises(GraphFileNotFoundError) as info:
        read_edge_list(path)
    assert isinstance(info.value, GpugraphError) and isinstance(info.value, FileNotFoundError)
    assert "nope.txt" in str(info.value)


def test_ldbc_missing_sibling_and_bad_files(tmp_path):
    (tmp_path / "g.v").write_text("1\n2\n")
    with pytest.raises(GraphFileNotFoundError, match=r"g\.e"):
        read_edge_list(tmp_path / "g.v")
    (tmp_path / "g.e").write_text("1 2\n2 1\n")
    (tmp_path / "g.properties").write_text("graph.g.directed = true\n\ngraph.g.meta.edges = 3\n")
    _expect(tmp_path / "g.properties", GraphFormatError, 3, "3 edges", path_shown=tmp_path / "g.properties")
    (tmp_path / "g.properties").write_text("graph.g.directed = maybe\n")
    _expect(tmp_path / "g.e", GraphFormatError, 1, "true or false", path_shown=tmp_path / "g.properties")
    (tmp_path / "g.properties").unlink()
    (tmp_path / "g.v").write_text("1\n2 3\n")
    _expect(tmp_path / "g.e", GraphFormatError, 2, "too many columns", path_shown=tmp_path / "g.v")
    (tmp_path / "g.v").write_text("# only a comment\n")
    with pytest.raises(GraphFormatError, match="empty"):
        read_edge_list(tmp_path / "g")


def test_corrupt_compressed_file(tmp_path):
    path = tmp_path / "g.txt.gz"
    path.write_bytes(gzip.compress(b"0 1\n" * 10_000)[:-20])
    with pytest.raises(GraphFormatError, match="corrupt or truncated gzip") as info:
        read_edge_list(path)
    assert "g.txt.gz" in str(info.value)


def test_undetectable_format(tmp_path):
    path = tmp_path / "g.dat"
    path.write_text("graph {\n  a -- b\n}\n")
    _expect(path, UnknownFormatError, 1, "pass format=")


def test_weighted_required_but_absent(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# c\n0 1\n")
    _expect(path, GraphFormatError, 2, "weighted=True", weighted=True)


def test_vertex_id_errors_are_both_kinds(tmp_path):
    path = tmp_path / "g.gr"
    path.write_text("p tw 2 1\n1 3\n")
    with pytest.raises(VertexIdError):
        read_edge_list(path)
    with pytest.raises(GraphFormatError):
        read_edge_list(path)


def _expect(path, error, line, words, path_shown=None, **options):
    with pytest.raises(error) as info:
        read_edge_list(path, **options)
    message = str(info.value)
    shown = path_shown or path
    assert message.startswith(f"{shown}:{line}: "), message
    assert info.value.line == line
    assert words in message, message
