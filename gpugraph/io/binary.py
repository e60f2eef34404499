"""gpugraph's binary graph format (suffix ``.gg``): a built Graph, saved for fast, checked reloads.

A ``.gg`` file holds a :class:`~gpugraph.graph.graph.Graph` exactly as built (CSR, weights, id
mapping, name and, when it was built, the CSC of a directed graph), so loading it skips parsing and
building. Every byte is covered by a CRC-32, so a truncated or corrupted file raises
:class:`~gpugraph.errors.ChecksumError` instead of giving a wrong graph. Sections start on 64-byte
boundaries, so with ``mmap=True`` the arrays are zero-copy views of the file.

Layout (version 1, little-endian)
---------------------------------
A header of :data:`HEADER_BYTES` (512) bytes, then the sections in the order of :data:`SECTIONS`,
each starting at a multiple of :data:`SECTION_ALIGNMENT` (64), zero bytes between them::

    offset size  field
         0    8  magic            b"GPUGRAPH"
         8    4  version          uint32, FORMAT_VERSION (this field never moves)
        12    4  header_bytes     uint32, 512
        16    8  flags            uint64: 1 directed, 2 weighted, 4 original ids, 8 in-edges (CSC)
        24    8  num_vertices     uint64, n
        32    8  num_arcs         uint64, stored CSR entries
        40    8  num_edges        uint64, edges as the input counted them
        48    8  id_offset        int64
        56    1  indices_dtype    dtype code (see _DTYPE_CODES): int32 or int64
        57    1  weights_dtype    dtype code, 0 when unweighted
        58    6  reserved         zero
        64  192  section table    8 x (offset uint64, length uint64, crc32 uint32, reserved uint32)
                                  for indptr (int64, n + 1), indices (n_arcs), weights (n_arcs),
                                  original_ids (int64, n), name (UTF-8 bytes), in_indptr (int64,
                                  n + 1), in_indices (n_arcs), in_edge_ids (int64, n_arcs);
                                  an absent section has offset = length = 0
       256  252  reserved         zero
       508    4  header_crc       CRC-32 of bytes 0..507

CRC-32 (``zlib.crc32``) runs at about 3.7 GB/s here against 0.9 GB/s for BLAKE2b: a checksum
against accidents, not against tampering, which is what this format needs. Files written by a
newer format version raise :class:`~gpugraph.errors.GraphFormatError` naming the version this
library reads.
"""

from __future__ import annotations

import os
import zlib

import numpy as np

from gpugraph.backend import get_backend, to_numpy
from gpugraph.errors import ChecksumError, GraphFormatError, InvalidParameterError, UnknownFormatError
from gpugraph.graph.graph import Graph
from gpugraph.io._atomic import atomic_output
from gpugraph.io._open import check_readable

MAGIC = b"GPUGRAPH"
FORMAT_VERSION = 1
#: File-name suffix of the format.
BINARY_SUFFIX = ".gg"
HEADER_BYTES = 512
SECTION_ALIGNMENT = 64
SECTIONS = (
    "indptr", "indices", "weights", "original_ids", "name", "in_indptr", "in_indices", "in_edge_ids",
)

_DIRECTED, _WEIGHTED, _ORIGINAL_IDS, _IN_EDGES = 1, 2, 4, 8
_KNOWN_FLAGS = _DIRECTED | _WEIGHTED | _ORIGINAL_IDS | _IN_EDGES
_DTYPE_CODES = {
    1: np.dtype("<i1"), 2: np.dtype("<i2"), 3: np.dtype("<i4"), 4: np.dtype("<i8"),
    5: np.dtype("<u1"), 6: np.dtype("<u2"), 7: np.dtype("<u4"), 8: np.dtype("<u8"),
    9: np.dtype("<f2"), 10: np.dtype("<f4"), 11: np.dtype("<f8"),
}
_CODE_OF_DTYPE = {dtype: code for code, dtype in _DTYPE_CODES.items()}
_INDEX_DTYPES = (np.dtype("<i4"), np.dtype("<i8"))
_OFFSETS = np.dtype("<i8")
_SECTION = np.dtype([("offset", "<u8"), ("length", "<u8"), ("crc", "<u4"), ("reserved", "<u4")])
_HEADER = np.dtype(
    [
        ("magic", "S8"),
        ("version", "<u4"),
        ("header_bytes", "<u4"),
        ("flags", "<u8"),
        ("num_vertices", "<u8"),
        ("num_arcs", "<u8"),
        ("num_edges", "<u8"),
        ("id_offset", "<i8"),
        ("indices_dtype", "u1"),
        ("weights_dtype", "u1"),
        ("reserved", "V6"),
        ("sections", _SECTION, (len(SECTIONS),)),
    ]
)
_CRC_OFFSET = HEADER_BYTES - 4
#: Bytes checksummed and written per call: large enough for full speed, small enough that no
#: huge temporary is made.
_CHUNK_BYTES = 1 << 26


