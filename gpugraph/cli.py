"""The ``gpugraph`` command line: info, convert, generate, run, bench.

Every failure a user can cause ends with one line on stderr (``gpugraph: error: ...``) and a
non-zero exit code; tracebacks are shown only with ``--debug``.
"""

from __future__ import annotations

import argparse
import atexit
import os
import re
import sys
import time

import numpy as np

from gpugraph import __version__
from gpugraph.backend import to_numpy
from gpugraph.errors import GpugraphError, InvalidParameterError

#: Graph used by ``gpugraph run ALGO`` when no input is given.
DEFAULT_EXAMPLE = "example:rmat18"
_EXAMPLE_PATTERN = re.compile(r"^example:(rmat(\d+)|grid(\d+)x(\d+))$")

EXIT_ERROR = 1
EXIT_INTERRUPTED = 130


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gpugraph`` command. Returns the process exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return EXIT_ERROR
    try:
        return args.handler(args) or 0
    except GpugraphError as exc:
        if args.debug:
            raise
        print(f"gpugraph: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except (OSError, MemoryError) as exc:
        if args.debug:
            raise
        print(f"gpugraph: error: {_describe_os_error(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("gpugraph: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _describe_os_error(exc: BaseException) -> str:
    if isinstance(exc, MemoryError):
        return "out of host memory"
    filename = getattr(exc, "filename", None)
    reason = getattr(exc, "strerror", None) or str(exc)
    return f"{filename}: {reason}" if filename else reason


# --- parser ------------------------------------------------------------------------------------
def _build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--device",
        default=None,
        help="cpu, cuda, cuda:N or auto (default: $GPUGRAPH_DEVICE, else a GPU if usable)",
    )
    common.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    common.add_argument("-q", "--quiet", action="store_true", help="no progress bars")

    loading = argparse.ArgumentParser(add_help=False)
    loading.add_argument("--format", default=None, help="force the input format (default: detect)")
    direction = loading.add_mutually_exclusive_group()
    direction.add_argument("--directed", dest="directed", action="store_true", default=None,
                           help="treat the input as directed")
    direction.add_argument("--undirected", dest="directed", action="store_false",
                           help="treat the input as undirected")
    loading.add_argument("--self-loops", default=None, choices=("keep", "drop"),
                         help="self-loop policy (default: keep)")
    loading.add_argument("--duplicates", default=None,
                         choices=("keep", "first", "min", "max", "sum"),
                         help="duplicate-edge policy (default: keep)")

    parser = argparse.ArgumentParser(
        prog="gpugraph",
        description="Graph algorithms on GPUs and multi-core CPUs.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"gpugraph {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    info = commands.add_parser("info", parents=[common, loading],
                               help="print size, direction, weights, degree statistics, memory",
                               description="Load a graph and describe it.")
    info.add_argument("input", help="graph file (any supported format) or example:NAME")
    info.set_defaults(handler=_cmd_info)

    convert = commands.add_parser("convert", parents=[common, loading],
                                  help="convert between formats (e.g. to the fast binary .gg)",
                                  description="Read IN and write OUT; the output format follows "
                                              "OUT's suffix (.gg binary, .mtx, .gr, .txt/.el, "
                                              "optionally .gz).")
    convert.add_argument("input", help="input graph file or example:NAME")
    convert.add_argument("output", help="output path; written only if the conversion succeeds")
    convert.set_defaults(handler=_cmd_convert)

    generate = commands.add_parser("generate", parents=[common],
                                   help="generate a synthetic graph (rmat, gnm, grid)",
                                   description="Generate a graph and save it; the format follows "
                                               "the output suffix.")
    kinds = generate.add_subparsers(title="generators", metavar="KIND")
    rmat = kinds.add_parser("rmat", parents=[common],
                            help="Graph500 Kronecker/RMAT (A,B,C,D=0.57,0.19,0.19,0.05)")
    rmat.add_argument("--scale", type=int, required=True, help="log2 of the vertex count")
    rmat.add_argument("--edge-factor", type=int, default=16, help="edges per vertex (default 16)")
    rmat.add_argument("--seed", type=int, default=0)
    rmat.add_argument("-o", "--output", required=True)
    rmat.set_defaults(handler=_cmd_generate, kind="rmat")
    gnm = kinds.add_parser("gnm", parents=[common], help="uniform random G(n, m)")
    gnm.add_argument("--vertices", "-n", type=int, required=True)
    gnm.add_argument("--edges", "-m", type=int, required=True)
    gnm.add_argument("--undirected", action="store_true")
    gnm.add_argument("--seed", type=int, default=0)
    gnm.add_argument("-o", "--output", required=True)
    gnm.set_defaults(handler=_cmd_generate, kind="gnm")
    grid = kinds.add_parser("grid", parents=[common], help="2-D grid (road-like, high diameter)")
    grid.add_argument("--rows", type=int, required=True)
    grid.add_argument("--cols", type=int, required=True)
    grid.add_argument("--weighted", action="store_true", help="random integer weights 1..100")
    grid.add_argument("--seed", type=int, default=0)
    grid.add_argument("-o", "--output", required=True)
    grid.set_defaults(handler=_cmd_generate, kind="grid")

    from gpugraph.algorithms.catalog import SPECS
    from gpugraph import config
    from gpugraph.bench import DEFAULT_ALGORITHMS, SUITES

    bench = commands.add_parser("bench", parents=[common, loading],
                                help="time algorithms on graphs beside anchor libraries",
                                description="Measure the memory ceilings, then run each algorithm on "
                                            "each graph: a warm-up run (compile time reported apart), "
                                            "timed trials (BFS: one run per Graph500 root), and the "
                                            "anchor libraries on the same graph. Prints a Markdown "
                                            "table; writes JSON records, Markdown and plots on request. "
                                            "See docs/benchmarking.md.")
    bench.add_argument("--suite", choices=sorted(SUITES), default="smoke",
                       help="graph list for the device kind (default: smoke)")
    bench.add_argument("--graphs", default=None,
                       help="comma-separated files, dataset names or example:NAME, instead of the suite's")
    bench.add_argument("--algorithms", default=",".join(DEFAULT_ALGORITHMS),
                       help=f"comma-separated (default {','.join(DEFAULT_ALGORITHMS)})")
    bench.add_argument("--trials", type=int, default=config.BENCH_TRIALS,
                       help=f"timed runs after the warm-up (default {config.BENCH_TRIALS}); BFS runs once per root")
    bench.add_argument("--roots", type=int, default=None,
                       help=f"BFS roots per graph (default: {config.BENCH_GRAPH500_ROOTS} on RMAT graphs, "
                            "--trials on others)")
    bench.add_argument("--max-scale", type=int, default=None,
                       help=f"largest RMAT scale of the suite (default {config.BENCH_CPU_MAX_SCALE} on the CPU, "
                            f"{config.BENCH_CUDA_MAX_SCALE} on a GPU; 26 adds Graph500 scale 26)")
    bench.add_argument("--anchors", action=argparse.BooleanOptionalAction, default=True,
                       help="also run the anchor libraries (default: yes)")
    bench.add_argument("--datasets", default=None,
                       help="folder of the suite's real graphs (default: $GPUGRAPH_DATASETS or "
                            "../shared/datasets)")
    bench.add_argument("--json", default=None, help="write the records as a JSON list")
    bench.add_argument("--markdown", default=None, help="write the tables as Markdown")
    bench.add_argument("--plots", default=None, metavar="DIR", help="draw plots into DIR (needs matplotlib)")
    bench.add_argument("--from-json", default=None, metavar="PATH",
                       help="run nothing: render the table, --markdown and --plots from saved records")
    bench.set_defaults(handler=_cmd_bench)

    run = commands.add_parser("run", parents=[common, loading],
                              help="run an algorithm on a graph",
                              description="Run ALGO on INPUT (default: a built-in RMAT scale-18 "
                                          "graph), print a summary, optionally write one line per "
                                          "vertex (original id, value) sorted by id.")
    run.add_argument("algorithm", choices=sorted(SPECS), help="algorithm to run")
    run.add_argument("input", nargs="?", default=DEFAULT_EXAMPLE,
                     help=f"graph file or example:rmatS / example:gridRxC (default {DEFAULT_EXAMPLE})")
    run.add_argument("--source-vertex", "--source", dest="source", type=int, default=None,
                     help="source vertex, as an original id of the input (default: first vertex "
                          "with an out-edge)")
    run.add_argument("--output", "-o", default=None,
                     help="write one line per vertex: original id, value (sorted by id)")
    run.add_argument("--output-format", choices=("tsv", "ldbc"), default="tsv",
                     help="tsv: id<TAB>value; ldbc: LDBC Graphalytics output (id value, "
                          "unreachable BFS = 9223372036854775807, SSSP = Infinity)")
    run.add_argument("--engine", default=None, choices=("path", "path-w", "async", "bsp-delta", "bsp"),
                     help="run pagerank, adsorption, sssp or kcore on DiGraph's path engine or one of "
                          "its baselines (docs/path-engine.md) instead of the library algorithm")
    run.add_argument("--k", type=int, default=None, help="kcore with --engine: membership of the k-core")
    run.add_argument("--bucket-width", type=float, default=None, metavar="W",
                     help="sssp with --engine path or path-w: each round sends only the distances within W of "
                          "the least one left (delta-stepping: fewer vertex updates, more rounds; default none)")
    run.add_argument("--layout", choices=("host", "device"), default=None,
                     help="with --engine path or path-w: build the path layout on the host's cores (Algorithm 1 "
                          "with linking and layers) or on the graph's device (many pieces, one layer); default: "
                          "device on a GPU, host on the CPU")
    run.add_argument("--proxies", type=int, default=None, metavar="N",
                     help="with --engine path or path-w on a GPU: shared-memory proxies for the N vertices with the "
                          "most path arcs into them (default: 64 for sssp, none otherwise; 0 to 512)")
    run.add_argument("--batching", action="store_true",
                     help="with --engine path or path-w on a GPU: hold messages in shared memory and push them by "
                          "destination partition (DiGraph's message batching; slower for pagerank, see "
                          "docs/path-engine.md)")
    run.add_argument("--gpus", type=int, default=None, metavar="N",
                     help="run bfs, sssp, wcc, pagerank or kcore on N ranks of this host: one GPU each, "
                          "or N CPU processes over Gloo with --device cpu (docs/distributed.md); under "
                          "torchrun the job's ranks are used instead")
    run.add_argument("--policy", default="oec", choices=("oec", "iec", "hvc", "cvc", "metis"),
                     help="with --gpus / torchrun: how the graph is partitioned (default oec)")
    run.add_argument("--mode", default="bsp", choices=("bsp", "basp"),
                     help="with --gpus / torchrun: synchronous or bulk-asynchronous rounds")
    run.add_argument("--sync", default="update-only", choices=("update-only", "all-shared"),
                     help="with --gpus / torchrun: send changed proxies only, or all shared proxies")
    added = set()
    for spec in SPECS.values():
        for option in spec.options:
            if option.flags[0] not in added:
                added.add(option.flags[0])
                run.add_argument(*option.flags, dest=f"option_{option.keyword}", type=option.kind,
                                 default=None, help=option.help)
    run.set_defaults(handler=_cmd_run)

    graph500 = commands.add_parser(
        "graph500", parents=[common], help="the Graph500 BFS benchmark over GPUs or CPU processes",
        description="Generate the Graph500 Kronecker graph, search from random roots with degree separation "
                    "(docs/graph500.md), validate every tree and print the reference code's output block.")
    graph500.add_argument("scale", type=int, help="log2 of the vertex count")
    graph500.add_argument("--edge-factor", type=int, default=16, help="edges per vertex (default 16)")
    graph500.add_argument("--roots", type=int, default=config.BENCH_GRAPH500_ROOTS,
                          help=f"searches (default {config.BENCH_GRAPH500_ROOTS})")
    graph500.add_argument("--processes", type=int, default=None, metavar="N",
                          help="N processes of this host: one GPU each, or Gloo ranks with --device cpu; "
                               "under torchrun the job's ranks are used instead")
    graph500.add_argument("--gpus-per-host", type=int, default=None,
                          help="processes per host in the layout (default 1; under torchrun its ranks per host)")
    graph500.add_argument("--threshold", type=int, default=None, metavar="TH",
                          help="delegate degree threshold (default: chosen from the graph)")
    graph500.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    graph500.add_argument("--no-direction-optimization", dest="direction_optimizing", action="store_false",
                          help="forward visits only")
    graph500.add_argument("--nonblocking-reduction", action="store_true",
                          help="overlap the delegate all-reduce with the normal stream")
    graph500.add_argument("--nn-backward", action="store_true",
                          help="let nn visits go backward over a gathered frontier bitmap (several processes)")
    graph500.add_argument("--overlap", action="store_true",
                          help="send the nn pairs while the delegate visits run (several processes)")
    graph500.add_argument("--uniquify", action="store_true", help="send each nn target once per level")
    graph500.add_argument("--local-all2all", action="store_true",
                          help="route nn pairs through the host's peer of the owner's GPU index first")
    graph500.add_argument("--peer-memory", action=argparse.BooleanOptionalAction, default=None,
                          help="processes of one host exchange through each other's memory, not collectives "
                               "(default: on for GPUs of one host)")
    graph500.add_argument("--keep-links-awake", action=argparse.BooleanOptionalAction, default=True,
                          help="with peer memory on GPUs, read from the peers every millisecond between "
                               "searches so the links answer the next search at full speed (default: on)")
    graph500.add_argument("--no-validation", dest="validate", action="store_false",
                          help="skip validation (TEPS edge counts are then estimated)")
    graph500.add_argument("--no-relabel", dest="relabel", action="store_false",
                          help="search in the generator's vertex ids (default: ids by decreasing degree)")
    graph500.add_argument("--json", default=None, metavar="PATH", help="also write the full record as JSON")
    graph500.set_defaults(handler=_cmd_graph500)
    return parser


# --- commands ----------------------------------------------------------------------------------
def _cmd_info(args) -> int:
    graph, seconds = _load(args)
    kind = "directed" if graph.directed else "undirected"
    weights = f"yes ({graph.weights.dtype})" if graph.is_weighted else "no"
    print(f"graph        {graph.name}")
    print(f"vertices     {graph.num_vertices:,}")
    print(f"edges        {graph.num_edges:,} ({kind}; {graph.num_arcs:,} stored arcs)")
    print(f"weighted     {weights}")
    print(f"self-loops   {graph.self_loop_count():,}")
    print(f"ids          {_id_description(graph)}")
    for label, stats in graph.degree_stats().items():
        name = label if label == "degree" else f"{label} degree"
        print(
            f"{name:<12} min {stats.minimum:,}  max {stats.maximum:,}  "
            f"mean {stats.mean:.2f}  median {stats.median:g}  std {stats.std:.2f}  "
            f"isolated {stats.isolated:,}"
        )
    footprint = graph.memory_footprint()
    parts = ", ".join(f"{key} {_mib(value)}" for key, value in footprint.items() if key != "total")
    print(f"memory       {_mib(footprint['total'])} ({parts})")
    print(f"device       {graph.backend.device_description()}")
    print(f"load time    {seconds:.3f} s")
    return 0


def _cmd_convert(args) -> int:
    from gpugraph.io import save

    graph, seconds = _load(args)
    start = time.perf_counter()
    save(graph, args.output)
    print(
        f"wrote {args.output}: n={graph.num_vertices:,} m={graph.num_edges:,} "
        f"(read {seconds:.2f} s, write {time.perf_counter() - start:.2f} s)"
    )
    return 0


def _cmd_generate(args) -> int:
    from gpugraph.io import generators, save

    start = time.perf_counter()
    if args.kind == "rmat":
        graph = generators.rmat(args.scale, edge_factor=args.edge_factor, seed=args.seed,
                                device=args.device)
    elif args.kind == "gnm":
        graph = generators.gnm(args.vertices, args.edges, seed=args.seed,
                               directed=not args.undirected, device=args.device)
    else:
        graph = generators.grid(args.rows, args.cols, weighted=args.weighted, seed=args.seed,
                                device=args.device)
    generated = time.perf_counter() - start
    save(graph, args.output)
    print(
        f"wrote {args.output}: n={graph.num_vertices:,} m={graph.num_edges:,} "
        f"(generated in {generated:.2f} s on {graph.device})"
    )
    return 0


def _cmd_run(args) -> int:
    from gpugraph.algorithms.catalog import SPECS
    from gpugraph.backend.kernels import compile_report, compile_seconds

    spec = SPECS[args.algorithm]
    parameters = _algorithm_options(args, spec)
    args.rank_device = None
    if args.gpus is not None or _under_torchrun():
        args.rank_device, args.device = _rank_devices(args.device)
    graph, load_seconds = _load(args)
    module = spec.load()
    source = None
    if spec.needs_source:
        if args.source is not None:
            source = int(graph.to_internal(args.source))
        else:
            with_edges = np.flatnonzero(np.diff(to_numpy(graph.indptr)) > 0)
            source = int(with_edges[0]) if with_edges.size else 0
        parameters["source"] = source
    elif args.source is not None:
        raise InvalidParameterError(f"{spec.name} takes no source vertex")
    run, value_name = _runner(args, spec, module, graph, parameters)
    compiled_before = compile_seconds()
    result = run()
    if result is None:  # a torchrun rank other than 0: rank 0 reports
        return 0
    cold_seconds = None
    # Kernels compiled inside the run: time it again (not on ranks: every rank would have to agree).
    if args.rank_device is None and compile_seconds() > compiled_before:
        cold_seconds = result.stats["seconds"]
        result = run()
    stats = result.stats
    print(f"{args.algorithm} on {graph!r}")
    print(f"  device        {graph.backend.device_description()}")
    print(f"  load          {load_seconds:.3f} s")
    for entry in compile_report():
        print(f"  first launch  {entry.kernel} [{entry.target}] {entry.seconds:.3f} s (compile or cache load)")
    if source is not None:
        print(f"  source        {int(graph.to_original([source])[0])} (original id)")
    if cold_seconds is not None:
        print(f"  first run     {cold_seconds:.4f} s (includes compilation; timed again below)")
    print(f"  run           {stats['seconds']:.4f} s")
    for key, value in stats.items():
        if key == "per_rank":
            continue
        if isinstance(value, dict):
            value = ", ".join(f"{name} {entry:.3g}" for name, entry in value.items())
        if key != "seconds":
            print(f"  {key:<13} {value:,}" if isinstance(value, (int, float)) and not isinstance(value, bool) else f"  {key:<13} {value}")
    if "edges_traversed" in stats and stats["seconds"] > 0:
        print(f"  throughput    {stats['edges_traversed'] / stats['seconds'] / 1e6:,.1f} M edges/s")
    reached = int(np.count_nonzero(result.to_numpy("depth") >= 0)) if "depth" in result.values else None
    if reached is not None:
        print(f"  reached       {reached:,} of {graph.num_vertices:,} vertices")
    if args.output:
        _write_result(result, spec, value_name, args.output, args.output_format)
        print(f"  wrote         {args.output} ({args.output_format})")
    return 0


def _cmd_graph500(args) -> int:
    from gpugraph.backend import get_backend
    from gpugraph.graph500 import harness
    from gpugraph.graph500.bfs import Options

    device = "cuda" if get_backend(args.device).is_cuda else "cpu"
    options = Options(direction_optimizing=args.direction_optimizing,
                      blocking_reduction=not args.nonblocking_reduction, uniquify=args.uniquify,
                      local_all2all=args.local_all2all, overlap=args.overlap, nn_backward=args.nn_backward,
                      peer_memory=args.peer_memory, keep_links_awake=args.keep_links_awake)
    keywords = dict(edge_factor=args.edge_factor, seed=args.seed, roots=args.roots, threshold=args.threshold,
                    options=options, validate=args.validate, relabel=args.relabel, progress=not args.quiet)
    if args.gpus_per_host is not None:
        keywords["gpus_per_host"] = args.gpus_per_host
    if _under_torchrun():
        if args.processes is not None:
            raise InvalidParameterError("under torchrun the job's ranks are the processes: leave out --processes")
        from gpugraph.distributed.comm import rank_backend

        _join_torchrun(rank_backend(device))
        record = harness.run_in_job(args.scale, device=device, **keywords)
        if record is None:  # a rank other than 0: rank 0 reports
            return 0
    else:
        processes = 1 if args.processes is None else args.processes
        record = harness.run(args.scale, processes=processes, device=device, **keywords)
    print(record["text"], end="")
    if args.json:
        import json

        from gpugraph.io._atomic import atomic_output

        with atomic_output(args.json, mode="w") as handle:
            json.dump(record, handle, indent=1)
    return 0


def _cmd_bench(args) -> int:
    from gpugraph import bench

    if args.from_json:
        try:
            records = bench.load_records(args.from_json)
        except ValueError as exc:
            raise InvalidParameterError(str(exc)) from None
        return _bench_output(args, records)
    from gpugraph.algorithms.catalog import SPECS
    from gpugraph.backend import get_backend

    if args.trials < 1:
        raise InvalidParameterError(f"--trials must be at least 1, got {args.trials}")
    if args.roots is not None and args.roots < 1:
        raise InvalidParameterError(f"--roots must be at least 1, got {args.roots}")
    names = [name.strip() for name in args.algorithms.split(",") if name.strip()]
    unknown = [name for name in names if name not in SPECS]
    if unknown or not names:
        raise InvalidParameterError(f"unknown algorithm(s) {', '.join(unknown)}; use {', '.join(sorted(SPECS))}")
    backend = get_backend(args.device)
    graphs = ([entry.strip() for entry in args.graphs.split(",") if entry.strip()] if args.graphs
              else bench.suite_graphs(args.suite, backend.kind, args.max_scale))
    load_options = {"format": args.format, "directed": args.directed, "self_loops": args.self_loops,
                    "duplicates": args.duplicates, "progress": False if args.quiet else None}
    plan = bench.Plan(algorithms=names, trials=args.trials, roots=args.roots, anchors=args.anchors,
                      datasets=bench.datasets_folder(args.datasets), load_options=load_options)
    records = bench.run_benchmarks(graphs, plan, backend, report=lambda line: print(line, file=sys.stderr, flush=True))
    if args.json:
        import json

        from gpugraph.io._atomic import atomic_output

        with atomic_output(args.json, mode="w") as handle:
            json.dump(records, handle, indent=1)
        print(f"wrote {args.json}", file=sys.stderr)
    code = _bench_output(args, records)
    if not any(not record.get("error") and not record.get("skipped") for record in records):
        print("gpugraph: error: nothing ran (see the records' errors above)", file=sys.stderr)
        return EXIT_ERROR
    return code


def _bench_output(args, records: list) -> int:
    """Print the title and table of ``records``; write --markdown and --plots."""
    from gpugraph import bench

    table, messages = bench.render(records, args.markdown, args.plots)
    print(bench.title(records))
    print(table, end="")
    for message in messages:
        print(message, file=sys.stderr)
    return 0


def _algorithm_options(args, spec) -> dict:
    """The ``run`` keywords the user set, refusing options of other algorithms."""
    from gpugraph.algorithms.catalog import SPECS

    own = {option.keyword for option in spec.options}
    parameters = {}
    for other in SPECS.values():
        for option in other.options:
            value = getattr(args, f"option_{option.keyword}", None)
            if value is None:
                continue
            if option.keyword not in own:
                raise InvalidParameterError(f"{option.flags[0]} does not apply to {spec.name}")
            parameters[option.keyword] = value
    return parameters


# --- helpers -----------------------------------------------------------------------------------
def _load(args):
    """Load args.input (a file or example:NAME); return (graph, seconds)."""
    start = time.perf_counter()
    match = _EXAMPLE_PATTERN.match(args.input)
    if match:
        from gpugraph.io import generators

        if match.group(2):
            graph = generators.rmat(int(match.group(2)), seed=0, device=args.device)
        else:
            graph = generators.grid(int(match.group(3)), int(match.group(4)), device=args.device)
    elif args.input.startswith("example:"):
        raise InvalidParameterError(
            f"unknown example graph {args.input!r}: use example:rmatSCALE or example:gridROWSxCOLS"
        )
    else:
        from gpugraph.io import load

        options = {
            key: getattr(args, key)
            for key in ("self_loops", "duplicates")
            if getattr(args, key, None) is not None
        }
        graph = load(
            args.input,
            format=args.format,
            directed=args.directed,
            device=args.device,
            progress=False if args.quiet else None,
            **options,
        )
    return graph, time.perf_counter() - start


def _runner(args, spec, module, graph, parameters):
    """``(run, value)``: a call running the algorithm as the options ask (the library module,
    the path engine with ``--engine``, or ranks with ``--gpus`` / torchrun) and the name of the
    per-vertex value it returns."""
    if args.gpus is not None or _under_torchrun():
        return _distributed_runner(args, spec, graph, parameters)
    if args.bucket_width is not None and (spec.name != "sssp" or args.engine not in ("path", "path-w")):
        raise InvalidParameterError("--bucket-width applies to sssp with --engine path or path-w")
    for flag, given in (("--layout", args.layout is not None), ("--proxies", args.proxies is not None),
                        ("--batching", args.batching)):
        if given and args.engine not in ("path", "path-w"):
            raise InvalidParameterError(f"{flag} applies to --engine path or path-w")
    if args.engine is None:
        if args.k is not None:
            raise InvalidParameterError("--k applies to kcore with --engine")
        return (lambda: module.run(graph, **parameters)), spec.value
    from gpugraph.engines.path import solve
    from gpugraph.engines.path.programs import ALGORITHMS

    if spec.name not in ALGORITHMS:
        raise InvalidParameterError(f"--engine runs {', '.join(ALGORITHMS)}, not {spec.name}")
    if spec.name == "kcore":
        parameters["k"] = args.k
    elif args.k is not None:
        raise InvalidParameterError("--k applies to kcore with --engine")
    if args.bucket_width is not None:
        parameters["bucket_width"] = args.bucket_width
    if args.layout is not None:
        parameters["layout"] = args.layout
    if args.proxies is not None:
        parameters["proxies"] = args.proxies
    if args.batching:
        parameters["batching"] = True
    value = {"pagerank": "rank", "adsorption": "score", "sssp": "distance", "kcore": "in_core"}[spec.name]
    return (lambda: solve(graph, spec.name, schedule=args.engine, **parameters)), value


def _under_torchrun() -> bool:
    return "TORCHELASTIC_RUN_ID" in os.environ or ("RANK" in os.environ and "WORLD_SIZE" in os.environ)


def _distributed_runner(args, spec, graph, parameters):
    """The ``--gpus N`` / torchrun form of :func:`_runner` (gpugraph.distributed.run)."""
    from gpugraph import distributed
    from gpugraph.distributed.engine import ALGORITHMS

    if spec.name not in ALGORITHMS:
        raise InvalidParameterError(f"--gpus and torchrun run {', '.join(ALGORITHMS)}, not {spec.name}")
    if args.engine is not None:
        raise InvalidParameterError("--engine runs on one device; leave it out with --gpus or torchrun")
    unsupported = sorted(set(parameters) - {"source", "damping", "tol", "max_iterations"})
    if unsupported:
        raise InvalidParameterError(f"distributed {spec.name} takes no {', '.join(unsupported)}")
    if args.gpus is not None and args.gpus < 1:
        raise InvalidParameterError(f"--gpus needs at least 1, got {args.gpus}")
    if "source" in parameters:
        parameters["source"] = int(graph.to_original(np.array([parameters["source"]]))[0])
    if _under_torchrun():
        _join_torchrun(graph.backend)
    options = {"processes": args.gpus or 1, "policy": args.policy, "mode": args.mode,
               "update_only": args.sync == "update-only", "device": args.rank_device}
    return (lambda: distributed.run(graph, spec.name, **options, **parameters)), spec.value


def _rank_devices(device) -> tuple[str, str]:
    """``(kind each rank uses, device to load the graph on here)`` for ``--gpus`` / torchrun:
    GPUs when asked for or usable; under torchrun this process loads onto its own GPU, with
    ``--gpus`` the parent loads on the host and the ranks onto theirs."""
    from gpugraph.backend import cuda_available, parse_device

    kind = parse_device(device)[0]
    if kind == "auto":
        kind = "cuda" if cuda_available() else "cpu"
    if not _under_torchrun():
        return kind, "cpu"
    return kind, f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}" if kind == "cuda" else "cpu"


def _join_torchrun(backend) -> None:
    """Initialise torch.distributed from torchrun's environment (once)."""
    from gpugraph.distributed.comm import torch_distributed, use_rank_device

    _, dist = torch_distributed()
    if not dist.is_initialized():
        use_rank_device(backend)
        dist.init_process_group("nccl" if backend.is_cuda else "gloo")
        atexit.register(dist.destroy_process_group)


def _write_result(result, spec, value: str, path: str, output_format: str) -> None:
    """One line per vertex, sorted by original id: ``id<TAB>value`` or LDBC's ``id value``."""
    from gpugraph.algorithms.catalog import format_ldbc
    from gpugraph.io._atomic import atomic_output

    graph = result.graph
    ids = graph.to_original(np.arange(graph.num_vertices))
    values = result.to_numpy(value)
    if values.dtype == bool:
        values = values.astype(np.int64)
    if spec.value_is_vertex:
        mapped = np.full(values.shape, -1, dtype=np.int64)
        mapped[values >= 0] = graph.to_original(values[values >= 0])
        values = mapped
    order = np.argsort(ids, kind="stable")
    ids, values = ids[order], values[order]
    with atomic_output(path, mode="w") as handle:
        if output_format == "ldbc":
            texts = format_ldbc(spec.ldbc_format, values)
            handle.writelines(f"{vertex} {text}\n" for vertex, text in zip(ids.tolist(), texts))
        else:
            fmt = "%d" if values.dtype.kind in "iub" else "%.17g"
            np.savetxt(handle, np.column_stack([ids, values]), fmt=["%d", fmt], delimiter="\t")


def _id_description(graph) -> str:
    if graph.original_ids is not None:
        return f"relabelled densely (original ids {int(graph.original_ids[0])}..{int(graph.original_ids[-1])})"
    if graph.id_offset:
        return f"{graph.id_offset}-based in the input"
    return "0-based, dense"


def _mib(value: int) -> str:
    return f"{value / 2**20:.1f} MiB"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
