"""Starting ranks and running an algorithm over them; results come back in original vertex ids.

Two ways in, one code path per rank (:func:`run_rank`):

* **torchrun** (one or many hosts): ``torchrun --nproc-per-node 4 -m gpugraph run pagerank g.gg``.
  Every process loads the graph, builds its own part and runs; rank 0 prints the result.
* **one process asking for several**: :func:`run` (``gpugraph run ... --gpus N``) writes the
  graph to a temporary ``.gg`` file, starts ``N`` processes on this host (one GPU each, or CPU
  processes over Gloo), and reads rank 0's answer back.

Rank ``r`` uses GPU ``LOCAL_RANK`` (``r`` when started by :func:`run`) with NCCL, or the CPU with
Gloo.
"""

from __future__ import annotations

import datetime
import importlib
import importlib.util
import json
import os
import pickle
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

from gpugraph import config
from gpugraph.algorithms.result import Result
from gpugraph.backend import cuda_available, get_backend, parse_device
from gpugraph.distributed.comm import rank_backend, torch_distributed, use_rank_device
from gpugraph.distributed.engine import ALGORITHMS, MODES, SYMMETRIC, run_on_rank
from gpugraph.distributed.partition import POLICIES, partition_graph
from gpugraph.errors import DeviceError, DistributedError, EmptyGraphError, GpugraphError, InvalidParameterError


#: What each distributed program takes (besides the graph).
_PARAMETERS = {"bfs": {"source"}, "sssp": {"source"}, "wcc": set(), "kcore": set(),
               "pagerank": {"damping", "tol", "max_iterations"}}


def prepare(graph, algorithm: str, parameters: dict):
    """Check the request on the whole graph and return ``(graph to partition, parameters)`` with
    the source as an internal id; WCC and k-core get the simple symmetric graph of the arcs.

    Raises
    ------
    InvalidParameterError
        For an unknown algorithm or parameter.
    EmptyGraphError
        For a graph without vertices.
    VertexIdError
        For a source that is not a vertex (original ids).
    InvalidWeightError
        For SSSP with a negative or NaN weight.
    """
    from gpugraph.algorithms.kcore import simple_neighbour_lists
    from gpugraph.algorithms.sssp import check_weights
    from gpugraph.graph.graph import Graph

    if algorithm not in ALGORITHMS:
        raise InvalidParameterError(f"no distributed {algorithm!r}; use one of {', '.join(ALGORITHMS)}")
    if graph.num_vertices == 0:
        raise EmptyGraphError(f"distributed {algorithm} needs at least one vertex; the graph is empty")
    unknown = sorted(set(parameters) - _PARAMETERS[algorithm])
    if unknown:
        raise InvalidParameterError(f"distributed {algorithm} takes no {', '.join(unknown)}; it takes "
                                    f"{', '.join(sorted(_PARAMETERS[algorithm])) or 'no parameters'}")
    parameters = dict(parameters)
    if algorithm in ("bfs", "sssp"):
        source = parameters.get("source", graph.to_original(np.array([0]))[0])
        parameters["source"] = int(graph.to_internal(np.array([source]))[0])
    if algorithm == "sssp":
        check_weights(graph)
    if algorithm in SYMMETRIC:
        offsets, neighbours = simple_neighbour_lists(graph)
        graph = Graph(offsets, neighbours, directed=True, num_edges=int(neighbours.size), backend=graph.backend,
                      name=graph.name, original_ids=graph.original_ids, id_offset=graph.id_offset)
    return graph, parameters


def run_rank(graph, algorithm: str, parameters: dict, *, policy: str = "oec", mode: str = "bsp",
             update_only: bool = True, backend=None):
    """This rank's share of a distributed run (collective; torch.distributed initialised).

    Parameters
    ----------
    graph:
        The prepared graph (:func:`prepare`), on this rank's device.
    algorithm, parameters, policy, mode, update_only:
        As :func:`run`.
    backend:
        The rank's backend; the graph's when ``None``.

    Returns
    -------
    (values, stats)
        As :func:`gpugraph.distributed.engine.run_on_rank`, with ``partition_seconds`` added.
    """
    _, dist = torch_distributed()
    backend = backend or graph.backend
    start = time.perf_counter()
    (part,) = partition_graph(graph, dist.get_world_size(), policy, hosts=[dist.get_rank()])
    backend.synchronize()
    partition_seconds = time.perf_counter() - start
    values, stats = run_on_rank(part, backend, algorithm, parameters, mode=mode, update_only=update_only)
    stats["partition_seconds"] = partition_seconds
    stats["policy"] = policy
    return values, stats


