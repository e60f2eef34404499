"""Synthetic graphs: Graph500 Kronecker (RMAT), uniform random G(n, m), and 2-D grids.

Returns
    ``rmat_edges`` / ``gnm_edges`` / ``grid_edges`` return an :class:`EdgeList` whose arrays live on
    the requested device (NumPy on the CPU and under the CUDA simulator, CuPy on a GPU); ``rmat`` /
    ``gnm`` / ``grid`` build a :class:`Graph` from it with
    :func:`gpugraph.graph.build.from_edge_list`. Vertex ids are int32 while the vertex count fits
    (``config.INT32_VERTEX_LIMIT``), int64 beyond, as in :class:`Graph`.
Determinism
    The same arguments give bit-identical edges on every run, on any number of threads, on the
    CPU, on a GPU and in the CUDA simulator: all randomness is counter-based
    (:mod:`gpugraph.io._generator_kernels`) and the same scalar code is compiled for both
    targets. Seeds are taken modulo 2^64. NumPy's and CuPy's random streams are never used.
Algorithm (RMAT)
    Graph500 Kronecker generator (Chakrabarti, Zhan, Faloutsos, "R-MAT: a recursive model for
    graph mining", SDM 2004; the Graph500 benchmark specification, "Graph generation"): each of the ``edge_factor * 2^scale`` edges independently descends
    ``scale`` levels of the adjacency matrix, choosing quadrant (0,0), (0,1), (1,0), (1,1) with
    probabilities ``a, b, c, 1 - a - b - c``. Vertex ids are then relabelled by a seeded random
    bijection (a Feistel network, :func:`vertex_permutation`), as the specification asks, so that
    ids say nothing about degrees. The specification also shuffles the edge list; here the edges
    are independent draws indexed by a counter, so their order is already a uniformly random
    order and a shuffle would not change the distribution of the output. Self-loops and repeated
    edges are kept, as in Graph500 (the builder's ``duplicates=`` / ``self_loops=`` can drop them).
"""

from __future__ import annotations

import contextlib
import math
import operator
import warnings

import numpy as np

from gpugraph import config
from gpugraph.backend import Backend, get_backend
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import InvalidParameterError
from gpugraph.graph.build import from_edge_list
from gpugraph.graph.edgelist import EdgeList
from gpugraph.graph.graph import Graph
from gpugraph.io import _generator_kernels
from gpugraph.progress import Progress

#: Graph500 initiator probabilities (the fourth, d = 1 - a - b - c, is 0.05).
GRAPH500_A, GRAPH500_B, GRAPH500_C = 0.57, 0.19, 0.19
#: Graph500 edges per vertex.
GRAPH500_EDGE_FACTOR = 16
#: Weights of weighted grids are integers drawn uniformly from this closed range (travel costs).
GRID_WEIGHT_RANGE = (1, 100)
#: Largest vertex count of any generator.
MAX_VERTICES = 2**config.GENERATOR_MAX_SCALE

# Each use of randomness draws from its own stream, so edges, the permutation and weights never
# share random numbers.
_EDGE_STREAM, _PERMUTATION_STREAM, _WEIGHT_STREAM = 1, 2, 3
_UINT64 = 2**64


# --- edge lists ----------------------------------------------------------------------------------
def rmat_edge_count(scale: int, edge_factor: int = GRAPH500_EDGE_FACTOR) -> int:
    """The number of edges :func:`rmat_edges` makes, ``edge_factor * 2^scale``, after checking both.

    Parameters
    ----------
    scale:
        log2 of the vertex count, ``1..config.GENERATOR_MAX_SCALE`` (40).
    edge_factor:
        Edges per vertex, at least 1.

    Returns
    -------
    int

    Raises
    ------
    InvalidParameterError
        For a scale outside ``1..40`` or an edge factor below 1 (or either not an integer).
    """
    scale = _as_integer("scale", scale, 1, config.GENERATOR_MAX_SCALE)
    return _as_integer("edge_factor", edge_factor, 1, None) << scale


