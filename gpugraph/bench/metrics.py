"""Benchmark metrics: edges per second, Graph500 GTEPS, a bytes-moved model, ceiling fractions.

Edges per second
    Arcs traversed per run / median run time. "Arcs traversed" is the algorithm's
    ``edges_traversed`` counter when it reports one (BFS, SSSP: arcs out of the reached or
    settled vertices; PageRank: arcs x iterations); else ``arcs x rounds`` for whole-graph
    algorithms that report rounds (WCC's single hooking pass, PageRank-like iterations of an
    anchor); else ``arcs`` (one pass, when an anchor does not say how many iterations it made).
    Anchors have no counters: for BFS and SSSP the harness counts the arcs out of the vertices
    they reached, which is what the counter of gpugraph counts. ``metrics["edges_basis"]`` says
    which rule gave the number.
GTEPS (BFS)
    Graph500: one search per root (:func:`gpugraph.bench.graphs.graph500_roots`); TEPS of a
    search = input edges in the traversed component (:func:`gpugraph.bench.graphs.teps_edges`)
    / its time; the summary is the harmonic mean over the roots (Graph500 reports it because it
    is the rate of running all searches back to back), with min, median and max.
Bytes moved
    A per-algorithm model of the DRAM traffic one run needs at least, from the vertex count
    ``n``, the arc count, the rounds and the counters, with ``I`` bytes per stored neighbour id,
    ``O`` per offset, ``W`` per weight (see :func:`bytes_moved`). It is the same for every
    implementation of an algorithm, so it measures how close a time is to the memory system,
    not what one code actually moved (caches make real traffic lower; atomics and
    re-reads higher).
Ceiling fractions
    ``bandwidth``: (modelled bytes / time) / measured copy bandwidth; ``gathers``: (random
    gathers / time) / measured random 4-byte gather rate, with one random gather per traversed
    arc (the neighbour's state). Values near 1 mean the run is as fast as the memory system
    allows under the model.
"""

from __future__ import annotations

import statistics


def harmonic_mean(values: list[float]) -> float:
    """Harmonic mean of non-negative values (0 if any value is 0).

    Parameters
    ----------
    values:
        At least one value.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``values`` is empty or has a negative value.
    """
    if not values:
        raise ValueError("harmonic mean of no values")
    if any(value < 0 for value in values):
        raise ValueError("harmonic mean needs non-negative values")
    if any(value == 0 for value in values):
        return 0.0
    return len(values) / sum(1.0 / value for value in values)


def gteps_summary(edges_per_root: list[float], seconds_per_root: list[float]) -> dict:
    """Graph500 summary of BFS searches, in GTEPS (10^9 traversed edges per second).

    Parameters
    ----------
    edges_per_root:
        Input edges in the traversed component of each search (the TEPS numerator).
    seconds_per_root:
        Time of each search.

    Returns
    -------
    dict
        ``roots``, ``harmonic_mean``, ``min``, ``median``, ``max`` (GTEPS) and ``per_root``
        (GTEPS of each search, in root order).

    Raises
    ------
    ValueError
        If the lists are empty or of different lengths.
    """
    if not edges_per_root or len(edges_per_root) != len(seconds_per_root):
        raise ValueError("one edge count and one time per root are needed")
    teps = [edges / seconds if seconds > 0 else float("inf") for edges, seconds in zip(edges_per_root, seconds_per_root)]
    finite = [value for value in teps if value != float("inf")] or [0.0]
    return {
        "roots": len(teps),
        "harmonic_mean": harmonic_mean(teps) / 1e9,
        "min": min(teps) / 1e9,
        "median": statistics.median(teps) / 1e9,
        "max": max(finite) / 1e9,
        "per_root": [value / 1e9 for value in teps],
    }


def arcs_traversed(algorithm: str, arcs: int, counters: dict) -> tuple[float | None, str]:
    """Arcs one run traverses, and the rule that gave the number (module docstring).

    Parameters
    ----------
    algorithm:
        The algorithm's name: WCC is one pass over the arcs when no rounds are reported.
    arcs:
        Stored arcs of the graph.
    counters:
        The run's counters: ``edges_traversed`` and ``rounds`` where known.

    Returns
    -------
    tuple
        ``(arcs traversed or None, basis)`` with basis ``"edges_traversed"``,
        ``"arcs x rounds"``, ``"arcs (one pass)"`` or ``"unknown (rounds not reported)"``.
    """
    if counters.get("edges_traversed") is not None:
        return float(counters["edges_traversed"]), "edges_traversed"
    if counters.get("rounds"):
        return float(arcs) * counters["rounds"], "arcs x rounds"
    if algorithm in ONE_PASS_ALGORITHMS:
        return float(arcs), "arcs (one pass)"
    return None, "unknown (rounds not reported)"


