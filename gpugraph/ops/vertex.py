"""vertex_map and filter: a user function on every vertex of a frontier.

``vertex_map`` calls the function on each vertex (parameter ``v``, plus bindings by name); a true
result puts the vertex into the output frontier. ``filter`` is the same with a predicate, and
doubles as compaction with de-duplication: a vertex listed several times in a sparse frontier
comes out once (the CPU marks a byte per vertex; the GPU claims a bit per vertex before
appending to the output queue).

One CPU loop iteration or one GPU thread per vertex: per-vertex work is assumed to be small and
even (per-edge work belongs to :mod:`gpugraph.ops.advance` and :mod:`gpugraph.ops.reduce`).
"""

from __future__ import annotations

import textwrap

import numpy as np

from gpugraph.codegen import UserFunction, build_kernel
from gpugraph.errors import InvalidParameterError, ProgramError
from gpugraph.ops._parts import CPU_RANGE, DECORATORS, Call, KernelOutputs, launch, mark_source
from gpugraph.ops.frontier import Frontier

_LOOP = {
    "cpu": "for i in range(first, last):\n",
    "cuda": "i = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x\nif i < count:\n",
}


def _keep_everything():
    return True


def vertex_map(
    graph,
    frontier: Frontier,
    function,
    *,
    bindings: dict | None = None,
    output: str | None = None,
    out=None,
    elements: dict | None = None,
    locals_: dict | None = None,
    kind: str = "vertex_map",
) -> Frontier | None:
    """Call ``function`` on every vertex of ``frontier``.

    Parameters
    ----------
    graph:
        The graph (its backend runs the kernel).
    frontier:
        The vertices (all, sparse or dense).
    function:
        Plain Python function; parameter ``v`` is the vertex, other parameters are bindings.
    bindings:
        Name -> array on the graph's backend, or scalar.
    output:
        ``None`` (the result is ignored), ``"sparse"`` or ``"dense"``: vertices whose result is
        true form the returned frontier.
    out:
        An array of ``n`` entries receiving each vertex's result (instead of ``output``).
    elements:
        Name -> ``(array, index expression)``: parameters receiving one element of an array,
        e.g. ``{"inbox": (combined, "v")}``.
    locals_:
        Name -> ``(kernel expression, Numba type)``: further per-vertex values computed in the
        kernel from ``v`` and the bindings (used by the programming models).
    kind:
        Name of the function's role in error messages (``"VERTEX"``, ``"filter"``...).

    Returns
    -------
    Frontier or None
        The selected vertices, or ``None`` when ``output`` is ``None``.

    Raises
    ------
    InvalidParameterError
        For an unknown output.
    ProgramError
        If ``function`` has unknown parameters or does not compile.
    """
    if output not in ("sparse", "dense", None):
        raise InvalidParameterError(f"unknown output {output!r}; use 'sparse', 'dense' or None")
    from numba import types

    backend = graph.backend
    target = "cuda" if backend.is_cuda else "cpu"
    call = Call(function, kind, {"v": ("v", types.int64), **(locals_ or {})}, bindings, backend, elements)
    if call.return_type() == types.none:
        output = out = None
    full = frontier.kind == "all"
    with backend.activate():
        ids = backend.xp.empty(0, dtype=np.int64) if full else frontier.to_sparse().ids()
        count = graph.num_vertices if full else int(ids.size)
        outputs = KernelOutputs(graph, target, output)
        if count:
            mark = mark_source(target, output, "v")
            body = f"v = {'np.int64(i)' if full else 'np.int64(frontier[i])'}\n"
            body += f"result = {call.expression('user')}\n"
            if out is not None:
                body += "out[v] = result\n"
            elif mark:
                body += f"if result:\n{textwrap.indent(mark, '    ')}\n"
            decorator = DECORATORS[target]
            source = (
                f"{decorator}\ndef kernel({CPU_RANGE if target == 'cpu' else ''}frontier, count, out, {KernelOutputs.PARAMETERS}{call.parameters}):\n"
                + textwrap.indent(_LOOP[target] + textwrap.indent(body, "    "), "    ")
            )
            kernel = build_kernel("vertex_map", source, target, {"user": call.function})
            out_array = out if out is not None else backend.xp.empty(0, dtype=np.int64)
            args = (ids, np.int64(count), out_array, *outputs.arguments, *call.values)
            launch(kernel, backend, count, args, [call.function])
        return outputs.frontier()


def vertex_values(graph, function, *, bindings: dict | None = None, kind: str = "vertex_values"):
    """Call ``function(v, ...)`` on every vertex and return the results as an array.

    Parameters
    ----------
    graph:
        The graph.
    function:
        Plain Python function of ``v`` and bindings returning one number.
    bindings:
        Name -> array on the graph's backend, or scalar.
    kind:
        Name of the function's role in error messages.

    Returns
    -------
    array
        ``n`` results, typed as the function's result, on the graph's backend.

    Raises
    ------
    ProgramError
        If ``function`` does not compile or does not return one number.
    """
    from numba import types
    from numba.np.numpy_support import as_dtype

    call = Call(function, kind, {"v": ("v", types.int64)}, bindings, graph.backend)
    result_type = call.return_type()
    if not isinstance(result_type, (types.Number, types.Boolean)):
        raise ProgramError(f"must return one number, not {result_type}", call.function.label)
    with graph.backend.activate():
        out = graph.backend.xp.empty(graph.num_vertices, dtype=as_dtype(result_type))
    vertex_map(graph, Frontier.all(graph), call.function, bindings=bindings, out=out, kind=kind)
    return out


def filter(graph, frontier: Frontier, predicate=None, *, bindings: dict | None = None, output: str = "sparse") -> Frontier:
    """Keep the vertices of ``frontier`` for which ``predicate`` is true, each once.

    Parameters
    ----------
    graph:
        The graph.
    frontier:
        Input vertices; a sparse frontier may list a vertex several times.
    predicate:
        Plain Python function of ``v`` and bindings, or ``None`` to keep every vertex (pure
        compaction and de-duplication).
    bindings:
        Name -> array or scalar for the predicate's other parameters.
    output:
        ``"sparse"`` (default) or ``"dense"``.

    Returns
    -------
    Frontier
        The kept vertices, without repeats.

    Raises
    ------
    InvalidParameterError
        If ``output`` is not ``"sparse"`` or ``"dense"``.
    ProgramError
        If ``predicate`` has unknown parameters or does not compile.
    """
    if output not in ("sparse", "dense"):
        raise InvalidParameterError(f"filter output must be 'sparse' or 'dense', got {output!r}")
    function = UserFunction.of(predicate if predicate is not None else _keep_everything, "filter")
    return vertex_map(graph, frontier, function, bindings=bindings, output=output, kind="filter")
