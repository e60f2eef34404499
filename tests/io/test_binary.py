"""The binary .gg format: exact round trips, zero-copy mmap, and named errors for bad files."""

import os
import zlib

import numpy as np
import pytest

import gpugraph as gg
from gpugraph.errors import ChecksumError, GraphFileNotFoundError, GraphFormatError, UnknownFormatError
from gpugraph.graph.graph import Graph
from gpugraph.io import binary, generators


def _random_edges(seed, n=60, m=400):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m), n, rng


def _graphs():
    src, dst, n, rng = _random_edges(1)
    sparse_ids = rng.choice(10**12, size=n, replace=False)
    directed_with_csc = gg.from_edges(src, dst, num_vertices=n, device="cpu", name="with CSC")
    directed_with_csc.in_indices  # noqa: B018 - builds the CSC, which is then saved too
    return {
        "directed": gg.from_edges(src, dst, num_vertices=n, device="cpu", name="directed"),
        "undirected": gg.from_edges(src, dst, num_vertices=n, directed=False, device="cpu"),
        "int weights": gg.from_edges(src, dst, rng.integers(-5, 10**6, src.size), num_vertices=n, device="cpu"),
        "float weights": gg.from_edges(src, dst, rng.random(src.size), num_vertices=n, directed=False, device="cpu"),
        "float32 weights": gg.from_edges(
            src, dst, rng.random(src.size).astype(np.float32), num_vertices=n, device="cpu"
        ),
        "original ids": gg.from_edges(sparse_ids[src], sparse_ids[dst], device="cpu", name="sparsé ids ✓"),
        "directed with CSC": directed_with_csc,
        "isolated vertices": gg.from_edges([0, 5], [5, 9], num_vertices=20, device="cpu"),
        "no edges": gg.from_edges([], [], num_vertices=3, device="cpu"),
        "rmat": generators.rmat(8, device="cpu"),
    }


@pytest.mark.parametrize("mmap", [False, True])
@pytest.mark.parametrize("name", sorted(_graphs()))
def test_round_trip_is_exact(tmp_path, name, mmap):
    graph = _graphs()[name]
    path = tmp_path / f"g{binary.BINARY_SUFFIX}"
    binary.save_binary(graph, path)
    loaded = binary.load_binary(path, mmap=mmap, device="cpu")
    assert loaded.equals(graph)
    assert loaded.name == graph.name and loaded.num_edges == graph.num_edges
    assert loaded.has_in_edges == graph.has_in_edges
    if graph.directed and graph.has_in_edges:
        for mine, theirs in zip(loaded._in_edges, graph._in_edges):
            assert np.array_equal(mine, theirs) and mine.dtype == theirs.dtype
    if mmap and graph.num_arcs:
        assert not loaded.indices.flags.writeable  # a view of the file, not a copy
        assert isinstance(loaded.indices.base, np.memmap) or isinstance(loaded.indices.base.base, np.memmap)


def test_text_file_to_graph_to_binary_and_back(tmp_path):
    text = tmp_path / "g.mtx"
    text.write_text("%%MatrixMarket matrix coordinate integer general\n4 4 3\n1 2 7\n2 3 -1\n4 1 5\n")
    graph = gg.load(text, device="cpu")
    path = tmp_path / "g.gg"
    gg.save(graph, path)
    assert binary.is_binary_file(path) and not binary.is_binary_file(text)
    assert gg.load(path, device="cpu").equals(graph)  # load() recognises the format by its magic
    assert binary.load_binary(path, verify=False, device="cpu").id_offset == 1


def test_sections_are_aligned_and_described_by_the_header(tmp_path):
    graph = _graphs()["float weights"]
    path = tmp_path / "g.gg"
    binary.save_binary(graph, path)
    data = path.read_bytes()
    header = np.frombuffer(data[: binary._HEADER.itemsize], dtype=binary._HEADER)[0]
    assert data[:8] == binary.MAGIC and int(header["version"]) == binary.FORMAT_VERSION
    assert int(header["num_vertices"]) == graph.num_vertices and int(header["num_arcs"]) == graph.num_arcs
    for index, name in enumerate(binary.SECTIONS):
        entry = header["sections"][index]
        offset, length = int(entry["offset"]), int(entry["length"])
        if length:
            assert offset % binary.SECTION_ALIGNMENT == 0
            assert zlib.crc32(data[offset : offset + length]) == int(entry["crc"]), name
    indices = header["sections"][binary.SECTIONS.index("indices")]
    stored = np.frombuffer(data, dtype="<i4", count=graph.num_arcs, offset=int(indices["offset"]))
    assert np.array_equal(stored, graph.indices)


def _section_offsets(path):
    data = path.read_bytes()
    header = np.frombuffer(data[: binary._HEADER.itemsize], dtype=binary._HEADER)[0]
    return {
        name: (int(header["sections"][index]["offset"]), int(header["sections"][index]["length"]))
        for index, name in enumerate(binary.SECTIONS)
        if int(header["sections"][index]["length"])
    }


