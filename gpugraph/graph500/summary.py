"""The statistics block the Graph500 reference code prints after its BFS runs.

The reference (graph500 v3, ``src/main.c``: ``get_statistics`` and the printing at the end of
``main``) summarises each per-run series with seven numbers; this module computes them the same
way, so that a block written here can be compared line by line with one of the reference.

Order statistics
    On the values sorted ascending, ``x[0] <= ... <= x[n-1]``, with ``//`` integer division:
    ``min = x[0]``, ``max = x[n-1]``,
    ``firstquartile = (x[(n-1)//4] + x[n//4]) / 2``,
    ``median = (x[(n-1)//2] + x[n//2]) / 2``,
    ``thirdquartile = (x[n-1-(n-1)//4] + x[n-1-n//4]) / 2``.
    The median is the usual one; the quartiles are the mean of the two order statistics around
    rank ``n/4`` counted from either end (for ``n = 64``: ``(x[15] + x[16]) / 2`` and
    ``(x[47] + x[48]) / 2``).
Mean and standard deviation
    ``mean = sum(x) / n``; ``stddev = sqrt(sum((x - mean)**2) / (n - 1))`` (the sample standard
    deviation; NaN for one value, as the reference's 0/0).
TEPS
    The reference does not summarise TEPS directly but the seconds per edge of each run,
    ``s_i = seconds_i / nedge_i``, and inverts: ``min_TEPS = 1/max(s)``,
    ``firstquartile_TEPS = 1/thirdquartile(s)``, ``median_TEPS = 1/median(s)``,
    ``thirdquartile_TEPS = 1/firstquartile(s)``, ``max_TEPS = 1/min(s)``,
    ``harmonic_mean_TEPS = 1/mean(s)`` (the harmonic mean of the per-run TEPS) and
    ``harmonic_stddev_TEPS = stddev(s) / (mean(s)**2 * sqrt(n - 1))``, the standard error of
    the harmonic mean after Norris (1940), "The Standard Errors of the Geometric and Harmonic
    Means and Their Application to Index Numbers". Where an order statistic averages two
    values, its TEPS is the inverse of the mean of two seconds-per-edge values, which is not the
    mean of the two TEPS; this module keeps the reference's way.
Text block
    One ``name: value`` line per field, the value starting at column 32; counts printed as
    integers, edge counts with ``%.11g``, times and rates with ``%g``; the harmonic mean line
    carries the reference's ``!`` marker before its value.
"""

from __future__ import annotations

import math

from gpugraph.errors import InvalidParameterError

#: The order of the keys :func:`statistics` returns (the reference's order of printing).
STATISTICS = ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev")
#: Column where the values of :func:`report` start (the reference's label width).
LABEL_WIDTH = 32


def _checked(values, what: str) -> list[float]:
    """``values`` as a list of floats, raising if it is empty or has a NaN, infinite or negative value."""
    numbers = [float(value) for value in values]
    if not numbers:
        raise InvalidParameterError(f"{what}: no values")
    for index, value in enumerate(numbers):
        if not math.isfinite(value) or value < 0:
            raise InvalidParameterError(f"{what}: value {index} is {value!r}; finite non-negative values are needed")
    return numbers