def rmat_edges(
    scale: int,
    edge_factor: int = GRAPH500_EDGE_FACTOR,
    a: float = GRAPH500_A,
    b: float = GRAPH500_B,
    c: float = GRAPH500_C,
    seed: int = 0,
    permute: bool = True,
    device="cpu",
    progress: bool | None = None,
    edge_range: tuple[int, int] | None = None,
) -> EdgeList:
    """Generate Graph500 Kronecker (RMAT) edges (see the module docstring).

    Parameters
    ----------
    scale:
        log2 of the vertex count, ``1..config.GENERATOR_MAX_SCALE`` (40).
    edge_factor:
        Edges per vertex (Graph500: 16); ``m = edge_factor * 2^scale``.
    a, b, c:
        Probabilities of the quadrants (0,0), (0,1), (1,0); each >= 0 with ``a + b + c < 1``
        (the rest, ``d``, is the probability of (1,1)).
    seed:
        Any integer (taken modulo 2^64).
    permute:
        Relabel the vertices by :func:`vertex_permutation` ``(scale, seed)``. ``False`` leaves
        the raw RMAT ids, where low ids have high degree.
    device:
        Where to generate: ``"cpu"``, ``"cuda[:N]"``, a Backend, or ``None`` (see
        :func:`gpugraph.backend.get_backend`). The arrays stay there.
    progress:
        Progress bar on stderr for CPU generations longer than a second: ``None`` only when stderr
        is a terminal.
    edge_range:
        ``(start, stop)``: only edges ``start .. stop - 1`` of the ``m`` (the same edges the whole
        generation has there: how the ranks of a distributed run each make their share).

    Returns
    -------
    EdgeList
        ``m`` undirected edges (``directed=False``), or those of ``edge_range``,
        ``num_vertices = 2^scale``, ids in ``[0, 2^scale)``; ``metadata`` records the generator and
        its parameters.

    Raises
    ------
    InvalidParameterError
        For a scale outside ``1..40``, an edge factor below 1, or probabilities that are negative,
        not finite or sum to 1 or more.
    """
    all_edges = rmat_edge_count(scale, edge_factor)
    scale, edge_factor = int(scale), int(edge_factor)
    seed = _as_integer("seed", seed)
    a, b, c = _quadrant_probabilities(a, b, c)
    thresholds = [
        np.uint64(math.ceil(cumulative * _generator_kernels.THRESHOLD_SCALE)) for cumulative in (a, a + b, a + b + c)
    ]
    num_vertices = 1 << scale
    first_edge, end_edge = (0, all_edges) if edge_range is None else map(int, edge_range)
    if not 0 <= first_edge <= end_edge <= all_edges:
        raise InvalidParameterError(f"edge_range {edge_range} is not inside [0, {all_edges}]")
    num_edges = end_edge - first_edge
    backend = get_backend(device)
    source = f"rmat(scale={scale}, edge_factor={edge_factor}, seed={seed})"
    with backend.activate():
        src = backend.empty(num_edges, _vertex_dtype(num_vertices))
        dst = backend.empty(num_edges, _vertex_dtype(num_vertices))
        arguments = (
            _stream_key(seed, _EDGE_STREAM), np.int64(scale), *thresholds,
            _stream_key(seed, _PERMUTATION_STREAM), bool(permute),
        )
        if backend.is_cuda:
            _launch_cuda(_cuda_kernels().rmat_kernel, backend, num_edges, *arguments, np.int64(first_edge), src, dst)
        else:
            _fill_in_pieces(_generator_kernels.rmat_cpu, arguments, src, dst, f"generating {source}", progress,
                            first_edge)
    return EdgeList(
        src,
        dst,
        num_vertices=num_vertices,
        directed=False,
        source=source,
        metadata={"generator": "rmat", "scale": scale, "edge_factor": edge_factor,
                  "a": a, "b": b, "c": c, "seed": seed, "permute": bool(permute)},
    )


