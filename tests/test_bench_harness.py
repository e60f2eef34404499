"""The benchmark harness: Graph500 conventions, metrics, anchors present or absent, ceilings,
reports. CPU only, small graphs; never asserts a time."""

import importlib.util
import sys

import numpy as np
import pytest

import gpugraph as gg
from gpugraph import config
from gpugraph.backend import get_backend
from gpugraph.bench import Plan, anchors, ceilings, graphs, markdown_table, metrics, run_benchmarks, suite_graphs
from gpugraph.bench.report import write_plots
from gpugraph.errors import InvalidParameterError

HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def _run(entries, algorithms, tmp_path=None, **options):
    plan = Plan(algorithms=list(algorithms), trials=options.pop("trials", 1), **options)
    if tmp_path is not None:
        plan.datasets = tmp_path
    return run_benchmarks(entries, plan, get_backend("cpu"))


@pytest.fixture(autouse=True)
def small_ceilings(monkeypatch):
    """Ceiling arrays of a few MiB: the tests check the plumbing, not the machine."""
    monkeypatch.setattr(config, "BENCH_CPU_CEILING_BYTES", 1 << 22)
    monkeypatch.setattr(config, "BENCH_CPU_CEILING_GATHERS", 1 << 16)
    monkeypatch.setattr(config, "BENCH_CEILING_TRIALS", 2)


# --- metrics --------------------------------------------------------------------------------------
def test_harmonic_mean_arithmetic():
    assert metrics.harmonic_mean([1.0, 2.0]) == pytest.approx(4 / 3)
    assert metrics.harmonic_mean([3.0, 3.0, 3.0]) == pytest.approx(3.0)
    assert metrics.harmonic_mean([5.0, 0.0]) == 0.0
    with pytest.raises(ValueError):
        metrics.harmonic_mean([])


def test_gteps_summary_is_graph500_harmonic_mean():
    # Roots traversing 1e9 edges in 1 s and 2e9 edges in 1 s, and 3e9 in 0.5 s: 1, 2, 6 GTEPS.
    summary = metrics.gteps_summary([1e9, 2e9, 3e9], [1.0, 1.0, 0.5])
    assert summary["roots"] == 3
    assert summary["harmonic_mean"] == pytest.approx(3 / (1 + 1 / 2 + 1 / 6))
    assert (summary["min"], summary["median"], summary["max"]) == pytest.approx((1.0, 2.0, 6.0))
    assert summary["per_root"] == pytest.approx([1.0, 2.0, 6.0])
    with pytest.raises(ValueError):
        metrics.gteps_summary([1.0], [1.0, 2.0])


def test_edges_basis_and_bytes_model():
    assert metrics.arcs_traversed("bfs", 100, {"edges_traversed": 40}) == (40.0, "edges_traversed")
    assert metrics.arcs_traversed("pagerank", 100, {"rounds": 3}) == (300.0, "arcs x rounds")
    assert metrics.arcs_traversed("wcc", 100, {}) == (100.0, "arcs (one pass)")
    assert metrics.arcs_traversed("pagerank", 100, {})[0] is None
    # BFS: E*(I+4) + n*(O+24) with E=50, I=4, O=8, n=10.
    assert metrics.bytes_moved("bfs", 10, 100, 50, 3, 4, 8, 8)[0] == 50 * 8 + 10 * 32
    assert metrics.bytes_moved("sssp", 10, 100, 50, None, 4, 8, 4)[0] == 50 * 16 + 10 * 40
    assert metrics.bytes_moved("pagerank", 10, 100, 300, 3, 4, 8, 8)[0] == 3 * (100 * 12 + 10 * 40)
    assert metrics.bytes_moved("pagerank", 10, 100, None, None, 4, 8, 8)[0] is None
    fractions = metrics.ceiling_fractions(5e9, 1e8, {"copy_bytes_per_second": 1e10, "gathers_per_second": 4e8})
    assert fractions == pytest.approx({"bandwidth": 0.5, "gathers": 0.25})
    assert metrics.ceiling_fractions(5e9, None, {"error": "no memory"}) == {"bandwidth": None, "gathers": None}