def is_binary_file(path) -> bool:
    """Whether the file at ``path`` starts with the ``.gg`` magic bytes (``False`` if unreadable)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


# --- writing -------------------------------------------------------------------------------------
def save_binary(graph: Graph, path) -> None:
    """Write ``graph`` to ``path`` in the ``.gg`` format, atomically.

    Parameters
    ----------
    graph:
        The graph, on any device (arrays on a GPU are copied to the host first). The CSC of a
        directed graph is saved when it has been built (``graph.has_in_edges``), so a reload
        does not rebuild it.
    path:
        Output file, conventionally ending in :data:`BINARY_SUFFIX`. Nothing appears at ``path``
        unless the whole file was written; an existing file is replaced only then.

    Raises
    ------
    InvalidParameterError
        If the weights have a dtype the format does not store (bool, complex, object).
    OSError
        If the file cannot be written.
    """
    sections = _sections_of(graph)
    header = np.zeros((), dtype=_HEADER)
    header["magic"] = MAGIC
    header["version"] = FORMAT_VERSION
    header["header_bytes"] = HEADER_BYTES
    header["flags"] = (
        (_DIRECTED if graph.directed else 0)
        | (_WEIGHTED if sections["weights"] is not None else 0)
        | (_ORIGINAL_IDS if sections["original_ids"] is not None else 0)
        | (_IN_EDGES if sections["in_indptr"] is not None else 0)
    )
    header["num_vertices"] = graph.num_vertices
    header["num_arcs"] = graph.num_arcs
    header["num_edges"] = graph.num_edges
    header["id_offset"] = graph.id_offset
    header["indices_dtype"] = _CODE_OF_DTYPE[sections["indices"].dtype]
    if sections["weights"] is not None:
        header["weights_dtype"] = _CODE_OF_DTYPE[sections["weights"].dtype]
    with atomic_output(path, compression=None) as handle:
        handle.write(bytes(HEADER_BYTES))  # replaced below, once the checksums are known
        position = HEADER_BYTES
        for index, name in enumerate(SECTIONS):
            array = sections[name]
            if array is None:
                continue
            start = _aligned(position)
            handle.write(bytes(start - position))
            entry = header["sections"][index]
            entry["offset"] = start
            entry["length"] = array.nbytes
            entry["crc"] = _write_with_crc(handle, array)
            position = start + array.nbytes
        handle.seek(0)
        handle.write(_header_bytes(header))


def _sections_of(graph: Graph) -> dict:
    """The graph's arrays as little-endian host arrays, by section name (``None`` if absent)."""
    weights = None if graph.weights is None else _little_endian(to_numpy(graph.weights))
    if weights is not None and weights.dtype not in _CODE_OF_DTYPE:
        raise InvalidParameterError(
            f"the binary format stores integer or floating-point weights, not {weights.dtype}"
        )
    in_edges = graph.directed and graph.has_in_edges
    return {
        "indptr": to_numpy(graph.indptr).astype(_OFFSETS, copy=False),
        "indices": _little_endian(to_numpy(graph.indices)),
        "weights": weights,
        "original_ids": (
            None if graph.original_ids is None else to_numpy(graph.original_ids).astype(_OFFSETS, copy=False)
        ),
        "name": np.frombuffer((graph.name or "").encode("utf-8"), dtype=np.uint8),
        "in_indptr": to_numpy(graph.in_indptr).astype(_OFFSETS, copy=False) if in_edges else None,
        "in_indices": _little_endian(to_numpy(graph.in_indices)) if in_edges else None,
        "in_edge_ids": to_numpy(graph.in_edge_ids).astype(_OFFSETS, copy=False) if in_edges else None,
    }


def _little_endian(array: np.ndarray) -> np.ndarray:
    return array.astype(array.dtype.newbyteorder("<"), copy=False)


def _write_with_crc(handle, array: np.ndarray) -> int:
    data = memoryview(np.ascontiguousarray(array)).cast("B")
    crc = 0
    for start in range(0, len(data), _CHUNK_BYTES):
        chunk = data[start : start + _CHUNK_BYTES]
        crc = zlib.crc32(chunk, crc)
        handle.write(chunk)
    return crc


def _header_bytes(header: np.ndarray) -> bytes:
    raw = bytearray(HEADER_BYTES)
    packed = header.tobytes()
    raw[: len(packed)] = packed
    raw[_CRC_OFFSET:] = zlib.crc32(raw[:_CRC_OFFSET]).to_bytes(4, "little")
    return bytes(raw)