def gnm_edges(
    num_vertices: int,
    num_edges: int,
    seed: int = 0,
    directed: bool = True,
    self_loops: bool = False,
    device="cpu",
    progress: bool | None = None,
) -> EdgeList:
    """Generate a uniform random graph G(n, m).

    Each of the ``m`` edges is drawn independently and uniformly, **with replacement**: from the
    ``n (n - 1)`` ordered pairs ``u != v`` (directed), which for ``directed=False`` is uniform over
    the unordered pairs too, or from all ``n^2`` pairs when ``self_loops=True``. So an edge can
    repeat (about ``m^2 / (2 n^2)`` repeats, for a directed graph without self-loops); build with
    ``duplicates="first"`` to keep one copy (the edge count then drops by the repeats).

    Parameters
    ----------
    num_vertices:
        ``n``, ``0..2^40``; at least 2 when there are edges and ``self_loops`` is false.
    num_edges:
        ``m >= 0``.
    seed:
        Any integer (taken modulo 2^64).
    directed:
        Direction recorded in the edge list.
    self_loops:
        Whether an edge may join a vertex to itself.
    device, progress:
        As in :func:`rmat_edges`.

    Returns
    -------
    EdgeList
        ``m`` edges with ids in ``[0, n)``, ``num_vertices = n`` (isolated vertices included).

    Raises
    ------
    InvalidParameterError
        For negative or too large counts, or edges without self-loops on fewer than 2 vertices.
    """
    num_vertices = _as_integer("num_vertices", num_vertices, 0, MAX_VERTICES)
    num_edges = _as_integer("num_edges", num_edges, 0, None)
    seed = _as_integer("seed", seed)
    minimum_vertices = 1 if self_loops else 2
    if num_edges and num_vertices < minimum_vertices:
        raise InvalidParameterError(
            f"num_edges={num_edges} needs num_vertices >= {minimum_vertices} "
            f"(self_loops={bool(self_loops)}), got {num_vertices}"
        )
    backend = get_backend(device)
    source = f"gnm(n={num_vertices}, m={num_edges}, seed={seed})"
    with backend.activate():
        src = backend.empty(num_edges, _vertex_dtype(num_vertices))
        dst = backend.empty(num_edges, _vertex_dtype(num_vertices))
        arguments = (_stream_key(seed, _EDGE_STREAM), np.int64(num_vertices), bool(self_loops))
        if backend.is_cuda:
            _launch_cuda(_cuda_kernels().gnm_kernel, backend, num_edges, *arguments, np.int64(0), src, dst)
        else:
            _fill_in_pieces(_generator_kernels.gnm_cpu, arguments, src, dst, f"generating {source}", progress)
    return EdgeList(
        src,
        dst,
        num_vertices=num_vertices,
        directed=bool(directed),
        source=source,
        metadata={"generator": "gnm", "num_vertices": num_vertices, "num_edges": num_edges,
                  "seed": seed, "self_loops": bool(self_loops)},
    )


def grid_edges(
    rows: int,
    cols: int,
    diagonal: bool = False,
    weighted: bool = False,
    seed: int = 0,
    device="cpu",
) -> EdgeList:
    """Generate a ``rows x cols`` grid: low degree and diameter ``rows + cols - 2``, like a road
    network.

    Vertex ``(r, c)`` has id ``r * cols + c`` and is joined to its right and lower neighbours
    (4-neighbourhood); with ``diagonal`` also to its two lower diagonal neighbours
    (8-neighbourhood). Edges are listed horizontal first, then vertical, then diagonal, each
    group in row-major order.

    Parameters
    ----------
    rows, cols:
        Grid size, each >= 1, with ``rows * cols <= 2^40``.
    diagonal:
        Add the diagonal edges: ``2 (rows - 1)(cols - 1)`` more.
    weighted:
        Give every edge an integer weight (int64) drawn uniformly from :data:`GRID_WEIGHT_RANGE`
        by ``seed``.
    seed:
        Seed of the weights (taken modulo 2^64); the structure does not depend on it.
    device:
        As in :func:`rmat_edges`.

    Returns
    -------
    EdgeList
        Undirected, ``rows (cols - 1) + cols (rows - 1)`` edges (plus the diagonal ones),
        ``num_vertices = rows * cols``.

    Raises
    ------
    InvalidParameterError
        For sizes below 1 or a grid of more than 2^40 vertices.
    """
    rows = _as_integer("rows", rows, 1, MAX_VERTICES)
    cols = _as_integer("cols", cols, 1, MAX_VERTICES)
    seed = _as_integer("seed", seed)
    if rows * cols > MAX_VERTICES:
        raise InvalidParameterError(
            f"a {rows} x {cols} grid has {rows * cols:,} vertices; the limit is 2^"
            f"{config.GENERATOR_MAX_SCALE} = {MAX_VERTICES:,}"
        )
    backend = get_backend(device)
    xp = backend.xp
    with backend.activate():
        ids = xp.arange(rows * cols, dtype=_vertex_dtype(rows * cols)).reshape(rows, cols)
        pairs = [(ids[:, :-1], ids[:, 1:]), (ids[:-1, :], ids[1:, :])]
        if diagonal:
            pairs += [(ids[:-1, :-1], ids[1:, 1:]), (ids[:-1, 1:], ids[1:, :-1])]
        src = xp.concatenate([low.ravel() for low, _ in pairs])
        dst = xp.concatenate([high.ravel() for _, high in pairs])
        weights = None
        if weighted:
            low, high = GRID_WEIGHT_RANGE
            weights = backend.empty(src.size, np.int64)
            arguments = (_stream_key(seed, _WEIGHT_STREAM), np.int64(low), np.int64(high), weights)
            if backend.is_cuda:
                _launch_cuda(_cuda_kernels().uniform_integers_kernel, backend, weights.size, *arguments)
            else:
                run_cpu_kernel(_generator_kernels.uniform_integers_cpu, *arguments)
    return EdgeList(
        src,
        dst,
        weights,
        num_vertices=rows * cols,
        directed=False,
        source=f"grid({rows}x{cols}{', diagonal' if diagonal else ''})",
        metadata={"generator": "grid", "rows": rows, "cols": cols, "diagonal": bool(diagonal),
                  "weighted": bool(weighted), "seed": seed},
    )


