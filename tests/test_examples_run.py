"""Every script in examples/ with a ``__main__`` entry runs from the command line on the CPU.

Each runs as a subprocess (``GPUGRAPH_DEVICE=cpu``) in a temporary folder, on a tiny input, and
must exit 0. A new example needs its tiny arguments in :data:`ARGUMENTS`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
TINY_SNAP = EXAMPLES / "data" / "tiny-snap.txt"
PLOT = "top.png"
#: Command-line arguments of each example: the small SNAP file where it takes a graph.
ARGUMENTS = {
    "emv_bfs.py": [str(TINY_SNAP)],
    "emv_matching.py": [],  # builds its own bipartite graph (10,000 vertices, 20,000 edges)
    "emv_pagerank.py": [str(TINY_SNAP)],
    "emv_sssp.py": [str(TINY_SNAP)],
    "gas_pagerank.py": [str(TINY_SNAP)],
    "snap_top_pagerank.py": [str(TINY_SNAP), "--top", "10", "--out", PLOT],
}
SCRIPTS = sorted(
    path.name for path in EXAMPLES.glob("*.py")
    if not path.name.startswith("_") and 'if __name__ == "__main__"' in path.read_text()
)
#: Seconds one example may take (a cold kernel cache compiles everything first).
TIMEOUT = 600


def run_example(name: str, folder: Path) -> subprocess.CompletedProcess:
    """Run ``examples/name`` with its :data:`ARGUMENTS` in ``folder`` on the CPU."""
    environment = {**os.environ, "GPUGRAPH_DEVICE": "cpu", "MPLBACKEND": "Agg"}
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *ARGUMENTS[name]],
        cwd=folder, env=environment, capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )


def test_examples_are_found():
    assert "snap_top_pagerank.py" in SCRIPTS and "emv_pagerank.py" in SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_example_runs(name, tmp_path):
    assert name in ARGUMENTS, f"give examples/{name} tiny arguments in ARGUMENTS of {Path(__file__).name}"
    completed = run_example(name, tmp_path)
    assert completed.returncode == 0, (
        f"examples/{name} exited {completed.returncode}\n--- stdout\n{completed.stdout}\n--- stderr\n{completed.stderr}"
    )
    if name == "snap_top_pagerank.py":
        assert (tmp_path / PLOT).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "agree: yes" in completed.stdout
        first = next(line.split() for line in completed.stdout.splitlines() if line.split()[:1] == ["1"])
        assert first[1] == "225"  # the top vertex of tiny-snap.txt, in the file's ids


def test_snap_example_fails_on_a_bad_file(tmp_path):
    """A malformed input ends the example with gpugraph's error naming the file and line."""
    (tmp_path / "broken.txt").write_text("# FromNodeId\tToNodeId\n1\t2\n2\tx\n")
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / "snap_top_pagerank.py"), "broken.txt", "--out", PLOT],
        cwd=tmp_path, env={**os.environ, "GPUGRAPH_DEVICE": "cpu"}, capture_output=True, text=True, timeout=TIMEOUT,
        check=False,
    )
    assert completed.returncode == 1 and "broken.txt:3" in completed.stderr and "Traceback" not in completed.stderr
    assert not (tmp_path / PLOT).exists()