def _aligned(offset: int) -> int:
    return -(-offset // SECTION_ALIGNMENT) * SECTION_ALIGNMENT


# --- reading -------------------------------------------------------------------------------------
def load_binary(path, *, mmap: bool = False, verify: bool = True, device=None) -> Graph:
    """Load a ``.gg`` file written by :func:`save_binary`.

    Parameters
    ----------
    path:
        The file.
    mmap:
        Map the file instead of reading it: on the CPU the arrays are read-only, zero-copy views
        of the file, paged in when first touched. (For a GPU the data are copied to the device
        either way.)
    verify:
        Check the CRC-32 of every section and that the arrays form a valid graph (offsets
        non-decreasing, ids in range), which reads the whole file once. ``False`` skips both
        (the header's own checksum and sizes are always checked) for the fastest, lazy mmap load
        of a trusted file.
    device:
        Where to put the graph: ``"cpu"``, ``"cuda[:N]"``, or ``None`` (``GPUGRAPH_DEVICE``, else
        a GPU when one is usable; see :func:`gpugraph.backend.get_backend`).

    Returns
    -------
    Graph
        Equal (:meth:`Graph.equals`) to the graph that was saved, with its CSC when it was saved.

    Raises
    ------
    GraphFileNotFoundError
        If the file does not exist.
    UnknownFormatError
        If the file does not start with the ``.gg`` magic bytes.
    GraphFormatError
        If it was written by a newer format version, or (``verify``) its arrays are not a graph.
    ChecksumError
        If it is truncated, or the header or a section does not match its checksum; the message
        names the file and the section.
    """
    path = os.fspath(path)
    check_readable(path)
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        header_bytes = handle.read(HEADER_BYTES)
    header = _parse_header(header_bytes, path)
    layout = _section_layout(header, size, path)
    arrays = _read_sections(path, layout, mmap=mmap, verify=verify)
    flags = int(header["flags"])
    if verify:
        _check_structure(arrays, int(header["num_vertices"]), path)
    backend = get_backend(device)
    on_device = {name: backend.asarray(array) for name, array in arrays.items() if name not in ("name", "original_ids")}
    in_edges = None
    if "in_indptr" in on_device:  # restoring the saved CSC saves building it on first use
        in_edges = (on_device["in_indptr"], on_device["in_indices"], on_device["in_edge_ids"])
    return Graph(
        on_device["indptr"],
        on_device["indices"],
        on_device.get("weights"),
        directed=bool(flags & _DIRECTED),
        num_edges=int(header["num_edges"]),
        backend=backend,
        original_ids=arrays.get("original_ids"),
        id_offset=int(header["id_offset"]),
        name=bytes(arrays["name"]).decode("utf-8", errors="replace") or None,
        in_edges=in_edges,
    )


def _parse_header(header_bytes: bytes, path: str) -> np.ndarray:
    """Check magic, version, size and checksum of the header; return it as a structured scalar."""
    if header_bytes[: len(MAGIC)] != MAGIC:
        if header_bytes and MAGIC.startswith(header_bytes):
            raise ChecksumError("file is truncated inside the header", path)
        raise UnknownFormatError("not a gpugraph binary (.gg) file: wrong magic bytes", path)
    if len(header_bytes) >= 12:
        version = int.from_bytes(header_bytes[8:12], "little")
        if version > FORMAT_VERSION or version < 1:
            raise GraphFormatError(
                f"written in .gg format version {version}; this gpugraph reads version "
                f"{FORMAT_VERSION} (upgrade gpugraph, or re-save the graph with this version)",
                path,
            )
    if len(header_bytes) < HEADER_BYTES:
        raise ChecksumError(f"file is truncated inside the header ({len(header_bytes)} of {HEADER_BYTES} bytes)", path)
    stored = int.from_bytes(header_bytes[_CRC_OFFSET:], "little")
    if zlib.crc32(header_bytes[:_CRC_OFFSET]) != stored:
        raise ChecksumError("checksum mismatch in the header (corrupt file)", path)
    header = np.frombuffer(header_bytes, dtype=_HEADER, count=1)[0]
    if int(header["header_bytes"]) != HEADER_BYTES:
        raise GraphFormatError(f"header size {int(header['header_bytes'])}, expected {HEADER_BYTES}", path)
    unknown = int(header["flags"]) & ~_KNOWN_FLAGS
    if unknown:
        raise GraphFormatError(f"unknown flags 0x{unknown:x} in a version {FORMAT_VERSION} file", path)
    return header


def _section_layout(header: np.ndarray, size: int, path: str) -> dict:
    """Name -> (dtype, offset, length, crc) of the sections present, with sizes checked."""
    flags = int(header["flags"])
    n, num_arcs = int(header["num_vertices"]), int(header["num_arcs"])
    indices_dtype = _dtype_from_code(int(header["indices_dtype"]), "indices", path)
    if indices_dtype not in _INDEX_DTYPES:
        raise GraphFormatError(f"vertex ids stored as {indices_dtype}, expected int32 or int64", path)
    expected = {
        "indptr": (_OFFSETS, n + 1),
        "indices": (indices_dtype, num_arcs),
        "name": (np.dtype(np.uint8), None),
    }
    if flags & _WEIGHTED:
        expected["weights"] = (_dtype_from_code(int(header["weights_dtype"]), "weights", path), num_arcs)
    if flags & _ORIGINAL_IDS:
        expected["original_ids"] = (_OFFSETS, n)
    if flags & _IN_EDGES:
        expected.update(
            in_indptr=(_OFFSETS, n + 1), in_indices=(indices_dtype, num_arcs), in_edge_ids=(_OFFSETS, num_arcs)
        )
    layout = {}
    for index, name in enumerate(SECTIONS):
        entry = header["sections"][index]
        offset, length = int(entry["offset"]), int(entry["length"])
        if name not in expected:
            if offset or length:
                raise GraphFormatError(f"section {name!r} is present but the flags say it is not", path)
            continue
        dtype, count = expected[name]
        wrong_size = count is not None and length != count * dtype.itemsize
        if wrong_size or offset % SECTION_ALIGNMENT or offset < HEADER_BYTES:
            raise GraphFormatError(
                f"section {name!r} has offset {offset} and {length} bytes, which do not fit its "
                f"{count if count is not None else 'any'} x {dtype} entries",
                path,
            )
        if offset + length > size:
            raise ChecksumError(
                f"file is truncated inside section {name!r} ({size:,} bytes; the section ends at "
                f"{offset + length:,})",
                path,
            )
        layout[name] = (dtype, offset, length, int(entry["crc"]))
    return layout


def _dtype_from_code(code: int, what: str, path: str) -> np.dtype:
    if code not in _DTYPE_CODES:
        raise GraphFormatError(f"unknown dtype code {code} for the {what}", path)
    return _DTYPE_CODES[code]


def _read_sections(path: str, layout: dict, *, mmap: bool, verify: bool) -> dict:
    mapped = np.memmap(path, dtype=np.uint8, mode="r") if mmap else None
    arrays = {}
    with open(path, "rb") as handle:
        for name, (dtype, offset, length, crc) in layout.items():
            if mapped is not None:
                raw = mapped[offset : offset + length]
            else:
                raw = np.empty(length, dtype=np.uint8)
                handle.seek(offset)
                if handle.readinto(memoryview(raw)) != length:
                    raise ChecksumError(f"file is truncated inside section {name!r}", path)
            if verify and _crc(raw) != crc:
                raise ChecksumError(f"checksum mismatch in section {name!r} (corrupt file)", path)
            arrays[name] = raw.view(dtype)
    return arrays


def _crc(data: np.ndarray) -> int:
    view = memoryview(data)
    crc = 0
    for start in range(0, len(view), _CHUNK_BYTES):
        crc = zlib.crc32(view[start : start + _CHUNK_BYTES], crc)
    return crc


def _check_structure(arrays: dict, n: int, path: str) -> None:
    """Check that the arrays form a valid graph, so no kernel reads out of bounds."""
    for prefix in ("", "in_"):
        if prefix + "indptr" not in arrays:
            continue
        indptr, indices = arrays[prefix + "indptr"], arrays[prefix + "indices"]
        if indptr[0] != 0 or indptr[-1] != indices.size or np.any(indptr[1:] < indptr[:-1]):
            raise GraphFormatError(f"section {prefix + 'indptr'!r} is not a valid offset array", path)
        if indices.size and (int(indices.min()) < 0 or int(indices.max()) >= n):
            raise GraphFormatError(f"section {prefix + 'indices'!r} has vertex ids outside [0, {n})", path)
    edge_ids = arrays.get("in_edge_ids")
    if edge_ids is not None and edge_ids.size and (int(edge_ids.min()) < 0 or int(edge_ids.max()) >= edge_ids.size):
        raise GraphFormatError("section 'in_edge_ids' has edge positions out of range", path)
    original_ids = arrays.get("original_ids")
    if original_ids is not None and np.any(original_ids[1:] <= original_ids[:-1]):
        raise GraphFormatError("section 'original_ids' is not strictly increasing", path)
