"""Building Graphs: from edge arrays, EdgeLists, SciPy, NetworkX and pandas.

Policies (the same for every input)
-----------------------------------
Vertex ids
    If the input declares a vertex count (``num_vertices``), ids must lie in
    ``[id_base, id_base + num_vertices)`` and internal id = id - id_base; vertices with no edges are
    kept. Otherwise the vertices are the distinct ids that occur, numbered ``0..n-1`` in increasing
    id order (``relabel=True``, the default), and ``Graph.original_ids`` maps back; with
    ``relabel=False`` the ids are used as they are and ``n = max id + 1``. Negative ids are errors.
Self-loops (``self_loops=``)
    ``"keep"`` (default) or ``"drop"``.
Duplicate edges (``duplicates=``)
    ``"keep"`` (default: every copy is stored, so edge counts match the input), ``"first"`` (keep the
    first copy in input order), ``"min"``, ``"max"`` or ``"sum"`` (one edge whose weight is the
    minimum / maximum / sum of the copies' weights). For undirected graphs, ``(u, v)`` and
    ``(v, u)`` are the same edge.
Undirected inputs
    Each edge is given once; both directions are stored (a self-loop once).
Input arrays
    NumPy and CuPy arrays, anything with ``__dlpack__`` (PyTorch, JAX, ... on the CPU or a CUDA
    GPU) and array-likes (lists). Host arrays and tensors are read in place (a NumPy view, no
    copy); GPU arrays and tensors too (a CuPy view) when the graph is built on a GPU, where the
    whole build runs on the device, and are copied to the host once otherwise. A host input of a
    GPU build is checked and relabelled on the host and then copied to the device once.
"""

from __future__ import annotations

import numpy as np

from gpugraph import config
from gpugraph.backend import Backend, array_module, as_array, get_backend, to_numpy
from gpugraph.backend.kernels import launch_cuda_kernel, run_cpu_kernel
from gpugraph.errors import EmptyGraphError, InvalidParameterError, VertexIdError
from gpugraph.graph import _cpu_kernels
from gpugraph.graph.edgelist import EdgeList
from gpugraph.graph.graph import Graph

SELF_LOOP_POLICIES = ("keep", "drop")
DUPLICATE_POLICIES = ("keep", "first", "min", "max", "sum")



def from_edges(
    src,
    dst,
    weights=None,
    *,
    num_vertices: int | None = None,
    directed: bool = True,
    relabel: bool | None = None,
    self_loops: str = config.DEFAULT_SELF_LOOP_POLICY,
    duplicates: str = config.DEFAULT_DUPLICATE_POLICY,
    device=None,
    name: str | None = None,
) -> Graph:
    """Build a graph from edge arrays.

    Parameters
    ----------
    src, dst:
        Integer arrays with one entry per edge: NumPy, CuPy, PyTorch or any DLPack tensor, or
        lists (see "Input arrays" in the module docstring for when they are copied).
    weights:
        Optional numeric array of the same kinds with one weight per edge.
    num_vertices:
        Vertex count; ids must then lie in ``[0, num_vertices)``. ``None``: see ``relabel``.
    directed:
        Whether edges are directed.
    relabel:
        Only when ``num_vertices`` is ``None``: ``True`` numbers the distinct ids densely in
        increasing order (``Graph.original_ids`` maps back); ``False`` uses ids as they are with
        ``n = max id + 1``. Default ``True`` if ``num_vertices`` is ``None``.
    self_loops, duplicates:
        Policies, see the module docstring.
    device:
        Where the graph is built and stored: ``"cpu"``, ``"cuda[:N]"``, or ``None`` for the
        ``GPUGRAPH_DEVICE`` variable, else a GPU when one is usable (see
        :func:`gpugraph.backend.get_backend`).
    name:
        Label for reports.

    Returns
    -------
    Graph

    Raises
    ------
    VertexIdError
        For negative ids or ids outside ``[0, num_vertices)``.
    InvalidParameterError
        For unknown policies, arrays of different lengths, or a tensor that cannot be shared
        through DLPack.
    DeviceError
        If ``device`` cannot be used, or an input lives on a GPU and CuPy is not installed.
    """
    backend = get_backend(device)
    edge_list = EdgeList(
        src=_input_array(src, backend),
        dst=_input_array(dst, backend),
        weights=None if weights is None else _input_array(weights, backend),
        num_vertices=num_vertices,
        directed=directed,
        source=name,
    )
    return from_edge_list(
        edge_list,
        relabel=relabel,
        self_loops=self_loops,
        duplicates=duplicates,
        device=backend,
        name=name,
    )


