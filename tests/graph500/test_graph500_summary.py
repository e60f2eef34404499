"""The Graph500 statistics block: statistics, TEPS statistics and the report text."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpugraph.errors import InvalidParameterError
from gpugraph.graph500.summary import LABEL_WIDTH, STATISTICS, report, statistics, teps_statistics

#: The field names of the reference's block, in its order.
FIELDS = (
    ["SCALE", "edgefactor", "NBFS", "graph_generation", "num_mpi_processes", "construction_time"]
    + [f"bfs  {name}_time" for name in STATISTICS]
    + [f"{name}_nedge" for name in STATISTICS]
    + [f"bfs  {name}_TEPS" for name in STATISTICS[:5]]
    + ["bfs  harmonic_mean_TEPS", "bfs  harmonic_stddev_TEPS"]
    + [f"bfs  {name}_validate" for name in STATISTICS]
)


def test_statistics_by_hand_even_count():
    # Sorted: 1 2 3 4 5 6 7 8; n = 8: quartiles (x[1]+x[2])/2 and (x[5]+x[6])/2.
    result = statistics([8, 3, 1, 7, 2, 6, 5, 4])
    assert list(result) == list(STATISTICS)
    assert result["min"] == 1.0
    assert result["firstquartile"] == 2.5
    assert result["median"] == 4.5
    assert result["thirdquartile"] == 6.5
    assert result["max"] == 8.0
    assert result["mean"] == 4.5
    assert result["stddev"] == pytest.approx(math.sqrt(42 / 7))


def test_statistics_by_hand_odd_counts():
    # n = 5, sorted 10 20 30 40 50: quartiles x[1] and x[3] (both indices agree).
    five = statistics([50, 10, 40, 20, 30])
    assert (five["firstquartile"], five["median"], five["thirdquartile"]) == (20.0, 30.0, 40.0)
    # n = 7, sorted 1..7: (x[1]+x[1])/2 and (x[5]+x[5])/2.
    seven = statistics([7, 6, 5, 4, 3, 2, 1])
    assert (seven["firstquartile"], seven["median"], seven["thirdquartile"]) == (2.0, 4.0, 6.0)
    # n = 6, sorted 1..6: (x[1]+x[1])/2, (x[2]+x[3])/2, (x[4]+x[4])/2.
    six = statistics([1, 2, 3, 4, 5, 6])
    assert (six["firstquartile"], six["median"], six["thirdquartile"]) == (2.0, 3.5, 5.0)


def test_statistics_single_value():
    result = statistics([2.5])
    assert all(result[name] == 2.5 for name in STATISTICS[:6])
    assert math.isnan(result["stddev"])


def test_statistics_against_numpy():
    values = np.random.default_rng(7).exponential(size=64)
    result = statistics(values)
    ordered = np.sort(values)
    assert result["min"] == values.min()
    assert result["max"] == values.max()
    assert result["median"] == pytest.approx(np.median(values))
    assert result["mean"] == pytest.approx(values.mean())
    assert result["stddev"] == pytest.approx(values.std(ddof=1))
    # For n = 64 the quartiles are the midpoints of x[15], x[16] and of x[47], x[48].
    assert result["firstquartile"] == pytest.approx((ordered[15] + ordered[16]) / 2)
    assert result["thirdquartile"] == pytest.approx((ordered[47] + ordered[48]) / 2)
    # numpy's "midpoint" percentile agrees when n/4 is a whole number of steps from each end.
    assert result["firstquartile"] == pytest.approx(np.percentile(values, 100 * 15.5 / 63, method="midpoint"))


def test_teps_statistics_against_direct_formulas():
    rng = np.random.default_rng(3)
    nedge = rng.integers(1_000, 100_000, size=64).astype(float)
    seconds = rng.uniform(0.01, 0.5, size=64)
    result = teps_statistics(nedge, seconds)
    teps = nedge / seconds
    assert result["teps"] == pytest.approx(list(teps))
    n = len(teps)
    harmonic = n / np.sum(1 / teps)
    assert result["harmonic_mean"] == pytest.approx(harmonic)
    inverse = 1 / teps
    stderr = np.sqrt(np.sum((inverse - inverse.mean()) ** 2) / (n - 1)) / (inverse.mean() ** 2 * np.sqrt(n - 1))
    assert result["harmonic_stddev"] == pytest.approx(stderr)
    assert result["min"] == pytest.approx(teps.min())
    assert result["max"] == pytest.approx(teps.max())
    assert result["min"] <= result["firstquartile"] <= result["median"] <= result["thirdquartile"] <= result["max"]


def test_teps_quartiles_invert_seconds_per_edge():
    # Seconds per edge 1, 2, 3, 4: median 2.5 -> median TEPS 1/2.5, not the mean of 1/2 and 1/3.
    result = teps_statistics([1, 1, 1, 1], [4, 1, 3, 2])
    assert result["median"] == pytest.approx(1 / 2.5)
    assert result["firstquartile"] == pytest.approx(1 / 3.5)
    assert result["thirdquartile"] == pytest.approx(1 / 1.5)
    assert result["harmonic_mean"] == pytest.approx(1 / 2.5)
    assert result["harmonic_stddev"] == pytest.approx(math.sqrt(5 / 3) / (2.5**2 * math.sqrt(3)))


def test_teps_single_run_has_no_stddev():
    result = teps_statistics([10], [2])
    assert result["harmonic_mean"] == 5.0
    assert math.isnan(result["harmonic_stddev"])


def _report(**overrides):
    arguments = {
        "scale": 10,
        "edge_factor": 16,
        "bfs_seconds": [0.5, 0.25, 0.125, 1.0],
        "nedges": [16384, 16000, 12345678901, 20000],
        "construction_seconds": 1.5,
        "generation_seconds": 2.25,
        "validation_seconds": [0.1, 0.2, 0.3, 0.4],
    }
    arguments.update(overrides)
    return report(**arguments)


def test_report_has_every_field_in_order():
    lines = _report(processes=4).splitlines()
    assert [line.split(":")[0] for line in lines] == FIELDS
    assert lines[0] == "SCALE:" + " " * 26 + "10"
    assert lines[2].endswith(" 4") and lines[4].endswith(" 4")
    values = [line[LABEL_WIDTH:] for line in lines]
    assert values[FIELDS.index("graph_generation")] == "2.25"
    assert values[FIELDS.index("max_nedge")] == "12345678901"
    harmonic = lines[FIELDS.index("bfs  harmonic_mean_TEPS")]
    assert harmonic[LABEL_WIDTH - 3 : LABEL_WIDTH] == "!  "


def test_report_values_match_statistics():
    lines = _report().splitlines()
    values = dict((line.split(":")[0], line[LABEL_WIDTH:].strip(" !")) for line in lines)
    times = statistics([0.5, 0.25, 0.125, 1.0])
    assert values["bfs  median_time"] == f"{times['median']:g}"
    teps = teps_statistics([16384, 16000, 12345678901, 20000], [0.5, 0.25, 0.125, 1.0])
    assert values["bfs  harmonic_mean_TEPS"] == f"{teps['harmonic_mean']:g}"
    assert values["bfs  harmonic_stddev_TEPS"] == f"{teps['harmonic_stddev']:g}"
    assert values["bfs  max_validate"] == "0.4"
    assert values["num_mpi_processes"] == "1"


@pytest.mark.parametrize("values", [[], [1.0, -0.5], [1.0, math.nan], [math.inf]])
def test_statistics_rejects_bad_values(values):
    with pytest.raises(InvalidParameterError):
        statistics(values)


@pytest.mark.parametrize(
    ("nedge", "seconds"),
    [([], []), ([1, 2], [1.0]), ([1, 0], [1.0, 1.0]), ([1, 2], [1.0, 0.0]), ([1, 2], [1.0, math.nan]), ([-1], [1.0])],
)
def test_teps_statistics_rejects_bad_values(nedge, seconds):
    with pytest.raises(InvalidParameterError):
        teps_statistics(nedge, seconds)


@pytest.mark.parametrize(
    "overrides",
    [
        {"scale": 0},
        {"edge_factor": 2.5},
        {"processes": True},
        {"generation_seconds": -1.0},
        {"construction_seconds": math.nan},
        {"validation_seconds": [0.1, 0.2]},
        {"validation_seconds": [0.1, 0.2, -0.3, 0.4]},
        {"bfs_seconds": []},
    ],
)
def test_report_rejects_bad_arguments(overrides):
    with pytest.raises(InvalidParameterError):
        _report(**overrides)
