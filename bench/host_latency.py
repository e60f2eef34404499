"""How long the host's small CUDA calls take after the GPU has been idle (one GPU, CuPy).

A one-GPU Graph500 search spends ~0.2 ms of its ~1.15 ms on the host (docs/graph500.md): the
root's copy to the device, the CUDA graph's launch, the counters' read. This times each of those
calls alone, back to back and after 0.1 / 1 / 10 ms of idle GPU with the host thread either
asleep (``time.sleep``) or spinning, so that the cost of waking the host's core can be told from
that of waking the GPU (or the driver) and from the call's own. Measured: docs/graph500.md,
"Twelfth session".

    python3 bench/host_latency.py            # on the device machine; prints a table (us)
    python3 bench/host_latency.py --schedule spin   # the primary context set to spin-wait first

It also prints the context's scheduling flags (``cuCtxGetFlags``: 0 auto, 1 spin, 2 yield, 4
blocking sync) and how long a few host steps take right after the host waited ~1 ms for a
kernel (cold after the wait) against the same steps at once again (hot).
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import time

import numpy as np

REPEAT = 200
IDLE_MS = (0.0, 0.1, 1.0, 10.0)
#: cuCtxGetFlags / cuDevicePrimaryCtxSetFlags scheduling values.
SCHEDULES = {"auto": 0, "spin": 1, "yield": 2, "blocking": 4}


def context_flags(driver) -> int:
    """The current context's flags (``cuCtxGetFlags``)."""
    flags = ctypes.c_uint(0)
    driver.cuCtxGetFlags(ctypes.byref(flags))
    return flags.value


def after_wait(stream, busy, counts) -> tuple:
    """Microseconds of a few host steps (numpy scalar reads, a small dict) right after a ~1 ms
    kernel's wait, and of the same steps at once again: (cold, hot) medians."""
    def steps():
        total = 0
        for index in range(30):
            total += int(counts[index])
        return {str(index): index for index in range(16)}, total

    cold, hot = [], []
    for _ in range(50):
        busy((1,), (1,), (np.int64(1_000_000),), stream=stream)
        stream.synchronize()
        began = time.perf_counter()
        steps()
        middle = time.perf_counter()
        steps()
        cold.append(middle - began)
        hot.append(time.perf_counter() - middle)
    return statistics.median(cold) * 1e6, statistics.median(hot) * 1e6


def timed(call, idle_ms: float, spin: bool) -> float:
    """Median microseconds of ``call`` after ``idle_ms`` of idle GPU (the host spinning or asleep)."""
    import cupy

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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedule", choices=sorted(SCHEDULES), default=None,
                        help="set the primary context's scheduling flag before CuPy starts (default: leave it)")
    args = parser.parse_args()
    driver = ctypes.CDLL("libcuda.so.1")
    if args.schedule is not None:
        driver.cuInit(0)
        device = ctypes.c_int(0)
        driver.cuDeviceGet(ctypes.byref(device), 0)
        result = driver.cuDevicePrimaryCtxSetFlags(device, SCHEDULES[args.schedule])
        print(f"cuDevicePrimaryCtxSetFlags({args.schedule}) -> {result}")
    import cupy
    import cupyx

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
    busy = cupy.RawKernel(
        'extern "C" __global__ void busy(long long ns) { unsigned long long start, now;'
        ' asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));'
        ' do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns); }', "busy")
    print(f"context flags: {context_flags(driver)}")
    cold, hot = after_wait(stream, busy, cupyx.empty_pinned(64, dtype=np.int64))
    print(f"host steps right after a 1 ms wait: {cold:.1f} us; again at once: {hot:.1f} us")
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
