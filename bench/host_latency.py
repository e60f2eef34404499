"""How long the host's small CUDA calls take after the GPU has been idle (one GPU, CuPy).

A one-GPU Graph500 search spends ~0.2 ms of its ~1.15 ms on the host (docs/graph500.md): the
root's copy to the device, the CUDA graph's launch, the counters' read. This times each of those
calls alone, back to back and after the host slept 0.1 / 1 / 10 ms with the GPU idle, so that a
cost of waking the GPU (or the driver) can be told from the call's own.

    python3 bench/host_latency.py            # on the device machine; prints a table (us)
"""

from __future__ import annotations

import statistics
import sys
import time

import cupy
import cupyx
import numpy as np

REPEAT = 200
IDLE_MS = (0.0, 0.1, 1.0, 10.0)


def timed(call, idle_ms: float, spin: bool) -> float:
    """Median microseconds of ``call`` after ``idle_ms`` of idle GPU (the host spinning or asleep)."""
    times = []
    for _ in range(REPEAT if idle_ms < 10 else REPEAT // 4):
        cupy.cuda.Device().synchronize()
        if spin:
            until = time.perf_counter() + idle_ms / 1e3
            while time.perf_counter() < until:
                pass
        elif idle_ms:
            time.sleep(idle_ms / 1e3)
        began = time.perf_counter()
        call()
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1e6


def main() -> int:
    host_root = cupyx.empty_pinned(3, dtype=np.int64)
    root_cells = cupy.zeros(3, dtype=np.int64)
    counts = cupy.zeros(512, dtype=np.int64)
    pinned_counts = cupyx.empty_pinned(512, dtype=np.int64)
    kernel = cupy.RawKernel('extern "C" __global__ void touch(long long* cells) { cells[0] += 1; }', "touch")
    stream = cupy.cuda.Stream()
    with stream:  # a graph of 100 tiny kernels, as a search's batch of levels is a graph of ~100-200
        stream.begin_capture()
        for _ in range(100):
            kernel((1,), (1,), (counts,))
        graph = stream.end_capture()
    calls = {
        "root set (pinned, 24 B)": lambda: root_cells.set(host_root),
        "root set + sync": lambda: (root_cells.set(host_root), cupy.cuda.Device().synchronize()),
        "one kernel + sync": lambda: (kernel((1,), (1,), (counts,)), cupy.cuda.Device().synchronize()),
        "graph launch (100 kernels)": lambda: graph.launch(stream),
        "graph launch + sync": lambda: (graph.launch(stream), stream.synchronize()),
        "counts get (pinned, 4 KiB)": lambda: counts.get(out=pinned_counts),
        "np.int64 x3 into pinned": lambda: host_root.__setitem__(slice(None), (1, 2, 3)),
    }
    print("| call | host | " + " | ".join(f"after {idle:g} ms idle (us)" for idle in IDLE_MS) + " |")
    print("|---|---|" + "---:|" * len(IDLE_MS))
    for name, call in calls.items():
        for _ in range(20):
            call()
        for spin in (False, True):
            print(f"| {name} | {'spinning' if spin else 'asleep'} | "
                  + " | ".join(f"{timed(call, idle, spin):.1f}" for idle in IDLE_MS) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
