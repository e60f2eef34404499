"""The EMV and GAS programming interfaces: every step kind, iteration control, counters,
compilation caching and the errors users see."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpugraph as gg
from gpugraph.algorithms import reference
from gpugraph.errors import EmptyGraphError, InvalidParameterError, ProgramError
from gpugraph.model import emv, gas


def _graph(device, n=30, m=120, seed=4):
    rng = np.random.default_rng(seed)
    return gg.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), rng.random(m) + 0.1, num_vertices=n, device=device)


# --- ELIST, MLIST, MESSAGE: PageRank written with the collective and per-message steps ------------
def _send_list(v, first, last, rid, share, rank, out_degree):
    for e in range(first, last):
        share[rid[e]] = rank[v] / out_degree[v]


def _halve(slot, share):
    return share * 0.5


def _gather_list(v, first, last, share, rank, num_vertices):
    total = 0.0
    for slot in range(first, last):
        total += share[slot]
    rank[v] = 0.15 / num_vertices + 0.85 * 2.0 * total


def test_collective_and_message_steps(device):
    graph = _graph(device)
    program = emv.Program(
        [emv.ELIST(_send_list), emv.MESSAGE(_halve), emv.MLIST(_gather_list)],
        vertex={"rank": np.float64}, message={"share": np.float64}, max_iterations=30,
    )
    result = program.run(graph, init={"rank": 1.0 / 30})
    assert result.stats["rounds"] == 30
    # Without dangling redistribution: rank = 0.15/n + 0.85 * A^T (rank / out_degree).
    indptr, indices = gg.backend.to_numpy(graph.indptr), gg.backend.to_numpy(graph.indices)
    degree = np.diff(indptr)
    rank = np.full(30, 1.0 / 30)
    for _ in range(30):
        new = np.zeros(30)
        np.add.at(new, indices, np.repeat(rank / np.maximum(degree, 1), degree))
        rank = 0.15 / 30 + 0.85 * new
    assert np.allclose(result.to_numpy("rank"), rank)


def test_record_messages_and_user_combiner(device):
    graph = _graph(device)

    def send(src, weight):                     # two fields: (weight, sender)
        return weight, src

    def keep(v, weight_in, sender, lightest, lightest_from):
        lightest[v] = weight_in
        lightest_from[v] = sender

    program = emv.Program(
        [emv.EDGE(send), emv.Combiner({"weight_in": "min", "sender": "max"}), emv.VERTEX(keep)],
        vertex={"lightest": np.float64, "lightest_from": np.int64},
        message={"weight_in": np.float64, "sender": np.int64}, max_iterations=1,
    )
    result = program.run(graph)
    src = np.repeat(np.arange(30), np.diff(gg.backend.to_numpy(graph.indptr)))
    dst, weights = gg.backend.to_numpy(graph.indices), gg.backend.to_numpy(graph.weights)
    for v in range(30):
        incoming = dst == v
        expected_weight = weights[incoming].min() if incoming.any() else np.inf
        expected_sender = src[incoming].max() if incoming.any() else np.iinfo(np.int64).min
        assert result.to_numpy("lightest")[v] == expected_weight
        assert result.to_numpy("lightest_from")[v] == expected_sender


def test_halt_vote_and_counters(device):
    graph = _graph(device)

    def count(v, steps, iteration):
        steps[v] = iteration + 1
        return iteration < 4                 # everybody votes to stop after the 5th iteration

    result = emv.Program([emv.VERTEX(count)], vertex={"steps": np.int64}).run(graph)
    assert result.stats["rounds"] == 5 and result.stats["vertex_updates"] == 5 * 30
    assert result.stats["votes"] == 4 * 30
    assert np.all(result.to_numpy("steps") == 5)
    limited = emv.Program([emv.VERTEX(count)], vertex={"steps": np.int64}, max_iterations=2).run(graph)
    assert limited.stats["rounds"] == 2
    assert limited.stats["seconds"] >= 0 and limited.stats["compile_seconds"] >= 0


def test_gas_dynamic_scatter_with_user_combiner(device):
    graph = _graph(device)

    def gather(src, weight, distance):
        return distance[src] + weight

    def apply(v, gathered, distance):
        if gathered < distance[v]:
            distance[v] = gathered
            return True
        return False

    def scatter(dst):
        return True

    init = np.full(30, np.inf)
    init[0] = 0.0
    program = gas.Program(gather=gather, apply=apply, scatter=scatter, combine=lambda a, b: min(a, b),
                          identity=np.inf, vertex={"distance": np.float64})
    result = program.run(graph, init={"distance": init})
    assert np.allclose(result.to_numpy("distance"), reference.shortest_paths(graph.to("cpu"), 0))
    assert result.stats["edges_traversed"] > 0


def test_program_errors_name_the_function():
    graph = _graph("cpu")

    def misspelt(src, rnak):
        return rnak[src]

    program = emv.Program([emv.EDGE(misspelt), emv.Combiner("sum")], vertex={"rank": np.float64}, message=np.float64)
    with pytest.raises(ProgramError, match=r"EDGE function misspelt \(.*test_api.py:\d+\): unknown parameter 'rnak'"):
        program.run(graph)

    def wrong_type(v, rank):
        rank[v] = "high"

    with pytest.raises(ProgramError, match=r"VERTEX function wrong_type .*test_api.py"):
        emv.Program([emv.VERTEX(wrong_type)], vertex={"rank": np.float64}).run(graph)

    def unsupported(v, rank):
        rank[v] = len({1: 2}.get(v, [1, 2, 3]))

    with pytest.raises(ProgramError, match="unsupported"):
        emv.Program([emv.VERTEX(unsupported)], vertex={"rank": np.float64}).run(graph)

    with pytest.raises(ProgramError, match=r"\*args"):
        emv.VERTEX(lambda *values: 0)
    with pytest.raises(ProgramError, match="Python function"):
        emv.VERTEX(print)


def test_program_definition_errors():
    with pytest.raises(InvalidParameterError, match="reserved"):
        emv.Program([emv.VERTEX(lambda v: True)], vertex={"src": np.int32})
    with pytest.raises(InvalidParameterError, match="both"):
        emv.Program([emv.VERTEX(lambda v: True)], vertex={"rank": np.float64}, message={"rank": np.float64})
    with pytest.raises(InvalidParameterError, match="message record"):
        emv.Program([emv.EDGE(lambda src: 1.0)], vertex={"rank": np.float64})
    with pytest.raises(InvalidParameterError, match="not a number"):
        emv.Program([emv.VERTEX(lambda v: True)], vertex={"name": np.str_})
    with pytest.raises(InvalidParameterError, match="steps"):
        emv.Program([lambda v: True])
    with pytest.raises(InvalidParameterError, match="aggregate"):
        emv.Program([emv.VERTEX(lambda v: True)], aggregates={"total": ("mean", lambda v: 1.0)})
    with pytest.raises(InvalidParameterError, match="activate"):
        gas.Program(gather=lambda src: 1.0, apply=lambda v: True, vertex={}, activate="some")


def test_run_errors():
    graph = _graph("cpu")
    program = emv.Program([emv.VERTEX(lambda v, rank: False)], vertex={"rank": np.float64})
    with pytest.raises(InvalidParameterError, match="unknown fields: rnak"):
        program.run(graph, init={"rnak": 1.0})
    with pytest.raises(InvalidParameterError, match="has 3 values"):
        program.run(graph, init={"rank": [1.0, 2.0, 3.0]})
    with pytest.raises(InvalidParameterError, match="engine"):
        program.run(graph, engine="async")
    empty = gg.from_edges([], [], num_vertices=0, device="cpu")
    with pytest.raises(EmptyGraphError):
        program.run(empty)


def test_compiled_kernels_are_cached_on_disk(tmp_path):
    """A second process loads every generated kernel from the cache instead of compiling."""
    script = textwrap.dedent(
        """
        import sys
        sys.path.insert(0, %r)
        import gpugraph as gg
        from gpugraph import codegen
        from examples.emv_bfs import bfs
        bfs(gg.rmat(6, seed=1, device="cpu"), 0)
        kernels = [d for k in codegen._kernels.values() for d in k._dispatchers.values()]
        hits = sum(sum(d.stats.cache_hits.values()) for d in kernels)
        misses = sum(sum(d.stats.cache_misses.values()) for d in kernels)
        print(hits, misses)
        """
        % str(__import__("pathlib").Path(__file__).resolve().parents[2])
    )
    environment = {**os.environ, "GPUGRAPH_CACHE_DIR": str(tmp_path)}
    environment.pop("NUMBA_CACHE_DIR", None)
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    first_hits, first_misses = map(int, runs[0].stdout.split())
    second_hits, second_misses = map(int, runs[1].stdout.split())
    assert first_misses > 0 and second_misses == 0 and second_hits == first_misses
    assert any(path.suffix == ".nbi" for path in tmp_path.rglob("*"))


def test_functions_without_a_module_are_compiled_not_cached(tmp_path):
    """A function made by exec has no importable module: its kernels are not cached on disk, so
    a second process compiles again instead of failing to load a cache entry."""
    script = textwrap.dedent(
        """
        import numpy as np, gpugraph as gg
        from gpugraph.model import emv
        namespace = {}
        exec("def mark(v, seen):\\n    seen[v] = 1", namespace)
        graph = gg.grid(3, 3, device="cpu")
        result = emv.Program([emv.VERTEX(namespace["mark"])], vertex={"seen": np.int8}, max_iterations=1).run(graph)
        print(int(result.to_numpy("seen").sum()))
        """
    )
    environment = {**os.environ, "GPUGRAPH_CACHE_DIR": str(tmp_path)}
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
        assert run.returncode == 0, run.stderr
        assert run.stdout.split() == ["9"]
    assert not any(path.suffix == ".nbi" for path in tmp_path.rglob("*"))
