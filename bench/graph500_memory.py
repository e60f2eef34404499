"""Where a Graph500 construction's GPU memory goes: each process prints CuPy's pool (bytes in
use, bytes held), PyTorch's reserve and the GPU's free bytes before and after each step of the
construction (degrees, threshold table, relabeling, the build's filled rows and its sorted
CSRs, the searcher), then runs two searches. For a construction that runs out of memory: run it with the
scale and GPU count that failed.

    python3 bench/graph500_memory.py --scale 27 --gpus 2      # a machine with 2 GPUs or more

Used in the twentieth session (docs/graph500.md) to find that the pool held 67.5 GiB for 28.5
GiB in use. Needs CuPy and PyTorch (real GPUs).
"""

import argparse
import functools
import time

from gpugraph.distributed.runner import launch


def _process(rank: int, kind: str, scale: int) -> None:
    """One process: the construction's steps wrapped with memory lines, then the harness."""
    import cupy
    import torch

    from gpugraph.backend import get_backend
    from gpugraph.graph500 import bfs, distributor, harness, separation

    pool = cupy.get_default_memory_pool()
    began = time.perf_counter()

    def show(what: str) -> None:
        cupy.cuda.runtime.deviceSynchronize()
        free = cupy.cuda.runtime.memGetInfo()[0]
        print(f"rank {rank} {time.perf_counter() - began:7.2f} s {what:<30} pool used {pool.used_bytes() / 2**30:6.2f} "
              f"held {pool.total_bytes() / 2**30:6.2f} torch {torch.cuda.memory_reserved() / 2**30:5.2f} "
              f"free {free / 2**30:6.2f} GiB", flush=True)

    def traced(owner, name: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            show(f"before {name}")
            result = original(*args, **kwargs)
            show(f"after {name}")
            return result
        setattr(owner, name, wrapper)

    for owner, name in ((separation, "degrees"), (separation, "edge_share_table"), (separation, "by_degree"),
                        (distributor, "_rows_filled"), (distributor, "_sorted_unique_rows"),
                        (distributor, "build"), (bfs.Searcher, "__init__"), (bfs.Searcher, "warm_up")):
        traced(owner, name)
    harness.run_process(bfs.Group(get_backend(f"cuda:{rank}"), distributed=True), scale, roots=2, validate=False)
    show("end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=24, help="the whole graph's scale")
    parser.add_argument("--gpus", type=int, default=1, help="processes, one GPU each")
    args = parser.parse_args()
    launch(_process, args.gpus, "cuda", args.scale)


if __name__ == "__main__":
    main()
