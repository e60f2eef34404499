"""Readers for the text formats real graphs come in. Each returns an :class:`EdgeList`.

Formats (``FORMATS``)
---------------------
``edgelist``  SNAP / whitespace edge lists: ``u v [w]`` per line (tabs, spaces or commas), ``#``
              and ``%`` comment lines; ids are whatever appears (relabelled densely by the
              builder). A weight column must be on every line or on none. Directed.
``mtx``       Matrix Market coordinate: ``pattern | integer | real`` values, ``general |
              symmetric | skew-symmetric`` (``hermitian`` for real values = symmetric). Entry
              (i, j) is an edge i -> j; 1-based; ``n = max(rows, cols)``. Symmetric files are
              undirected graphs; skew-symmetric files become directed graphs with each stored
              entry (i, j, v) plus its mirror (j, i, -v). Complex and dense (``array``) files
              are rejected.
``dimacs``    9th DIMACS shortest path: ``c`` comments, ``p sp n m``, ``a u v w``. Directed,
              1-based, integer weights.
``pace``      PACE 2016 treewidth: ``c`` comments, ``p tw n m``, ``u v``. Undirected, 1-based.
``metis``     METIS/Chaco adjacency: header ``n m [fmt [ncon]]``, then line i lists the
              neighbours of vertex i (1-based); ``fmt`` 1 adds edge weights, 10 vertex weights
              (skipped), 11 both, 100 vertex sizes (skipped). Undirected; each edge is listed
              from both ends, the header counts it once.
``ldbc``      LDBC Graphalytics ``NAME.v`` (one vertex id per line, isolated vertices included)
              + ``NAME.e`` (``src dst [weight]``); direction from ``NAME.properties`` when present.

Compressed files (``.gz``, ``.xz``, ``.bz2``) are read transparently.
"""

from __future__ import annotations

import os
import re

import numpy as np

from gpugraph.backend.kernels import run_cpu_kernel
from gpugraph.errors import GraphFileNotFoundError, GraphFormatError, UnknownFormatError
from gpugraph.graph.edgelist import EdgeList
from gpugraph.io import _parse
from gpugraph.io._open import read_bytes, read_head, strip_compression_suffix

FORMATS = ("edgelist", "mtx", "dimacs", "pace", "metis", "ldbc")

_SUFFIX_FORMATS = {
    ".mtx": "mtx",
    ".mm": "mtx",
    ".graph": "metis",
    ".metis": "metis",
    ".chaco": "metis",
    ".v": "ldbc",
    ".e": "ldbc",
    ".txt": "edgelist",
    ".el": "edgelist",
    ".edges": "edgelist",
    ".edgelist": "edgelist",
    ".tsv": "edgelist",
    ".csv": "edgelist",
    ".wel": "edgelist",
}
_NO_COMMENTS = np.zeros(0, dtype=np.uint8)
_HASH_PERCENT = np.frombuffer(b"#%", dtype=np.uint8)
_PERCENT = np.frombuffer(b"%", dtype=np.uint8)
_C_COMMENT = np.frombuffer(b"c", dtype=np.uint8)


def read_edge_list(
    path,
    format: str | None = None,
    *,
    directed: bool | None = None,
    progress: bool | None = None,
) -> EdgeList:
    """Read a graph file of any supported text format.

    Parameters
    ----------
    path:
        The file (possibly compressed). For ``ldbc``, the ``.v`` or ``.e`` file or their base name.
    format:
        One of :data:`FORMATS` to skip detection.
    directed:
        Override the direction the format implies.
    progress:
        Progress bar policy for long reads (``None``: only on a terminal).

    Returns
    -------
    EdgeList

    Raises
    ------
    GraphFileNotFoundError
        If the file does not exist.
    UnknownFormatError
        If ``format`` is unknown or the format cannot be detected.
    GraphFormatError
        If the file is malformed; the message names the file and line.
    """
    path = os.fspath(path)
    if format is None:
        format = detect_format(path)
    elif format not in FORMATS:
        raise UnknownFormatError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}", path)
    reader = _READERS[format]
    edges = reader(path, progress=progress)
    if directed is not None:
        edges.directed = bool(directed)
    return edges