# --- Graph500 roots and TEPS edges ----------------------------------------------------------------
def test_graph500_roots_are_non_isolated_and_fixed():
    # 0-1-2 path, 3 has only a self-loop, 4..9 isolated, 10-11 an edge.
    graph = gg.from_edges([0, 1, 3, 10], [1, 2, 3, 11], num_vertices=12, directed=False, device="cpu")
    roots = graphs.graph500_roots(graph, 64)
    assert sorted(roots.tolist()) == [0, 1, 2, 10, 11]  # every qualifying vertex, once
    assert graphs.graph500_roots(graph, 64).tolist() == roots.tolist()  # same seed, same order
    two = graphs.graph500_roots(graph, 2)
    assert len(set(two.tolist())) == 2 and set(two.tolist()) <= {0, 1, 2, 10, 11}
    big = gg.rmat(12, seed=0, device="cpu")
    drawn = graphs.graph500_roots(big, 64)
    degree = np.diff(big.indptr)
    assert drawn.size == 64 and len(set(drawn.tolist())) == 64 and np.all(degree[drawn] > 0)
    assert graphs.graph500_roots(big, 64, seed=1).tolist() != drawn.tolist()
    with pytest.raises(InvalidParameterError):
        graphs.graph500_roots(big, 0)


def test_teps_edges_count_undirected_edges_once():
    undirected = gg.from_edges([0, 1], [1, 2], num_vertices=3, directed=False, device="cpu")
    directed = gg.from_edges([0, 1], [1, 2], num_vertices=3, directed=True, device="cpu")
    assert graphs.teps_edges(undirected, 4) == 2.0 and graphs.teps_edges(directed, 4) == 4.0
    assert graphs.reached_arcs(np.array([2, 1, 0]), np.array([True, False, True])) == 2


def test_bfs_record_gteps_uses_half_the_reached_arcs():
    (record,) = _run(["example:rmat9"], ["bfs"], anchors=False, roots=5)
    assert record["trials"] == 5 and len(record["parameters"]["roots"]) == 5
    gteps = record["metrics"]["gteps"]
    per_root = [arcs / 2 / seconds / 1e9 for arcs, seconds in zip(record["metrics"]["edges_per_root"], record["trial_seconds"])]
    assert gteps["per_root"] == pytest.approx(per_root)
    assert gteps["harmonic_mean"] == pytest.approx(metrics.harmonic_mean(per_root))
    assert record["metrics"]["edges_basis"] == "edges_traversed" and record["counters"]["rounds"] >= 1


def test_rmat_graphs_get_64_roots_and_others_trials():
    records = _run(["example:rmat8", "example:grid6x6"], ["bfs"], anchors=False, trials=2)
    assert [record["trials"] for record in records] == [config.BENCH_GRAPH500_ROOTS, 2]


def test_sssp_weights_are_symmetric_seeded_and_in_range():
    graph = gg.rmat(9, seed=3, device="cpu")
    weighted = graphs.with_sssp_weights(graph)
    weights = weighted.weights
    low, high = config.BENCH_SSSP_WEIGHT_RANGE
    assert weights.dtype == np.dtype(config.BENCH_SSSP_WEIGHT_DTYPE) and weights.min() >= low and weights.max() <= high
    assert len(np.unique(weights)) > 100
    tails = np.repeat(np.arange(graph.num_vertices), np.diff(graph.indptr))
    by_pair = {}
    for tail, head, weight in zip(tails.tolist(), graph.indices.tolist(), weights.tolist()):
        by_pair.setdefault((min(tail, head), max(tail, head)), set()).add(weight)
    assert all(len(values) == 1 for values in by_pair.values())  # both arcs (and parallel arcs) agree
    assert np.array_equal(graphs.with_sssp_weights(graph).weights, weights)
    assert weighted.indices is graph.indices and graphs.with_sssp_weights(weighted) is weighted


