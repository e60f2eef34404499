"""Frontier operators: the parallel building blocks every engine and algorithm is made of.

=====================  ==========================================================================
:class:`Frontier`      a set of active vertices: all, sparse (queue) or dense (byte per vertex)
:func:`advance`        push along out-edges, a user function per edge (thread / TWC / edge-balanced)
:func:`pull`           combine a user function over each vertex's in-edges (thread / warp / block)
:func:`segmented_reduce`  combine an array segment by segment (sum / min / max / user function)
:func:`vertex_map`     a user function per vertex; true results form a frontier
:func:`vertex_values`  a user function per vertex, results as an array (aggregators)
:func:`filter`         keep vertices satisfying a predicate, each once (compaction + de-duplication)
=====================  ==========================================================================

Every operator runs on the graph's backend: Numba ``njit`` loops on the CPU, numba-cuda kernels on
a GPU, compiled from the same user function (:mod:`gpugraph.codegen`).
"""

from gpugraph.ops.advance import advance
from gpugraph.ops.frontier import Frontier
from gpugraph.ops.reduce import default_identity, pull, segmented_reduce
from gpugraph.ops.vertex import filter, vertex_map, vertex_values

__all__ = ["Frontier", "advance", "default_identity", "filter", "pull", "segmented_reduce", "vertex_map", "vertex_values"]
