"""Scanners that turn lines of text into edge arrays, and the parallel driver around them.

Private to :mod:`gpugraph.io.readers`. A file body is cut into pieces of whole lines
(:meth:`TextSource.pieces`); each piece is parsed by a Numba kernel that releases the GIL, so
pieces run on all cores from a thread pool while the main thread reads (and decompresses) the next
one. A kernel walks its bytes once, writes numbers straight into preallocated arrays, and stops
at the first problem with a status code, the byte offset and the line within the piece; the
driver turns that into an exception naming the file and 1-based line.

Two kernels cover every format: :func:`scan_records` for one-record-per-line formats (edge lists,
Matrix Market, DIMACS, PACE, LDBC) described by a :class:`RecordLayout`, and
:func:`scan_adjacency` for METIS adjacency lists, where line ``i`` is vertex ``i``.
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np

from gpugraph import config
from gpugraph.errors import FileVertexIdError, GraphFormatError
from gpugraph.io._numbers import FLOAT_SLOW, NUMBER_BAD, NUMBER_OK, NUMBER_OVERFLOW, scan_float, scan_int
from gpugraph.io._open import TextSource
from gpugraph.progress import Progress

INT64_MAX = 2**63 - 1

# Value column kinds.
VALUES_NONE, VALUES_INT, VALUES_FLOAT = 0, 1, 2

# Kernel status codes (NUMBER_BAD and NUMBER_OVERFLOW come from the number scanners).
OK = NUMBER_OK
TOO_FEW = 10
TOO_MANY = 11
ID_RANGE = 12
BAD_LINE_TYPE = 13
EMPTY_FIELD = 14
SLOW_BATCH_FULL = 15
EXTRA_LINE = 16
OUTPUT_FULL = 17

# Slots of the int64 state array a kernel reads its starting point from and writes results to.
_POS, _END, _LINE, _COUNT, _STATUS, _ERROR_POS, _ERROR_COLUMN, _SLOW = range(8)
_VERTEX, _BELOW, _ABOVE, _LOOPS, _LIMIT = range(8, 13)
_STATE_SIZE = 13

# Slots of the int64 grammar array of scan_records.
_TAG, _COMMENT_A, _COMMENT_B, _ID_COLUMNS, _VALUES, _COMMAS, _STORE_VALUES, _ID_RANGES = range(8)
# Slots of the int64 layout array of scan_adjacency.
_NUM_VERTICES, _SKIP_TOKENS, _EDGE_WEIGHTS = range(3)

#: Values the fast float path cannot round exactly are collected in batches of this many and
#: re-parsed by Python's float; a batch bounds the side array, whatever the file holds.
_SLOW_BATCH = 4096

_NEWLINE, _SPACE, _TAB, _CR, _COMMA, _PERCENT = 10, 32, 9, 13, 44, 37


# --- kernels -------------------------------------------------------------------------------------
# The blank test is spelled out in each helper: a call to a shared helper from inside these
# (two levels deep) is not inlined by LLVM and costs a third of the scanning speed.
@numba.njit(cache=True, nogil=True)
def _skip_blanks(buf, pos):
    while buf[pos] == _SPACE or buf[pos] == _TAB or buf[pos] == _CR:
        pos += 1
    return pos


@numba.njit(cache=True, nogil=True)
def _ends_token(byte, commas) -> bool:
    return byte == _SPACE or byte == _TAB or byte == _CR or byte == _NEWLINE or (commas and byte == _COMMA)


@numba.njit(cache=True, nogil=True)
def _skip_separator(buf, pos, commas):
    """Skip blanks and at most one comma; returns ``(pos, ok)``, not ok for an empty field."""
    pos = _skip_blanks(buf, pos)
    if commas and buf[pos] == _COMMA:
        pos = _skip_blanks(buf, pos + 1)
        if buf[pos] == _NEWLINE or buf[pos] == _COMMA:
            return pos, False
    return pos, True


@numba.njit(cache=True, nogil=True)
def _next_line(buf, pos):
    while buf[pos] != _NEWLINE:
        pos += 1
    return pos + 1


@numba.njit(cache=True, nogil=True)
def scan_records(buf, state, grammar, ids, int_values, float_values, slow):
    """Parse one-record-per-line text from ``state[_POS]`` up to ``state[_END]``.

    Parameters
    ----------
    buf:
        uint8 bytes ending with a newline.
    state:
        int64 array: position, end, line (newlines passed), index of the next record and the
        index it must stay below; on return also status, error position and column, and the
        number of ``slow`` rows filled.
    grammar:
        int64 array encoded by :meth:`RecordLayout.encode`.
    ids:
        ``(id_columns, capacity)`` int64 output; ``int_values`` / ``float_values`` receive the
        value column (length 0 when not stored).
    slow:
        ``(k, 3)`` int64: (record, token start, token end) of values to re-parse. When full the
        kernel returns ``SLOW_BATCH_FULL`` after a complete record, ready to be called again.
    """
    pos, end, line, count, limit = state[_POS], state[_END], state[_LINE], state[_COUNT], state[_LIMIT]
    tag, comment_a, comment_b = grammar[_TAG], grammar[_COMMENT_A], grammar[_COMMENT_B]
    id_columns, value_kind = grammar[_ID_COLUMNS], grammar[_VALUES]
    commas, store = grammar[_COMMAS] != 0, grammar[_STORE_VALUES] != 0
    status, error_pos, error_column, slow_count = OK, 0, 0, 0
    while pos < end:
        pos = _skip_blanks(buf, pos)
        byte = buf[pos]
        if byte == _NEWLINE:
            pos += 1
            line += 1
            continue
        if byte == comment_a or byte == comment_b:
            pos = _next_line(buf, pos)
            line += 1
            continue
        if count == limit:  # the outputs are sized by record_bound: never write past them
            status, error_pos = OUTPUT_FULL, pos
            break
        line_start = pos
        if tag >= 0:
            if byte != tag or not _ends_token(buf[pos + 1], False):
                status, error_pos = BAD_LINE_TYPE, pos
                break
            pos = _skip_blanks(buf, pos + 1)
        for column in range(id_columns):
            if buf[pos] == _NEWLINE:
                status, error_pos, error_column = TOO_FEW, line_start, column
                break
            token = pos
            value, pos, number_status = scan_int(buf, pos)
            if number_status == OK and not _ends_token(buf[pos], commas):
                number_status = NUMBER_BAD
            if number_status != OK:
                status, error_pos, error_column = number_status, token, column
                break
            if value < grammar[_ID_RANGES + 2 * column] or value > grammar[_ID_RANGES + 2 * column + 1]:
                status, error_pos, error_column = ID_RANGE, token, column
                break
            ids[column, count] = value
            pos, separated = _skip_separator(buf, pos, commas)
            if not separated:
                status, error_pos, error_column = EMPTY_FIELD, pos, column + 1
                break
        if status != OK:
            break
        if value_kind != VALUES_NONE:
            if buf[pos] == _NEWLINE:
                status, error_pos, error_column = TOO_FEW, line_start, id_columns
                break
            token = pos
            if value_kind == VALUES_INT:
                integer, pos, number_status = scan_int(buf, pos)
                if store:
                    int_values[count] = integer
            else:
                real, pos, number_status = scan_float(buf, pos)
                if number_status == FLOAT_SLOW and _ends_token(buf[pos], commas):
                    number_status = OK
                    if store:
                        slow[slow_count, 0], slow[slow_count, 1], slow[slow_count, 2] = count, token, pos
                        slow_count += 1
                if store:
                    float_values[count] = real
            if number_status == OK and not _ends_token(buf[pos], commas):
                number_status = NUMBER_BAD
            if number_status != OK:
                status, error_pos, error_column = number_status, token, id_columns
                break
            pos, separated = _skip_separator(buf, pos, commas)
            if not separated:
                status, error_pos, error_column = EMPTY_FIELD, pos, id_columns + 1
                break
        if buf[pos] != _NEWLINE:
            status, error_pos = TOO_MANY, pos
            break
        count += 1
        pos += 1
        line += 1
        if slow_count == slow.shape[0]:
            status = SLOW_BATCH_FULL
            break
    state[_POS], state[_LINE], state[_COUNT], state[_STATUS] = pos, line, count, status
    state[_ERROR_POS], state[_ERROR_COLUMN], state[_SLOW] = error_pos, error_column, slow_count


@numba.njit(cache=True, nogil=True)
def record_bound(buf, comment_a, comment_b):
    """Upper bound on the records :func:`scan_records` will find in ``buf``: lines whose first
    byte is neither a newline nor a comment byte. Exact unless lines start with blanks.

    Written as one branch-free loop, which LLVM vectorises (about 6 GB/s), because it runs over
    the whole file before parsing.
    """
    first = buf[0]
    count = 1 if first != _NEWLINE and first != comment_a and first != comment_b else 0
    for pos in range(buf.shape[0] - 1):
        byte = buf[pos + 1]
        count += (buf[pos] == _NEWLINE) & (byte != _NEWLINE) & (byte != comment_a) & (byte != comment_b)
    return count


@numba.njit(cache=True, nogil=True)
def move_left(values, destination, source, count):
    """``values[destination:destination + count] = values[source:source + count]`` in place,
    for ``destination <= source`` (NumPy would copy an overlapping source first)."""
    for offset in range(count):
        values[destination + offset] = values[source + offset]


@numba.njit(cache=True, nogil=True)
def count_adjacency_lines(buf):
    """Number of lines of ``buf`` that are not ``%`` comments (each is one METIS vertex)."""
    lines = 0
    pos = 0
    while pos < buf.shape[0]:
        pos = _skip_blanks(buf, pos)
        if buf[pos] != _PERCENT:
            lines += 1
        pos = _next_line(buf, pos)
    return lines


@numba.njit(cache=True, nogil=True)
def scan_adjacency(buf, state, layout, src, dst, weights):
    """Parse METIS adjacency lines; line ``i`` (comments aside) lists the neighbours of vertex ``i``.

    ``state[_VERTEX]`` is the number of vertex lines before ``buf``. Neighbour entries ``v`` of
    vertex ``u`` with ``u <= v`` are written (each undirected edge once); the kernel counts
    entries with ``u < v``, ``u > v`` and ``u == v`` so the caller can check them against the
    header. Blank lines after the last vertex are allowed; other extra lines are errors.
    """
    pos, end, line, count, vertex = state[_POS], state[_END], state[_LINE], state[_COUNT], state[_VERTEX]
    limit = state[_LIMIT]
    num_vertices, skip_tokens = layout[_NUM_VERTICES], layout[_SKIP_TOKENS]
    edge_weights = layout[_EDGE_WEIGHTS] != 0
    below, above, loops = state[_BELOW], state[_ABOVE], state[_LOOPS]
    status, error_pos, error_column = OK, 0, 0
    while pos < end:
        pos = _skip_blanks(buf, pos)
        if buf[pos] == _PERCENT:
            pos = _next_line(buf, pos)
            line += 1
            continue
        vertex += 1
        if vertex > num_vertices and buf[pos] != _NEWLINE:
            status, error_pos = EXTRA_LINE, pos
            break
        column = 0
        while buf[pos] != _NEWLINE:
            token = pos
            value, pos, number_status = scan_int(buf, pos)
            if number_status == OK and not _ends_token(buf[pos], False):
                number_status = NUMBER_BAD
            if number_status != OK:
                status, error_pos, error_column = number_status, token, column
                break
            pos = _skip_blanks(buf, pos)
            column += 1
            if column <= skip_tokens:
                continue
            if value < 1 or value > num_vertices:
                status, error_pos, error_column = ID_RANGE, token, column - 1
                break
            weight = 0
            if edge_weights:
                if buf[pos] == _NEWLINE:
                    status, error_pos, error_column = TOO_FEW, token, column
                    break
                token = pos
                weight, pos, number_status = scan_int(buf, pos)
                if number_status == OK and not _ends_token(buf[pos], False):
                    number_status = NUMBER_BAD
                if number_status != OK:
                    status, error_pos, error_column = number_status, token, column
                    break
                pos = _skip_blanks(buf, pos)
                column += 1
            if vertex > value:
                above += 1
                continue
            if vertex == value:
                loops += 1
            else:
                below += 1
            if count == limit:  # cannot happen (the caller's capacity bound), but never write past it
                status, error_pos = OUTPUT_FULL, token
                break
            src[count], dst[count] = vertex, value
            if edge_weights:
                weights[count] = weight
            count += 1
        if status != OK:
            break
        if column < skip_tokens and vertex <= num_vertices:
            status, error_pos, error_column = TOO_FEW, pos, column
            break
        pos += 1
        line += 1
    state[_POS], state[_LINE], state[_COUNT], state[_VERTEX] = pos, line, count, vertex
    state[_STATUS], state[_ERROR_POS], state[_ERROR_COLUMN] = status, error_pos, error_column
    state[_BELOW], state[_ABOVE], state[_LOOPS] = below, above, loops


# --- what the kernels are asked to parse ---------------------------------------------------------
@dataclass(frozen=True)
class RecordLayout:
    """What a data line of a one-record-per-line format holds.

    Attributes
    ----------
    text:
        How a data line looks, for messages, e.g. ``"a u v w"``: an optional tag, then one name
        per column.
    id_columns:
        Leading integer columns (vertex ids): 2 for edges, 1 for vertex files.
    values:
        ``VALUES_NONE``, ``VALUES_INT`` or ``VALUES_FLOAT``: the column after the ids.
    tag:
        A one-byte token every data line starts with (``b"a"`` in DIMACS), or empty.
    comments:
        Up to two bytes that start a comment line (after optional blanks).
    id_ranges:
        Inclusive ``(low, high)`` of each id column.
    commas:
        Whether a comma (with optional blanks around it) also separates columns.
    store_values:
        ``False`` checks the value column but does not keep it.
    """

    text: str
    id_columns: int = 2
    values: int = VALUES_NONE
    tag: bytes = b""
    comments: bytes = b""
    id_ranges: tuple[tuple[int, int], ...] = ((0, INT64_MAX), (0, INT64_MAX))
    commas: bool = False
    store_values: bool = True

    def encode(self) -> np.ndarray:
        """The int64 grammar array :func:`scan_records` reads."""
        comments = list(self.comments) + [-1, -1]
        grammar = [self.tag[0] if self.tag else -1, comments[0], comments[1], self.id_columns,
                   self.values, int(self.commas), int(self.store_values)]
        for low, high in self.id_ranges[: self.id_columns]:
            grammar += [low, high]
        return np.array(grammar, dtype=np.int64)

    @property
    def column_names(self) -> list[str]:
        names = self.text.split()
        return names[1:] if self.tag else names


@dataclass
class Records:
    """What :func:`parse_records` returns: one int64 array per id column and the value column
    (``None`` when absent or not stored)."""

    ids: list[np.ndarray]
    values: np.ndarray | None


@dataclass
class Adjacency:
    """What :func:`parse_adjacency` returns: entries ``u <= v`` (1-based, as in the file), their
    weights, and counts of lines and of entries below, above and on the diagonal."""

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None
    vertex_lines: int
    below: int
    above: int
    loops: int


@dataclass
class _PieceError:
    status: int
    line: int  # newlines between the start of the piece and the bad line
    column: int
    token: str
    text: str


@dataclass
class _PieceResult:
    lines: int
    error: _PieceError | None
    count: int = 0  # records or entries written
    output: object = None  # what they were written into
    counters: tuple[int, ...] = ()


class _RecordOutput:
    """Arrays :func:`scan_records` writes into: ids ``(id_columns, size)`` and the value column."""

    def __init__(self, layout: RecordLayout, size: int):
        stored = layout.store_values
        self.ids = np.empty((layout.id_columns, size), dtype=np.int64)
        self.int_values = np.empty(size if stored and layout.values == VALUES_INT else 0, np.int64)
        self.float_values = np.empty(size if stored and layout.values == VALUES_FLOAT else 0, np.float64)
        self.values = self.int_values if layout.values == VALUES_INT else self.float_values


# --- drivers -------------------------------------------------------------------------------------
def parse_records(
    source: TextSource,
    layout: RecordLayout,
    *,
    start: int = 0,
    first_line: int = 1,
    progress: Progress | None = None,
) -> Records:
    """Parse the body of ``source`` from byte ``start`` (line ``first_line``) as records.

    Parameters
    ----------
    source:
        The file.
    layout:
        What a data line holds.
    start, first_line:
        Where the body starts (after a header the caller parsed) and that line's number.
    progress:
        Updated with the disk bytes of each finished piece.

    Returns
    -------
    Records

    Raises
    ------
    GraphFormatError
        Naming the file and line of the first malformed line.
    FileVertexIdError
        For an id outside ``layout.id_ranges``.
    """
    grammar = layout.encode()
    comments = int(grammar[_COMMENT_A]), int(grammar[_COMMENT_B])

    def make_error(error: _PieceError, line: int) -> GraphFormatError:
        return _record_error(error, layout, source.path, line)

    if source.compression is None:
        # Memory-mapped: bound every piece's records first (a fast pass over the page cache) so
        # that all pieces parse in place into one output, with no per-piece arrays and no final
        # concatenation; touching fresh memory is the dearest part of reading a large file.
        pieces = list(source.pieces(start))
        with ThreadPoolExecutor(max_workers=_threads(), thread_name_prefix="gpugraph-read") as pool:
            bounds = list(pool.map(lambda piece: int(record_bound(piece[0], *comments)), pieces))
        offsets = np.concatenate([[0], np.cumsum(bounds, dtype=np.int64)]).tolist()
        output = _RecordOutput(layout, offsets[-1])

        def scan_piece(index: int, piece: np.ndarray) -> _PieceResult:
            return _scan_record_piece(piece, grammar, output, offsets[index], offsets[index + 1])

        results = _run_in_order(iter(pieces), scan_piece, progress)
        _raise_first_error(results, first_line, make_error)
        blocks = [(offsets[index], result.count) for index, result in enumerate(results)]
        outputs = [(output, 0, _compact(output, blocks))]
    else:
        # A stream: each piece, as it is decompressed, is bounded and parsed into its own arrays.
        def scan_piece(index: int, piece: np.ndarray) -> _PieceResult:
            size = int(record_bound(piece, *comments))
            return _scan_record_piece(piece, grammar, _RecordOutput(layout, size), 0, size)

        results = _run_in_order(source.pieces(start), scan_piece, progress)
        _raise_first_error(results, first_line, make_error)
        outputs = [(result.output, 0, result.count) for result in results]
    columns = [
        _concatenate([out.ids[column, begin:end] for out, begin, end in outputs], np.int64)
        for column in range(layout.id_columns)
    ]
    values = None
    if layout.values != VALUES_NONE and layout.store_values:
        value_dtype = np.int64 if layout.values == VALUES_INT else np.float64
        values = _concatenate([out.values[begin:end] for out, begin, end in outputs], value_dtype)
    return Records(columns, values)


def parse_adjacency(
    source: TextSource,
    *,
    num_vertices: int,
    skip_tokens: int,
    edge_weights: bool,
    start: int = 0,
    first_line: int = 1,
    progress: Progress | None = None,
) -> Adjacency:
    """Parse METIS adjacency lines of ``source`` from byte ``start`` (line ``first_line``).

    Parameters
    ----------
    num_vertices:
        The header's vertex count (neighbours must lie in ``[1, num_vertices]``).
    skip_tokens:
        Values at the start of each line before the neighbours (vertex size and weights).
    edge_weights:
        Whether neighbours come as ``neighbour weight`` pairs.

    Returns
    -------
    Adjacency

    Raises
    ------
    GraphFormatError, FileVertexIdError
        Naming the file and line of the first malformed line.
    """
    # Vertex ids are line positions, so each piece needs the count of vertex lines before it:
    # a cheap counting pass while reading, then the parsing pass in parallel.
    pieces, vertex_starts, vertex_lines = [], [], 0
    for piece, disk_bytes in source.pieces(start):
        pieces.append(piece)
        vertex_starts.append(vertex_lines)
        vertex_lines += count_adjacency_lines(piece)
        if progress is not None:
            progress.update(disk_bytes)
    layout = np.array([num_vertices, skip_tokens, int(edge_weights)], dtype=np.int64)

    def scan_piece(index: int, piece: np.ndarray) -> _PieceResult:
        return _scan_adjacency_piece(piece, vertex_starts[index], layout)

    results = _run_in_order(((piece, 0) for piece in pieces), scan_piece, None)
    _raise_first_error(
        results, first_line,
        lambda error, line: _adjacency_error(error, num_vertices, skip_tokens, source.path, line),
    )
    below, above, loops = (sum(r.counters[k] for r in results) for k in range(3))
    return Adjacency(
        src=_concatenate([r.output[0] for r in results], np.int64),
        dst=_concatenate([r.output[1] for r in results], np.int64),
        weights=_concatenate([r.output[2] for r in results], np.int64) if edge_weights else None,
        vertex_lines=vertex_lines,
        below=below,
        above=above,
        loops=loops,
    )


def _raise_first_error(results: list[_PieceResult], first_line: int, make_error) -> None:
    """Raise ``make_error(error, line)`` for the first piece that failed, with the file's line."""
    line = first_line
    for result in results:
        if result.error is not None:
            raise make_error(result.error, line + result.error.line)
        line += result.lines


