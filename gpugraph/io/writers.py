"""Writing graphs: text edge lists, Matrix Market, 9th DIMACS, and our binary ``.gg`` (via
:func:`save`).

Every writer is atomic (:mod:`gpugraph.io._atomic`): nothing appears at the output path unless the
whole file was written. A path ending in ``.gz`` (or ``.bz2``, ``.xz``) is compressed; the readers
recognise all three. Text is formatted in pieces of ``config.WRITE_PIECE_ROWS`` rows by parallel
Numba kernels, while the previous piece is compressed and written on another thread; writes
longer than a second show a progress bar when stderr is a terminal.

Edges and ids
    A directed graph writes each stored edge; an undirected graph writes each edge once (as
    ``u <= v`` in internal ids), except DIMACS, which has no undirected graphs and gets both arcs
    (as the DIMACS road networks list them). Parallel edges are written as often as stored.
    Matrix Market and DIMACS are 1-based and write internal id + 1; the edge list writes original
    ids by default. Vertices without edges survive only in Matrix Market and DIMACS, whose
    headers declare the vertex count.
Numbers
    Integer weights are written in decimal. A floating-point weight is written as decimal text
    that any correct parser reads back as exactly that value in its own precision (float32
    weights also when parsed as float64 and rounded): fixed point with the fewest decimals that
    do (``3.0``, ``0.1``, ``0.14415961271963373``; found by Numba kernels, proofs in
    ``_fixed_point``), or NumPy's shortest ``repr`` for values far from 1 (``1e-300``), ``inf``,
    ``nan`` and ``-0.0``.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from gpugraph import config
from gpugraph.backend import to_numpy
from gpugraph.errors import InvalidParameterError, UnknownFormatError
from gpugraph.graph.graph import Graph
from gpugraph.io._atomic import atomic_output, compression_for
from gpugraph.io.binary import BINARY_SUFFIX, save_binary
from gpugraph.progress import Progress

#: Formats :func:`save` writes (reader names, plus ``"binary"`` for ``.gg``).
WRITE_FORMATS = ("binary", "edgelist", "mtx", "dimacs")
_SUFFIX_FORMATS = {
    BINARY_SUFFIX: "binary",
    ".bin": "binary",  # the spelling the Graph500-style docs and our issue use
    ".mtx": "mtx",
    ".gr": "dimacs",
    ".txt": "edgelist",
    ".el": "edgelist",
    ".tsv": "edgelist",
    ".edges": "edgelist",
}
# What follows the ids on a line.
_NO_VALUE, _INTEGER_VALUE, _FLOAT_VALUE = 0, 1, 2
_INT64_MAX = np.iinfo(np.int64).max
_NEWLINE, _MINUS, _ZERO, _DOT = 10, 45, 48, 46


def save(graph: Graph, path, format: str | None = None) -> None:
    """Write ``graph`` to ``path``, in the format its suffix names unless ``format`` is given.

    Parameters
    ----------
    graph:
        The graph, on any device.
    path:
        Output file: ``.gg`` (binary, :func:`gpugraph.io.binary.save_binary`), ``.mtx`` (Matrix
        Market), ``.gr`` (DIMACS), ``.txt`` / ``.el`` / ``.tsv`` / ``.edges`` (edge list). Text
        formats may add ``.gz``, ``.bz2`` or ``.xz``.
    format:
        One of :data:`WRITE_FORMATS` to override the suffix.

    Raises
    ------
    UnknownFormatError
        If the suffix names no format (and none is given), or ``format`` is unknown.
    InvalidParameterError
        If the format cannot hold the graph (DIMACS needs integer weights) or a binary file is
        to be compressed.
    """
    path = os.fspath(path)
    compression = compression_for(path)
    stem = path[: -len(os.path.splitext(path)[1])] if compression else path
    if format is None:
        suffix = os.path.splitext(stem)[1].lower()
        format = _SUFFIX_FORMATS.get(suffix)
        if format is None:
            raise UnknownFormatError(
                f"cannot tell the output format from the suffix {suffix or '(none)'!r}: use one of "
                f"{', '.join(_SUFFIX_FORMATS)} (text formats may add .gz, .bz2 or .xz), or pass format=",
                path,
            )
    if format not in WRITE_FORMATS:
        raise UnknownFormatError(f"unknown output format {format!r}: choose one of {', '.join(WRITE_FORMATS)}", path)
    if format == "binary":
        if compression:
            raise InvalidParameterError(
                f"{path}: the binary {BINARY_SUFFIX} format is not compressed (it is memory-mapped "
                f"and checksummed); write {stem} instead"
            )
        save_binary(graph, path)
    elif format == "edgelist":
        write_edge_list(graph, path)
    elif format == "mtx":
        write_matrix_market(graph, path)
    else:
        write_dimacs(graph, path)


def write_edge_list(graph: Graph, path, original_ids: bool = True, weights: bool = True) -> None:
    """Write a SNAP-style edge list: ``#`` header lines, then ``u<TAB>v[<TAB>w]`` per edge.

    Columns are tab-separated. The header says the direction, the name, ``Nodes: n Edges: m``
    (``m`` = lines that follow) and the columns, as SNAP files do. :func:`gpugraph.load` reads the file back (as a directed
    graph unless ``directed=False`` is passed, since edge lists do not carry a direction).

    Parameters
    ----------
    graph:
        The graph, on any device.
    path:
        Output file (``.gz`` / ``.bz2`` / ``.xz`` compress).
    original_ids:
        Write the input's original ids (default); ``False`` writes internal ids ``0..n-1``.
    weights:
        Write the weight column when the graph has weights.

    Raises
    ------
    OSError
        If the file cannot be written.
    """
    src, dst, values = _edges(graph, each_edge_once=not graph.directed)
    if original_ids:
        src, dst = graph.to_original(src), graph.to_original(dst)
    values = values if weights else None
    if graph.directed:
        kind = "Directed graph"
    else:
        kind = "Undirected graph (each edge listed once)"
    columns = "FromNodeId\tToNodeId" + ("\tWeight" if values is not None else "")
    header = (
        f"# {kind}: {_one_line(graph.name)}\n"
        f"# Nodes: {graph.num_vertices} Edges: {src.size}\n"
        f"# {columns}\n"
    )
    _write_table(path, header, (src, dst), values)


def write_matrix_market(graph: Graph, path) -> None:
    """Write a Matrix Market coordinate file (1-based: internal id + 1).

    ``general`` for a directed graph (entry ``(i, j)`` is the edge i -> j); ``symmetric`` for an
    undirected one, each edge once in the lower triangle (``i >= j``). Field ``pattern`` without
    weights, ``integer`` for integer weights, ``real`` for floating-point ones. The matrix is
    ``n x n``, so vertices without edges are kept; original ids are not (see
    :func:`write_edge_list`). Columns are separated by one space.

    Raises
    ------
    OSError
        If the file cannot be written.
    """
    src, dst, values = _edges(graph, each_edge_once=not graph.directed)
    if values is None:
        field = "pattern"
    else:
        field = "integer" if values.dtype.kind in "iu" else "real"
    symmetry = "general" if graph.directed else "symmetric"
    if not graph.directed:
        src, dst = dst, src  # stored as u <= v; symmetric files keep the lower triangle
    n = graph.num_vertices
    header = (
        f"%%MatrixMarket matrix coordinate {field} {symmetry}\n"
        f"% written by gpugraph: {_one_line(graph.name)}\n"
        f"{n} {n} {src.size}\n"
    )
    _write_table(path, header, (src + 1, dst + 1), values, separator=b" ")


def write_dimacs(graph: Graph, path) -> None:
    """Write a 9th DIMACS shortest-path file: ``p sp n m`` and one ``a u v w`` line per arc.

    DIMACS graphs are directed and 1-based (internal id + 1); an undirected graph is written as
    both arcs of every edge (a self-loop once), so ``m`` is ``graph.num_arcs``.

    Raises
    ------
    InvalidParameterError
        If the graph has no weights or non-integer weights (the format's are integers).
    OSError
        If the file cannot be written.
    """
    if graph.weights is None or graph.weights.dtype.kind not in "iu":
        found = "no weights" if graph.weights is None else f"{graph.weights.dtype} weights"
        raise InvalidParameterError(
            f"{os.fspath(path)}: DIMACS .gr files need integer edge weights, the graph has {found}; "
            f"write an edge list (.txt) or Matrix Market (.mtx) instead"
        )
    src, dst, values = _edges(graph, each_edge_once=False)
    header = f"c written by gpugraph: {_one_line(graph.name)}\np sp {graph.num_vertices} {src.size}\n"
    _write_table(path, header, (src + 1, dst + 1), values, prefix=b"a ", separator=b" ")


# --- internals -----------------------------------------------------------------------------------
def _edges(graph: Graph, each_edge_once: bool):
    """``(src, dst, weights)`` host arrays of the stored arcs in CSR order; with
    ``each_edge_once`` only those with ``src <= dst`` (one per undirected edge)."""
    src, dst, weights = graph.edges()
    src, dst = to_numpy(src), to_numpy(dst)
    weights = None if weights is None else to_numpy(weights)
    if each_edge_once:
        once = src <= dst
        src, dst = src[once], dst[once]
        weights = None if weights is None else weights[once]
    return src, dst, weights


def _one_line(name: str | None) -> str:
    return " ".join((name or "unnamed").split())


def _write_table(path, header: str, id_columns, values, prefix: bytes = b"", separator: bytes = b"\t") -> None:
    """Write ``header`` then one line per row: ``prefix``, the id columns and the value column
    (if any), joined by ``separator``. Pieces are formatted on this thread and written on
    another."""
    rows = id_columns[0].size
    prefix_bytes = np.frombuffer(prefix, dtype=np.uint8)
    with (
        atomic_output(path) as handle,
        ThreadPoolExecutor(max_workers=1) as writer,
        Progress(f"writing {os.fspath(path)}", total=rows, unit=" lines") as bar,
    ):
        pending = writer.submit(handle.write, header.encode("utf-8"))
        for start in range(0, rows, config.WRITE_PIECE_ROWS):
            stop = min(rows, start + config.WRITE_PIECE_ROWS)
            ids = np.stack([column[start:stop].astype(np.int64, copy=False) for column in id_columns])
            column = _ValueColumn.of(None if values is None else values[start:stop])
            lengths = _row_lengths(ids, prefix_bytes.size, *column.kernel_arguments())
            ends = np.cumsum(lengths)
            out = np.empty(int(ends[-1]), dtype=np.uint8)
            _fill_rows(ids, prefix_bytes, separator[0], ends - lengths, out, *column.kernel_arguments())
            pending.result()  # one piece in flight bounds the memory held
            bar.update(start - bar.done)
            pending = writer.submit(handle.write, out)
        pending.result()
        bar.update(rows - bar.done)


class _ValueColumn:
    """The value column of a piece, encoded for the formatting kernels.

    ``kind`` is ``_NO_VALUE``, ``_INTEGER_VALUE`` (``numbers`` are the values) or
    ``_FLOAT_VALUE``: row ``i`` is then ``numbers[i] / 10^decimals[i]`` written in fixed point
    with ``decimals[i]`` digits after the point (at least one), or, where ``decimals[i] < 0``,
    the NUL-padded text in ``text[-1 - decimals[i]]``.
    """

    def __init__(self, kind: int, numbers: np.ndarray, decimals: np.ndarray, text: np.ndarray):
        self.kind, self.numbers, self.decimals, self.text = kind, numbers, decimals, text

    def kernel_arguments(self) -> tuple:
        return self.kind, self.numbers, self.decimals, self.text

    @classmethod
    def of(cls, values: np.ndarray | None) -> "_ValueColumn":
        nothing = np.zeros(0, dtype=np.int64)
        no_text = np.zeros((0, 0), dtype=np.uint8)
        if values is None:
            return cls(_NO_VALUE, nothing, nothing, no_text)
        past_int64 = values.dtype == np.uint64 and values.size and int(values.max()) > _INT64_MAX
        if values.dtype.kind in "iu" and not past_int64:
            return cls(_INTEGER_VALUE, values.astype(np.int64, copy=False), nothing, no_text)
        numbers = np.zeros(values.size, dtype=np.int64)
        decimals = np.full(values.size, -1, dtype=np.int64)
        if values.dtype in _FIXED_POINT_LIMITS:
            _fixed_point(values, *_FIXED_POINT_LIMITS[values.dtype], numbers, decimals)
        by_text = np.flatnonzero(decimals < 0)
        if not by_text.size:
            return cls(_FLOAT_VALUE, numbers, decimals, no_text)
        # The rest (huge, tiny, inf, nan, -0.0, float16, uint64 past int64): NumPy's cast to
        # bytes writes the shortest repr in the value's own precision (about 1 us a value).
        text = values[by_text].astype(f"S{_TEXT_BYTES}").view(np.uint8).reshape(-1, _TEXT_BYTES)
        decimals[by_text] = -1 - np.arange(by_text.size)
        return cls(_FLOAT_VALUE, numbers, decimals, text)


#: dtype -> (mantissa limit, most decimals, wide) of the fixed-point path; see ``_fixed_point``.
_FIXED_POINT_LIMITS = {np.dtype(np.float64): (2**53, 22, True), np.dtype(np.float32): (2**40, 10, False)}
#: Longest text of a value the fixed-point path leaves to NumPy: ``-2.2250738585072014e-308``
#: (float64 repr), or a uint64 (20 digits).
_TEXT_BYTES = 24
#: 10^0 .. 10^22, each exact in float64 (5^22 < 2^53).
_POWERS_OF_TEN = np.array([float(10**k) for k in range(23)])
#: Wide candidates use 10^d with 5^d < 2^45, so that the residue below is exact.
_WIDE_MAX_DECIMALS = 19
#: A double-double product stays below this: 17 significant digits always suffice to round-trip.
_WIDE_MANTISSA_LIMIT = 1e17
#: Veltkamp's splitting constant 2^27 + 1 (Dekker's exact product).
_SPLITTER = 134217729.0


@numba.njit(cache=True, nogil=True)
def _two_product(a, b):
    """Dekker: ``(p, e)`` with ``p = fl(a * b)`` and ``a * b = p + e`` exactly."""
    product = a * b
    a_big = _SPLITTER * a
    a_high = a_big - (a_big - a)
    a_low = a - a_high
    b_big = _SPLITTER * b
    b_high = b_big - (b_big - b)
    b_low = b - b_high
    return product, ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low


@numba.njit(cache=True, nogil=True)
def _wide_mantissa(magnitude, digits):
    """For ``2^53 <= magnitude * 10^digits < 10^17``: the integer ``m`` nearest the exact product
    if ``m / 10^digits`` reads back as ``magnitude`` (float64), else -1."""
    high, low = _two_product(magnitude, _POWERS_OF_TEN[digits])
    if high >= _WIDE_MANTISSA_LIMIT:
        return np.int64(-1)
    adjust = round(low)  # high is an integer (>= 2^53), so high + adjust is the nearest one
    residue = low - adjust  # exact: Sterbenz, or adjust = 0; = product - m
    fraction, exponent = math.frexp(magnitude)
    half_gap = math.ldexp(_POWERS_OF_TEN[digits], exponent - 54)  # half an ulp, in units of 10^-d
    if residue > 0 and fraction == 0.5:
        half_gap *= 0.5  # below a power of two the neighbour is twice as close
    if abs(residue) < half_gap:
        return np.int64(high) + np.int64(adjust)
    return np.int64(-1)


@numba.njit(cache=True, nogil=True, parallel=True)
def _fixed_point(values, mantissa_limit, max_decimals, wide, numbers, decimals):
    """For each value find the fewest decimals ``d`` such that ``m / 10^d`` reads back as the
    value (``m`` an integer); store ``m`` (signed) and ``d``, or leave ``decimals = -1`` when
    this path finds none (and for -0.0, inf and nan).

    Why the tests are exact. (1) ``m < 2^53``: ``m`` and ``10^d`` are exact doubles, so
    ``m / 10^d`` is the double nearest the decimal, which is what every correct parser returns.
    For float32 the extra rounding to float32 cannot differ from rounding straight to float32:
    with ``m < 2^40`` and ``d <= 10`` the decimal is at least 2^-40 (relative) away from any
    float32 rounding boundary it does not sit on, farther than the 2^-53 float64 rounding moves
    it. (2) ``wide`` (float64, ``2^53 <= m < 10^17``, ``d <= 19``): Dekker's exact product gives
    ``value * 10^d = m + residue`` exactly, and ``m / 10^d`` reads back as the value iff
    ``|residue|`` is below half the gap to the neighbouring double (scaled by ``10^d``).
    """
    for row in numba.prange(values.shape[0]):
        value = values[row]
        if not math.isfinite(value) or (value == 0 and math.copysign(1.0, value) < 0):
            continue
        magnitude = abs(np.float64(value))
        for digits in range(max_decimals + 1):
            scaled = magnitude * _POWERS_OF_TEN[digits]
            if scaled >= mantissa_limit:
                if not wide or digits > _WIDE_MAX_DECIMALS:
                    break
                mantissa = _wide_mantissa(magnitude, digits)
                if mantissa < 0:
                    if scaled >= _WIDE_MANTISSA_LIMIT:
                        break
                    continue
            else:
                rounded = np.float64(round(scaled))
                if values.dtype.type(rounded / _POWERS_OF_TEN[digits]) != abs(value):
                    continue
                mantissa = np.int64(rounded)
            numbers[row] = mantissa if value > 0 else -mantissa
            decimals[row] = digits
            break


@numba.njit(cache=True, nogil=True)
def _magnitude(value):
    """``|value|`` as uint64 (exact for the int64 minimum too)."""
    return np.uint64(-(value + 1)) + np.uint64(1) if value < 0 else np.uint64(value)


@numba.njit(cache=True, nogil=True)
def _digit_count(magnitude):
    count = 1
    while magnitude >= np.uint64(10):
        magnitude //= np.uint64(10)
        count += 1
    return count


@numba.njit(cache=True, nogil=True)
def _decimal_length(value):
    return _digit_count(_magnitude(value)) + (1 if value < 0 else 0)


@numba.njit(cache=True, nogil=True)
def _write_digits(out, position, magnitude, width):
    """Write ``magnitude`` as exactly ``width`` decimal digits (zero-padded) at ``position``."""
    for cursor in range(position + width - 1, position - 1, -1):
        out[cursor] = _ZERO + magnitude % np.uint64(10)
        magnitude //= np.uint64(10)
    return position + width


@numba.njit(cache=True, nogil=True)
def _write_decimal(out, position, value):
    """Write ``value`` in decimal at ``out[position:]``; return the position after it."""
    if value < 0:
        out[position] = _MINUS
        position += 1
    magnitude = _magnitude(value)
    return _write_digits(out, position, magnitude, _digit_count(magnitude))


@numba.njit(cache=True, nogil=True)
def _split_fixed_point(number, digits):
    """``(integer part, fraction)`` of ``|number| / 10^digits``."""
    magnitude = _magnitude(number)
    if digits >= 19:  # 10^digits exceeds every magnitude below 2^53
        return np.uint64(0), magnitude
    scale = np.uint64(10) ** np.uint64(digits)
    return magnitude // scale, magnitude % scale


@numba.njit(cache=True, nogil=True)
def _text_length(text, line):
    length = 0
    while length < text.shape[1] and text[line, length] != 0:
        length += 1
    return length


@numba.njit(cache=True, nogil=True)
def _value_length(kind, numbers, decimals, text, row):
    if kind == _INTEGER_VALUE:
        return _decimal_length(numbers[row])
    if decimals[row] < 0:
        return _text_length(text, -1 - decimals[row])
    whole, _ = _split_fixed_point(numbers[row], decimals[row])
    return (1 if numbers[row] < 0 else 0) + _digit_count(whole) + 1 + max(decimals[row], 1)


@numba.njit(cache=True, nogil=True)
def _write_value(out, position, kind, numbers, decimals, text, row):
    if kind == _INTEGER_VALUE:
        return _write_decimal(out, position, numbers[row])
    if decimals[row] < 0:
        line = -1 - decimals[row]
        length = _text_length(text, line)
        for k in range(length):
            out[position + k] = text[line, k]
        return position + length
    if numbers[row] < 0:
        out[position] = _MINUS
        position += 1
    whole, fraction = _split_fixed_point(numbers[row], decimals[row])
    position = _write_digits(out, position, whole, _digit_count(whole))
    out[position] = _DOT
    return _write_digits(out, position + 1, fraction, max(decimals[row], 1))


@numba.njit(cache=True, nogil=True, parallel=True)
def _row_lengths(ids, prefix_length, kind, numbers, decimals, text):
    """Bytes of each formatted row, newline included."""
    columns, rows = ids.shape
    lengths = np.empty(rows, dtype=np.int64)
    for row in numba.prange(rows):
        length = prefix_length + columns  # the separators between columns, and the newline
        for column in range(columns):
            length += _decimal_length(ids[column, row])
        if kind != _NO_VALUE:
            length += 1 + _value_length(kind, numbers, decimals, text, row)
        lengths[row] = length
    return lengths


@numba.njit(cache=True, nogil=True, parallel=True)
def _fill_rows(ids, prefix, separator, starts, out, kind, numbers, decimals, text):
    """Write every row at ``out[starts[row]:]``: prefix, ids and value joined by ``separator``,
    newline."""
    columns, rows = ids.shape
    for row in numba.prange(rows):
        position = starts[row]
        for k in range(prefix.shape[0]):
            out[position + k] = prefix[k]
        position += prefix.shape[0]
        for column in range(columns):
            if column:
                out[position] = separator
                position += 1
            position = _write_decimal(out, position, ids[column, row])
        if kind != _NO_VALUE:
            out[position] = separator
            position = _write_value(out, position + 1, kind, numbers, decimals, text, row)
        out[position] = _NEWLINE
