"""Synthetic graphs: Graph500 Kronecker/RMAT, uniform random G(n, m), 2-D grids.

Every generator is deterministic for a seed and gives bit-identical edges on the CPU and the GPU
(counter-based randomness, see :mod:`gpugraph.io._generator_kernels`). ``*_edges`` functions
return an :class:`EdgeList` (arrays on the requested device); the short names return a built
:class:`Graph`.
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend import get_backend
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import InvalidParameterError
from gpugraph.graph.build import from_edge_list
from gpugraph.graph.edgelist import EdgeList
from gpugraph.graph.graph import Graph
from gpugraph.io import _generator_kernels

#: Graph500 initiator probabilities (D = 1 - A - B - C = 0.05).
GRAPH500_A, GRAPH500_B, GRAPH500_C = 0.57, 0.19, 0.19
GRAPH500_EDGE_FACTOR = 16
MAX_SCALE = 40
#: Integer weights of weighted grids are drawn from this range (road-like travel costs).
GRID_WEIGHT_RANGE = (1, 100)

# Distinct stream keys so that edges, the permutation and weights never share random numbers.
_EDGE_STREAM, _PERMUTATION_STREAM, _WEIGHT_STREAM = 1, 2, 3


def _key(seed: int, stream: int) -> np.uint64:
    mixed = _generator_kernels._cpu.splitmix64(np.uint64(seed % 2**64) ^ np.uint64(stream * 0x632BE59BD9B4E019 % 2**64))
    return np.uint64(mixed)


def _allocate(backend, count: int):
    return backend.empty(count, np.int64), backend.empty(count, np.int64)


def rmat_edges(
    scale: int,
    edge_factor: int = GRAPH500_EDGE_FACTOR,
    a: float = GRAPH500_A,
    b: float = GRAPH500_B,
    c: float = GRAPH500_C,
    seed: int = 0,
    permute: bool = True,
    device="cpu",
) -> EdgeList:
    """Graph500 Kronecker (RMAT) edges.

    ``n = 2**scale`` vertices and ``m = edge_factor * n`` undirected edges, each chosen by
    ``scale`` recursive quadrant choices with probabilities ``a, b, c, d = 1 - a - b - c``.
    With ``permute`` the vertex ids are relabelled by a seeded random bijection, as the
    Graph500 specification asks, so that ids carry no degree information. Edges are independent
    draws, so their order is already random. Self-loops and repeated edges occur, as in Graph500.

    Parameters
    ----------
    scale:
        log2 of the vertex count, 1..40.
    edge_factor:
        Edges per vertex (Graph500: 16).
    a, b, c:
        Initiator probabilities; ``a + b + c < 1``.
    seed:
        Any integer; the same seed gives the same edges on every device.
    permute:
        Apply the random vertex permutation.
    device:
        Where to generate (``"cpu"``, ``"cuda"``...); the arrays stay there.

    Returns
    -------
    EdgeList
        Undirected, ``num_vertices = 2**scale``.

    Raises
    ------
    InvalidParameterError
        For a scale outside 1..40, a non-positive edge factor, or bad probabilities.
    """
    if not 1 <= int(scale) <= MAX_SCALE:
        raise InvalidParameterError(f"scale must be in 1..{MAX_SCALE}, got {scale}")
    if edge_factor < 1:
        raise InvalidParameterError(f"edge_factor must be positive, got {edge_factor}")
    if min(a, b, c) < 0 or a + b + c >= 1:
        raise InvalidParameterError(f"need a, b, c >= 0 and a + b + c < 1, got {a}, {b}, {c}")
    backend = get_backend(device)
    num_vertices = 1 << int(scale)
    src, dst = _allocate(backend, edge_factor * num_vertices)
    arguments = (
        _key(seed, _EDGE_STREAM), _key(seed, _PERMUTATION_STREAM), np.int64(scale),
        np.float64(a), np.float64(a + b), np.float64(a + b + c), bool(permute), src, dst,
    )
    if backend.is_cuda:
        from gpugraph.io import _generator_cuda

        launch_cuda_kernel(_generator_cuda.rmat_kernel, backend, src.size, *arguments)
    else:
        run_cpu_kernel(_generator_kernels.rmat_cpu, *arguments)
    return EdgeList(src, dst, num_vertices=num_vertices, directed=False,
                    source=f"rmat-scale{scale}-seed{seed}")


def gnm_edges(num_vertices: int, num_edges: int, seed: int = 0, directed: bool = True, device="cpu") -> EdgeList:
    """Uniform random graph G(n, m): each edge independently uniform over pairs ``u != v``.

    Edges are drawn with replacement, so a few may repeat (about ``m**2 / (2 n**2)``); there are
    no self-loops.

    Raises
    ------
    InvalidParameterError
        If ``num_vertices < 2`` (with edges) or a count is negative.
    """
    if num_vertices < 0 or num_edges < 0:
        raise InvalidParameterError(f"counts must be non-negative, got n={num_vertices}, m={num_edges}")
    if num_edges and num_vertices < 2:
        raise InvalidParameterError("edges without self-loops need at least 2 vertices")
    backend = get_backend(device)
    src, dst = _allocate(backend, num_edges)
    arguments = (_key(seed, _EDGE_STREAM), np.int64(num_vertices), src, dst)
    if num_edges:
        if backend.is_cuda:
            from gpugraph.io import _generator_cuda

            launch_cuda_kernel(_generator_cuda.gnm_kernel, backend, num_edges, *arguments)
        else:
            run_cpu_kernel(_generator_kernels.gnm_cpu, *arguments)
    return EdgeList(src, dst, num_vertices=num_vertices, directed=directed,
                    source=f"gnm-n{num_vertices}-m{num_edges}-seed{seed}")


def grid_edges(rows: int, cols: int, weighted: bool = False, seed: int = 0, device="cpu") -> EdgeList:
    """A ``rows x cols`` 4-neighbour grid: high diameter, low degree, like a road network.

    Vertex ``(r, c)`` has id ``r * cols + c``. With ``weighted``, each edge gets an integer weight
    in :data:`GRID_WEIGHT_RANGE` from the seed.

    Returns
    -------
    EdgeList
        Undirected, ``rows * (cols - 1) + cols * (rows - 1)`` edges.

    Raises
    ------
    InvalidParameterError
        For non-positive sizes.
    """
    if rows < 1 or cols < 1:
        raise InvalidParameterError(f"grid needs rows, cols >= 1, got {rows} x {cols}")
    backend = get_backend(device)
    xp = backend.xp
    with backend.activate():
        ids = xp.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
        src = xp.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
        dst = xp.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
        weights = None
        if weighted:
            weights = backend.empty(src.size, np.int64)
            low, high = GRID_WEIGHT_RANGE
            arguments = (_key(seed, _WEIGHT_STREAM), np.int64(low), np.int64(high), weights)
            if backend.is_cuda and src.size:
                from gpugraph.io import _generator_cuda

                launch_cuda_kernel(_generator_cuda.hashed_weights_kernel, backend, src.size, *arguments)
            else:
                run_cpu_kernel(_generator_kernels.hashed_weights_cpu, *arguments)
    return EdgeList(src, dst, weights, num_vertices=rows * cols, directed=False,
                    source=f"grid-{rows}x{cols}")


def rmat(scale: int, *, edge_factor: int = GRAPH500_EDGE_FACTOR, seed: int = 0, device=None, **build_options) -> Graph:
    """Build a Graph500 RMAT graph (see :func:`rmat_edges`; ``build_options`` go to the builder)."""
    backend = get_backend(device)
    edges = rmat_edges(scale, edge_factor=edge_factor, seed=seed, device=backend)
    return from_edge_list(edges, device=backend, name=edges.source, **build_options)


def gnm(num_vertices: int, num_edges: int, *, seed: int = 0, directed: bool = True, device=None, **build_options) -> Graph:
    """Build a uniform random graph (see :func:`gnm_edges`)."""
    backend = get_backend(device)
    edges = gnm_edges(num_vertices, num_edges, seed=seed, directed=directed, device=backend)
    return from_edge_list(edges, device=backend, name=edges.source, **build_options)


def grid(rows: int, cols: int, *, weighted: bool = False, seed: int = 0, device=None, **build_options) -> Graph:
    """Build a 2-D grid graph (see :func:`grid_edges`)."""
    backend = get_backend(device)
    edges = grid_edges(rows, cols, weighted=weighted, seed=seed, device=backend)
    return from_edge_list(edges, device=backend, name=edges.source, **build_options)
