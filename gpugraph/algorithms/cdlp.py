"""Community detection by label propagation (CDLP), with LDBC Graphalytics' meaning.

Returns
-------
``label``  int64 per vertex: the *original* id (``graph.to_original``) of the vertex whose label
           it carries, as Graphalytics outputs labels in the input's vertex ids.

Semantics
---------
LDBC Graphalytics benchmark specification (Iosup et al., PVLDB 9(13), 2016; spec v1.0, section
"Community Detection using Label Propagation"), after Raghavan, Albert & Kumara, Phys. Rev. E 76,
036106 (2007), made deterministic: every vertex starts with its own id as label; in each
iteration, *synchronously*, every vertex takes the label that occurs most often among its
neighbours, the smallest such label on ties; a vertex without neighbours keeps its label.
Exactly ``max_iterations`` iterations are defined (no convergence test is part of the meaning).

Neighbours are counted with multiplicity: for a directed graph, the in- and out-neighbours
together, so a vertex linked in both directions counts twice; parallel arcs count once each; a
self-loop makes the vertex its own neighbour (twice in a directed graph: once out, once in).
Original ids are sorted like internal ids, so "smallest label" is the same in both.

Algorithm
---------
The neighbour lists (out-list then in-list of each vertex) are laid out once. CPU: one
``prange`` iteration per vertex copies its neighbours' labels into its own slice of a scratch
array, sorts it and takes the longest run. GPU: keys ``vertex * n + label`` of all entries are
sorted at once (``xp.sort``, a radix sort on CuPy), which sorts every vertex's labels in place,
then one thread per vertex scans its slice for the longest run. An iteration that changes no
label would repeat forever, so the loop stops there: the result is still that of
``max_iterations`` iterations (``stats["rounds"]`` says how many ran).

Verification recounts the definition with Python dictionaries (see :func:`verify`).
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from gpugraph import config
from gpugraph.algorithms.result import Result
from gpugraph.backend import to_numpy
from gpugraph.backend.kernels import dynamic_schedule, launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import EmptyGraphError, InvalidParameterError

#: Default number of iterations (Graphalytics sets ``max-iterations`` per dataset; 10 is a
#: common choice in its benchmark configurations).
DEFAULT_MAX_ITERATIONS = 10


def run(graph, max_iterations: int = DEFAULT_MAX_ITERATIONS) -> Result:
    """Run ``max_iterations`` synchronous label-propagation iterations on the graph's backend.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph` (weights are ignored).
    max_iterations:
        Number of iterations (Graphalytics ``max-iterations``), an integer ``>= 0``.

    Returns
    -------
    Result
        ``values``: ``label`` (int64 original ids); ``stats``: ``rounds`` (iterations that ran
        before labels stopped changing), ``converged`` (whether they stopped), ``seconds``.

    Raises
    ------
    EmptyGraphError
        If the graph has no vertices.
    InvalidParameterError
        If ``max_iterations`` is not an integer ``>= 0``.
    """
    n = graph.num_vertices
    if n == 0:
        raise EmptyGraphError("CDLP needs at least one vertex; the graph is empty")
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) or max_iterations < 0:
        raise InvalidParameterError(f"CDLP max_iterations must be an integer >= 0, got {max_iterations!r}")
    backend = graph.backend
    xp = backend.xp
    start = time.perf_counter()
    with backend.activate():
        offsets, neighbours = _neighbour_lists(graph)
        labels = xp.arange(n, dtype=np.int64)
        new_labels = xp.empty(n, dtype=np.int64)
        step = _cuda_step(graph, offsets) if backend.is_cuda else _cpu_step(offsets)
        rounds, changed = 0, 1
        while rounds < max_iterations and changed:
            changed = step(neighbours, labels, new_labels)
            labels, new_labels = new_labels, labels
            rounds += 1
        original = backend.asarray(graph.to_original(labels))
    backend.synchronize()
    seconds = time.perf_counter() - start
    return Result(
        "cdlp",
        graph,
        {"label": original},
        {"rounds": rounds, "converged": not changed, "seconds": seconds},
        {"max_iterations": int(max_iterations)},
    )


def _neighbour_lists(graph):
    """``(offsets, neighbours)``: each vertex's out-neighbours then (directed) in-neighbours."""
    if not graph.directed:
        return graph.indptr, graph.indices
    xp = graph.backend.xp
    n = graph.num_vertices
    out_degree = graph.out_degree()
    offsets = xp.zeros(n + 1, dtype=np.int64)
    offsets[1:] = xp.cumsum(out_degree + graph.in_degree())
    neighbours = xp.empty(int(offsets[-1]), dtype=graph.indices.dtype)
    positions = xp.arange(graph.num_arcs, dtype=np.int64)
    out_owner = xp.searchsorted(graph.indptr, positions, side="right") - 1
    neighbours[offsets[out_owner] + positions - graph.indptr[out_owner]] = graph.indices
    in_owner = xp.searchsorted(graph.in_indptr, positions, side="right") - 1
    in_start = offsets[in_owner] + out_degree[in_owner]
    neighbours[in_start + positions - graph.in_indptr[in_owner]] = graph.in_indices
    return offsets, neighbours


def _cpu_step(offsets):
    from gpugraph.algorithms import _cdlp_cpu

    scratch = np.empty(int(offsets[-1]), dtype=np.int64)

    def step(neighbours, labels, new_labels):
        with dynamic_schedule(config.CPU_CDLP_CHUNK):
            return run_cpu_kernel(_cdlp_cpu.propagate, offsets, neighbours, labels, new_labels, scratch)

    return step


def _cuda_step(graph, offsets):
    from gpugraph.algorithms import _cdlp_cuda

    backend = graph.backend
    xp = backend.xp
    n = graph.num_vertices
    entries = int(offsets[-1])
    owner_base = (xp.searchsorted(offsets, xp.arange(entries, dtype=np.int64), side="right") - 1) * n
    changed = xp.zeros(1, dtype=np.int64)

    def step(neighbours, labels, new_labels):
        sorted_keys = xp.sort(owner_base + labels[neighbours])
        changed[0] = 0
        launch_cuda_kernel(
            _cdlp_cuda.pick_labels, backend, n, offsets, sorted_keys, labels, new_labels, changed
        )
        return int(changed[0])  # the one device->host read per iteration

    return step


def verify(graph, result: Result) -> None:
    """Recount the Graphalytics definition with Python counters and compare.

    Parameters
    ----------
    graph:
        The graph the result was computed on.
    result:
        The :func:`run` result (its ``max_iterations`` parameter is replayed).

    Raises
    ------
    AssertionError
        Naming the first vertices whose labels differ (a test oracle, not input validation).
    """
    n = graph.num_vertices
    src, dst, _ = graph.edges()
    neighbours = [[] for _ in range(n)]
    for u, v in zip(to_numpy(src).tolist(), to_numpy(dst).tolist()):
        neighbours[u].append(v)
        if graph.directed:
            neighbours[v].append(u)
    labels = graph.to_original(np.arange(n)).tolist()
    for _ in range(result.parameters["max_iterations"]):
        updated = list(labels)
        for v in range(n):
            if neighbours[v]:
                counts = Counter(labels[u] for u in neighbours[v])
                updated[v] = min(counts, key=lambda label: (-counts[label], label))
        labels = updated
    got = to_numpy(result["label"])
    differ = np.flatnonzero(got != np.asarray(labels, dtype=np.int64))
    assert differ.size == 0, (
        f"labels of vertices {differ[:5].tolist()} are {got[differ[:5]].tolist()}, "
        f"the definition gives {[labels[v] for v in differ[:5]]}"
    )
