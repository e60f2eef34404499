"""Tuning constants and defaults of gpugraph, in one place.

Nothing in a kernel or reader hard-codes a number that belongs here. Each constant says why it has
the value it has. Sections are owned by the layer named in their heading.
"""

from __future__ import annotations

import math

# --- backend -------------------------------------------------------------------------------------
#: Environment variable that picks the device when a call passes ``device=None``.
DEVICE_ENV_VAR = "GPUGRAPH_DEVICE"
#: Threads per block for one-thread-per-item CUDA kernels: 256 keeps 8 blocks resident per SM on
#: Hopper at modest register counts, a good default before per-kernel tuning.
CUDA_THREADS_PER_BLOCK = 256
#: Threads resident on one multiprocessor at most (compute capability 8.0 and 9.0: 2048): what
#: grids of blocks that each loop over a share of the work are sized by.
CUDA_THREADS_PER_SM = 2048

# --- graph storage -------------------------------------------------------------------------------
#: Vertex ids are stored as int32 while the vertex count fits, int64 beyond.
INT32_VERTEX_LIMIT = 2**31 - 1
#: Default policy for duplicate (u, v) edges: keep every copy, as the file has them, so that edge
#: counts match the source. Other policies: "first", "min", "max", "sum".
DEFAULT_DUPLICATE_POLICY = "keep"
#: Default policy for self-loops (u, u): keep them (SNAP's Slashdot has 78,303 and counts them).
DEFAULT_SELF_LOOP_POLICY = "keep"
#: Relabelling sparse ids uses a table indexed by id while the largest id is at most this many
#: times the edge count (linear time); beyond that, sorting the distinct ids costs less memory.
DENSE_RELABEL_FACTOR = 8
#: ``Graph.to_networkx`` refuses graphs with more edges than this unless its ``max_edges`` is
#: raised: NetworkX holds about 300 bytes of Python objects per weighted edge and adds about
#: 0.2 million edges a second (networkx 3.6, measured with 1 M edges on two cores), so the
#: limit stands at about 3 GB and a minute of conversion.
TO_NETWORKX_MAX_EDGES = 10_000_000
#: The NetworkX backend builds component sets this many at a time with Python's cyclic garbage
#: collector paused (resuming it between batches): with a large NetworkX graph in memory the
#: collector's passes made building 0.85 M sets take 8.9 s instead of 2.2 s (RMAT scale 21).
NX_SETS_PER_BATCH = 65_536

# --- user interface ------------------------------------------------------------------------------
#: A progress bar appears on stderr once a load or generation has run longer than this (seconds).
PROGRESS_DELAY_SECONDS = 1.0
#: Minimum seconds between two redraws of a progress bar.
PROGRESS_REFRESH_SECONDS = 0.2

# --- io readers ----------------------------------------------------------------------------------
#: Text readers parse files in pieces of about this many (decompressed) bytes, cut at line ends:
#: large enough that per-piece overhead (a thread hand-off, output arrays) is negligible, small
#: enough that pieces balance across cores and the progress bar moves.
READ_PIECE_BYTES = 16 * 2**20
#: Pieces of compressed files are smaller, so that parsing overlaps decompression (the slower of
#: the two) from early on.
READ_STREAM_PIECE_BYTES = 4 * 2**20
#: Threads that parse pieces concurrently (the scanners release the GIL); ``None`` = every core
#: this process may run on.
READ_THREADS: int | None = None

# --- generators and binary format ---------------------------------------------------------------
#: Largest RMAT scale (and log2 of the largest vertex count of any generator): 2^40 vertices with
#: Graph500's 16 edges each already need 2^44 edges (256 TiB of ids), far past any one machine,
#: and keeps every counter of the generators' random streams below 2^64.
GENERATOR_MAX_SCALE = 40
#: CPU generators fill their output in pieces of this many edges so the progress bar moves (about
#: half a second of RMAT work per piece on two cores); one parallel loop per piece costs nothing.
GENERATOR_PIECE_EDGES = 1 << 24
#: Text writers format this many rows at a time: big enough to keep all cores busy on each
#: piece, small enough that a piece's text (about 20 bytes a row) stays near 100 MB.
WRITE_PIECE_ROWS = 1 << 22
#: gzip level of ``.gz`` outputs. On edge-list text level 1 compresses within about 5 % of level 6
#: (the gzip tool's default) at five times the speed, which keeps large writes disk-bound.
WRITE_GZIP_LEVEL = 1

