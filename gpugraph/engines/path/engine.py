"""Rounds of the path engine and of the engines it is measured against.

Schedules (all run the same :class:`~gpugraph.engines.path.programs.PathProgram`):

``bsp``     synchronous vertex-centric rounds; updates become visible at the next round
            (Jacobi). SUM programs update every vertex in every round until no vertex has a
            change above the tolerance (power iteration, as :mod:`gpugraph.algorithms.pagerank`
            and the GAS programs of :mod:`gpugraph.engines.bsp` run them); MIN and PEEL
            programs propagate only the vertices that changed in the previous round.
``bsp-delta`` synchronous, SUM programs propagating only vertices whose pending change exceeds
            the tolerance (a stronger baseline than ``bsp``; MIN and PEEL as ``bsp``).
``async``   plain asynchronous vertex-centric rounds, DiGraph's "DiGraph-t" baseline: every
            vertex with a pending change propagates its live state, and what it pushes is seen
            by vertices processed later in the same round (no paths).
``path-w``  DiGraph without path scheduling: the active chunks of paths in stored (layer) order,
            each walked sequentially by one thread, a vertex's new state used at once by its
            successor, a chunk walked again (up to ``sweeps`` times) while it feeds back into
            itself.
``path``    full DiGraph: the same, the launch ordered by the priority
            ``Pri = alpha * mean_degree * active_arcs - layer`` (§3.2.3) when more chunks are
            active than the GPU keeps resident. ``layered=True`` adds dependency-aware dispatch
            (one layer a round) to either.

Counters (``Result.stats``): ``rounds``; ``vertex_updates``, the number of (round, vertex)
pairs in which the vertex's state changed (for SUM programs: by more than the tolerance in one
step — a vertex-centric vertex applying its residual, or a path arc delivering to it) — the
same definition for every schedule; ``arcs_loaded`` (arcs examined) and ``arcs_delivered``
(arcs that carried an update); ``bytes_loaded`` (``arcs_loaded`` times the bytes one examined
arc reads: vertex id, state, arc value, and for the paths the arc's last-sent value S_val);
``utilisation`` (``arcs_delivered / arcs_loaded``); ``seconds`` (processing: the rounds,
without compilation); ``setup_seconds`` (copying the program's and layout's arrays to the
device and allocating the state, before the rounds); ``preprocessing_seconds`` (building the
path layout when this run built it; 0 for the vertex-centric schedules and for a layout kept on
the graph from an earlier run); ``layout_seconds`` (what building the layout took, either way);
``compile_seconds``; ``converged``; with ``profile=True``, ``walk_seconds``; for the path
schedules ``proxy_vertices`` (vertices with shared-memory proxies, ``solve(proxies=...)``) and
``batched`` (whether the rounds batched their messages, ``solve(batching=True)``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from gpugraph import config
from gpugraph.algorithms.result import Result
from gpugraph.backend import array_module, to_numpy
from gpugraph.backend.kernels import compile_seconds
from gpugraph.engines.path.device_layout import build_device_layout
from gpugraph.engines.path.layout import build_layout
from gpugraph.engines.path.programs import MIN, SUM, PathProgram, make_program
from gpugraph.errors import InvalidParameterError

#: What :func:`solve` runs: the synchronous baselines, plain asynchronous rounds (DiGraph-t), and
#: the path rounds without (``path-w``) and with (``path``) priority scheduling.
SCHEDULES = ("bsp", "bsp-delta", "async", "path-w", "path")
#: How the GPU path rounds spread their chunks over the SMs (``solve(balance=...)``).
BALANCES = ("hardware", "static", "stealing")


def solve(graph, algorithm, *, schedule: str = "path", max_rounds: int = config.PATH_MAX_ROUNDS,
          max_depth: int = config.PATH_MAX_DEPTH, chunk_arcs: int = config.PATH_CHUNK_ARCS,
          priority_min_chunks: int = config.PATH_PRIORITY_MIN_CHUNKS, layered: bool = False,
          sweeps: int = config.PATH_CHUNK_SWEEPS, pieces: int = config.PATH_PIECES, profile: bool = False,
          proxies: int | None = None, bucket_width: float | None = None, layout: str | None = None,
          balance: str | None = None, batching: bool = False, **parameters) -> Result:
    """Run ``algorithm`` on ``graph`` with the path engine (or a baseline schedule).

    Parameters
    ----------
    graph:
        The graph, on the CPU or a CUDA device.
    algorithm:
        ``"pagerank"``, ``"adsorption"``, ``"sssp"`` or ``"kcore"`` (parameters in
        :func:`gpugraph.engines.path.programs.make_program`), or a user's program made with
        :func:`~gpugraph.engines.path.programs.accumulative` or
        :func:`~gpugraph.engines.path.programs.minimum` (then no parameters).
    schedule:
        ``"path"`` (default), ``"path-w"``, ``"async"``, ``"bsp-delta"`` or ``"bsp"`` (module
        docstring).
    max_rounds:
        Most rounds; ``stats["converged"]`` is ``False`` if they ran out.
    max_depth, chunk_arcs:
        D_MAX of the partitioning and arcs per chunk (path schedules; a layout is built once
        per graph and pair of values).
    priority_min_chunks:
        ``path``: active chunks are launched in priority order only when there are more than
        this (:data:`gpugraph.config.PATH_PRIORITY_MIN_CHUNKS`); 0 sorts every round.
    layered:
        Dependency-aware dispatch: a round runs only the lowest active layer's chunks.
    sweeps:
        Walks of a chunk per round while it feeds back into itself
        (:data:`gpugraph.config.PATH_CHUNK_SWEEPS`).
    pieces:
        Subgraphs the path partitioning traverses in parallel (path schedules;
        :data:`gpugraph.config.PATH_PIECES`; 1: the sequential Algorithm 1). Part of the
        layout's key, like ``max_depth`` and ``chunk_arcs``.
    profile:
        Synchronise around each round's walk kernel and report its time as
        ``stats["walk_seconds"]`` (path schedules).
    proxies:
        Path schedules on a GPU: how many of the vertices with the most path arcs into them get
        a proxy in each thread block's shared memory (at most
        :data:`gpugraph.config.PATH_PROXY_SLOTS`; vertices with one arc in get none). ``None``:
        :data:`gpugraph.config.PATH_MIN_PROXY_VERTICES` for MIN programs (SSSP), none for the
        others. The CPU has no such memory and ignores it; ``stats["proxy_vertices"]`` says how
        many were used.
    bucket_width:
        Path schedules, MIN programs (SSSP): a round sends only the states within this of the
        least state left to send, the others wait (buckets, as in delta-stepping): fewer vertex
        updates, more rounds. ``None``: :data:`gpugraph.config.PATH_MIN_BUCKET_WEIGHTS` times
        the mean arc weight (by default no buckets); ``math.inf``: every state is sent at once.
        ``stats["bucket_width"]`` says what ran. With buckets the walks use no proxies.
    layout:
        Path schedules: where the layout is built. ``"host"``: Algorithm 1 in ``pieces`` pieces
        with linking, SCCs and layers on the host's cores
        (:func:`~gpugraph.engines.path.layout.build_layout`). ``"device"``: the partitioning
        over many pieces on the graph's GPU, no linking, one layer
        (:mod:`~gpugraph.engines.path.device_layout`; on a CPU graph the same steps on one
        core). ``None``: :data:`gpugraph.config.PATH_GPU_LAYOUT` on a GPU unless ``layered`` or
        ``max_depth`` is above :data:`gpugraph.config.PATH_DEVICE_MAX_DEPTH`, else ``"host"``.
        ``stats["layout_built_on"]`` says which ran.
    balance:
        Path schedules on a GPU: how a round's chunks are spread over the SMs. ``"hardware"``:
        a thread per chunk, the block scheduler handing the next blocks to whichever SM frees
        up; ``"static"``: a grid of blocks each owning an equal stretch of the round's chunks;
        ``"stealing"``: those stretches, and a block whose stretch is done steals from the
        others' (DiGraph's work stealing, §3.2.2). ``None``: :data:`gpugraph.config.PATH_BALANCE`.
        Without buckets only (with proxies, a block's proxies combine the deliveries of its
        stretch's walks); the CPU's rounds take chunks from a dynamic schedule whatever it says.
    batching:
        Path schedules on a GPU: DiGraph's message batching (§3.2.2). A thread block holds the
        messages of the arcs whose heads its chunks do not read in shared memory
        (:data:`gpugraph.config.PATH_BATCH_SLOTS`) and pushes them at its end arranged by
        destination partition; the arcs into vertices a chunk reads deliver at once. Off by
        default (measured in docs/path-engine.md, "Message batching"). Plain rounds only: no
        proxies (``proxies=None`` then means none), buckets or ``balance`` other than
        ``"hardware"``. The CPU ignores it; ``stats["batched"]`` says whether it ran.
    **parameters:
        The algorithm's parameters.

    Returns
    -------
    Result
        ``rank`` / ``score`` / ``distance`` / ``in_core`` (host arrays, internal ids) and the
        counters of the module docstring, plus the layout's sizes for path schedules.

    Raises
    ------
    InvalidParameterError
        For an unknown schedule or algorithm, or bad parameters.
    DeviceOutOfMemoryError
        If the device cannot hold the run's state (the message says how much memory is free).
    EmptyGraphError, InvalidWeightError, VertexIdError
        As :func:`~gpugraph.engines.path.programs.make_program` raises them.
    """
    if schedule not in SCHEDULES:
        raise InvalidParameterError(f"unknown schedule {schedule!r}; use one of {', '.join(SCHEDULES)}")
    if min(int(max_rounds), int(chunk_arcs), int(sweeps), int(pieces)) < 1 or int(priority_min_chunks) < 0:
        raise InvalidParameterError(
            f"max_rounds, chunk_arcs, sweeps and pieces must be >= 1 and priority_min_chunks >= 0; got {max_rounds}, "
            f"{chunk_arcs}, {sweeps}, {pieces}, {priority_min_chunks}")
    if layout not in (None, *LAYOUT_BUILDERS):
        raise InvalidParameterError(f"unknown layout {layout!r}; use one of {', '.join(LAYOUT_BUILDERS)} (or None)")
    if proxies is not None and not 0 <= int(proxies) <= config.PATH_PROXY_SLOTS:
        raise InvalidParameterError(f"proxies must be in [0, {config.PATH_PROXY_SLOTS}]; got {proxies}")
    balance = config.PATH_BALANCE if balance is None else balance
    if balance not in BALANCES:
        raise InvalidParameterError(f"unknown balance {balance!r}; use one of {', '.join(BALANCES)}")
    if isinstance(algorithm, PathProgram):
        if parameters:
            raise InvalidParameterError(f"a PathProgram takes no parameters here; got {', '.join(sorted(parameters))}")
        program = algorithm
    else:
        program = make_program(graph, algorithm, **parameters)
    if proxies is None:
        proxies = config.PATH_MIN_PROXY_VERTICES if program.kind == MIN and not batching else 0
    bucket_width = _bucket_width(program, bucket_width)
    stats = {"schedule": schedule, "preprocessing_seconds": 0.0}
    path = None
    if schedule.startswith("path"):
        on_gpu = graph.backend.is_cuda and not layered and int(max_depth) <= config.PATH_DEVICE_MAX_DEPTH
        where = layout or (config.PATH_GPU_LAYOUT if on_gpu else "host")
        path, cached = path_layout(graph, program, int(max_depth), int(chunk_arcs), int(pieces), where)
        stats.update(path.summary())
        stats["preprocessing_seconds"] = 0.0 if cached else path.seconds
    backend = graph.backend
    compiled_before = compile_seconds()
    start = time.perf_counter()
    with backend.activate():
        kernels = _kernels(backend)
        what = (f"allocating the {schedule} schedule's state for {algorithm} on {graph.num_vertices:,} vertices "
                f"and {program.indices.size:,} arcs")
        with backend.out_of_memory_named(what):
            if path is None:
                rounds = _VertexRounds(backend, kernels, program, schedule)
            else:
                rounds = _PathRounds(backend, kernels, program, path, schedule == "path", layered=bool(layered),
                                     priority_min_chunks=int(priority_min_chunks), sweeps=int(sweeps),
                                     profile=bool(profile), proxies=int(proxies), bucket_width=bucket_width,
                                     balance=balance, batching=bool(batching))
                stats["proxy_vertices"] = rounds.proxies
                stats["batched"] = rounds.batching
                if rounds.buckets is not None:
                    stats["bucket_width"] = bucket_width
        backend.synchronize()
        stats["setup_seconds"] = time.perf_counter() - start
        start = time.perf_counter()
        stats.update(rounds.run(int(max_rounds)))
        backend.synchronize()
        stats["compile_seconds"] = compile_seconds() - compiled_before
        stats["seconds"] = time.perf_counter() - start - stats["compile_seconds"]
        state = to_numpy(rounds.x)
    id_bytes = np.dtype(program.indices.dtype).itemsize
    stats["bytes_loaded"] = stats["arcs_loaded"] * (id_bytes + 16 + (8 if path is not None else 0))
    stats["utilisation"] = stats["arcs_delivered"] / max(stats["arcs_loaded"], 1)
    return Result(program.name, graph, program.finish(state), stats, {**program.parameters, "schedule": schedule})


def _bucket_width(program, width: float | None) -> float:
    """The bucket width a MIN program's path rounds use (``solve``'s ``bucket_width``): ``width``,
    or :data:`gpugraph.config.PATH_MIN_BUCKET_WEIGHTS` times the mean arc weight (no buckets
    when that is infinite, the default, or the graph has no arcs or only zero weights);
    ``math.inf`` for other programs."""
    if program.kind != MIN:
        return np.inf
    if width is None:
        mean = float(program.arc_values.mean()) if program.arc_values.size else 0.0
        return config.PATH_MIN_BUCKET_WEIGHTS * mean if mean > 0 and config.PATH_MIN_BUCKET_WEIGHTS < np.inf else np.inf
    if not float(width) > 0:  # NaN too
        raise InvalidParameterError(f"bucket_width must be > 0 (math.inf: no buckets); got {width}")
    return float(width)


def path_layout(graph, program, max_depth: int = config.PATH_MAX_DEPTH, chunk_arcs: int = config.PATH_CHUNK_ARCS,
                pieces: int = config.PATH_PIECES, where: str = "host"):
    """The graph's :class:`~gpugraph.engines.path.layout.PathLayout` for ``program``, built on
    first use and kept on the graph: on the host (:func:`~gpugraph.engines.path.layout.build_layout`,
    in ``pieces`` pieces) or on the graph's device (``where="device"``,
    :func:`~gpugraph.engines.path.device_layout.build_device_layout`; on a CPU graph the same
    steps on the CPU). Returns ``(layout, was_cached)``."""
    layouts = graph.__dict__.setdefault("_path_layouts", {})
    key = (program.layout_key, max_depth, chunk_arcs, pieces if where == "host" else config.PATH_DEVICE_PIECE_ARCS,
           where, where == "device" and program.sorts_hubs)
    if key not in layouts:
        layouts[key] = LAYOUT_BUILDERS[where](graph, program, max_depth, chunk_arcs, pieces)
        return layouts[key], False
    return layouts[key], True


def _host_layout(graph, program, max_depth: int, chunk_arcs: int, pieces: int):
    return build_layout(program.indptr, program.indices, max_depth, chunk_arcs, pieces, program.symmetric)


def _device_layout(graph, program, max_depth: int, chunk_arcs: int, pieces: int):
    backend = graph.backend if graph.backend.is_cuda else None
    if backend is None:
        csr = program.indptr, program.indices
    elif program.layout_key == "arcs":  # the program's CSR is the graph's, already there
        csr = graph.indptr, graph.indices
    else:  # built there (k-core's undirected graph), or copied there inside the layout's time
        csr = program.device_csr or (program.indptr, program.indices)
    return build_device_layout(*csr, backend, max_depth, chunk_arcs, sort_hubs=program.sorts_hubs)


#: ``solve(layout=...)``: where a path layout is built (:func:`path_layout`).
LAYOUT_BUILDERS = {"host": _host_layout, "device": _device_layout}


def _rounds_ahead(backend) -> int:
    """Rounds launched before the host checks for convergence: ``config.PATH_ROUNDS_AHEAD`` on a
    GPU (a check waits for the device), 1 on the CPU (a check costs nothing there, an extra
    round a pass over the graph)."""
    return config.PATH_ROUNDS_AHEAD if backend.is_cuda else 1


def _kernels(backend):
    if backend.is_cuda:
        from gpugraph.engines.path import _rounds_cuda

        return _rounds_cuda.Kernels(backend)
    from gpugraph.engines.path import _rounds_cpu

    return _rounds_cpu.Kernels()


def _proxy_slots(layout, num_vertices: int, proxies: int):
    """The ``proxies`` vertices with the most path arcs into them (more than one; ties by id)
    and, per position ``j`` of ``layout.vertices``, the proxy slot of the vertex there (-1:
    none). Returns ``(position_proxy, hot)``: int16 and int64 arrays where the layout's are,
    kept on the layout per count (tens of milliseconds on cnr-2000 on the host, more than a run
    saves)."""
    kept = layout.__dict__.setdefault("_proxy_slots", {})
    if proxies not in kept:
        kept[proxies] = _hottest_arc_targets(layout, num_vertices, proxies)
    return kept[proxies]


def _hottest_arc_targets(layout, num_vertices: int, proxies: int):
    """:func:`_proxy_slots` worked out (where the layout's arrays are)."""
    xp = array_module(layout.arcs)
    targets = layout.vertices[xp.flatnonzero(layout.arcs >= 0) + 1]
    arcs_in = xp.bincount(targets, minlength=num_vertices)
    hot = xp.argsort(-arcs_in, kind="stable")[:proxies]
    hot = hot[arcs_in[hot] > 1].astype(np.int64)
    slot = xp.full(num_vertices, -1, dtype=np.int16)
    slot[hot] = xp.arange(hot.size, dtype=np.int16)
    return slot[layout.vertices], hot


def _unread_heads(layout, kernels, rounds):
    """The flags of ``_rounds_cuda.unread_heads`` for ``layout`` (the arcs whose heads their
    chunk does not read), worked out on the device once and kept on the layout."""
    kept = layout.__dict__
    if "_unread_heads" not in kept:
        kept["_unread_heads"] = kernels.unread_heads(rounds.chunk_offsets, rounds.offsets, rounds.vertices,
                                                     rounds.backend.asarray(layout.arcs))
    return kept["_unread_heads"]


@dataclass
class _Buckets:
    """A MIN program's buckets of states (device arrays): a round sends only the states within
    ``width`` of ``bound[0]``, the least state left to send when the round woke (set by the
    wake); a vertex with a state above that waits in ``pending``."""

    x: object
    pending: object
    bound: object
    width: float


class _PathRounds:
    """Rounds over the active chunks of paths (``path`` and ``path-w``)."""

    def __init__(self, backend, kernels, program, layout, prioritised: bool, *, layered: bool,
                 priority_min_chunks: int, sweeps: int, profile: bool, proxies: int, bucket_width: float,
                 balance: str, batching: bool):
        xp = backend.xp
        self.xp, self.kernels, self.program, self.prioritised = xp, kernels, program, prioritised
        arcs = layout.arcs  # E_val along the paths, worked out where the layout is, then copied once
        on_layout = array_module(arcs)
        arc_values = on_layout.asarray(program.arc_values)
        values = backend.asarray(on_layout.where(arcs >= 0, arc_values[on_layout.maximum(arcs, 0)], 0.0))
        self.vertices = backend.asarray(layout.vertices)
        self.offsets = backend.asarray(layout.offsets)
        self.chunk_offsets = backend.asarray(layout.chunk_offsets)
        self.values = backend.asarray(values)
        self.sent = xp.full(arcs.size, np.inf if program.kind == MIN else 0.0)
        self.x = backend.asarray(program.initial.copy())
        self.count = backend.asarray(program.count.copy())
        self.changed = backend.asarray(program.changed.copy())
        self.activity = xp.zeros(layout.num_chunks, dtype=np.int64)
        self.deferred = xp.zeros(layout.num_chunks, dtype=np.int64)  # layered: active, not yet run
        self.source_offsets = backend.asarray(layout.source_offsets)
        self.source_chunks = backend.asarray(layout.source_chunks)
        self.backend, self.layered, self.priority_min_chunks = backend, layered, priority_min_chunks
        self.sweeps, self.profile = sweeps, profile
        sizes = xp.diff(self.offsets[self.chunk_offsets])
        mean_degree = backend.asarray(layout.chunk_mean_degree)
        alpha = 1.0 / max(float(mean_degree.max()) * float(sizes.max()), 1.0) if sizes.size else 1.0
        self.scaled_degree = alpha * mean_degree
        self.layer = backend.asarray(layout.chunk_layer).astype(np.float64)
        # Rounds launched ahead, without the host between them (_run_ahead), unless layers are held
        # back or each round is timed; rounds that may need the priority order go one at a time.
        self.ahead = not layered and not profile
        self.may_prioritise = prioritised and layout.num_chunks > priority_min_chunks
        self.rounds_ahead = _rounds_ahead(backend)
        self.buckets = None
        if program.kind == MIN and bucket_width < np.inf:
            self.buckets = _Buckets(self.x, xp.zeros(self.x.size, dtype=np.uint8), xp.zeros(1), bucket_width)
        self.proxies = 0
        if proxies and backend.is_cuda and self.buckets is None:
            position_proxy, hot = _proxy_slots(layout, program.initial.size, proxies)
            if hot.size:
                kernels.with_proxies(backend.asarray(position_proxy), backend.asarray(hot))
            self.proxies = int(hot.size)
        if balance != "hardware" and backend.is_cuda:
            if self.buckets is not None:
                raise InvalidParameterError(f"balance={balance!r} runs rounds without buckets (pass no bucket_width)")
            kernels.with_balance(balance)
        self.batching = batching and backend.is_cuda
        if self.batching:
            if self.proxies or self.buckets is not None or balance != "hardware":
                raise InvalidParameterError("batching runs plain rounds: without proxies, buckets and balance "
                                            "(pass proxies=0, no bucket_width and balance='hardware')")
            kernels.with_batching(_unread_heads(layout, kernels, self))

    def _dispatch(self, active):
        """The active chunks (in stored, layer order) this round runs. Layered: only the lowest
        active layer's, whose predecessors are all inactive (§3.2.2); the others stay active for
        later rounds. ``path``: when more chunks are active than the GPU keeps resident, they
        are launched by descending priority (§3.2.3), so the block scheduler runs the important
        ones first; fewer run all at once, and their order makes no difference."""
        xp = self.xp
        chosen = active
        if self.layered:
            layers = self.layer[active]
            chosen = active[: int(xp.searchsorted(layers, layers[:1], side="right")[0])]
            self.deferred[:] = self.activity
            self.deferred[chosen] = 0
        if self.prioritised and chosen.size > self.priority_min_chunks:
            priority = self.scaled_degree[chosen] * self.activity[chosen] - self.layer[chosen]
            chosen = chosen[xp.argsort(-priority)]
        return chosen

    def run(self, max_rounds: int) -> dict:
        """The rounds until no chunk is active (or ``max_rounds``); returns the counters. With
        layered dispatch or per-round timing, a round at a time: the host lists the active
        chunks (:meth:`_dispatch`); else :meth:`_run_ahead`."""
        if self.ahead:
            return self._run_ahead(max_rounds)
        xp, kernels = self.xp, self.kernels
        totals = xp.zeros(2, dtype=np.int64)
        woken = xp.zeros((max_rounds + 1, 2), dtype=np.int64)  # per wake: vertices, arcs (+ pending)
        converged, rounds = False, 0
        kernel_seconds = 0.0
        while True:
            if self.layered:
                self.activity[:] = self.deferred
            else:
                self.activity[:] = 0
            left = int(woken[rounds, 1])
            kernels.wake_all(self.changed, self.buckets, self.source_offsets, self.source_chunks, self.activity,
                             woken[rounds])
            active = xp.flatnonzero(self.activity)
            if active.size == 0:
                if int(woken[rounds, 1]) > left:  # buckets: only sinks woke, states still wait
                    continue
                converged = True
                break
            if rounds == max_rounds:
                break
            active = self._dispatch(active)
            if self.profile:
                self.backend.synchronize()
                started = time.perf_counter()
            kernels.path_round(
                self.program.kind, active, self.chunk_offsets, self.offsets, self.vertices, self.values,
                self.sent, self.x, self.count, self.program.threshold, self.changed, self.buckets, self.sweeps,
                totals)
            if self.profile:
                self.backend.synchronize()
                kernel_seconds += time.perf_counter() - started
            rounds += 1
        totals = to_numpy(totals)
        counters = {"rounds": rounds, "converged": converged,
                    "vertex_updates": int(to_numpy(woken[1:rounds + 1, 0]).sum()),
                    "arcs_loaded": int(totals[0]), "arcs_delivered": int(totals[1])}
        if self.profile:
            counters["walk_seconds"] = kernel_seconds
        return counters

    def _run_ahead(self, max_rounds: int) -> dict:
        """:meth:`run` without the host between rounds: each round is a wake over every vertex
        (the vertices changed last round mark their chunks, counted into a row of ``woken``)
        and a walk over every chunk (the active ones run, in stored order); :func:`_rounds_ahead`
        rounds are launched before the host reads the rows, and it stops at the first wake that
        marked no chunk (the rounds launched after it find nothing to do). ``path`` with more
        chunks than the GPU keeps resident: the first round goes one at a time, the host listing
        the active chunks in priority order (:meth:`_dispatch`), as large rounds need, and so
        does each next round while the last one listed had more active chunks than that, or,
        after rounds launched ahead, while the last wake read marked more arcs than that many
        chunks hold at the arcs per active chunk of the last round listed (the chunks are not
        counted there: it would take a launch a round; an estimate off only changes the order).
        Same rounds, updates and counts as :meth:`run`."""
        xp, kernels, program = self.xp, self.kernels, self.program
        totals = xp.zeros(2, dtype=np.int64)
        woken = xp.zeros((max_rounds + 1, 2), dtype=np.int64)  # per wake: vertices, arcs (+ pending)
        self.activity[:] = 0
        launched = 0
        one_at_a_time = self.may_prioritise  # the first rounds are often the largest
        spread = 1.0  # arcs woken per active chunk in the last round the host listed
        while True:
            end = min(launched + (1 if one_at_a_time else self.rounds_ahead), max_rounds + 1)
            for wake in range(launched, end):
                kernels.wake_all(self.changed, self.buckets, self.source_offsets, self.source_chunks, self.activity,
                                 woken[wake])
                if wake == max_rounds:
                    break
                arguments = (self.chunk_offsets, self.offsets, self.vertices, self.values, self.sent, self.x,
                             self.count, program.threshold, self.changed, self.buckets, self.sweeps, totals)
                if not one_at_a_time:
                    kernels.path_round_active(program.kind, self.activity, *arguments)
                    continue
                chosen = self._dispatch(xp.flatnonzero(self.activity))
                self.activity[:] = 0
                kernels.path_round(program.kind, chosen, *arguments)
            launched = end
            counts = to_numpy(woken[:launched])
            quiet = np.flatnonzero(counts[:, 1] == 0)
            if quiet.size or launched > max_rounds:
                break
            # the active chunks when the host listed them, else the arcs woken over the arcs per
            # chunk of the last round listed
            if one_at_a_time:
                largest = chosen.size
                spread = max(counts[-1, 1] / max(chosen.size, 1), 1.0)
            else:
                largest = counts[-1, 1] / spread
            one_at_a_time = self.may_prioritise and largest > self.priority_min_chunks
        converged = bool(quiet.size)
        rounds = int(quiet[0]) if converged else max_rounds
        totals = to_numpy(totals)
        return {"rounds": rounds, "converged": converged, "vertex_updates": int(counts[1:rounds + 1, 0].sum()),
                "arcs_loaded": int(totals[0]), "arcs_delivered": int(totals[1])}


class _VertexRounds:
    """Vertex-centric rounds (``bsp``, ``bsp-delta`` and ``async``)."""

    def __init__(self, backend, kernels, program, schedule: str):
        xp = backend.xp
        synchronous = schedule != "async"
        self.xp, self.kernels, self.program, self.synchronous = xp, kernels, program, synchronous
        self.every_vertex = schedule == "bsp" and program.kind == SUM
        n = program.initial.size
        self.indptr = backend.asarray(program.indptr)
        self.indices = backend.asarray(program.indices)
        self.values = backend.asarray(program.arc_values)
        self.count = backend.asarray(program.count.copy())
        self.changed = backend.asarray(program.changed.copy())
        self.pending = self.changed.copy()
        self.everyone = xp.arange(n, dtype=np.int64)
        if program.kind == SUM:  # x accumulates what was propagated; the residual is the rest
            self.x = xp.zeros(n)
            self.residual = backend.asarray(program.initial.copy())
        else:
            self.x = backend.asarray(program.initial.copy())
            self.residual = self.x.copy()
        self.incoming = xp.zeros(n if synchronous and program.kind == SUM else 1)
        self.rounds_ahead = _rounds_ahead(backend)

    def _frontier(self):
        """The synchronous schedules' vertices of the next round."""
        xp = self.xp
        if self.program.kind == SUM:
            moving = xp.abs(self.residual) > self.program.threshold
            if self.every_vertex:
                return self.everyone if bool(moving.any()) else self.everyone[:0]
            return xp.flatnonzero(moving)
        return xp.flatnonzero(self.changed)

    def run(self, max_rounds: int) -> dict:
        """The rounds until nothing changes (or ``max_rounds``); returns the counters."""
        if not self.synchronous:
            return self._run_async(max_rounds)
        xp, kernels, program = self.xp, self.kernels, self.program
        updates = xp.zeros(1, dtype=np.int64)
        totals = xp.zeros(2, dtype=np.int64)
        converged, rounds = False, 0
        while rounds < max_rounds:
            frontier = self._frontier()
            if frontier.size == 0:
                converged = True
                break
            if program.kind == MIN:
                self.residual[:] = self.x  # relax from the states at the round's start
            self.changed[:] = 0
            kernels.vertex_round(
                program.kind, True, frontier, self.indptr, self.indices, self.values, self.x,
                self.residual, self.incoming, self.pending, self.count,
                -1.0 if self.every_vertex else program.threshold, self.changed, totals)
            changed = xp.count_nonzero(self.changed)
            updates += changed
            rounds += 1
            if program.kind == SUM:
                self.residual += self.incoming
                self.incoming[:] = 0
        if program.kind == SUM:
            self.x += self.residual  # what was still pending (below the tolerance) counts too
        totals = to_numpy(totals)
        return {"rounds": rounds, "converged": converged, "vertex_updates": int(to_numpy(updates)[0]),
                "arcs_loaded": int(totals[0]), "arcs_delivered": int(totals[1])}

    def _run_async(self, max_rounds: int) -> dict:
        """The ``async`` schedule: every vertex each round, live states; converged after the
        first round that changes nothing. :func:`_rounds_ahead` rounds are launched before the
        host reads their counts of changed vertices (the rounds after convergence change
        nothing), as the path schedules do."""
        xp, kernels, program = self.xp, self.kernels, self.program
        totals = xp.zeros(2, dtype=np.int64)
        changes = xp.zeros(max_rounds, dtype=np.int64)
        launched = 0
        while True:
            end = min(launched + self.rounds_ahead, max_rounds)
            for round_index in range(launched, end):
                self.changed[:] = 0
                kernels.vertex_round(
                    program.kind, False, self.everyone, self.indptr, self.indices, self.values, self.x,
                    self.residual, self.incoming, self.pending, self.count, program.threshold, self.changed, totals)
                changes[round_index] = xp.count_nonzero(self.changed)
            launched = end
            counts = to_numpy(changes[:launched])
            quiet = np.flatnonzero(counts == 0)
            if quiet.size or launched >= max_rounds:
                break
        converged = bool(quiet.size)
        rounds = int(quiet[0]) + 1 if converged else max_rounds
        if program.kind == SUM:
            self.x += self.residual  # what was still pending (below the tolerance) counts too
        totals = to_numpy(totals)
        return {"rounds": rounds, "converged": converged, "vertex_updates": int(counts[:rounds].sum()),
                "arcs_loaded": int(totals[0]), "arcs_delivered": int(totals[1])}