def _threads() -> int:
    return config.READ_THREADS or len(os.sched_getaffinity(0))


def _run_in_order(pieces, task, progress: Progress | None) -> list[_PieceResult]:
    """Run ``task(index, piece)`` on a thread pool; results in piece order, up to the first one
    with an error. At most one piece per thread (plus the one being read) is held at a time."""
    workers = _threads()
    results: list[_PieceResult] = []
    pending: deque = deque()

    def collect() -> bool:
        future, disk_bytes = pending.popleft()
        result = future.result()
        results.append(result)
        if progress is not None:
            progress.update(disk_bytes)
        return result.error is None

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="gpugraph-read") as pool:
        try:
            for index, (piece, disk_bytes) in enumerate(pieces):
                pending.append((pool.submit(task, index, piece), disk_bytes))
                if len(pending) > workers and not collect():
                    return results
            while pending:
                if not collect():
                    return results
        finally:
            for future, _ in pending:
                future.cancel()
    return results


def _scan_record_piece(
    piece: np.ndarray, grammar: np.ndarray, output: _RecordOutput, begin: int, end: int
) -> _PieceResult:
    """Parse ``piece`` into records ``[begin, end)`` of ``output``."""
    slow = np.empty((_SLOW_BATCH, 3), dtype=np.int64)
    state = np.zeros(_STATE_SIZE, dtype=np.int64)
    state[_END], state[_COUNT], state[_LIMIT] = piece.shape[0], begin, end
    while True:
        scan_records(piece, state, grammar, output.ids, output.int_values, output.float_values, slow)
        for record, token_start, token_end in slow[: state[_SLOW]].tolist():
            output.float_values[record] = float(piece[token_start:token_end].tobytes())
        if state[_STATUS] != SLOW_BATCH_FULL:
            break
    if state[_STATUS] == OUTPUT_FULL:
        raise RuntimeError("gpugraph bug: a piece holds more records than record_bound allowed for")
    return _PieceResult(int(state[_LINE]), _piece_error(piece, state), int(state[_COUNT]) - begin, output)


