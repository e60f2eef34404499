"""The EMV programming model of Medusa (Zhong & He, TPDS 2014, §3-4), in plain Python.

A program is a sequence of steps run once per iteration. Each step applies one user function,
written as ordinary sequential Python, to every edge, vertex or message in parallel:

=============  =================================  =============================================
step           runs the function on               the function
=============  =================================  =============================================
``EDGE``       each out-edge of an active vertex  returns the message sent along the edge
``ELIST``      each active vertex's edge list     loops ``for e in range(first, last)`` itself
                                                  and sends with ``message[rid[e]] = value``
``MESSAGE``    each message slot of a receiver    returns the slot's new message
``MLIST``      each receiver's message list       loops ``range(first, last)`` over its slots
``Combiner``   (no user code, or an associative   combines each receiver's messages into one
               function of two messages)          value per field
``VERTEX``     each receiver (or active vertex)   updates the vertex's fields
=============  =================================  =============================================

Parameters are bound **by name**:

* ``v`` (vertex steps), ``src`` / ``dst`` / ``edge`` / ``weight`` (``EDGE``), ``first`` /
  ``last`` (list steps), ``slot`` (``MESSAGE``); ``iteration`` and ``num_vertices``;
* vertex and edge fields: the whole array (read ``rank[src]``, write ``rank[v]``);
* ``out_degree`` / ``in_degree`` arrays, and ``indices``, ``weights``, ``rid``,
  ``in_indices``, ``in_edge_ids`` (the graph's arrays, for the list steps);
* message fields: in ``VERTEX`` the vertex's *combined* message (a number); in ``MLIST``
  and ``ELIST`` the message buffer array; in ``MESSAGE`` the slot's message (a number);
* the program's ``constants`` and ``aggregates`` (numbers).

Messages live in one buffer per field with one slot per arc, laid out by reverse-edge index
(Medusa's rID): the message along arc ``e = u -> v`` sits at ``rid[e]``, so the messages to ``v``
are the contiguous slots ``in_indptr[v]:in_indptr[v + 1]`` and the combiner reads them without
grouping. A slot no one wrote holds the combiner's identity (it is reset after being combined).

Iteration control: ``VERTEX`` and ``MLIST`` functions may return a vote — true means "I am
active" (with ``set_active=True`` the vertex is in the next iteration's queue, which the
``EDGE`` / ``ELIST`` steps expand) and "keep going". The run stops when no vertex votes
(Medusa's ``halt``) or after ``max_iterations``. Functions returning nothing never halt the run.

Writes are race-free when each function writes only its own vertex's fields (``VERTEX``,
``MLIST``) or sends messages; that is the model's contract.
"""

from __future__ import annotations

import textwrap

import numpy as np

from gpugraph.codegen import UserFunction, build_kernel
from gpugraph.errors import InvalidParameterError, ProgramError
from gpugraph.model._state import (
    RESERVED, RunnableProgram, aggregate_values, check_unique, parse_aggregates, parse_record, prepare_run,
)
from gpugraph.ops import Frontier, advance, default_identity, segmented_reduce, vertex_map
from gpugraph.ops._parts import CPU_RANGE, DECORATORS, Call, launch

MAX_ITERATIONS = 2**31 - 1


class Step:
    """One step of an iteration: a user function and the kind of element it runs on."""

    kind = "step"

    def __init__(self, function):
        self.function = UserFunction.of(function, self.kind)

    def __repr__(self) -> str:
        return f"{self.kind}({self.function.function.__name__})"


class EDGE(Step):
    """Run ``function`` on each out-edge of the active vertices; its result is the message."""

    kind = "EDGE"


class ELIST(Step):
    """Run ``function`` on each active vertex's out-edge list (``first``, ``last``)."""

    kind = "ELIST"


class MESSAGE(Step):
    """Run ``function`` on each message slot of the receiving vertices; its result replaces it."""

    kind = "MESSAGE"


class MLIST(Step):
    """Run ``function`` on each receiving vertex's message list (``first``, ``last`` slots)."""

    kind = "MLIST"