def run(graph, algorithm: str, *, processes: int = 2, policy: str = "oec", mode: str = "bsp",
        update_only: bool = True, device=None, **parameters) -> Result:
    """Run ``algorithm`` on ``graph`` over ``processes`` ranks on this host (or, inside torchrun,
    over the job's ranks) and return the result on the original graph.

    Parameters
    ----------
    graph:
        The graph (any device).
    algorithm:
        ``"bfs"``, ``"sssp"``, ``"wcc"``, ``"pagerank"`` or ``"kcore"``.
    processes:
        Ranks to start (ignored under torchrun, where the job decides).
    policy:
        Partitioning policy (:data:`gpugraph.distributed.partition.POLICIES`).
    mode:
        ``"bsp"`` or ``"basp"``.
    update_only:
        Send only changed proxies (else all shared proxies every exchange).
    device:
        ``"cuda"``: one GPU per rank (NCCL); ``"cpu"``: Gloo. ``None``: the graph's device kind.
    **parameters:
        ``source`` (original id) for bfs / sssp; ``damping``, ``tol`` and (``bsp``)
        ``max_iterations`` for pagerank.

    Returns
    -------
    Result
        The per-vertex values (``depth``, ``distance``, ``component``, ``rank`` or ``core``) in
        the graph's internal ids, and the engine's counters in ``stats``; under torchrun, ranks
        other than 0 get ``None``.

    Raises
    ------
    InvalidParameterError
        For an unknown algorithm, policy or mode, or fewer than one process.
    DistributedError
        If PyTorch is missing or a rank fails (the message carries the rank's error).
    DeviceError
        For more GPU ranks than this host has GPUs.
    """
    if policy not in POLICIES:
        raise InvalidParameterError(f"unknown partitioning policy {policy!r}; use one of {', '.join(POLICIES)}")
    if mode not in MODES:
        raise InvalidParameterError(f"unknown distributed mode {mode!r}; use 'bsp' or 'basp'")
    if int(processes) < 1:
        raise InvalidParameterError(f"need at least one process, got {processes}")
    if algorithm == "pagerank" and mode == "basp" and "max_iterations" in parameters:
        raise InvalidParameterError("max_iterations applies to BSP PageRank (power iteration); "
                                    "BASP runs the residual form until tol")
    kind = parse_device(device)[0] if device is not None else graph.backend.kind
    if kind == "auto":
        kind = "cuda" if cuda_available() else "cpu"
    prepared, parameters = prepare(graph, algorithm, parameters)
    options = {"policy": policy, "mode": mode, "update_only": bool(update_only)}
    _, dist = torch_distributed()
    if dist.is_initialized():
        backend = rank_backend(kind)
        values, stats = run_rank(prepared.to(backend), algorithm, parameters, backend=backend, **options)
        return None if values is None else _result(graph, algorithm, values, stats, parameters, options)
    if kind == "cuda" and not get_backend("cuda").simulated:
        import cupy

        available = cupy.cuda.runtime.getDeviceCount()
        if int(processes) > available:
            raise DeviceError(f"asked for {processes} GPU ranks, this host has {available} GPU(s); "
                              "use fewer, or torchrun across hosts")
    from gpugraph.io import save

    with tempfile.TemporaryDirectory(prefix="gpugraph-ranks-") as folder:
        folder = Path(folder)
        save(prepared.to("cpu"), folder / "graph.gg")
        launch(_rank_main, int(processes), kind, folder, algorithm, parameters, options)
        with np.load(folder / "values.npz") as saved:
            values = {name: saved[name] for name in saved.files}
        stats = json.loads((folder / "stats.json").read_text())
    return _result(graph, algorithm, values, stats, parameters, options)