# --- user programs and generated kernels ---------------------------------------------------------
#: Environment variable naming the directory where generated kernel sources (and, next to them,
#: Numba's compiled-code cache) are kept between runs.
KERNEL_CACHE_ENV_VAR = "GPUGRAPH_CACHE_DIR"
#: Default kernel cache directory when the environment variable is unset.
KERNEL_CACHE_DEFAULT = "~/.cache/gpugraph/kernels"

# --- frontier operators --------------------------------------------------------------------------
#: TWC bins (Merrill et al., PPoPP'12): a vertex with fewer out-edges than a warp is expanded by
#: one thread, up to a block's worth by one warp, beyond that by a whole block.
WARP_SIZE = 32
TWC_WARP_MIN_DEGREE = 32
TWC_BLOCK_MIN_DEGREE = 256
#: Edge-balanced advance: each GPU thread takes this many consecutive edges of the frontier's
#: edge range, finding its first source by binary search over the degree prefix sum. Measured on
#: the H100 (docs/benchmarks.md) with 4/8/16/32: 8 is within 6 % of the best on RMAT-22 (4) and
#: 13 % of the best on a 4096^2 grid (16); 32 is 2-4x slower on both.
EDGE_BALANCED_EDGES_PER_THREAD = 8
#: CPU edge-balanced advance: edges per chunk of the parallel loop (a few microseconds of work, so
#: chunks balance across cores while the per-chunk binary search stays negligible).
CPU_EDGE_CHUNK = 4096
#: CPU vertex loops hand out vertices to cores in dynamic chunks of this many, so a run of
#: high-degree vertices does not stall one core.
CPU_VERTEX_CHUNK = 256
#: Generated CPU kernels run as this many chunks per core on a thread pool: enough that a
#: chunk holding hubs does not leave the other cores idle, few enough that submitting costs
#: nothing next to the work.
CPU_CHUNKS_PER_CORE = 8
#: Default advance strategy: a frontier whose largest out-degree exceeds this many times its mean
#: is "skewed" and gets the edge-balanced strategy; flat frontiers (road networks) get one thread
#: per vertex, which needs no prefix sum.
ADVANCE_SKEW_RATIO = 8.0
#: Frontiers smaller than this use one thread per vertex whatever their skew: the prefix sum and
#: binning of the other strategies cost more than they balance.
ADVANCE_SMALL_FRONTIER = 1024
#: ...unless one of its vertices has more edges than this: then "edge" (one thread would walk a
#: hub's list alone while the rest of the GPU waits).
ADVANCE_THREAD_MAX_DEGREE = 4096
#: Pull: in-degree bins for the "auto" strategy (thread / warp / block per vertex), as for TWC.
#: When no segment reaches PULL_WARP_MIN_DEGREE, "auto" runs one thread per vertex without
#: binning; fewer than PULL_SMALL_COUNT vertices run one warp each, also without binning
#: (binning costs three compactions, more than such small launches).
PULL_WARP_MIN_DEGREE = 32
PULL_BLOCK_MIN_DEGREE = 1024
PULL_SMALL_COUNT = 1024
#: Whole-graph "auto" reductions remember their degree bins for this many offset arrays.
PULL_BIN_CACHE_GRAPHS = 8

# --- algorithms ----------------------------------------------------------------------------------
#: Direction-optimising BFS (Beamer et al., SC'12): go bottom-up when the frontier's out-edges
#: exceed the unexplored edges / BFS_ALPHA (and the frontier grows); return top-down when the
#: frontier has fewer than n / BFS_BETA vertices (and shrinks). The paper's tuned values.
BFS_ALPHA = 15.0
BFS_BETA = 18.0
#: The GPU comes back top-down later: its bottom-up level over all vertices costs little once
#: few are unvisited, while a top-down level from a large frontier pays the edge-balanced
#: advance. Graph500 scale 24, 32 roots (docs/performance.md, run 24): beta 18 -> 32.1,
#: 100 -> 34.0, 1000 -> 37.6, 10^6 -> 36.5 GTEPS harmonic.
BFS_CUDA_BETA = 1000.0
#: GPU BFS: top-down levels run inside one persistent kernel (a grid barrier per level instead of
#: a launch and a device read) while the frontier has at most this many out-edges...
BFS_PERSISTENT_EDGES = 1 << 16
#: ...and no vertex of more out-edges than this (one thread walks each frontier vertex).
BFS_PERSISTENT_DEGREE = 2048
#: Blocks per multiprocessor of the persistent kernel; all must be resident at once.
BFS_PERSISTENT_BLOCKS_PER_SM = 1
#: GPU BFS bottom-up: vertices with more in-edges than this scan them one warp at a time.
BFS_BOTTOM_UP_WARP_DEGREE = 64

