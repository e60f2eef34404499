"""NetworkX's own test suite, run against the gpugraph backend (tools/networkx_suite.py)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpugraph.nx import FUNCTIONS

REPO = Path(__file__).resolve().parents[2]
# Supported functions NetworkX's own tests never call (they are covered by tests/nx/test_nx_backend.py).
NOT_CALLED_BY_NETWORKX_TESTS = set()


@pytest.mark.slow
def test_networkx_suite_passes_with_the_backend(tmp_path):
    summary_path = tmp_path / "summary.json"
    run = subprocess.run([sys.executable, str(REPO / "tools" / "networkx_suite.py"), "--json", str(summary_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=3600)
    tail = "\n".join(run.stdout.splitlines()[-40:])
    assert run.returncode == 0, f"NetworkX's suite failed with the gpugraph backend:\n{tail}\n{run.stderr[-2000:]}"
    summary = json.loads(summary_path.read_text())
    print(json.dumps(summary, indent=1))
    assert summary["outcomes"].get("failed", 0) == 0 and summary["outcomes"].get("error", 0) == 0
    assert summary["outcomes"].get("xpassed", 0) == 0
    called = set(summary["gpugraph_calls"])
    assert called <= set(FUNCTIONS)
    assert set(FUNCTIONS) - called == NOT_CALLED_BY_NETWORKX_TESTS, tail
