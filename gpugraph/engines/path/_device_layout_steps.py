"""Per-item steps of the layout built on the device (:mod:`gpugraph.engines.path.device_layout`),
written once in plain Python and compiled twice: by Numba for the CPU (the drivers below, which
loop over the items) and by numba-cuda as device functions (:mod:`._device_layout_cuda`, one
thread or block per item). The two builds therefore run the same statements, and the CPU one is
the reference the simulator tests hold the CUDA one to.

Each vertex is one item of :func:`order_row`: its row in visiting order, and whether a piece
starts there (a hub's row is sorted by one device sort instead, :func:`arc_key` and
:func:`order_hub_slot`). Each piece of the graph (a range of consecutive vertices with about
equal out-arcs) is one item of :func:`trace_piece`: Algorithm 1's depth-bounded traversal of
the piece's out-arcs, as :func:`~._partition_cpu.depth_bounded_paths` runs it on a piece,
without the lists the linking of paths needs (the device layout links none), and the greedy cut
of the piece's paths into chunks. A piece reads and writes only its own vertices' state and its own stretch of the output
arrays, so the pieces run at once with no synchronisation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gpugraph import config
from gpugraph.engines.path._partition_cpu import DEGREE_CEILING, ROW_PLACE_BITS, ROW_PLACE_MASK

#: Bits of the per-vertex ``state`` byte of :func:`trace_piece` (as in
#: :func:`~._partition_cpu.depth_bounded_paths`): reached; expanded (its out-arcs taken).
VISITED = np.int8(1)
EXPANDED = np.int8(16)
#: The longest row :func:`order_rows` sorts by insertion in a scratch of the thread's own, and
#: the most vertices a piece of :func:`trace_pieces` may have to sort its roots there (a size
#: fixed when the GPU kernels compile).
ROW_KEYS = config.PATH_INSERTION_SORT_MAX_ARCS
#: Threads sharing a chunk in the CUDA index (a chunk has at most ``2 * chunk_arcs`` positions,
#: 32 by default), chunks a block, and the block's threads. Kernel time on cnr-2000's and
#: Slashdot's k-core graphs (one H200, 2026-11-29, `docs/runs/s31-path-layout/`), us, with 32 /
#: 16 / 8 lanes a chunk: 273 / 132 / 115 and 52.5 / 30 / 30.
INDEX_LANES = config.WARP_SIZE // 4
INDEX_CHUNKS_PER_BLOCK = 16
INDEX_THREADS = INDEX_CHUNKS_PER_BLOCK * INDEX_LANES
#: Above a head's out-degree in :func:`arc_key`'s keys (out-degrees below 2^32).
HEAD_DEGREE_CEILING = np.int64((1 << 32) - 1)


def order_row(v, indptr, indices, piece_arcs, keys, order, heads, slots, piece_flags, flag_only):
    """Vertex ``v``'s row in Algorithm 1's visiting order, and whether a piece starts at ``v``.

    Parameters
    ----------
    v:
        A vertex, or ``n`` (only its flag: the end of the last piece).
    indptr, indices:
        The graph's CSR arrays.
    piece_arcs:
        Out-arcs per piece, about.
    keys:
        Scratch (the thread's own; on a GPU, in its local memory): a row of at most
        ``keys.size`` arcs is sorted there by insertion, a longer one by heap sort in place in
        ``order``.
    order:
        Filled at ``v``'s row: per slot, the arc position at that slot of the visiting order
        (highest out-degree head first, ties by place), as the host layout's
        :func:`~._partition_cpu.visiting_order` sorts it (the same keys). A row of more than
        ``piece_arcs`` arcs (a hub, a piece alone) is left to :func:`order_hub_slot`: sorting a
        hub's thousands of arcs on one thread would be the slowest thread.
    heads:
        Filled at ``v``'s row (not a hub's) as ``order``: the head of the arc at each slot (so
        that the traversal finds an arc's head without first finding the arc).
    slots:
        Filled at ``v``'s arcs (not a hub's): the inverse of ``order``.
    piece_flags:
        ``piece_flags[v]`` set to 1 if a piece starts at ``v``: at vertex 0 and ``n``; where
        the arcs before ``v`` reach a multiple of ``piece_arcs`` (at the first vertex whose row
        starts at or after it); at each vertex of more than ``piece_arcs`` out-arcs and the
        vertex after it (each such vertex a piece alone). Else 0.
    flag_only:
        Set the flag only: the caller sorts the row (the CUDA build's warps sort the longer
        rows together, :func:`~._device_layout_cuda.order_rows`).
    """
    n = indptr.size - 1
    starts_piece = v == 0 or v == n
    if not starts_piece and indptr[v] - indptr[v - 1] > piece_arcs:
        starts_piece = True
    if not starts_piece and indptr[v + 1] - indptr[v] > piece_arcs:
        starts_piece = True
    if not starts_piece and indptr[v - 1] // piece_arcs < indptr[v] // piece_arcs:
        starts_piece = True
    piece_flags[v] = 1 if starts_piece else 0
    if v == n or flag_only:
        return
    start = indptr[v]
    count = indptr[v + 1] - start
    if count > piece_arcs:
        return
    if count <= keys.size:
        for i in range(count):
            head = indices[start + i]
            key = ((DEGREE_CEILING - (indptr[head + 1] - indptr[head])) << ROW_PLACE_BITS) | i
            j = i
            while j > 0 and keys[j - 1] > key:
                keys[j] = keys[j - 1]
                j -= 1
            keys[j] = key
        for i in range(count):
            arc = start + (keys[i] & ROW_PLACE_MASK)
            order[start + i] = arc
            heads[start + i] = indices[arc]
            slots[arc] = start + i
        return
    for i in range(count):  # keys in place, a heap sort: build the max-heap, then move its top to the end
        head = indices[start + i]
        order[start + i] = ((DEGREE_CEILING - (indptr[head + 1] - indptr[head])) << ROW_PLACE_BITS) | i
    built = count // 2
    for step in range(built + count - 1):
        size = count
        root = built - 1 - step
        if step >= built:
            size = count - 1 - (step - built)
            top = order[start]
            order[start] = order[start + size]
            order[start + size] = top
            root = 0
        while 2 * root + 1 < size:
            child = 2 * root + 1
            if child + 1 < size and order[start + child + 1] > order[start + child]:
                child += 1
            if order[start + root] >= order[start + child]:
                break
            top = order[start + root]
            order[start + root] = order[start + child]
            order[start + child] = top
            root = child
    for i in range(count):
        arc = start + (order[start + i] & ROW_PLACE_MASK)
        order[start + i] = arc
        heads[start + i] = indices[arc]
        slots[arc] = start + i


def arc_key(a, row, indptr, indices, keys):
    """The sort key of arc ``a`` (of row ``row``) for :func:`order_hub_slot`: the row above the
    complement of the head's out-degree (ties keep their places in a stable sort)."""
    head = indices[a]
    keys[a] = (row << 32) | (HEAD_DEGREE_CEILING - (indptr[head + 1] - indptr[head]))