# --- anchors --------------------------------------------------------------------------------------
def test_anchors_run_the_same_searches():
    records = _run(["example:rmat9"], ["bfs", "sssp", "wcc"], roots=4)
    by = {(r["algorithm"], r["implementation"]): r for r in records}
    ours = by["bfs", "gpugraph"]
    for (algorithm, implementation), record in by.items():
        if record.get("skipped"):
            assert "not installed" in record["skipped"]
            continue
        assert not record.get("error"), record.get("error")
        if algorithm == "bfs":
            assert record["parameters"]["roots"] == ours["parameters"]["roots"]
            assert record["metrics"]["edges_per_root"] == ours["metrics"]["edges_per_root"]
        if algorithm == "sssp":
            assert record["counters"]["edges_traversed"] == by["sssp", "gpugraph"]["counters"]["edges_traversed"]
            assert record["weights"].startswith("hash")
        if algorithm == "wcc":
            assert record["counters"]["components"] == by["wcc", "gpugraph"]["counters"]["components"]
    assert by["bfs", "scipy"]["metrics"]["edges_basis"].startswith("arcs out of the reached vertices")


def test_pagerank_power_iteration_anchor_matches_gpugraph():
    from gpugraph.algorithms import pagerank

    graph = gg.rmat(9, seed=1, device="cpu")
    prepared = anchors.SCIPY.prepare(graph)
    outcome = anchors.SCIPY.methods["pagerank"].run(prepared, {"damping": 0.85, "tol": 1e-6, "max_iterations": 100})
    assert np.abs(outcome.rank - pagerank.run(graph).to_numpy("rank")).sum() < 1e-9
    assert outcome.rounds == len(outcome.residuals) and outcome.residuals[-1] < graph.num_vertices * 1e-6


def test_missing_anchor_package_gives_not_installed_records(monkeypatch):
    monkeypatch.setitem(sys.modules, "igraph", None)  # import igraph now raises ImportError
    monkeypatch.setitem(sys.modules, "networkit", None)
    records = _run(["example:rmat8"], ["wcc"])
    by = {r["implementation"]: r for r in records}
    assert by["igraph"]["skipped"] == "igraph not installed (pip install gpugraph[bench])"
    assert "networkit not installed" in by["networkit"]["skipped"]
    assert not by["gpugraph"].get("error") and not by["scipy"].get("skipped")
    table = markdown_table(records)
    assert "- skipped, igraph: igraph not installed" in table
    row = next(line for line in table.splitlines() if line.startswith("| wcc |"))
    assert "–" in row


def test_anchor_that_raises_gives_an_error_record_and_the_run_goes_on(monkeypatch):
    def broken(prepared, parameters):
        raise RuntimeError("anchor exploded")

    monkeypatch.setitem(anchors.SCIPY.methods, "wcc", anchors.Method(broken, lambda raw: {}, "broken"))
    records = _run(["example:rmat8", "example:grid5x5"], ["wcc"], anchors=True)
    scipy = [r for r in records if r["implementation"] == "scipy"]
    assert [r["error"] for r in scipy] == ["RuntimeError: anchor exploded"] * 2
    assert all(not r.get("error") for r in records if r["implementation"] == "gpugraph")


def test_networkx_only_on_small_graphs():
    assert anchors.NETWORKX.max_arcs == config.BENCH_NETWORKX_MAX_ARCS
    graph = gg.rmat(10, seed=0, device="cpu")
    assert anchors.skip_reason(anchors.NETWORKX, graph) is None
    limited = anchors.Anchor("networkx", "networkx", "networkx", "cpu", None, {}, max_arcs=1000)
    assert "at most 1,000 arcs" in anchors.skip_reason(limited, graph)


