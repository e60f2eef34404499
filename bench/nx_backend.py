"""End-to-end times of NetworkX calls through the gpugraph backend, next to plain NetworkX.

Builds a NetworkX ``DiGraph`` from a Graph500 RMAT edge list (scale 22, edge factor 16: about
4.2M vertices and 60-67M distinct edges, the size of soc-LiveJournal1), then for ``pagerank``,
``weakly_connected_components`` and ``bfs_layers`` (from the highest-degree vertex) times

* ``first_s``: ``nx.f(G, backend="gpugraph")`` with an empty conversion cache (conversion
  NetworkX -> CSR, the library graph on the device, the algorithm, the Python result);
* ``cached_s``: the same call again (the conversion comes from ``G.__networkx_cache__``);
* ``networkx_s``: plain ``nx.f(G)`` (with ``--networkx``), whose answer the backend's (on the
  last device listed) must equal.

Every device in ``--devices`` is timed (``cuda`` needs a GPU). Kernels are compiled on a small graph
first so compile time is not counted. Prints a table and writes JSON (``--json``).

Usage (plain NetworkX's PageRank alone takes minutes at scale 22, hence two runs on the GPU machine)::

    python bench/nx_backend.py --scale 22 --devices cuda,cpu --networkx weakly_connected_components,bfs_layers
    python bench/nx_backend.py --scale 22 --devices cpu --functions pagerank --networkx pagerank
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import time
import warnings

import networkx as nx
import numpy as np

from gpugraph.backend import to_numpy
from gpugraph.io.generators import rmat_edges
from gpugraph.nx.interface import BackendInterface

FUNCTIONS = {
    "pagerank": lambda G, source, **kw: nx.pagerank(G, **kw),
    "weakly_connected_components": lambda G, source, **kw: list(nx.weakly_connected_components(G, **kw)),
    "bfs_layers": lambda G, source, **kw: list(nx.bfs_layers(G, source, **kw)),
}
# nx-cugraph's published soc-LiveJournal1 times on an RTX 3090 (seconds), for the table.
NX_CUGRAPH_LIVEJOURNAL = {"pagerank": 1.19, "weakly_connected_components": 1.17, "bfs_layers": 0.49}


def build_networkx(scale: int, edge_factor: int, seed: int):
    """The NetworkX DiGraph of an RMAT edge list, as ``add_edges_from`` in generation order
    builds it: one arc per distinct (src, dst) pair, neighbours in the order first generated.

    ``add_edges_from`` needs many minutes for 60M edges, so the adjacency dicts are filled in
    bulk (successor and predecessor maps sharing one attribute dict per edge, as NetworkX does).
    :func:`main` checks on a small RMAT graph that both builds hold the same adjacency in the same
    order.
    """
    edges = rmat_edges(scale, edge_factor=edge_factor, seed=seed, device="cpu", progress=False)
    n = 1 << scale
    src, dst = to_numpy(edges.src).astype(np.int64), to_numpy(edges.dst).astype(np.int64)
    del edges
    by_pair = np.argsort(src * n + dst, kind="stable")
    pairs = (src * n + dst)[by_pair]
    first = np.sort(by_pair[np.r_[True, pairs[1:] != pairs[:-1]]])  # first occurrences, in order
    del by_pair, pairs
    src, dst = src[first], dst[first]
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    data = [{} for _ in range(len(src))]
    by_src = np.argsort(src, kind="stable")
    _fill(G._succ, src[by_src], dst[by_src].tolist(), [data[i] for i in by_src.tolist()])
    by_dst = np.argsort(dst, kind="stable")
    _fill(G._pred, dst[by_dst], src[by_dst].tolist(), [data[i] for i in by_dst.tolist()])
    return G


def _fill(adjacency, heads, tails: list, data: list) -> None:
    """``adjacency[u][v] = data[i]`` for every arc ``i = (u, v)``; ``heads`` sorted."""
    bounds = np.searchsorted(heads, np.arange(len(adjacency) + 1)).tolist()
    for u, (start, stop) in enumerate(zip(bounds, bounds[1:])):
        if start != stop:
            adjacency[u] = dict(zip(tails[start:stop], data[start:stop]))


def _build_by_add_edges(scale: int, edge_factor: int, seed: int):
    edges = rmat_edges(scale, edge_factor=edge_factor, seed=seed, device="cpu", progress=False)
    G = nx.DiGraph()
    G.add_nodes_from(range(1 << scale))
    G.add_edges_from(zip(to_numpy(edges.src).tolist(), to_numpy(edges.dst).tolist()))
    return G


def _timed(call):
    """``(call(), seconds)``, after a full garbage collection: the millions of objects of a big
    NetworkX graph make Python's first full collection after building it take a second or more,
    which would otherwise land in whichever call comes next."""
    gc.collect()
    start = time.perf_counter()
    value = call()
    return value, time.perf_counter() - start


def _same(name, got, expected) -> bool:
    if name == "pagerank":
        return got.keys() == expected.keys() and max(abs(got[k] - expected[k]) for k in expected) < 1e-6
    if name == "weakly_connected_components":
        return sorted(map(min, got)) == sorted(map(min, expected)) and sorted(map(len, got)) == sorted(map(len, expected))
    return got == expected


def main() -> None:
    """Run the measurements, printing each row as it is measured and rewriting the JSON after it
    (so a run cut short by a time limit keeps what it measured), then the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=22)
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--devices", default="cpu", help="comma-separated, e.g. cuda,cpu")
    parser.add_argument("--functions", default=",".join(FUNCTIONS), help="comma-separated subset of " + ", ".join(FUNCTIONS))
    parser.add_argument("--networkx", nargs="?", const=",".join(FUNCTIONS), default="",
                        help="also time plain NetworkX (all functions, or a comma-separated subset) and check answers")
    parser.add_argument("--json")
    options = parser.parse_args()
    chosen, plain = (list(filter(None, names.split(","))) for names in (options.functions, options.networkx))
    if not set(chosen + plain) <= FUNCTIONS.keys():
        parser.error(f"unknown function in {chosen + plain}; choose from {', '.join(FUNCTIONS)}")
    warnings.filterwarnings("ignore", message="Note: conversions to backend graphs")

    small = build_networkx(10, 8, 0)
    reference = _build_by_add_edges(10, 8, 0)
    if not all(list(a.items()) == list(b.items()) for built, expected in ((small._succ, reference._succ),
                                                                          (small._pred, reference._pred))
               for a, b in zip(built.values(), expected.values())):
        raise SystemExit("the bulk NetworkX build differs from add_edges_from")
    G, build_s = _timed(lambda: build_networkx(options.scale, options.edge_factor, options.seed))
    source = max(G, key=G.out_degree)
    _, convert_s = _timed(lambda: BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1}))
    record = {"date": time.strftime("%Y-%m-%d"), "host": platform.node(), "scale": options.scale,
              "nodes": G.number_of_nodes(), "edges": G.number_of_edges(), "networkx": nx.__version__,
              "build_networkx_s": build_s, "convert_s": convert_s, "rows": []}
    print(f"graph: {record['nodes']:,} nodes, {record['edges']:,} edges; built in {build_s:.1f} s; "
          f"conversion to CSR (with weights) {convert_s:.2f} s", flush=True)

    def save() -> None:
        if options.json:
            with open(options.json, "w") as handle:
                json.dump(record, handle, indent=1)

    answers, device = {}, None
    for device in filter(None, options.devices.split(",")):
        answers.clear()  # keep the last device's answers only (memory)
        nx.config.backends.gpugraph.device = device
        for name in chosen:
            call = FUNCTIONS[name]
            call(small, 0, backend="gpugraph")  # compile
            G.__networkx_cache__.clear()
            answers[name], first_s = _timed(lambda: call(G, source, backend="gpugraph"))
            _, cached_s = _timed(lambda: call(G, source, backend="gpugraph"))
            record["rows"].append({"function": name, "device": device, "first_s": first_s, "cached_s": cached_s,
                                   "nx_cugraph_livejournal_s": NX_CUGRAPH_LIVEJOURNAL[name]})
            save()
            print(f"{device:5s} {name:28s} first {first_s:7.2f} s  cached {cached_s:7.2f} s", flush=True)
    for name in plain:
        call = FUNCTIONS[name]
        expected, networkx_s = _timed(lambda: call(G, source, backend="networkx"))
        same = _same(name, answers.pop(name), expected) if name in answers else None
        record.setdefault("networkx_rows", {})[name] = {"networkx_s": networkx_s, "same_answer": same}
        save()
        print(f"networkx {name:28s} {networkx_s:7.2f} s  same answer as {device}: {same}", flush=True)
    print("\n| function | device | first call (conversion incl.) s | cached call s | NetworkX s | "
          "nx-cugraph LiveJournal (RTX 3090) s |")
    print("|---|---|---:|---:|---:|---:|")
    for row in record["rows"]:
        plain = record.get("networkx_rows", {}).get(row["function"], {}).get("networkx_s", float("nan"))
        print(f"| {row['function']} | {row['device']} | {row['first_s']:.2f} | {row['cached_s']:.2f} | "
              f"{plain:.1f} | {row['nx_cugraph_livejournal_s']:.2f} |")


if __name__ == "__main__":
    main()
