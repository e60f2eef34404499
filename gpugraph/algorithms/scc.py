"""Strongly connected components (SCC): which component every vertex is in, along arcs.

Returns
-------
``component``  int64 per vertex: the smallest internal vertex id of its SCC, so two vertices
               share a label exactly when each reaches the other along arcs. A vertex on no
               cycle is its own component (a self-loop changes nothing).

Semantics
---------
``scipy.sparse.csgraph.connected_components(connection="strong")`` and NetworkX's
``strongly_connected_components``, with labels made canonical: the minimum vertex id of each
component. Weights and parallel arcs make no difference. An undirected graph's edges go both
ways, so its SCCs are its connected components.

Algorithm
---------
CPU: Tarjan's algorithm (SIAM J. Comput. 1(2), 1972), serial and O(n + m), with an explicit
call stack so that deep graphs (road networks) do not overflow a recursion limit.

GPU: trimming plus the coloring algorithm (Orzan, PhD thesis, TU Eindhoven 2004; Slota,
Rajamanickam & Madduri, "BFS and coloring-based parallel algorithms for strongly connected
components and related problems", IPDPS 2014). Each round first *trims* repeatedly: an active
vertex with no active in- or out-neighbour is a component by itself. Then every active vertex
takes its own id as color and colors spread forward along active arcs by atomic minimum until
stable, so a vertex's color is the smallest id among the active vertices that reach it. A vertex
whose color is its own id is a *root*; the vertices of the root's color that reach it, found by a
backward traversal inside that color, are exactly its SCC, and the root (the smallest id that
reaches any of them) is its smallest member. Those SCCs leave the active set and the round
repeats. Each traversal is level-synchronous with per-vertex change flags. On an undirected
graph the GPU runs the weakly-connected-components kernels of :mod:`gpugraph.algorithms.wcc`.

``stats``: ``rounds`` (CPU: 1; GPU: coloring rounds), ``components``, ``seconds``.

Verification compares with SciPy (see :func:`verify`).
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph.algorithms import wcc
from gpugraph.algorithms.result import Result
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import EmptyGraphError


def run(graph) -> Result:
    """Label every vertex with the minimum vertex id of its strongly connected component.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph` (weights are ignored).

    Returns
    -------
    Result
        ``values``: ``component`` (int64); ``stats``: ``rounds``, ``components``, ``seconds``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("SCC needs at least one vertex; the graph is empty")
    backend = graph.backend
    xp = backend.xp
    start = time.perf_counter()
    if backend.is_cuda and not graph.directed:
        undirected = wcc.run(graph)
        component, rounds = undirected["component"], undirected.stats["rounds"]
    else:
        with backend.activate():
            component = xp.full(n, -1, dtype=np.int64)
            if backend.is_cuda:
                rounds = _coloring(graph, component)
            else:
                from gpugraph.algorithms import _scc_cpu

                run_cpu_kernel(_scc_cpu.tarjan, graph.indptr, graph.indices, component)
                rounds = 1
    with backend.activate():
        components = int(xp.count_nonzero(component == xp.arange(n, dtype=np.int64)))
    backend.synchronize()
    return Result(
        "scc",
        graph,
        {"component": component},
        {"rounds": int(rounds), "components": components, "seconds": time.perf_counter() - start},
        {},
    )


def _coloring(graph, component) -> int:
    """Trimming and coloring rounds on a CUDA backend (module docstring); returns the rounds."""
    from gpugraph.algorithms import _scc_cuda

    backend = graph.backend
    xp = backend.xp
    n = graph.num_vertices
    out_arrays = (graph.indptr, graph.indices)
    in_arrays = (graph.in_indptr, graph.in_indices)
    identity = xp.arange(n, dtype=np.int64)
    active = xp.ones(n, dtype=np.uint8)
    flags, next_flags = xp.empty(n, dtype=np.uint8), xp.empty(n, dtype=np.uint8)
    any_change = xp.zeros(1, dtype=np.int64)

    def until_stable(kernel, *args):
        """Launch ``kernel(*args, flags, next_flags, any_change)`` (flags swapped between launches)
        until a launch flags nothing; ``flags`` must hold the first launch's input."""
        nonlocal flags, next_flags
        while True:
            any_change[0] = 0
            next_flags.fill(0)
            launch_cuda_kernel(kernel, backend, n, *args, flags, next_flags, any_change)
            flags, next_flags = next_flags, flags
            if not int(any_change[0]):
                return

    rounds = 0
    while True:
        any_change[0] = 1
        while int(any_change[0]):
            any_change[0] = 0
            launch_cuda_kernel(_scc_cuda.trim, backend, n, *out_arrays, *in_arrays, active, component, any_change)
        live = active.astype(bool)
        if not bool(live.any()):
            return rounds
        color = identity.copy()
        flags[...] = active
        until_stable(_scc_cuda.push_colors, *out_arrays, active, color)
        roots = live & (color == identity)
        in_component = roots.astype(np.uint8)
        flags[...] = in_component
        until_stable(_scc_cuda.claim_backward, *in_arrays, active, color, in_component)
        claimed = in_component.astype(bool)
        component[claimed] = color[claimed]
        active[claimed] = 0
        rounds += 1


def verify(graph, result: Result) -> None:
    """Check an SCC result against ``scipy.sparse.csgraph.connected_components(connection="strong")``
    with each component labelled by its smallest vertex id.

    Parameters
    ----------
    graph:
        The graph the result was computed on.
    result:
        The :func:`run` result.

    Raises
    ------
    AssertionError
        Naming the first vertices whose labels differ (a test oracle, not input validation).
    """
    wcc.compare_components(graph, result, "strong")