def _flip_byte(path, position):
    data = bytearray(path.read_bytes())
    data[position] ^= 0x5A
    path.write_bytes(bytes(data))


@pytest.fixture
def saved(tmp_path):
    graph = gg.from_edges([10, 30, 20**40 % 2**62], [30, 50, 10], [0.5, 1.5, 2.5], device="cpu", name="x")
    graph.in_indices  # noqa: B018 - the CSC is saved too
    path = tmp_path / "g.gg"
    binary.save_binary(graph, path)
    return path


@pytest.mark.parametrize("section", binary.SECTIONS)
@pytest.mark.parametrize("mmap", [False, True])
def test_corrupt_section_names_the_section(saved, section, mmap):
    offset, length = _section_offsets(saved)[section]
    _flip_byte(saved, offset + length // 2)
    with pytest.raises(ChecksumError, match=f"section '{section}'") as error:
        binary.load_binary(saved, mmap=mmap, device="cpu")
    assert str(saved) in str(error.value)


def test_corrupt_header_is_a_checksum_error(saved):
    _flip_byte(saved, 30)  # inside num_vertices
    with pytest.raises(ChecksumError, match="header"):
        binary.load_binary(saved, device="cpu")


@pytest.mark.parametrize("keep", [4, 100, 511, 600, -1])
def test_truncated_file_is_a_checksum_error(saved, keep):
    data = saved.read_bytes()
    saved.write_bytes(data[:keep])
    with pytest.raises(ChecksumError, match="truncated") as error:
        binary.load_binary(saved, device="cpu")
    assert str(saved) in str(error.value)


def test_wrong_magic_and_text_files_are_unknown_formats(saved, tmp_path):
    _flip_byte(saved, 0)
    with pytest.raises(UnknownFormatError, match="magic"):
        binary.load_binary(saved, device="cpu")
    text = tmp_path / "edges.gg"
    text.write_text("1 2\n2 3\n")
    with pytest.raises(UnknownFormatError):
        binary.load_binary(text, device="cpu")
    with pytest.raises(GraphFileNotFoundError):
        binary.load_binary(tmp_path / "missing.gg", device="cpu")


def test_newer_version_says_which_version_is_read(saved):
    data = bytearray(saved.read_bytes())
    data[8:12] = (binary.FORMAT_VERSION + 1).to_bytes(4, "little")
    data[508:512] = zlib.crc32(bytes(data[:508])).to_bytes(4, "little")
    saved.write_bytes(bytes(data))
    expected = f"version {binary.FORMAT_VERSION + 1}.*reads version {binary.FORMAT_VERSION}"
    with pytest.raises(GraphFormatError, match=expected) as error:
        binary.load_binary(saved, device="cpu")
    assert not isinstance(error.value, ChecksumError)


def test_valid_checksums_of_an_invalid_graph_are_still_rejected(tmp_path):
    bad = Graph(
        np.array([0, 1, 2], dtype=np.int64),
        np.array([1, 7], dtype=np.int32),  # vertex 7 of a 2-vertex graph
        directed=True,
        num_edges=2,
        backend=gg.get_backend("cpu"),
    )
    path = tmp_path / "bad.gg"
    binary.save_binary(bad, path)
    with pytest.raises(GraphFormatError, match="indices"):
        binary.load_binary(path, device="cpu")
    assert binary.load_binary(path, verify=False, device="cpu").num_arcs == 2


def _leftovers(directory):
    return sorted(name for name in os.listdir(directory) if name.startswith("."))


def _fail_on_second_section(monkeypatch):
    calls = []
    original = binary._write_with_crc

    def failing(handle, array):
        calls.append(array.nbytes)
        if len(calls) == 2:
            raise OSError("disk full (simulated)")
        return original(handle, array)

    monkeypatch.setattr(binary, "_write_with_crc", failing)


def test_failed_write_leaves_no_file(tmp_path, monkeypatch):
    _fail_on_second_section(monkeypatch)
    path = tmp_path / "g.gg"
    with pytest.raises(OSError, match="disk full"):
        binary.save_binary(_graphs()["directed"], path)
    assert not path.exists() and _leftovers(tmp_path) == []


def test_failed_write_keeps_the_existing_file(tmp_path, monkeypatch):
    path = tmp_path / "g.gg"
    binary.save_binary(_graphs()["undirected"], path)
    before = path.read_bytes()
    _fail_on_second_section(monkeypatch)
    with pytest.raises(OSError, match="disk full"):
        binary.save_binary(_graphs()["directed"], path)
    assert path.read_bytes() == before and _leftovers(tmp_path) == []
    monkeypatch.undo()
    binary.save_binary(_graphs()["directed"], path)  # and a later write replaces it
    assert binary.load_binary(path, device="cpu").equals(_graphs()["directed"])
