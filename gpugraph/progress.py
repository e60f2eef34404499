"""A small progress bar for long loads and generations.

It stays silent for the first :data:`gpugraph.config.PROGRESS_DELAY_SECONDS`, so quick work prints
nothing, and draws on stderr only when stderr is a terminal or ``force=True`` is given.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from gpugraph import config


class Progress:
    """Report progress of a task of known (or unknown) total size.

    Parameters
    ----------
    description:
        Short label printed before the bar, e.g. ``"reading cnr-2000.txt.gz"``.
    total:
        Total amount of work in ``unit`` (bytes, edges...), or ``None`` if unknown.
    unit:
        Name of the unit shown after the counts.
    enabled:
        ``None`` (default): draw only when stderr is a terminal. ``True``/``False`` force it.
    stream:
        Where to draw; stderr by default.

    Use it as a context manager and call :meth:`update` with the amount done since the last call.
    """

    def __init__(
        self,
        description: str,
        total: float | None = None,
        unit: str = "B",
        enabled: bool | None = None,
        stream: TextIO | None = None,
    ):
        self.description = description
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self.done = 0.0
        self._start = time.perf_counter()
        self._last_draw = 0.0
        self._drawn = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(success=exc_type is None)

    def update(self, amount: float) -> None:
        """Add ``amount`` units of finished work and redraw if it is time to."""
        self.done += amount
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._start < config.PROGRESS_DELAY_SECONDS:
            return
        if now - self._last_draw < config.PROGRESS_REFRESH_SECONDS:
            return
        self._last_draw = now
        self._draw(now)

    def close(self, success: bool = True) -> None:
        """Finish the bar (a final line is printed only if the bar was ever drawn)."""
        if self._drawn:
            if success:
                self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, now: float) -> None:
        elapsed = now - self._start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        if self.total:
            fraction = min(self.done / self.total, 1.0)
            width = 30
            filled = int(fraction * width)
            bar = "#" * filled + "-" * (width - filled)
            text = (
                f"\r{self.description} [{bar}] {fraction:6.1%} "
                f"{_human(self.done)}/{_human(self.total)}{self.unit} {_human(rate)}{self.unit}/s"
            )
        else:
            text = f"\r{self.description} {_human(self.done)}{self.unit} {_human(rate)}{self.unit}/s"
        self.stream.write(text)
        self.stream.flush()
        self._drawn = True


def _human(value: float) -> str:
    for suffix in ("", "k", "M", "G", "T"):
        if abs(value) < 1000:
            return f"{value:.1f}{suffix}" if suffix else f"{value:.0f}"
        value /= 1000
    return f"{value:.1f}P"