def from_edge_list(
    edge_list: EdgeList,
    *,
    relabel: bool | None = None,
    self_loops: str = config.DEFAULT_SELF_LOOP_POLICY,
    duplicates: str = config.DEFAULT_DUPLICATE_POLICY,
    device=None,
    name: str | None = None,
) -> Graph:
    """Build a graph from an :class:`EdgeList` (what readers and generators return).

    Parameters and policies are those of :func:`from_edges`; ``edge_list`` carries the arrays, the
    declared vertex count, id base, explicit vertex ids and direction.

    Returns
    -------
    Graph

    Raises
    ------
    VertexIdError, InvalidParameterError
        As :func:`from_edges`.
    """
    _check_policy("self_loops", self_loops, SELF_LOOP_POLICIES)
    _check_policy("duplicates", duplicates, DUPLICATE_POLICIES)
    backend = get_backend(device)
    where = edge_list.source or "edge list"
    # Edges generated on a GPU stay there when the graph is built on that GPU.
    xp = array_module(edge_list.src) if not backend.on_host else np
    src, dst = _as_int_ids(edge_list.src, where, xp), _as_int_ids(edge_list.dst, where, xp)
    weights = edge_list.weights
    if weights is not None:
        weights = _real_weights(xp.asarray(weights) if xp is not np else to_numpy(weights), where)

    src, dst, num_vertices, original_ids, id_offset = _map_ids(edge_list, src, dst, relabel, where)
    vertex_dtype = _vertex_dtype(num_vertices)
    src = src.astype(vertex_dtype, copy=False)
    dst = dst.astype(vertex_dtype, copy=False)

    if self_loops == "drop":
        keep = src != dst
        src, dst = src[keep], dst[keep]
        weights = None if weights is None else weights[keep]
    if edge_list.directed:
        indptr, indices, weights = _sorted_csr(src, dst, weights, num_vertices, duplicates, backend)
        num_edges = int(indices.shape[0])
    else:
        if duplicates != "keep":
            # (u, v) and (v, u) are one edge: merge copies in canonical (min, max) orientation.
            src, dst, weights = _canonical_undirected(src, dst, weights)
            indptr, dst, weights = _sorted_csr(src, dst, weights, num_vertices, duplicates, backend)
            xp = backend.xp
            with backend.activate():
                src = xp.repeat(xp.arange(num_vertices, dtype=dst.dtype), xp.diff(indptr))
        num_edges = int(src.shape[0])
        indptr, indices, weights = _sorted_csr(
            src, dst, weights, num_vertices, "keep", backend, both_directions=True
        )
    return Graph(
        indptr,
        indices,
        weights,
        directed=edge_list.directed,
        num_edges=num_edges,
        backend=backend,
        original_ids=original_ids,
        id_offset=id_offset,
        name=name or edge_list.source,
    )


