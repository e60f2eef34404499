"""Numba scanners for decimal numbers in a byte buffer (private to :mod:`gpugraph.io`).

Both scanners start at the first byte of a token and stop at the first byte that cannot continue
the number; the caller checks that this byte is a delimiter. Buffers must end with a newline, which
no number contains, so the scanners never read past the end.

Integers: ``[+-]digits``, at most ``2**63 - 1`` in magnitude.

Floats: ``[+-](digits[.digits] | .digits)[(e|E)[+-]digits]``, plus ``inf``, ``infinity`` and ``nan``
in any case (accepted so that an algorithm that cannot use them, e.g. SSSP, can reject them with
a named error). Results are correctly rounded, bit for bit what Python's ``float`` returns:
Clinger's exact fast path when the significand has at most 53 bits and the power of ten is
exact, else the Eisel-Lemire algorithm (D. Lemire, "Number Parsing at a Gigabyte per Second",
Software: Practice and Experience 51(8), 2021; following Go's ``strconv`` implementation). The
rare tokens neither can decide (more than 19 significant digits whose rounding is ambiguous,
subnormals, overflow) are reported as ``FLOAT_SLOW`` for the caller to hand to ``float``.

The scanners are compiled into the kernels of :mod:`gpugraph.io._parse`, whose Numba disk cache
does not notice edits to this file: after changing it, delete ``gpugraph/io/__pycache__/*.nb*``.
"""

from __future__ import annotations

import math

import numba
import numpy as np

NUMBER_OK = 0
NUMBER_BAD = 1
NUMBER_OVERFLOW = 2
FLOAT_SLOW = 3

_INT64_MAX_DIV10 = (2**63 - 1) // 10
_INT64_MAX_LAST_DIGIT = (2**63 - 1) % 10
#: Any 18-digit decimal fits in int64.
_SAFE_DIGITS = 18
#: Exponents beyond this cannot change the result (and must not overflow the accumulator).
_EXPONENT_CAP = 100_000
#: A uint64 holds any 19-digit decimal significand.
_MAX_SIGNIFICANT_DIGITS = 19

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U3 = np.uint64(3)
_U9 = np.uint64(9)
_U10 = np.uint64(10)
_U32 = np.uint64(32)
_U53 = np.uint64(53)
_U63 = np.uint64(63)
_LOW32 = np.uint64(0xFFFFFFFF)
_LOW9 = np.uint64(0x1FF)
_MAX_U64 = np.uint64(2**64 - 1)
_TWO_POW_53 = np.uint64(2**53)

#: 10**k for k <= 22 are exact doubles: Clinger's fast path.
_EXACT_POWERS_OF_TEN = np.array([10.0**k for k in range(23)])
_POW10_MIN_EXP = -348
_POW10_MAX_EXP = 347


def _powers_of_ten_128() -> tuple[np.ndarray, np.ndarray]:
    """128-bit significands of 10**e, e in [-348, 347], rounded down (Eisel-Lemire's table)."""
    high = np.empty(_POW10_MAX_EXP - _POW10_MIN_EXP + 1, dtype=np.uint64)
    low = np.empty_like(high)
    for index, exponent in enumerate(range(_POW10_MIN_EXP, _POW10_MAX_EXP + 1)):
        if exponent >= 0:
            power = 10**exponent
            bits = power.bit_length()
            significand = power << (128 - bits) if bits <= 128 else power >> (bits - 128)
        else:
            divisor = 10**-exponent
            significand = (1 << (127 + divisor.bit_length())) // divisor
        high[index] = significand >> 64
        low[index] = significand & (2**64 - 1)
    return high, low


_POW10_HIGH, _POW10_LOW = _powers_of_ten_128()


@numba.njit(cache=True, nogil=True)
def scan_int(buf, pos):
    """Parse ``[+-]digits`` at ``pos``. Returns ``(value, end, status)``."""
    negative = buf[pos] == 45  # '-'
    if negative or buf[pos] == 43:  # '+'
        pos += 1
    start = pos
    value = 0
    # No overflow check in the loop nearly every id finishes in: only numbers of more than 18
    # digits can overflow, and those are parsed again with checks.
    while True:
        digit = int(buf[pos]) - 48  # one load and one unsigned range check per byte
        if digit < 0 or digit > 9:
            break
        value = value * 10 + digit
        pos += 1
    if pos == start:
        return 0, pos, NUMBER_BAD
    if pos - start > _SAFE_DIGITS:
        value = 0
        for cursor in range(start, pos):
            digit = int(buf[cursor]) - 48
            if value > _INT64_MAX_DIV10 or (value == _INT64_MAX_DIV10 and digit > _INT64_MAX_LAST_DIGIT):
                return 0, cursor, NUMBER_OVERFLOW
            value = value * 10 + digit
    return (-value if negative else value), pos, NUMBER_OK


@numba.njit(cache=True, nogil=True)
def _match_word(buf, pos, word):
    """Length of ``word`` (lower-case ASCII) if it starts at ``pos`` in any case, else 0."""
    for k in range(len(word)):
        if buf[pos + k] | 32 != word[k]:
            return 0
    return len(word)


@numba.njit(cache=True, nogil=True)
def _scan_special(buf, pos, sign):
    """``inf``, ``infinity`` or ``nan`` at ``pos``: ``(value, end, status)``."""
    matched = _match_word(buf, pos, b"infinity")
    if not matched:
        matched = _match_word(buf, pos, b"inf")
    if matched:
        return sign * np.inf, pos + matched, NUMBER_OK
    if _match_word(buf, pos, b"nan"):
        return np.nan, pos + 3, NUMBER_OK
    return 0.0, pos, NUMBER_BAD


