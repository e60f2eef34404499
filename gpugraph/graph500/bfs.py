"""BFS over processes with degree separation (Pan et al., §IV-V): the level loop of one process.

Each process holds its :class:`~gpugraph.graph500.distributor.Subgraphs` and the state of its
local vertices (``depth``, ``parent``) and of *every* delegate (``delegate_depth``, the same on all
processes). A level ``L`` (the frontier: vertices at depth ``L``) runs two streams:

Delegate stream
    dd and nd visits mark the delegates they reach in a byte mask ``new`` (with this process's
    candidate parent in ``candidate``); the masks of all processes are combined with one
    all-reduce (MAX on bytes), blocking, or started before the normal stream and awaited after it
    (``Options.blocking_reduction``, the paper's BR / IR). The delegates set in the result join
    depth ``L + 1`` on every process.
Normal stream
    dn visits reach local normals directly (forward dn is launched with forward dd, before the
    reduction starts: one kernel over the arcs of both; it does not touch the mask); nn visits
    make (target, source) pairs that go to the targets' owners in one all-to-all (optionally
    without duplicate targets: ``Options.uniquify``; optionally in two steps, within the host
    then across hosts: ``Options.local_all2all``), where unvisited targets join depth ``L + 1``.
    With ``Options.overlap`` the normal stream runs first and its pairs travel while the
    delegate stream computes.

dd, dn and nd each choose their direction every level (§IV-B): forward work ``FV`` is the
frontier's arcs of that kind, backward work ``BV = |U| (q + s) / q`` with ``U`` the unvisited
sources of the reversed subgraph, ``q`` the frontier and ``s`` the unvisited sources of the
forward one; a kind goes backward when ``FV > factor0 * BV`` and forward again when
``FV < factor1 * BV`` (``config.GRAPH500_DIRECTION_FACTORS``). Backward dn reads the nd rows and
backward nd the dn rows: the distributor put both arcs of each such edge on the same process.
nn visits choose too when one process runs alone (its nn subgraph holds both arcs of every nn
edge: backward, an unvisited normal looks for a frontier normal among its nn columns); with
several processes they are forward (an nn row's columns live on other processes), unless
``Options.nn_backward``: then every process shares a bitmap of its normal frontier with all,
nn decides on the numbers summed over the processes (so all agree), and backward an unvisited
normal looks its nn columns up in the gathered bitmap.

The search ends when no process has a frontier. A delegate's parent is the candidate of any
process that found it (an all-reduce MAX over ``candidate`` after the search; with peer
memory each process takes the candidates of the delegates it did not find from a process that
did, in the merge that ends each level), which is valid because a delegate is found by every
finder at the same level.

No pass over all vertices prepares a level. Local normals are claimed for the next level with a
compare-and-swap, and the claims add up the next level's frontier size, its nd and nn arcs and
the unvisited normals with nd arcs in a device counter array; the normal frontier is then
visited by one pass over the normals (nd and nn forward, dn and nn backward together). The delegates
found in a level are closed by one kernel over the delegates, which also queues them (the
frontier of the delegates' forward visits) and counts what the next decisions need. The
decisions are made on the device too: a one-thread kernel turns the counters into the level's
plan (directions, and which visits run), which every visit kernel reads; so one process on a GPU
launches a batch of levels without waiting and reads the counters once after it. A level costs
a pass over the normals, a pass over the delegates and the visits of the directions chosen.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from gpugraph import config
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import BoundLaunch, dynamic_schedule, kernel_tuple, resident_blocks, run_cpu_kernel
from gpugraph.errors import DistributedError, InvalidParameterError, VertexIdError
from gpugraph.graph500 import _kernels_cpu as kernel_cells
from gpugraph.graph500.separation import edge_chunks

#: Kinds of visit that choose a direction (nn only when one process runs alone).
DIRECTED_KINDS = ("dd", "dn", "nd", "nn")
#: Vertex ids of at most this many bits travel as one int64 per nn pair (:func:`pack_pairs`).
PAIR_ID_BITS = 31
#: Parts of a level timed when ``Options.profile`` is on (the paper's Figure 8 breakdown);
#: ``counters`` is the read of the counters, with several processes after the all-reduce of the
#: normal frontier (where the processes wait for the slowest).
PHASES = ("counters", "delegate_visits", "normal_visits", "normal_exchange", "delegate_reduction", "close")


@dataclass
class Options:
    """How a search runs (the options of the paper's Figure 8).

    Attributes
    ----------
    direction_optimizing:
        Let dd, dn and nd go backward (DO); off: every visit is forward.
    blocking_reduction:
        Combine the delegate masks before the normal stream (BR); off: start the all-reduce,
        run the normal stream, then wait (IR).
    uniquify:
        Send each nn target once per level and destination (U).
    local_all2all:
        Route nn pairs through the host's peer of the owner's GPU index first (L; needs several
        GPUs per host in the layout, else it changes nothing).
    nn_backward:
        With several processes, let nn visits go backward too (on one process they always may):
        each process sends its share of a bitmap of the normal frontier to all (an all-gather
        of a bit per local normal, on the levels nn goes backward), and an unvisited normal
        claims itself from its first nn column in the frontier, instead of the frontier sending
        pairs along every nn arc. nn's direction is chosen on the numbers summed over the processes, so all agree.
    overlap:
        With several processes, run the normal stream first and let its nn pairs travel while
        the delegate stream computes (the two streams of the paper's Figure 3, O): the pairs'
        sizes are exchanged, the payload all-to-all is started, the delegate visits run, and the
        pairs are applied after them. Off: the delegate stream, then the normal stream, each
        waiting for its own communication (but for ``blocking_reduction=False``).
    factors:
        ``{kind: (factor0, factor1)}`` for dd, dn, nd, nn; ``None`` (the default):
        :func:`default_factors` for the number of processes.
    profile:
        Synchronise the device around each phase and time it (``stats["phases"]``); slows the
        search a little.
    levels_ahead:
        Levels one process launches before it reads the counters (each level plans itself on
        the device; levels past the end do nothing). ``None``: ``config.GRAPH500_LEVELS_AHEAD``
        on a GPU, 1 on the CPU and the CUDA simulator (where a launch costs more than a level).
        Several processes and profiling go level by level.
    cuda_graphs:
        On a GPU, launch a batch of levels as one CUDA graph, captured the second time the batch
        runs (every kernel's arguments but the root's are the same in every search; the root
        goes to the ``start`` kernel, outside the graph). Off: the batch's launches one by one.
    peer_memory:
        With several processes on one host, exchange through
        :class:`~gpugraph.distributed.peer.PeerMemory` instead of collectives (``None``, the
        default: when the processes run on GPUs of one host and no option below tunes the
        collectives; ``True``: always, refused where it cannot be; ``False``: never): nn pairs are
        stored straight into their owners' inboxes, each process reads every process's delegate
        marks, and the processes meet in barriers (kernels, on GPUs). A level then needs nothing
        from the host, so the levels go in batches (CUDA graphs on GPUs) as with one process.
        nn visits choose their direction as with ``nn_backward`` (each process copies the
        others' shares of the frontier bitmap from their blocks). It takes the place of the
        collectives that ``blocking_reduction``, ``uniquify``, ``local_all2all`` and ``overlap``
        tune, so it goes with their defaults only. 4 GPUs at scale 26: 348-363 GTEPS against the
        collectives' 34.5 (docs/graph500.md, "Peer memory", "Ninth session").
    keep_links_awake:
        With peer memory on GPUs, read from every peer over the links every millisecond between
        searches (:class:`~gpugraph.distributed.peer.LinkWaker`: a thread launching a tiny
        kernel on a stream of its own, from the end of a search until the start of the next,
        for at most ``config.PEER_WAKE_IDLE_SECONDS``): links left idle for ~100 ms make a
        search's first meeting and merge ~300 us slower. Without peer memory on GPUs there
        are no links to keep awake, and this changes nothing.
    """

    direction_optimizing: bool = True
    blocking_reduction: bool = True
    uniquify: bool = False
    local_all2all: bool = False
    nn_backward: bool = False
    overlap: bool = False
    factors: dict | None = None
    profile: bool = False
    levels_ahead: int | None = None
    cuda_graphs: bool = True
    peer_memory: bool | None = None
    keep_links_awake: bool = True


def default_factors(processes: int) -> dict:
    """The direction factors ``{kind: (factor0, factor1)}`` a search of ``processes`` processes
    uses unless :class:`Options` sets them: ``config.GRAPH500_DIRECTION_FACTORS``, with nn's
    from ``config.GRAPH500_NN_DIRECTION_FACTORS_SEVERAL`` when there are several (their nn
    visit backward reads a gathered frontier bitmap, forward stores pairs in the peers)."""
    factors = dict(config.GRAPH500_DIRECTION_FACTORS)
    if processes > 1:
        factors["nn"] = config.GRAPH500_NN_DIRECTION_FACTORS_SEVERAL
    return factors


class Group:
    """The processes of a search: a :class:`~gpugraph.distributed.comm.Communicator`, or this
    process alone (no torch.distributed needed).

    Parameters
    ----------
    backend:
        This process's backend.
    distributed:
        Use the initialised torch.distributed group; else a group of one.
    """

    def __init__(self, backend, distributed: bool = False):
        self.backend = backend
        self.comm = None
        if distributed:
            from gpugraph.distributed.comm import Communicator

            self.comm = Communicator(backend)
        self.rank = self.comm.rank if self.comm else 0
        self.size = self.comm.size if self.comm else 1
        self._host_barrier = None  # made at the first start_together: False when the job spans hosts

    def start_together(self) -> None:
        """Return once every process has called this as often (collective): where a timed
        section starts. The processes of one host meet through shared memory
        (:class:`~gpugraph.distributed.peer.HostBarrier`, released within microseconds of each
        other), those of several hosts in a small all-reduce.

        Raises
        ------
        DistributedError
            If a process of this host does not arrive (it died or hangs).
        """
        if self.comm is None:
            return
        if self._host_barrier is None:
            from gpugraph.distributed.peer import HostBarrier, host_names

            self._host_barrier = HostBarrier(self.comm) if len(host_names(self.comm)) == 1 else False
        if self._host_barrier:
            self._host_barrier.wait()
        else:
            self.comm.allreduce([0])

    def allreduce(self, values, op: str = "sum") -> np.ndarray:
        """A small host vector combined over the processes."""
        return self.comm.allreduce(values, op) if self.comm else np.atleast_1d(np.asarray(values)).copy()

    def allreduce_array(self, array, op: str = "sum"):
        """``array`` combined in place over the processes; returns it."""
        return self.comm.allreduce_array(array, op) if self.comm else array

    def start_allreduce(self, array, op: str):
        """Start combining ``array`` in place; returns an object whose ``wait()`` finishes it."""
        if self.comm is None:
            return _Done()
        return self.comm.start_allreduce_array(array, op)

    def exchange(self, payload, counts, status: int = 0):
        """:meth:`gpugraph.distributed.comm.Communicator.exchange` (only with several processes)."""
        return self.comm.exchange(payload, counts, status)

    def all_gather_array(self, array):
        """Every process's ``array`` (the same size everywhere, on this process's device), one
        after another in process order (collective)."""
        return self.comm.all_gather_array(array) if self.comm else array

    def all_gather(self, array) -> list:
        """Every process's host array, in process order."""
        return self.comm.all_gather(array) if self.comm else [np.asarray(array)]


@dataclass
class _Level:
    """The numbers a level starts from (the counters' slot of the level; see
    ``_kernels_cpu``): frontier sizes and their arcs per kind, and the unvisited vertices with
    arcs of each kind (nd, nn: local normals; dd, dn: delegates)."""

    q_normal: int
    fv_nd: int
    fv_nn: int
    q_delegate: int
    fv_dd: int
    fv_dn: int
    unvisited_dd: int
    unvisited_dn: int
    unvisited_nd: int
    unvisited_nn: int
    #: The visits the level's plan will have, where the host worked them out (``-1``: not known
    #: on the host; every visit kernel reads the plan on the device anyway).
    visits: int = -1
    #: The frontier's nn arcs summed over the processes (``-1``: not known).
    shared_fv_nn: int = -1

    @classmethod
    def read(cls, counts: np.ndarray, level: int) -> "_Level":
        """The numbers of ``level`` from the counters read back to the host."""
        cells = kernel_cells
        numbers = [int(value) for value in counts[(level % 2) * cells.SLOT:][:cells.SLOT]]
        dd_queue, dn_queue = numbers[cells.DD_QUEUE], numbers[cells.DN_QUEUE]
        return cls(q_normal=numbers[cells.Q_NORMAL], fv_nd=numbers[cells.FV_ND], fv_nn=numbers[cells.FV_NN],
                   q_delegate=dd_queue >> cells.ARC_BITS, fv_dd=dd_queue & cells.ARC_MASK,
                   fv_dn=dn_queue & cells.ARC_MASK, unvisited_dd=numbers[cells.UNVISITED_DD],
                   unvisited_dn=numbers[cells.UNVISITED_DN], unvisited_nd=int(counts[cells.UNVISITED_ND]),
                   unvisited_nn=int(counts[cells.UNVISITED_NN]))


def pair_entries(num_vertices: int) -> int:
    """int64 entries an nn pair takes on the wire (:func:`pack_pairs`): 1 while every vertex id
    fits in :data:`PAIR_ID_BITS` bits (every Graph500 scale up to 31), else 2."""
    return 1 if num_vertices <= 1 << PAIR_ID_BITS else 2


def pack_pairs(xp, targets, sources, num_vertices: int):
    """nn pairs ``(target, source)`` of global ids as one int64 array to send, the target in the
    high 32 bits of a pair's one entry or in the first of its two (:func:`pair_entries`;
    :func:`unpack_pairs` reverses it)."""
    if pair_entries(num_vertices) == 1:
        return (targets << 32) | sources
    return xp.stack((targets, sources), axis=1).reshape(-1)


def unpack_pairs(received, num_vertices: int):
    """``(targets, sources)`` of a payload made by :func:`pack_pairs`."""
    if pair_entries(num_vertices) == 1:
        return received >> 32, received & 0xFFFFFFFF
    received = received.reshape(-1, 2)
    return received[:, 0].copy(), received[:, 1].copy()


class _Done:
    def wait(self):
        return None


class Searcher:
    """Searches from roots over one process's subgraphs (collective: every process calls
    :meth:`search` with the same root).

    Parameters
    ----------
    group:
        The :class:`Group`.
    subgraphs:
        This process's :class:`~gpugraph.graph500.distributor.Subgraphs`.
    options:
        :class:`Options` (defaults when ``None``).
    relabeling:
        The :class:`~gpugraph.graph500.separation.Relabeling` the subgraphs were built in:
        :meth:`search` takes roots and :meth:`parents` gives trees in the original ids (``None``:
        the subgraphs use the original ids).
    """

    def __init__(self, group: Group, subgraphs, options: Options | None = None, relabeling=None):
        self.group, self.graph = group, subgraphs
        self.relabeling = relabeling
        self.options = options or Options()
        chosen = self.options.factors
        self.direction_factors = default_factors(group.size) if chosen is None else chosen
        unknown = set(self.direction_factors) ^ set(DIRECTED_KINDS)
        if unknown:
            raise InvalidParameterError(f"direction factors are needed for exactly {', '.join(DIRECTED_KINDS)}")
        if self.options.levels_ahead is not None and self.options.levels_ahead < 1:
            raise InvalidParameterError(f"levels_ahead must be at least 1, not {self.options.levels_ahead}")
        options = self.options
        tuned = [name for name, changed in (("blocking_reduction=False", not options.blocking_reduction),
                                            ("uniquify", options.uniquify), ("local_all2all", options.local_all2all),
                                            ("overlap", options.overlap))
                 if changed]
        if options.peer_memory and tuned:
            raise InvalidParameterError("peer_memory takes the place of the collectives these options tune: "
                                        f"{', '.join(tuned)}")
        backend = group.backend
        self._peer_wanted = self._wants_peer_memory(group, subgraphs, bool(tuned))
        self.backend, self.xp = backend, backend.xp
        self._on_gpu = backend.is_cuda and not backend.simulated  # CuPy arrays (not the simulator's NumPy)
        xp = self.xp
        with backend.activate():
            self.depth = xp.full(subgraphs.num_local, -1, dtype=np.int32)
            # Parents (and the delegates' candidates) as 32-bit ids while every vertex id fits
            # (each claim writes half the bytes, the candidates' all-reduce moves half; parents()
            # widens them): scale <= 30.
            parent_type = np.int32 if subgraphs.num_vertices <= np.iinfo(np.int32).max else np.int64
            self.parent = xp.empty(subgraphs.num_local, dtype=parent_type)
            d = subgraphs.num_delegates
            self.delegate_depth = xp.full(d, -1, dtype=np.int32)
            self.new = xp.zeros(d, dtype=np.uint8)
            self.candidate = xp.full(d, -1, dtype=parent_type)
            self.no_candidate = self.candidate[:0]  # the pass without the nd visit marks nothing
            self.degree = {name: getattr(subgraphs, name).degree() for name in ("dd", "dn")}
            # Segment flags of the local normals (_kernels_cpu), and each segment's normals with
            # arcs: what is left to find at a search's start.
            segment = 1 << kernel_cells.SEGMENT_BITS
            segments = -(-subgraphs.num_local // segment)
            self.flags = xp.empty(3 * segments + kernel_cells.FLAG_PADDING, dtype=np.int32)
            with_arcs = xp.zeros(segments * segment, dtype=np.int32)
            with_arcs[:subgraphs.num_local] = (subgraphs.nd.degree() > 0) | (subgraphs.nn.degree() > 0)
            self.normals_with_arcs = with_arcs.reshape(segments, segment).sum(axis=1, dtype=np.int32)
            self.unvisited_nd = int(xp.count_nonzero(subgraphs.nd.degree()))
            self.unvisited_nn = int(xp.count_nonzero(subgraphs.nn.degree()))
            # Counters, the level's plan and the history of a batch of levels (_kernels_cpu).
            self.levels_ahead = self.options.levels_ahead or (
                config.GRAPH500_LEVELS_AHEAD if self._on_gpu else 1)
            # Cells after them for a level's numbers summed over the processes (_kernels_cpu).
            self._shared_cell = kernel_cells.counter_cells(self.levels_ahead)
            self.counts = xp.zeros(self._shared_cell + kernel_cells.SHARED_CELLS, dtype=np.int64)
            self._shared_from = [xp.asarray([slot + kernel_cells.Q_NORMAL, slot + kernel_cells.FV_NN,
                                             kernel_cells.UNVISITED_NN], dtype=np.int64)
                                 for slot in (0, kernel_cells.SLOT)]
            # nn backward with several processes: this process's share of the frontier bitmap
            # (a bit per local normal; the first process has the most), in bytes padded to
            # 64-bit words (frontier_bits stores words; the padding stays zero).
            self._bitmap_share = 0
            if (self.options.nn_backward or self._peer_wanted) and group.size > 1:
                self._bitmap_share = -(-subgraphs.layout.local_count(0, subgraphs.num_vertices) // 64) * 8
            # Without peer memory the processes gather this buffer; with it each process stores
            # its share straight into every process's gathered bitmap (_share_peer_memory).
            self.frontier_share = xp.zeros(0 if self._peer_wanted else self._bitmap_share, dtype=np.uint8)
            # Where frontier_bits stores the share: the arrays, and the word of each it starts at.
            self._frontier_targets = (kernel_tuple([self.frontier_share.view(np.uint64)], backend), np.int64(0))
            self.root_cells, self._host_root = self._root_memory()
            self._host_factors = np.asarray(
                [factor for kind in DIRECTED_KINDS for factor in self.direction_factors[kind]], dtype=np.float64)
            self.factors = xp.asarray(self._host_factors)
            # The delegate frontier, queued once for its dd rows and once for its dn rows, each
            # queue with the starts of its rows' arcs (close_delegates).
            self.queues = {kind: (xp.empty(d, dtype=np.int32), xp.empty(d, dtype=np.int64)) for kind in ("dd", "dn")}
            # The long rows pull_delegates queues for pull_long_rows (CUDA), one queue per kind:
            # with peer memory both kinds' first probes run before either's long rows.
            self.long_rows = {kind: xp.empty(d if backend.is_cuda else 0, dtype=np.int32) for kind in ("dd", "dn")}
            # The delegates pull_long_rows may skip, found by another process (peer memory: the
            # combined marks; else none: not ``new`` itself, which the kernel writes, since the
            # CUDA simulator copies each argument back and an alias would undo the writes).
            self._found_anywhere = xp.zeros(d if backend.is_cuda else 0, dtype=np.uint8)
            self.no_ids = xp.empty(0, dtype=np.int64)
            self.no_mark = xp.empty(0, dtype=np.uint8)  # the pass without the nd visit marks nothing
            self.no_bitmap = xp.empty(0, dtype=np.uint8)  # one process: backward nn reads the depths
        # Where the visits mark the delegates they find: ``new``, or with peer memory this
        # process's marks of the level's parity (``new`` is then every process's marks combined).
        self._mark = self.new
        host_ids = to_numpy(subgraphs.delegate_ids)
        self._delegates_by_id = np.argsort(host_ids)
        self._sorted_delegates = host_ids[self._delegates_by_id]
        self.stride = np.int64(subgraphs.layout.processes)
        self.offset = np.int64(subgraphs.offset)
        if backend.is_cuda:
            from gpugraph.graph500 import _kernels_cuda as kernels
        else:
            from gpugraph.graph500 import _kernels_cpu as kernels
        self.kernels = kernels
        self._bound = {}  # (kernel name, key) -> BoundLaunch (CUDA)
        # CUDA graphs of batches of levels by their first level (None: seen once, not captured).
        self._graphs = {}
        self._graphs_usable = self._on_gpu and self.options.cuda_graphs
        #: Why a batch's CUDA graph could not be captured (``None``: no capture failed).
        self.graph_failure = None
        self._stream = None  # the stream the graphs are captured on and launched from
        self._side = None  # with peer memory on GPUs: a stream for work beside the main launches
        self._side_join = None  # the event the main launches wait for next (the side stream's last work)
        self._launch_stream = 0  # where BoundLaunch launches go (the capturing stream during a capture)
        self._pinned_counts = None
        self._pass_blocks = {}  # kernel key -> blocks of the pass over the normals (one wave)
        self.peer = None
        self._waker = None  # keeps the links awake between searches (Options.keep_links_awake)
        if self._peer_wanted:
            self._share_peer_memory()
            if self.options.keep_links_awake:
                self._waker = self.peer.link_waker()
        self.nn_bits = self._bitmap_positions()
        if self._on_gpu:
            import cupyx

            self._pinned_counts = cupyx.empty_pinned(self.counts.shape, dtype=self.counts.dtype)

    # --- one search ------------------------------------------------------------------------------
    def search(self, root: int) -> dict:
        """Search from global vertex ``root``; the tree stays in the state until the next search
        (:meth:`parents`).

        One process on a GPU launches a batch of ``config.GRAPH500_LEVELS_AHEAD`` levels without
        waiting (from the second search on as one CUDA graph: ``Options.cuda_graphs``): each
        level's plan is made on the device (``_kernels_cpu.decide``) and the levels after the
        last one find nothing to do; one read of the counters after the batch tells where the
        search ended. Several processes, the CPU and profiling go level by level; several
        processes read the counters once a level, the normal frontier summed over them on the
        device before the read (:meth:`_shared_counts`).

        Returns
        -------
        dict
            ``seconds`` (this process's wall time, device synchronised; with the links kept
            awake the processes meet on the host first, so their clocks start together),
            ``levels``,
            ``directions`` (per level, ``{kind: "forward" | "backward"}``), ``frontiers`` (per
            level, local normal and global delegate frontier sizes; with peer memory the global
            normal frontier), ``batches`` and ``graph_batches`` (batches of levels launched, and
            of them those launched as a CUDA graph), ``phases`` (seconds per :data:`PHASES` entry when profiling),
            ``level_seconds`` (when profiling), ``nn_pairs_sent`` and ``nn_messages`` (pairs and
            non-empty messages this process sent to others; peer memory stores pairs and sends
            no messages), ``link_touches`` (how often the links were touched since the last
            search ended, ``Options.keep_links_awake``; 0 without).

        Raises
        ------
        VertexIdError
            If ``root`` is not a vertex.
        DistributedError
            With peer memory on GPUs, if this process waited at a barrier for tens of seconds
            (``config.PEER_BARRIER_SPINS``): a peer died or hangs; or if keeping the links
            awake since the last search failed (``Options.keep_links_awake``).
        """
        graph = self.graph
        if not 0 <= int(root) < graph.num_vertices:
            raise VertexIdError(f"BFS root {root} is outside [0, {graph.num_vertices - 1}]")
        if self.relabeling is not None:
            root = int(self.relabeling.new_id[int(root)])
        touches = 0
        if self._waker is not None:
            self._waker.stop()  # before the clock: its last touch has finished
            touches = self._waker.touches
        stats = {"directions": [], "frontiers": [], "phases": dict.fromkeys(PHASES, 0.0), "nn_pairs_sent": 0,
                 "nn_messages": 0, "level_seconds": [], "batches": 0, "graph_batches": 0, "link_touches": touches}
        # One process, or several with peer memory: each level plans itself, and the plan ends the
        # search, on the device; else the host reads the global frontier before each level.
        planned_on_device = self.group.size == 1 or self.peer is not None
        batch = self.levels_ahead if planned_on_device and not self.options.profile else 1
        cells = self._root_cells(int(root))
        histories = []  # each batch's counters, recorded into stats once the clock has stopped
        with self.backend.activate():
            self.backend.synchronize()
            if self._waker is not None:
                # Stopping the waker (a thread joined, a stream waited for) takes each process its
                # own time, and a process that starts its clock early waits for the others at the
                # first meeting: the processes meet again here, so the clocks start together.
                self.group.start_together()
            started = time.perf_counter()
            self._set_root(cells)
            if batch == 1:  # else the first batch resets (inside its CUDA graph)
                self._reset()
            level, counts = 0, None
            read = (lambda _: self._read_counts()) if planned_on_device else self._shared_counts
            while True:
                numbers = None
                if not planned_on_device:  # the frontier is global; the nn pairs' buffers need the arcs
                    if counts is None:
                        counts = self._timed(stats, "counters", read, level)
                    numbers = _Level.read(counts, level)
                    numbers.shared_fv_nn = int(counts[self._shared_cell + 1])  # the second shared cell
                    if self._bitmap_share:  # the nn visit decides host collectives: plan it here too
                        numbers.visits = self._planned_visits(counts, level)
                    if int(counts[self._shared_cell]) + numbers.q_delegate == 0:
                        break
                if batch > 1:
                    self._batch(level, batch, stats)
                else:
                    self._level(level, 0, numbers, stats)
                counts = self._timed(stats, "counters", read, level + batch)  # also the next level's numbers
                levels = self._levels_found(counts, batch)
                histories.append((counts.copy(), levels))
                level += levels
                if levels < batch:
                    del stats["level_seconds"][level:]  # profiling: the level that found no frontier
                    break
            if self.peer is not None:  # every process took its candidates in the merges; a meeting ends the search
                stats["nn_pairs_sent"] = int(counts[kernel_cells.PAIRS_SENT])
                if batch == 1:  # else the last batch ended with it
                    self._meet(ended=True)
            elif self.group.size > 1:
                self.group.allreduce_array(self.candidate, "max")
            self.backend.synchronize()
        stats["seconds"] = time.perf_counter() - started
        if self._waker is not None:
            self._waker.start()
        for counts, levels in histories:
            self._record(counts, levels, stats)
        stats["levels"] = level
        if self.peer is not None and self.peer.on_device and (int(self.peer.own["arrivals"][2])
                                                             or int(self.peer.own["side_arrivals"][2])):
            raise DistributedError(f"process {self.group.rank} waited at a barrier for longer than "
                                   f"{config.PEER_BARRIER_SPINS} polls: a peer process died or hangs")
        return stats

    def warm_up(self, root: int) -> None:
        """Search from ``root`` as often as it takes for a search to launch as every later one
        does: kernels compiled and bound, and on a GPU with CUDA graphs the first batch of levels
        captured (the first search launches it kernel by kernel, the second captures it); with
        several processes, also one exchange of ``config.GRAPH500_EXCHANGE_WARM_UP_ENTRIES``
        entries with every peer. A benchmark does this while it builds the searcher
        (collective).

        Raises
        ------
        VertexIdError
            If ``root`` is not a vertex.
        """
        for _ in range(2 if self._graphs_usable else 1):
            self.search(root)
        if self.group.size > 1 and self.peer is None:  # NCCL opens the channels of the largest messages now
            entries = min(config.GRAPH500_EXCHANGE_WARM_UP_ENTRIES, max(1, int(self.graph.nn.indices.size)))
            payload = self.xp.zeros(entries * self.group.size, dtype=np.int64)
            with self.backend.activate():
                self.group.exchange(payload, np.full(self.group.size, entries, dtype=np.int64)).wait()

    def _batch(self, level: int, batch: int, stats: dict):
        """Launch levels ``level .. level + batch - 1`` (planned on the device), after the
        search's reset if ``level`` is 0: on a GPU from a CUDA graph of their launches, captured
        the second time this batch runs (the first binds every kernel's parameters); a capture
        the driver refuses turns the graphs off for this searcher (the launches then go one by
        one)."""
        graph = self._graphs.get(level)
        if graph is None and level in self._graphs and self._graphs_usable:
            graph = self._graphs[level] = self._capture(level, batch, stats)
        self._graphs.setdefault(level, None)
        stats["batches"] += 1
        if graph is not None:
            graph.launch(self._stream)
            stats["graph_batches"] += 1
            return
        self._launch_batch(level, batch, stats)

    def _launch_batch(self, level: int, batch: int, stats: dict):
        """The launches of levels ``level .. level + batch - 1``, the search's reset first when
        the batch starts it; with peer memory the meeting of a search that has ended last
        (:meth:`_meet`: it meets only if the search ended in this batch)."""
        if level == 0:
            self._reset()
        for row in range(batch):
            self._level(level + row, row, None, stats)
        if self.peer is not None:
            self._meet(ended=True)

    def _capture(self, level: int, batch: int, stats: dict):
        """The launches of :meth:`_launch_batch` captured as a CUDA graph on this searcher's
        stream (blocking: ordered with the default stream's resets and reads), or ``None`` when
        the capture fails."""
        import cupy

        if self._stream is None:
            self._stream = cupy.cuda.Stream()
        stream = self._stream
        graph = None
        with stream:
            stream.begin_capture()
            self._launch_stream = stream.ptr
            try:
                self._launch_batch(level, batch, stats)
            except Exception as error:  # noqa: BLE001 - whatever refused the capture, the launches go one by one
                self._graphs_usable = False
                self.graph_failure = f"{type(error).__name__}: {error}"
            finally:
                self._launch_stream = 0
                try:
                    graph = stream.end_capture()
                except (cupy.cuda.driver.CUDADriverError, cupy.cuda.runtime.CUDARuntimeError) as error:
                    self._graphs_usable = False
                    self.graph_failure = self.graph_failure or f"{type(error).__name__}: {error}"
        return graph if self._graphs_usable else None

    def _level(self, level: int, row: int, numbers: "_Level | None", stats: dict):
        """Launch level ``level`` (its plan's history in row ``row``); ``numbers``: the level's
        counters as read by the host (several processes), else ``None``."""
        if self.peer is not None:
            self._peer_level(level, row, stats)
            return
        began = time.perf_counter()
        slot = np.int64((level % 2) * kernel_cells.SLOT)
        next_slot = np.int64(((level + 1) % 2) * kernel_cells.SLOT)
        self._timed(stats, "counters", self._decide, slot, row)
        overlap = self.options.overlap and self.group.size > 1
        if overlap:  # the normal stream first: its pairs travel while the delegate stream computes
            travelling = self._normal_stream(level, slot, next_slot, numbers, stats)
        self._timed(stats, "delegate_visits", self._delegate_visits, level, slot, next_slot)
        reduction = self.group.start_allreduce(self.new, "max")
        if self.options.blocking_reduction:
            self._timed(stats, "delegate_reduction", reduction.wait)
        if not overlap:
            travelling = self._normal_stream(level, slot, next_slot, numbers, stats)
        self._timed(stats, "normal_exchange", self._receive_pairs, travelling, level, next_slot)
        if not self.options.blocking_reduction:
            self._timed(stats, "delegate_reduction", reduction.wait)
        self._timed(stats, "close", self._close, level)
        if self.options.profile:
            self.backend.synchronize()
            stats["level_seconds"].append(time.perf_counter() - began)

    # --- several processes through peer memory ---------------------------------------------------
    def _wants_peer_memory(self, group: Group, subgraphs, tuned: bool) -> bool:
        """Whether this search exchanges through peer memory (the same answer on every process):
        ``Options.peer_memory`` if set (with several processes), else whether several processes
        run on real GPUs of one host with no option tuning the collectives, vertex ids of at
        most 31 bits and at most ``_kernels_cuda.MAX_PEERS`` processes (collective: the host
        names are gathered)."""
        chosen = self.options.peer_memory
        if group.size == 1 or chosen is False:
            return False
        if chosen:
            return True
        from gpugraph.distributed.peer import host_names

        backend = group.backend
        if tuned or not backend.is_cuda or backend.simulated or pair_entries(subgraphs.num_vertices) != 1:
            return False
        from gpugraph.graph500._kernels_cuda import MAX_PEERS

        return group.size <= MAX_PEERS and len(host_names(group.comm)) == 1

    def _bitmap_positions(self):
        """Each nn arc's column as a bit of the gathered frontier bitmap (every process's share
        of ``8 * _bitmap_share`` bits in process order: owner times that, plus the local index),
        worked out once so the backward nn visit divides nothing; 32-bit where every position
        fits. Empty without a bitmap (one process, or nn forward only). Worked out a chunk of
        arcs at a time (``config.GRAPH500_BUILD_CHUNK_EDGES``): the 64-bit temporaries of all nn
        arcs at once took more memory than the positions themselves."""
        xp, graph = self.xp, self.graph
        if not self._bitmap_share:
            return xp.empty(0, dtype=np.int32)
        layout, bits = graph.layout, 8 * self._bitmap_share
        wide = bits * layout.processes > np.iinfo(np.int32).max
        with self.backend.activate():
            columns = graph.nn.indices
            positions = xp.empty(columns.size, dtype=np.int64 if wide else np.int32)
            for piece in edge_chunks(columns.size):
                positions[piece] = layout.owner(columns[piece]) * bits + columns[piece] // layout.processes
            return positions

    def _share_peer_memory(self):
        """Set up ``Options.peer_memory`` (collective): this process's inbox, sized for the nn arcs
        of every process into its normals (one all-reduce of the counts per sender and owner),
        its marks of both parities, the frontier bitmap (every process stores its share there),
        its delegates' candidates, every process's published numbers, the barrier's and the
        inbox's cursor cells, all in a :class:`~gpugraph.distributed.peer.PeerMemory`; a local
        buffer for the nn pairs of a level (at most this process's nn arcs).

        Raises
        ------
        InvalidParameterError
            If the graph has vertex ids past 31 bits (a pair is one int64 in an inbox) or, on
            GPUs, more processes than ``_kernels_cuda.MAX_PEERS``.
        """
        from gpugraph.distributed.peer import PeerMemory

        graph, group, xp, backend = self.graph, self.group, self.xp, self.backend
        processes, layout = group.size, graph.layout
        if pair_entries(graph.num_vertices) != 1:
            raise InvalidParameterError(f"peer_memory holds vertex ids of up to {PAIR_ID_BITS} bits; "
                                        f"this graph has {graph.num_vertices} vertices")
        if backend.is_cuda and processes > self.kernels.MAX_PEERS:
            raise InvalidParameterError(f"peer_memory runs at most {self.kernels.MAX_PEERS} processes, "
                                        f"not {processes}")
        row = np.zeros((processes, processes), dtype=np.int64)
        with backend.activate():
            for piece in edge_chunks(graph.nn.indices.size):  # the arcs per owner, a chunk at a time
                row[group.rank] += to_numpy(xp.bincount(layout.owner(graph.nn.indices[piece]), minlength=processes))
        capacity = group.allreduce(row.reshape(-1)).reshape(processes, processes)  # [sender, owner]
        # starts[owner, sender]: where the sender's region of the owner's inbox begins.
        starts = np.zeros((processes, processes), dtype=np.int64)
        starts[:, 1:] = np.cumsum(capacity.T, axis=1)[:, :-1]
        # Marks are read from the peers 8 bytes at a time (a byte a load over NVLink cost more
        # than the level's visits), so their length is padded to words; the padding stays zero.
        # Each process stores its bitmap share into every process's "bits" (the gathered
        # bitmap), 8 bytes a store.
        delegates = int(self.new.size)
        padded = -(-delegates // 8) * 8
        self.peer = PeerMemory(group.comm, backend, {
            "arrivals": (3, np.int64), "side_arrivals": (3, np.int64), "cursors": (processes, np.int64),
            "published": (2 * processes * kernel_cells.PUBLISHED_CELLS, np.int64), "marks": (2 * padded, np.uint8),
            "bits": (processes * self._bitmap_share, np.uint8),
            "inbox": (int(capacity[:, group.rank].sum()), np.int64), "candidates": (delegates, self.candidate.dtype)})
        with backend.activate():
            self._peer_starts = xp.asarray(starts.reshape(-1))
            arcs = max(1, int(graph.nn.indices.size))
            self._pair_buffers = (xp.empty(arcs, dtype=np.int64), xp.empty(arcs, dtype=np.int64))
            combined = xp.zeros(padded, dtype=np.uint8)
        self.new = combined[:delegates]  # every process's marks combined (close_delegates reads them)
        self.candidate = self.peer.own["candidates"]
        self.no_candidate = self.candidate[:0]
        self._found_anywhere = self.new
        self._bitmap = self.peer.own["bits"]  # every share, stored by its process
        self._frontier_targets = (kernel_tuple([array.view(np.uint64) for array in self.peer.peers["bits"]], backend),
                                  np.int64(group.rank * self._bitmap_share // 8))
        self._peers = {name: kernel_tuple(self.peer.peers[name], backend)
                       for name in ("arrivals", "side_arrivals", "cursors", "published", "inbox", "candidates")}
        self._peers["marks"] = kernel_tuple([array.view(np.uint64) for array in self.peer.peers["marks"]], backend)
        self._combined_words = combined.view(np.uint64)
        marks = self.peer.own["marks"]
        self._mark_views = (marks[:delegates], marks[padded:padded + delegates])
        self._rank = np.int64(group.rank)
        self._meeting_threads = -(-processes // 32) * 32  # a thread per process's arrival, whole warps

    def _peer_level(self, level: int, row: int, stats: dict):
        """Launch level ``level`` with peer memory (the protocol: ``_kernels_cpu``, "peer memory")."""
        began = time.perf_counter()
        parity = np.int64(level % 2)
        slot = np.int64(parity * kernel_cells.SLOT)
        next_slot = np.int64((1 - parity) * kernel_cells.SLOT)
        self._mark = self._mark_views[parity]
        self._timed(stats, "counters", self._share_numbers, slot, row, parity)
        with self._on_side_stream():  # beside the delegate push and the pass; joined before the exchange
            self._timed(stats, "normal_exchange", self._frontier_bits, np.int32(level))
            bits_stored = self._side_checkpoint()
            self._timed(stats, "delegate_visits", self._pull_through_peers, level)
        self._timed(stats, "delegate_visits", self._push, slot, np.int32(level), next_slot)
        self._wait_for_side(bits_stored)  # this process's bitmap share is stored before it meets the others
        self._meet(needed=kernel_cells.NN_BACKWARD)  # the bitmap's meeting, where nn goes backward over it
        self._timed(stats, "normal_visits", self._normal_pass, np.int32(level), next_slot, kernel_cells.PASS_VISITS,
                    self._pair_buffers, self._bitmap)
        self._timed(stats, "normal_exchange", self._exchange_through_peers, level, next_slot, parity)
        self._timed(stats, "close", self._close, level)
        if self.options.profile:
            self.backend.synchronize()
            stats["level_seconds"].append(time.perf_counter() - began)

    def _share_numbers(self, slot, row: int, parity):
        """Publish this process's numbers of the level, meet the peers, and plan the level on the
        sums (``_kernels_cpu.share_numbers``): one launch on a GPU, the host meeting the peers
        between two elsewhere."""
        cells, own = kernel_cells, self.peer.own
        arguments = (self.counts, slot, self.factors, self.options.direction_optimizing, np.int64(row),
                     np.int64(self._shared_cell), self._peers["published"], parity, own["cursors"],
                     self._peers["arrivals"], self._rank, np.int64(config.PEER_BARRIER_SPINS))
        if self.peer.on_device:
            self._gpu("share_numbers", 1, self._meeting_threads, *arguments,
                      np.int64(cells.PUBLISH | cells.MEET | cells.DECIDE))
        else:
            self._run("share_numbers", 1, 1, *arguments, np.int64(cells.PUBLISH))
            self.peer.barrier()
            self._run("share_numbers", 1, 1, *arguments, np.int64(cells.DECIDE))

    @contextmanager
    def _on_side_stream(self):
        """Launch what the block holds on a side stream that starts after the launches so far;
        the main launches wait for it at the next :meth:`_join_side_stream`, or for part of it
        at a :meth:`_side_checkpoint` (real GPUs with peer memory; elsewhere in order). Used for
        a level's frontier bits and delegate pulls beside its delegate push and its pass over
        the normals (the bits and the pulls read depths of ``level``, the claims write
        ``level + 1``; pulls and pass share only idempotent marks and candidates, any of which
        is valid), and for the claims of the inbox beside the level's last merge (normals
        against delegates)."""
        if not self._on_gpu or self.peer is None:
            yield
            return
        import cupy

        if self._side is None:
            self._side = cupy.cuda.Stream(non_blocking=True)
        self._side.wait_event(self._main_stream().record())
        launch_stream, self._launch_stream = self._launch_stream, self._side.ptr
        try:
            yield
        finally:
            self._launch_stream = launch_stream
            self._side_join = self._side.record()

    def _join_side_stream(self):
        """The main launches wait for the side stream's work so far (:meth:`_on_side_stream`)."""
        if self._side_join is not None:
            self._main_stream().wait_event(self._side_join)
            self._side_join = None

    def _side_checkpoint(self):
        """Inside :meth:`_on_side_stream`: an event after the side launches so far, for
        :meth:`_wait_for_side` (``None`` where the launches go in order)."""
        on_side = self._side is not None and self._launch_stream == self._side.ptr
        return self._side.record() if on_side else None

    def _wait_for_side(self, checkpoint):
        """The main launches wait for the side launches before ``checkpoint``
        (:meth:`_side_checkpoint`), not for the later ones."""
        if checkpoint is not None:
            self._main_stream().wait_event(checkpoint)

    def _main_stream(self):
        """The stream the main launches go to: the capturing stream during a capture, else the
        default one."""
        import cupy

        return self._stream if self._launch_stream else cupy.cuda.Stream.null

    def _exchange_through_peers(self, level: int, next_slot, parity):
        """The level's nn pairs into their owners' inboxes, a meeting, then every process's marks
        combined into ``new`` and, beside that on the side stream, this process's inbox claimed
        (``_kernels_cpu.scatter_pairs``, ``merge_marks``, ``apply_inbox``); first the side
        stream's work so far joined, if any."""
        self._join_side_stream()
        graph, backend, peers = self.graph, self.backend, self._peers
        layout = graph.layout
        blocks = backend.blocks_for(int(self._pair_buffers[0].size)) if backend.is_cuda else 1
        resident = self._stride_blocks()
        self._run("scatter_pairs", min(blocks, resident), backend.threads_per_block(), *self._pair_buffers,
                  self.counts, peers["inbox"], peers["cursors"], self._peer_starts, self._rank,
                  np.int64(layout.hosts), np.int64(layout.gpus_per_host))
        self._meet()
        own = self.peer.own
        with self._on_side_stream():  # beside the merge: the claims touch normals, the merge delegates
            self._run("apply_inbox", resident, backend.threads_per_block(), own["inbox"], own["cursors"],
                      self._peer_starts, self._rank, self.depth, self.parent, np.int32(level), graph.nd.indptr,
                      graph.nn.indptr, self.counts, next_slot, self.flags)
        self._merge_marks(parity, resolve=True)
        self._join_side_stream()

    def _merge_marks(self, parity, resolve: bool = False):
        """Every process's marks of ``parity`` combined into ``new``; if ``resolve``, the
        candidates of the delegates only other processes marked taken from them
        (``_kernels_cpu.merge_marks``; after a meeting)."""
        backend, combined = self.backend, self._combined_words
        self._run("merge_marks", min(backend.blocks_for(int(combined.size)), self._stride_blocks())
                  if backend.is_cuda else 1, backend.threads_per_block(), combined, self._peers["marks"],
                  np.int64(parity), self._rank, self.counts, self._peers["candidates"], resolve, self.delegate_depth)

    def _meet(self, ended: bool = False, needed: int = 0, side: bool = False):
        """Wait for every process to get here: a barrier kernel on GPUs, the host's elsewhere.
        The kernel meets while the search goes on, or, if ``ended``, once it is over (the same
        on every process); so a batch ends with the meeting that ends a search: after it no
        process reads another's block for this search, and the next one may write its own. A
        meeting with ``needed`` (bits of the plan's visits) happens only where the level's plan
        has one of them, which every process plans alike: the bitmap's meeting
        (``NN_BACKWARD``) and the marks' meeting (``MEET_MARKS``, ``_kernels_cpu.share_numbers``).
        A ``side`` meeting (the marks', on the side stream while the main launches meet too)
        counts its arrivals apart."""
        if self.peer.on_device:
            arrivals = self._peers["side_arrivals" if side else "arrivals"]
            self._gpu("barrier", 1, self._meeting_threads, arrivals, self._rank, np.int64(config.PEER_BARRIER_SPINS),
                      self.counts, np.int64(ended), np.int64(needed), key="side" if side else "")
        elif not needed or int(self.counts[kernel_cells.PLAN_VISITS]) & needed:  # the host reads its plan
            self.peer.barrier()

    def _stride_blocks(self) -> int:
        """Blocks of a grid-stride kernel on this GPU (1 elsewhere)."""
        if not self.backend.is_cuda:
            return 1
        return max(1, self.backend.multiprocessors()) * config.GRAPH500_STRIDE_BLOCKS_PER_SM

    def _run(self, name: str, blocks: int, threads: int, *arguments):
        """Kernel ``name`` on this process's device (``blocks`` x ``threads`` on a GPU)."""
        if self.backend.is_cuda:
            self._gpu(name, max(1, blocks), threads, *arguments)
        else:
            self._cpu(getattr(self.kernels, name), *arguments)

    def _levels_found(self, counts: np.ndarray, batch: int) -> int:
        """How many of a batch's levels had a frontier, from the history rows in ``counts`` (read
        after the batch): alone or with peer memory the search ended at the first that had none;
        else the host checked before each level."""
        if not (self.group.size == 1 or self.peer is not None):
            return batch
        for row in range(batch):  # (scalar reads: fewer host microseconds than array operations here)
            first = kernel_cells.HISTORY + row * kernel_cells.HISTORY_CELLS
            if counts[first] + counts[first + 1] == 0:
                return row
        return batch

    def _record(self, counts: np.ndarray, levels: int, stats: dict) -> None:
        """The frontiers and directions of a batch's first ``levels`` levels from the history rows
        in ``counts`` into ``stats``."""
        for row in range(levels):
            q_normal, q_delegate, backward = (int(value) for value in counts[kernel_cells.HISTORY:][
                row * kernel_cells.HISTORY_CELLS:][:kernel_cells.HISTORY_CELLS])
            stats["directions"].append({kind: "backward" if backward >> bit & 1 else "forward"
                                        for bit, kind in enumerate(DIRECTED_KINDS)})
            stats["frontiers"].append((q_normal, q_delegate))

    def _root_memory(self) -> tuple:
        """``(root_cells, host_root)``: the cells the start kernel reads a search's root from
        (``_kernels_cpu.ROOT_CELLS``) and the host array :meth:`_set_root` writes it into, one
        memory: on the CPU and the simulator a NumPy array, on a GPU pinned host cells that the
        kernel reads over the bus (unified addressing maps pinned memory at its host address), so
        setting a root is three host stores, not a copy inside the search's clock (~40 us of host
        time after the idle spell between a benchmark's searches, ``bench/host_latency.py``)."""
        if not self._on_gpu:
            cells = np.full(kernel_cells.ROOT_CELLS, -1, dtype=np.int64)
            return cells, cells
        import cupy
        import cupyx

        host = cupyx.empty_pinned(kernel_cells.ROOT_CELLS, dtype=np.int64)
        host[:] = -1
        memory = cupy.cuda.UnownedMemory(host.ctypes.data, host.nbytes, host, self.backend.device_id)
        return cupy.ndarray(host.shape, np.int64, cupy.cuda.MemoryPointer(memory, 0)), host

    def _root_cells(self, root: int) -> tuple:
        """What ``root_cells`` holds for a search from ``root`` (``_kernels_cpu.ROOT_CELLS``): its
        local index if it is a normal of this process, its delegate number if it is a delegate,
        its global id (looked up on the host before the search's clock starts, as the root's
        relabeling is)."""
        root_local = root_delegate = -1
        position = int(np.searchsorted(self._sorted_delegates, root))
        if position < self._sorted_delegates.size and self._sorted_delegates[position] == root:
            root_delegate = int(self._delegates_by_id[position])
        elif int(self.graph.layout.owner(np.int64(root))) == self.group.rank:
            root_local = root // self.graph.layout.processes
        return root_local, root_delegate, root

    def _set_root(self, cells: tuple):
        """``cells`` (:meth:`_root_cells`) into ``root_cells`` (:meth:`_root_memory`; no device
        reads it now: the last search was waited for): the only thing a search changes before
        its launches, so :meth:`_reset` can be part of the first batch's CUDA graph."""
        self._host_root[:] = cells

    def _reset(self):
        """Every vertex unvisited, the root (``root_cells``) at depth 0 and the counters of level 0."""
        graph = self.graph
        # A parent counts only where the depth is set (parents()), so only the depths are reset;
        # on a GPU by a byte memset (-1 is all ones), several times faster than CuPy's fill.
        for array in (self.depth, self.flags, self.delegate_depth, self.candidate):
            if self._on_gpu:
                array.data.memset_async(0xFF, array.nbytes)
            else:
                array.fill(-1)
        if self.peer is not None:  # no peer reads them now: the last search ended with a meeting
            marks = self.peer.own["marks"]
            if self._on_gpu:
                marks.data.memset_async(0, marks.nbytes)
            else:
                marks.fill(0)
        segments = self.normals_with_arcs.size
        self.flags[2 * segments:3 * segments] = self.normals_with_arcs
        arguments = (self.depth, self.parent, self.new, self.candidate, self.root_cells, graph.nd.indptr,
                     graph.nn.indptr, self.counts, np.int64(self.unvisited_nd), np.int64(self.unvisited_nn), self.flags)
        if self.backend.is_cuda:
            self._gpu("start", 1, 1, *arguments)
        else:
            run_cpu_kernel(self.kernels.start, *arguments)
        self._close(-1)

    def _timed(self, stats, phase: str, function, *args):
        if not self.options.profile:
            return function(*args)
        self.backend.synchronize()
        began = time.perf_counter()
        result = function(*args)
        self.backend.synchronize()
        stats["phases"][phase] += time.perf_counter() - began
        return result

    def _shared_counts(self, level: int) -> np.ndarray:
        """The counters on the host, with ``level``'s normal frontier, its nn arcs and the
        unvisited normals with nn arcs summed over the processes in the cells after them
        (``_kernels_cpu.SHARED_CELLS``: an all-reduce on the device before the one read)."""
        shared = self.counts[self._shared_cell:self._shared_cell + kernel_cells.SHARED_CELLS]
        shared[:] = self.counts[self._shared_from[level % 2]]
        self.group.allreduce_array(shared, "sum")
        return self._read_counts()

    def _read_counts(self) -> np.ndarray:
        """The counters on the host (on a GPU into pinned memory: a faster copy than pageable)."""
        if self._on_gpu:
            return self.counts.get(out=self._pinned_counts)
        return to_numpy(self.counts)

    def _planned_visits(self, counts: np.ndarray, level: int) -> int:
        """The visits :meth:`_decide` will plan for ``level`` on the device, worked out by the same
        function on a copy of the counters it will start from (``counts``, read after the level
        before), so the host knows which collectives the level needs."""
        plan = counts.copy()
        kernel_cells.decide(plan, np.int64((level % 2) * kernel_cells.SLOT), self._host_factors,
                            self.options.direction_optimizing, False, np.int64(0), np.int64(self._shared_cell), False)
        return int(plan[kernel_cells.PLAN_VISITS])

    def _decide(self, slot, row: int):
        """The plan of the level whose numbers are in counter slot ``slot`` (``_kernels_cpu.decide``)."""
        shared = self._shared_cell if self._bitmap_share else -1  # several processes deciding nn together
        arguments = (self.counts, slot, self.factors, self.options.direction_optimizing, self.group.size == 1,
                     np.int64(row), np.int64(shared), False)
        if self.backend.is_cuda:
            self._gpu("decide", 1, 1, *arguments)
        else:
            run_cpu_kernel(self.kernels.decide, *arguments)

    def _close(self, level: int):
        """The delegates found in ``level`` join the next one; its counter slot gets their numbers
        and the slot read at this level's start is zeroed (``_kernels_cpu.close_delegates``)."""
        slot = ((level + 1) % 2) * kernel_cells.SLOT
        arguments = (self.new, self.delegate_depth, np.int32(level), self.degree["dd"], self.degree["dn"],
                     *self.queues["dd"], *self.queues["dn"], self.counts, np.int64(slot),
                     np.int64(kernel_cells.SLOT - slot))
        if self.backend.is_cuda:
            backend = self.backend
            blocks = min(backend.blocks_for(int(self.new.size)),
                         max(1, backend.multiprocessors()) * config.GRAPH500_CLOSE_BLOCKS_PER_SM)
            self._gpu("close_delegates", blocks, backend.threads_per_block(), *arguments)
        else:
            run_cpu_kernel(self.kernels.close_delegates, *arguments)

    # --- the two streams -------------------------------------------------------------------------
    def _delegate_visits(self, level, slot, next_slot):
        """The visits of the delegate frontier and into delegates, as the level's plan has them:
        backward dd and nd (mark the delegates they find in ``new``), forward dd (marks too) and
        forward dn (claims normals). The backward nd visit comes last: it skips the delegates
        already marked, whose long rows it would otherwise scan. With one process the forward
        nd visit joins the pass over the normals (:meth:`_normal_visits`)."""
        level = np.int32(level)
        dd, dn = self._pulls(level)
        self._pull_delegates(*dd)
        self._push(slot, level, next_slot)
        self._pull_delegates(*dn)
        if self.group.size > 1:
            self._normal_pass(level, next_slot, kernel_cells.ND_FORWARD)

    def _pulls(self, level):
        """The arguments of :meth:`_pull_delegates` for backward dd and backward nd (through the
        dn rows) at ``level``."""
        graph, level = self.graph, np.int32(level)
        return (("dd", level, self.delegate_depth, graph.delegate_ids, kernel_cells.PULL_DD),
                ("dn", level, self.depth, self.no_ids, kernel_cells.PULL_DN))

    def _pull_through_peers(self, level):
        """The backward visits into delegates with peer memory, on the side stream beside the
        delegate push and the pass over the normals (they share only idempotent marks and
        candidates, any of which is valid; the pulls read depths of ``level``, which the claims
        of the level do not write). Each process holds only its part of a delegate's rows, so
        a row that finds nothing here was often found by another process's part: on GPUs every
        first probe (on the CPU the whole visits), then the marks' meeting (on arrivals of its
        own), every process's marks combined, then the long rows of the delegates no process
        has found. Only where some process pulls (``MEET_MARKS``), as is the merge."""
        dd, dn = self._pulls(level)
        self._pull_delegates(*dd, long_rows=False)
        self._pull_delegates(*dn, long_rows=False)
        self._meet(needed=kernel_cells.MEET_MARKS, side=True)
        self._merge_marks(level % 2)
        if self.backend.is_cuda:
            self._pull_delegates(*dd, first_probes=False)
            self._pull_delegates(*dn, first_probes=False)

    def _normal_visits(self, level, slot, next_slot, numbers: "_Level | None"):
        """nn visits and dn backward (and nd forward with one process), as the level's plan has
        them; returns the nn pairs ``(targets, sources)`` to send (``None`` when there are none,
        or one process, where the nn visit claims its targets directly). With several processes
        nn goes forward, or backward over the gathered frontier bitmap with
        ``Options.nn_backward`` (``numbers``: the level's counters, read by the host, and the
        visits planned)."""
        xp, cells = self.xp, kernel_cells
        level = np.int32(level)
        if self.group.size == 1:
            self._normal_pass(level, next_slot, cells.PASS_VISITS)
            return None
        pairs = bitmap = None
        if numbers.q_normal and numbers.fv_nn and numbers.visits & cells.NN_FORWARD:
            pairs = (xp.empty(numbers.fv_nn, dtype=np.int64), xp.empty(numbers.fv_nn, dtype=np.int64))
        # nn columns are global ids here: the pass never claims along them forward (it writes
        # pairs, when this process has any to write), and goes backward only over the gathered
        # frontier bitmap (every process plans it for the same levels).
        allowed = cells.PASS_VISITS & ~cells.ND_FORWARD & ~cells.NN_BACKWARD
        if pairs is None:
            allowed &= ~cells.NN_FORWARD
        if self._bitmap_share and numbers.visits & cells.NN_BACKWARD:
            self._frontier_bits(level)
            bitmap = self.group.all_gather_array(self.frontier_share)
            allowed |= cells.NN_BACKWARD
        self._normal_pass(level, next_slot, allowed, pairs, bitmap)
        return pairs

    def _frontier_bits(self, level):
        """This process's share of the frontier bitmap, if the level's plan has backward nn: with
        peer memory stored into every process's gathered bitmap, else into ``frontier_share``."""
        backend, words = self.backend, np.int64(self._bitmap_share // 8)
        arguments = (self.depth, level, self.counts, *self._frontier_targets, words, self.flags)
        if backend.is_cuda:
            threads = config.GRAPH500_FRONTIER_THREADS
            self._gpu("frontier_bits", min(-(-int(words) // threads), self._stride_blocks()), threads, *arguments)
        else:
            self._cpu(self.kernels.frontier_bits, *arguments)

    def _normal_stream(self, level: int, slot, next_slot, numbers: "_Level | None", stats: dict):
        """The normal visits and the start of their pairs' journey (:meth:`_send_pairs`)."""
        pairs = self._timed(stats, "normal_visits", self._normal_visits, level, slot, next_slot, numbers)
        return self._timed(stats, "normal_exchange", self._send_pairs, pairs, numbers, stats)

    def _send_pairs(self, pairs, numbers: "_Level | None", stats: dict):
        """Start sending the nn pairs to the targets' owners (collective); returns the
        :class:`~gpugraph.distributed.comm.Exchange` whose payload is on its way, for
        :meth:`_receive_pairs`; ``None`` with one process, and when no process has pairs to send
        (the level's frontier has no nn arcs, or nn goes backward: ``numbers`` says so alike on
        every process).

        Direct: one all-to-all to the owners. With ``Options.local_all2all`` (and several GPUs per
        host): first to the peer on this host with the owner's GPU index (waited for), then, from
        there, to the owner among the processes of that GPU index on the other hosts (the
        paper's L), so each process sends to ``gpus_per_host - 1 + hosts - 1`` others instead of
        ``p - 1``. ``Options.uniquify`` removes duplicate targets before the (last) sending step.
        """
        xp, layout = self.xp, self.graph.layout
        if self.group.size == 1 or not (numbers.shared_fv_nn and numbers.visits & kernel_cells.NN_FORWARD):
            return None
        if pairs is None:
            pairs = (xp.empty(0, dtype=np.int64), xp.empty(0, dtype=np.int64))
        targets, sources = pairs
        if self.options.local_all2all and layout.gpus_per_host > 1:
            host = self.group.rank // layout.gpus_per_host
            peer = host * layout.gpus_per_host + layout.owner(targets) % layout.gpus_per_host
            targets, sources = self._received(self._send(targets, sources, peer, stats))
        if self.options.uniquify:
            targets, first = xp.unique(targets, return_index=True)
            sources = sources[first]
        return self._send(targets, sources, layout.owner(targets), stats)

    def _receive_pairs(self, exchange, level: int, next_slot):
        """Wait for the pairs :meth:`_send_pairs` started and claim their unvisited targets."""
        if exchange is None:
            return
        targets, sources = self._received(exchange)
        if targets.size:
            self._apply(targets // self.stride, sources, level, next_slot)

    def _send(self, targets, sources, destination, stats: dict):
        """Start sending every pair to its ``destination`` process (one all-to-all, the pairs
        packed by :func:`pack_pairs`): returns the exchange, its sizes known and its payload on
        its way (:meth:`_received` ends it)."""
        xp = self.xp
        # Processes as the narrowest key: a GPU's radix sort makes a pass per key byte.
        destination = destination.astype(np.uint8 if self.group.size <= 256 else np.int32)
        order = xp.argsort(destination)
        # Where each process's pairs start in the sorted keys: one read (CuPy's bincount reads
        # the keys' minimum and maximum first, three waits for the device).
        starts = to_numpy(xp.searchsorted(destination[order], xp.arange(self.group.size, dtype=destination.dtype)))
        counts = np.diff(np.append(starts, destination.size)).astype(np.int64)
        payload = pack_pairs(xp, targets[order], sources[order], self.graph.num_vertices)
        stats["nn_pairs_sent"] += int(counts.sum() - counts[self.group.rank])
        stats["nn_messages"] += int(np.count_nonzero(np.delete(counts, self.group.rank)))
        return self.group.exchange(payload, counts * pair_entries(self.graph.num_vertices)).send()

    def _received(self, exchange):
        """The pairs ``(targets, sources)`` an exchange of :meth:`_send` brought, once arrived."""
        return unpack_pairs(exchange.wait().received, self.graph.num_vertices)

    def _apply(self, targets, sources, level: int, next_slot):
        graph = self.graph
        arguments = (targets, sources, self.depth, self.parent, np.int32(level), graph.nd.indptr, graph.nn.indptr,
                     self.counts, next_slot, self.flags)
        if self.backend.is_cuda:
            backend = self.backend
            self._gpu("apply_pairs", backend.blocks_for(int(targets.size)), backend.threads_per_block(), *arguments)
        else:
            self._cpu(self.kernels.apply_pairs, *arguments)

    # --- kernel launches -------------------------------------------------------------------------
    def _push(self, slot, level, next_slot):
        """The forward visits of the delegate frontier, along dd and dn as the level's plan has
        them (``_kernels_cpu.push``); on the GPU edge-balanced over both queues' arcs (delegate
        rows are long and skewed)."""
        graph = self.graph
        arguments = (graph.dd.indptr, graph.dd.indices, graph.dn.indptr, graph.dn.indices, *self.queues["dd"],
                     *self.queues["dn"], slot, graph.delegate_ids, self.delegate_depth, self._mark, self.candidate,
                     self.depth, self.parent, level, graph.nd.indptr, graph.nn.indptr, self.counts, next_slot,
                     self.flags)
        if self.backend.is_cuda:
            backend = self.backend
            blocks = min(backend.blocks_for(int(graph.dd.indices.size) + int(graph.dn.indices.size)),
                         max(1, backend.multiprocessors()) * config.GRAPH500_PUSH_BLOCKS_PER_SM)
            self._gpu("push", max(1, blocks), backend.threads_per_block(), *arguments)
        else:
            self._cpu(self.kernels.push, *arguments)

    def _normal_pass(self, level, next_slot, allowed: int, pairs=None, bitmap=None):
        """``_kernels_cpu.normal_pass`` with the visits of the level's plan among ``allowed``;
        with several processes, backward nn reads ``bitmap`` (every process's share of the
        frontier bitmap, gathered)."""
        graph, no_ids = self.graph, self.no_ids
        targets, sources = pairs if pairs is not None else (no_ids, no_ids)
        # Without the nd visit the delegate marks are not passed: a non-blocking reduction may be
        # writing them (and the CUDA simulator copies every argument back after the kernel).
        nd_forward = allowed & kernel_cells.ND_FORWARD
        new, candidate = (self._mark, self.candidate) if nd_forward else (self.no_mark, self.no_candidate)
        arguments = (self.depth, self.parent, np.int32(level), np.int64(allowed), graph.nd.indptr, graph.nd.indices,
                     graph.nn.indptr, graph.nn.indices, self.delegate_depth, new, candidate, graph.delegate_ids,
                     self.stride, self.offset, self.counts, next_slot, self.flags, targets, sources,
                     self.no_bitmap if bitmap is None else bitmap, self.nn_bits)
        name = "normal_pass" if self.group.size == 1 else "normal_pass_over_bitmap"
        if self.backend.is_cuda:  # one wave of blocks, a segment's length each (worked out once)
            segment, key = 1 << kernel_cells.SEGMENT_BITS, str(nd_forward)
            if key not in self._pass_blocks:
                self._pass_blocks[key] = max(1, min(-(-graph.num_local // segment), resident_blocks(
                    getattr(self.kernels, name), self.backend, segment, *arguments)))
            self._gpu(name, self._pass_blocks[key], segment, *arguments, key=key)
        else:
            self._cpu(getattr(self.kernels, name), *arguments)

    def _pull_delegates(self, kind: str, level, column_depth, column_ids, visit: int, first_probes: bool = True,
                        long_rows: bool = True):
        """Backward dd (``kind="dd"``) or nd (through the dn rows) for the unvisited delegates, if
        the level's plan has ``visit``; on the GPU a thread per delegate tries the first columns
        (``first_probes``), then a block per remaining long row (``long_rows``;
        ``_kernels_cuda.pull_delegates``, ``pull_long_rows``, which finds no rows queued when the
        visit did not run, and with peer memory skips those whose delegate another process found)."""
        csr = getattr(self.graph, kind)
        arguments = (csr.indptr, csr.indices, self._mark, self.candidate, level, self.delegate_depth, column_depth,
                     column_ids, self.stride, self.offset)
        if not self.backend.is_cuda:
            self._cpu(self.kernels.pull_delegates, *arguments, self.counts, np.int64(visit))
            return
        backend = self.backend
        cell = np.int64(kernel_cells.LONG_DD if kind == "dd" else kernel_cells.LONG_DN)
        blocks = min(backend.blocks_for(int(self.new.size)),
                     max(1, backend.multiprocessors()) * config.GRAPH500_DELEGATE_BLOCKS_PER_SM)
        if first_probes:
            self._gpu("pull_delegates", blocks, backend.threads_per_block(), *arguments, self.counts,
                      np.int64(visit), self.long_rows[kind], cell, key=kind)
        if long_rows:
            blocks = max(1, min(int(self.new.size), backend.multiprocessors() * config.GRAPH500_PULL_BLOCKS_PER_SM))
            self._gpu("pull_long_rows", blocks, config.GRAPH500_PULL_THREADS, *arguments[:5], *arguments[6:],
                      self.long_rows[kind], self.counts, cell, self._found_anywhere, key=kind)

    def _gpu(self, name: str, blocks: int, threads: int, *arguments, key: str = ""):
        """Launch CUDA kernel ``name`` through this searcher's :class:`BoundLaunch` for it (one per
        ``key`` too, for kernels launched on the arrays of different subgraphs)."""
        bound = self._bound.get((name, key))
        if bound is None:
            bound = self._bound[(name, key)] = BoundLaunch(getattr(self.kernels, name), self.backend)
        bound(blocks, threads, *arguments, stream=self._launch_stream)

    @staticmethod
    def _cpu(kernel, *arguments):
        with dynamic_schedule(config.CPU_VERTEX_CHUNK):
            run_cpu_kernel(kernel, *arguments)

    # --- results ---------------------------------------------------------------------------------
    def parents(self, on_device: bool = False):
        """The last search's BFS tree as one global parent array on process 0 (``None`` on the
        others; collective).

        Parameters
        ----------
        on_device:
            Leave the array in the searcher's array module (CuPy on a GPU) instead of copying
            it to the host (what the harness validates: ~0.2 s less per search at scale 24 on
            one process). Either way the tree is built on the devices: several processes
            gather their pieces, padded to one length, with one all-gather.

        Returns
        -------
        numpy.ndarray, cupy.ndarray or None
            int64 per vertex: the parent's global id, the root's own id at the root, -1 where
            unreached.
        """
        graph, layout, xp = self.graph, self.graph.layout, self.xp
        local = xp.where(self.depth >= 0, self.parent.astype(np.int64), -1)
        width = -(-graph.num_vertices // layout.processes)  # the most normals a process holds
        if local.size < width:  # pieces of one length for the all-gather
            local = xp.concatenate((local, xp.full(width - local.size, -1, dtype=np.int64)))
        with self.backend.activate():
            gathered = self.group.all_gather_array(local).reshape(layout.processes, width)
        if self.group.rank != 0:
            return None
        # Vertex i * p + offset(q) is entry i of process q's piece; the padding lands past n.
        interleaved = xp.empty((width, layout.processes), dtype=np.int64)
        interleaved[:, [layout.offset(process) for process in range(layout.processes)]] = gathered.T
        parent = interleaved.reshape(-1)[:graph.num_vertices]
        parent[graph.delegate_ids] = self.candidate
        parent = self._in_original_ids(parent)
        return parent if on_device else to_numpy(parent)

    def _in_original_ids(self, parent):
        """``parent`` (over the subgraphs' ids) over the original ids."""
        return parent if self.relabeling is None else self.relabeling.tree_in_original_ids(parent)


