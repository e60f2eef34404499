"""gpugraph's binary graph format (``.gg``): fast, checked, memory-mappable reloads.

Layout (little-endian)
----------------------
A 512-byte header, then sections, each starting on a 64-byte boundary::

    magic        8 bytes  b"GPUGRAPH"
    version      uint32   FORMAT_VERSION
    flags        uint32   bit 0 directed, bit 1 weighted, bit 2 has original ids
    n            uint64   vertices
    num_arcs     uint64   stored CSR entries
    num_edges    uint64   edges as the input counted them
    id_offset    int64
    indices_type 8 bytes  NumPy dtype string, e.g. b"<i4"
    weights_type 8 bytes  NumPy dtype string or zeros
    sections     5 x (offset uint64, length uint64, crc32 uint32, reserved uint32):
                 indptr, indices, weights, original_ids, name (UTF-8)
    header_crc   uint32   CRC-32 of every header byte before it

The CRC-32 of every section is checked on load (``verify=True``), so a truncated or corrupted file
raises :class:`~gpugraph.errors.ChecksumError` instead of producing a wrong graph. With
``mmap=True`` the arrays are read-only views of the file (zero copy).
"""

from __future__ import annotations

import os
import zlib

import numpy as np

from gpugraph.backend import get_backend, to_numpy
from gpugraph.errors import ChecksumError, GraphFormatError, UnknownFormatError
from gpugraph.graph.graph import Graph
from gpugraph.io._atomic import atomic_output
from gpugraph.io._open import check_readable

MAGIC = b"GPUGRAPH"
FORMAT_VERSION = 1
BINARY_SUFFIX = ".gg"
HEADER_BYTES = 512
ALIGNMENT = 64
SECTIONS = ("indptr", "indices", "weights", "original_ids", "name")
_CRC_CHUNK = 1 << 26

_SECTION = np.dtype([("offset", "<u8"), ("length", "<u8"), ("crc", "<u4"), ("reserved", "<u4")])
_HEADER = np.dtype(
    [
        ("magic", "S8"),
        ("version", "<u4"),
        ("flags", "<u4"),
        ("n", "<u8"),
        ("num_arcs", "<u8"),
        ("num_edges", "<u8"),
        ("id_offset", "<i8"),
        ("indices_type", "S8"),
        ("weights_type", "S8"),
        ("sections", _SECTION, (len(SECTIONS),)),
    ]
)
_DIRECTED, _WEIGHTED, _HAS_IDS = 1, 2, 4


def _crc(data) -> int:
    view = memoryview(np.ascontiguousarray(data)).cast("B")
    crc = 0
    for start in range(0, len(view), _CRC_CHUNK):
        crc = zlib.crc32(view[start : start + _CRC_CHUNK], crc)
    return crc


