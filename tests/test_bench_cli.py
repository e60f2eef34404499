"""``gpugraph bench`` from the command line: records, tables, plots, re-rendering and errors (CPU;
never asserts a time)."""

import importlib.util
import json

import pytest

from gpugraph.cli import main


def test_smoke_suite_end_to_end(capsys, tmp_path):
    records_path, table_path, plots = tmp_path / "bench.json", tmp_path / "bench.md", tmp_path / "plots"
    code = main(["bench", "--device", "cpu", "--trials", "1", "--roots", "3", "--json", str(records_path),
                 "--markdown", str(table_path), "--plots", str(plots)])
    captured = capsys.readouterr()
    assert code == 0
    records = json.loads(records_path.read_text())
    assert isinstance(records, list)
    graphs = ["example:rmat10", "example:rmat12", "example:grid40x40"]
    ours = [(r["algorithm"], r["graph"]) for r in records if r["implementation"] == "gpugraph"]
    assert ours == [(algorithm, graph) for graph in graphs for algorithm in ("bfs", "pagerank", "sssp", "wcc")]
    for record in records:
        assert {"device", "versions", "git_revision", "date", "parameters", "ceilings"} <= set(record)
        if not record.get("skipped") and not record.get("error"):
            assert record["median_seconds"] >= 0 and record["n"] > 0 and record["load_seconds"] >= 0
    assert not [r for r in records if r.get("error")]
    assert {r["implementation"] for r in records} >= {"gpugraph", "scipy"}
    bfs = next(r for r in records if r["algorithm"] == "bfs" and r["implementation"] == "gpugraph")
    assert bfs["trials"] == 3 and bfs["metrics"]["gteps"]["roots"] == 3
    markdown = table_path.read_text()
    assert "| bfs | example:rmat10 |" in markdown and "| wcc | example:grid40x40 |" in markdown
    assert "| bfs | example:rmat10 |" in captured.out and "memory ceilings" in captured.err
    assert "GTEPS" in captured.out and "Memory ceilings measured in this run" in markdown
    pytest.importorskip("matplotlib")
    assert (plots / "time_vs_scale_bfs.png").stat().st_size > 0
    assert (plots / "pagerank_convergence.png").stat().st_size > 0  # the SciPy anchor reports residuals


def test_from_json_renders_the_same_table(capsys, tmp_path):
    records_path = tmp_path / "run.json"
    assert main(["bench", "--device", "cpu", "--trials", "1", "--no-anchors", "--algorithms", "wcc,pagerank",
                 "--graphs", "example:rmat8,example:rmat9", "--json", str(records_path)]) == 0
    first = capsys.readouterr().out
    markdown, plots = tmp_path / "again.md", tmp_path / "plots"
    assert main(["bench", "--from-json", str(records_path), "--markdown", str(markdown), "--plots", str(plots)]) == 0
    again = capsys.readouterr()
    assert again.out == first
    assert "| wcc | example:rmat9 |" in markdown.read_text()
    if importlib.util.find_spec("matplotlib") is not None:
        assert (plots / "time_vs_scale_wcc.png").exists() and f"wrote {plots}" in again.err


def test_bench_errors_are_one_line(capsys, tmp_path):
    assert main(["bench", "--device", "cpu", "--algorithms", "bfs,fastest"]) == 1
    assert "unknown algorithm(s) fastest" in capsys.readouterr().err
    assert main(["bench", "--device", "cpu", "--trials", "0"]) == 1
    assert capsys.readouterr().err.strip().count("\n") == 0
    code = main(["bench", "--device", "cpu", "--trials", "1", "--algorithms", "wcc", "--no-anchors",
                 "--graphs", "missing.txt,example:rmat8", "--datasets", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 0 and "| wcc | example:rmat8 |" in captured.out
    assert [line for line in captured.err.splitlines() if "missing.txt" in line] == [
        next(line for line in captured.err.splitlines() if "skipped missing.txt: not found" in line)]


def test_nothing_ran_is_an_error(capsys, tmp_path):
    bad = tmp_path / "broken.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate pattern general\nnot a header\n")
    records_path = tmp_path / "out.json"
    code = main(["bench", "--device", "cpu", "--trials", "1", "--algorithms", "bfs", "--graphs", f"{bad},missing.gr",
                 "--datasets", str(tmp_path), "--json", str(records_path)])
    captured = capsys.readouterr()
    assert code == 1 and "nothing ran" in captured.err
    records = json.loads(records_path.read_text())
    assert [r["graph"] for r in records] == [str(bad), "missing.gr"] and all(r["error"] for r in records)
    assert "broken.mtx" in records[0]["graph"] and "skipped" in captured.err


def test_from_json_rejects_other_files(capsys, tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"rows": 3}')
    assert main(["bench", "--from-json", str(other)]) == 1
    assert "expected a JSON list of benchmark records" in capsys.readouterr().err
