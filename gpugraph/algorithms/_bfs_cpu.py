"""Numba CPU kernels of BFS (private: call gpugraph.algorithms.bfs.run).

:func:`search` runs a whole BFS in one compiled call, so the ~2,000 levels of a road graph
(pace-FLA) cost no Python work and no array allocation each. Top-down levels expand a serial
queue: work-efficient, and a parallel level would pay a thread barrier (10-30 us for Numba's
OpenMP pool on two cores), as much as a whole pace-FLA level takes (~15 us). Bottom-up levels,
which read every vertex, run in parallel, one iteration per vertex (Beamer, Asanovic &
Patterson, SC'12).

Vertex ids and edge positions are cast to unsigned integers before they index an array: Numba
then leaves out the negative-index wrap-around test of every access, which takes a quarter of
the serial queue's time on pace-FLA.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(parallel=True, cache=True, nogil=True)
def search(indptr, indices, in_indptr, in_indices, source, switch, alpha, beta, min_bottom_up_share, depth, parent):
    """BFS from ``source`` into ``depth`` / ``parent`` (both filled with -1 on entry).

    Parameters
    ----------
    indptr, indices:
        CSR out-edges.
    in_indptr, in_indices:
        CSC in-edges, read by bottom-up levels only (pass the CSR arrays when ``switch`` is false).
    source:
        Start vertex.
    switch:
        Direction optimisation: a level goes bottom-up when its frontier's out-edges exceed the
        unexplored edges / ``alpha`` while the frontier grows and it holds at least
        ``n * min_bottom_up_share`` vertices (a bottom-up level reads every vertex's depth);
        it returns top-down once the frontier shrinks below ``n / beta``.
    alpha, beta, min_bottom_up_share:
        The thresholds above (``config.BFS_ALPHA``, ``config.BFS_BETA``,
        ``config.CPU_BFS_BOTTOM_UP_MIN_SHARE``).
    depth, parent:
        int32 / int64 arrays of length ``n``; on return the hop distance and a BFS parent of
        every reached vertex (``parent[source] == source``).

    Returns
    -------
    tuple
        ``(levels, bottom-up levels, arcs out of reached vertices, frontier sizes)``; the sizes
        are one per level (``[1, ...]``) and a final 0, ``levels + 1`` entries.

    Bottom-up levels race benignly: an iteration writes only its own vertex, and it tests its
    in-neighbours for ``depth == level``, which a concurrent write (-1 to ``level + 1``) can
    neither make nor break.
    """
    n = depth.shape[0]
    one = np.uint64(1)
    # queue[level_start:level_end] is the frontier of a top-down level; a bottom-up level leaves
    # its frontier only in ``depth`` and the queue is rebuilt from it when top-down resumes.
    queue = np.empty(n, dtype=indices.dtype)
    frontier_sizes = np.empty(n + 1, dtype=np.int64)
    depth[source] = 0
    parent[source] = source
    queue[0] = source
    level_start = np.uint64(0)
    level_end = np.uint64(1)
    queued = True
    size = 1
    frontier_edges = indptr[source + 1] - indptr[source]
    reached_edges = frontier_edges
    previous_size = 0
    bottom_up = False
    level = 0
    bottom_up_levels = 0
    while size > 0:
        frontier_sizes[level] = size
        if switch:
            if not bottom_up:
                bottom_up = (frontier_edges > (indices.shape[0] - reached_edges) / alpha and size > previous_size
                             and size >= n * min_bottom_up_share)
            else:
                bottom_up = not (size < n / beta and size < previous_size)
        previous_size = size
        if bottom_up:
            found = 0
            found_edges = 0
            for vertex in numba.prange(n):
                if depth[vertex] < 0:
                    for position in range(np.uint64(in_indptr[vertex]), np.uint64(in_indptr[vertex + 1])):
                        candidate = np.uint64(in_indices[position])
                        if depth[candidate] == level:
                            depth[vertex] = level + 1
                            parent[vertex] = candidate
                            found += 1
                            found_edges += indptr[vertex + 1] - indptr[vertex]
                            break
            size = found
            frontier_edges = found_edges
            queued = False
            bottom_up_levels += 1
        else:
            if not queued:
                level_start = np.uint64(0)
                level_end = np.uint64(0)
                for vertex in range(n):
                    if depth[vertex] == level:
                        queue[level_end] = vertex
                        level_end += one
                queued = True
            next_depth = np.int32(level + 1)
            tail = level_end
            found_edges = 0
            for head in range(level_start, level_end):
                vertex = np.uint64(queue[head])
                for edge in range(np.uint64(indptr[vertex]), np.uint64(indptr[vertex + one])):
                    neighbour = np.uint64(indices[edge])
                    if depth[neighbour] < 0:
                        depth[neighbour] = next_depth
                        parent[neighbour] = vertex
                        queue[tail] = neighbour
                        tail += one
                        found_edges += indptr[neighbour + one] - indptr[neighbour]
            level_start = level_end
            level_end = tail
            size = np.int64(tail - level_start)
            frontier_edges = found_edges
        reached_edges += frontier_edges
        level += 1
    frontier_sizes[level] = 0
    return level, bottom_up_levels, reached_edges, frontier_sizes[:level + 1]