#: GPU WCC on undirected graphs (Afforest): neighbours linked per vertex before sampling, how
#: many vertices are sampled to find the largest component, and the sampling seed.
WCC_SAMPLED_NEIGHBOURS = 2
WCC_SAMPLES = 1024
WCC_SAMPLE_SEED = 12345

#: CPU iterations hand out this many vertices at a time to each core, so that the few vertices
#: with huge neighbour lists (whose sorts dominate) do not all land on one core.
CPU_CDLP_CHUNK = 256

#: The factor of the default near-far bucket width: ``delta`` is this many times the mean arc
#: weight over the mean out-degree. Measured on the H100 (docs/performance.md): on RMAT-21 with
#: weights in [1, 255], 8 relaxes each arc 1.8 times (32: 2.8 times) and is the fastest; road
#: graphs would rather have wider buckets (fewer rounds) but stay far ahead of Bellman-Ford.
SSSP_DELTA_FACTOR = 8
#: GPU SSSP relaxes a queued vertex's out-arcs in items of at most this many arcs, one thread
#: each, so a hub's arcs spread over many threads instead of holding one thread for the round.
SSSP_CHUNK_ARCS = 32
#: Blocks per multiprocessor of the persistent near-far kernel (fewer if they do not all fit at
#: once): more blocks hide more gather latency, fewer make each grid barrier cheaper.
SSSP_PERSISTENT_BLOCKS_PER_SM = 2
#: GPU SSSP's predecessor passes give each thread this many consecutive out-arcs (one binary
#: search for the first arc's tail, then a walk).
SSSP_TREE_ARCS_PER_THREAD = 16

#: CPU enumeration hands out this many vertices at a time to each core: rows of the oriented
#: graph are short, so a chunk is a few microseconds of merging and chunks balance the hubs.
CPU_TRIANGLE_CHUNK = 64

# --- Benchmarks (gpugraph bench; gpugraph/bench/) ------------------------------------------------
#: Timed runs after the warm-up run when ``--trials`` is not given: enough for a stable median
#: on a quiet machine, few enough that the standard suite stays within minutes on two cores.
BENCH_TRIALS = 5
#: Graph500: BFS roots per Kronecker (RMAT) graph, drawn at random among the vertices with an
#: edge other than a self-loop; TEPS is the harmonic mean over them. Other graphs use as many
#: roots as trials (the convention is defined for Kronecker graphs; road graphs take seconds per
#: root on the CPU). ``--roots`` overrides both.
BENCH_GRAPH500_ROOTS = 64
#: Seed of the root draw, so every implementation and every run searches from the same roots.
BENCH_ROOT_SEED = 20261122
#: SSSP on an unweighted graph: integer weights drawn in this closed range (issue 5's Graph500
#: SSSP target), from a hash of the edge's end points and this seed, stored as this dtype
#: (float32 holds them exactly at half the bytes of float64).
BENCH_SSSP_WEIGHT_RANGE = (1, 255)
BENCH_SSSP_WEIGHT_SEED = 255
BENCH_SSSP_WEIGHT_DTYPE = "float32"
#: Per-arc passes on the device (weights, root candidates) handle this many arcs at a time, so
#: their uint64 temporaries stay a few hundred MiB at Graph500 scale 26.
BENCH_CHUNK_ARCS = 1 << 26
#: Memory ceilings measured in every run: bytes of the copied array and of the gathered-from
#: array, and the number of random 4-byte gathers. The GPU arrays are >= 1 GiB so the copy
#: streams from DRAM, not L2 (50 MiB on the H100); the CPU sizes are far past any cache.
BENCH_CEILING_TRIALS = 5
BENCH_CUDA_CEILING_BYTES = 1 << 30
BENCH_CUDA_CEILING_GATHERS = 1 << 26
BENCH_CPU_CEILING_BYTES = 256 << 20
BENCH_CPU_CEILING_GATHERS = 1 << 24
BENCH_CEILING_SEED = 4
#: NetworkX anchors run only on graphs with at most this many stored arcs (pure Python: a
#: scale-18 RMAT BFS takes tens of seconds per root).
BENCH_NETWORKX_MAX_ARCS = 200_000
#: Largest RMAT scale of the standard suite unless ``--max-scale`` raises it (scale 26 needs
#: ~20 GB of GPU memory for the graph and its CSC).
BENCH_CPU_MAX_SCALE = 18
BENCH_CUDA_MAX_SCALE = 24
#: Betweenness in a suite: sampled sources on graphs with more vertices than this.
BENCH_BETWEENNESS_EXACT_VERTICES = 2_000
BENCH_BETWEENNESS_SAMPLES = 32

