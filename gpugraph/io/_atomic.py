"""Atomic output files: write beside the target, then rename over it only when the write succeeded.

``os.replace`` within one directory is atomic on POSIX and Windows, so a reader of ``path`` sees
either the old file (or none) or the complete new one, never a partial write, and a failed or
interrupted write leaves ``path`` exactly as it was.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import secrets
import stat

from gpugraph import config
from gpugraph.errors import InvalidParameterError

#: Compression of text outputs by file-name suffix (the readers recognise the same three).
COMPRESSION_BY_SUFFIX = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}


def compression_for(path) -> str | None:
    """``"gzip"``, ``"bzip2"`` or ``"xz"`` when ``path`` ends in ``.gz``, ``.bz2`` or ``.xz``,
    else ``None``."""
    return COMPRESSION_BY_SUFFIX.get(os.path.splitext(os.fspath(path))[1].lower())


@contextlib.contextmanager
def atomic_output(path, mode: str = "wb", compression: str | None = "auto"):
    """Open a stream whose bytes reach ``path`` only if the ``with`` block succeeds.

    The data go to a new hidden file in ``path``'s directory (so the final rename stays on one
    file system); on a clean exit it is flushed to disk (``fsync``) and renamed to ``path``. If
    the block raises (or the process dies), the temporary file is removed and ``path`` is
    untouched. A new file gets the usual permissions (``0o666`` less the umask); a replaced file
    keeps its permission bits.

    Parameters
    ----------
    path:
        Final location.
    mode:
        ``"wb"`` for a binary stream, ``"w"`` for UTF-8 text with ``"\n"`` line ends.
    compression:
        ``"auto"`` (default): by the suffix of ``path`` (:func:`compression_for`); ``None``;
        ``"gzip"`` (level ``config.WRITE_GZIP_LEVEL``, no time stamp, so equal contents give
        equal files); ``"bzip2"``; ``"xz"``.

    Yields
    ------
    file object
        A writable stream (compressing if asked).

    Raises
    ------
    InvalidParameterError
        For an unknown mode or compression.
    OSError
        If the directory is not writable, or the write or rename fails.
    """
    if mode not in ("wb", "w"):
        raise InvalidParameterError(f"atomic_output mode must be 'wb' or 'w', got {mode!r}")
    path = os.fspath(path)
    if compression == "auto":
        compression = compression_for(path)
    directory, name = os.path.split(os.path.abspath(path))
    temporary = os.path.join(directory, f".{name}.{secrets.token_hex(6)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(descriptor, "wb") as raw:
            with _compressor(raw, compression) as stream:
                if mode == "wb":
                    yield stream
                else:
                    text = io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
                    yield text
                    text.flush()
                    text.detach()  # leave closing the binary stream to its own context
            raw.flush()
            os.fsync(raw.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, stat.S_IMODE(os.stat(path).st_mode))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _compressor(raw, compression: str | None):
    if compression is None:
        return contextlib.nullcontext(raw)
    if compression == "gzip":
        return gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=config.WRITE_GZIP_LEVEL, mtime=0)
    if compression == "bzip2":
        return bz2.BZ2File(raw, mode="wb")
    if compression == "xz":
        return lzma.LZMAFile(raw, mode="wb")
    raise InvalidParameterError(f"unknown compression {compression!r}: use gzip, bzip2 or xz")
