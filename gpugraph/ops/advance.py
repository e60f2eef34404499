"""advance: expand a frontier along out-edges, calling a user function on every edge.

The user function receives any of ``src``, ``dst``, ``edge`` (CSR position), ``weight`` (1.0 on
unweighted graphs) and the caller's bindings, by parameter name. What its result means depends
on the output:

* frontier output (``messages=None``): a true result puts ``dst`` in the next frontier, once
  however many edges activate it;
* message output (``messages=buffers``): the result is a message (a tuple for a record of
  several fields) stored at ``buffers[k][reverse_edge_index[edge]]``, so the messages to one
  vertex end up next to each other (Medusa's rID layout); every ``dst`` reached receives.

Load-balancing strategies (``strategy=``)
-----------------------------------------
``"thread"``  one GPU thread (one CPU loop iteration) per frontier vertex, looping over its edges.
              No set-up cost; slow when a few vertices hold most edges.
``"twc"``     thread / warp / CTA by degree (Merrill et al., PPoPP'12): vertices are binned by
              out-degree (``config.TWC_*``) and each bin is expanded by one thread, one warp or
              one block per vertex. On the CPU, high-degree vertices are split into edge chunks.
``"edge"``    edge-balanced: the frontier's edges are numbered through a prefix sum of its
              degrees and every thread takes an equal run of them, finding its first source by
              binary search (the "load-balanced search" of merge-path). Costs one scan.
``"auto"``    ``"thread"`` for small or flat frontiers, ``"edge"`` for skewed ones (and for small
              frontiers holding a vertex of more than ``config.ADVANCE_THREAD_MAX_DEGREE`` edges)
              (``config.ADVANCE_*``; measured in docs/benchmarks.md).

Writes a user function makes to bound arrays race with other edges' writes; make them
idempotent (every writer stores the same value) or go through messages.
"""

from __future__ import annotations

import textwrap

import numpy as np

from gpugraph import config
from gpugraph.codegen import build_kernel
from gpugraph.errors import InvalidParameterError, ProgramError
from gpugraph.ops._parts import CPU_RANGE, DECORATORS, Call, KernelOutputs, fill_template, launch, mark_source
from gpugraph.ops.frontier import Frontier

STRATEGIES = ("auto", "thread", "twc", "edge")
OUTPUTS = ("sparse", "dense", None)

_SIGNATURE = f"indptr, indices, weights, frontier, offsets, count, total, rid, {KernelOutputs.PARAMETERS}"