def vertex_permutation(scale: int, seed: int = 0, device="cpu"):
    """The seeded bijection of ``[0, 2^scale)`` that :func:`rmat_edges` relabels vertices with.

    Parameters
    ----------
    scale:
        log2 of the domain size, ``1..40``.
    seed:
        The RMAT seed (the permutation uses its own stream of it).
    device:
        As in :func:`rmat_edges`.

    Returns
    -------
    array
        ``table`` of length ``2^scale`` on the device: vertex ``v`` becomes ``table[v]``.
        int32 while ``2^scale`` vertices fit, else int64.

    Raises
    ------
    InvalidParameterError
        For a scale outside ``1..40``.
    """
    scale = _as_integer("scale", scale, 1, config.GENERATOR_MAX_SCALE)
    seed = _as_integer("seed", seed)
    backend = get_backend(device)
    with backend.activate():
        table = backend.empty(1 << scale, _vertex_dtype(1 << scale))
        arguments = (_stream_key(seed, _PERMUTATION_STREAM), np.int64(scale), table)
        if backend.is_cuda:
            _launch_cuda(_cuda_kernels().permutation_table_kernel, backend, table.size, *arguments)
        else:
            run_cpu_kernel(_generator_kernels.permutation_table_cpu, *arguments)
    return table


# --- graphs --------------------------------------------------------------------------------------
def rmat(
    scale: int,
    edge_factor: int = GRAPH500_EDGE_FACTOR,
    a: float = GRAPH500_A,
    b: float = GRAPH500_B,
    c: float = GRAPH500_C,
    seed: int = 0,
    permute: bool = True,
    device=None,
    progress: bool | None = None,
    **build_options,
) -> Graph:
    """Build a Graph500 RMAT graph: :func:`rmat_edges` then
    :func:`~gpugraph.graph.build.from_edge_list` on the same device.

    Parameters
    ----------
    scale, edge_factor, a, b, c, seed, permute, progress:
        See :func:`rmat_edges`.
    device:
        Where to generate and build; ``None``: ``GPUGRAPH_DEVICE``, else a GPU when usable.
    **build_options:
        ``self_loops=``, ``duplicates=``, ``name=`` of the builder (Graph500 keeps both).

    Returns
    -------
    Graph
        Undirected, ``2^scale`` vertices (isolated ones included).

    Raises
    ------
    InvalidParameterError
        As :func:`rmat_edges`, or for an unknown builder policy.
    """
    backend = get_backend(device)
    edges = rmat_edges(scale, edge_factor, a, b, c, seed=seed, permute=permute, device=backend, progress=progress)
    return _build(edges, backend, build_options)


def gnm(
    num_vertices: int,
    num_edges: int,
    seed: int = 0,
    directed: bool = True,
    self_loops: bool = False,
    device=None,
    progress: bool | None = None,
    **build_options,
) -> Graph:
    """Build a uniform random graph: :func:`gnm_edges` then
    :func:`~gpugraph.graph.build.from_edge_list` (``build_options`` as in :func:`rmat`).

    Returns
    -------
    Graph

    Raises
    ------
    InvalidParameterError
        As :func:`gnm_edges`, or for an unknown builder policy.
    """
    backend = get_backend(device)
    edges = gnm_edges(num_vertices, num_edges, seed=seed, directed=directed, self_loops=self_loops,
                      device=backend, progress=progress)
    return _build(edges, backend, build_options)