class VERTEX(Step):
    """Run ``function`` on each receiving vertex (or each active vertex when nothing was sent)."""

    kind = "VERTEX"


class Combiner(Step):
    """Combine each receiver's messages with ``"sum"``, ``"min"``, ``"max"`` or an associative
    function of two messages (then ``identity`` is required).

    For a message record, the operator applies to every field (a dict gives one per field).
    """

    kind = "Combiner"

    def __init__(self, operator="sum", identity=None):
        operators = operator if isinstance(operator, dict) else None
        self.operators = operators
        self.operator = operator
        self.identity = identity
        self.function = None

    def operator_for(self, field: str):
        """The operator combining message field ``field``."""
        return self.operators.get(field, "sum") if self.operators is not None else self.operator

    def __repr__(self) -> str:
        return f"Combiner({self.operator!r})"


class Program(RunnableProgram):
    """A Medusa EMV program: records, an iteration of steps, and iteration control.

    Parameters
    ----------
    steps:
        The steps of one iteration, in order (:class:`EDGE`, :class:`ELIST`, :class:`MESSAGE`,
        :class:`MLIST`, :class:`Combiner`, :class:`VERTEX`).
    vertex:
        Vertex record: ``{field: dtype or (dtype, default)}``.
    edge:
        Edge record (one value per arc, indexed by ``edge``), same form.
    message:
        Message record: a dtype (one field named ``message``) or ``{field: dtype}``.
    constants:
        ``{name: number}`` bound to every function.
    aggregates:
        ``{name: (operator, function)}``: before each iteration, ``function(v, ...)`` runs on
        every vertex and its results are combined with ``"sum"``, ``"min"`` or ``"max"`` into a
        number bound as ``name`` (Pregel's aggregators; PageRank's dangling mass).
    set_active:
        Queue mode: only vertices that voted are active in the next iteration.
    max_iterations:
        Iteration limit (Medusa's ``maxIteration``).
    name:
        Name of the program in results and progress output.

    Raises
    ------
    InvalidParameterError
        For a malformed record, a name used twice, or steps that are not steps.
    ProgramError
        For a function whose parameters cannot be bound (checked again per run with types).
    """

    def __init__(
        self,
        steps,
        *,
        vertex=None,
        edge=None,
        message=None,
        constants: dict | None = None,
        aggregates: dict | None = None,
        set_active: bool = False,
        max_iterations: int = MAX_ITERATIONS,
        name: str = "emv",
    ):
        self.steps = list(steps)
        bad = [step for step in self.steps if not isinstance(step, Step)]
        if bad or not self.steps:
            raise InvalidParameterError(f"steps must be a non-empty list of EMV steps, got {bad or steps!r}")
        self.vertex = parse_record(vertex, "vertex")
        self.edge = parse_record(edge, "edge")
        self.message = parse_record(message, "message", default_name="message")
        self.constants = dict(constants or {})
        self.aggregates = dict(aggregates or {})
        self._aggregate_functions = parse_aggregates(self.aggregates)
        check_unique(
            ("vertex field", self.vertex), ("edge field", self.edge), ("message field", self.message),
            ("constant", self.constants), ("aggregate", self.aggregates),
            ("runtime name", RESERVED),
        )
        sends = any(isinstance(step, (EDGE, ELIST)) for step in self.steps)
        if sends and not self.message:
            raise InvalidParameterError("EDGE and ELIST steps send messages: declare the message record")
        self.set_active = bool(set_active)
        self.max_iterations = int(max_iterations)
        self.name = name
        self._state = None

    def __repr__(self) -> str:
        return f"emv.Program({self.name!r}, steps={self.steps})"

    # --- running (``run`` comes from RunnableProgram) ----------------------------------------
    def _start(self, graph, init, engine, strategy) -> dict:
        self._state = _State(self, graph, init, engine, strategy)
        return self._state.vertex

    def _finish(self) -> None:
        self._state = None

    def superstep(self, round_) -> Frontier | None:
        """Run the steps once (called by the engine). Returns the vertices that voted, if any
        step votes."""
        return self._state.superstep(round_)