def _scan_adjacency_piece(piece: np.ndarray, vertex_start: int, layout: np.ndarray) -> _PieceResult:
    edge_weights = bool(layout[_EDGE_WEIGHTS])
    # Every stored entry takes at least "v " (with a weight "v w "): a bound on the count.
    capacity = piece.shape[0] // (4 if edge_weights else 2) + 1
    src = np.empty(capacity, dtype=np.int64)
    dst = np.empty(capacity, dtype=np.int64)
    weights = np.empty(capacity if edge_weights else 0, dtype=np.int64)
    state = np.zeros(_STATE_SIZE, dtype=np.int64)
    state[_END] = piece.shape[0]
    state[_VERTEX] = vertex_start
    state[_LIMIT] = capacity
    scan_adjacency(piece, state, layout, src, dst, weights)
    if state[_STATUS] == OUTPUT_FULL:
        raise RuntimeError("gpugraph bug: a piece holds more adjacency entries than its byte bound")
    count = int(state[_COUNT])
    return _PieceResult(
        int(state[_LINE]),
        _piece_error(piece, state),
        count,
        [src[:count], dst[:count], weights[:count]],
        (int(state[_BELOW]), int(state[_ABOVE]), int(state[_LOOPS])),
    )


def _compact(output: _RecordOutput, blocks: list[tuple[int, int]]) -> int:
    """Close the gaps that blank and comment lines left between pieces' records (each piece was
    given room for its bound); returns the number of records."""
    total = 0
    for start, count in blocks:
        if start != total:
            for array in (*output.ids, output.values):
                if array.size:
                    move_left(array, total, start, count)
        total += count
    return total


