"""Graph500 validation of one BFS result, from the input edge list and the parent array alone.

The Graph500 specification (``Graph500.org``, section "Validation") asks that every search be
followed by an untimed check of its parent array against the generated edge tuples, not against
the data structure the search ran on, so that a wrong graph build cannot hide a wrong search.
This module is such a verifier: it reads only the undirected input edges (each once, self-loops
and repeated edges kept, as the generator makes them) and the parent array, and shares no code
with the BFS implementations of gpugraph.

Rules
    Numbered as in the messages of :class:`gpugraph.errors.Graph500ValidationError`; the
    specification's numbers are in brackets.

    0. Sizes and ranges: ``parent`` has ``num_vertices`` integer entries, each ``-1`` (not
       reached) or a vertex id, the root is a vertex id and ``parent[root] == root``. The
       reference code makes the same checks (``src/validate.c`` of graph500 v3: predecessors
       out of range, stopping before the other rules since they index arrays with parents,
       and the root's own parent; ``mpi/validate.c`` of v2.1 likewise).
    1. [spec 1] The parent pointers form a tree rooted at the root: following them from any reached
       vertex ends at the root. Fails for a non-root vertex that is its own parent, a reached
       vertex whose parent is unreached (``-1``), and a cycle.
    2. [spec 2] Every tree edge ``v -> parent[v]`` (``v != root``) joins levels that differ by
       exactly one. With the levels computed from the parent pointers (below) this holds once
       rule 1 does; it is still checked, as the reference does, and what gives the rule its
       content is that the tree edges are edges of the graph (rule 4).
    3. [spec 3 and 4] Every input edge has both endpoints reached or both unreached, so the tree
       spans the whole connected component of the root and nothing else, and an edge with both
       endpoints reached joins levels that differ by at most one, so every level is the
       distance from the root (a vertex hung one level too deep is caught by the shorter edge
       it ignores).
    4. [spec 5] Every tree edge ``v -> parent[v]`` is an input edge, in either direction.

Levels
    The level of a reached vertex is its number of parent hops to the root, found by pointer
    jumping: each vertex holds an ancestor and the hop count to it, and a round replaces both by
    the ancestor's ancestor and the sum of the two counts, doubling the distance covered. A chain
    of a tree has at most ``n - 1`` hops, so ``ceil(log2 n) + 1`` rounds bring every chain to the
    root; a vertex whose ancestor is then not the root is on, or leads into, a cycle (rule 1). A
    reached vertex with an unreached parent is reported before the rounds. The rounds stop early
    once no ancestor moves. Unreached vertices have level ``-1``.
Tree edges in the input
    The tree edge of a reached vertex ``v`` other than the root is ``{v, parent[v]}``; an input
    edge ``(a, b)`` is that edge exactly when ``parent[a] == b`` (then it is ``a``'s) or
    ``parent[b] == a`` (``b``'s). Each chunk of input edges gathers the parents of its ends and
    sets a found flag for every vertex whose tree edge it holds; rule 4 fails for a vertex left
    without its flag. Rules 3 and 4 are checked in one pass over the edges, ``chunk_edges`` at a
    time. (Until 2026-11-26 the tree edges were sorted keys ``min * n + max`` looked up with a
    binary search per input edge, ~26 random reads an edge instead of two gathers.)
Memory
    Besides the caller's arrays: about ``40 n`` bytes at the peak of the pointer jumping
    (ancestors, hop counts and their gathered copies, int64), then ``9 n`` bytes (levels and a
    found flag per vertex) plus about 50 bytes per edge of a chunk. A scale-24 graph
    (``n = 2^24``, ``2^28`` edges) with the default chunk of ``2^24`` edges
    (``config.GRAPH500_VALIDATE_CHUNK_EDGES``) needs at most about 1.5 GiB (measured on an H100
    with CuPy and the earlier key lookup: the memory pool grew by 1.0 GiB and one validation took
    0.11 s). The input edges are read a chunk at a time, so host (NumPy) edges are copied to the
    GPU one chunk at a time when the parent array is a CuPy array.
Arrays
    NumPy or CuPy (the same code runs on both through ``xp``); CuPy is never imported when no
    argument is a GPU array. Nothing loops over vertices or edges in Python: only over rounds
    and chunks.
"""

from __future__ import annotations

import operator

import numpy as np

from gpugraph import config
from gpugraph.backend import array_module
from gpugraph.errors import Graph500ValidationError, InvalidParameterError, VertexIdError


