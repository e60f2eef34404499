"""Strong scaling of the distributed engines (issue 7): every policy, 1..N ranks, answers checked.

Run on the device machine (docs/scaling.md), e.g. GPUs with NCCL, then CPU processes with Gloo:

    PYTHONUNBUFFERED=1 python3 bench/distributed_scaling.py --device cuda --ranks 1,2,4 --scale 24 --out $OUT
    PYTHONUNBUFFERED=1 python3 bench/distributed_scaling.py --device cpu --ranks 1,2,4,8 --scale 19 --out $OUT

For each rank count one process group is started (:func:`gpugraph.distributed.runner.launch`).
In it, for every graph and policy, each rank builds only its own part: RMAT graphs are generated
in slices and streamed to their hosts (:mod:`gpugraph.distributed.build`, weights from a hash of
the end points), real files are loaded by every rank and partitioned on its device. Then every
algorithm runs once to compile and ``--repeat`` times timed (the median is reported, with the
counters of the last run). Answers: BFS depths and SSSP distances must equal, PageRank must be
within 1e-7 (max abs) of, the first configuration's answer for that graph; with one rank the
library algorithm on the whole graph is run too, checked the same way and timed
(``library_seconds``). ``--oom-scale S`` first tries RMAT scale S on one rank and records the
named out-of-memory error. Rows print as they come and go to ``--out``/scaling-<device>.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from gpugraph.distributed.runner import launch  # noqa: E402

ALGORITHMS = ("pagerank", "bfs", "sssp")
#: PageRank's tol per mode: bsp runs the power iteration (stops at an L1 change below n * tol, as
#: the library), basp the residual form (leaves at most tol of rank unpropagated) ...
PAGERANK_TOL = {"bsp": 1e-13, "basp": 1e-8}
#: ... so both end well within this of the fixed point; the library reference runs to tol 1e-14.
PAGERANK_MAX_ERROR = 1e-7


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--ranks", default="1,2,4")
    parser.add_argument("--scale", type=int, default=22, help="RMAT scale (0: none)")
    parser.add_argument("--real", default="", help="comma-separated files under --datasets")
    parser.add_argument("--datasets", default=str(REPO.parent / "shared" / "datasets"))
    parser.add_argument("--policies", default="oec,iec,hvc,cvc")
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--modes", default="bsp,basp")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--oom-scale", type=int, default=0)
    parser.add_argument("--out", default=".")
    args = parser.parse_args()
    graphs = ([f"rmat{args.scale}"] if args.scale else []) + [
        str(Path(args.datasets) / name) for name in args.real.split(",") if name]
    config = {"graphs": graphs, "policies": args.policies.split(","), "algorithms": args.algorithms.split(","),
              "modes": args.modes.split(","), "repeat": args.repeat}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="scaling-") as folder:
        folder = Path(folder)
        if args.oom_scale:
            launch(oom_worker, 1, args.device, folder, args.oom_scale)
        for ranks in [int(text) for text in args.ranks.split(",")]:
            began = time.perf_counter()
            launch(worker, ranks, args.device, folder, config)
            print(f"# {ranks} ranks: {time.perf_counter() - began:.1f} s with start-up", flush=True)
        rows = [json.loads(line) for line in (folder / "rows.jsonl").read_text().splitlines()]
    (out / f"scaling-{args.device}.json").write_text(json.dumps(rows, indent=1))
    print_table(rows)
    failures = [row for row in rows if row.get("check") not in ("ok", "reference", None)]
    print(f"# {len(rows)} rows, {len(failures)} failed checks")
    return 1 if failures else 0


def worker(rank, kind, folder, config):
    """One rank: every graph x policy x algorithm x mode; rank 0 checks and records."""
    from gpugraph.backend import get_backend
    from gpugraph.distributed.comm import Communicator

    backend = get_backend(f"cuda:{rank}" if kind == "cuda" else "cpu")
    comm = Communicator(backend)
    for graph_name in config["graphs"]:
        library = {}
        for policy in config["policies"]:
            began = time.perf_counter()
            part, whole = build_part(comm, graph_name, policy, want_whole=comm.size == 1 and not library)
            backend.synchronize()
            build_seconds = comm.allreduce(time.perf_counter() - began, "max")[0]
            root = highest_degree_vertex(comm, part)
            if whole is not None:
                library = library_answers(whole, root, config["algorithms"])
                del whole
            for algorithm in config["algorithms"]:
                for mode in config["modes"]:
                    row = timed_run(comm, part, algorithm, mode, root, config["repeat"])
                    if rank == 0:
                        row.update(graph=Path(graph_name).name, policy=policy, build_seconds=build_seconds,
                                   device=backend.device_description())
                        row["check"] = check(folder, row, library.get(algorithm))
                        if algorithm in library:
                            row["library_seconds"] = library[algorithm][1]
                        record(folder, row)
            del part
            if kind == "cuda":
                import cupy

                cupy.get_default_memory_pool().free_all_blocks()


def build_part(comm, graph_name, policy, want_whole):
    """This rank's part of ``graph_name`` (``rmatS`` or a file) and, if asked, the whole graph."""
    from gpugraph.distributed.build import edge_weights, rmat_part
    from gpugraph.distributed.partition import partition_graph

    if graph_name.startswith("rmat"):
        scale = int(graph_name[4:])
        part = rmat_part(comm, scale, policy, weighted=True)
        whole = None
        if want_whole:
            import gpugraph as gg
            from gpugraph.io.generators import rmat_edges

            edges = rmat_edges(scale, device=comm.backend, progress=False)
            xp = comm.backend.xp
            src, dst = edges.src.astype(xp.int64), edges.dst.astype(xp.int64)
            sources, destinations = xp.concatenate((src, dst)), xp.concatenate((dst, src))
            del edges, src, dst
            whole = gg.from_edges(sources, destinations, edge_weights(sources, destinations),
                                  num_vertices=1 << scale, device=comm.backend)
        return part, whole
    import gpugraph as gg

    graph = gg.load(graph_name, device=comm.backend, progress=False)
    (part,) = partition_graph(graph, comm.size, policy, hosts=[comm.rank])
    return part, graph if want_whole else None


