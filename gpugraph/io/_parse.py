"""Numba byte scanners that turn text into edge arrays (private: used by gpugraph.io.readers).

The scanners walk the file's bytes once, never build Python objects per line, and report the
first problem as an error code plus the 1-based line number, which the caller turns into a
:class:`~gpugraph.errors.GraphFormatError` naming the file and line.

Numbers: integers are optionally signed decimal; values (weights) are decimal or scientific
floats, ``nan``/``inf``/``infinity`` included (whether they are acceptable is the algorithm's
decision, e.g. SSSP rejects them). Values whose exact rounding the fast path cannot guarantee
(more than 15 significant digits or a large exponent) are re-parsed by Python's ``float``.
"""

from __future__ import annotations

import numba
import numpy as np

from gpugraph.errors import GraphFormatError

OK = 0
BAD_TOKEN = 1
TOO_FEW = 2
TOO_MANY = 3
VALUE_INCONSISTENT = 4
NEGATIVE_ID = 5
OVERFLOW = 6
BAD_PREFIX = 7
TOO_MANY_LINES = 8
COUNT_MISMATCH = 9

#: Value column modes of :func:`scan_lines`.
VALUES_NONE, VALUES_REQUIRED, VALUES_OPTIONAL = 0, 1, 2

_MESSAGES = {
    BAD_TOKEN: "not a number",
    TOO_FEW: "too few columns (truncated line?)",
    TOO_MANY: "too many columns",
    VALUE_INCONSISTENT: "weight column present on some lines but not on others",
    NEGATIVE_ID: "negative vertex id",
    OVERFLOW: "number too large",
    BAD_PREFIX: "unexpected line",
    TOO_MANY_LINES: "more lines than the header declares",
}

_POW10 = np.array([10.0**k for k in range(23)])
_INT64_MAX_DIV10 = (2**63 - 1) // 10


def raise_scan_error(code: int, line: int, path: str, detail: str = "") -> None:
    """Raise the GraphFormatError for a scanner error code."""
    message = _MESSAGES.get(code, f"parse error {code}")
    raise GraphFormatError(message + (f" ({detail})" if detail else ""), path, line)


@numba.njit(cache=True, nogil=True, inline="always")
def _is_space(byte):
    return byte == 32 or byte == 9 or byte == 13 or byte == 44  # space, tab, CR, comma


@numba.njit(cache=True, nogil=True)
def _skip_spaces(buf, pos):
    while _is_space(buf[pos]):
        pos += 1
    return pos


@numba.njit(cache=True, nogil=True)
def _token_end(buf, pos):
    while buf[pos] != 10 and not _is_space(buf[pos]):
        pos += 1
    return pos


@numba.njit(cache=True, nogil=True)
def parse_int(buf, pos):
    """Parse an integer at ``pos``. Returns ``(value, end, status)``."""
    negative = False
    if buf[pos] == 45 or buf[pos] == 43:  # '-' '+'
        negative = buf[pos] == 45
        pos += 1
    start = pos
    value = 0
    while 48 <= buf[pos] <= 57:
        digit = buf[pos] - 48
        if value > _INT64_MAX_DIV10 or (value == _INT64_MAX_DIV10 and digit > 7):
            return 0, pos, OVERFLOW
        value = value * 10 + digit
        pos += 1
    if pos == start or not (buf[pos] == 10 or _is_space(buf[pos])):
        return 0, pos, BAD_TOKEN
    if negative:
        return -value, pos, NEGATIVE_ID
    return value, pos, OK


@numba.njit(cache=True, nogil=True)
def _lower(byte):
    return byte + 32 if 65 <= byte <= 90 else byte


