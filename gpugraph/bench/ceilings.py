"""Memory ceilings, measured in the same run as the benchmarks they bound.

``copy_bytes_per_second``
    A large float32 array copied into another: (bytes read + bytes written) / time. On a GPU a
    CuPy device-to-device copy of ``config.BENCH_CUDA_CEILING_BYTES`` (>= 1 GiB, far past L2);
    on the host ``numpy.copyto`` of ``config.BENCH_CPU_CEILING_BYTES`` (one core: NumPy does not
    thread copies, so a multi-core kernel can pass this "ceiling").
``gathers_per_second``
    Random 4-byte reads: ``take`` from an array of the same size with uniformly random int32
    indices (``config.BENCH_*_CEILING_GATHERS`` of them, drawn with a fixed seed), gathers / time.
    This bounds the per-arc random accesses of graph traversals (reading a neighbour's state).

Each is the median of ``config.BENCH_CEILING_TRIALS`` timed runs after a warm-up, timed like the
benchmarks (CUDA events on a GPU). The arrays are freed before returning.
"""

from __future__ import annotations

import numpy as np

from gpugraph import config
from gpugraph.bench.timing import Stopwatch, median


def measure(backend) -> dict:
    """Measure the copy bandwidth and the random-gather rate of ``backend``'s memory.

    Parameters
    ----------
    backend:
        A :class:`gpugraph.backend.Backend` (CuPy on a GPU, NumPy on the host and under the
        CUDA simulator).

    Returns
    -------
    dict
        ``copy_bytes_per_second``, ``gathers_per_second``, the sizes used (``array_bytes``,
        ``gathers``, ``index_dtype``), ``trials``, ``tool`` and ``timer``; or ``{"error": ...}``
        when the arrays cannot be allocated (the benchmarks then go on without fractions).
    """
    on_gpu = backend.is_cuda and not backend.on_host
    size = config.BENCH_CUDA_CEILING_BYTES if on_gpu else config.BENCH_CPU_CEILING_BYTES
    count = config.BENCH_CUDA_CEILING_GATHERS if on_gpu else config.BENCH_CPU_CEILING_GATHERS
    elements = size // 4
    xp = backend.xp
    stopwatch = Stopwatch(backend)
    trials = config.BENCH_CEILING_TRIALS
    try:
        with backend.activate():
            source = xp.ones(elements, dtype=np.float32)
            target = xp.empty_like(source)
            _, copies = stopwatch.repeat(lambda: xp.copyto(target, source), trials)
            del target
            rng = np.random.default_rng(config.BENCH_CEILING_SEED)
            indices = xp.asarray(rng.integers(0, elements, size=count, dtype=np.int32))
            gathered = xp.empty(count, dtype=np.float32)
            _, gathers = stopwatch.repeat(lambda: xp.take(source, indices, out=gathered), trials)
            del source, indices, gathered
    except (MemoryError, RuntimeError) as exc:  # CuPy's OutOfMemoryError is a MemoryError
        return {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        backend.release_cached_memory()
    copy_seconds = median([timing.seconds for timing in copies])
    gather_seconds = median([timing.seconds for timing in gathers])
    return {
        "copy_bytes_per_second": 2 * elements * 4 / copy_seconds if copy_seconds else None,
        "gathers_per_second": count / gather_seconds if gather_seconds else None,
        "array_bytes": elements * 4,
        "gathers": count,
        "index_dtype": "int32",
        "trials": trials,
        "tool": "cupy" if on_gpu else "numpy",
        "timer": stopwatch.name,
    }