def is_binary_file(path: str) -> bool:
    """Whether ``path`` starts with the ``.gg`` magic bytes."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def save_binary(graph: Graph, path) -> None:
    """Write ``graph`` (from any device) to ``path`` in the ``.gg`` format, atomically.

    Parameters
    ----------
    graph:
        The graph to save (its CSC is not saved; it is rebuilt on first use).
    path:
        Output file; replaced only when the whole write succeeded.
    """
    name = (graph.name or "").encode("utf-8")
    arrays = [
        to_numpy(graph.indptr).astype("<i8", copy=False),
        to_numpy(graph.indices),
        None if graph.weights is None else to_numpy(graph.weights),
        graph.original_ids,
        np.frombuffer(name, dtype=np.uint8),
    ]
    header = np.zeros((), dtype=_HEADER)
    header["magic"] = MAGIC
    header["version"] = FORMAT_VERSION
    header["flags"] = (
        (_DIRECTED if graph.directed else 0)
        | (_WEIGHTED if graph.weights is not None else 0)
        | (_HAS_IDS if graph.original_ids is not None else 0)
    )
    header["n"] = graph.num_vertices
    header["num_arcs"] = graph.num_arcs
    header["num_edges"] = graph.num_edges
    header["id_offset"] = graph.id_offset
    header["indices_type"] = arrays[1].dtype.str.encode()
    if arrays[2] is not None:
        header["weights_type"] = arrays[2].dtype.str.encode()
    offset = HEADER_BYTES
    for index, array in enumerate(arrays):
        if array is None:
            continue
        section = header["sections"][index]
        section["offset"] = offset
        section["length"] = array.nbytes
        section["crc"] = _crc(array)
        offset = _aligned(offset + array.nbytes)
    header_bytes = bytearray(HEADER_BYTES)
    raw = header.tobytes()
    header_bytes[: len(raw)] = raw
    header_bytes[HEADER_BYTES - 4 :] = zlib.crc32(header_bytes[: HEADER_BYTES - 4]).to_bytes(4, "little")
    with atomic_output(os.fspath(path), "wb", compress=False) as handle:
        handle.write(header_bytes)
        position = HEADER_BYTES
        for index, array in enumerate(arrays):
            if array is None:
                continue
            start = int(header["sections"][index]["offset"])
            handle.write(b"\0" * (start - position))
            handle.write(memoryview(np.ascontiguousarray(array)).cast("B"))
            position = start + array.nbytes


def _aligned(offset: int) -> int:
    return (offset + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def load_binary(path, *, mmap: bool = False, verify: bool = True, device=None) -> Graph:
    """Load a ``.gg`` file.

    Parameters
    ----------
    path:
        The file.
    mmap:
        Map the arrays from the file instead of reading them (read-only, zero copy; host only).
    verify:
        Check the CRC-32 of every section (reads the whole file once).
    device:
        Where to put the graph (see :func:`gpugraph.backend.get_backend`).

    Returns
    -------
    Graph

    Raises
    ------
    UnknownFormatError
        If the file is not a ``.gg`` file.
    GraphFormatError
        If it was written by a newer format version.
    ChecksumError
        If the header or a section is truncated or does not match its checksum.
    """
    path = os.fspath(path)
    check_readable(path)
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        header_bytes = handle.read(HEADER_BYTES)
    if not header_bytes.startswith(MAGIC):
        raise UnknownFormatError("not a gpugraph binary file (bad magic bytes)", path)
    if len(header_bytes) < HEADER_BYTES:
        raise ChecksumError("truncated header", path)
    header = np.frombuffer(header_bytes[: _HEADER.itemsize], dtype=_HEADER)[0]
    if int(header["version"]) > FORMAT_VERSION:
        raise GraphFormatError(
            f"written by format version {int(header['version'])}; this gpugraph reads up to "
            f"version {FORMAT_VERSION} (upgrade gpugraph)",
            path,
        )
    stored_crc = int.from_bytes(header_bytes[HEADER_BYTES - 4 :], "little")
    if verify and zlib.crc32(header_bytes[: HEADER_BYTES - 4]) != stored_crc:
        raise ChecksumError("header checksum mismatch (corrupt file)", path)
    flags = int(header["flags"])
    n, num_arcs = int(header["n"]), int(header["num_arcs"])
    dtypes = {
        "indptr": np.dtype("<i8"),
        "indices": np.dtype(header["indices_type"].decode()),
        "weights": np.dtype(header["weights_type"].decode()) if flags & _WEIGHTED else None,
        "original_ids": np.dtype("<i8") if flags & _HAS_IDS else None,
        "name": np.dtype(np.uint8),
    }
    counts = {"indptr": n + 1, "indices": num_arcs, "weights": num_arcs, "original_ids": n, "name": None}
    source = np.memmap(path, dtype=np.uint8, mode="r") if mmap and size else None
    arrays = {}
    with open(path, "rb") as handle:
        for index, section_name in enumerate(SECTIONS):
            dtype = dtypes[section_name]
            section = header["sections"][index]
            offset, length = int(section["offset"]), int(section["length"])
            if dtype is None:
                continue
            expected = counts[section_name]
            if expected is not None and length != expected * dtype.itemsize:
                raise ChecksumError(f"section {section_name!r} has {length} bytes, expected "
                                    f"{expected * dtype.itemsize}", path)
            if offset + length > size:
                raise ChecksumError(f"file is truncated inside section {section_name!r}", path)
            if source is not None:
                array = source[offset : offset + length].view(dtype)
            else:
                array = np.empty(length // dtype.itemsize, dtype=dtype)
                handle.seek(offset)
                handle.readinto(memoryview(array).cast("B"))
            if verify and _crc(array) != int(section["crc"]):
                raise ChecksumError(f"checksum mismatch in section {section_name!r} (corrupt file)", path)
            arrays[section_name] = array
    backend = get_backend(device)
    return Graph(
        backend.asarray(arrays["indptr"]),
        backend.asarray(arrays["indices"]),
        None if "weights" not in arrays else backend.asarray(arrays["weights"]),
        directed=bool(flags & _DIRECTED),
        num_edges=int(header["num_edges"]),
        backend=backend,
        original_ids=None if "original_ids" not in arrays else np.asarray(arrays["original_ids"]),
        id_offset=int(header["id_offset"]),
        name=bytes(arrays["name"]).decode("utf-8", errors="replace") or None,
    )