def validate(sources, destinations, num_vertices: int, root: int, parent, *, chunk_edges: int | None = None) -> dict:
    """Check one BFS parent array against the Graph500 rules (module docstring) and count its edges.

    Parameters
    ----------
    sources, destinations:
        The generated undirected input edges, 1-D integer arrays (NumPy or CuPy) of equal length,
        each edge once; self-loops and repeated edges are allowed. Ids in ``[0, num_vertices)``.
    num_vertices:
        Vertex count ``n`` of the graph, at least 1.
    root:
        The search key the BFS started from.
    parent:
        The BFS result: one integer (int64) per vertex, ``-1`` for a vertex not reached and
        ``parent[root] == root``.
    chunk_edges:
        Input edges checked at a time (``None``: ``config.GRAPH500_VALIDATE_CHUNK_EDGES``).

    Returns
    -------
    dict
        ``levels``: int64 array of each vertex's BFS level, ``-1`` where not reached (CuPy when
        any argument is a CuPy array, else NumPy); ``reached_vertices``: how many vertices the tree holds;
        ``max_level``: the deepest level; ``edges_in_component``: the input edges counted as
        traversed for TEPS, as the graph500 v3 reference code counts them: every input edge
        whose endpoints are in the root's component, repeated edges once per copy, self-loops
        not at all. The reference builds its validation CSR without self-loops
        (``src/validate.c``, ``validate_result``, ``if(v0==v1) continue``), counts each remaining
        edge once (``v0 < v1``) when an endpoint is reached, and fails a run whose BFS reported a
        different number (its BFS counts the same way, ``src/bfs_reference.c``,
        ``get_edge_count_for_teps``, on the self-loop-free CSR of ``src/csr_reference.c``).
        Other counts of the project differ by the self-loops alone: v2.1's ``mpi/validate.c``
        (``validate_bfs_result``: every tuple with both endpoints reached), the Octave
        ``driver.m`` (half the endpoint count of the reached vertices) and the specification's
        TEPS section (``Graph500.org``) count each self-loop in the component once too; add the
        component's self-loops to this count to get theirs.

    Raises
    ------
    Graph500ValidationError
        When the parent array breaks a rule; the message starts ``rule N:`` and names one
        offending vertex or edge.
    InvalidParameterError
        For a vertex count or chunk size out of range, or edge arrays that are not 1-D integer
        arrays of equal length.
    VertexIdError
        For an input edge with an id outside ``[0, num_vertices)``.
    """
    n = _positive("num_vertices", num_vertices)
    chunk = _positive("chunk_edges", config.GRAPH500_VALIDATE_CHUNK_EDGES if chunk_edges is None else chunk_edges)
    sources, destinations = _as_array(sources), _as_array(destinations)
    parent = _as_array(parent)
    xp = next((module for module in map(array_module, (parent, sources, destinations)) if module is not np), np)
    num_edges = _check_edge_arrays(sources, destinations)
    parent, root = _check_parent(xp.asarray(parent), n, root)

    levels = _levels(xp, parent, n, root)
    _check_tree_levels(xp, parent, levels, root)
    reached = levels >= 0
    found = xp.zeros(n, dtype=bool)  # per vertex: its tree edge is among the input edges seen

    in_component = 0
    for start in range(0, num_edges, chunk):
        src = xp.asarray(sources[start : start + chunk]).astype(np.int64, copy=False)
        dst = xp.asarray(destinations[start : start + chunk]).astype(np.int64, copy=False)
        _check_edge_ids(src, dst, n, start)
        in_component += _check_edge_levels(src, dst, levels[src], levels[dst])
        _mark_tree_edges(parent, found, src, dst)
    _check_tree_edges_found(parent, reached, found, root)

    return {
        "levels": levels,
        "reached_vertices": int(reached.sum()),
        "max_level": int(levels.max()),
        "edges_in_component": in_component,
    }


def _positive(name: str, value) -> int:
    """``value`` as an int of at least 1, else InvalidParameterError."""
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}") from None
    if number < 1:
        raise InvalidParameterError(f"{name} must be at least 1, got {number}")
    return number


def _as_array(values):
    """NumPy and CuPy arrays as they are; anything else (a list) through :func:`numpy.asarray`."""
    return values if hasattr(values, "ndim") and hasattr(values, "dtype") else np.asarray(values)


def _check_edge_arrays(sources, destinations) -> int:
    """The edge count, after checking that both arrays are 1-D integer arrays of one length."""
    for name, array in (("sources", sources), ("destinations", destinations)):
        if array.ndim != 1 or array.dtype.kind not in "iu":
            raise InvalidParameterError(f"{name} must be a 1-D integer array, got {array.ndim}-D {array.dtype}")
    if len(sources) != len(destinations):
        raise InvalidParameterError(f"sources has {len(sources)} edges but destinations has {len(destinations)}")
    return len(sources)


def _check_parent(parent, n: int, root) -> tuple:
    """Rule 0 on ``parent`` and ``root``; returns ``parent`` as int64 and ``root`` as an int."""
    if parent.ndim != 1 or parent.dtype.kind not in "iu":
        raise Graph500ValidationError(f"rule 0: parent must be a 1-D integer array, got {parent.ndim}-D {parent.dtype}")
    if len(parent) != n:
        raise Graph500ValidationError(f"rule 0: parent has {len(parent)} entries, not num_vertices = {n}")
    try:
        root = operator.index(root)
    except TypeError:
        raise Graph500ValidationError(f"rule 0: root must be a vertex id, got {root!r}") from None
    if not 0 <= root < n:
        raise Graph500ValidationError(f"rule 0: root {root} is not a vertex id in [0, {n})")
    # Compared before the cast: uint64 values past the int64 range would wrap to negatives.
    bad = parent >= n if parent.dtype.kind == "u" else (parent < -1) | (parent >= n)
    if bool(bad.any()):
        vertex = int(bad.argmax())
        raise Graph500ValidationError(
            f"rule 0: parent of vertex {vertex} is {int(parent[vertex])}, not -1 or in [0, {n})"
        )
    parent = parent.astype(np.int64, copy=False)
    if int(parent[root]) != root:
        raise Graph500ValidationError(f"rule 0: parent of root {root} is {int(parent[root])}, not the root itself")
    return parent, root