@numba.njit(cache=True, nogil=True)
def _multiply_64x64(a, b):
    """Full 128-bit product of two uint64 as ``(high, low)`` (NumPy has no 128-bit integer)."""
    a_low, a_high = a & _LOW32, a >> _U32
    b_low, b_high = b & _LOW32, b >> _U32
    low_low = a_low * b_low
    low_high = a_low * b_high
    high_low = a_high * b_low
    middle = (low_low >> _U32) + (low_high & _LOW32) + (high_low & _LOW32)
    low = (low_low & _LOW32) | (middle << _U32)
    high = a_high * b_high + (low_high >> _U32) + (high_low >> _U32) + (middle >> _U32)
    return high, low


@numba.njit(cache=True, nogil=True)
def _leading_zeros(x):
    count = 0
    for shift in (32, 16, 8, 4, 2, 1):
        if x >> np.uint64(64 - shift) == _U0:
            count += shift
            x = x << np.uint64(shift)
    return count


@numba.njit(cache=True, nogil=True)
def _eisel_lemire(significand, exponent10):
    """Correctly rounded ``significand * 10**exponent10`` (positive), or ``(0.0, False)`` when
    the algorithm cannot decide and the caller must fall back."""
    if exponent10 < _POW10_MIN_EXP or exponent10 > _POW10_MAX_EXP:
        return 0.0, False
    zeros = _leading_zeros(significand)
    significand = significand << np.uint64(zeros)
    # 217706 / 2**16 approximates log2(10): the binary exponent before normalisation.
    exponent2 = ((217706 * exponent10) >> 16) + 64 + 1023 - zeros
    index = exponent10 - _POW10_MIN_EXP
    x_high, x_low = _multiply_64x64(significand, _POW10_HIGH[index])
    if (x_high & _LOW9) == _LOW9 and x_low + significand < significand:
        # Within 1/512 of a rounding boundary: bring in the low 64 bits of the power of ten.
        y_high, y_low = _multiply_64x64(significand, _POW10_LOW[index])
        merged_high, merged_low = x_high, x_low + y_high
        if merged_low < x_low:
            merged_high += _U1
        if (merged_high & _LOW9) == _LOW9 and merged_low == _MAX_U64 and y_low + significand < significand:
            return 0.0, False
        x_high, x_low = merged_high, merged_low
    top_bit = x_high >> _U63
    mantissa = x_high >> (top_bit + _U9)
    exponent2 -= 1 - np.int64(top_bit)
    if x_low == _U0 and (x_high & _LOW9) == _U0 and (mantissa & _U3) == _U1:
        return 0.0, False  # exactly half-way: the truncated digits decide
    mantissa += mantissa & _U1
    mantissa = mantissa >> _U1
    if mantissa >> _U53 != _U0:
        mantissa = mantissa >> _U1
        exponent2 += 1
    if exponent2 <= 0 or exponent2 >= 0x7FF:
        return 0.0, False  # subnormal or overflow
    return math.ldexp(float(mantissa), int(exponent2) - 1075), True


@numba.njit(cache=True, nogil=True)
def scan_float(buf, pos):
    """Parse a real number at ``pos``. Returns ``(value, end, status)``; ``status`` is
    ``FLOAT_SLOW`` when ``value`` is not exact and the token must be re-parsed."""
    negative = buf[pos] == 45
    if negative or buf[pos] == 43:
        pos += 1
    sign = -1.0 if negative else 1.0
    letter = buf[pos] | 32  # lower case
    if letter == 105 or letter == 110:  # 'i' or 'n'
        return _scan_special(buf, pos, sign)
    # Digits before and after the point in one loop (no helper calls: this loop is hot).
    significand = _U0
    significant_digits = 0
    exponent10 = 0
    digits = 0
    in_fraction = False
    dropped_nonzero = False
    while True:
        digit = int(buf[pos]) - 48
        if digit < 0 or digit > 9:
            if buf[pos] != 46 or in_fraction:  # '.'
                break
            in_fraction = True
            pos += 1
            continue
        digits += 1
        if significant_digits < _MAX_SIGNIFICANT_DIGITS:
            significand = significand * _U10 + np.uint64(digit)
            significant_digits += significand != _U0
            exponent10 -= in_fraction
        else:
            exponent10 += not in_fraction
            dropped_nonzero |= digit != 0
        pos += 1
    if digits == 0:
        return 0.0, pos, NUMBER_BAD
    if buf[pos] | 32 == 101:  # 'e' or 'E'
        pos += 1
        exponent_negative = buf[pos] == 45
        if exponent_negative or buf[pos] == 43:
            pos += 1
        start = pos
        written = 0
        while True:
            digit = int(buf[pos]) - 48
            if digit < 0 or digit > 9:
                break
            if written < _EXPONENT_CAP:
                written = written * 10 + digit
            pos += 1
        if pos == start:
            return 0.0, pos, NUMBER_BAD
        exponent10 += -written if exponent_negative else written
    if significand == _U0:
        return sign * 0.0, pos, NUMBER_OK
    if not dropped_nonzero and significand <= _TWO_POW_53 and -22 <= exponent10 <= 22:
        if exponent10 >= 0:
            return sign * (float(significand) * _EXACT_POWERS_OF_TEN[exponent10]), pos, NUMBER_OK
        return sign * (float(significand) / _EXACT_POWERS_OF_TEN[-exponent10]), pos, NUMBER_OK
    value, exact = _eisel_lemire(significand, exponent10)
    if exact and dropped_nonzero:
        # The digits cut after the 19th lie strictly between significand and significand + 1.
        upper, upper_exact = _eisel_lemire(significand + _U1, exponent10)
        exact = upper_exact and upper == value
    if not exact:
        return 0.0, pos, FLOAT_SLOW
    return sign * value, pos, NUMBER_OK