def _concatenate(arrays: list[np.ndarray], dtype) -> np.ndarray:
    if len(arrays) == 1:
        return arrays[0]  # a view of exactly the right size: no copy
    return np.concatenate(arrays) if arrays else np.empty(0, dtype=dtype)


# --- error messages ------------------------------------------------------------------------------
#: Longest token / line quoted in an error message.
_QUOTE_TOKEN_BYTES = 40
_QUOTE_LINE_BYTES = 120


def _piece_error(piece: np.ndarray, state: np.ndarray) -> _PieceError | None:
    status = int(state[_STATUS])
    if status == OK:
        return None
    position = int(state[_ERROR_POS])
    window = 4096  # how far around the error to look for the line's ends
    before = bytes(piece[max(0, position - window) : position])
    line_start = position - (len(before) - before.rfind(b"\n") - 1 if b"\n" in before else len(before))
    after = bytes(piece[position : position + window])
    line_end = position + (after.find(b"\n") if b"\n" in after else len(after))
    text = bytes(piece[line_start : min(line_end, line_start + _QUOTE_LINE_BYTES)]).rstrip(b"\r")
    token = bytes(piece[position : min(line_end, position + _QUOTE_TOKEN_BYTES)]).replace(b",", b" ").split()
    return _PieceError(
        status,
        int(state[_LINE]),
        int(state[_ERROR_COLUMN]),
        token[0].decode("utf-8", "replace") if token else "",
        text.decode("utf-8", "replace"),
    )