# --- CPU fast paths (gpugraph/algorithms/_bfs_cpu.py) -------------------------------------------
#: CPU BFS: a level goes bottom-up only when its frontier also holds at least this share of the
#: vertices, besides Beamer's edge test (BFS_ALPHA): a bottom-up level reads every vertex's depth,
#: which the edge test does not count. It keeps the small, growing frontiers at the end of a
#: road-graph search top-down.
CPU_BFS_BOTTOM_UP_MIN_SHARE = 0.01

# --- path engine (gpugraph/engines/path/) --------------------------------------------------------
#: D_MAX of DiGraph's Algorithm 1: traversal depth bound, and the most arcs a path gets when
#: short paths are linked. The paper's default (16): long enough for a state to travel far in one
#: round, short enough that a thread's paths stay balanced.
PATH_MAX_DEPTH = 16
#: A *chunk* is a run of consecutive stored paths with at most this many arcs in all (a longer
#: path is a chunk alone): one GPU thread or CPU task processes a chunk, so threads get near-equal
#: arc counts (Figure 5 of the paper: one long path, or several short ones).
PATH_CHUNK_ARCS = 16
#: Convergence tolerance of the accumulative programs (PageRank, adsorption): a vertex's change
#: not yet propagated is dropped when at most this, relative to the program's base value
#: ``1 - damping`` (PageRank) or ``p_inject`` (adsorption).
PATH_TOLERANCE = 1e-7
#: Rounds at most before the engine stops with ``converged=False``.
PATH_MAX_ROUNDS = 10_000
#: Rounds the path engine (and the ``async`` baseline) launches before the host reads whether
#: they woke anything: the rounds after convergence find nothing to do, and the host no longer
#: waits between rounds (it compacted the active chunks and the woken vertices before).
PATH_ROUNDS_AHEAD = 8
#: CPU: paths handed to a core at a time by the dynamic schedule of a round.
PATH_CPU_SCHEDULE_CHUNKS = 64
#: Priority scheduling (§3.2.3) orders a round's launch only when more chunks are active than an
#: H100 keeps resident (132 SMs x 2048 threads): then the block scheduler runs the first ones
#: first and the rest later; fewer all run at once, and sorting them would only cost time.
PATH_PRIORITY_MIN_CHUNKS = 1 << 18
#: Walks of a chunk per round: a chunk whose walk woke a vertex that sends along one of the
#: chunk's own arcs (a cycle inside the chunk, e.g. the path u -> v -> u) is walked again at once,
#: up to this many times, so small cycles converge inside one round instead of one hop a round.
#: 4: on the H100, PageRank on cnr-2000 needs 38 rounds instead of 147 and 3.0 M vertex updates
#: instead of 9.7 M for 4% more arcs loaded; 16 sweeps gain nothing more (docs/path-engine.md).
PATH_CHUNK_SWEEPS = 4
#: Building the layout sorts every vertex's out-arcs (by head out-degree) and every vertex's
#: sending chunks: rows of at most this many arcs by insertion sort (no allocation, and cheap
#: for the short rows that are most rows), longer ones by NumPy's sort.
PATH_INSERTION_SORT_MAX_ARCS = 64
#: The sort of every vertex's out-arcs runs in parallel over this many blocks of rows with about
#: equal arcs (a web crawl's long rows come in runs, so blocks of equal row counts would leave
#: some threads the most work; many blocks, so that each is a small share of it).
PATH_VISITING_ORDER_BLOCKS = 1024
#: Building the layout runs Tarjan's algorithm on a thread beside the partitioning; with at least
#: this many Numba threads the partitioning's kernels leave it a core of its own (16 cores: the
#: visiting order 9 ms on 15 threads against 30 on 16, where one thread shared Tarjan's core and
#: the others waited for it), with fewer they keep every thread (2 cores: taking one away cost
#: the partitioning ~25 ms on cnr-2000).
PATH_SCC_OWN_CORE_THREADS = 4
#: Building the layout sorts the chains of paths by layer in parallel over blocks of this many
#: consecutive chains (a counting sort per block; the order does not depend on it): large enough
#: that a block's per-layer counts are few next to its chains, small enough for 8 blocks a core
#: on cnr-2000's 3 M chains.
PATH_ORDER_BLOCK_CHAINS = 1 << 14
#: Subgraphs (ranges of consecutive vertices with about equal out-arcs) that the path partitioning
#: traverses in parallel, one thread each (DiGraph §3.2.1); paths end at the ranges' borders and are
#: linked across them afterwards. A fixed number, not the core count, so that a graph gets the same
#: paths, and the engine the same rounds, on every machine; 1 is the sequential Algorithm 1.
#: 8: on the 16-core H100 host (2026-11-26, `bench/path_ab.py --layouts 1,8`, medians of 24 warm
#: builds) cnr-2000's layout took 76 ms in 8 pieces against 108 in one, Slashdot's 48 against 51;
#: on the 2-core development machine the two are equal within the noise. PageRank on the GPU:
#: vertex updates -1% on cnr-2000 (time 23.3 ms against 23.6), +6% on Slashdot (18.4-19.3 ms
#: against 17.8) (docs/path-engine.md, "Layout in 8 pieces by default").
PATH_PIECES = 8
#: Proxy vertices in shared memory (DiGraph §3.2.2, CUDA path rounds): the walks of a thread
#: block deliver to the ``proxies`` vertices with the most path arcs into them through the
#: block's shared memory, and the block applies each proxy to its vertex once, at its end: one
#: global atomic per hot vertex and block instead of one per arc. The default for MIN programs
#: (SSSP, ``minimum``); SUM and PEEL programs default to none. One H200, 2026-11-26
#: (``bench/path_engine.py --proxies-only``): SSSP 0.72x the time without proxies on cnr-2000
#: and 0.87x on Slashdot with 64 (256 and 512 alike); k-core 0.82x on cnr-2000 but 0.70-1.21x
#: on Slashdot's ~1.4 ms runs. Since the walks read a hot vertex with what its proxy holds
#: (2026-11-27, one H200), PageRank and adsorption keep their rounds with 64 proxies and take
#: 0.81-0.99x the time on cnr-2000 but 1.07-1.10x on Slashdot, 1.1-2.5x on RMAT-20, wiki-Vote
#: and pace-FLA: no default for them.
PATH_MIN_PROXY_VERTICES = 64
#: Shared-memory slots a block of the CUDA path rounds keeps for proxies (8 bytes each).
PATH_PROXY_SLOTS = 512
#: Message batching in the CUDA path rounds (DiGraph §3.2.2, ``solve(batching=True)``; off by
#: default): a block holds up to this many messages (arcs into vertices its chunk does not read)
#: in shared memory, 20 bytes each, and pushes them at its end arranged by destination partition.
PATH_BATCH_SLOTS = 1024
#: Destination partitions (equal ranges of vertex ids) a block arranges its held messages by.
PATH_BATCH_PARTITIONS = 32
#: How the GPU rounds of the path schedules spread their chunks over the SMs (``solve(...,
#: balance=)``): ``"hardware"``, a thread per chunk handed out by the block scheduler as SMs free
#: up; ``"static"``, a grid of blocks each owning an equal stretch of the round's chunks (DiGraph's
#: partitions); ``"stealing"``, those stretches with work stealing between the blocks (§3.2.2).
#: Measured in docs/path-engine.md ("Work stealing").
PATH_BALANCE = "hardware"
#: Work stealing (``balance="stealing"``): a block whose stretch of chunks is done looks for
#: chunks left in the stretches of this many blocks after it in the grid (each look an atomic
#: read of a cursor; looking through all of a grid's ~1,000 blocks, each time, made the rounds
#: 2-15x slower on cnr-2000).
PATH_STEAL_NEIGHBOURS = 32
#: Width of a MIN program's buckets in the path rounds, in mean arc weights: a round sends only
#: the states within this of the least state left to send (``solve(bucket_width=...)``; as in
#: delta-stepping). Off (infinite) by default: on one H100 a width of 4 cut SSSP's vertex updates
#: on cnr-2000 with weights 1-100 from 0.41 to 0.24 of ``bsp``'s but took 18.1 ms against 12.2
#: (pace-FLA: 0.14 -> 0.06, 241 ms against 90), each extra round a pass over every vertex and
#: chunk (docs/path-engine.md, "Buckets for MIN programs").
PATH_MIN_BUCKET_WEIGHTS = math.inf
#: Where the path engine builds a graph's layout when the graph is on a GPU and dispatch is not
#: layered: ``"device"`` (:mod:`gpugraph.engines.path.device_layout`: the partitioning over many
#: pieces on the GPU, no linking, one layer) or ``"host"`` (:func:`~gpugraph.engines.path.layout.
#: build_layout`: Algorithm 1 with linking, SCCs and layers on the host's cores). ``solve(layout=...)``
#: overrides it.
PATH_GPU_LAYOUT = "device"
#: Out-arcs per piece of the device layout, about: one GPU thread traverses each piece (a vertex
#: with more is a piece alone, its arcs written in parallel). Larger pieces cut fewer paths at
#: their borders but take longer to traverse. One H100, 2026-11-26 (``bench/path_device_layout.py
#: --piece-arcs 32,64,128,512``, one call, `docs/runs/2026-11-26-path-device-layout-sizes-h100-s15.json`),
#: warm layout / PageRank on it, ms: cnr-2000 4.3 / 31.5, 3.3 / 28.8, 3.6 / 26.5, 12.5 / 25.8
#: (the host layout: 108 / 23.7); Slashdot 2.0 / 17.9, 1.8 / 16.7, 2.2 / 16.5, 9.4 / 17.4. The
#: table at 128 (`...-path-engine-h100-s15-128-arcs.json`) against 64 (`...-s15-end.json`):
#: PageRank and adsorption on cnr-2000 25.6 / 9.1 ms against 27.3 / 10.1, but Slashdot's SSSP
#: 2.49 against 1.58 ms, and the layouts as first built 7.0 / 3.2 ms against 5.5 / 2.4 (k-core's
#: on cnr-2000 6.9 against 5.5, above its 3.5 ms saving). 64 keeps every layout cheaper.
PATH_DEVICE_PIECE_ARCS = 64
#: The device layout's visiting order: a thread sorts its vertex's row by insertion up to this
#: many arcs; the longer rows of a block (up to two arcs a lane, and not a hub's) are then sorted
#: by its warps together, a row a warp, by a bitonic network in shared memory. The step took
#: 0.80 ms on cnr-2000's undirected graph (5.5 M arcs, ~17 a row on average) with a thread per
#: row (rows of up to 64 arcs by insertion), 0.44 ms with the warps (one H200, 2026-11-29,
#: `bench/path_kcore_probe.py`, docs/path-engine.md "Thirty-first session").
PATH_DEVICE_THREAD_ROW_MAX_ARCS = 16
#: The largest D_MAX the device layout takes: its threads keep their traversal stacks in local
#: memory, of a size fixed when the kernel compiles (``solve`` uses the host layout above it).
PATH_DEVICE_MAX_DEPTH = 64
#: Threads a block of the device layout's traversal (one thread per piece; latency-bound, with
#: a few KiB of local memory each): small blocks spread the pieces over every SM. One H100,
#: 2026-11-26 (`.snap`-style probe, CUPTI device time of the traversal, us, blocks of 32 / 64 /
#: 128 / 256): Slashdot 164 / 177 / 188 / 244, its k-core graph 224 / 237 / 252 / 291; cnr-2000
#: 776 / 822 / 805 / 723, its k-core graph 666 / 668 / 687 / 685 (docs/path-engine.md).
PATH_DEVICE_TRACE_BLOCK = 32