def advance(
    graph,
    frontier: Frontier,
    function,
    *,
    bindings: dict | None = None,
    strategy: str = "auto",
    output: str | None = "sparse",
    messages: tuple | None = None,
    counters: dict | None = None,
) -> Frontier | None:
    """Apply ``function`` to every out-edge of ``frontier`` and return the activated vertices.

    Parameters
    ----------
    graph:
        The graph (its backend runs the kernel).
    frontier:
        Source vertices (:class:`Frontier` of this graph).
    function:
        Plain Python function of the edge; parameters by name from ``src``, ``dst``, ``edge``,
        ``weight`` and ``bindings``. See the module docstring for what its result means.
    bindings:
        Name -> array on the graph's backend, or scalar, for the function's other parameters.
    strategy:
        ``"auto"``, ``"thread"``, ``"twc"`` or ``"edge"`` (module docstring).
    output:
        ``"sparse"`` (queue), ``"dense"`` (byte per vertex) or ``None`` (no frontier returned).
    messages:
        Message buffers (one array per message field, each ``graph.num_arcs`` long), or ``None``
        for frontier output.
    counters:
        If given, ``counters["edges_traversed"]`` is increased by the edges visited.

    Returns
    -------
    Frontier or None
        Vertices activated (frontier output) or reached (message output); ``None`` when
        ``output`` is ``None``.

    Raises
    ------
    InvalidParameterError
        For an unknown strategy or output, a frontier of another graph, or message buffers of
        the wrong length.
    ProgramError
        If ``function`` has unknown parameters or does not compile.
    """
    if strategy not in STRATEGIES:
        raise InvalidParameterError(f"unknown advance strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
    if output not in OUTPUTS:
        raise InvalidParameterError(f"unknown advance output {output!r}; use 'sparse', 'dense' or None")
    if frontier.num_vertices != graph.num_vertices:
        raise InvalidParameterError(
            f"the frontier belongs to a graph of {frontier.num_vertices} vertices, not {graph.num_vertices}"
        )
    messages = tuple(messages or ())
    for buffer in messages:
        if buffer.shape != (graph.num_arcs,):
            raise InvalidParameterError(
                f"message buffers need one entry per arc ({graph.num_arcs}), got shape {tuple(buffer.shape)}"
            )
    backend = graph.backend
    target = "cuda" if backend.is_cuda else "cpu"
    call = _edge_call(graph, function, bindings)
    epilogue = _epilogue(call, messages, output, target)
    xp = backend.xp
    with backend.activate():
        dummy = xp.empty(0, dtype=np.int64)
        full = frontier.kind == "all"
        ids = dummy if full else frontier.to_sparse().ids()
        count = frontier.num_vertices if full else int(ids.size)
        if count == 0:
            return None if output is None else Frontier.empty(graph)
        degrees = None if full else graph.indptr[ids + 1] - graph.indptr[ids]
        chosen = _choose(graph, degrees, count) if strategy == "auto" else strategy
        outputs = KernelOutputs(graph, target, output)
        rid = graph.reverse_edge_index if messages else dummy
        weights = graph.weights if graph.weights is not None else dummy
        shared = (graph.indptr, graph.indices, weights)
        for piece in _pieces(graph, chosen, target, full, ids, degrees, count):
            piece_strategy, piece_ids, piece_count, piece_full, piece_degrees = piece
            offsets, total = _offsets(graph, piece_strategy, piece_full, piece_ids, piece_degrees)
            kernel = _kernel(call, target, piece_strategy, piece_full, graph.weights is not None, epilogue, len(messages))
            args = (
                *shared, piece_ids, offsets, np.int64(piece_count), np.int64(total), rid,
                *outputs.arguments, *messages, *call.values,
            )
            launch(kernel, backend, _items(target, piece_strategy, piece_count, total, backend), args, [call.function])
        if counters is not None:
            edges = graph.num_arcs if full else int(degrees.sum())
            counters["edges_traversed"] = counters.get("edges_traversed", 0) + edges
        return outputs.frontier()


def _edge_call(graph, function, bindings) -> Call:
    import numba
    from numba import types

    weight_type = numba.from_dtype(graph.weights.dtype) if graph.weights is not None else types.float64
    locals_ = {
        "src": ("src", types.int64),
        "dst": ("dst", types.int64),
        "edge": ("edge", types.int64),
        "weight": ("weight", weight_type),
    }
    return Call(function, "advance", locals_, bindings, graph.backend)


def _epilogue(call: Call, messages: tuple, output, target: str) -> str:
    """What happens with the function's result, as kernel source (``result`` and ``dst`` set)."""
    from numba import types

    result_type = call.return_type()
    mark = mark_source(target, output, "dst")
    if messages:
        fields = len(result_type) if isinstance(result_type, types.BaseTuple) else 1
        if fields != len(messages):
            raise ProgramError(
                f"returns a message of {fields} field(s) but {len(messages)} message buffer(s) were given",
                call.function.label,
            )
        stores = [f"message_{k}[slot] = result{f'[{k}]' if isinstance(result_type, types.BaseTuple) else ''}" for k in range(fields)]
        return "\n".join(["slot = rid[edge]", *stores, mark])
    if result_type == types.none or output is None:
        return ""
    return f"if result:\n{textwrap.indent(mark, '    ')}"


def _choose(graph, degrees, count: int) -> str:
    """The "auto" strategy: thread per vertex unless the frontier is large and skewed, or small
    but holding a vertex one thread would take long to walk (a hub in a BFS's second level)."""
    if count < config.ADVANCE_SMALL_FRONTIER:
        if degrees is None or int(degrees.max()) <= config.ADVANCE_THREAD_MAX_DEGREE:
            return "thread"
        return "edge"
    if degrees is None:
        skew = graph.out_degree_skew()
    else:
        mean = float(degrees.mean())
        skew = float(degrees.max()) / mean if mean > 0 else 0.0
    return "edge" if skew > config.ADVANCE_SKEW_RATIO else "thread"


def _pieces(graph, strategy, target, full, ids, degrees, count):
    """Split the frontier into pieces ``(kernel strategy, ids, count, is_full, degrees)``: one
    piece, except for TWC which makes one per degree bin."""
    if strategy != "twc":
        yield strategy, ids, count, full, degrees
        return
    xp = graph.backend.xp
    if full:
        ids = xp.arange(graph.num_vertices, dtype=np.int64)
        degrees = xp.diff(graph.indptr)
    if target == "cpu":
        bins = (("thread", 0, config.CPU_EDGE_CHUNK), ("edge", config.CPU_EDGE_CHUNK, None))
    else:
        bins = (
            ("thread", 0, config.TWC_WARP_MIN_DEGREE),
            ("warp", config.TWC_WARP_MIN_DEGREE, config.TWC_BLOCK_MIN_DEGREE),
            ("block", config.TWC_BLOCK_MIN_DEGREE, None),
        )
    for name, low, high in bins:
        selected = degrees >= low if high is None else (degrees >= low) & (degrees < high)
        piece = ids[selected]
        if piece.size:
            yield name, piece, int(piece.size), False, degrees[selected]


def _offsets(graph, strategy, full, ids, degrees):
    """Exclusive prefix sum of the piece's degrees (edge strategy) and its total edge count."""
    if strategy != "edge":
        return graph.indptr[:0], 0
    if full:
        return graph.indptr, graph.num_arcs
    xp = graph.backend.xp
    offsets = xp.zeros(ids.size + 1, dtype=np.int64)
    xp.cumsum(degrees, out=offsets[1:])
    return offsets, int(offsets[-1])


def _items(target: str, strategy: str, count: int, total: int, backend) -> int:
    """Work items of a launch: CUDA threads, or CPU loop iterations (vertices or edge chunks)."""
    if target == "cpu":
        return -(-total // config.CPU_EDGE_CHUNK) if strategy == "edge" else count
    if strategy == "edge":
        return -(-total // config.EDGE_BALANCED_EDGES_PER_THREAD)
    if strategy == "warp":
        return count * config.WARP_SIZE
    if strategy == "block":
        return count * backend.threads_per_block()
    return count


# --- kernel source -------------------------------------------------------------------------------
_LOOPS = {
    ("cpu", "thread"): """\
for i in range(first, last):
    src = {source}
    for edge in range(indptr[src], indptr[src + 1]):
{body:8}""",
    ("cpu", "edge"): """\
for chunk in range(first, last):
    begin = chunk * {edge_chunk}
    end = min(begin + {edge_chunk}, total)
    i = np.searchsorted(offsets, begin, side="right") - 1
    for position in range(begin, end):
        while offsets[i + 1] <= position:
            i += 1
        src = {source}
        edge = indptr[src] + (position - offsets[i])
{body:8}""",
    ("cuda", "thread"): """\
i = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
if i < count:
    src = {source}
    for edge in range(indptr[src], indptr[src + 1]):
{body:8}""",
    ("cuda", "warp"): """\
i = (np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x) // {warp}
if i < count:
    src = {source}
    for edge in range(indptr[src] + cuda.threadIdx.x % {warp}, indptr[src + 1], {warp}):
{body:8}""",
    ("cuda", "block"): """\
i = np.int64(cuda.blockIdx.x)
if i < count:
    src = {source}
    for edge in range(indptr[src] + cuda.threadIdx.x, indptr[src + 1], cuda.blockDim.x):
{body:8}""",
    ("cuda", "edge"): """\
first = (np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x) * {edges_per_thread}
if first < total:
    last = min(first + {edges_per_thread}, total)
    i = last_at_most(offsets, count, first)
    for position in range(first, last):
        while offsets[i + 1] <= position:
            i += 1
        src = {source}
        edge = indptr[src] + (position - offsets[i])
{body:8}""",
}


def _kernel(call: Call, target: str, strategy: str, full: bool, weighted: bool, epilogue: str, fields: int):
    template = _LOOPS[(target, strategy)]
    body_lines = ["dst = np.int64(indices[edge])"]
    if "weight" in call.function.parameters:
        body_lines.append("weight = weights[edge]" if weighted else "weight = 1.0")
    body_lines.append(f"result = {call.expression('user')}")
    body_lines.append(epilogue)
    body = "\n".join(line for line in body_lines if line)
    loop = fill_template(
        template,
        source="np.int64(i)" if full else "np.int64(frontier[i])",
        body=body,
        edge_chunk=config.CPU_EDGE_CHUNK,
        warp=config.WARP_SIZE,
        edges_per_thread=config.EDGE_BALANCED_EDGES_PER_THREAD,
    )
    message_parameters = "".join(f", message_{k}" for k in range(fields))
    decorator = DECORATORS[target]
    source = (
        f"{decorator}\ndef kernel({CPU_RANGE if target == 'cpu' else ''}{_SIGNATURE}{message_parameters}{call.parameters}):\n"
        + textwrap.indent(loop, "    ")
        + "\n"
    )
    return build_kernel(f"advance_{strategy}", source, target, {"user": call.function})
