"""``gpugraph bench``: records, table and errors (smoke suite on the CPU; never asserts times)."""

import json

from gpugraph.cli import main


def test_smoke_suite_writes_records_and_table(capsys, tmp_path):
    records, table = tmp_path / "bench.json", tmp_path / "bench.md"
    code = main(["bench", "--device", "cpu", "--trials", "2", "--algorithms", "bfs,pagerank",
                 "--json", str(records), "--markdown", str(table)])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(records.read_text())
    assert {"git_revision", "versions", "device", "date", "trials"} <= set(data)
    assert [(r["algorithm"], r["graph"]) for r in data["records"]] == [
        ("bfs", "example:rmat12"), ("pagerank", "example:rmat12"), ("bfs", "example:grid40x40"), ("pagerank", "example:grid40x40"),
    ]
    for record in data["records"]:
        assert len(record["trial_seconds"]) == 2 and record["median_seconds"] >= 0 and record["n"] > 0
    assert table.read_text().count("\n| ") == 5 and "| bfs | example:rmat12 |" in out


def test_bench_errors_are_one_line(capsys, tmp_path):
    assert main(["bench", "--device", "cpu", "--algorithms", "bfs,fastest"]) == 1
    assert "unknown algorithm(s) fastest" in capsys.readouterr().err
    assert main(["bench", "--device", "cpu", "--trials", "0"]) == 1
    code = main(["bench", "--device", "cpu", "--trials", "1", "--algorithms", "wcc",
                 "--graphs", "missing.txt,example:rmat8", "--datasets", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 0 and "skipped missing.txt" in captured.err and "| wcc | example:rmat8 |" in captured.out