# --- distributed (gpugraph/distributed/) ---------------------------------------------------------
#: Hybrid vertex-cut (PowerLyra, Chen et al., EuroSys 2015): a vertex with more in-arcs than this
#: is "high-degree" and its in-arcs are placed with their sources; the others' in-arcs with the
#: vertex itself. PowerLyra's default.
HVC_DEGREE_THRESHOLD = 100
#: A rank that waits longer than this in a collective gives up (a peer died or hangs); seconds.
DISTRIBUTED_TIMEOUT_SECONDS = 600
#: A distributed program's local round pushes from its active proxies (atomics, work on their arcs
#: only) while those hold at most this share of the rank's local arcs, and pulls over every local
#: arc (no atomics) otherwise; 0 always pulls. Same trade-off as direction-optimising BFS.
DISTRIBUTED_PUSH_MAX_ARC_SHARE = 0.2

# --- Graph500 validation (gpugraph/graph500/validate.py) -----------------------------------------
#: Input edges the Graph500 validator checks at a time: each chunk holds about 50 bytes per edge
#: of temporaries (int64 endpoints, levels and keys), so 2^24 edges is about 0.8 GiB and a
#: scale-24 graph (2^28 edges) is checked in 16 chunks within a few GiB, on the CPU or a GPU.
GRAPH500_VALIDATE_CHUNK_EDGES = 1 << 24

