"""Shared pieces of the operators' generated kernels (private to gpugraph.ops).

How a kernel calls a user function (:class:`Call`), where it puts its output
(:class:`KernelOutputs`), and how loop templates are filled (:func:`fill_template`).

Each parameter of a user function is bound by name either to a *local* of the kernel (the
current ``src``, ``dst``, ``edge``, ``weight``, ``v``...) or to a caller-given *binding* (a state
array, a constant). Bindings become extra kernel arguments named ``bound_<name>``.
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import textwrap

import numpy as np

from gpugraph import config
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel
from gpugraph.codegen import UserFunction, compile_errors
from gpugraph.errors import InvalidParameterError
from gpugraph.ops.frontier import Frontier


#: Decorator line of a generated kernel, per target. CPU kernels are serial, GIL-free loops over
#: ``range(first, last)`` that :func:`launch` runs on chunks from a thread pool: Numba's
#: ``prange`` lost the array writes of user functions in some loop shapes (a call whose
#: argument is a cast of the loop index was hoisted out of the loop; a cached parallel kernel
#: dropped a callee's writes on reload — reproduced with numba 0.68.1), and serial loops do not.
DECORATORS = {
    "cpu": "@numba.njit(cache=True, nogil=True)",
    "cuda": "@cuda.jit(cache=True)",
}
#: The parameters CPU kernels take before their arguments.
CPU_RANGE = "first, last, "
_pool = None


def launch(generated, backend, items: int, args: tuple, functions) -> None:
    """Run a generated kernel (:class:`gpugraph.codegen.GeneratedKernel`) over ``items``.

    A CUDA kernel gets one thread per item. A CPU kernel runs its loop over chunks of the items
    on a pool of threads (one per core; the kernels release the GIL), the first chunk alone so
    that compilation happens once. Compilation errors become a ProgramError naming one of the
    user ``functions``.
    """
    with compile_errors(*functions):
        kernel = generated.specialize(args)
        if backend.is_cuda:
            launch_cuda_kernel(kernel, backend, items, *args)
            return
        bounds = _chunks(items)
        first, last = bounds[0]
        run_cpu_kernel(kernel, np.int64(first), np.int64(last), *args)
        if len(bounds) > 1:
            global _pool
            if _pool is None:
                _pool = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1)
            futures = [_pool.submit(kernel, np.int64(a), np.int64(b), *args) for a, b in bounds[1:]]
            for future in futures:
                future.result()


def _chunks(items: int) -> list[tuple[int, int]]:
    """Split ``range(items)`` into about ``config.CPU_CHUNKS_PER_CORE`` chunks per core."""
    pieces = max(1, min(items, (os.cpu_count() or 1) * config.CPU_CHUNKS_PER_CORE))
    edges = np.linspace(0, items, pieces + 1).astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a] or [(0, 0)]


def numba_type(value):
    """Numba type of a binding value: arrays by dtype and rank (host or device), scalars as is."""
    import numba
    from numba import types

    if hasattr(value, "dtype") and hasattr(value, "ndim") and getattr(value, "ndim", 0) > 0:
        return types.Array(numba.from_dtype(value.dtype), value.ndim, "C")
    return numba.typeof(value)


def as_kernel_scalar(value):
    """Python scalars become NumPy scalars, so a kernel sees ``int64`` / ``float64`` / ``bool``."""
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        return np.int64(value)
    if isinstance(value, float):
        return np.float64(value)
    return value


class Call:
    """The call of one user function from generated code.

    Parameters
    ----------
    function:
        The user function (or a plain function, wrapped with ``kind``).
    kind:
        Its kind for messages (``"EDGE"``, ``"advance"``...).
    locals_:
        Parameter name -> ``(expression in the kernel, Numba type)`` for the names the kernel
        provides itself.
    bindings:
        Parameter name -> value (array on the operator's backend, or scalar) from the caller.
    backend:
        The backend the kernel runs on (arrays in ``bindings`` must live there).
    elements:
        Parameter name -> ``(array, index expression)``: the function receives one element of
        the array (e.g. ``(combined, "v")`` gives the current vertex's combined message).

    Raises
    ------
    ProgramError
        If a parameter is neither a local nor a binding.
    InvalidParameterError
        If a binding shadows a local name or an array lives on another device.
    """

    def __init__(self, function, kind: str, locals_: dict, bindings: dict | None, backend, elements: dict | None = None):
        self.function = UserFunction.of(function, kind)
        bindings = dict(bindings or {})
        elements = dict(elements or {})
        clash = sorted((set(bindings) | set(elements)) & set(locals_))
        if clash:
            raise InvalidParameterError(
                f"binding name(s) {', '.join(clash)} are provided by the operator itself; rename them"
            )
        self.function.check_names(set(locals_) | set(bindings) | set(elements))
        self.bound = [name for name in self.function.parameters if name not in locals_]
        values = {**bindings, **{name: array for name, (array, _) in elements.items()}}
        for name in self.bound:
            value = values[name]
            if hasattr(value, "ndim") and getattr(value, "ndim", 0) > 0 and backend.on_host != isinstance(value, np.ndarray):
                raise InvalidParameterError(
                    f"binding {name!r} lives on another device than the graph ({backend.name}); "
                    f"move it with graph.backend.asarray(...)"
                )
        self.values = [as_kernel_scalar(values[name]) for name in self.bound]

        def argument(name):
            if name in locals_:
                return locals_[name][0]
            if name in elements:
                return f"bound_{name}[{elements[name][1]}]"
            return f"bound_{name}"

        def known_type(name):
            if name in locals_:
                return locals_[name][1]
            if name in elements:
                return numba_type(elements[name][0]).dtype
            return None

        self.arguments = ", ".join(argument(name) for name in self.function.parameters)
        self._types = [known_type(name) for name in self.function.parameters]

    @property
    def parameters(self) -> str:
        """The kernel's parameter list for the bindings (``", bound_x, bound_y"`` or ``""``)."""
        return "".join(f", bound_{name}" for name in self.bound)

    def expression(self, global_name: str) -> str:
        """``global_name(arguments)``: the call as it appears in the kernel source."""
        return f"{global_name}({self.arguments})"

    def return_type(self):
        """Compile the function on the CPU for the bound types and return its result type.

        Raises
        ------
        ProgramError
            If it does not compile.
        """
        bound_values = dict(zip(self.bound, self.values))
        argument_types = [
            t if t is not None else numba_type(bound_values[name])
            for name, t in zip(self.function.parameters, self._types)
        ]
        return self.function.return_type(argument_types)


# One vertex claimed once on the GPU: a packed bitmap filters repeats before the atomic append.
def mark_source(target: str, output, vertex: str) -> str:
    """Kernel source that puts ``vertex`` into the output frontier (once).

    The CPU (and dense output) stores a 1 in a byte per vertex. The GPU's sparse output claims
    the vertex in a packed bitmap with an atomic OR, and the one thread that flipped the bit
    appends it to the queue: no vertex is queued twice.
    """
    if output is None:
        return ""
    if target == "cpu" or output == "dense":
        return f"flags[{vertex}] = 1"
    return f"""\
word = {vertex} >> 5
bit = np.uint32(1 << ({vertex} & 31))
if (claimed[word] & bit) == 0:
    if (cuda.atomic.or_(claimed, word, bit) & bit) == 0:
        queue[cuda.atomic.add(queue_size, 0, 1)] = {vertex}"""


class KernelOutputs:
    """Output arrays of one operator call (frontier flags or a claimed queue) and the Frontier
    they become."""

    #: Kernel parameters for these outputs, in the order of :attr:`arguments`.
    PARAMETERS = "flags, claimed, queue, queue_size"

    def __init__(self, graph, target: str, output):
        backend = graph.backend
        xp = backend.xp
        n = graph.num_vertices
        self.graph, self.output = graph, output
        self.queue_mode = target == "cuda" and output == "sparse"
        empty8 = xp.empty(0, dtype=np.uint8)
        self.flags = xp.zeros(n, dtype=np.uint8) if output and not self.queue_mode else empty8
        if self.queue_mode:
            self.claimed = xp.zeros((n + 31) // 32, dtype=np.uint32)
            self.queue = xp.empty(n, dtype=graph.indices.dtype)
            self.queue_size = xp.zeros(1, dtype=np.int64)
        else:
            self.claimed = xp.empty(0, dtype=np.uint32)
            self.queue = xp.empty(0, dtype=graph.indices.dtype)
            self.queue_size = xp.zeros(1, dtype=np.int64)
        self.arguments = (self.flags, self.claimed, self.queue, self.queue_size)

    def frontier(self) -> Frontier | None:
        """The vertices the kernel marked, as the requested kind (``None`` without output)."""
        if self.output is None:
            return None
        graph = self.graph
        if self.queue_mode:
            size = int(self.queue_size[0])
            return Frontier(graph.num_vertices, graph.backend, "sparse", ids=self.queue[:size], size=size)
        dense = Frontier.from_flags(graph, self.flags)
        return dense.to_sparse() if self.output == "sparse" else dense


def fill_template(template: str, body: str, **values) -> str:
    """Format a loop template; ``{body:N}`` places the body indented by N spaces."""
    def place(match):
        return textwrap.indent(body, " " * int(match.group(1)))

    template = re.sub(r"\{body:(\d+)\}", lambda m: place(m).replace("{", "{{").replace("}", "}}"), template)
    return template.format(**values)