def detect_format(path: str) -> str:
    """Guess the format of ``path`` from its name, then from its first lines.

    Raises
    ------
    GraphFileNotFoundError, UnknownFormatError
    """
    name = strip_compression_suffix(os.path.basename(path)).lower()
    if not os.path.exists(path) and _ldbc_paths(path) is None:
        raise GraphFileNotFoundError(f"{path}: no such file")
    if not os.path.exists(path):
        return "ldbc"
    head = read_head(path, 4096)
    if not head.strip():
        raise GraphFormatError("empty file", path, 1)
    suffix = os.path.splitext(name)[1]
    if suffix == ".gr":
        return "pace" if re.search(rb"^p\s+tw\b", head, re.M) else "dimacs"
    if suffix in _SUFFIX_FORMATS:
        return _SUFFIX_FORMATS[suffix]
    if head.startswith(b"%%MatrixMarket"):
        return "mtx"
    if re.search(rb"^p\s+sp\b", head, re.M):
        return "dimacs"
    if re.search(rb"^p\s+tw\b", head, re.M):
        return "pace"
    if re.match(rb"^(#[^\n]*\n|\s*\n)*\s*-?\d+[ \t,]+-?\d+", head):
        return "edgelist"
    raise UnknownFormatError(
        f"cannot tell the graph format from the name or contents; pass format= one of {', '.join(FORMATS)}",
        path,
    )


# --- header helpers ----------------------------------------------------------------------------
def _lines_until(buf: np.ndarray, path: str, is_comment, limit_lines: int = 1_000_000):
    """Yield ``(line_number, text, offset_after_line)`` for non-comment lines from the start."""
    pos = 0
    size = buf.shape[0]
    for line_number in range(1, limit_lines):
        if pos >= size - 1:
            return
        newline = pos + int(np.argmax(buf[pos:] == 10)) if buf[pos] != 10 else pos
        text = bytes(buf[pos:newline]).decode("utf-8", errors="replace")
        pos = newline + 1
        if not text.strip() or is_comment(text):
            continue
        yield line_number, text, pos


def _first_data_line(buf, path, is_comment, what):
    for found in _lines_until(buf, path, is_comment):
        return found
    raise GraphFormatError(f"empty file: no {what} found", path, 1)


def _header_ints(text, count_range, path, line, what):
    fields = text.split()
    try:
        numbers = [int(field) for field in fields]
    except ValueError:
        raise GraphFormatError(f"{what} must be integers, got {text.strip()!r}", path, line) from None
    if not count_range[0] <= len(numbers) <= count_range[1] or any(number < 0 for number in numbers):
        raise GraphFormatError(f"malformed {what}: {text.strip()!r}", path, line)
    return numbers


def _scan(buf, path, start, first_line, id_columns, value_mode, prefix=0, comments=_NO_COMMENTS, max_lines=-1):
    ids, values, count, status, error_line, has_values, integral, inexact = run_cpu_kernel(
        _parse.scan_lines, buf, start, first_line, id_columns, value_mode, prefix, comments, max_lines
    )
    if status != _parse.OK:
        _parse.raise_scan_error(status, error_line, path)
    ids = ids[:, :count]
    if not has_values:
        return ids, None, count
    values = values[:count]
    for row, offset in inexact.T:
        end = offset
        while buf[end] not in (9, 10, 13, 32, 44):
            end += 1
        values[row] = float(bytes(buf[offset:end]))
    if integral and np.all(np.abs(values) < 2**53):
        values = values.astype(np.int64)
    return ids, values, count


def _count_mismatch(path, line, declared, found, what):
    raise GraphFormatError(f"header declares {declared:,} {what} but the file has {found:,}", path, line)


# --- formats -----------------------------------------------------------------------------------
def read_snap(path, *, progress=None) -> EdgeList:
    """Read a SNAP / whitespace edge list (see module docstring). Raises GraphFormatError."""
    buf = read_bytes(path, progress)
    ids, values, count = _scan(buf, path, 0, 1, 2, _parse.VALUES_OPTIONAL, comments=_HASH_PERCENT)
    if count == 0:
        raise GraphFormatError("empty file: no edges found", path, 1)
    return EdgeList(ids[0], ids[1], values, directed=True, source=path)