def highest_degree_vertex(comm, part) -> int:
    """The global id of a vertex of highest out-degree (the same on every rank)."""
    degree = part.out_degree[: part.num_masters]
    best = int(degree.max()) if degree.size else -1
    top = comm.allreduce(best, "max")[0]
    mine = part.local_to_global[: part.num_masters][degree == top]
    candidate = int(mine.min()) if mine.size else np.iinfo(np.int64).max
    return int(comm.allreduce(candidate, "min")[0])


def library_answers(whole, root, algorithms) -> dict:
    """The single-device library's answers and times on the whole graph (second run timed)."""
    from gpugraph.algorithms import bfs, pagerank, sssp
    from gpugraph.backend import to_numpy

    runs = {"pagerank": lambda: pagerank.run(whole, tol=1e-14, max_iterations=1000),
            "bfs": lambda: bfs.run(whole, source=root), "sssp": lambda: sssp.run(whole, source=root)}
    names = {"pagerank": "rank", "bfs": "depth", "sssp": "distance"}
    answers = {}
    for algorithm in algorithms:
        runs[algorithm]()
        result = runs[algorithm]()
        answers[algorithm] = (to_numpy(result.values[names[algorithm]]), result.stats["seconds"])
    return answers


def timed_run(comm, part, algorithm, mode, root, repeat) -> dict:
    from gpugraph.distributed.engine import run_on_rank

    parameters = {"source": root} if algorithm in ("bfs", "sssp") else {"tol": PAGERANK_TOL[mode]}
    seconds = []
    for attempt in range(repeat + 1):
        values, stats = run_on_rank(part, comm.backend, algorithm, parameters, mode=mode)
        if attempt:
            seconds.append(stats["seconds"])
    row = {"algorithm": algorithm, "mode": mode, "ranks": comm.size, "seconds": float(np.median(seconds)),
           "runs": seconds, **{key: value for key, value in stats.items() if key != "seconds"}}
    row["values"] = values
    return row


