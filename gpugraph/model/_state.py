"""State of one program run: records of named fields, and the names user functions can bind.

Shared by the EMV and GAS models (private to gpugraph.model).
"""

from __future__ import annotations

import numpy as np

from gpugraph.errors import EmptyGraphError, InvalidParameterError

#: Names the runtime binds itself; record fields and constants may not use them.
RESERVED = frozenset(
    {
        "v", "src", "dst", "edge", "weight", "slot", "first", "last", "iteration", "num_vertices",
        "out_degree", "in_degree", "indices", "weights", "rid", "in_indices", "in_edge_ids", "gathered",
    }
)


def parse_record(spec, what: str, default_name: str | None = None) -> dict:
    """Turn a record specification into ``{field: (dtype, default value or None)}``.

    Parameters
    ----------
    spec:
        ``None``, a dtype (a one-field record named ``default_name``), or a dict mapping field
        names to a dtype or a ``(dtype, default)`` pair.
    what:
        ``"vertex"``, ``"edge"`` or ``"message"``, for messages.
    default_name:
        Field name for a bare dtype.

    Raises
    ------
    InvalidParameterError
        For a field name that is reserved or not an identifier, or a type that is not numeric.
    """
    if spec is None:
        return {}
    if not isinstance(spec, dict):
        if default_name is None:
            raise InvalidParameterError(f"{what} fields must be a dict of name -> dtype")
        spec = {default_name: spec}
    record = {}
    for name, description in spec.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise InvalidParameterError(f"{what} field name {name!r} is not a Python identifier")
        if name in RESERVED:
            raise InvalidParameterError(f"{what} field name {name!r} is reserved by the runtime")
        dtype, default = description if isinstance(description, tuple) else (description, None)
        try:
            dtype = np.dtype(dtype)
        except TypeError as exc:
            raise InvalidParameterError(f"{what} field {name!r}: {dtype!r} is not a NumPy type") from exc
        if dtype.kind not in "biuf":
            raise InvalidParameterError(f"{what} field {name!r}: type {dtype} is not a number or bool")
        record[name] = (dtype, default)
    return record


def allocate(record: dict, length: int, init: dict, backend, what: str) -> dict:
    """Allocate one array per field on ``backend``, filled from ``init`` or the field default.

    Parameters
    ----------
    record:
        ``{field: (dtype, default)}`` from :func:`parse_record`.
    length:
        Entries per array (vertices or arcs).
    init:
        Field -> scalar or array of ``length`` values (host or device); takes precedence over
        the default. Used entries are removed from the dict.
    backend:
        Where the arrays live.
    what:
        ``"vertex"`` or ``"edge"``, for messages.

    Raises
    ------
    InvalidParameterError
        If an initial array has the wrong length.
    """
    xp = backend.xp
    arrays = {}
    with backend.activate():
        for name, (dtype, default) in record.items():
            value = init.pop(name, default)
            if value is None:
                value = 0
            if np.ndim(value) == 0 and not hasattr(value, "__cuda_array_interface__"):
                arrays[name] = xp.full(length, value, dtype=dtype)
                continue
            array = backend.asarray(value, dtype=dtype).reshape(-1)
            if array.shape[0] != length:
                raise InvalidParameterError(
                    f"initial {what} field {name!r} has {array.shape[0]} values, the graph needs {length}"
                )
            arrays[name] = array.copy() if array is value else array
    return arrays


def check_unique(*records) -> None:
    """Raise :class:`InvalidParameterError` when two records (vertex, edge, message, constants)
    use the same name."""
    seen = {}
    for what, names in records:
        for name in names:
            if name in seen:
                raise InvalidParameterError(f"name {name!r} is both a {seen[name]} and a {what}")
            seen[name] = what


def parse_aggregates(aggregates: dict) -> dict:
    """Check ``{name: (operator, function)}`` and return ``{name: UserFunction}``.

    Raises
    ------
    InvalidParameterError
        If an entry is not a pair of ``"sum"`` / ``"min"`` / ``"max"`` and a function.
    """
    from gpugraph.codegen import UserFunction

    functions = {}
    for name, description in aggregates.items():
        if not (isinstance(description, tuple) and len(description) == 2 and description[0] in ("sum", "min", "max")):
            raise InvalidParameterError(f"aggregate {name!r} must be a pair ('sum' | 'min' | 'max', function)")
        functions[name] = UserFunction.of(description[1], "aggregate")
    return functions


