"""Writers: our binary ``.gg`` format and the text formats (edge list, Matrix Market, DIMACS).

Every writer is atomic (a temporary file renamed on success) and writes an undirected graph's
edges once each. Text files ending in ``.gz`` are gzip-compressed.
"""

from __future__ import annotations

import os

import numba
import numpy as np

from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import run_cpu_kernel
from gpugraph.errors import InvalidParameterError, UnknownFormatError
from gpugraph.graph.graph import Graph
from gpugraph.io._atomic import atomic_output
from gpugraph.io._open import strip_compression_suffix
from gpugraph.io.binary import BINARY_SUFFIX, save_binary

#: Rows formatted per chunk: bounds the temporary text buffer to a few hundred MB.
_ROWS_PER_CHUNK = 1 << 22
_SUFFIX_FORMATS = {
    BINARY_SUFFIX: "binary",
    ".mtx": "mtx",
    ".gr": "dimacs",
    ".txt": "edgelist",
    ".el": "edgelist",
    ".edges": "edgelist",
    ".tsv": "edgelist",
}
WRITE_FORMATS = ("binary", "edgelist", "mtx", "dimacs")


def save(graph: Graph, path, format: str | None = None) -> None:
    """Write ``graph`` to ``path`` in ``format`` (default: from the suffix).

    Parameters
    ----------
    graph:
        Graph on any device.
    path:
        Output path; ``.gg`` binary, ``.mtx``, ``.gr`` (DIMACS), ``.txt``/``.el``/``.edges``/``.tsv``
        edge list; text formats may add ``.gz``.
    format:
        One of :data:`WRITE_FORMATS` to override the suffix.

    Raises
    ------
    UnknownFormatError
        If the format cannot be told from the suffix or is unknown.
    InvalidParameterError
        If the format cannot hold this graph (DIMACS needs weights).
    """
    path = os.fspath(path)
    if format is None:
        suffix = os.path.splitext(strip_compression_suffix(path))[1].lower()
        format = _SUFFIX_FORMATS.get(suffix)
        if format is None:
            raise UnknownFormatError(
                f"cannot tell the output format from the suffix {suffix!r}; use one of "
                f"{', '.join(sorted(_SUFFIX_FORMATS))}",
                path,
            )
    if format == "binary":
        save_binary(graph, path)
    elif format == "edgelist":
        write_edge_list(graph, path)
    elif format == "mtx":
        write_matrix_market(graph, path)
    elif format == "dimacs":
        write_dimacs(graph, path)
    else:
        raise UnknownFormatError(f"unknown output format {format!r}; choose one of {', '.join(WRITE_FORMATS)}", path)


def _stored_edges(graph: Graph):
    """(src, dst, weights) on the host, each undirected edge once (as u <= v)."""
    src, dst, weights = (None if a is None else to_numpy(a) for a in graph.edges())
    if not graph.directed:
        once = src <= dst
        src, dst = src[once], dst[once]
        weights = None if weights is None else weights[once]
    return src, dst, weights


def write_edge_list(graph: Graph, path, original_ids: bool = True, weights: bool = True) -> None:
    """Write a tab-separated edge list ``u v [w]`` with a ``#`` header.

    Parameters
    ----------
    graph:
        The graph.
    path:
        Output path (``.gz`` compresses).
    original_ids:
        Write the input's original ids (default) rather than internal ids.
    weights:
        Write the weight column when the graph has weights.
    """
    src, dst, values = _stored_edges(graph)
    if original_ids:
        src, dst = graph.to_original(src), graph.to_original(dst)
    kind = "directed" if graph.directed else "undirected"
    header = f"# gpugraph edge list: {kind}, {graph.num_vertices} vertices, {src.size} edges\n"
    _write_rows(path, header, [src, dst], values if weights else None)


def write_matrix_market(graph: Graph, path) -> None:
    """Write Matrix Market coordinate (``general`` if directed, ``symmetric`` otherwise; 1-based)."""
    src, dst, values = _stored_edges(graph)
    field = "pattern" if values is None else ("integer" if values.dtype.kind in "iu" else "real")
    symmetry = "general" if graph.directed else "symmetric"
    n = graph.num_vertices
    if not graph.directed:  # symmetric files store the lower triangle
        src, dst = dst, src
    header = f"%%MatrixMarket matrix coordinate {field} {symmetry}\n{n} {n} {src.size}\n"
    _write_rows(path, header, [src + 1, dst + 1], values)


def write_dimacs(graph: Graph, path) -> None:
    """Write a 9th DIMACS shortest-path file (``p sp``, ``a u v w``; needs integer weights).

    Raises
    ------
    InvalidParameterError
        If the graph has no weights or non-integer weights.
    """
    if graph.weights is None or to_numpy(graph.weights[:0]).dtype.kind not in "iu":
        raise InvalidParameterError("DIMACS .gr files need integer edge weights")
    src, dst, values = (to_numpy(a) for a in graph.edges())  # arcs: both directions if undirected
    header = f"p sp {graph.num_vertices} {src.size}\n"
    _write_rows(path, header, [src + 1, dst + 1], values, prefix=b"a ")


def _write_rows(path, header: str, id_columns, values, prefix: bytes = b"") -> None:
    rows = id_columns[0].size
    integral = values is None or values.dtype.kind in "iub"
    with atomic_output(path, "wb") as handle:
        handle.write(header.encode())
        for start in range(0, rows, _ROWS_PER_CHUNK):
            stop = min(rows, start + _ROWS_PER_CHUNK)
            columns = [column[start:stop].astype(np.int64, copy=False) for column in id_columns]
            if integral:
                if values is not None:
                    columns.append(values[start:stop].astype(np.int64, copy=False))
                table = np.ascontiguousarray(np.stack(columns))
                handle.write(run_cpu_kernel(_format_int_rows, table, np.frombuffer(prefix, np.uint8)).tobytes())
            else:
                chunk = values[start:stop]
                lead, tab = prefix.decode(), "\t"
                text = "".join(
                    lead + tab.join(map(str, ids)) + tab + repr(value) + "\n"
                    for *ids, value in zip(*(column.tolist() for column in columns), chunk.tolist())
                )
                handle.write(text.encode())


@numba.njit(cache=True, nogil=True)
def _format_int_rows(table, prefix):
    """Format a (columns, rows) int64 table as tab-separated lines of decimal text."""
    columns, rows = table.shape
    out = np.empty(rows * (columns * 21 + prefix.shape[0]) + 1, dtype=np.uint8)
    digits = np.empty(20, dtype=np.uint8)
    pos = 0
    for row in range(rows):
        for k in range(prefix.shape[0]):
            out[pos] = prefix[k]
            pos += 1
        for column in range(columns):
            value = table[column, row]
            if value < 0:
                out[pos] = 45
                pos += 1
                value = -value
            count = 0
            while True:
                digits[count] = 48 + value % 10
                count += 1
                value //= 10
                if value == 0:
                    break
            for k in range(count - 1, -1, -1):
                out[pos] = digits[k]
                pos += 1
            out[pos] = 9 if column < columns - 1 else 10
            pos += 1
    return out[:pos]