def order_hub_slot(s, row, indptr, indices, piece_arcs, sorted_arcs, order, heads, slots):
    """Slot ``s`` (of row ``row``) of the visiting order if the row is a hub's (more than
    ``piece_arcs`` arcs): the arc at ``s`` of ``sorted_arcs`` (every arc by row, then by
    descending out-degree of its head, ties by place: a stable sort of :func:`arc_key`'s keys),
    or the arc at ``s`` itself if ``sorted_arcs`` is empty (the row in CSR order); its head, and
    the inverse."""
    if indptr[row + 1] - indptr[row] > piece_arcs:
        arc = sorted_arcs[s] if sorted_arcs.size else s
        order[s] = arc
        heads[s] = indices[arc]
        slots[arc] = s


def trace_piece(k, indptr, order, heads, keys, roots, root_degrees, vertex_starts, max_depth, chunk_arcs, state,
                stack_vertex, stack_cursor, stack_end, vertices, arcs, path_offsets, chunk_bounds, written):
    """Cut piece ``k``'s out-arcs into edge-disjoint paths (Algorithm 1) and its paths into chunks.

    Parameters
    ----------
    k:
        The piece: vertices ``vertex_starts[k]`` to ``vertex_starts[k + 1] - 1``.
    indptr:
        The graph's CSR offsets.
    order, heads:
        Per row, the row's arc positions by descending out-degree of their heads (ties by
        place), and those heads (:func:`order_row`).
    keys, roots, root_degrees:
        Scratch where the piece's vertices with out-arcs (the roots) are sorted by descending
        out-degree, ties by id (by insertion, as a piece has at most about twice ``piece_arcs``
        of them): ``keys``, the thread's own (on a GPU, in its local memory), if the piece has
        at most ``keys.size`` vertices, as keys like :func:`order_row`'s; else ``roots`` and
        ``root_degrees`` (one entry per vertex) at the piece's own entries.
    max_depth, chunk_arcs:
        D_MAX, and the most arcs a chunk of several paths holds.
    state:
        One byte per vertex, zeros before the first piece.
    stack_vertex, stack_cursor, stack_end:
        At least ``max_depth + 1`` entries: the traversal's stack (the thread's own).
    vertices, arcs:
        The piece's stretch from ``2 * indptr[vertex_starts[k]]``, filled with its paths one
        after another: each path's vertices, and ``arcs[j]`` the CSR position of the arc
        ``vertices[j] -> vertices[j + 1]`` (-1 at a path's last vertex).
    path_offsets, chunk_bounds:
        The piece's stretch from ``indptr[vertex_starts[k]] + k``, filled with where each path
        starts in the piece's positions (and after the last, their end), and the piece's first
        path of each chunk (and after the last, its paths).
    written:
        Row ``k`` is set to the piece's positions, paths and chunks.
    """
    first = vertex_starts[k]
    last = vertex_starts[k + 1]
    if last - first == 1:  # a piece of one vertex: each of its arcs a path alone (gather_piece writes them)
        degree = indptr[last] - indptr[first]
        written[k, 0] = 2 * degree
        written[k, 1] = degree
        written[k, 2] = (degree + chunk_arcs - 1) // chunk_arcs
        return
    base = 2 * indptr[first]
    path_base = indptr[first] + k
    own = last - first <= keys.size  # the roots sorted in the thread's own scratch
    found = 0
    for u in range(first, last):
        degree = indptr[u + 1] - indptr[u]
        if degree > 0 and own:
            key = ((DEGREE_CEILING - degree) << ROW_PLACE_BITS) | (u - first)
            j = found
            while j > 0 and keys[j - 1] > key:
                keys[j] = keys[j - 1]
                j -= 1
            keys[j] = key
            found += 1
        elif degree > 0:
            j = first + found
            while j > first and root_degrees[j - 1] < degree:
                roots[j] = roots[j - 1]
                root_degrees[j] = root_degrees[j - 1]
                j -= 1
            roots[j] = u
            root_degrees[j] = degree
            found += 1
    length = 0
    paths = 0
    for i in range(found):
        root = first + (keys[i] & ROW_PLACE_MASK) if own else roots[first + i]
        if state[root] & EXPANDED:
            continue
        state[root] = VISITED | EXPANDED
        top = 0
        stack_vertex[0] = root
        stack_cursor[0] = indptr[root]
        stack_end[0] = indptr[root + 1]
        open_path = False
        while top >= 0:
            slot = stack_cursor[top]
            if slot < stack_end[top]:
                u = stack_vertex[top]
                arc = order[slot]
                v = heads[slot]
                stack_cursor[top] = slot + 1
                if not open_path:  # the arc starts a new path at u
                    path_offsets[path_base + paths] = length
                    paths += 1
                    vertices[base + length] = u
                    length += 1
                    open_path = True
                arcs[base + length - 1] = arc
                vertices[base + length] = v
                arcs[base + length] = -1
                length += 1
                if v < first or v >= last or state[v] & VISITED:
                    open_path = False  # the piece's border, or v met again (Algorithm 1, lines 15-16)
                else:
                    top += 1
                    stack_vertex[top] = v
                    if top < max_depth:  # expanded now: all its arcs are taken before it is popped
                        state[v] = VISITED | EXPANDED
                        stack_cursor[top] = indptr[v]
                        stack_end[top] = indptr[v + 1]
                    else:  # at the depth bound: popped at once, expanded later as a root
                        state[v] = VISITED
                        stack_cursor[top] = 0
                        stack_end[top] = 0
            else:
                open_path = False
                top -= 1
    path_offsets[path_base + paths] = length
    chunks = 0
    held = chunk_arcs  # forces a new chunk at the first path
    for p in range(paths):
        path_arcs = path_offsets[path_base + p + 1] - path_offsets[path_base + p] - 1
        if held + path_arcs > chunk_arcs:
            chunk_bounds[path_base + chunks] = p
            chunks += 1
            held = 0
        held += path_arcs
    chunk_bounds[path_base + chunks] = paths
    written[k, 0] = length
    written[k, 1] = paths
    written[k, 2] = chunks