class _State:
    """Arrays of one run and the execution of each step kind."""

    def __init__(self, program: Program, graph, init: dict | None, engine: str, strategy: str):
        self.program, self.graph, self.strategy = program, graph, strategy
        backend = graph.backend
        xp = backend.xp
        functions = [step.function for step in program.steps if step.function is not None]
        functions += list(program._aggregate_functions.values())
        self.vertex, self.arrays = prepare_run(program, graph, init, engine, functions)
        combiner = next((step for step in program.steps if isinstance(step, Combiner)), None)
        self.identity = {}
        with backend.activate():
            for field, (dtype, _) in program.message.items():
                if combiner is None:
                    identity = dtype.type(0)
                elif combiner.identity is not None:
                    identity = dtype.type(combiner.identity[field] if isinstance(combiner.identity, dict) else combiner.identity)
                else:
                    identity = default_identity(combiner.operator_for(field), dtype)
                self.identity[field] = identity
            self.buffers = {f: xp.full(graph.num_arcs, self.identity[f], dtype=d) for f, (d, _) in program.message.items()}
            self.combined = {f: xp.full(graph.num_vertices, self.identity[f], dtype=d) for f, (d, _) in program.message.items()}
        names = {name for function in functions for name in function.parameters}
        self.graph_arrays = {
            "indices": lambda: graph.indices,
            "weights": lambda: graph.weights if graph.weights is not None else xp.ones(graph.num_arcs),
            "rid": lambda: graph.reverse_edge_index,
            "in_indices": lambda: graph.in_indices,
            "in_edge_ids": lambda: graph.in_edge_ids,
        }
        self.graph_arrays = {name: make() for name, make in self.graph_arrays.items() if name in names}
        # Queue mode needs the voters' ids; otherwise only their number counts, and a byte per
        # vertex avoids the GPU's atomic appends to one queue counter.
        self.vote_output = "sparse" if program.set_active else "dense"
        # Slots not overwritten every iteration must be reset to the identity after use.
        self.reset = program.set_active or any(isinstance(s, (ELIST, MESSAGE)) for s in program.steps)

    def scalars(self, round_) -> dict:
        return {"iteration": round_.iteration, "num_vertices": self.graph.num_vertices, **self.program.constants}

    def superstep(self, round_) -> Frontier | None:
        graph, program = self.graph, self.program
        scalars = {**self.scalars(round_), **self._aggregates(round_)}
        common = {**self.arrays, **self.graph_arrays, **scalars}
        active = round_.active
        current, receivers, voters, combined = active, None, None, False
        for step in program.steps:
            if isinstance(step, EDGE):
                receivers = advance(
                    graph, active, step.function, bindings=common, strategy=self.strategy,
                    output="sparse" if program.set_active else None,
                    messages=tuple(self.buffers.values()), counters=round_.counters,
                )
                current = receivers if receivers is not None else Frontier.all(graph)
            elif isinstance(step, ELIST):
                vertex_map(graph, active, step.function, bindings={**common, **self.buffers}, kind="ELIST",
                           elements=self._list_bounds(graph.indptr))
                if program.set_active:
                    receivers = advance(graph, active, _reached, output="sparse", counters=round_.counters)
                else:  # every vertex is active: the lists are all the arcs
                    round_.count("edges_traversed", graph.num_arcs)
                    receivers = None
                current = receivers if receivers is not None else Frontier.all(graph)
            elif isinstance(step, Combiner):
                combined = True
                segments = None if current.kind == "all" else current.to_sparse().ids()
                for field, buffer in self.buffers.items():
                    operator = step.operator_for(field)
                    segmented_reduce(
                        buffer, graph.in_indptr, operator, segments=segments, identity=self.identity[field],
                        reset=self.reset, out=self.combined[field], device=graph.backend,
                    )
            elif isinstance(step, MLIST):
                voters = self._vote(vertex_map(
                    graph, current, step.function, bindings={**common, **self.buffers}, kind="MLIST",
                    elements=self._list_bounds(graph.in_indptr), output=self.vote_output,
                ), voters)
                round_.count("vertex_updates", current.size)
            elif isinstance(step, MESSAGE):
                self._message_map(step, current, common)
            elif isinstance(step, VERTEX):
                elements = {field: (array, "v") for field, array in self.combined.items()}
                voters = self._vote(vertex_map(
                    graph, current, step.function, bindings=common, elements=elements, kind="VERTEX",
                    output=self.vote_output,
                ), voters)
                round_.count("vertex_updates", current.size)
        if self.reset and not combined and receivers is not None:
            self._reset_slots(receivers)
        return voters

    @staticmethod
    def _vote(new, previous):
        return new if new is not None else previous

    @staticmethod
    def _list_bounds(offsets) -> dict:
        return {"first": (offsets, "v"), "last": (offsets, "v + 1")}

    def _aggregates(self, round_) -> dict:
        bindings = {**self.arrays, **self.graph_arrays, **self.scalars(round_)}
        return aggregate_values(self.graph, self.program.aggregates, self.program._aggregate_functions, bindings)

    def _message_map(self, step: MESSAGE, current: Frontier, common: dict) -> None:
        graph = self.graph
        backend = graph.backend
        target = "cuda" if backend.is_cuda else "cpu"
        import numba
        from numba import types

        locals_ = {"slot": ("k", types.int64), "src": ("np.int64(in_indices[k])", types.int64), "dst": ("v", types.int64)}
        # The slot's message is read from the buffer argument the result is stored into (one
        # argument per buffer: aliased arguments would be copied apart by the simulator).
        for index, (field, buffer) in enumerate(self.buffers.items()):
            locals_[field] = (f"message_{index}[k]", numba.from_dtype(buffer.dtype))
        call = Call(step.function, "MESSAGE", locals_, common, backend)
        result_type = call.return_type()
        fields = list(self.buffers)
        record = isinstance(result_type, types.BaseTuple)
        if (len(result_type) if record else 1) != len(fields):
            raise ProgramError(f"returns {len(result_type) if record else 1} value(s) for a {len(fields)}-field message",
                               step.function.label)
        stores = "\n".join(f"message_{i}[k] = result{f'[{i}]' if record else ''}" for i in range(len(fields)))
        full = current.kind == "all"
        ids = backend.xp.empty(0, dtype=np.int64) if full else current.to_sparse().ids()
        count = graph.num_vertices if full else int(ids.size)
        if count == 0:
            return
        loop = "for i in range(first, last):\n" if target == "cpu" else (
            "i = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x\nif i < count:\n")
        body = (f"v = {'np.int64(i)' if full else 'np.int64(frontier[i])'}\n"
                f"for k in range(in_indptr[v], in_indptr[v + 1]):\n"
                f"    result = {call.expression('user')}\n" + textwrap.indent(stores, "    ") + "\n")
        decorator = DECORATORS[target]
        parameters = "".join(f", message_{i}" for i in range(len(fields)))
        prefix = CPU_RANGE if target == "cpu" else ""
        source = (f"{decorator}\ndef kernel({prefix}frontier, count, in_indptr, in_indices{parameters}{call.parameters}):\n"
                  + textwrap.indent(loop + textwrap.indent(body, "    "), "    "))
        kernel = build_kernel("emv_message", source, target, {"user": call.function})
        args = (ids, np.int64(count), graph.in_indptr, graph.in_indices, *self.buffers.values(), *call.values)
        launch(kernel, backend, count, args, [call.function])

    def _reset_slots(self, receivers: Frontier) -> None:
        segments = None if receivers.kind == "all" else receivers.to_sparse().ids()
        for field, buffer in self.buffers.items():
            scratch = self.graph.backend.xp.empty(self.graph.num_vertices, dtype=buffer.dtype)
            segmented_reduce(buffer, self.graph.in_indptr, "sum", segments=segments, identity=self.identity[field],
                             reset=True, out=scratch, device=self.graph.backend)


def _reached(dst):
    return True