# --- graphs that fail, ceilings, suites -----------------------------------------------------------
def test_bad_graph_gives_an_error_record(tmp_path):
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 x\n")
    records = _run([str(bad), "nowhere.txt", "example:rmat7"], ["wcc"], tmp_path, anchors=False)
    assert records[0]["graph"] == str(bad) and records[0]["algorithm"] is None and records[0]["error"]
    assert records[1]["error"].startswith("not found") and str(tmp_path) in records[1]["error"]
    assert records[2]["graph"] == "example:rmat7" and not records[2].get("error")
    assert "error, gpugraph" in markdown_table(records)


def test_algorithm_error_is_a_record(monkeypatch):
    from gpugraph.algorithms.catalog import SPECS, AlgorithmSpec

    monkeypatch.setitem(SPECS, "broken", AlgorithmSpec("broken", "gpugraph.algorithms.no_such_module", "value"))
    records = _run(["example:rmat7"], ["broken", "wcc"], anchors=False)
    assert [r["algorithm"] for r in records] == ["broken", "wcc"]
    assert records[0]["error"].startswith("ModuleNotFoundError") and not records[1].get("error")
    assert "error, gpugraph: ModuleNotFoundError" in markdown_table(records)


def test_ceilings_on_the_cpu():
    measured = ceilings.measure(get_backend("cpu"))
    assert measured["copy_bytes_per_second"] > 0 and measured["gathers_per_second"] > 0
    assert measured["tool"] == "numpy" and measured["array_bytes"] == 1 << 22 and measured["gathers"] == 1 << 16
    (record,) = _run(["example:rmat8"], ["wcc"], anchors=False)
    assert record["ceilings"]["tool"] == "numpy"
    assert record["metrics"]["ceiling_fractions"]["bandwidth"] > 0


def test_suite_graph_lists():
    assert suite_graphs("standard", "cpu")[:3] == ["example:rmat16", "example:rmat17", "example:rmat18"]
    assert "pace-FLA.gr.xz" in suite_graphs("standard", "cpu")
    assert "example:rmat18" not in suite_graphs("standard", "cpu", max_scale=17)
    cuda = suite_graphs("standard", "cuda")
    assert "example:rmat24" in cuda and "example:rmat26" not in cuda
    assert "example:rmat26" in suite_graphs("standard", "cuda", max_scale=26)


# --- reports --------------------------------------------------------------------------------------
def test_markdown_table_and_speedup():
    records = _run(["example:rmat8"], ["wcc", "pagerank"])
    table = markdown_table(records)
    header = table.splitlines()[0]
    assert header.startswith("| algorithm | graph | n | arcs | gpugraph | scipy |") and "gpugraph vs best anchor" in header
    row = next(line for line in table.splitlines() if line.startswith("| wcc | example:rmat8 |"))
    assert "x vs " in row and " ms · " in row


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason="matplotlib not installed")
def test_plots_written(tmp_path):
    records = _run(["example:rmat7", "example:rmat8"], ["bfs", "pagerank"], roots=2)
    records[0]["counters"]["frontier_sizes"] = [1, 20, 80, 5]  # as the GPU BFS reports them
    written, notes = write_plots(records, tmp_path / "plots")
    names = sorted(path.rsplit("/", 1)[-1] for path in written)
    assert names == ["bfs_frontier_sizes.png", "pagerank_convergence.png", "time_vs_scale_bfs.png", "time_vs_scale_pagerank.png"]
    assert all((tmp_path / "plots" / name).stat().st_size > 1000 for name in names) and notes == []


def test_plots_skipped_without_matplotlib(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    written, notes = write_plots([], tmp_path)
    assert written == [] and notes == ["matplotlib not installed: no plots (pip install gpugraph[bench])"]


def test_git_revision_of_an_exported_tree_comes_from_the_environment(monkeypatch, tmp_path):
    from gpugraph.bench import git_revision

    monkeypatch.setenv("GPUGRAPH_GIT_REVISION", "abc123")
    assert git_revision() == "abc123"
    monkeypatch.delenv("GPUGRAPH_GIT_REVISION")
    assert git_revision() is None or git_revision().startswith(tuple("0123456789abcdef"))
