"""The Graph500 BFS benchmark over one or more processes (CPU ranks with Gloo, GPUs with NCCL).

Steps, as the specification orders them, on every process:

1. *Generation* (untimed for TEPS): process ``r`` of ``p`` makes edges ``r m / p .. (r + 1) m / p``
   of the Kronecker graph (:func:`gpugraph.io.generators.rmat_edges`: scale, edge factor 16,
   the specification's initiator and vertex permutation).
2. *Construction* (``construction_time``): degrees summed over processes, the delegate threshold
   (:mod:`~gpugraph.graph500.separation`), the edge distributor and the four subgraphs
   (:mod:`~gpugraph.graph500.distributor`).
3. *Roots*: ``roots`` distinct vertices with at least one edge that is not a self-loop, drawn
   with ``config.BENCH_ROOT_SEED`` (the same on every process).
4. *Searches*: each timed from a barrier to the end of the last level (device synchronised),
   the slowest process's time, then *validated* on process 0 against the whole edge list
   (:func:`gpugraph.graph500.validate.validate`), which also counts the edges of the component,
   the TEPS numerator.
5. The *output* block of the reference code (:func:`gpugraph.graph500.summary.report`).

Processes: :func:`run` starts them on this host (or runs in this one); :func:`run_in_job` is one
rank of a job torchrun started (one or many hosts).
"""

from __future__ import annotations

import gc
import json
import os
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from gpugraph import config
from gpugraph.backend import get_backend, to_numpy
from gpugraph.distributed.comm import rank_backend
from gpugraph.errors import InvalidParameterError
from gpugraph.graph500 import distributor, separation, summary
from gpugraph.graph500.bfs import Group, Options, Searcher


