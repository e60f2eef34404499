"""Run NetworkX's own test suite against the gpugraph backend and summarise it.

Every dispatchable call NetworkX's tests make goes to gpugraph when ``can_run`` accepts it (the
graph converted afresh each time), else to NetworkX itself (``NETWORKX_FALLBACK_TO_NX``); tests
of deliberate differences run as expected failures (``gpugraph.nx.interface.KNOWN_DIFFERENCES``).

Usage::

    python tools/networkx_suite.py [--json summary.json] [pytest arguments, e.g. a subpackage]

Pytest arguments replace the default target ``--pyargs networkx``: to pass options only, repeat
it (``-x --pyargs networkx``), else pytest collects this repository's own tests.

Prints pytest's own summary line, then how many calls each gpugraph function answered, and
exits with pytest's exit code.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import os
import sys


class _BackendCalls(logging.Handler):
    """Counts NetworkX's "Using backend 'gpugraph' for call to NAME" debug records."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.calls = collections.Counter()

    def emit(self, record):
        if record.msg.startswith("Using backend '%s' for call to '%s'") and record.args[0] == "gpugraph":
            self.calls[record.args[1]] += 1


class _Outcomes:
    """pytest plugin: counts of passed / failed / xfailed / skipped tests."""

    def __init__(self):
        self.counts = collections.Counter()

    def pytest_runtest_logreport(self, report):
        if hasattr(report, "wasxfail"):
            self.counts["xfailed" if report.skipped else "xpassed"] += 1
        elif report.when == "call":
            self.counts[report.outcome] += 1
        elif report.outcome != "passed":  # set-up or tear-down
            self.counts["skipped" if report.skipped else "error"] += 1


def main(argv=None) -> int:
    """Run the suite; return pytest's exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the counts here")
    options, pytest_args = parser.parse_known_args(argv)
    os.environ["NETWORKX_TEST_BACKEND"] = "gpugraph"
    os.environ["NETWORKX_FALLBACK_TO_NX"] = "True"
    import pytest

    calls = _BackendCalls()
    logger = logging.getLogger("networkx")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(calls)
    outcomes = _Outcomes()
    targets = pytest_args or ["--pyargs", "networkx"]
    code = int(pytest.main(["-q", "-p", "no:cacheprovider", *targets], plugins=[outcomes]))
    summary = {"exit_code": code, "outcomes": dict(outcomes.counts), "gpugraph_calls": dict(sorted(calls.calls.items()))}
    print("outcomes:", ", ".join(f"{k} {v}" for k, v in sorted(outcomes.counts.items())))
    print("calls answered by gpugraph:", sum(calls.calls.values()))
    for name, count in summary["gpugraph_calls"].items():
        print(f"  {name:40s} {count}")
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(summary, handle, indent=1)
    return code


if __name__ == "__main__":
    sys.exit(main())