def _record_error(error: _PieceError, layout: RecordLayout, path: str, line: int) -> GraphFormatError:
    names = layout.column_names
    name = names[error.column] if error.column < len(names) else "value"
    status = error.status
    if status == TOO_FEW:
        return GraphFormatError(f"truncated line: expected '{layout.text}', got {error.text!r}", path, line)
    if status == TOO_MANY:
        return GraphFormatError(f"too many columns: expected '{layout.text}', got {error.text!r}", path, line)
    if status == BAD_LINE_TYPE:
        return GraphFormatError(
            f"expected a line '{layout.text}' or a comment, got {error.text!r}", path, line
        )
    if status == EMPTY_FIELD:
        return GraphFormatError(f"empty field (two commas, or a trailing comma): {error.text!r}", path, line)
    is_id = error.column < layout.id_columns
    if status == NUMBER_OVERFLOW:
        return GraphFormatError(f"{name} = {error.token} does not fit in a 64-bit integer", path, line)
    if status == ID_RANGE:
        low, high = layout.id_ranges[error.column]
        return _id_range_error(error.token, low, high, path, line)
    kind = "an integer" if is_id or layout.values == VALUES_INT else "a number"
    return GraphFormatError(f"{name} must be {kind}, got {error.token!r} in {error.text!r}", path, line)


def _adjacency_error(error: _PieceError, num_vertices: int, skip_tokens: int, path: str, line: int):
    status = error.status
    if status == EXTRA_LINE:
        return GraphFormatError(
            f"more adjacency lines than the {num_vertices:,} vertices the header declares", path, line
        )
    if status == TOO_FEW:
        if error.column < skip_tokens:
            return GraphFormatError(
                f"expected {skip_tokens} vertex size/weight value(s) before the neighbours, "
                f"got {error.text!r}",
                path, line,
            )
        return GraphFormatError(f"neighbour {error.token} has no edge weight: {error.text!r}", path, line)
    if status == ID_RANGE:
        return _id_range_error(error.token, 1, num_vertices, path, line)
    if status == NUMBER_OVERFLOW:
        return GraphFormatError(f"{error.token} does not fit in a 64-bit integer", path, line)
    return GraphFormatError(f"expected an integer, got {error.token!r} in {error.text!r}", path, line)


def _id_range_error(token: str, low: int, high: int, path: str, line: int) -> FileVertexIdError:
    value = int(token)
    if value < 0:
        return FileVertexIdError(f"negative vertex id {value}", path, line)
    return FileVertexIdError(f"vertex id {value} outside the declared range [{low}, {high}]", path, line)
