"""Atomic read-modify-write on NumPy array elements inside Numba CPU kernels.

Numba has no atomics for ``prange`` loops; these intrinsics emit LLVM ``atomicrmw`` on the
element's address, as the CUDA kernels' ``cuda.atomic`` functions do on the GPU. ``monotonic``
ordering suffices: the engines only need each update applied exactly once, and the end of a
parallel loop orders everything before the next one.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _element_pointer(context, builder, array_type, array, index):
    array_struct = context.make_array(array_type)(context, builder, array)
    return cgutils.get_item_pointer(context, builder, array_type, array_struct, [index], wraparound=False)


@intrinsic
def atomic_add_f64(typingctx, array, index, value):
    """``array[index] += value`` atomically on a float64 array; returns the old value."""

    def codegen(context, builder, signature, arguments):
        array_value, index_value, added = arguments
        added = context.cast(builder, added, signature.args[2], types.float64)
        pointer = _element_pointer(context, builder, signature.args[0], array_value, index_value)
        return builder.atomic_rmw("fadd", pointer, added, "monotonic")

    return types.float64(array, index, value), codegen


@intrinsic
def atomic_min_nonnegative_f64(typingctx, array, index, value):
    """``array[index] = min(array[index], value)`` atomically; returns the old value.

    Both values must be non-negative (or ``+inf``): then IEEE-754 doubles order as their bit
    patterns read as signed 64-bit integers, and one integer ``atomicrmw min`` does it.
    """

    def codegen(context, builder, signature, arguments):
        array_value, index_value, candidate = arguments
        candidate = context.cast(builder, candidate, signature.args[2], types.float64)
        pointer = _element_pointer(context, builder, signature.args[0], array_value, index_value)
        integer = ir.IntType(64)
        integer_pointer = builder.bitcast(pointer, integer.as_pointer())
        old = builder.atomic_rmw("min", integer_pointer, builder.bitcast(candidate, integer), "monotonic")
        return builder.bitcast(old, ir.DoubleType())

    return types.float64(array, index, value), codegen


@intrinsic
def atomic_add_i64(typingctx, array, index, value):
    """``array[index] += value`` atomically on an int64 array; returns the old value."""

    def codegen(context, builder, signature, arguments):
        array_value, index_value, added = arguments
        added = context.cast(builder, added, signature.args[2], types.int64)
        pointer = _element_pointer(context, builder, signature.args[0], array_value, index_value)
        return builder.atomic_rmw("add", pointer, added, "monotonic")

    return types.int64(array, index, value), codegen