#: Whole-graph algorithms that read every arc once (when an implementation reports no rounds).
ONE_PASS_ALGORITHMS = ("wcc",)

#: The bytes model of each algorithm, as written in the records (``E``: arcs traversed per run,
#: ``R``: rounds, ``I``/``O``/``W``: bytes per neighbour id / offset / weight).
BYTES_MODELS = {
    "bfs": "E*(I+4) + n*(O+24): each traversed arc reads a neighbour id and its 4-byte depth; each "
           "vertex its offsets, and depth (4) and parent (8) are initialised and written once",
    "sssp": "E*(I+W+8) + n*(O+32): each traversed arc reads a neighbour id, a weight and an 8-byte "
            "distance; distance and predecessor (8 each) are initialised and written once",
    "pagerank": "R*(arcs*(I+8) + n*(O+32)): per iteration every arc reads a source id and its "
                "8-byte share; every vertex its offsets, reads rank and inverse degree, writes "
                "rank and share",
    "wcc": "arcs*(I+8) + n*(O+24): one hooking pass reads every arc and the 8-byte parent of its "
           "end; parent is initialised, then read and written by the compression pass",
}
_GENERIC_MODEL = "R*(arcs*(I+8) + n*(O+16)): per round every arc and 8 bytes of state per arc and vertex"


def bytes_moved(algorithm: str, n: int, arcs: int, edges: float | None, rounds: int | None,
                index_bytes: int, offset_bytes: int, weight_bytes: int) -> tuple[float | None, str]:
    """Modelled DRAM bytes of one run (module docstring; formulas in :data:`BYTES_MODELS`).

    Parameters
    ----------
    algorithm:
        Algorithm name.
    n, arcs:
        Vertex and stored-arc counts.
    edges:
        Arcs traversed by the run (:func:`arcs_traversed`).
    rounds:
        Rounds of the run, ``None`` when unknown.
    index_bytes, offset_bytes, weight_bytes:
        Bytes per stored neighbour id, CSR offset and weight (8 when the weights are implicit).

    Returns
    -------
    tuple
        ``(bytes or None when the model needs unknown rounds, the formula)``.
    """
    if algorithm in ("bfs", "sssp") and edges is None:
        return None, BYTES_MODELS[algorithm]
    if algorithm == "bfs":
        return edges * (index_bytes + 4) + n * (offset_bytes + 24), BYTES_MODELS["bfs"]
    if algorithm == "sssp":
        return edges * (index_bytes + weight_bytes + 8) + n * (offset_bytes + 32), BYTES_MODELS["sssp"]
    if algorithm == "wcc":
        return arcs * (index_bytes + 8) + n * (offset_bytes + 24), BYTES_MODELS["wcc"]
    model = BYTES_MODELS.get(algorithm, _GENERIC_MODEL)
    if not rounds:
        return None, model
    per_vertex = offset_bytes + (32 if algorithm == "pagerank" else 16)
    return rounds * (arcs * (index_bytes + 8) + n * per_vertex), model


def random_gathers(edges: float | None) -> float | None:
    """Random 4-to-8-byte reads of one run under the model: one per traversed arc (the state of
    the arc's other end); ``None`` when the arcs traversed are unknown."""
    return edges


def ceiling_fractions(bytes_per_second: float | None, gathers_per_second: float | None, ceilings: dict) -> dict:
    """Fractions of the measured memory ceilings.

    Parameters
    ----------
    bytes_per_second:
        Modelled bytes / time, or ``None``.
    gathers_per_second:
        Modelled random gathers / time, or ``None``.
    ceilings:
        :func:`gpugraph.bench.ceilings.measure` output (may hold only ``error``).

    Returns
    -------
    dict
        ``bandwidth`` and ``gathers``: a fraction, or ``None`` when either side is unknown.
    """
    copy = ceilings.get("copy_bytes_per_second")
    gathers = ceilings.get("gathers_per_second")
    return {
        "bandwidth": bytes_per_second / copy if bytes_per_second is not None and copy else None,
        "gathers": gathers_per_second / gathers if gathers_per_second is not None and gathers else None,
    }
