"""Numba kernels of the path engine's preprocessing (see :mod:`gpugraph.engines.path.partition`,
:mod:`~gpugraph.engines.path.dependency` and :mod:`~gpugraph.engines.path.layout`).

The traversal and the linking of paths run on one piece of the graph each (a range of
vertices, :func:`gpugraph.engines.path.partition.link_paths`), the pieces on threads of their
own (the kernels release the GIL); linking the paths that cross pieces, the strongly
connected components (of the graph, beside the partitioning on a thread of their own, then of
the graph of those components) and the pass over them in topological order are sequential;
the passes around them (sorting each row's arcs, gathering the pieces' paths, the arcs between
components, the chains' components and layers, writing paths out by layer, the vertex -> chunk
index) run in parallel over rows, pieces, blocks of chains or chunks. The ``prange`` loops write their arrays in their own
bodies: a cached ``prange`` kernel can lose the array writes of a function it calls
(docs/architecture.md, "Generated CPU kernels do not use prange"), which is also why the
pieces' traversals run on threads rather than in a ``prange`` loop around the traversal.

Arrays of one entry per arc or per path are allocated by the callers with NumPy and filled
here: NumPy asks Linux for transparent huge pages for large arrays, Numba's allocator does not,
and touching fresh 4 KiB pages cost more than the work itself (docs/path-engine.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: Bits of the per-vertex ``state`` byte of :func:`depth_bounded_paths`: reached; in-arcs seen,
#: two bits (``IN_ARCS``) counting in steps of ``IN_ARC`` up to ``MANY_IN_ARCS`` (more than
#: one); an inner vertex of some path; expanded (its out-arcs taken by a traversal).
VISITED = np.int8(1)
IN_ARC = np.int8(2)
MANY_IN_ARCS = np.int8(4)
IN_ARCS = np.int8(6)
INNER = np.int8(8)
EXPANDED = np.int8(16)
#: Bit of the per-arc ``single`` byte of :func:`component_arcs`: the arc joins two components.
BETWEEN = np.int8(2)
#: :func:`visiting_order`'s keys: ``(DEGREE_CEILING - out-degree) << ROW_PLACE_BITS | place``, for
#: out-degrees up to 2^32 - 1 and rows of fewer than 2^31 arcs (below 2^63, so never negative).
DEGREE_CEILING = np.int64((1 << 32) - 1)
ROW_PLACE_BITS = 31
ROW_PLACE_MASK = np.int64((1 << ROW_PLACE_BITS) - 1)
#: Entries added to each block's row of counts so that two blocks' rows never share a cache line.
ROW_PAD = 16


@njit(parallel=True, cache=True)
def visiting_order(indptr, indices, insertion_max, blocks, order, slots):
    """Each row's arcs in Algorithm 1's visiting order: highest out-degree head first, ties in
    CSR order (a stable sort of every row; blocks of rows with about equal arcs in parallel).

    Each arc of a row is sorted as one 64-bit key, the head's out-degree (complemented) above
    the arc's place in the row, in a buffer of the block's own (as long as its longest row): the
    keys are distinct, so any sort is stable, and the comparisons read the buffer instead of
    looking heads up again.

    Parameters
    ----------
    indptr, indices:
        The graph's CSR arrays.
    insertion_max:
        Rows of at most this many arcs are sorted by insertion, longer ones by NumPy's sort.
    blocks:
        Blocks of rows sorted in parallel (fewer if the graph has fewer vertices).
    order:
        Filled: per CSR slot ``i`` of vertex ``u``'s row, the arc id (CSR position) of ``u``'s
        ``i``-th arc in visiting order.
    slots:
        Filled: the inverse of ``order`` (``slots[order[i]] = i``), the slot at which each arc
        comes in its row's visiting order (the vertex -> chunk index scatters by it,
        :func:`chunk_index`).
    """
    n = indptr.size - 1
    blocks = min(n, blocks)
    # block b sorts the rows from the one holding arc b * m / blocks (each row in one block)
    cuts = np.searchsorted(indptr, np.arange(blocks + 1) * (indptr[n] // max(blocks, 1)), side="right") - 1
    cuts[blocks] = n
    for b in prange(blocks):
        longest = 0
        for u in range(max(cuts[b], 0), cuts[b + 1]):
            longest = max(longest, indptr[u + 1] - indptr[u])
        keys = np.empty(longest, dtype=np.int64)
        for u in range(max(cuts[b], 0), cuts[b + 1]):
            start = indptr[u]
            count = indptr[u + 1] - start
            for i in range(count):
                v = indices[start + i]
                keys[i] = ((DEGREE_CEILING - (indptr[v + 1] - indptr[v])) << ROW_PLACE_BITS) | i
            if count <= insertion_max:
                for i in range(1, count):
                    key = keys[i]
                    j = i
                    while j > 0 and keys[j - 1] > key:
                        keys[j] = keys[j - 1]
                        j -= 1
                    keys[j] = key
            else:
                keys[:count] = np.sort(keys[:count])
            for i in range(count):
                arc = start + (keys[i] & ROW_PLACE_MASK)
                order[start + i] = arc
                slots[arc] = start + i


@njit(cache=True, nogil=True)
def roots_by_degree(indptr, first, last, roots):
    """The vertices ``first`` to ``last - 1`` that have out-arcs, by descending out-degree, ties
    by id (a counting sort), written to the front of ``roots``; returns how many."""
    max_degree = 0
    for u in range(first, last):
        max_degree = max(max_degree, indptr[u + 1] - indptr[u])
    starts = np.zeros(max_degree + 1, dtype=np.int64)  # bucket max_degree - d holds degree d
    for u in range(first, last):
        degree = indptr[u + 1] - indptr[u]
        if degree > 0:
            starts[max_degree - degree + 1] += 1
    for b in range(max_degree):
        starts[b + 1] += starts[b]
    count = starts[max_degree]
    for u in range(first, last):
        degree = indptr[u + 1] - indptr[u]
        if degree > 0:
            roots[starts[max_degree - degree]] = u
            starts[max_degree - degree] += 1
    return count


@njit(cache=True, nogil=True)
def depth_bounded_paths(indptr, indices, order, roots, first, last, max_depth, vertices, arcs, path_offsets,
                        next_from, first_from, state, foreign):
    """Algorithm 1 of DiGraph with an explicit stack: cut the out-arcs of the vertices ``first``
    to ``last - 1`` (one piece, or the whole graph) into edge-disjoint paths.

    An arc to a vertex outside the piece ends its path there, as an arc to a visited vertex
    does: the traversal reads and writes the state of the piece's vertices only, so pieces run
    at once on different threads.

    Parameters
    ----------
    indptr, indices:
        The graph's CSR arrays.
    order:
        From :func:`visiting_order`.
    roots:
        The piece's vertices in the order traversals start from them (:func:`roots_by_degree`).
    first, last:
        The piece's vertices.
    max_depth:
        D_MAX: a vertex reached at this depth is not expanded by the traversal that reached it.
    vertices, arcs:
        Twice the piece's arcs, filled: each path's vertices in order, paths one after another, and
        ``arcs[j]`` the arc from ``vertices[j]`` to ``vertices[j + 1]`` (-1 at a path's last
        vertex).
    path_offsets:
        The piece's arcs plus one entries, filled: where each path starts, and after the last
        its end.
    next_from, first_from:
        The piece's arcs and ``n`` entries (``first_from`` all -1), filled: the paths starting
        at each of the piece's vertices as linked lists in path order (``first_from[v]``, then ``next_from[p]``; -1
        ends them). A vertex's out-arcs are all taken in its one expansion, so its paths are
        linked from that stack frame.
    state:
        One byte per vertex (zeros), filled for the piece's vertices: :data:`VISITED`,
        :data:`EXPANDED`, the in-arcs from the piece capped at two (:data:`IN_ARCS`) and :data:`INNER` if it is an inner vertex of a path,
        for :func:`merge_head_to_tail` (one byte, so the traversal's one random access per arc
        stays in cache). Each vertex is expanded once, by the first traversal that reaches it
        above the depth bound or else as a root, so its arc cursor lives in the stack frame.
    foreign:
        The piece's arcs entries, filled: the paths that end outside the piece, ascending.

    Returns
    -------
    (positions, paths, foreign_paths)
        Entries of ``vertices``, paths and entries of ``foreign`` written; path ids count from
        0 in the piece.
    """
    frames = min(max_depth, indptr.size - 1) + 1  # a stack holds distinct vertices
    stack_vertex = np.empty(frames, dtype=np.int64)
    stack_cursor = np.empty(frames, dtype=np.int64)  # the frame's next arc slot, and its row's end
    stack_end = np.empty(frames, dtype=np.int64)
    stack_last = np.empty(frames, dtype=np.int64)  # the last path started at the frame's vertex
    length = 0
    paths = 0
    ended_outside = 0
    for root in roots:
        if state[root] & EXPANDED:
            continue
        state[root] |= VISITED | EXPANDED
        top = 0
        stack_vertex[0] = root
        stack_cursor[0] = indptr[root]
        stack_end[0] = indptr[root + 1]
        stack_last[0] = -1
        open_path = False
        while top >= 0:
            slot = stack_cursor[top]
            if slot < stack_end[top]:
                u = stack_vertex[top]
                arc = order[slot]
                stack_cursor[top] = slot + 1
                v = indices[arc]
                if not open_path:  # the arc starts a new path at u
                    path_offsets[paths] = length
                    next_from[paths] = -1
                    if stack_last[top] == -1:
                        first_from[u] = paths
                    else:
                        next_from[stack_last[top]] = paths
                    stack_last[top] = paths
                    paths += 1
                    vertices[length] = u
                    length += 1
                    open_path = True
                else:  # u, reached by the last arc, goes on: an inner vertex of this path
                    state[u] |= INNER
                arcs[length - 1] = arc
                vertices[length] = v
                arcs[length] = -1
                length += 1
                if v < first or v >= last:  # the piece's border ends the path
                    foreign[ended_outside] = paths - 1
                    ended_outside += 1
                    open_path = False
                    continue
                arrived = state[v]
                if arrived & IN_ARCS != MANY_IN_ARCS:
                    arrived += IN_ARC
                if arrived & VISITED:
                    state[v] = arrived
                    open_path = False  # Algorithm 1, lines 15-16: v is met again, the path ends
                else:
                    top += 1
                    stack_vertex[top] = v
                    stack_last[top] = -1
                    if top < max_depth:  # expanded now: all its arcs are taken before it is popped
                        state[v] = arrived | VISITED | EXPANDED
                        stack_cursor[top] = indptr[v]
                        stack_end[top] = indptr[v + 1]
                    else:  # at the depth bound: popped at once, expanded later as a root
                        state[v] = arrived | VISITED
                        stack_cursor[top] = 0
                        stack_end[top] = 0
            else:
                open_path = False  # line 21 (no arc left or depth bound), or the row is done
                top -= 1
    path_offsets[paths] = length
    return length, paths, ended_outside


@njit(cache=True, nogil=True)
def merge_head_to_tail(vertices, path_offsets, indptr, state, first_from, next_from, max_length, next_path,
                       heads, lengths, first_path, last_path, first, last, foreign):
    """Link short paths head to tail (a path ending at ``x`` to one starting at ``x``): the
    paths ``first_path`` to ``last_path - 1`` (one piece's, or all) that end at one of the
    vertices ``first`` to ``last - 1`` (the piece's, or all), then the paths ``foreign``.

    A pair is linked when the result has at most ``max_length`` arcs, it closes no cycle of
    links, and — if ``x`` has in- and out-degree above one — ``x`` is an inner vertex of no
    other path (the paper's constraint). Linking makes ``x`` an inner vertex of the result.
    Paths are visited in order, and for each the paths starting at its last vertex in order
    (the lists of :func:`depth_bounded_paths`, from which a linked path is removed; ``state``
    and the lists are updated in place). A piece's paths start at its vertices, so pieces link
    their own paths at once on different threads (``foreign`` empty); one more call links the
    paths that end outside their piece (an empty range and ``foreign`` those paths, ascending):
    the paper's re-check of the short paths that the subgraphs' threads made.

    Parameters
    ----------
    next_path:
        One entry per path, filled for the range: the path linked after it (-1 if none).
    heads, lengths:
        One entry per path; filled for the range: the first path of each path's chain and the
        arcs of the chain each first path starts (:func:`chain_heads` gathers the chains).
    """
    for p in range(first_path, last_path):
        next_path[p] = -1
        heads[p] = p
        lengths[p] = path_offsets[p + 1] - path_offsets[p] - 1
    own = last_path - first_path
    for i in range(own + foreign.size):
        p = first_path + i if i < own else foreign[i - own]
        x = vertices[path_offsets[p + 1] - 1]
        if i < own and (x < first or x >= last):
            continue  # ends in another piece: linked by the call for the foreign paths
        if state[x] & INNER and state[x] & IN_ARCS == MANY_IN_ARCS and indptr[x + 1] - indptr[x] > 1:
            continue  # a hub that is already an inner vertex
        head = heads[p]
        before = -1
        q = first_from[x]
        while q != -1:
            if q != head and lengths[head] + lengths[q] <= max_length:
                next_path[p] = q
                if before == -1:
                    first_from[x] = next_from[q]
                else:
                    next_from[before] = next_from[q]
                lengths[head] += lengths[q]
                # every path of q's chain now belongs to head's chain
                r = q
                while r != -1:
                    heads[r] = head
                    r = next_path[r]
                state[x] |= INNER
                break
            before = q
            q = next_from[q]


@njit(cache=True)
def chain_heads(heads, lengths):
    """Gather the chains after linking: leaves, in the first entries of ``heads`` and
    ``lengths``, each chain's first path and arcs, chains in the order of their first paths.

    Returns
    -------
    int
        Number of chains.
    """
    chains = 0
    for p in range(heads.size):  # a chain's first path is its own head; chains <= p, so in place
        if heads[p] == p:
            heads[chains] = p
            lengths[chains] = lengths[p]
            chains += 1
    return chains


@njit(cache=True)
def count_foreign_arcs(foreign, vertices, path_offsets, state):
    """Count the arcs by which the paths ``foreign`` end outside their pieces into the in-arc
    counts of ``state`` (their pieces' traversals counted only their own arcs)."""
    for p in foreign:
        v = vertices[path_offsets[p + 1] - 1]
        if state[v] & IN_ARCS != MANY_IN_ARCS:
            state[v] += IN_ARC


@njit(parallel=True, cache=True)
def gather_pieces(vertex_starts, arc_starts, written, starts, vertices, arcs, path_offsets, next_from, foreign,
                  first_from, out_vertices, out_arcs, out_offsets, out_next_from, out_foreign):
    """Copy the pieces' paths (each written by :func:`depth_bounded_paths` into its own region
    of the arrays) into gap-free arrays, piece after piece, numbered globally (pieces in
    parallel).

    Piece ``k`` has the vertices ``vertex_starts[k]`` to ``vertex_starts[k + 1] - 1`` and the
    arcs from ``arc_starts[k]``; its positions are at ``2 * arc_starts[k]`` in ``vertices`` and
    ``arcs``, its paths at ``arc_starts[k] + k`` in ``path_offsets`` and ``arc_starts[k]`` in
    ``next_from``, its paths ending outside at ``arc_starts[k]`` in ``foreign``; ``written[k]``
    holds its (positions, paths, paths ending outside) and ``starts[k]`` the totals of the
    pieces before it (``starts[-1]``: of all). The path ids in ``next_from``, ``foreign`` and
    the piece's entries of ``first_from`` (updated in place) are shifted by the paths of the
    pieces before. Fills ``out_vertices`` and ``out_arcs`` (the positions), ``out_offsets``
    (the paths plus one), ``out_next_from`` (the paths) and ``out_foreign`` (the paths ending
    outside).
    """
    for k in prange(arc_starts.size - 1):
        start = arc_starts[k]
        positions = starts[k, 0]
        paths = starts[k, 1]
        for j in range(written[k, 0]):
            out_vertices[positions + j] = vertices[2 * start + j]
            out_arcs[positions + j] = arcs[2 * start + j]
        for p in range(written[k, 1]):
            out_offsets[paths + p] = path_offsets[start + k + p] + positions
            following = next_from[start + p]
            out_next_from[paths + p] = following + paths if following >= 0 else -1
        for i in range(written[k, 2]):
            out_foreign[starts[k, 2] + i] = foreign[start + i] + paths
        for v in range(vertex_starts[k], vertex_starts[k + 1]):
            if first_from[v] >= 0:
                first_from[v] += paths
    out_offsets[starts[-1, 1]] = starts[-1, 0]


@njit(parallel=True, cache=True)
def path_ends(vertices, arcs, path_offsets, next_path, heads, lengths, extra, single):
    """What the strongly connected components of the path dependency graph need of each chain
    ``v_0 -> ... -> v_L`` (see :mod:`gpugraph.engines.path.dependency`).

    Fills ``extra[v_{L-1}] = v_1`` for every chain of at least two arcs (``extra`` holds -1
    elsewhere; a vertex is an inner vertex of at most one chain, so it gets at most one such
    arc), and ``single[a] = 1`` for every arc ``a`` that is a chain alone (chains in parallel:
    no two write the same entry).
    """
    for c in prange(heads.size):
        first = path_offsets[heads[c]]
        if lengths[c] == 1:
            single[arcs[first]] = 1
        else:
            last = heads[c]
            while next_path[last] != -1:
                last = next_path[last]
            extra[vertices[path_offsets[last + 1] - 2]] = vertices[first + 1]


@njit(parallel=True, cache=True)
def component_arcs(indptr, indices, extra, single, component, emitted, node_offsets):
    """The graph of the strongly connected components (*nodes*) of the graph's own arcs, with
    the arcs ``v -> extra[v]`` added (:func:`path_ends`): a node's arcs are its vertices' arcs to
    other nodes, each kept. Rows in parallel find the arcs between nodes (marked in ``single``
    with :data:`BETWEEN`); a pass in node order places each vertex's; rows in parallel write
    them.

    Parameters
    ----------
    component, emitted:
        Of :func:`gpugraph.algorithms._scc_cpu.strong_components` on the graph's arcs: the node
        of each vertex, and the vertices grouped by node.
    node_offsets:
        Nodes plus one entries, filled: node ``x``'s arcs are ``node_offsets[x]`` to
        ``node_offsets[x + 1] - 1``.

    Returns
    -------
    (targets, singles)
        Per arc of the node graph: the node it enters, and ``single`` of the graph's arc (0 for
        an extra arc).
    """
    n = emitted.size
    starts = np.empty(n, dtype=np.int64)  # per vertex: its arcs to other nodes, then where they start
    for u in prange(n):
        out = 1 if extra[u] >= 0 and component[extra[u]] != component[u] else 0
        for a in range(indptr[u], indptr[u + 1]):
            if component[indices[a]] != component[u]:
                single[a] |= BETWEEN
                out += 1
        starts[u] = out
    total = 0
    node_offsets[0] = 0
    for u in emitted:  # a node's vertices are consecutive in emitted, nodes in order
        out = starts[u]
        starts[u] = total
        total += out
        node_offsets[component[u] + 1] = total
    targets = np.empty(total, dtype=component.dtype)
    singles = np.empty(total, dtype=np.int8)
    for u in prange(n):
        k = starts[u]
        for a in range(indptr[u], indptr[u + 1]):
            if single[a] & BETWEEN:
                targets[k] = component[indices[a]]
                singles[k] = single[a] & 1
                k += 1
        if extra[u] >= 0 and component[extra[u]] != component[u]:
            targets[k] = component[extra[u]]
            singles[k] = 0
    return targets, singles


@njit(parallel=True, cache=True)
def chain_components(component, count, vertices, path_offsets, heads, blocks, scc):
    """A symmetric graph's SCC-vertex of every chain: the component of its first vertex
    (``scc``, filled; every chain is in layer 0), counted per component in parallel over
    ``blocks`` blocks of chains as :func:`path_layers` counts.

    Returns
    -------
    (num_sccs, largest_scc)
        Components holding chains; chains in the largest.
    """
    size = (heads.size + blocks - 1) // blocks
    # chains per block and component; rows a cache line apart at least (a graph of one component
    # would otherwise have every block add into one line)
    counts = np.empty((blocks, count + ROW_PAD), dtype=heads.dtype)
    for b in prange(blocks):
        counts[b, :] = 0
        for c in range(b * size, min(b * size + size, heads.size)):
            scc[c] = component[vertices[path_offsets[heads[c]]]]
            counts[b, scc[c]] += 1
    num_sccs = 0
    largest = 0
    for x in range(count):
        total = 0
        for b in range(blocks):
            total += counts[b, x]
        if total:
            num_sccs += 1
            largest = max(largest, total)
    return num_sccs, largest


@njit(parallel=True, cache=True)
def path_layers(node_offsets, targets, singles, node, merged, emitted, count, vertices, path_offsets, heads,
                lengths, blocks, scc, layer):
    """SCC-vertex and layer of every chain (the reduction is derived in
    :mod:`gpugraph.engines.path.dependency`).

    A chain ``v_0 -> ... -> v_L`` shares the component of ``v_1`` when it has two arcs or more
    or ``v_0`` and ``v_1`` share one; otherwise it is an SCC-vertex alone between them
    (labelled ``count + c`` for chain ``c``), found for the chains in parallel, and counted per
    component in parallel over ``blocks`` blocks of chains (a row of ``count`` counts each). A
    component holds chains or not; its layer is the most ``layer + holds`` of its predecessors, plus one across a
    chain alone, taken over the arcs between components in topological order (sequential); the
    chains' layers are then read in parallel. Fills ``scc`` and ``layer`` (one entry per chain).

    Parameters
    ----------
    node_offsets, targets, singles:
        The node graph of :func:`component_arcs`.
    node:
        The node of each vertex.
    merged, emitted, count:
        Of :func:`gpugraph.algorithms._scc_cpu.strong_components` on the node graph: the
        component of each node, the nodes grouped by component, and the components.

    Returns
    -------
    (num_sccs, largest_scc)
        SCC-vertices holding chains; chains in the largest.
    """
    for c in prange(heads.size):  # scc: the component of v_1, or -1 - that of v_0 for a chain alone
        first = merged[node[vertices[path_offsets[heads[c]]]]]
        second = merged[node[vertices[path_offsets[heads[c]] + 1]]]
        scc[c] = second if lengths[c] > 1 or first == second else -1 - first
    size = (heads.size + blocks - 1) // blocks
    counts = np.empty((blocks, count + ROW_PAD), dtype=heads.dtype)  # chains per block and component
    for b in prange(blocks):
        counts[b, :] = 0
        for c in range(b * size, min(b * size + size, heads.size)):
            if scc[c] >= 0:
                counts[b, scc[c]] += 1
    holds = np.empty(count, dtype=np.int64)
    paths_in = np.empty(count, dtype=np.int64)
    for x in prange(count):
        total = 0
        for b in range(blocks):
            total += counts[b, x]
        paths_in[x] = total
        holds[x] = 1 if total else 0
    component_layer = np.zeros(count, dtype=np.int64)
    for i in range(emitted.size - 1, -1, -1):  # descending component number: a topological order
        x = emitted[i]
        c = merged[x]
        step = component_layer[c] + holds[c]
        for a in range(node_offsets[x], node_offsets[x + 1]):
            d = merged[targets[a]]
            if d != c and step + singles[a] > component_layer[d]:
                component_layer[d] = step + singles[a]
    alone = 0
    for c in prange(heads.size):
        if scc[c] >= 0:
            layer[c] = component_layer[scc[c]]
        else:
            first = -1 - scc[c]
            layer[c] = component_layer[first] + holds[first]
            scc[c] = count + c
            alone += 1
    largest = 1 if alone else 0
    num_sccs = alone
    for c in range(count):
        num_sccs += holds[c]
        largest = max(largest, paths_in[c])
    return num_sccs, largest


@njit(parallel=True, cache=True)
def write_by_layer(layer, num_layers, lengths, block, vertices, arcs, path_offsets, next_path, heads,
                   out_vertices, out_arcs, out_offsets, layer_ends):
    """Write chains out as paths sorted by layer, in chain order within a layer: a counting sort
    in parallel over blocks of ``block`` consecutive chains (each block counts its chains and
    positions per layer, a scan gives each block and layer its first path and position, each
    block writes its chains there; the result does not depend on ``block``). A block reads its
    chains' positions in order and writes one run per layer.

    Chain ``c`` (from ``heads[c]`` along ``next_path``, ``lengths[c]`` arcs) is written with its
    vertices once each, in order, into ``out_vertices`` and ``out_arcs`` (as
    :class:`~gpugraph.engines.path.partition.Paths` holds them); fills ``out_offsets`` (``P + 1``
    entries) and ``layer_ends`` (``num_layers`` entries: the written paths of layers up to ``l``
    are those below ``layer_ends[l]``).
    """
    blocks = (layer.size + block - 1) // block
    chains = np.zeros((blocks, num_layers), dtype=np.int64)  # per block and layer: count, then next path
    positions = np.zeros((blocks, num_layers), dtype=np.int64)  # the same in positions
    for b in prange(blocks):
        for c in range(b * block, min(b * block + block, layer.size)):
            chains[b, layer[c]] += 1
            positions[b, layer[c]] += lengths[c] + 1
    chain_total = 0
    position_total = 0
    for g in range(num_layers):  # layer-major: a layer's blocks in order, then the next layer
        for b in range(blocks):
            count, size = chains[b, g], positions[b, g]
            chains[b, g], positions[b, g] = chain_total, position_total
            chain_total += count
            position_total += size
        layer_ends[g] = chain_total
    out_offsets[layer.size] = position_total
    for b in prange(blocks):
        for c in range(b * block, min(b * block + block, layer.size)):
            g = layer[c]
            out = positions[b, g]
            out_offsets[chains[b, g]] = out
            chains[b, g] += 1
            positions[b, g] += lengths[c] + 1
            q = heads[c]
            start = path_offsets[q]
            while q != -1:
                for j in range(start, path_offsets[q + 1]):
                    out_vertices[out] = vertices[j]
                    out_arcs[out] = arcs[j]
                    out += 1
                q = next_path[q]
                if q != -1:  # the joint is written once: the next path's first arc leaves it
                    out_arcs[out - 1] = arcs[path_offsets[q]]
                    start = path_offsets[q] + 1


@njit(cache=True)
def chunk_boundaries(offsets, max_arcs, bounds):
    """Cut consecutive paths (path ``p`` at ``offsets[p]:offsets[p + 1]``) into chunks of at
    most ``max_arcs`` arcs (a longer path alone): chunk ``c`` holds paths ``bounds[c]`` to
    ``bounds[c + 1] - 1`` (``bounds`` has room for one chunk per path).

    Returns
    -------
    int
        Number of chunks.
    """
    paths = offsets.size - 1
    chunks = 0
    arcs = max_arcs  # forces a new chunk at the first path
    for p in range(paths):
        length = offsets[p + 1] - offsets[p] - 1
        if arcs + length > max_arcs:
            bounds[chunks] = p
            chunks += 1
            arcs = 0
        arcs += length
    bounds[chunks] = paths
    return chunks


@njit(parallel=True, cache=True)
def chunk_index(indptr, vertices, arcs, offsets, chunk_offsets, slots, insertion_max, chunk_mean_degree,
                source_chunks):
    """Mean out-degree of each chunk's positions, and the chunks sending along each vertex's
    out-arcs (chunks in parallel, then rows in parallel).

    Fills ``chunk_mean_degree`` and ``source_chunks``: ``source_chunks[indptr[v]:indptr[v + 1]]``
    are the chunks of ``v``'s out-arcs, ascending. Each arc's chunk is first written at the
    arc's slot in its row's visiting order (``slots``, from :func:`visiting_order`): a vertex's
    arcs leave it in that order in one traversal, so the rows come out nearly sorted and the
    sort after (rows of at most ``insertion_max`` arcs by insertion) moves few entries.
    """
    for c in prange(chunk_offsets.size - 1):
        degree = 0
        for j in range(offsets[chunk_offsets[c]], offsets[chunk_offsets[c + 1]]):
            degree += indptr[vertices[j] + 1] - indptr[vertices[j]]
            if arcs[j] >= 0:
                source_chunks[slots[arcs[j]]] = c
        chunk_mean_degree[c] = degree / max(offsets[chunk_offsets[c + 1]] - offsets[chunk_offsets[c]], 1)
    for u in prange(indptr.size - 1):
        start = indptr[u]
        end = indptr[u + 1]
        if end - start <= insertion_max:
            for i in range(start + 1, end):
                chunk = source_chunks[i]
                j = i
                while j > start and source_chunks[j - 1] > chunk:
                    source_chunks[j] = source_chunks[j - 1]
                    j -= 1
                source_chunks[j] = chunk
        else:
            source_chunks[start:end] = np.sort(source_chunks[start:end])