# --- Graph500 BFS across processes (gpugraph/graph500/) ------------------------------------------
#: Input edges the construction (degrees, threshold table, the build's two passes over the edges
#: with an all-to-all per chunk) handles at a time; the build sorts rows in bands of twice this
#: many arcs. Its temporaries are per chunk (about 100 bytes an edge: both arcs, masks,
#: destinations, a chunk's sorted keys), so 2^25 edges are ~3 GiB, and what a process holds whole
#: is its edge slice (int32 ids, 8 bytes an edge) and the subgraphs' columns (4 bytes an arc,
#: nn's 8). Before the chunks one H200 (141 GiB) could not build scale 26 (2^30 edges); with
#: them, the pool's cached blocks released between phases and the counting build, one GPU builds
#: scale 27 with a 49.5 GiB peak in CuPy's pool (2026-11-27).
GRAPH500_BUILD_CHUNK_EDGES = 1 << 25
#: Automatic delegate threshold (separation.choose_threshold): the largest power of two whose
#: normal-to-normal edges are at most this share of all edges (Pan et al. want "a small share"):
#: with one process 7.5% (an H100 at scale 24: TH 128, 3.6% nn, beat 64, 256 and 512; one H200, 16
#: roots: scale 26 TH 256 (7.0%) 374-379 GTEPS against 347 at 512 (8.3%, the old 10% rule's
#: choice) and 315-319 at 64 / 128; scale 27 256 (~5.5%) 402 against 381 at 512 (~9.3%); scale 25
#: 128 / 256 (4.8 / 5.1%) 330 / 327 against 296 at 512 (14.8%); 2026-11-27), and with several
#: (peer memory stores nn pairs straight into the owners' inboxes, so fewer delegates, whose
#: marks every process merges twice a level, pay: 4 H100s at scale 26, TH 1024 (18% nn) 352 GTEPS
#: against 307 at 512 (8%) and 309 at 2048 (38%); 2 GPUs at scale 25: median 2.30 / 2.28 ms at
#: TH 512 / 1024 against 2.49 at 256). 25% rather than 20% since 4 H200s at scale 27 (TH 512 at
#: 20%: 1.29 M delegates, 582 GTEPS; 1024 (22.8% nn, 0.40 M delegates) 701; 2048 the same
#: delegates, 689; with 25% it chooses 2048, 684); at scale 24 per GPU 2 and 4 GPUs still choose
#: 1024. 30% rather than 25% since 4 H200s at scale 28 (16 roots): TH 1024 (12% nn, 1.68 M
#: delegates) 762 GTEPS, 2048 (27% nn, 0.50 M) 961, 4096 (48%) 672 (2026-11-27)...
GRAPH500_NN_EDGE_SHARE = 0.075
GRAPH500_NN_EDGE_SHARE_SEVERAL = 0.3
#: ... while the delegates stay below this many times n / p (the paper keeps them under 4 n / p).
GRAPH500_MAX_DELEGATES_PER_PROCESS = 4
#: Direction switching per visit kind (Pan et al. §IV-B): (factor0, factor1). A kind goes
#: backward when its forward work FV exceeds factor0 * BV and forward again when FV < factor1 * BV.
#: factor0 are the paper's values for RMAT (§VI-C); factor1 = 0: on RMAT a kind never needs to
#: come back ("once the traversal switches to the backward direction, it does not need to change
#: back").
#: nn chooses only when one process runs alone (elsewhere its columns are remote); its factor0
#: is dn's, the other visit into normals found by a pass over the unvisited normals, and it comes
#: back forward on the small tail levels, where the unvisited normals that keep scanning their nn
#: rows (other components) cost more than the few frontier rows (H100, scale 24: 122 -> ~50 us a
#: level). dn's factor0 0.01 (the paper's 0.05 sent some roots' level 2 forward along ~10^7 dn
#: arcs of a few thousand hubs, 0.74 ms against ~0.5 for the backward pass; H100, scale 24, ids
#: by degree, 64 roots: 0.1 201, 0.05 214-217, 0.02 215, 0.01 223, 0.005 223 GTEPS).
GRAPH500_DIRECTION_FACTORS = {"dd": (0.5, 0.0), "dn": (0.01, 0.0), "nd": (1e-7, 0.0), "nn": (0.05, 0.1)}
#: nn's factors with several processes (nn then decides on the numbers summed over them). nn
#: going backward a level earlier pays there: forward, every nn arc of the frontier is a pair
#: stored into its owner's inbox; backward reads the gathered frontier bitmap. 4 H100s at scale
#: 26, 64 roots each (2026-11-26): factor0 0.01 457.9 / 458.8 GTEPS, 0.003 453.7 / 464.3, 0.001
#: 459.4, against 0.05 (one GPU's) 430.6 / 432.3 / 423.9, 0.2 395.6; factor1 0.5 or 2 instead
#: of 0.1: 423.6-427.9.
GRAPH500_NN_DIRECTION_FACTORS_SEVERAL = (0.01, 0.1)
#: Blocks per multiprocessor of the backward visits into delegates (CUDA, a thread per delegate;
#: blocks step through the delegates together). The pass over the normals launches as many
#: blocks as fit at once instead (its registers decide: 9 per SM at 56 registers on the H100).
GRAPH500_DELEGATE_BLOCKS_PER_SM = 8
#: Blocks per multiprocessor of the kernel that closes a level over the delegates (CUDA; a
#: thread per delegate, a few barriers per step): 8 against 2 takes a scale-24 search's closes
#: from 132 to 74 us (H100, CUPTI; 16 and 32 no better).
GRAPH500_CLOSE_BLOCKS_PER_SM = 8
#: Threads of the block that scans one long delegate row in a backward visit (CUDA: the rows whose
#: first columns held no frontier vertex; delegate rows hold hundreds of arcs), testing this many
#: at a time and stopping at the first hit; also the queued rows a block checks at once, a thread
#: each, before it scans those whose delegate is still unmarked...
GRAPH500_PULL_THREADS = 64
#: ... and blocks per multiprocessor, each looping over the queued long rows (most levels queue
#: none: 4 against 16 takes such a launch from 2 to 1 us, H100, CUPTI).
GRAPH500_PULL_BLOCKS_PER_SM = 4
#: Threads of a block of the kernel that builds the frontier bitmap with several processes (CUDA),
#: and 64-bit words it builds at a time, a thread each: the block first computes their bytes (a
#: warp reads a run of depths), then stores each word to every process's gathered bitmap, 8
#: bytes a store over NVLink.
GRAPH500_FRONTIER_THREADS = 256
#: Blocks per multiprocessor of the edge-balanced forward visits of delegate rows (CUDA; their
#: threads step through the frontier's dd and dn arcs together). Every level launches the kernel,
#: most of them with nothing to do: 8 keeps an empty launch at 2 us (32: 6 us), while a large dn
#: visit (level 2 of some scale-24 roots, ~10^7 arcs) gets every block (H100, CUPTI).
GRAPH500_PUSH_BLOCKS_PER_SM = 8
#: Levels of a search one GPU process launches before it reads the counters (each level plans
#: itself on the device; those after the last find nothing to do and cost a few microseconds a
#: kernel). Searches of Kronecker graphs at scale 24 end after 7-8 levels: one batch, read once.
GRAPH500_LEVELS_AHEAD = 9
#: nn pair entries a process sends each peer once while its searcher is built (several
#: processes): NCCL opens a point-to-point connection's channels when a message first needs them,
#: which stalled one search in 64 for ~3 s (4 H200, scale 25 on 2 processes: the root whose
#: level 3 sent the largest message). 2^23 entries (64 MiB a peer) open them before the clock.
GRAPH500_EXCHANGE_WARM_UP_ENTRIES = 1 << 23
#: Blocks per multiprocessor of the kernels that step through their items in a grid-stride loop
#: (several processes: the frontier bitmap and the backward nn visit over it; with peer memory
#: the scatter of a level's nn pairs into the owners' inboxes, their claims, the marks
#: combined): like the forward delegate visits, most levels give them little or nothing to do.
#: 4 x H200, scale 26, one lend (2026-11-28): 4 gave 702.7 / 700.8 GTEPS, 8 gave 696.9 / 682.2
#: and 2 gave 672.4 / 692.3 (64 validated roots each).
GRAPH500_STRIDE_BLOCKS_PER_SM = 4
#: Polls of a barrier kernel (peer memory, ~0.5-1 us each) before it gives up on its peers and
#: flags the search as failed: ~30-60 s, longer than a peer's first-search kernel compilation.
PEER_BARRIER_SPINS = 1 << 26
#: Polls of a process waiting at a host barrier (``distributed.peer.HostBarrier``, ~0.1-0.2 us
#: each) before it yields its core between polls: ~1-2 ms, longer than the processes' usual
#: spread, shorter than a time slice of a process it waits for on a machine with fewer cores.
HOST_BARRIER_BUSY_POLLS = 10_000
#: Seconds a process waits at a host barrier before it reports its peer dead.
HOST_BARRIER_SECONDS = 120.0
#: Keeping the links between a host's GPUs awake between searches (``distributed.peer.LinkWaker``):
#: seconds between two touches (links idle for 10 ms still answered at full speed, 100 ms did not:
#: docs/graph500.md, "Eleventh session"), ...
PEER_WAKE_PERIOD_SECONDS = 0.001
#: ... seconds after the last start with no stop before the waker stops on its own, ...
PEER_WAKE_IDLE_SECONDS = 10.0
#: ... bytes read from the head of each peer's block per touch, and the touching block's threads.
PEER_WAKE_BYTES = 1 << 16
PEER_WAKE_THREADS = 256
