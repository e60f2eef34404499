"""GPU BFS (private: call gpugraph.algorithms.bfs.run).

Where the time of a level-synchronous GPU BFS goes on a road graph is not the edges but the
levels: a thousand levels of a few hundred vertices each, every level paying kernel launches and
a device-to-host read to learn the next frontier's size. So the search is split in two kinds of
step:

* :func:`top_down_levels` is one *persistent* kernel that runs as many top-down levels as it can
  on its own: every thread walks frontier vertices of a queue, claims unvisited neighbours with a
  compare-and-swap on ``depth`` and appends them to the other queue; a grid-wide barrier ends
  each level. It stops when the frontier is empty or too heavy for it (more than
  ``config.BFS_PERSISTENT_EDGES`` frontier edges, or a vertex of degree above
  ``config.BFS_PERSISTENT_DEGREE``, which one thread would walk alone). The grid is sized so all
  its blocks are resident at once (the barrier needs it).
* Heavy levels return to the host loop in :func:`levels`: top-down with the edge-balanced
  :func:`gpugraph.ops.advance`, or bottom-up with :func:`bottom_up_step` (direction-optimising,
  Beamer's heuristic), which counts the vertices it finds and their degrees in block-local
  shared memory so one small read tells the host what the next level looks like.
"""

from __future__ import annotations

import time

import numpy as np

from gpugraph import config
from gpugraph.backend.kernels import launch_cuda_grid, launch_cuda_kernel
from gpugraph.backend.numba_cuda import load_numba_cuda
from gpugraph.ops import Frontier, advance

cuda = load_numba_cuda()

#: Slots of the persistent kernel's ``control`` array: three rings of (count, edges, max degree)
#: for the level being built, then the result (see :func:`top_down_levels`).
_RING = 3
_RESULT = 3 * _RING


