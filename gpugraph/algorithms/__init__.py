"""The algorithm library. Each module has ``run(graph, ...) -> Result`` and ``verify``.

``ALGORITHMS`` maps the names the CLI accepts to their modules.
"""

from gpugraph.algorithms import bfs
from gpugraph.algorithms.result import Result

ALGORITHMS = {"bfs": bfs}

__all__ = ["ALGORITHMS", "Result", "bfs"]