def aggregate_values(graph, aggregates: dict, functions: dict, bindings: dict) -> dict:
    """Evaluate each aggregate: its function on every vertex, combined into one number."""
    from gpugraph.ops import vertex_values

    xp = graph.backend.xp
    values = {}
    for name, (operator, _) in aggregates.items():
        per_vertex = vertex_values(graph, functions[name], bindings=bindings, kind="aggregate")
        with graph.backend.activate():
            values[name] = float(getattr(xp, operator)(per_vertex))
    return values


def prepare_run(program, graph, init: dict | None, engine: str, functions) -> tuple[dict, dict]:
    """Check a run's arguments and allocate its records.

    Parameters
    ----------
    program:
        An EMV or GAS program (``name``, ``vertex``, ``edge`` records).
    graph:
        The graph to run on.
    init:
        Initial field values (see :func:`allocate`).
    engine:
        Requested engine name.
    functions:
        The program's user functions: ``out_degree`` / ``in_degree`` arrays are made only when
        one of them asks for it.

    Returns
    -------
    tuple
        ``(vertex fields, arrays)``: the vertex record, and every array user functions may bind
        by name (vertex and edge fields, degrees).

    Raises
    ------
    InvalidParameterError
        For an unknown engine, unknown init fields or wrong lengths.
    EmptyGraphError
        If the graph has no vertices.
    """
    from gpugraph.engines import ENGINES

    if engine not in ENGINES:
        raise InvalidParameterError(f"unknown engine {engine!r}; use one of {', '.join(ENGINES)}")
    if graph.num_vertices == 0:
        raise EmptyGraphError(f"{program.name}: the graph has no vertices")
    init = dict(init or {})
    vertex = allocate(program.vertex, graph.num_vertices, init, graph.backend, "vertex")
    edge = allocate(program.edge, graph.num_arcs, init, graph.backend, "edge")
    if init:
        raise InvalidParameterError(f"init names unknown fields: {', '.join(sorted(init))}")
    names = {name for function in functions for name in function.parameters}
    arrays = {**vertex, **edge}
    if "out_degree" in names:
        arrays["out_degree"] = graph.out_degree()
    if "in_degree" in names:
        arrays["in_degree"] = graph.in_degree()
    return vertex, arrays


class RunnableProgram:
    """What EMV and GAS programs share: ``run`` on a graph with the bsp engine.

    A subclass sets ``name``, ``constants``, ``max_iterations`` and ``set_active``, and
    implements ``_start(graph, init, engine, strategy) -> vertex fields`` (allocate the run's
    state) and ``superstep(round_)`` (called by the engine), and ``_finish()`` (drop the state).
    """

    def run(
        self,
        graph,
        *,
        init: dict | None = None,
        active=None,
        max_iterations: int | None = None,
        strategy: str = "auto",
        engine: str = "bsp",
        show_progress: bool = False,
    ):
        """Run the program on ``graph`` (on the graph's device) and return the vertex fields.

        Parameters
        ----------
        graph:
            The graph; move it first with ``graph.to("cuda")`` to run on a GPU.
        init:
            Initial values: ``{field: scalar or array}`` for vertex and edge fields (defaults
            from the records, else 0).
        active:
            Vertex ids active in the first iteration; ``None`` = every vertex.
        max_iterations:
            Overrides the program's limit for this run.
        strategy:
            Load-balancing strategy of the program's edge work (:func:`gpugraph.ops.advance`
            for EMV edge steps, :func:`gpugraph.ops.pull` for GAS gathers).
        engine:
            ``"bsp"`` (the path engine, :mod:`gpugraph.engines.path`, runs its own update kinds).
        show_progress:
            Show a progress bar of iterations on a terminal.

        Returns
        -------
        Result
            ``values``: the vertex fields; ``stats``: the engine's counters.

        Raises
        ------
        EmptyGraphError
            If the graph has no vertices.
        InvalidParameterError
            For unknown init fields, wrong lengths or an unknown engine.
        VertexIdError
            If an ``active`` id is not a vertex.
        ProgramError
            If a user function does not compile for the graph's types.
        """
        from gpugraph.algorithms.result import Result
        from gpugraph.engines import bsp
        from gpugraph.ops import Frontier

        vertex = self._start(graph, init, engine, strategy)
        try:
            first = Frontier.all(graph) if active is None else Frontier.from_ids(graph, active)
            limit = self.max_iterations if max_iterations is None else int(max_iterations)
            counters = bsp.run(self, graph, first, limit, show_progress=show_progress)
        finally:
            self._finish()
        parameters = {"max_iterations": limit, "strategy": strategy, **self.constants}
        return Result(self.name, graph, dict(vertex), counters, parameters)
