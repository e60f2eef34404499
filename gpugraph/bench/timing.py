"""How one benchmark call is timed: CUDA events on a GPU, ``perf_counter`` on the host.

On a real GPU each call is bracketed by two CUDA events recorded on the current stream and the
end event is waited for, so the time is the device's own (kernels queued by the call included);
the host wall time is kept beside it. CuPy is imported only on that path. On the CPU (and under
the CUDA simulator, whose arrays live in host memory) the time is the wall time of the call.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass


@dataclass
class Timing:
    """One timed call.

    Attributes
    ----------
    seconds:
        The measured time (CUDA events on a GPU, wall time on the host).
    wall_seconds:
        Host wall time of the call, synchronised.
    result:
        What the call returned.
    """

    seconds: float
    wall_seconds: float
    result: object


class Stopwatch:
    """Times calls on one backend.

    Parameters
    ----------
    backend:
        The :class:`gpugraph.backend.Backend` the timed work runs on.
    """

    def __init__(self, backend):
        self.backend = backend
        self.uses_events = backend.is_cuda and not backend.on_host

    @property
    def name(self) -> str:
        """``"cuda-events"`` or ``"perf_counter"``: what :attr:`Timing.seconds` measures."""
        return "cuda-events" if self.uses_events else "perf_counter"

    def time(self, function) -> Timing:
        """Call ``function()`` once and time it.

        Parameters
        ----------
        function:
            A callable without arguments.

        Returns
        -------
        Timing
        """
        if not self.uses_events:
            start = time.perf_counter()
            result = function()
            wall = time.perf_counter() - start
            return Timing(wall, wall, result)
        import cupy

        with self.backend.activate():
            begin, end = cupy.cuda.Event(), cupy.cuda.Event()
            start = time.perf_counter()
            begin.record()
            result = function()
            end.record()
            end.synchronize()
            wall = time.perf_counter() - start
            return Timing(cupy.cuda.get_elapsed_time(begin, end) / 1e3, wall, result)

    def repeat(self, function, trials: int) -> tuple[Timing, list[Timing]]:
        """One warm-up call, then ``trials`` timed calls.

        Parameters
        ----------
        function:
            A callable without arguments.
        trials:
            Number of timed calls after the warm-up.

        Returns
        -------
        tuple
            ``(warm-up Timing, list of trial Timings)``.
        """
        warm = self.time(function)
        return warm, [self.time(function) for _ in range(trials)]


def median(values: list[float]) -> float | None:
    """Median of ``values``, ``None`` when empty."""
    return statistics.median(values) if values else None
