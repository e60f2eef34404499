"""From a SNAP edge list to a plot of the vertices of highest PageRank, as a notebook in a script.

Run: ``python examples/snap_top_pagerank.py [SNAP file] [--top 20] [--out top_pagerank.png]
[--device cpu]``. Without a file it reads ``../shared/datasets/wiki-Vote.txt.gz`` when that
exists, else the small ``examples/data/tiny-snap.txt``. The ``# %%`` cells run one by one in
Jupyter or VS Code (with the defaults). Exits 1 if the top vertices disagree with NetworkX.
"""

# %% [markdown]
# # The most central vertices of a SNAP graph
#
# Settings: the file, how many vertices to show, where to save the plot, which device.

# %%
import argparse
import sys
import time
from pathlib import Path

import numpy as np

import gpugraph as gg

# A notebook has no __file__; Jupyter and VS Code start it in the file's folder.
EXAMPLES = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
WIKI_VOTE = EXAMPLES.parents[1] / "shared" / "datasets" / "wiki-Vote.txt.gz"
TINY_SNAP = EXAMPLES / "data" / "tiny-snap.txt"
#: NetworkX's PageRank is run for the cross-check on graphs with fewer edges than this.
NETWORKX_MAX_EDGES = 200_000
#: How many of the top vertices must agree with NetworkX.
CHECKED = 5
#: Inside Jupyter the kernel's command line is not ours, and exiting would stop the kernel.
NOTEBOOK = "ipykernel" in sys.modules

parser = argparse.ArgumentParser(description="The vertices of highest PageRank of a SNAP graph, plotted.")
parser.add_argument("graph", nargs="?", type=Path, default=WIKI_VOTE if WIKI_VOTE.exists() else TINY_SNAP,
                    help="SNAP edge list, possibly .gz (default: wiki-Vote if present, else tiny-snap.txt)")
parser.add_argument("--top", type=int, default=20, help="vertices to list and plot (default 20)")
parser.add_argument("--out", type=Path, default=Path("top_pagerank.png"), help="PNG file for the plot")
parser.add_argument("--device", default=None, help="cpu, cuda, cuda:N (default: GPUGRAPH_DEVICE, else auto)")
args = parser.parse_args([] if NOTEBOOK else None)
if args.top < 1:
    parser.error(f"--top must be at least 1, got {args.top}")

# %% [markdown]
# ## Load the graph
#
# `gg.load` detects the SNAP format, skips the `#` header lines and keeps the file's vertex ids
# (SNAP ids are sparse; the graph numbers them densely and maps back). A SNAP file describes a
# simple graph, so repeated lines are merged (`duplicates="first"`), which is also what
# NetworkX's `DiGraph` does with them below.

# %%
start = time.perf_counter()
try:
    graph = gg.load(args.graph, device=args.device, duplicates="first")
except gg.GpugraphError as error:  # a missing or malformed file: one line naming it (and the line)
    sys.exit(f"error: {error}")
print(f"{graph!r}: loaded in {time.perf_counter() - start:.2f} s")

# %% [markdown]
# ## PageRank
#
# NetworkX's meaning: damping 0.85, the rank of vertices without out-links spread evenly. A
# tight tolerance makes the order of the top vertices stable enough to compare.

# %%
result = gg.pagerank(graph, damping=0.85, tol=1e-10, max_iterations=1000)
rank = result.to_numpy("rank")
print(f"PageRank: {result.stats['rounds']} iterations, converged: {result.stats['converged']}, "
      f"{result.stats['seconds'] * 1e3:.1f} ms on {graph.device}")

# %% [markdown]
# ## The top vertices, in the file's ids
#
# Sorted by rank, ties by id; `to_original` turns internal ids back into the ids of the file.

# %%
top = min(args.top, graph.num_vertices)
order = np.lexsort((np.arange(rank.size), -rank))[:top]
top_ids = graph.to_original(order)
in_degree = gg.backend.to_numpy(graph.in_degree())
out_degree = gg.backend.to_numpy(graph.out_degree())
print(f"\n{'#':>3}  {'vertex':>10}  {'pagerank':>10}  {'in':>6}  {'out':>6}")
for position, (vertex, internal) in enumerate(zip(top_ids.tolist(), order.tolist()), 1):
    print(f"{position:>3}  {vertex:>10}  {rank[internal]:>10.6f}  {in_degree[internal]:>6}  {out_degree[internal]:>6}")

# %% [markdown]
# ## Plot
#
# A horizontal bar per vertex, the highest at the top, saved as a PNG (matplotlib's Agg
# backend: no display needed).

# %%
try:
    import matplotlib
except ImportError:
    sys.exit("matplotlib is needed for the plot: pip install 'matplotlib>=3.8'")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after choosing the backend

figure, axes = plt.subplots(figsize=(7, 0.25 * top + 1.2))
axes.barh(np.arange(top), rank[order], color="tab:blue")
axes.set_yticks(np.arange(top), [str(vertex) for vertex in top_ids.tolist()])
axes.invert_yaxis()
axes.set_xlabel("PageRank")
axes.set_ylabel("vertex (id in the file)")
axes.set_title(f"Top {top} vertices by PageRank: {args.graph.name}")
figure.tight_layout()
args.out.parent.mkdir(parents=True, exist_ok=True)
figure.savefig(args.out, dpi=120)
plt.close(figure)
print(f"\nplot written to {args.out}")

# %% [markdown]
# ## Cross-check with NetworkX
#
# On graphs small enough for NetworkX, its PageRank must rank the same vertices first: the top
# 5 agree when NetworkX gives each of our top 5 the rank of its own vertex at that position
# (equal up to the tolerance, so exact ties may come in either order).

# %%
agree = True
if graph.num_edges >= NETWORKX_MAX_EDGES:
    print(f"cross-check skipped: {graph.num_edges:,} edges (NetworkX is run below {NETWORKX_MAX_EDGES:,})")
else:
    import networkx as nx

    src, dst = (gg.backend.to_numpy(array) for array in graph.edges()[:2])
    nx_graph = nx.DiGraph()
    nx_graph.add_nodes_from(graph.to_original(np.arange(graph.num_vertices)).tolist())
    nx_graph.add_edges_from(zip(graph.to_original(src).tolist(), graph.to_original(dst).tolist()))
    expected = nx.pagerank(nx_graph, alpha=0.85, tol=1e-10, max_iter=1000)
    nx_top = sorted(expected, key=lambda vertex: (-expected[vertex], vertex))[:CHECKED]
    ours = top_ids[:CHECKED].tolist()
    agree = all(abs(expected[mine] - expected[theirs]) <= 1e-9 for mine, theirs in zip(ours, nx_top))
    print(f"top {CHECKED} by gpugraph:  {ours}")
    print(f"top {CHECKED} by NetworkX: {nx_top}")
    print(f"agree: {'yes' if agree else 'NO'} (largest rank difference "
          f"{max(abs(expected[vertex] - rank[graph.to_internal([vertex])[0]]) for vertex in ours):.1e})")

# %%
if __name__ == "__main__" and not NOTEBOOK:
    sys.exit(0 if agree else 1)