def grid(
    rows: int,
    cols: int,
    diagonal: bool = False,
    weighted: bool = False,
    seed: int = 0,
    device=None,
    **build_options,
) -> Graph:
    """Build a 2-D grid graph: :func:`grid_edges` then
    :func:`~gpugraph.graph.build.from_edge_list` (``build_options`` as in :func:`rmat`).

    Returns
    -------
    Graph
        Undirected, ``rows * cols`` vertices.

    Raises
    ------
    InvalidParameterError
        As :func:`grid_edges`, or for an unknown builder policy.
    """
    backend = get_backend(device)
    edges = grid_edges(rows, cols, diagonal=diagonal, weighted=weighted, seed=seed, device=backend)
    return _build(edges, backend, build_options)


# --- internals -----------------------------------------------------------------------------------
def _build(edges: EdgeList, backend: Backend, build_options: dict) -> Graph:
    build_options.setdefault("name", edges.source)
    return from_edge_list(edges, device=backend, **build_options)


def _as_integer(name: str, value, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int in ``[minimum, maximum]`` (bounds optional), or a named error."""
    if isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}") from None
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        limit = f"{minimum}..{maximum:,}" if maximum is not None else f">= {minimum}"
        raise InvalidParameterError(f"{name} must be {limit}, got {number:,}")
    return number


def _quadrant_probabilities(a, b, c) -> tuple[float, float, float]:
    """Check the RMAT initiator; return it as floats."""
    try:
        values = [float(a), float(b), float(c)]
    except (TypeError, ValueError):
        raise InvalidParameterError(f"RMAT probabilities must be numbers, got a={a!r}, b={b!r}, c={c!r}") from None
    if not all(math.isfinite(value) and value >= 0 for value in values) or sum(values) >= 1:
        raise InvalidParameterError(
            f"RMAT probabilities need a, b, c >= 0 and a + b + c < 1 (d = 1 - a - b - c > 0), "
            f"got a={a}, b={b}, c={c}"
        )
    return values[0], values[1], values[2]


def _vertex_dtype(num_vertices: int):
    return np.int32 if num_vertices <= config.INT32_VERTEX_LIMIT else np.int64


def _splitmix64(state: int) -> int:
    """Python-int twin of the kernels' ``splitmix64``, to derive stream keys on the host."""
    z = (state + int(_generator_kernels.GOLDEN_GAMMA)) % _UINT64
    z = ((z ^ (z >> 30)) * int(_generator_kernels._MIX1)) % _UINT64
    z = ((z ^ (z >> 27)) * int(_generator_kernels._MIX2)) % _UINT64
    return z ^ (z >> 31)


def _stream_key(seed: int, stream: int) -> np.uint64:
    """Key of random stream ``stream`` of ``seed``: streams of one seed, and the same stream of
    different seeds, get unrelated keys."""
    return np.uint64(_splitmix64(_splitmix64(seed % _UINT64) ^ stream))


def _fill_in_pieces(kernel, arguments: tuple, src, dst, description: str, progress: bool | None,
                    first_edge: int = 0) -> None:
    """Run a CPU edge kernel over ``src``/``dst`` (edges ``first_edge`` onwards) piece by piece,
    moving a progress bar."""
    with Progress(description, total=src.size, unit=" edges", enabled=progress) as bar:
        for start in range(0, src.size, config.GENERATOR_PIECE_EDGES):
            stop = min(src.size, start + config.GENERATOR_PIECE_EDGES)
            run_cpu_kernel(kernel, *arguments, np.int64(first_edge + start), src[start:stop], dst[start:stop])
            bar.update(stop - start)


def _cuda_kernels():
    from gpugraph.io import _generator_cuda

    return _generator_cuda


def _launch_cuda(kernel, backend: Backend, items: int, *arguments) -> None:
    if items == 0:
        return
    # The simulator runs the kernels as Python on NumPy scalars, whose wrap-around uint64
    # arithmetic (intended here) would warn on every overflow.
    quiet = warnings.catch_warnings() if backend.simulated else contextlib.nullcontext()
    with quiet:
        if backend.simulated:
            warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
        launch_cuda_kernel(kernel, backend, items, *arguments)