def launch(function, processes: int, kind: str, *args) -> None:
    """Start ``processes`` ranks on this host, each calling ``function(rank, kind, *args)`` with
    torch.distributed initialised (NCCL for ``kind="cuda"`` on real GPUs, else Gloo, also for the
    CUDA simulator's GPUs); wait for all.

    The ranks are fresh interpreters (``python .../gpugraph/distributed/_rank.py``, which imports
    the ``gpugraph`` this module belongs to, whatever the working directory holds), so this works
    from scripts without a ``__main__`` guard, from notebooks and from the REPL; ``function``
    must be a module-level function (of an importable module or of the script being run) and
    ``args`` picklable.

    Raises
    ------
    DistributedError
        If a rank fails or dies; the others are stopped and the message names the first failure.
    """
    torch_distributed()
    folder = Path(tempfile.mkdtemp(prefix="gpugraph-launch-"))
    module = function.__module__
    script = getattr(sys.modules[module], "__file__", None) if module == "__main__" else None
    request = {"function": (module, function.__qualname__, script), "args": args, "kind": kind,
               "processes": int(processes), "address": f"tcp://127.0.0.1:{_free_port()}", "path": sys.path,
               "errors": str(folder)}
    (folder / "request.pickle").write_bytes(pickle.dumps(request))
    entry = str(Path(__file__).with_name("_rank.py"))  # a script: the ranks import this gpugraph, not the cwd's
    workers = [subprocess.Popen([sys.executable, entry, str(folder), str(rank)]) for rank in range(int(processes))]
    failed = None
    while failed is None and any(worker.poll() is None for worker in workers):
        failed = next((worker for worker in workers if worker.poll() not in (None, 0)), None)
        time.sleep(0.02)
    for worker in workers:
        if failed is not None and worker.poll() is None:
            worker.terminate()
        worker.wait()
    failed = failed or next((worker for worker in workers if worker.returncode != 0), None)
    # The first report written is the cause; the others' are usually peers losing their connection.
    reports = sorted(folder.glob("rank-*.txt"), key=lambda path: path.stat().st_mtime_ns)
    message = reports[0].read_text().strip() if reports else None
    culprit = int(reports[0].stem.split("-")[1]) if reports else (workers.index(failed) if failed else 0)
    shutil.rmtree(folder, ignore_errors=True)
    if failed is not None:
        raise DistributedError(f"rank {culprit} of {processes} failed: "
                               f"{message or f'exit code {failed.returncode}'}")


def rank_entry(folder: str, rank: int) -> None:
    """A started rank: set up the device and the process group, call the function, report errors."""
    request = pickle.loads((Path(folder) / "request.pickle").read_bytes())
    sys.path[:] = request["path"]
    kind, processes = request["kind"], request["processes"]
    dist = None
    try:
        _, dist = torch_distributed()
        if kind == "cuda":
            os.environ["LOCAL_RANK"] = str(rank)
        else:
            import numba

            numba.set_num_threads(max(1, numba.config.NUMBA_NUM_THREADS // processes))
        module, name, script = request["function"]
        function = _script_module(script) if script else importlib.import_module(module)
        for part in name.split("."):
            function = getattr(function, part)
        # NCCL on real GPUs; Gloo on CPUs and for the simulator's GPUs (host arrays underneath).
        backend = rank_backend(kind)
        transport = "nccl" if backend.is_cuda and not backend.simulated else "gloo"
        use_rank_device(backend)
        dist.init_process_group(transport, init_method=request["address"], rank=rank,
                                world_size=processes,
                                timeout=datetime.timedelta(seconds=config.DISTRIBUTED_TIMEOUT_SECONDS))
        function(rank, kind, *request["args"])
    except BaseException as exc:  # reported (before the group goes) to the parent, which raises DistributedError
        detail = str(exc) if isinstance(exc, GpugraphError) else traceback.format_exc()
        (Path(request["errors"]) / f"rank-{rank:04d}.txt").write_text(f"{type(exc).__name__}: {detail}")
        raise SystemExit(1) from None
    finally:
        if dist is not None and dist.is_initialized():
            dist.destroy_process_group()


def _script_module(path: str):
    """The parent's ``__main__`` script, imported under another name (so its main guard stays shut)."""
    spec = importlib.util.spec_from_file_location("_gpugraph_launched_script", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _rank_main(rank, kind, folder, algorithm, parameters, options):
    from gpugraph.io import load

    backend = get_backend(f"cuda:{rank}" if kind == "cuda" else "cpu")
    graph = load(folder / "graph.gg", device=backend)
    values, stats = run_rank(graph, algorithm, parameters, backend=backend, **options)
    if values is not None:
        np.savez(folder / "values.npz", **values)
        (folder / "stats.json").write_text(json.dumps(stats))


def _result(graph, algorithm, values, stats, parameters, options) -> Result:
    if "source" in parameters:
        parameters = {**parameters, "source": int(graph.to_original(np.array([parameters["source"]]))[0])}
    return Result(algorithm, graph, values, stats, {**parameters, **options})


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