def read_matrix_market(path, *, progress=None) -> EdgeList:
    """Read a Matrix Market coordinate file (see module docstring). Raises GraphFormatError,
    UnknownFormatError."""
    buf = read_bytes(path, progress)
    first = bytes(buf[: min(buf.shape[0], 1024)]).split(b"\n", 1)[0].decode("utf-8", "replace")
    banner = first.lower().split()
    if not first.strip():
        raise GraphFormatError("empty file", path, 1)
    if len(banner) != 5 or banner[0] != "%%matrixmarket" or banner[1] != "matrix":
        raise UnknownFormatError(f"not a Matrix Market banner: {first.strip()!r}", path, 1)
    layout, field, symmetry = banner[2:]
    if layout != "coordinate":
        raise UnknownFormatError(f"Matrix Market layout {layout!r} is not supported (only 'coordinate')", path, 1)
    if field not in ("pattern", "integer", "real", "double"):
        raise UnknownFormatError(f"Matrix Market field {field!r} is not supported (pattern, integer, real)", path, 1)
    if symmetry not in ("general", "symmetric", "skew-symmetric", "hermitian"):
        raise UnknownFormatError(f"Matrix Market symmetry {symmetry!r} is not supported", path, 1)
    line, text, start = _first_data_line(buf, path, lambda t: t.lstrip().startswith("%"), "size line")
    rows, cols, entries = _header_ints(text, (3, 3), path, line, "size line 'rows cols entries'")
    value_mode = _parse.VALUES_NONE if field == "pattern" else _parse.VALUES_REQUIRED
    ids, values, count = _scan(buf, path, start, line + 1, 2, value_mode, comments=_PERCENT, max_lines=entries)
    if count != entries:
        _count_mismatch(path, line, entries, count, "entries")
    n = max(rows, cols)
    for column, limit in ((0, rows), (1, cols)):
        bad = np.flatnonzero((ids[column] < 1) | (ids[column] > limit))
        if bad.size:
            raise GraphFormatError(
                f"{'row' if column == 0 else 'column'} index {int(ids[column, bad[0]])} outside [1, {limit}]",
                path, _data_line_number(buf, start, line + 1, int(bad[0]), _PERCENT),
            )
    if field == "integer" and values is not None:
        values = values.astype(np.int64) if values.dtype.kind == "f" and np.all(values == np.round(values)) else values
    src, dst = ids[0], ids[1]
    directed = symmetry == "general"
    if symmetry == "skew-symmetric":
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
        values = None if values is None else np.concatenate([values, -values])
        directed = True
    return EdgeList(src, dst, values, num_vertices=n, id_base=1, directed=directed, source=path,
                    metadata={"rows": rows, "cols": cols, "field": field, "symmetry": symmetry})


def _read_dimacs_like(path, progress, kind):
    buf = read_bytes(path, progress)
    line, text, start = _first_data_line(buf, path, lambda t: t.startswith("c"), f"'p {kind}' line")
    fields = text.split()
    if len(fields) != 4 or fields[0] != "p" or fields[1] != kind:
        raise GraphFormatError(f"expected 'p {kind} n m', got {text.strip()!r}", path, line)
    n, m = _header_ints(" ".join(fields[2:]), (2, 2), path, line, f"'p {kind}' counts")
    dimacs = kind == "sp"
    ids, values, count = _scan(
        buf, path, start, line + 1, 2,
        _parse.VALUES_REQUIRED if dimacs else _parse.VALUES_NONE,
        prefix=ord("a") if dimacs else 0, comments=_C_COMMENT, max_lines=m,
    )
    if count != m:
        _count_mismatch(path, line, m, count, "arcs" if dimacs else "edges")
    _check_declared_range(buf, path, ids, n, start, line + 1, _C_COMMENT)
    return EdgeList(ids[0], ids[1], values, num_vertices=n, id_base=1, directed=dimacs, source=path)


def _check_declared_range(buf, path, ids, n, start, first_line, comments):
    bad = np.flatnonzero(((ids < 1) | (ids > n)).any(axis=0))
    if bad.size:
        index = int(bad[0])
        value = int(ids[0, index] if not 1 <= ids[0, index] <= n else ids[1, index])
        line = _data_line_number(buf, start, first_line, index, comments)
        raise GraphFormatError(f"vertex id {value} outside the declared range [1, {n}]", path, line)


def _data_line_number(buf, start, first_line, index, comments):
    """Line number of the ``index``-th non-blank, non-comment line from ``start``."""
    comment_bytes = set(comments.tolist())
    pos, line, seen = start, first_line, -1
    while pos < buf.shape[0]:
        newline = pos + int(np.argmax(buf[pos:] == 10))
        text = bytes(buf[pos:newline]).strip()
        if text and text[0] not in comment_bytes:
            seen += 1
            if seen == index:
                return line
        pos, line = newline + 1, line + 1
    return line


def read_dimacs(path, *, progress=None) -> EdgeList:
    """Read a 9th DIMACS shortest-path ``.gr`` file. Raises GraphFormatError."""
    return _read_dimacs_like(path, progress, "sp")


def read_pace(path, *, progress=None) -> EdgeList:
    """Read a PACE 2016 ``.gr`` file (``p tw n m``). Raises GraphFormatError."""
    return _read_dimacs_like(path, progress, "tw")