def gather_piece(k, lane, lanes, indptr, indices, order, chunk_arcs, vertex_starts, written, starts, vertices, arcs,
                 path_offsets, chunk_bounds, out_vertices, out_arcs, out_offsets, out_chunks):
    """Copy piece ``k``'s paths and chunks (its stretches of :func:`trace_piece`'s arrays) to
    their place in the layout, ``starts[k]`` (positions, paths and chunks of the pieces before
    it); entries ``lane``, ``lane + lanes``, ... of each, so that ``lanes`` threads share it.

    A piece of one vertex ``u`` was left to this step: Algorithm 1 ends each of its paths after
    one arc (the head is outside the piece, or ``u`` itself, already visited), so path ``j``
    is ``u`` and the head of its ``j``-th arc in visiting order, and chunk ``c`` starts at path
    ``c * chunk_arcs``. A hub's row, on one thread, would be the slowest piece. The last piece
    also writes the ends of the last path and chunk (``out_offsets[paths]``, ``out_chunks[chunks]``)."""
    pieces = vertex_starts.size - 1
    if k == pieces - 1 and lane == 0:
        out_offsets[starts[pieces, 1]] = starts[pieces, 0]
        out_chunks[starts[pieces, 2]] = starts[pieces, 1]
    first = vertex_starts[k]
    position = starts[k, 0]
    path = starts[k, 1]
    chunk = starts[k, 2]
    if vertex_starts[k + 1] - first == 1:
        for j in range(lane, written[k, 1], lanes):
            arc = order[indptr[first] + j]
            out_vertices[position + 2 * j] = first
            out_vertices[position + 2 * j + 1] = indices[arc]
            out_arcs[position + 2 * j] = arc
            out_arcs[position + 2 * j + 1] = -1
            out_offsets[path + j] = position + 2 * j
        for c in range(lane, written[k, 2], lanes):
            out_chunks[chunk + c] = path + c * chunk_arcs
        return
    base = 2 * indptr[first]
    path_base = indptr[first] + k
    for j in range(lane, written[k, 0], lanes):
        out_vertices[position + j] = vertices[base + j]
        out_arcs[position + j] = arcs[base + j]
    for p in range(lane, written[k, 1], lanes):
        out_offsets[path + p] = position + path_offsets[path_base + p]
    for c in range(lane, written[k, 2], lanes):
        out_chunks[chunk + c] = path + chunk_bounds[path_base + c]


