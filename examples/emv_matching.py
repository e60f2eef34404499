"""Maximal bipartite matching in Medusa's EMV model (one of the paper's workloads).

A three-way handshake per iteration, each a message exchange (EDGE, Combiner, VERTEX):
unmatched left vertices *propose* to their unmatched right neighbours; each right vertex picks
the smallest proposer; each left vertex *accepts* the smallest right vertex that picked it and
both become matched. Iterations stop when no pair matched (the matching is then maximal).
The library ships no matching algorithm; this shows a multi-phase program.

Run: ``python examples/emv_matching.py [--device cuda]`` (a random bipartite graph).
"""

import sys

import numpy as np

import gpugraph as gg
from gpugraph.algorithms.matching import check_matching
from gpugraph.model import emv

NONE = np.iinfo(np.int64).max   # "no message": the min-combiner's identity


def matching_program():
    """The EMV program; ``side`` is 0 for left and 1 for right vertices."""
    def propose(src, dst, side, match):                # EDGE: left, unmatched -> right, unmatched
        free = side[src] == 0 and match[src] < 0 and side[dst] == 1 and match[dst] < 0
        return src if free else NONE

    def pick(v, candidate, side, match, picked):       # VERTEX: right picks its smallest proposer
        picked[v] = candidate if side[v] == 1 and match[v] < 0 and candidate != NONE else -1

    def accept(src, dst, picked):                      # EDGE: right -> the left vertex it picked
        return src if picked[src] == dst else NONE

    def settle_left(v, candidate, side, match):        # VERTEX: left takes the smallest acceptor
        if side[v] == 0 and candidate != NONE:
            match[v] = candidate
            return True
        return False

    def confirm(src, dst, side, match):                # EDGE: left -> its new partner
        return src if side[src] == 0 and match[src] == dst else NONE

    def settle_right(v, candidate, side, match):       # VERTEX: right learns its partner
        if side[v] == 1 and candidate != NONE and match[v] < 0:
            match[v] = candidate
            return True
        return False

    exchange = [emv.Combiner("min")]
    return emv.Program(
        [emv.EDGE(propose), *exchange, emv.VERTEX(pick), emv.EDGE(accept), *exchange, emv.VERTEX(settle_left),
         emv.EDGE(confirm), *exchange, emv.VERTEX(settle_right)],
        vertex={"side": np.int8, "match": (np.int64, -1), "picked": (np.int64, -1)},
        message={"candidate": np.int64}, name="matching",
    )


def matching(graph, side):
    """A maximal matching of the undirected bipartite ``graph``; ``side[v]`` is 0 or 1.

    Returns the Result; ``result["match"][v]`` is v's partner or -1.
    """
    return matching_program().run(graph, init={"side": side})


def verify(graph, side, match) -> None:
    """Raise AssertionError unless ``match`` is a valid, maximal matching of ``graph``."""
    check_matching(graph, np.asarray(side), np.asarray(match))


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    left, right, edges = 5000, 5000, 20000
    src, dst = rng.integers(0, left, edges), left + rng.integers(0, right, edges)
    graph = gg.from_edges(src, dst, num_vertices=left + right, directed=False, device=args.device)
    side = (np.arange(left + right) >= left).astype(np.int8)
    result = matching(graph, side)
    match = result.to_numpy("match")
    verify(graph, side, match)
    print(f"matching on {graph!r}: {np.count_nonzero(match >= 0) // 2:,} pairs, maximal; {result.stats}")
    sys.exit(0)