def check(folder, row, library) -> str:
    """Compare with the first answer for this graph and algorithm (and the library's)."""
    values = next(iter(row.pop("values").values()))
    reference_path = folder / f"{row['graph']}-{row['algorithm']}.npy"
    verdicts = []
    for name, reference in (("library", None if library is None else library[0]),
                            ("first", np.load(reference_path) if reference_path.exists() else None)):
        if reference is None:
            continue
        if row["algorithm"] == "pagerank":
            error = float(np.abs(values - reference).max())
            row[f"max_error_vs_{name}"] = error
            verdicts.append(error <= PAGERANK_MAX_ERROR)
        else:
            verdicts.append(bool(np.array_equal(values, reference)))
    if not reference_path.exists():
        np.save(reference_path, values)
    if not verdicts:
        return "reference"
    return "ok" if all(verdicts) else "MISMATCH"


def record(folder, row) -> None:
    with open(folder / "rows.jsonl", "a") as handle:
        handle.write(json.dumps(row) + "\n")
    print(f"{row['graph']:>14} {row['algorithm']:>8} {row['mode']:>4} {row['policy']:>4} ranks {row['ranks']} "
          f"{row['seconds'] * 1e3:9.2f} ms  compute {row['compute_seconds'] * 1e3:8.2f} comm "
          f"{row['communication_seconds'] * 1e3:8.2f} wait {row['waiting_seconds'] * 1e3:8.2f}  rounds {row['rounds']} "
          f"MB {row['bytes_sent'] / 1e6:8.2f} rf {row['replication_factor']:.2f} "
          f"balance {row['balance']['static']:.2f}/{row['balance']['dynamic']:.2f}/{row['balance']['memory']:.2f} "
          f"build {row['build_seconds']:.2f} s  {row['check']}"
          + (f"  library {row['library_seconds'] * 1e3:.2f} ms" if "library_seconds" in row else ""), flush=True)


def oom_worker(rank, kind, folder, scale):
    """RMAT ``scale`` on one rank: expected to raise the named out-of-memory error."""
    from gpugraph.backend import get_backend
    from gpugraph.distributed.build import rmat_part
    from gpugraph.distributed.comm import Communicator
    from gpugraph.errors import DeviceOutOfMemoryError

    comm = Communicator(get_backend(f"cuda:{rank}" if kind == "cuda" else "cpu"))
    try:
        part = rmat_part(comm, scale, "oec")
        print(f"# RMAT scale {scale} fits on one rank: {part.num_arcs:,} arcs", flush=True)
    except DeviceOutOfMemoryError as exc:
        print(f"# RMAT scale {scale} on one rank: DeviceOutOfMemoryError: {exc}", flush=True)


def print_table(rows) -> None:
    print("\n| graph | algorithm | mode | policy | ranks | ms | speedup vs 1 rank | compute | comm | wait | MB sent "
          "| replication | static / dynamic / memory balance | check |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    single = {(row["graph"], row["algorithm"], row["mode"], row["policy"]): row["seconds"]
              for row in rows if row["ranks"] == 1}
    for row in rows:
        base = single.get((row["graph"], row["algorithm"], row["mode"], row["policy"]))
        speedup = f"{base / row['seconds']:.2f}x" if base else "-"
        balance = row["balance"]
        print(f"| {row['graph']} | {row['algorithm']} | {row['mode']} | {row['policy']} | {row['ranks']} "
              f"| {row['seconds'] * 1e3:.2f} | {speedup} | {row['compute_seconds'] * 1e3:.1f} "
              f"| {row['communication_seconds'] * 1e3:.1f} | {row['waiting_seconds'] * 1e3:.1f} "
              f"| {row['bytes_sent'] / 1e6:.2f} | {row['replication_factor']:.2f} "
              f"| {balance['static']:.2f} / {balance['dynamic']:.2f} / {balance['memory']:.2f} | {row['check']} |")


if __name__ == "__main__":
    sys.exit(main())
