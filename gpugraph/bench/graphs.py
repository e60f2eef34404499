"""The graphs a benchmark runs on: loading, Graph500 roots, SSSP weights, per-root edge counts.

Graph500 conventions (specification 3.0, "Search keys" and "TEPS"): search roots are drawn at
random among the vertices with at least one edge other than a self-loop, with a fixed seed so
that every implementation searches from the same roots; the TEPS numerator of one search is the
number of *input* edges in the traversed component. An undirected graph stores each edge as two
arcs, so that number is half the arcs out of the reached vertices (``m / 2`` in the issue's
words; a self-loop, stored once, counts a half); a directed graph's arcs are its input edges.
"""

from __future__ import annotations

import re
import time

import numpy as np

from gpugraph import config
from gpugraph.backend import to_numpy
from gpugraph.errors import InvalidParameterError

_EXAMPLE = re.compile(r"^example:(rmat(\d+)|grid(\d+)x(\d+))$")
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def load_graph(entry: str, source: str, backend, options: dict | None = None):
    """Load or generate one benchmark graph on ``backend`` and time it.

    Parameters
    ----------
    entry:
        How the benchmark names the graph (``example:rmat18``, a file name).
    source:
        What to load: ``example:rmatS`` (Graph500 RMAT, edge factor 16, seed 0),
        ``example:gridRxC``, or a file path.
    backend:
        A :class:`gpugraph.backend.Backend`.
    options:
        Keywords of :func:`gpugraph.io.load` for files (``format``, ``directed``,
        ``self_loops``, ``duplicates``, ``progress``).

    Returns
    -------
    tuple
        ``(graph, seconds)``.

    Raises
    ------
    InvalidParameterError
        For an unknown ``example:`` name.
    GpugraphError, OSError
        When the file cannot be read.
    """
    from gpugraph.io import generators, load

    start = time.perf_counter()
    match = _EXAMPLE.match(source)
    if match and match.group(2):
        graph = generators.rmat(int(match.group(2)), seed=0, device=backend, name=entry)
    elif match:
        graph = generators.grid(int(match.group(3)), int(match.group(4)), device=backend, name=entry)
    elif source.startswith("example:"):
        raise InvalidParameterError(f"unknown example graph {source!r}: use example:rmatSCALE or example:gridROWSxCOLS")
    else:
        graph = load(source, device=backend, **{key: value for key, value in (options or {}).items() if value is not None})
    backend.synchronize()
    return graph, time.perf_counter() - start


def rmat_scale(entry: str) -> int | None:
    """The Graph500 scale of an ``example:rmatS`` entry, else ``None``."""
    match = _EXAMPLE.match(entry)
    return int(match.group(2)) if match and match.group(2) else None


def arc_sources(graph, start: int, stop: int):
    """Source vertex of the stored arcs ``start..stop-1`` (CSR positions), on the graph's device.

    Returns
    -------
    array
        int64, one per arc.
    """
    xp = graph.backend.xp
    positions = xp.arange(start, stop, dtype=np.int64)
    return xp.searchsorted(graph.indptr, positions, side="right").astype(np.int64) - 1


def graph500_roots(graph, count: int, seed: int = config.BENCH_ROOT_SEED) -> np.ndarray:
    """Draw ``count`` distinct search roots the Graph500 way.

    Parameters
    ----------
    graph:
        The graph (any device).
    count:
        How many roots; fewer when fewer vertices qualify.
    seed:
        Seed of the draw (:data:`config.BENCH_ROOT_SEED` by default).

    Returns
    -------
    numpy.ndarray
        int64 internal ids of vertices with at least one out-arc that is not a self-loop, drawn
        uniformly without replacement; ``[0]`` when no vertex qualifies (and the graph has one).

    Raises
    ------
    InvalidParameterError
        If ``count`` is below 1.
    """
    if count < 1:
        raise InvalidParameterError(f"the number of roots must be at least 1, got {count}")
    xp = graph.backend.xp
    with graph.backend.activate():
        loops = xp.zeros(graph.num_vertices, dtype=np.int64)
        for start in range(0, graph.num_arcs, config.BENCH_CHUNK_ARCS):
            stop = min(graph.num_arcs, start + config.BENCH_CHUNK_ARCS)
            sources = arc_sources(graph, start, stop)
            looped = sources[sources == graph.indices[start:stop]]
            if looped.size:
                loops += xp.bincount(looped, minlength=graph.num_vertices)
        candidates = to_numpy(xp.flatnonzero(graph.out_degree() - loops > 0)).astype(np.int64)
    if candidates.size == 0:
        return np.zeros(min(1, graph.num_vertices), dtype=np.int64)
    rng = np.random.default_rng(seed)
    return rng.choice(candidates, size=min(count, candidates.size), replace=False).astype(np.int64)