def statistics(values) -> dict:
    """The reference's seven statistics of one series (module docstring for the formulas).

    Parameters
    ----------
    values:
        The per-run values (times in seconds, edge counts): a non-empty sequence of finite,
        non-negative numbers.

    Returns
    -------
    dict
        ``min``, ``firstquartile``, ``median``, ``thirdquartile``, ``max``, ``mean`` and
        ``stddev`` (floats, in that order). ``stddev`` is the sample standard deviation
        (divisor ``n - 1``), NaN for a single value.

    Raises
    ------
    InvalidParameterError
        If ``values`` is empty or has a NaN, infinite or negative value.
    """
    numbers = _checked(values, "statistics")
    n = len(numbers)
    mean = sum(numbers) / n
    variance = sum((value - mean) ** 2 for value in numbers) / (n - 1) if n > 1 else math.nan
    x = sorted(numbers)
    return {
        "min": x[0],
        "firstquartile": (x[(n - 1) // 4] + x[n // 4]) * 0.5,
        "median": (x[(n - 1) // 2] + x[n // 2]) * 0.5,
        "thirdquartile": (x[n - 1 - (n - 1) // 4] + x[n - 1 - n // 4]) * 0.5,
        "max": x[n - 1],
        "mean": mean,
        "stddev": math.sqrt(variance),
    }


def teps_statistics(nedge, seconds) -> dict:
    """TEPS of each run and the reference's TEPS statistics (module docstring for the formulas).

    Parameters
    ----------
    nedge:
        Edges traversed by each run (the TEPS numerator): positive, finite.
    seconds:
        Time of each run, in the same order: positive, finite.

    Returns
    -------
    dict
        ``teps`` (list: ``nedge / seconds`` of each run, in run order), ``min``,
        ``firstquartile``, ``median``, ``thirdquartile``, ``max`` (order statistics of TEPS as
        the reference computes them, from the seconds per edge), ``harmonic_mean`` (``1 /
        mean(s)`` with ``s = seconds / nedge``) and ``harmonic_stddev`` (``stddev(s) /
        (mean(s)**2 * sqrt(n - 1))``, NaN for a single run).

    Raises
    ------
    InvalidParameterError
        If the sequences are empty or of different lengths, or have a NaN, infinite, negative or
        zero value.
    """
    edges = _checked(nedge, "nedge")
    times = _checked(seconds, "seconds")
    if len(edges) != len(times):
        raise InvalidParameterError(f"{len(edges)} edge counts but {len(times)} times; one of each per run is needed")
    if 0.0 in edges or 0.0 in times:
        raise InvalidParameterError("TEPS needs positive edge counts and times (a zero makes the rate 0 or infinite)")
    per_edge = statistics([time / edge for edge, time in zip(edges, times)])
    n = len(edges)
    harmonic_stddev = per_edge["stddev"] / (per_edge["mean"] ** 2 * math.sqrt(n - 1)) if n > 1 else math.nan
    return {
        "teps": [edge / time for edge, time in zip(edges, times)],
        "min": 1.0 / per_edge["max"],
        "firstquartile": 1.0 / per_edge["thirdquartile"],
        "median": 1.0 / per_edge["median"],
        "thirdquartile": 1.0 / per_edge["firstquartile"],
        "max": 1.0 / per_edge["min"],
        "harmonic_mean": 1.0 / per_edge["mean"],
        "harmonic_stddev": harmonic_stddev,
    }


def _line(label: str, value: str) -> str:
    return f"{label + ':':<{LABEL_WIDTH}}{value}"


def _positive_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParameterError(f"{what} must be a positive integer, got {value!r}")
    return value


def report(
    *,
    scale: int,
    edge_factor: int,
    bfs_seconds,
    nedges,
    construction_seconds: float,
    generation_seconds: float,
    validation_seconds,
    processes: int = 1,
) -> str:
    """The statistics block of the Graph500 reference, as text.

    Lines, in order: ``SCALE``, ``edgefactor``, ``NBFS``, ``graph_generation``,
    ``num_mpi_processes``, ``construction_time``; ``bfs  <stat>_time`` for the seven statistics
    of the BFS times; ``<stat>_nedge`` for those of the edge counts; ``bfs  min_TEPS`` ...
    ``bfs  max_TEPS``, ``bfs  harmonic_mean_TEPS``, ``bfs  harmonic_stddev_TEPS``;
    ``bfs  <stat>_validate`` for the seven statistics of the validation times.

    Parameters
    ----------
    scale:
        log2 of the vertex count (positive).
    edge_factor:
        Edges per vertex of the generated graph (positive).
    bfs_seconds:
        Time of each BFS run (one per root; their count is ``NBFS``).
    nedges:
        Edges traversed by each run, in the same order.
    construction_seconds:
        Time to build the graph data structure (``construction_time``).
    generation_seconds:
        Time to generate the edge list (``graph_generation``).
    validation_seconds:
        Time to validate each run, in the same order.
    processes:
        Processes that ran the benchmark (``num_mpi_processes``).

    Returns
    -------
    str
        The block, one ``name: value`` line per field, ending with a newline.

    Raises
    ------
    InvalidParameterError
        If ``scale``, ``edge_factor`` or ``processes`` is not a positive integer, a time or
        count is NaN, infinite or negative, a BFS time or edge count is zero, or the per-run
        sequences differ in length.
    """
    scale = _positive_int(scale, "scale")
    edge_factor = _positive_int(edge_factor, "edge_factor")
    processes = _positive_int(processes, "processes")
    generation, construction = _checked([generation_seconds, construction_seconds],
                                        "graph generation and construction time")
    times = _checked(bfs_seconds, "bfs_seconds")
    validation = _checked(validation_seconds, "validation_seconds")
    if len(validation) != len(times):
        raise InvalidParameterError(f"{len(times)} BFS times but {len(validation)} validation times")
    teps = teps_statistics(nedges, times)
    lines = [
        _line("SCALE", f"{scale:d}"),
        _line("edgefactor", f"{edge_factor:d}"),
        _line("NBFS", f"{len(times):d}"),
        _line("graph_generation", f"{generation:g}"),
        _line("num_mpi_processes", f"{processes:d}"),
        _line("construction_time", f"{construction:g}"),
    ]
    lines += [_line(f"bfs  {name}_time", f"{value:g}") for name, value in statistics(times).items()]
    lines += [_line(f"{name}_nedge", f"{value:.11g}") for name, value in statistics(nedges).items()]
    lines += [_line(f"bfs  {name}_TEPS", f"{teps[name]:g}") for name in STATISTICS[:5]]
    lines.append(f"{'bfs  harmonic_mean_TEPS:':<{LABEL_WIDTH - 3}}!  {teps['harmonic_mean']:g}")
    lines.append(_line("bfs  harmonic_stddev_TEPS", f"{teps['harmonic_stddev']:g}"))
    lines += [_line(f"bfs  {name}_validate", f"{value:g}") for name, value in statistics(validation).items()]
    return "\n".join(lines) + "\n"