def from_csr(
    indptr,
    indices,
    weights=None,
    *,
    directed: bool = True,
    device=None,
    name: str | None = None,
) -> Graph:
    """Build a graph from CSR arrays, checking them (rows are sorted if they are not).

    A directed CSR whose rows are already sorted is stored as it is, without a sort: the graph
    then shares ``indices`` and ``weights`` with the input (no copy) when they already have the
    graph's types (int32 destinations below 2^31 vertices, int64 beyond) and live where the
    graph is built, and ``indptr`` when it is int64. Changing those arrays afterwards changes
    the graph.

    Parameters
    ----------
    indptr:
        Offsets, length ``n + 1``, starting at 0, non-decreasing.
    indices:
        Destinations in ``[0, n)``. For undirected graphs the arrays must already be symmetric;
        the entries with ``row <= destination`` give the edges.
    weights:
        Optional, one per entry.
    directed, device, name:
        As :func:`from_edges`; the arrays may be of any kind :func:`from_edges` takes.

    Returns
    -------
    Graph

    Raises
    ------
    InvalidParameterError
        If the offsets are malformed, or ``weights`` has not one entry per index.
    VertexIdError
        If an index is out of range.
    DeviceError
        As :func:`from_edges`.
    """
    backend = get_backend(device)
    where = name or "CSR arrays"
    with backend.activate():
        indices = _input_array(indices, backend)
        xp = array_module(indices)
        indices = _as_int_ids(indices, where, xp)
        indptr = _input_array(indptr, backend, xp).astype(np.int64, copy=False)
        if weights is not None:
            weights = _real_weights(_input_array(weights, backend, xp), where)
        num_vertices = _checked_offsets(indptr, indices, weights)
        if directed and _rows_sorted(indptr, indices, xp):
            if indices.size:
                _check_declared_range(int(indices.min()), int(indices.max()), 0, num_vertices, where)
            # On a GPU build host arrays are copied up here, device arrays stay as they are.
            return Graph(
                backend.asarray(indptr),
                backend.asarray(indices.astype(_vertex_dtype(num_vertices), copy=False)),
                None if weights is None else backend.asarray(weights),
                directed=True,
                num_edges=int(indices.size),
                backend=backend,
                name=name,
            )
        src = xp.repeat(xp.arange(num_vertices, dtype=np.int64), xp.diff(indptr))
        if not directed:
            # A symmetric CSR lists each undirected edge twice: keep one direction per edge.
            upper = src <= indices
            src, indices = src[upper], indices[upper]
            weights = None if weights is None else weights[upper]
        return from_edges(
            src,
            indices,
            weights,
            num_vertices=num_vertices,
            directed=directed,
            device=backend,
            name=name,
        )


def from_scipy(matrix, *, directed: bool = True, device=None, name: str | None = None) -> Graph:
    """Build a graph from a SciPy sparse matrix or array (entry ``(i, j)`` is an edge i -> j).

    Explicitly stored entries become edges and their values weights (also explicit zeros); a
    boolean matrix gives an unweighted graph. For ``directed=False`` the matrix must be
    symmetric; its upper triangle (with the diagonal) gives the edges. A directed graph from a
    CSR matrix goes through :func:`from_csr`, so with sorted rows (SciPy's canonical form) and
    int32 indices the graph shares ``indices`` and ``data`` with the matrix instead of copying.

    Parameters
    ----------
    matrix:
        A square ``scipy.sparse`` matrix or array in any format.
    directed, device, name:
        As :func:`from_edges`.

    Returns
    -------
    Graph

    Raises
    ------
    InvalidParameterError
        If the matrix is not square, or not symmetric when ``directed=False``.
    """
    import scipy.sparse as sp

    if not sp.issparse(matrix):
        raise InvalidParameterError(f"expected a scipy.sparse matrix, got {type(matrix).__name__}")
    if matrix.shape[0] != matrix.shape[1]:
        raise InvalidParameterError(f"adjacency matrix must be square, got shape {matrix.shape}")
    if directed and matrix.format == "csr":
        data = None if matrix.dtype == np.bool_ else matrix.data
        return from_csr(matrix.indptr, matrix.indices, data, device=device, name=name)
    coo = matrix.tocoo()
    weights = None if coo.dtype == np.bool_ else coo.data
    if directed:
        return from_edges(
            coo.row, coo.col, weights, num_vertices=matrix.shape[0], device=device, name=name
        )
    if (abs(matrix - matrix.T) > 0).nnz:
        raise InvalidParameterError("directed=False needs a symmetric matrix")
    upper = coo.row <= coo.col
    return from_edges(
        coo.row[upper],
        coo.col[upper],
        None if weights is None else weights[upper],
        num_vertices=matrix.shape[0],
        directed=False,
        device=device,
        name=name,
    )


