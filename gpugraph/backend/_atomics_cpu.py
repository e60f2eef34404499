"""Atomic read-modify-write on NumPy array elements inside Numba CPU kernels.

Numba has no atomics for ``prange`` loops; these intrinsics emit LLVM ``atomicrmw`` on the
element's address, as the CUDA kernels' ``cuda.atomic`` functions do on the GPU. ``monotonic``
ordering suffices where the engines only need each update applied exactly once (the end of a
parallel loop orders everything before the next one). Where a thread clears a flag and then
reads a state that others improve before they set the flag again, the read and the improvement
must not move past the flag's stores: the ``_seq_cst`` variant orders them (on x86 the same
locked instruction; on ARM a real barrier). Each returns the element's old value.

``atomic_add_f64(array, index, value)``              float64 ``+=``
``atomic_add_i64(array, index, value)``              int64 ``+=``
``atomic_min_nonnegative_f64(array, index, value)``  float64 minimum, for non-negative values
    (or ``+inf``) only: those order as their bit patterns read as signed 64-bit integers, so
    one integer ``atomicrmw min`` does it.
``atomic_min_nonnegative_f64_seq_cst(array, index, value)``  the same, sequentially consistent.
``atomic_cas_i32(array, index, expected, value)``    int32 compare-and-swap (``cmpxchg``): stores
    ``value`` only if the element equals ``expected``, as ``cuda.atomic.cas`` does.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _read_modify_write(operation: str, value_type, as_integer: bool = False, ordering: str = "monotonic"):
    """An intrinsic ``f(array, index, value)`` applying ``atomicrmw operation`` to the element,
    on its bits read as int64 when ``as_integer``, with LLVM memory ``ordering``."""

    @intrinsic
    def read_modify_write(typingctx, array, index, value):
        def codegen(context, builder, signature, arguments):
            array_value, index_value, operand = arguments
            operand = context.cast(builder, operand, signature.args[2], value_type)
            array_struct = context.make_array(signature.args[0])(context, builder, array_value)
            pointer = cgutils.get_item_pointer(context, builder, signature.args[0], array_struct, [index_value],
                                               wraparound=False)
            if not as_integer:
                return builder.atomic_rmw(operation, pointer, operand, ordering)
            integer = ir.IntType(64)
            old = builder.atomic_rmw(operation, builder.bitcast(pointer, integer.as_pointer()),
                                     builder.bitcast(operand, integer), ordering)
            return builder.bitcast(old, ir.DoubleType())

        return value_type(array, index, value), codegen

    return read_modify_write


atomic_add_f64 = _read_modify_write("fadd", types.float64)
atomic_add_i64 = _read_modify_write("add", types.int64)
atomic_min_nonnegative_f64 = _read_modify_write("min", types.float64, as_integer=True)
atomic_min_nonnegative_f64_seq_cst = _read_modify_write("min", types.float64, as_integer=True, ordering="seq_cst")


@intrinsic
def atomic_cas_i32(typingctx, array, index, expected, value):
    """int32 compare-and-swap on ``array[index]`` (module docstring); returns the old value."""

    def codegen(context, builder, signature, arguments):
        array_value, index_value, expected_value, new_value = arguments
        expected_value = context.cast(builder, expected_value, signature.args[2], types.int32)
        new_value = context.cast(builder, new_value, signature.args[3], types.int32)
        array_struct = context.make_array(signature.args[0])(context, builder, array_value)
        pointer = cgutils.get_item_pointer(context, builder, signature.args[0], array_struct, [index_value],
                                           wraparound=False)
        outcome = builder.cmpxchg(pointer, expected_value, new_value, "monotonic", "monotonic")
        return builder.extract_value(outcome, 0)

    return types.int32(array, index, expected, value), codegen