def _levels(xp, parent, n: int, root: int):
    """Each vertex's hop count to the root along parent pointers (-1 unreached); rule 1."""
    reached = parent >= 0
    own = reached & (parent == xp.arange(n, dtype=np.int64))
    own[root] = False
    if bool(own.any()):
        vertex = int(own.argmax())
        raise Graph500ValidationError(f"rule 1: vertex {vertex} is its own parent but is not the root {root}")
    dangling = reached & (parent[xp.where(reached, parent, 0)] < 0)
    if bool(dangling.any()):
        vertex = int(dangling.argmax())
        raise Graph500ValidationError(
            f"rule 1: vertex {vertex} has parent {int(parent[vertex])}, which is not reached (parent -1)"
        )
    # Index n is a sink for unreached vertices; no reached chain can get there after the check above.
    ancestor = xp.empty(n + 1, dtype=np.int64)
    ancestor[:n] = xp.where(reached, parent, n)
    ancestor[n] = n
    hops = xp.zeros(n + 1, dtype=np.int64)
    hops[:n] = reached
    hops[root] = 0
    for _ in range((n - 1).bit_length() + 1):
        next_ancestor = ancestor[ancestor]
        if bool((next_ancestor == ancestor).all()):
            break
        hops += hops[ancestor]
        ancestor = next_ancestor
    off_root = reached & (ancestor[:n] != root)
    if bool(off_root.any()):
        vertex = int(off_root.argmax())
        raise Graph500ValidationError(
            f"rule 1: the parent pointers of vertex {vertex} run into a cycle through vertex {int(ancestor[vertex])}"
            f" and never reach root {root}"
        )
    return xp.where(reached, hops[:n], -1)


def _check_tree_levels(xp, parent, levels, root: int) -> None:
    """Rule 2: every tree edge ``v -> parent[v]`` (v != root) joins levels ``L + 1`` and ``L``."""
    child = levels >= 0
    child[root] = False
    parent_level = levels[xp.where(child, parent, root)]
    bad = child & (levels != parent_level + 1)
    if bool(bad.any()):
        vertex = int(bad.argmax())
        raise Graph500ValidationError(
            f"rule 2: tree edge {vertex} -> {int(parent[vertex])} joins levels {int(levels[vertex])}"
            f" and {int(parent_level[vertex])}"
        )


def _check_edge_ids(src, dst, n: int, start: int) -> None:
    """VertexIdError for an input edge of this chunk with an id outside ``[0, n)``."""
    bad = (src < 0) | (src >= n) | (dst < 0) | (dst >= n)
    if bool(bad.any()):
        index = int(bad.argmax())
        raise VertexIdError(
            f"input edge {start + index} ({int(src[index])}, {int(dst[index])}) has an id outside [0, {n})"
        )


def _check_edge_levels(src, dst, src_level, dst_level) -> int:
    """Rule 3 on one chunk of input edges; returns how many of them count for TEPS (see validate)."""
    split = (src_level >= 0) != (dst_level >= 0)
    if bool(split.any()):
        index = int(split.argmax())
        inside, outside = (src, dst) if int(src_level[index]) >= 0 else (dst, src)
        level = max(int(src_level[index]), int(dst_level[index]))
        raise Graph500ValidationError(
            f"rule 3: input edge {int(src[index])} - {int(dst[index])} joins reached vertex {int(inside[index])}"
            f" (level {level}) and unreached vertex {int(outside[index])}: the tree does not span the component"
        )
    far = abs(src_level - dst_level) > 1
    if bool(far.any()):
        index = int(far.argmax())
        raise Graph500ValidationError(
            f"rule 3: input edge {int(src[index])} - {int(dst[index])} joins levels {int(src_level[index])}"
            f" and {int(dst_level[index])}"
        )
    return int(((src_level >= 0) & (src != dst)).sum())


def _mark_tree_edges(parent, found, src, dst) -> None:
    """Set ``found`` for each vertex whose tree edge is one of the input edges ``(src, dst)``."""
    found[src[parent[src] == dst]] = True
    found[dst[parent[dst] == src]] = True


def _check_tree_edges_found(parent, reached, found, root: int) -> None:
    """Rule 4: a reached vertex (not the root) whose tree edge no input edge was."""
    missing = reached & ~found
    missing[root] = False
    if bool(missing.any()):
        vertex = int(missing.argmax())
        raise Graph500ValidationError(
            f"rule 4: tree edge {vertex} -> {int(parent[vertex])} (vertex {vertex}'s parent) is not an edge of the input"
        )