@numba.njit(cache=True, nogil=True)
def _word_is(buf, pos, end, word):
    if end - pos != len(word):
        return False
    for k in range(len(word)):
        if _lower(buf[pos + k]) != word[k]:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def parse_value(buf, pos):
    """Parse a real number at ``pos``.

    Returns ``(value, end, status, is_integer, exact)``; ``exact`` is False when the fast path
    could be off by one unit in the last place and the caller should re-parse the token.
    """
    end = _token_end(buf, pos)
    negative = False
    cursor = pos
    if buf[cursor] == 45 or buf[cursor] == 43:
        negative = buf[cursor] == 45
        cursor += 1
    if _word_is(buf, cursor, end, b"nan"):
        return np.nan, end, OK, False, True
    if _word_is(buf, cursor, end, b"inf") or _word_is(buf, cursor, end, b"infinity"):
        return (-np.inf if negative else np.inf), end, OK, False, True
    mantissa = 0
    digits = 0
    exponent = 0
    seen_digit = False
    is_integer = True
    while 48 <= buf[cursor] <= 57:
        seen_digit = True
        if digits < 18:
            mantissa = mantissa * 10 + (buf[cursor] - 48)
            if mantissa:
                digits += 1
        else:
            exponent += 1
        cursor += 1
    if buf[cursor] == 46:  # '.'
        cursor += 1
        while 48 <= buf[cursor] <= 57:
            seen_digit = True
            if buf[cursor] != 48:
                is_integer = False
            if digits < 18:
                mantissa = mantissa * 10 + (buf[cursor] - 48)
                if mantissa:
                    digits += 1
                exponent -= 1
            cursor += 1
    if not seen_digit:
        return 0.0, end, BAD_TOKEN, False, True
    if buf[cursor] == 101 or buf[cursor] == 69:  # 'e' 'E'
        is_integer = False
        cursor += 1
        exp_negative = False
        if buf[cursor] == 45 or buf[cursor] == 43:
            exp_negative = buf[cursor] == 45
            cursor += 1
        exp_start = cursor
        exp_value = 0
        while 48 <= buf[cursor] <= 57:
            if exp_value < 100000:
                exp_value = exp_value * 10 + (buf[cursor] - 48)
            cursor += 1
        if cursor == exp_start:
            return 0.0, end, BAD_TOKEN, False, True
        exponent += -exp_value if exp_negative else exp_value
    if cursor != end:
        return 0.0, end, BAD_TOKEN, False, True
    # Clinger's fast path: exact when the mantissa fits in 53 bits and 10^|exp| is exact.
    exact = mantissa < (1 << 53) and -22 <= exponent <= 22
    if exponent >= 0:
        value = float(mantissa) * (_POW10[exponent] if exponent <= 22 else 10.0**exponent)
    else:
        value = float(mantissa) / (_POW10[-exponent] if exponent >= -22 else 10.0**-exponent)
    if negative:
        value = -value
    return value, end, OK, is_integer and exponent >= 0, exact


@numba.njit(cache=True, nogil=True)
def count_lines(buf, start):
    """Number of newline bytes from ``start`` (an upper bound on data lines)."""
    count = 0
    for pos in range(start, buf.shape[0]):
        if buf[pos] == 10:
            count += 1
    return count


@numba.njit(cache=True, nogil=True)
def scan_lines(buf, start, first_line, id_columns, value_mode, prefix, comments, max_lines):
    """Parse lines of ``[prefix] id id... [value]``.

    Parameters
    ----------
    buf:
        uint8 bytes ending in a newline.
    start, first_line:
        Byte offset to start at and its 1-based line number.
    id_columns:
        Integer columns per line (1 for vertex files, 2 for edges).
    value_mode:
        VALUES_NONE, VALUES_REQUIRED or VALUES_OPTIONAL (decided by the first data line, then
        required to be consistent).
    prefix:
        A byte every data line starts with as its own token (``a`` in DIMACS), or 0.
    comments:
        uint8 array of bytes that start a comment line.
    max_lines:
        Data lines allowed (the header's count), or -1 for no limit.

    Returns
    -------
    tuple
        ``(ids, values, count, status, error_line, has_values, values_integral, inexact)``:
        ``ids`` is ``(id_columns, capacity)`` int64, ``values`` float64, ``count`` data lines,
        ``inexact`` a ``(2, k)`` array of (data-line index, byte offset) of values to re-parse.
    """
    capacity = count_lines(buf, start) + 1
    if max_lines >= 0 and capacity > max_lines + 1:
        capacity = max_lines + 1
    ids = np.empty((id_columns, capacity), dtype=np.int64)
    values = np.empty(capacity if value_mode != VALUES_NONE else 0, dtype=np.float64)
    inexact = np.empty((2, 0), dtype=np.int64)
    inexact_rows = [np.int64(0) for _ in range(0)]
    inexact_offsets = [np.int64(0) for _ in range(0)]
    has_values = value_mode == VALUES_REQUIRED
    decided = value_mode != VALUES_OPTIONAL
    integral = True
    count = 0
    line = first_line
    pos = start
    size = buf.shape[0]
    while pos < size:
        pos = _skip_spaces(buf, pos)
        byte = buf[pos]
        if byte == 10:
            pos += 1
            line += 1
            continue
        is_comment = False
        for c in comments:
            if byte == c:
                is_comment = True
        if is_comment:
            while buf[pos] != 10:
                pos += 1
            pos += 1
            line += 1
            continue
        if count == max_lines:
            return ids, values, count, TOO_MANY_LINES, line, has_values, integral, inexact
        if prefix != 0:
            if byte != prefix or not (_is_space(buf[pos + 1]) or buf[pos + 1] == 10):
                return ids, values, count, BAD_PREFIX, line, has_values, integral, inexact
            pos += 1
        for column in range(id_columns):
            pos = _skip_spaces(buf, pos)
            if buf[pos] == 10:
                return ids, values, count, TOO_FEW, line, has_values, integral, inexact
            value, pos, status = parse_int(buf, pos)
            if status != OK:
                return ids, values, count, status, line, has_values, integral, inexact
            ids[column, count] = value
        pos = _skip_spaces(buf, pos)
        if buf[pos] != 10:  # a value column is present on this line
            if value_mode == VALUES_NONE:
                return ids, values, count, TOO_MANY, line, has_values, integral, inexact
            if decided and not has_values:
                return ids, values, count, VALUE_INCONSISTENT, line, has_values, integral, inexact
            has_values = True
            decided = True
            token = pos
            value, pos, status, is_integer, exact = parse_value(buf, pos)
            if status != OK:
                return ids, values, count, status, line, has_values, integral, inexact
            values[count] = value
            integral = integral and is_integer
            if not exact:
                inexact_rows.append(count)
                inexact_offsets.append(token)
            pos = _skip_spaces(buf, pos)
            if buf[pos] != 10:
                return ids, values, count, TOO_MANY, line, has_values, integral, inexact
        else:
            if value_mode == VALUES_REQUIRED:
                return ids, values, count, TOO_FEW, line, has_values, integral, inexact
            if decided and has_values:
                return ids, values, count, VALUE_INCONSISTENT, line, has_values, integral, inexact
            decided = True
        count += 1
        pos += 1
        line += 1
    if len(inexact_rows):
        inexact = np.empty((2, len(inexact_rows)), dtype=np.int64)
        for k in range(len(inexact_rows)):
            inexact[0, k] = inexact_rows[k]
            inexact[1, k] = inexact_offsets[k]
    return ids, values, count, OK, line, has_values, integral, inexact


