"""Launching Numba kernels and recording what their first launch cost.

The first launch of a Numba kernel compiles it (or loads it from the on-disk cache: every kernel
of gpugraph is declared with ``cache=True``). That time is not run time, so it is measured apart and
kept in a log that benchmarks and ``gpugraph run --verbose`` print.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass


@dataclass
class FirstLaunch:
    """Cost of the first launch of one kernel on one target.

    Attributes
    ----------
    kernel:
        The kernel's Python name.
    target:
        ``"cpu"``, ``"cuda"`` or ``"cudasim"``.
    seconds:
        Wall time of the first launch, compilation (or cache load) included.
    """

    kernel: str
    target: str
    seconds: float


_first_launches: dict[tuple[str, str], FirstLaunch] = {}


def compile_report() -> list[FirstLaunch]:
    """Return the first-launch costs recorded so far in this process, in launch order."""
    return list(_first_launches.values())


def run_cpu_kernel(kernel, *args):
    """Call a Numba ``@njit`` kernel, timing its first call in this process.

    Parameters
    ----------
    kernel:
        A Numba CPU dispatcher.
    *args:
        Its arguments.

    Returns
    -------
    object
        Whatever the kernel returns.
    """
    key = (kernel.__name__, "cpu")
    if key in _first_launches:
        return kernel(*args)
    start = time.perf_counter()
    result = kernel(*args)
    _first_launches[key] = FirstLaunch(kernel.__name__, "cpu", time.perf_counter() - start)
    return result


def launch_cuda_kernel(kernel, backend, items: int, *args) -> None:
    """Launch a numba-cuda kernel with one thread per item on ``backend``'s device.

    The first launch is synchronised and timed so its compile (or cache-load) time is recorded.

    Parameters
    ----------
    kernel:
        A ``numba.cuda.jit`` dispatcher.
    backend:
        The :class:`gpugraph.backend.Backend` whose device runs it.
    items:
        Number of work items; the grid has ``ceil(items / threads_per_block)`` blocks.
    *args:
        Kernel arguments (CuPy arrays, or NumPy arrays under the simulator).
    """
    target = "cudasim" if backend.simulated else "cuda"
    key = (kernel.__name__ if hasattr(kernel, "__name__") else repr(kernel), target)
    config = kernel[backend.blocks_for(items), backend.threads_per_block()]
    with backend.activate():
        if key in _first_launches:
            config(*args)
            return
        start = time.perf_counter()
        config(*args)
        backend.synchronize()
        _first_launches[key] = FirstLaunch(key[0], target, time.perf_counter() - start)


@contextlib.contextmanager
def dynamic_schedule(chunk: int):
    """Within the block, Numba ``prange`` loops hand out iterations to cores ``chunk`` at a time.

    Numba splits a parallel loop into one equal block per core by default; vertex loops over
    power-law graphs then wait for the core that drew the hubs. Setting the chunk size makes the
    cores take chunks from a shared queue instead. (The ``numba.parallel_chunksize`` context inside
    a kernel would do the same but makes the kernel impossible to cache.)
    """
    import numba

    previous = numba.set_parallel_chunksize(chunk)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(previous)