def run_process(group: Group, scale: int, *, edge_factor: int = 16, seed: int = 0, roots: int = 64,
                threshold: int | None = None, gpus_per_host: int = 1, options: Options | None = None,
                validate: bool = True, relabel: bool = True, report=None) -> dict | None:
    """Run the benchmark as one process of ``group`` (collective).

    Parameters
    ----------
    group:
        The :class:`~gpugraph.graph500.bfs.Group` (its backend runs this process's share).
    scale, edge_factor, seed:
        The Kronecker graph: ``2^scale`` vertices, ``edge_factor * 2^scale`` edges.
    roots:
        How many searches (64 in the specification).
    threshold:
        Delegate threshold TH; ``None`` chooses it (:func:`~gpugraph.graph500.separation.choose_threshold`).
    gpus_per_host:
        Processes per host in the layout (``group.size`` must be a multiple).
    options:
        Search :class:`~gpugraph.graph500.bfs.Options`.
    validate:
        Validate every tree (the specification requires it); off, the TEPS edge count is
        estimated from the reached vertices' degrees (``nedge_estimated`` in the record).
    relabel:
        Build the subgraphs in ids by decreasing degree
        (:class:`~gpugraph.graph500.separation.Relabeling`, part of the construction); roots
        and trees stay in the generator's ids.
    report:
        Called with a line of progress on process 0 (``None``: silent).

    Returns
    -------
    dict or None
        On process 0 the record: ``text`` (the reference's output block), per-root ``seconds``,
        ``nedge``, ``levels``, ``validation_seconds``, ``link_touches`` (process 0's touches of
        the links before each search: ``Options.keep_links_awake``); ``threshold``, ``delegates``,
        ``arcs`` per kind, ``memory`` per process, ``construction_pool_bytes`` (per process, the most
        CuPy's pool held during the generation and the construction:
        :meth:`~gpugraph.backend.Backend.pool_peak_bytes`; 0 on the CPU), ``generation_seconds``,
        ``construction_seconds`` (with the searcher's warm-up from the busiest vertex:
        :meth:`~gpugraph.graph500.bfs.Searcher.warm_up`), the options (``factors``: those the
        searches used), ``phases`` summed over the searches,
        ``nn_pairs_sent`` / ``nn_messages`` (all processes, all searches),
        ``searches_from_cuda_graphs`` (process 0's searches launched wholly from CUDA graphs)
        and ``cuda_graph_failure`` (why a capture failed, or ``None``), and ``first_search``
        (directions and frontier sizes per level). ``None`` on the others.

    Raises
    ------
    InvalidParameterError
        For a bad scale, edge factor, root count, threshold or layout.
    Graph500ValidationError
        If a tree fails validation.
    """
    if roots < 1:
        raise InvalidParameterError(f"the number of roots must be at least 1, got {roots}")
    if group.size % gpus_per_host:
        raise InvalidParameterError(f"{group.size} processes are not a whole number of hosts of {gpus_per_host}")
    from gpugraph.io.generators import rmat_edge_count, rmat_edges

    edges = rmat_edge_count(scale, edge_factor)
    options = options or Options()
    backend, xp = group.backend, group.backend.xp
    say = report if (report and group.rank == 0) else (lambda line: None)
    layout = distributor.Layout(group.size // gpus_per_host, gpus_per_host)
    began = time.perf_counter()
    backend.reset_pool_peak()
    with backend.activate():
        first, end = edges * group.rank // group.size, edges * (group.rank + 1) // group.size
        with backend.out_of_memory_named(f"generating edges {first:,}..{end:,} of scale {scale}"):
            generated = rmat_edges(scale, edge_factor, seed=seed, device=backend, edge_range=(first, end),
                                   progress=False)
            sources, targets = generated.src, generated.dst  # int32 up to scale 31: half the bytes
            del generated
        backend.synchronize()
        generation = float(group.allreduce([time.perf_counter() - began], "max")[0])
        say(f"generated scale {scale}: {edges:,} edges in {generation:.2f} s")
        began = time.perf_counter()
        with backend.out_of_memory_named(f"building the subgraphs of process {group.rank}"):
            degree = separation.degrees(group, sources, targets, 1 << int(scale))
            nn_table = separation.edge_share_table(group, sources, targets, degree)
            chosen = separation.choose_threshold(degree, nn_table, group.size) if threshold is None else int(threshold)
            relabeling = separation.by_degree(degree) if relabel else None
            if relabeling is not None:  # in place, a chunk at a time (validation generates its own edges)
                for piece in separation.edge_chunks(sources.size):
                    sources[piece] = relabeling.new_id[sources[piece]].astype(sources.dtype, copy=False)
                    targets[piece] = relabeling.new_id[targets[piece]].astype(targets.dtype, copy=False)
            delegates = separation.separate(degree if relabeling is None else degree[relabeling.original_id], chosen)
            parts = distributor.build(group, layout, sources, targets, delegates)
            del sources, targets
            if relabeling is not None and group.size > 1:
                # Each process's device keeps its share only (Table I): the map (16 bytes per
                # vertex) goes to the host, where roots are looked up and trees gathered anyway.
                relabeling = separation.Relabeling(to_numpy(relabeling.new_id), to_numpy(relabeling.original_id))
            searcher = Searcher(group, parts, options, relabeling)
            searcher.warm_up(int(xp.argmax(degree)))
        backend.synchronize()
        construction = float(group.allreduce([time.perf_counter() - began], "max")[0])
        construction_pool = group.all_gather(np.array([backend.pool_peak_bytes()], dtype=np.float64))
        host_degree = to_numpy(degree)
        searched_degree = to_numpy(delegates.degree)  # in the searcher's ids
    say(f"built in {construction:.2f} s: TH {chosen}, {delegates.num_delegates:,} delegates, "
        f"arcs {parts.global_arcs}")
    chosen_roots = _roots(host_degree, roots)
    whole = None
    if validate and group.rank == 0:
        whole = _whole_edges(backend, scale, edge_factor, seed)
    record = {"seconds": [], "nedge": [], "levels": [], "validation_seconds": [], "roots": chosen_roots.tolist(),
              "link_touches": []}
    phases = {}
    traffic = np.zeros(2, dtype=np.int64)  # nn pairs and non-empty nn messages to other processes
    from_graphs = 0  # searches whose every batch of levels was one CUDA graph
    first_search = None
    for index, root in enumerate(chosen_roots):
        # The interpreter's garbage collector waits for the search (a pass over every object:
        # milliseconds in a process holding CuPy and Numba, as long as a search at scale 24),
        # and runs before the processes meet: collected after the meeting, it made each search
        # wait for the slowest process's collection (tens of ms on 4 H200s, 2026-11-26).
        gc.collect()
        gc.disable()
        group.start_together()  # every process starts the clock together
        try:
            stats = searcher.search(int(root))
        finally:
            gc.enable()
        seconds = float(group.allreduce([stats["seconds"]], "max")[0])
        traffic += (stats["nn_pairs_sent"], stats["nn_messages"])
        from_graphs += stats["graph_batches"] == stats["batches"] > 0
        for name, value in stats["phases"].items():
            phases[name] = phases.get(name, 0.0) + value
        first_search = first_search or {key: stats[key] for key in ("directions", "frontiers", "level_seconds")}
        checked = time.perf_counter()
        if validate:
            parent = searcher.parents(on_device=True)
            nedge = None
            if group.rank == 0:
                from gpugraph.graph500.validate import validate as validate_tree

                with backend.activate(), backend.out_of_memory_named(f"validating the tree from root {int(root)}"):
                    outcome = validate_tree(whole[0], whole[1], 1 << int(scale), int(root),
                                            backend.asarray(parent))
                nedge = outcome["edges_in_component"]
        else:
            nedge = _estimated_edges(group, searcher, searched_degree)
        record["validation_seconds"].append(time.perf_counter() - checked)
        if group.rank == 0:
            record["seconds"].append(seconds)
            record["nedge"].append(float(nedge))
            record["levels"].append(stats["levels"])
            record["link_touches"].append(stats["link_touches"])
            say(f"root {index + 1}/{len(chosen_roots)} {int(root)}: {seconds * 1e3:.3f} ms, "
                f"{nedge / seconds / 1e9:.2f} GTEPS, {stats['levels']} levels")
    memory = group.all_gather(np.array(list(parts.memory().values()), dtype=np.float64))
    traffic = group.allreduce(traffic)
    if group.rank != 0:
        return None
    record.update({
        "text": summary.report(scale=int(scale), edge_factor=int(edge_factor), bfs_seconds=record["seconds"],
                               nedges=record["nedge"], construction_seconds=construction,
                               generation_seconds=generation, validation_seconds=record["validation_seconds"],
                               processes=group.size),
        "scale": int(scale), "edge_factor": int(edge_factor), "processes": group.size,
        "gpus_per_host": gpus_per_host, "device": backend.device_description(), "threshold": chosen,
        "relabel": relabel,
        "delegates": delegates.num_delegates, "arcs": parts.global_arcs,
        "memory": [dict(zip(parts.memory(), map(float, piece))) for piece in memory],
        "construction_pool_bytes": [float(piece[0]) for piece in construction_pool],
        "generation_seconds": generation, "construction_seconds": construction,
        "options": {**asdict(options), "factors": searcher.direction_factors}, "phases": phases,
        "first_search": first_search,
        "nn_pairs_sent": int(traffic[0]), "nn_messages": int(traffic[1]),
        "searches_from_cuda_graphs": from_graphs, "cuda_graph_failure": searcher.graph_failure,
        "nedge_estimated": not validate,
        "harmonic_mean_teps": summary.teps_statistics(record["nedge"], record["seconds"])["harmonic_mean"],
    })
    return record


def _roots(degree: np.ndarray, count: int) -> np.ndarray:
    """``count`` distinct vertices with an edge that is not a self-loop (fewer if fewer qualify)."""
    candidates = np.flatnonzero(degree > 0)
    if candidates.size == 0:
        raise InvalidParameterError("the generated graph has no edge besides self-loops: no root to search from")
    rng = np.random.default_rng(config.BENCH_ROOT_SEED)
    return rng.choice(candidates, size=min(count, candidates.size), replace=False).astype(np.int64)


def _whole_edges(backend, scale: int, edge_factor: int, seed: int):
    """Every edge, for validation on process 0 (in the generator's ids: int32 up to scale 31,
    which the validator widens a chunk at a time)."""
    from gpugraph.io.generators import rmat_edges

    with backend.out_of_memory_named(f"generating all {edge_factor << scale:,} edges for validation"):
        edges = rmat_edges(scale, edge_factor, seed=seed, device=backend, progress=False)
        return edges.src, edges.dst


def _estimated_edges(group: Group, searcher: Searcher, degree: np.ndarray) -> float:
    """Half the degrees of the reached vertices (the edges of the component, self-loops left out;
    ``degree`` in the searcher's ids)."""
    graph = searcher.graph
    depth = to_numpy(searcher.depth)
    local = np.flatnonzero(depth >= 0) * graph.layout.processes + graph.offset
    total = float(degree[local].sum())
    if group.rank == 0:
        reached = to_numpy(searcher.delegate_depth) >= 0
        total += float(degree[to_numpy(graph.delegate_ids)[reached]].sum())
    return float(group.allreduce([total])[0]) / 2


# --- several processes on this host ---------------------------------------------------------------
def run(scale: int, *, processes: int = 1, device: str = "cpu", **keywords) -> dict:
    """Run the benchmark on ``processes`` processes of this host and return process 0's record.

    Parameters
    ----------
    scale:
        log2 of the vertex count.
    processes:
        1: in this process, no torch.distributed; more: that many ranks
        (:func:`gpugraph.distributed.runner.launch`), Gloo on the CPU or NCCL with one GPU each.
    device:
        ``"cpu"`` or ``"cuda"`` (process ``r`` takes GPU ``r``).
    **keywords:
        As :func:`run_process` (but ``report``, which goes to stderr on process 0 when
        ``keywords["progress"]`` is true).

    Returns
    -------
    dict
        :func:`run_process`'s record.

    Raises
    ------
    InvalidParameterError
        For a bad scale or edge factor, a process count below 1, one that is not a multiple of
        ``gpus_per_host``, or an unknown device.
    DistributedError
        If a process fails (its message says why).
    """
    from gpugraph.io.generators import rmat_edge_count

    rmat_edge_count(scale, keywords.get("edge_factor", 16))
    if processes < 1:
        raise InvalidParameterError(f"the number of processes must be at least 1, got {processes}")
    if device not in ("cpu", "cuda"):
        raise InvalidParameterError(f"device must be 'cpu' or 'cuda', got {device!r}")
    gpus_per_host = keywords.get("gpus_per_host", 1)
    if gpus_per_host < 1 or processes % gpus_per_host:
        raise InvalidParameterError(f"{processes} processes are not a whole number of hosts of {gpus_per_host}")
    progress = keywords.pop("progress", False)
    if processes == 1:
        report = _stderr if progress else None
        return run_process(Group(get_backend("cuda:0" if device == "cuda" else "cpu")), scale, report=report,
                           **keywords)
    from gpugraph.distributed.runner import launch

    with tempfile.TemporaryDirectory(prefix="gpugraph-graph500-") as folder:
        launch(_process_main, processes, device, folder, scale, keywords, progress)
        return json.loads((Path(folder) / "record.json").read_text())


def run_in_job(scale: int, *, device: str = "cpu", **keywords) -> dict | None:
    """Run the benchmark as this process's rank of a job that torch.distributed already joined
    (``torchrun``, one or many hosts): rank ``r`` uses GPU ``LOCAL_RANK`` or the CPU.

    Parameters
    ----------
    scale:
        log2 of the vertex count.
    device:
        ``"cpu"`` or ``"cuda"``.
    **keywords:
        As :func:`run_process` (but ``report``, which goes to stderr on rank 0 when
        ``keywords["progress"]`` is true); ``gpus_per_host`` defaults to torchrun's
        ``LOCAL_WORLD_SIZE`` (the ranks of each host).

    Returns
    -------
    dict or None
        :func:`run_process`'s record on rank 0, ``None`` on the others.

    Raises
    ------
    InvalidParameterError
        For an unknown device, or a job whose size is not a whole number of hosts.
    DistributedError
        If torch.distributed has not been initialised.
    """
    if device not in ("cpu", "cuda"):
        raise InvalidParameterError(f"device must be 'cpu' or 'cuda', got {device!r}")
    keywords.setdefault("gpus_per_host", int(os.environ.get("LOCAL_WORLD_SIZE", 1)))
    progress = keywords.pop("progress", False)
    return run_process(Group(rank_backend(device), distributed=True), scale, report=_stderr if progress else None, **keywords)


def _process_main(rank: int, kind: str, folder: str, scale: int, keywords: dict, progress: bool) -> None:
    backend = get_backend(f"cuda:{rank}" if kind == "cuda" else "cpu")
    record = run_process(Group(backend, distributed=True), scale, report=_stderr if progress else None, **keywords)
    if record is not None:
        (Path(folder) / "record.json").write_text(json.dumps(record))


def _stderr(line: str) -> None:
    import sys

    print(line, file=sys.stderr, flush=True)