@numba.njit(cache=True, nogil=True)
def scan_adjacency(buf, start, first_line, num_vertices, skip_per_line, weighted, capacity):
    """Parse METIS adjacency lines: line ``i`` lists the (1-based) neighbours of vertex ``i``.

    ``skip_per_line`` leading values (vertex weights) are skipped; with ``weighted`` neighbours
    come as ``neighbour weight`` pairs. Lines starting with ``%`` are comments; empty lines are
    vertices without neighbours.

    Returns ``(src, dst, weights, count, status, error_line, lines_read)`` with 0-based ``src``
    and 1-based ``dst`` as in the file.
    """
    src = np.empty(capacity, dtype=np.int64)
    dst = np.empty(capacity, dtype=np.int64)
    weights = np.empty(capacity if weighted else 0, dtype=np.int64)
    count = 0
    line = first_line
    pos = start
    vertex = 0
    size = buf.shape[0]
    while pos < size - 1:  # the last byte is the newline read_bytes appends
        if buf[pos] == 37:  # '%'
            while buf[pos] != 10:
                pos += 1
            pos += 1
            line += 1
            continue
        if vertex == num_vertices:
            pos = _skip_spaces(buf, pos)
            if buf[pos] != 10:
                return src, dst, weights, count, TOO_MANY_LINES, line, vertex
            pos += 1
            line += 1
            continue
        pos = _skip_spaces(buf, pos)
        for _ in range(skip_per_line):
            if buf[pos] == 10:
                return src, dst, weights, count, TOO_FEW, line, vertex
            _, pos, status = parse_int(buf, pos)
            if status != OK:
                return src, dst, weights, count, status, line, vertex
            pos = _skip_spaces(buf, pos)
        while buf[pos] != 10:
            neighbour, pos, status = parse_int(buf, pos)
            if status != OK:
                return src, dst, weights, count, status, line, vertex
            if count == capacity:
                return src, dst, weights, count, COUNT_MISMATCH, line, vertex
            src[count] = vertex
            dst[count] = neighbour
            pos = _skip_spaces(buf, pos)
            if weighted:
                if buf[pos] == 10:
                    return src, dst, weights, count, TOO_FEW, line, vertex
                weight, pos, status = parse_int(buf, pos)
                if status != OK:
                    return src, dst, weights, count, status, line, vertex
                weights[count] = weight
                pos = _skip_spaces(buf, pos)
            count += 1
        vertex += 1
        pos += 1
        line += 1
    return src, dst, weights, count, OK, line, vertex
