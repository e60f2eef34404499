"""DiGraph's path-based asynchronous engine (Zhang et al., ASPLOS 2019).

:func:`solve` runs PageRank, adsorption, SSSP or k-core with the ``path`` schedule or one of the
baselines it is measured against (:mod:`gpugraph.engines.path.engine`); users' own
accumulative (:func:`accumulative`: ``x = base + A x``) and monotone-minimum (:func:`minimum`)
programs run the same way. The layers:
:mod:`.partition` (Algorithm 1: edge-disjoint hot/cold paths), :mod:`.dependency` (path
dependency graph, SCCs, DAG sketch, layers), :mod:`.layout` (E_Idx / PTable in dispatch order,
chunks), :mod:`.programs` (the algorithms as SUM / MIN / PEEL updates) and the round kernels
(:mod:`._rounds_cpu`, :mod:`._rounds_cuda`). docs/path-engine.md describes the design and its
measurements.
"""

from gpugraph.engines.path.engine import SCHEDULES, solve
from gpugraph.engines.path.programs import PathProgram, accumulative, minimum

__all__ = ["SCHEDULES", "PathProgram", "accumulative", "minimum", "solve"]