@cuda.jit(device=True)
def grid_barrier(barrier, blocks):
    """Wait until every block of the grid has arrived (all blocks must be resident).

    ``barrier[0]`` counts arrivals since launch; a block's arrival number tells it which
    multiple of ``blocks`` ends its round, so the counter never needs resetting. The fences
    publish this block's writes before it arrives and order its later reads after the others'.
    """
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        cuda.threadfence()
        arrived = cuda.atomic.add(barrier, 0, 1)
        target = (arrived // blocks + 1) * blocks
        while cuda.atomic.add(barrier, 0, 0) < target:
            pass
        cuda.threadfence()
    cuda.syncthreads()


@cuda.jit(cache=True)
def top_down_levels(indptr, indices, depth, parent, queue_a, queue_b, first_level, first_size,
                    control, barrier, edge_limit, degree_limit, history):
    """Top-down levels from the frontier ``queue_a[:first_size]`` (at depth ``first_level``)
    until the frontier is empty or too heavy; see the module docstring.

    ``control`` (int64, zeroed) ends with ``[levels done, final frontier size, 0 if the final
    frontier is in queue_a else 1, its out-edges, its largest degree, out-edges of all the
    levels found]`` at ``_RESULT``; ``history[l]`` gets the size of level l.
    """
    thread = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    stride = np.int64(cuda.gridDim.x) * cuda.blockDim.x
    blocks = cuda.gridDim.x
    level = first_level
    size = first_size
    parity = 0
    done = 0
    found_edges = np.int64(0)
    totals = cuda.shared.array(3, np.int64)
    edges = np.int64(0)
    heaviest = np.int64(0)
    while True:
        source = queue_a if parity == 0 else queue_b
        target = queue_b if parity == 0 else queue_a
        slot = ((level + 1) % _RING) * 3
        if thread == 0:
            spare = ((level + 2) % _RING) * 3
            control[spare] = 0
            control[spare + 1] = 0
            control[spare + 2] = 0
        for item in range(thread, size, stride):
            vertex = source[item]
            for edge in range(indptr[vertex], indptr[vertex + 1]):
                neighbour = indices[edge]
                if depth[neighbour] < 0:
                    if cuda.atomic.cas(depth, neighbour, np.int32(-1), np.int32(level + 1)) == -1:
                        parent[neighbour] = vertex
                        target[cuda.atomic.add(control, slot, 1)] = neighbour
                        degree = indptr[neighbour + 1] - indptr[neighbour]
                        cuda.atomic.add(control, slot + 1, degree)
                        cuda.atomic.max(control, slot + 2, degree)
        grid_barrier(barrier, blocks)
        # Three threads per block read the level's totals at once (atomically: L1 may hold stale
        # copies) and share them, instead of every thread hitting the same three words.
        if cuda.threadIdx.x < 3:
            totals[cuda.threadIdx.x] = cuda.atomic.add(control, slot + cuda.threadIdx.x, 0)
        cuda.syncthreads()
        size = totals[0]
        edges = totals[1]
        heaviest = totals[2]
        cuda.syncthreads()
        level += 1
        done += 1
        parity = 1 - parity
        if thread == 0:
            history[level] = size
            found_edges += edges
        if size == 0 or edges > edge_limit or heaviest > degree_limit:
            break
    if thread == 0:
        control[_RESULT] = done
        control[_RESULT + 1] = size
        control[_RESULT + 2] = parity
        control[_RESULT + 3] = edges
        control[_RESULT + 4] = heaviest
        control[_RESULT + 5] = found_edges


@cuda.jit(cache=True)
def bottom_up_step(in_indptr, in_indices, indptr, frontier_flags, level, depth, parent, next_flags, found,
                   max_degree):
    """One thread per unvisited vertex of at most ``max_degree`` in-edges (the others are
    :func:`bottom_up_heavy`'s): the first in-neighbour in the frontier becomes its parent.
    ``found`` (int64, zeroed) receives how many vertices joined the next frontier and their
    out-degrees' sum, reduced per block in shared memory first."""
    counts = cuda.shared.array(2, np.int64)
    if cuda.threadIdx.x == 0:
        counts[0] = 0
        counts[1] = 0
    cuda.syncthreads()
    vertex = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if vertex < depth.shape[0] and depth[vertex] < 0 and in_indptr[vertex + 1] - in_indptr[vertex] <= max_degree:
        for position in range(in_indptr[vertex], in_indptr[vertex + 1]):
            candidate = in_indices[position]
            if frontier_flags[candidate]:
                depth[vertex] = level + 1
                parent[vertex] = candidate
                next_flags[vertex] = 1
                cuda.atomic.add(counts, 0, 1)
                cuda.atomic.add(counts, 1, indptr[vertex + 1] - indptr[vertex])
                break
    cuda.syncthreads()
    if cuda.threadIdx.x == 0 and counts[0] > 0:
        cuda.atomic.add(found, 0, counts[0])
        cuda.atomic.add(found, 1, counts[1])


@cuda.jit(cache=True)
def bottom_up_heavy(in_indptr, in_indices, indptr, heavy, frontier_flags, level, depth, parent, next_flags, found):
    """One warp per unvisited vertex of ``heavy`` (many in-edges): the lanes test 32 in-edges
    at a time and the warp stops at the first group holding a frontier vertex, instead of one
    thread walking a long list alone. Counts into ``found`` as :func:`bottom_up_step`."""
    counts = cuda.shared.array(2, np.int64)
    if cuda.threadIdx.x == 0:
        counts[0] = 0
        counts[1] = 0
    cuda.syncthreads()
    warp = (np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x) // 32
    lane = cuda.threadIdx.x % 32
    if warp < heavy.shape[0]:
        vertex = heavy[warp]
        if depth[vertex] < 0:
            end = in_indptr[vertex + 1]
            base = in_indptr[vertex]
            while base < end:
                position = base + lane
                hit = position < end and frontier_flags[in_indices[position]] != 0
                if cuda.ballot_sync(0xFFFFFFFF, hit) != 0:
                    if hit:
                        parent[vertex] = in_indices[position]  # any frontier in-neighbour will do
                    if lane == 0:
                        depth[vertex] = level + 1
                        next_flags[vertex] = 1
                        cuda.atomic.add(counts, 0, 1)
                        cuda.atomic.add(counts, 1, indptr[vertex + 1] - indptr[vertex])
                    break
                base += 32
    cuda.syncthreads()
    if cuda.threadIdx.x == 0 and counts[0] > 0:
        cuda.atomic.add(found, 0, counts[0])
        cuda.atomic.add(found, 1, counts[1])


def _discover(src, dst, depth, parent):
    """Top-down edge of a heavy level: an unvisited destination takes the source as parent and
    joins the frontier (every source of a level is a valid parent, so races are benign)."""
    if depth[dst] < 0:
        parent[dst] = src
        return True
    return False


def levels(graph, source: int, depth, parent, switch: bool) -> tuple:
    """Run the BFS from ``source`` into ``depth`` / ``parent`` (filled with -1).

    Parameters
    ----------
    graph:
        The graph, on a CUDA backend (real or simulated).
    source:
        Internal id of the start vertex.
    depth, parent:
        Device arrays (int32, int64) filled with -1.
    switch:
        Whether heavy levels may go bottom-up (direction optimisation).

    Returns
    -------
    tuple
        ``(levels, bottom-up levels, arcs out of reached vertices, frontier size per level,
        steps)``; each step is ``(kind, levels, seconds)`` with kind ``"persistent"``,
        ``"top-down"`` or ``"bottom-up"``.
    """
    backend = graph.backend
    xp = backend.xp
    n = graph.num_vertices
    indptr, indices = graph.indptr, graph.indices
    out_degree = graph.out_degree()
    depth[source] = 0
    parent[source] = source
    queue_a = xp.empty(n, dtype=indices.dtype)
    queue_b = xp.empty(n, dtype=indices.dtype)
    queue_a[0] = source
    history = xp.zeros(n + 2, dtype=np.int64)
    control = xp.zeros(_RESULT + 6, dtype=np.int64)
    barrier = xp.zeros(1, dtype=np.int64)
    blocks = 1 if backend.simulated else backend.multiprocessors() * config.BFS_PERSISTENT_BLOCKS_PER_SM
    sizes = [1]
    frontier_edges = heaviest = int(out_degree[source])
    reached_edges = frontier_edges
    level, bottom_up_rounds, size, previous_size = 0, 0, 1, 0
    frontier = None  # the frontier when a host step made it; else it is queue_a[:size]
    bottom_up = False
    heavy = light_degree = None
    steps = []
    while size:
        if switch:
            unexplored_edges = graph.num_arcs - reached_edges
            if not bottom_up:
                bottom_up = frontier_edges > unexplored_edges / config.BFS_ALPHA and size > previous_size
            else:
                bottom_up = not (size < n / config.BFS_CUDA_BETA and size < previous_size)
        previous_size = size
        if frontier is None and (bottom_up or _heavy(frontier_edges, heaviest)):
            frontier = Frontier.from_ids(graph, queue_a[:size], check=False, deduplicate=False)
        began = time.perf_counter()
        if bottom_up:
            if heavy is None:
                heavy, light_degree = _heavy_vertices(graph)
            next_flags = xp.zeros(n, dtype=np.uint8)
            found = xp.zeros(2, dtype=np.int64)
            arguments = (frontier.flags(), np.int32(level), depth, parent, next_flags, found)
            launch_cuda_kernel(bottom_up_step, backend, n, graph.in_indptr, graph.in_indices, indptr,
                               *arguments, light_degree)
            if heavy.size:
                launch_cuda_kernel(bottom_up_heavy, backend, heavy.size * 32, graph.in_indptr, graph.in_indices,
                                   indptr, heavy, *arguments)
            size, frontier_edges = (int(value) for value in _host(found))
            heaviest = frontier_edges
            frontier = Frontier.from_flags(graph, next_flags)
            bottom_up_rounds += 1
        elif _heavy(frontier_edges, heaviest):
            frontier = advance(graph, frontier, _discover, bindings={"depth": depth, "parent": parent}, output="sparse")
            size = frontier.size
            frontier_edges = heaviest = 0
            if size:
                ids = frontier.ids()
                depth[ids] = level + 1
                degrees = out_degree[ids]
                frontier_edges, heaviest = int(degrees.sum()), int(degrees.max())
        else:
            if frontier is not None:
                queue_a[:size] = frontier.ids()
                frontier = None
            control.fill(0)
            launch_cuda_grid(top_down_levels, backend, blocks, backend.threads_per_block(), indptr, indices,
                             depth, parent, queue_a, queue_b, np.int64(level), np.int64(size), control, barrier,
                             np.int64(config.BFS_PERSISTENT_EDGES), np.int64(config.BFS_PERSISTENT_DEGREE), history)
            done, size, parity, frontier_edges, heaviest, found_edges = (int(v) for v in _host(control[_RESULT:]))
            sizes.extend(int(value) for value in _host(history[level + 1:level + 1 + done]))
            level += done
            reached_edges += found_edges
            if parity:
                queue_a[:size] = queue_b[:size]
            steps.append(("persistent", done, time.perf_counter() - began))
            continue
        steps.append(("bottom-up" if bottom_up else "top-down", 1, time.perf_counter() - began))
        level += 1
        sizes.append(size)
        reached_edges += frontier_edges
    return level, bottom_up_rounds, reached_edges, sizes, steps


def _heavy_vertices(graph):
    """Vertices the bottom-up step gives a warp each, and the in-degree above which they do
    (the simulator has no warp votes: there every vertex takes the one-thread kernel)."""
    xp = graph.backend.xp
    if graph.backend.simulated:
        return xp.empty(0, dtype=np.int64), np.int64(np.iinfo(np.int64).max)
    limit = config.BFS_BOTTOM_UP_WARP_DEGREE
    return xp.flatnonzero(xp.diff(graph.in_indptr) > limit), np.int64(limit)


def _heavy(frontier_edges: int, heaviest: int) -> bool:
    """Whether a top-down level is too heavy for the persistent kernel's one thread per vertex."""
    return frontier_edges > config.BFS_PERSISTENT_EDGES or heaviest > config.BFS_PERSISTENT_DEGREE


def _host(array) -> np.ndarray:
    """A small device array as a NumPy array (the simulator's arrays already are)."""
    return array.get() if hasattr(array, "get") else np.asarray(array)
