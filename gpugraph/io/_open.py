"""Opening graph text files: existence checks, transparent decompression, pieces of lines.

Compression is recognised by the file's magic bytes, not its name, so a gzip file without ``.gz``
(or a plain file that kept one) is read correctly. Uncompressed files are memory-mapped: the
parsers read the page cache directly and nothing is copied.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import mmap
import os
import zlib
from collections.abc import Iterator

import numpy as np

from gpugraph import config
from gpugraph.errors import GraphFileNotFoundError, GraphFormatError

COMPRESSION_SUFFIXES = (".gz", ".xz", ".bz2")
#: Magic bytes -> (name, opener of a decompressing stream over a raw binary file object).
_COMPRESSIONS = (
    (b"\x1f\x8b", "gzip", lambda raw: gzip.GzipFile(fileobj=raw, mode="rb")),
    (b"\xfd7zXZ\x00", "xz", lambda raw: lzma.LZMAFile(raw, mode="rb")),
    (b"BZh", "bzip2", lambda raw: bz2.BZ2File(raw, mode="rb")),
)
_DECOMPRESSION_ERRORS = (OSError, EOFError, lzma.LZMAError, zlib.error)
#: Header lines longer than this are not headers; the limit keeps a binary file from being read
#: whole by ``readline``.
_MAX_HEADER_LINE_BYTES = 1 << 20
_NEWLINE = 10


def check_readable(path: str) -> None:
    """Raise a named error if ``path`` is not an existing regular file.

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


def strip_compression_suffix(name: str) -> str:
    """``"g.mtx.gz"`` -> ``"g.mtx"``; other names are returned unchanged."""
    lowered = name.lower()
    for suffix in COMPRESSION_SUFFIXES:
        if lowered.endswith(suffix):
            return name[: -len(suffix)]
    return name


class TextSource:
    """A graph text file, possibly compressed, read as lines (headers) or pieces (bodies).

    Parameters
    ----------
    path:
        The file.

    Raises
    ------
    GraphFileNotFoundError, GraphFormatError
        As :func:`check_readable`.
    """

    def __init__(self, path: str):
        check_readable(path)
        self.path = path
        #: Bytes on disk (compressed size for compressed files): the progress bar's total.
        self.size = os.path.getsize(path)
        with open(path, "rb") as raw:
            magic = raw.read(6)
        self.compression, self._opener = None, None
        for prefix, name, opener in _COMPRESSIONS:
            if magic.startswith(prefix):
                self.compression, self._opener = name, opener

    def head_lines(self) -> Iterator[tuple[int, bytes, int]]:
        """Yield ``(line_number, text, end_offset)`` for the leading lines, for header parsing.

        ``text`` has its line ending removed; ``end_offset`` is the (decompressed) byte offset
        just after the line, where a body parsed by :meth:`pieces` would start.
        """
        raw = open(self.path, "rb")
        stream = self._opener(raw) if self._opener else raw
        try:
            offset = 0
            number = 0
            while True:
                text = self._guarded(stream.readline, _MAX_HEADER_LINE_BYTES)
                if not text:
                    return
                number += 1
                offset += len(text)
                yield number, text.rstrip(b"\r\n"), offset
        finally:
            stream.close()
            raw.close()

    def pieces(self, start: int = 0) -> Iterator[tuple[np.ndarray, int]]:
        """Yield ``(piece, disk_bytes)`` from byte ``start`` on, in file order.

        Each piece is a read-only uint8 array of whole lines of about
        :data:`gpugraph.config.READ_PIECE_BYTES` (``READ_STREAM_PIECE_BYTES`` when compressed),
        always ending with a newline (one is added after a last line that lacks it) so that
        scanners need no bounds checks. ``disk_bytes`` is how far the piece advanced through
        the file on disk, for progress.
        """
        if self._opener is None:
            yield from self._mapped_pieces(start)
        else:
            yield from self._decompressed_pieces(start)

    def _mapped_pieces(self, start: int) -> Iterator[tuple[np.ndarray, int]]:
        if self.size <= start:
            return
        with open(self.path, "rb") as raw:
            if hasattr(mmap, "MAP_POPULATE"):
                # Map the whole file's page-cache pages at once (Linux): faulting them in one by
                # one costs more than parsing them.
                flags = mmap.MAP_SHARED | mmap.MAP_POPULATE
                mapped = mmap.mmap(raw.fileno(), 0, flags=flags, prot=mmap.PROT_READ)
            else:
                mapped = mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ)
        data = np.frombuffer(mapped, dtype=np.uint8)
        position = start
        while position < self.size:
            cut = mapped.find(b"\n", min(position + config.READ_PIECE_BYTES, self.size) - 1)
            end = self.size if cut < 0 else cut + 1
            piece = data[position:end]
            if piece[-1] != _NEWLINE:
                piece = _read_only(np.append(piece, np.uint8(_NEWLINE)))
            yield piece, end - position
            position = end

    def _decompressed_pieces(self, start: int) -> Iterator[tuple[np.ndarray, int]]:
        # Pieces of a stream are cut finer than mapped ones so that parsing them on other cores
        # overlaps decompression, which is the slower of the two, from the start.
        piece_bytes = config.READ_STREAM_PIECE_BYTES
        with open(self.path, "rb") as raw, self._opener(raw) as stream:
            while start > 0:
                skipped = len(self._guarded(stream.read, min(start, piece_bytes)))
                if not skipped:
                    return
                start -= skipped
            carry = b""  # the start of a line cut by the previous read
            disk_position = 0
            while True:
                data = self._guarded(stream.read, piece_bytes)
                if not data:
                    if carry:
                        yield np.frombuffer(carry + b"\n", dtype=np.uint8), raw.tell() - disk_position
                    return
                cut = data.rfind(b"\n")
                if cut < 0:  # a line longer than a piece: keep reading
                    carry += data
                    continue
                if carry:
                    piece = np.frombuffer(b"".join((carry, memoryview(data)[: cut + 1])), dtype=np.uint8)
                else:
                    piece = np.frombuffer(data, dtype=np.uint8, count=cut + 1)
                carry = data[cut + 1 :]
                yield piece, raw.tell() - disk_position
                disk_position = raw.tell()

    def _guarded(self, read, argument):
        try:
            return read(argument)
        except _DECOMPRESSION_ERRORS as exc:
            raise GraphFormatError(
                f"corrupt or truncated {self.compression or 'file'} data ({exc})", self.path
            ) from exc


def _read_only(piece: np.ndarray) -> np.ndarray:
    # Every piece has the same Numba type (read-only C array), so each scanner compiles once.
    piece.flags.writeable = False
    return piece