def index_chunk(c, lane, lanes, indptr, vertices, arcs, offsets, chunk_offsets, slots, source_chunks):
    """Write ``c`` as the chunk of each of chunk ``c``'s arcs at the arc's slot in its row's
    visiting order (``slots``), and return
    the out-degrees summed over the chunk's positions (D-bar's numerator); positions ``lane``,
    ``lane + lanes``, ... of the chunk, so that ``lanes`` threads share it (consecutive threads
    read consecutive positions). A vertex's arcs leave it in visiting order in its one
    expansion, on paths in emitted order, so each row of ``source_chunks`` comes out ascending."""
    degree = 0
    for j in range(offsets[chunk_offsets[c]] + lane, offsets[chunk_offsets[c + 1]], lanes):
        v = vertices[j]
        degree += indptr[v + 1] - indptr[v]
        if arcs[j] >= 0:
            source_chunks[slots[arcs[j]]] = c
    return degree


def mean_degree(c, degree, offsets, chunk_offsets, chunk_mean_degree):
    """D-bar of chunk ``c``: ``degree`` (its positions' out-degrees summed) over its positions."""
    chunk_mean_degree[c] = degree / max(offsets[chunk_offsets[c + 1]] - offsets[chunk_offsets[c]], 1)


_order_row = njit(cache=True, nogil=True)(order_row)
_arc_key = njit(cache=True, nogil=True)(arc_key)
_order_hub_slot = njit(cache=True, nogil=True)(order_hub_slot)
_trace_piece = njit(cache=True, nogil=True)(trace_piece)
_gather_piece = njit(cache=True, nogil=True)(gather_piece)
_index_chunk = njit(cache=True, nogil=True)(index_chunk)
_mean_degree = njit(cache=True, nogil=True)(mean_degree)