def read_metis(path, *, progress=None) -> EdgeList:
    """Read a METIS adjacency file (see module docstring). Raises GraphFormatError."""
    buf = read_bytes(path, progress)
    line, text, start = _first_data_line(buf, path, lambda t: t.startswith("%"), "header 'n m [fmt]'")
    header = _header_ints(text, (2, 4), path, line, "METIS header 'n m [fmt [ncon]]'")
    n, m = header[0], header[1]
    fmt = f"{header[2]:03d}" if len(header) > 2 else "000"
    if len(fmt) != 3 or any(ch not in "01" for ch in fmt):
        raise GraphFormatError(f"unknown METIS fmt {header[2]}", path, line)
    vertex_sizes, vertex_weights, edge_weights = (ch == "1" for ch in fmt)
    ncon = header[3] if len(header) > 3 else (1 if vertex_weights else 0)
    skip = int(vertex_sizes) + (ncon if vertex_weights else 0)
    src, dst, weights, count, status, error_line, lines_read = run_cpu_kernel(
        _parse.scan_adjacency, buf, start, line + 1, n, skip, edge_weights, 2 * m
    )
    if status == _parse.COUNT_MISMATCH:
        raise GraphFormatError(f"more neighbour entries than 2 * m = {2 * m:,} (header m = {m:,})", path, error_line)
    if status == _parse.TOO_MANY_LINES:
        raise GraphFormatError(f"more adjacency lines than the {n:,} vertices the header declares", path, error_line)
    if status != _parse.OK:
        _parse.raise_scan_error(status, error_line, path)
    if lines_read < n:
        raise GraphFormatError(f"header declares {n:,} vertices but the file has {lines_read:,} adjacency lines", path, error_line)
    src, dst = src[:count] + 1, dst[:count]
    bad = np.flatnonzero((dst < 1) | (dst > n))
    if bad.size:
        raise GraphFormatError(f"neighbour {int(dst[bad[0]])} outside [1, {n}]", path, line + int(src[bad[0]]))
    if count != 2 * m:
        _count_mismatch(path, line, m, count // 2 if count % 2 == 0 else count / 2, "edges (each listed twice)")
    weights = weights[:count] if edge_weights else None
    once = src < dst
    if int(np.count_nonzero(once)) != m:
        raise GraphFormatError(
            f"adjacency is not symmetric: {int(np.count_nonzero(once)):,} of {count:,} entries have u < v, expected {m:,}",
            path, line,
        )
    return EdgeList(src[once], dst[once], None if weights is None else weights[once],
                    num_vertices=n, id_base=1, directed=False, source=path)


def _ldbc_paths(path):
    """Return ``(vertex_path, edge_path, properties_path or None)`` for an LDBC graph, or None."""
    base = strip_compression_suffix(path)
    stem, suffix = os.path.splitext(base)
    if suffix not in (".v", ".e"):
        stem = base
    found = {}
    for kind in ("v", "e"):
        for candidate in (f"{stem}.{kind}", f"{stem}.{kind}.gz", f"{stem}.{kind}.xz", f"{stem}.{kind}.bz2"):
            if os.path.exists(candidate):
                found[kind] = candidate
                break
    if "v" not in found and "e" not in found:
        return None
    properties = f"{stem}.properties"
    return found.get("v"), found.get("e"), properties if os.path.exists(properties) else None


def read_ldbc(path, *, progress=None) -> EdgeList:
    """Read an LDBC Graphalytics graph (``.v`` + ``.e`` [+ ``.properties``]).

    Raises
    ------
    GraphFileNotFoundError
        If the ``.v`` or ``.e`` file is missing.
    GraphFormatError
        If either file is malformed.
    """
    found = _ldbc_paths(path)
    if found is None or found[0] is None or found[1] is None:
        raise GraphFileNotFoundError(f"{path}: LDBC graphs need both NAME.v and NAME.e")
    vertex_path, edge_path, properties = found
    vbuf = read_bytes(vertex_path, progress)
    vertex_ids, _, vertex_count = _scan(vbuf, vertex_path, 0, 1, 1, _parse.VALUES_NONE, comments=_HASH_PERCENT)
    if vertex_count == 0:
        raise GraphFormatError("empty file: no vertices", vertex_path, 1)
    ebuf = read_bytes(edge_path, progress)
    ids, values, _ = _scan(ebuf, edge_path, 0, 1, 2, _parse.VALUES_OPTIONAL, comments=_HASH_PERCENT)
    directed = True
    if properties is not None:
        with open(properties, encoding="utf-8", errors="replace") as handle:
            match = re.search(r"\.directed\s*=\s*(true|false)", handle.read(), re.I)
        if match:
            directed = match.group(1).lower() == "true"
    return EdgeList(ids[0], ids[1], values, vertex_ids=vertex_ids[0], directed=directed, source=edge_path)


_READERS = {
    "edgelist": read_snap,
    "mtx": read_matrix_market,
    "dimacs": read_dimacs,
    "pace": read_pace,
    "metis": read_metis,
    "ldbc": read_ldbc,
}
