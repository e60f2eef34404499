"""The algorithm library. Each module has ``run(graph, ...) -> Result`` and ``verify``.

:mod:`gpugraph.algorithms.catalog` lists them for the command line; :mod:`gpugraph.api` gives
them top-level names (``gpugraph.bfs``, ``gpugraph.pagerank``, ...) that take original vertex ids.
"""

from gpugraph.algorithms.result import Result

__all__ = ["Result"]
