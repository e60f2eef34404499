"""The GAS model (gather / apply / scatter, as in PowerGraph), run by the bsp engine.

Each round, for every active vertex ``v``:

1. **gather**: ``gather(src, dst, edge, weight, ...)`` on each in-edge ``src -> v``, combined
   with ``combine`` (``"sum"``, ``"min"``, ``"max"`` or an associative function) into
   ``gathered``;
2. **apply**: ``apply(v, gathered, ...)`` updates ``v``'s fields and returns whether ``v``
   changed;
3. **scatter**: the out-neighbours of changed vertices become active for the next round —
   those for which ``scatter(src, dst, edge, weight, ...)`` is true, if a scatter function is
   given (``activate="neighbours"``, the default); or, with ``activate="all"``, every vertex
   stays active while any vertex changed.

Parameters of user functions are bound by name as in :mod:`gpugraph.model.emv` (vertex and edge
fields as arrays, ``out_degree`` / ``in_degree``, ``iteration``, ``num_vertices``, constants and
aggregates). Gather functions read neighbours and write nothing; apply writes its own vertex.
"""

from __future__ import annotations

from gpugraph.codegen import UserFunction
from gpugraph.errors import InvalidParameterError
from gpugraph.model._state import (
    RESERVED, RunnableProgram, aggregate_values, check_unique, parse_aggregates, parse_record, prepare_run,
)
from gpugraph.ops import advance, pull, vertex_map

ACTIVATIONS = ("neighbours", "all")


class Program(RunnableProgram):
    """A gather-apply-scatter program.

    Parameters
    ----------
    gather, apply:
        The user functions (module docstring).
    vertex:
        Vertex record: ``{field: dtype or (dtype, default)}``.
    combine:
        How gathered values combine: ``"sum"``, ``"min"``, ``"max"`` or an associative,
        commutative function of two values (then give ``identity``).
    identity:
        The combiner's identity (``gathered`` of a vertex without in-edges).
    scatter:
        Optional edge predicate choosing which out-neighbours of a changed vertex to activate.
    activate:
        ``"neighbours"`` (dynamic scheduling) or ``"all"`` (every vertex every round).
    edge, constants, aggregates, max_iterations, name:
        As for :class:`gpugraph.model.emv.Program`.

    Raises
    ------
    InvalidParameterError
        For a malformed record, a name used twice or an unknown ``activate``.
    ProgramError
        For functions that are not plain Python functions.
    """

    def __init__(
        self,
        *,
        gather,
        apply,
        vertex,
        combine="sum",
        identity=None,
        scatter=None,
        activate: str = "neighbours",
        edge=None,
        constants: dict | None = None,
        aggregates: dict | None = None,
        max_iterations: int = 2**31 - 1,
        name: str = "gas",
    ):
        if activate not in ACTIVATIONS:
            raise InvalidParameterError(f"activate must be one of {', '.join(ACTIVATIONS)}, got {activate!r}")
        self.gather = UserFunction.of(gather, "gather")
        self.apply = UserFunction.of(apply, "apply")
        self.scatter = UserFunction.of(scatter, "scatter") if scatter is not None else None
        self.combine, self.identity = combine, identity
        self.vertex = parse_record(vertex, "vertex")
        self.edge = parse_record(edge, "edge")
        self.constants = dict(constants or {})
        self.aggregates = dict(aggregates or {})
        self._aggregate_functions = parse_aggregates(self.aggregates)
        check_unique(
            ("vertex field", self.vertex), ("edge field", self.edge), ("constant", self.constants),
            ("aggregate", self.aggregates), ("runtime name", RESERVED),
        )
        self.activate = activate
        self.set_active = activate == "neighbours"
        self.max_iterations = int(max_iterations)
        self.name = name
        self._run = None

    def __repr__(self) -> str:
        return f"gas.Program({self.name!r})"

    # --- running (``run`` comes from RunnableProgram) ----------------------------------------
    def _start(self, graph, init, engine, strategy) -> dict:
        functions = [self.gather, self.apply, *([self.scatter] if self.scatter else []), *self._aggregate_functions.values()]
        vertex, arrays = prepare_run(self, graph, init, engine, functions)
        self._run = {"arrays": arrays, "strategy": strategy, "gathered": None}
        return vertex

    def _finish(self) -> None:
        self._run = None

    def superstep(self, round_):
        """One gather-apply-scatter round (called by the engine); returns the next active set
        (or, with ``activate="all"``, the vertices that changed)."""
        graph, run = round_.graph, self._run
        scalars = {"iteration": round_.iteration, "num_vertices": graph.num_vertices, **self.constants}
        bindings = {**run["arrays"], **scalars}
        if self.aggregates:
            bindings.update(aggregate_values(graph, self.aggregates, self._aggregate_functions, bindings))
        run["gathered"] = pull(
            graph, round_.active, self.gather, self.combine, identity=self.identity, bindings=bindings,
            strategy=run["strategy"], out=run["gathered"], counters=round_.counters,
        )
        changed = vertex_map(
            graph, round_.active, self.apply, bindings=bindings, elements={"gathered": (run["gathered"], "v")},
            output="sparse" if self.set_active else "dense", kind="apply",
        )
        round_.count("vertex_updates", round_.active.size)
        if changed is None or not self.set_active:
            return changed
        return advance(
            graph, changed, self.scatter if self.scatter is not None else _activate, bindings=bindings,
            output="sparse", counters=round_.counters,
        )


def _activate(dst):
    return True
