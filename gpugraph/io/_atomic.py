"""Atomic output: write to a temporary file beside the target, rename only on success."""

from __future__ import annotations

import contextlib
import gzip
import os
import tempfile


@contextlib.contextmanager
def atomic_output(path: str, mode: str = "wb", compress: bool | None = None):
    """Open a temporary file next to ``path``; on a clean exit rename it to ``path``.

    If the block raises, the temporary file is removed and ``path`` is left as it was (absent
    or with its old contents).

    Parameters
    ----------
    path:
        Final location.
    mode:
        ``"wb"`` (binary) or ``"w"`` (text, UTF-8).
    compress:
        Gzip the output; default: when ``path`` ends in ``.gz``.

    Yields
    ------
    file object
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if compress is None:
        compress = path.lower().endswith(".gz")
    descriptor, temporary = tempfile.mkstemp(prefix=".gpugraph-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(descriptor, "wb") as raw:
            stream = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6) if compress else raw
            try:
                if "b" in mode:
                    yield stream
                else:
                    import io

                    text = io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
                    yield text
                    text.flush()
                    text.detach()
            finally:
                if compress:
                    stream.close()
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes 0600 files; honour the umask instead
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