def teps_edges(graph, reached_arcs: int) -> float:
    """Graph500 TEPS numerator of one search: input edges in the traversed component.

    Parameters
    ----------
    graph:
        The searched graph.
    reached_arcs:
        Arcs out of the reached vertices (BFS ``stats["edges_traversed"]``).

    Returns
    -------
    float
        ``reached_arcs / 2`` for an undirected graph (each edge is stored twice), else
        ``reached_arcs``.
    """
    return reached_arcs / 2 if not graph.directed else float(reached_arcs)


def reached_arcs(out_degree: np.ndarray, reached) -> int:
    """Arcs out of the reached vertices.

    Parameters
    ----------
    out_degree:
        Host out-degree per vertex.
    reached:
        Boolean mask or array of reached vertex ids.

    Returns
    -------
    int
    """
    reached = np.asarray(reached)
    return int(out_degree[reached].sum(dtype=np.int64))


def with_sssp_weights(graph):
    """The graph with SSSP weights: itself when weighted, else a copy sharing its CSR arrays
    with integer weights drawn in ``config.BENCH_SSSP_WEIGHT_RANGE``.

    Each weight comes from a hash (SplitMix64) of the arc's end points and
    ``config.BENCH_SSSP_WEIGHT_SEED``; an undirected graph hashes the unordered pair, so both
    arcs of an edge weigh the same. Parallel arcs get the same weight. The same graph gives the
    same weights on every device and run.

    Parameters
    ----------
    graph:
        A :class:`gpugraph.Graph`.

    Returns
    -------
    Graph
        Sharing ``indptr``, ``indices`` (and a directed graph's CSC) with ``graph``.
    """
    from gpugraph.graph.graph import Graph

    if graph.is_weighted:
        return graph
    xp = graph.backend.xp
    low, high = config.BENCH_SSSP_WEIGHT_RANGE
    seed = _splitmix64(xp, xp.asarray(np.array([config.BENCH_SSSP_WEIGHT_SEED], dtype=np.uint64)))
    with graph.backend.activate():
        weights = xp.empty(graph.num_arcs, dtype=np.dtype(config.BENCH_SSSP_WEIGHT_DTYPE))
        for start in range(0, graph.num_arcs, config.BENCH_CHUNK_ARCS):
            stop = min(graph.num_arcs, start + config.BENCH_CHUNK_ARCS)
            tails = arc_sources(graph, start, stop).astype(np.uint64)
            heads = graph.indices[start:stop].astype(np.uint64)
            if not graph.directed:
                tails, heads = xp.minimum(tails, heads), xp.maximum(tails, heads)
            key = tails * np.uint64(graph.num_vertices) + heads
            mixed = _splitmix64(xp, key ^ seed)
            weights[start:stop] = (mixed % np.uint64(high - low + 1) + np.uint64(low)).astype(weights.dtype)
    # A directed graph's CSC (built once here) is shared too; weights are read through in_edge_ids.
    in_edges = (graph.in_indptr, graph.in_indices, graph.in_edge_ids) if graph.directed else None
    return Graph(
        graph.indptr, graph.indices, weights, directed=graph.directed, num_edges=graph.num_edges,
        backend=graph.backend, original_ids=graph.original_ids, id_offset=graph.id_offset, name=graph.name,
        in_edges=in_edges,
    )


def _splitmix64(xp, values):
    """SplitMix64's finaliser on a uint64 array (wrap-around arithmetic intended)."""
    with np.errstate(over="ignore"):
        z = values + _GOLDEN_GAMMA
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        return z ^ (z >> np.uint64(31))