@njit(cache=True, nogil=True)
def order_rows(items, indptr, indices, piece_arcs, order, heads, slots, piece_flags):
    """:func:`order_row` for every vertex and ``n`` (the CPU reference), rows of up to
    :data:`ROW_KEYS` arcs sorted by insertion."""
    keys = np.empty(ROW_KEYS, dtype=np.int64)
    for v in range(items):
        _order_row(v, indptr, indices, piece_arcs, keys, order, heads, slots, piece_flags, False)


@njit(cache=True, nogil=True)
def arc_keys(items, indptr, indices, keys):
    """:func:`arc_key` for every arc (the CPU reference; ``items`` the arcs)."""
    for row in range(indptr.size - 1):
        for a in range(indptr[row], indptr[row + 1]):
            _arc_key(a, row, indptr, indices, keys)


@njit(cache=True, nogil=True)
def order_hub_slots(items, indptr, indices, piece_arcs, sorted_arcs, order, heads, slots):
    """:func:`order_hub_slot` for every slot (the CPU reference; ``items`` the arcs)."""
    for row in range(indptr.size - 1):
        for s in range(indptr[row], indptr[row + 1]):
            _order_hub_slot(s, row, indptr, indices, piece_arcs, sorted_arcs, order, heads, slots)


@njit(cache=True, nogil=True)
def trace_pieces(pieces, indptr, order, heads, roots, root_degrees, vertex_starts, max_depth, chunk_arcs, state,
                 vertices, arcs, path_offsets, chunk_bounds, written):
    """:func:`trace_piece` for every piece, one after another (the CPU reference)."""
    keys = np.empty(ROW_KEYS, dtype=np.int64)
    stack_vertex = np.empty(max_depth + 1, dtype=np.int64)
    stack_cursor = np.empty(max_depth + 1, dtype=np.int64)
    stack_end = np.empty(max_depth + 1, dtype=np.int64)
    for k in range(pieces):
        _trace_piece(k, indptr, order, heads, keys, roots, root_degrees, vertex_starts, max_depth, chunk_arcs,
                     state, stack_vertex, stack_cursor, stack_end, vertices, arcs, path_offsets, chunk_bounds, written)


@njit(cache=True, nogil=True)
def gather_pieces(pieces, indptr, indices, order, chunk_arcs, vertex_starts, written, starts, vertices, arcs,
                  path_offsets, chunk_bounds, out_vertices, out_arcs, out_offsets, out_chunks):
    """:func:`gather_piece` for every piece on one lane (the CPU reference)."""
    for k in range(pieces):
        _gather_piece(k, 0, 1, indptr, indices, order, chunk_arcs, vertex_starts, written, starts, vertices, arcs,
                      path_offsets, chunk_bounds, out_vertices, out_arcs, out_offsets, out_chunks)


@njit(cache=True, nogil=True)
def index_chunks(chunks, indptr, vertices, arcs, offsets, chunk_offsets, slots, chunk_mean_degree, source_chunks):
    """:func:`index_chunk` and :func:`mean_degree` for every chunk on one lane (the CPU reference)."""
    for c in range(chunks):
        degree = _index_chunk(c, 0, 1, indptr, vertices, arcs, offsets, chunk_offsets, slots, source_chunks)
        _mean_degree(c, degree, offsets, chunk_offsets, chunk_mean_degree)
