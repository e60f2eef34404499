"""Opening graph files: transparent decompression, whole-file reads with progress, detection."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os

import numpy as np

from gpugraph.errors import GraphFileNotFoundError, GraphFormatError
from gpugraph.progress import Progress

#: Leading bytes of each compression format we read.
_COMPRESSION_MAGIC = {
    b"\x1f\x8b": lambda raw: gzip.GzipFile(fileobj=raw),
    b"\xfd7zXZ\x00": lzma.LZMAFile,
    b"BZh": bz2.BZ2File,
}
COMPRESSION_SUFFIXES = (".gz", ".xz", ".bz2")
_READ_CHUNK_BYTES = 1 << 24


def check_readable(path: str) -> None:
    """Raise a named error if ``path`` is not a readable regular file.

    Raises
    ------
    GraphFileNotFoundError
        If the file does not exist.
    GraphFormatError
        If it is a directory.
    """
    if not os.path.exists(path):
        raise GraphFileNotFoundError(f"{path}: no such file")
    if os.path.isdir(path):
        raise GraphFormatError("is a directory, not a graph file", path)


def _decompressor(raw):
    head = raw.read(6)
    raw.seek(0)
    for magic, opener in _COMPRESSION_MAGIC.items():
        if head.startswith(magic):
            return opener(raw)
    return None


def read_head(path: str, size: int = 1 << 16) -> bytes:
    """Return up to ``size`` decompressed leading bytes of ``path`` (for format detection)."""
    check_readable(path)
    with open(path, "rb") as raw:
        stream = _decompressor(raw) or raw
        try:
            return stream.read(size)
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise GraphFormatError(f"cannot decompress: {exc}", path) from exc


def read_bytes(path: str, progress: bool | None = None) -> np.ndarray:
    """Read the whole (decompressed) file into a uint8 array.

    Parameters
    ----------
    path:
        File to read; gzip, xz and bzip2 are recognised by their magic bytes.
    progress:
        Progress bar policy (see :class:`gpugraph.progress.Progress`); counts compressed bytes.

    Returns
    -------
    numpy.ndarray
        The file's bytes, followed by one extra ``\\n`` so that parsers never run off the end.

    Raises
    ------
    GraphFileNotFoundError, GraphFormatError
        Missing file, directory, or corrupt compressed stream.
    """
    check_readable(path)
    total = os.path.getsize(path)
    chunks = []
    with open(path, "rb") as raw, Progress(f"reading {os.path.basename(path)}", total, "B", enabled=progress) as bar:
        stream = _decompressor(raw)
        if stream is None:
            data = bytearray(total + 1)
            view = memoryview(data)
            done = 0
            while done < total:
                count = raw.readinto(view[done : min(total, done + _READ_CHUNK_BYTES)])
                if not count:
                    break
                done += count
                bar.update(count)
            data[done] = ord("\n")
            return np.frombuffer(data, dtype=np.uint8, count=done + 1)
        position = 0
        try:
            while True:
                chunk = stream.read(_READ_CHUNK_BYTES)
                if not chunk:
                    break
                chunks.append(chunk)
                bar.update(raw.tell() - position)
                position = raw.tell()
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise GraphFormatError(f"corrupt or truncated compressed data: {exc}", path) from exc
    chunks.append(b"\n")
    return np.frombuffer(b"".join(chunks), dtype=np.uint8)


def strip_compression_suffix(name: str) -> str:
    """``"g.mtx.gz"`` -> ``"g.mtx"``."""
    lowered = name.lower()
    for suffix in COMPRESSION_SUFFIXES:
        if lowered.endswith(suffix):
            return name[: -len(suffix)]
    return name
