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

Usage::

    python bench/nx_backend.py --scale 22 --devices cuda,cpu --networkx --json out.json
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
    """The NetworkX DiGraph of an RMAT edge list, one arc per generated edge (duplicates
    collapse, as NetworkX stores them)."""
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
    """Run the measurements and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=22)
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--devices", default="cpu", help="comma-separated, e.g. cuda,cpu")
    parser.add_argument("--networkx", action="store_true", help="also time plain NetworkX and check answers")
    parser.add_argument("--json")
    options = parser.parse_args()
    warnings.filterwarnings("ignore", message="Note: conversions to backend graphs")

    small = build_networkx(10, 8, 0)
    G, build_s = _timed(lambda: build_networkx(options.scale, options.edge_factor, options.seed))
    source = max(G, key=G.out_degree)
    _, convert_s = _timed(lambda: BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1}))
    record = {"date": time.strftime("%Y-%m-%d"), "host": platform.node(), "scale": options.scale,
              "nodes": G.number_of_nodes(), "edges": G.number_of_edges(), "networkx": nx.__version__,
              "build_networkx_s": build_s, "convert_s": convert_s, "rows": []}
    print(f"graph: {record['nodes']:,} nodes, {record['edges']:,} edges; built in {build_s:.1f} s; "
          f"conversion to CSR {convert_s:.2f} s", flush=True)
    answers = {}
    for device in filter(None, options.devices.split(",")):
        answers.clear()  # keep the last device's answers only (memory)
        nx.config.backends.gpugraph.device = device
        for name, call in FUNCTIONS.items():
            call(small, 0, backend="gpugraph")  # compile
            G.__networkx_cache__.clear()
            answers[device, name], first_s = _timed(lambda: call(G, source, backend="gpugraph"))
            _, cached_s = _timed(lambda: call(G, source, backend="gpugraph"))
            row = {"function": name, "device": device, "first_s": first_s, "cached_s": cached_s,
                   "nx_cugraph_livejournal_s": NX_CUGRAPH_LIVEJOURNAL[name]}
            record["rows"].append(row)
            print(f"{device:5s} {name:28s} first {first_s:7.2f} s  cached {cached_s:7.2f} s", flush=True)
    if options.networkx:
        for name, call in FUNCTIONS.items():
            expected, networkx_s = _timed(lambda: call(G, source, backend="networkx"))
            for row in record["rows"]:
                if row["function"] == name:
                    row["networkx_s"] = networkx_s
                    if (row["device"], name) in answers:
                        row["same_answer"] = _same(name, answers.pop((row["device"], name)), expected)
            print(f"networkx {name:28s} {networkx_s:7.2f} s", flush=True)
    print("\n| function | device | first call (conversion incl.) s | cached call s | NetworkX s | same answer | "
          "nx-cugraph LiveJournal (RTX 3090) s |")
    print("|---|---|---:|---:|---:|---|---:|")
    for row in record["rows"]:
        print(f"| {row['function']} | {row['device']} | {row['first_s']:.2f} | {row['cached_s']:.2f} | "
              f"{row.get('networkx_s', float('nan')):.1f} | {row.get('same_answer', '-')} | "
              f"{row['nx_cugraph_livejournal_s']:.2f} |")
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(record, handle, indent=1)


if __name__ == "__main__":
    main()
