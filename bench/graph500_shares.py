"""The delegate threshold's table for a Graph500 graph: for each candidate TH (a power of two),
the share of edges that would be normal-to-normal (what ``separation.choose_threshold`` compares
with ``config.GRAPH500_NN_EDGE_SHARE`` / ``_SEVERAL``) and the number of delegates, then the TH
the rule chooses for one and for several processes. Needs no GPU: run it on the CPU to check a
change of the rule's shares against measured sweeps (``bench/graph500_check.py --steps sweep``).

    python3 bench/graph500_shares.py --scale 26    # ~150 s on 2 cores; the edges alone take 8 GiB

Used in the twenty-second session (docs/graph500.md) to set the one-process share to 7.5%.
"""

import argparse
import time

from gpugraph import config
from gpugraph.backend import get_backend, to_numpy
from gpugraph.graph500 import separation
from gpugraph.graph500.bfs import Group
from gpugraph.io.generators import rmat_edges


def main() -> None:
    """Generate the graph, print the table and the rule's choices."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--processes", type=int, default=4, help="p for the several-process choice")
    args = parser.parse_args()
    began = time.perf_counter()
    group = Group(get_backend(args.device))
    generated = rmat_edges(args.scale, args.edge_factor, seed=args.seed, device=group.backend, progress=False)
    sources, targets = generated.src, generated.dst
    del generated
    degree = separation.degrees(group, sources, targets, 1 << args.scale)
    table = separation.edge_share_table(group, sources, targets, degree)
    degree = to_numpy(degree)
    print(f"scale {args.scale}: {int(table[-1]):,} edges without self-loops")
    for log2 in range(4, 15):
        threshold = 1 << log2
        print(f"TH {threshold:>6}: nn share {100 * table[log2] / table[-1]:6.2f}%, "
              f"delegates {int((degree > threshold).sum()):,}")
    print(f"chosen: one process TH {separation.choose_threshold(degree, table, 1)} "
          f"(share {config.GRAPH500_NN_EDGE_SHARE}), {args.processes} processes TH "
          f"{separation.choose_threshold(degree, table, args.processes)} "
          f"(share {config.GRAPH500_NN_EDGE_SHARE_SEVERAL}); {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