def from_networkx(nx_graph, *, weight: str | None = "weight", device=None, name: str | None = None) -> Graph:
    """Build a graph from a NetworkX graph.

    Node labels must be integers; internal ids number them in increasing label order and
    ``Graph.original_ids`` maps back (isolated nodes are kept). Edge attribute ``weight`` becomes the edge
    weight when every edge has it; pass ``weight=None`` to ignore weights.

    Returns
    -------
    Graph

    Raises
    ------
    InvalidParameterError
        If nodes are not integers, or only some edges carry ``weight``.
    """
    nodes = list(nx_graph.nodes)
    if not all(isinstance(node, (int, np.integer)) for node in nodes):
        raise InvalidParameterError(
            "from_networkx needs integer node labels; use networkx.convert_node_labels_to_integers"
        )
    node_ids = np.asarray(nodes, dtype=np.int64)
    edges = list(nx_graph.edges(data=weight, default=None) if weight else nx_graph.edges())
    src = np.fromiter((edge[0] for edge in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((edge[1] for edge in edges), dtype=np.int64, count=len(edges))
    weights = None
    if weight and edges:
        values = [edge[2] for edge in edges]
        present = [value is not None for value in values]
        if all(present):
            weights = np.asarray(values)
        elif any(present):
            raise InvalidParameterError(f"only some edges have the attribute {weight!r}")
    edge_list = EdgeList(
        src=src,
        dst=dst,
        weights=weights,
        vertex_ids=node_ids,
        directed=nx_graph.is_directed(),
        source=name or "networkx graph",
    )
    return from_edge_list(edge_list, device=device, name=name)


def from_pandas(
    frame,
    source: str = "source",
    target: str = "target",
    weight: str | None = None,
    *,
    directed: bool = True,
    device=None,
    name: str | None = None,
) -> Graph:
    """Build a graph from a pandas DataFrame of edges (ids relabelled densely, see module doc).

    Columns backed by NumPy arrays are read without a copy (``Series.to_numpy``), as
    :func:`from_edges` reads arrays.

    Parameters
    ----------
    frame:
        The DataFrame, one row per edge.
    source, target:
        Names of the columns of the edges' end points (integer ids).
    weight:
        Name of the column of edge weights, or ``None`` for an unweighted graph.
    directed, device, name:
        As :func:`from_edges`.

    Returns
    -------
    Graph

    Raises
    ------
    InvalidParameterError
        If a named column is missing.
    """
    for column in (source, target) + ((weight,) if weight else ()):
        if column not in frame.columns:
            raise InvalidParameterError(
                f"column {column!r} not in the DataFrame (columns: {list(frame.columns)})"
            )
    return from_edges(
        frame[source].to_numpy(),
        frame[target].to_numpy(),
        None if weight is None else frame[weight].to_numpy(),
        directed=directed,
        device=device,
        name=name,
    )


# --- internals ---------------------------------------------------------------------------------
def _check_policy(option: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidParameterError(f"{option}={value!r} is not one of {', '.join(allowed)}")


def _input_array(values, backend: Backend, xp=None):
    """``values`` as an array for a build on ``backend``, copied only where it has to move.

    Host data stays where it is (a NumPy view). GPU data stays on the GPU when the build is on
    one (moved to the backend's device if it is on another) and comes to the host otherwise.
    ``xp`` asks for one module (NumPy or CuPy) whatever the data, to match another array.
    """
    array = as_array(values)
    if xp is None:
        xp = np if backend.on_host else array_module(array)
    return to_numpy(array) if xp is np else backend.asarray(array)


def _vertex_dtype(num_vertices: int):
    return np.int32 if num_vertices <= config.INT32_VERTEX_LIMIT else np.int64


def _real_weights(weights, where: str):
    if weights.dtype.kind not in "iuf":
        raise InvalidParameterError(f"{where}: weights must be real numbers, got {weights.dtype}")
    return weights


def _checked_offsets(indptr, indices, weights) -> int:
    """Check CSR offsets (and the weights' length) against ``indices``; return ``n``."""
    if indptr.ndim != 1 or indptr.size == 0 or int(indptr[0]) != 0:
        raise InvalidParameterError("indptr must be a 1-D array starting at 0")
    if bool((indptr[1:] < indptr[:-1]).any()) or int(indptr[-1]) != indices.size:
        raise InvalidParameterError(
            f"indptr must be non-decreasing and end at len(indices)={indices.size}"
        )
    if weights is not None and weights.shape[0] != indices.size:
        raise InvalidParameterError(
            f"weights has {weights.shape[0]} entries, expected one per index ({indices.size})"
        )
    return int(indptr.size) - 1


def _rows_sorted(indptr, indices, xp) -> bool:
    """Whether the destinations of every CSR row are non-decreasing (the order a Graph keeps)."""
    if indices.size < 2:
        return True
    row_start = xp.zeros(indices.size, dtype=bool)
    starts = indptr[:-1]
    row_start[starts[starts < indices.size]] = True
    return bool((row_start[1:] | (indices[1:] >= indices[:-1])).all())


def _as_int_ids(ids, where: str, xp=np):
    ids = xp.asarray(ids) if xp is not np else to_numpy(ids)
    if ids.ndim != 1:
        raise InvalidParameterError(f"{where}: edge endpoint arrays must be 1-D")
    if ids.dtype.kind == "f":
        if ids.size and not bool(xp.all(xp.mod(ids, 1) == 0)):
            raise VertexIdError(f"{where}: vertex ids must be integers")
        ids = ids.astype(np.int64)
    elif ids.dtype.kind not in "iu":
        raise VertexIdError(f"{where}: vertex ids must be integers, got {ids.dtype}")
    if ids.dtype.kind == "u" and ids.dtype.itemsize == 8 and ids.size and int(ids.max()) > np.iinfo(np.int64).max:
        raise VertexIdError(f"{where}: vertex id {int(ids.max())} does not fit in int64")
    if ids.dtype == np.int32 or ids.dtype == np.int64:
        return ids  # no widening copy: the builder narrows to the graph's id type once
    return ids.astype(np.int64 if ids.dtype.itemsize >= 4 else np.int32)


def _map_ids(edge_list: EdgeList, src, dst, relabel, where):
    """Apply the vertex-id policy; return (src, dst, n, original_ids, id_offset)."""
    if src.size and min(int(src.min()), int(dst.min())) < 0:
        raise VertexIdError(f"{where}: negative vertex id {min(int(src.min()), int(dst.min()))}")
    if edge_list.vertex_ids is not None:
        return _map_to_vertex_ids(edge_list, src, dst, where)
    if edge_list.num_vertices is not None:
        base = edge_list.id_base
        n = int(edge_list.num_vertices)
        if src.size:
            low, high = min(int(src.min()), int(dst.min())), max(int(src.max()), int(dst.max()))
            _check_declared_range(low, high, base, n, where)
        if base:
            src, dst = src - base, dst - base
        return src, dst, n, None, base
    if relabel is False:
        n = max(int(src.max()), int(dst.max())) + 1 if src.size else 0
        return src, dst, n, None, 0
    return _relabel_dense(src, dst)


def _check_declared_range(low: int, high: int, base: int, n: int, where: str) -> None:
    """Raise VertexIdError unless the ids ``low..high`` lie in ``[base, base + n)``."""
    if low < base or high >= base + n:
        bad = low if low < base else high
        raise VertexIdError(
            f"{where}: vertex id {bad} outside the declared range [{base}, {base + n - 1}]"
        )


def _relabel_dense(src, dst):
    if src.size == 0:
        return src, dst, 0, None, 0
    max_id = max(int(src.max()), int(dst.max()))
    xp = array_module(src)
    if xp is not np:
        original_ids, inverse = xp.unique(xp.concatenate([src, dst]), return_inverse=True)
        inverse = inverse.reshape(-1)
        return inverse[: src.size], inverse[src.size :], int(original_ids.size), to_numpy(original_ids), 0
    if max_id <= config.DENSE_RELABEL_FACTOR * max(src.size, 1):
        rank, count = run_cpu_kernel(_cpu_kernels.dense_ranks, src, dst, max_id)
        if count == max_id + 1:  # every id occurs: ids are already dense
            return src, dst, count, None, 0
        original_ids = np.flatnonzero(rank >= 0).astype(np.int64)
        return rank[src], rank[dst], count, original_ids, 0
    original_ids, inverse = np.unique(np.concatenate([src, dst]), return_inverse=True)
    inverse = inverse.reshape(-1)
    return inverse[: src.size], inverse[src.size :], original_ids.size, original_ids, 0


def _map_to_vertex_ids(edge_list: EdgeList, src, dst, where):
    src, dst = to_numpy(src), to_numpy(dst)
    vertex_ids = to_numpy(edge_list.vertex_ids).astype(np.int64, copy=False)
    original_ids = np.sort(vertex_ids)
    if original_ids.size > 1 and np.any(original_ids[1:] == original_ids[:-1]):
        duplicate = original_ids[1:][original_ids[1:] == original_ids[:-1]][0]
        raise VertexIdError(f"{where}: vertex id {int(duplicate)} is listed twice")
    n = original_ids.size
    mapped = []
    for ids in (src, dst):
        position = np.searchsorted(original_ids, ids)
        known = position < n
        known[known] = original_ids[position[known]] == ids[known]
        if not np.all(known):
            raise VertexIdError(f"{where}: edge endpoint {int(ids[~known][0])} is not a listed vertex")
        mapped.append(position)
    identity = n == 0 or (original_ids[0] == 0 and original_ids[-1] == n - 1)
    return mapped[0], mapped[1], n, None if identity else original_ids, 0


def _canonical_undirected(src, dst, weights):
    """Orient every undirected edge as (min, max) so that duplicates meet in the sort."""
    xp = array_module(src)
    return xp.minimum(src, dst), xp.maximum(src, dst), weights


def _sorted_csr(src, dst, weights, num_vertices, duplicates, backend: Backend, both_directions=False):
    """Sort edges by (src, dst), stably, apply the duplicate policy, and return CSR arrays.

    With ``both_directions`` each non-loop edge is stored in both directions (undirected).
    """
    if num_vertices == 0 and src.size:
        raise EmptyGraphError("edges given for a graph with no vertices")
    if backend.is_cuda:
        if both_directions:
            src, dst, weights = _both_directions(src, dst, weights, backend)
        return _sorted_csr_cuda(src, dst, weights, num_vertices, duplicates, backend)
    want_order = weights is not None or duplicates != "keep"
    indptr, indices, order = run_cpu_kernel(
        _cpu_kernels.csr_from_edges, src, dst, num_vertices, want_order, both_directions
    )
    if weights is not None:
        weights = weights[order]
    if duplicates != "keep" and indices.size:
        rows = np.repeat(np.arange(num_vertices, dtype=indices.dtype), np.diff(indptr))
        starts = run_cpu_kernel(_cpu_kernels.run_starts, rows, indices)
        rows, indices, weights = _merge_duplicates(rows, indices, weights, starts, duplicates, np)
        indptr = np.zeros(num_vertices + 1, dtype=np.int64)
        np.cumsum(run_cpu_kernel(_cpu_kernels.count_ids, rows, num_vertices), out=indptr[1:])
    return indptr, indices, weights


def _sorted_csr_cuda(src, dst, weights, num_vertices, duplicates, backend: Backend):
    from gpugraph.graph import _cuda_kernels

    xp = backend.xp
    with backend.activate():
        src, dst = backend.asarray(src), backend.asarray(dst)
        weights = None if weights is None else backend.asarray(weights)
        key = src.astype(np.int64) * num_vertices + dst if num_vertices <= 2**31 else None
        order = xp.argsort(key, kind="stable") if key is not None else xp.lexsort(xp.stack([dst, src]))
        src, dst = src[order], dst[order]
        weights = None if weights is None else weights[order]
        if duplicates != "keep" and src.size:
            starts = xp.ones(src.size, dtype=bool)
            starts[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
            src, dst, weights = _merge_duplicates(src, dst, weights, starts, duplicates, xp)
        counts = xp.zeros(num_vertices, dtype=np.int64)
        if src.size:
            launch_cuda_kernel(_cuda_kernels.count_ids_kernel, backend, src.size, src, counts)
        indptr = xp.zeros(num_vertices + 1, dtype=np.int64)
        xp.cumsum(counts, out=indptr[1:])
    return indptr, dst, weights


def _merge_duplicates(src, dst, weights, starts, policy, xp):
    """Collapse runs of equal (src, dst) in sorted arrays according to ``policy``.

    ``min`` / ``max`` sort each run by weight (the same code on every device, so the results
    are identical); ``sum`` adds in input order on the host and with atomics on a GPU, so float
    sums may differ in the last bit between devices.
    """
    first = xp.flatnonzero(starts)
    if weights is None or policy == "first":
        return src[first], dst[first], None if weights is None else weights[first]
    if policy in ("min", "max"):
        run_id = xp.cumsum(starts, dtype=np.int64) - 1
        by_weight = weights[xp.lexsort(xp.stack([weights, run_id]))]
        if policy == "min":
            return src[first], dst[first], by_weight[first]
        last = xp.concatenate([first[1:], xp.asarray([weights.size], dtype=first.dtype)]) - 1
        return src[first], dst[first], by_weight[last]
    if xp is np:
        merged = np.add.reduceat(weights, first)
    else:
        import cupyx

        merged = xp.zeros(first.size, dtype=weights.dtype)
        cupyx.scatter_add(merged, xp.cumsum(starts, dtype=np.int64) - 1, weights)
    return src[first], dst[first], merged


def _both_directions(src, dst, weights, backend: Backend):
    """Arcs of undirected edges, each edge followed by its reverse (a self-loop once), so that
    a stable sort orders tied arcs by input position exactly as the CPU kernel does."""
    xp = backend.xp
    with backend.activate():
        src, dst = xp.asarray(src), xp.asarray(dst)
        present = xp.ones(2 * src.size, dtype=bool)
        present[1::2] = src != dst
        all_src = xp.stack([src, dst], axis=1).ravel()[present]
        all_dst = xp.stack([dst, src], axis=1).ravel()[present]
        all_weights = None if weights is None else xp.repeat(xp.asarray(weights), 2)[present]
    return all_src, all_dst, all_weights


def transpose_csr(indptr, indices, num_vertices: int, backend: Backend):
    """Build the CSC (in-edges) of a CSR graph.

    Returns
    -------
    tuple
        ``(in_indptr, in_indices, in_edge_ids)``: in-edges of ``v`` are
        ``in_indptr[v]:in_indptr[v+1]``, their sources ``in_indices`` sorted within each vertex,
        and ``in_edge_ids`` the position of each in-edge in the CSR arrays.
    """
    xp = backend.xp
    with backend.activate():
        src = xp.repeat(xp.arange(num_vertices, dtype=indices.dtype), xp.diff(indptr))
        if not backend.is_cuda:
            # The CSC is the CSR of the reversed edges; the kernel's order is the CSR position.
            return run_cpu_kernel(_cpu_kernels.csr_from_edges, indices, src, num_vertices, True, False)
        from gpugraph.graph import _cuda_kernels

        # CSR order is sorted by source, so a stable sort by destination keeps sources sorted.
        in_edge_ids = xp.argsort(indices, kind="stable")
        counts = xp.zeros(num_vertices, dtype=np.int64)
        if indices.size:
            launch_cuda_kernel(_cuda_kernels.count_ids_kernel, backend, indices.size, indices, counts)
        in_indptr = xp.zeros(num_vertices + 1, dtype=np.int64)
        xp.cumsum(counts, out=in_indptr[1:])
    return in_indptr, src[in_edge_ids], in_edge_ids.astype(np.int64, copy=False)
