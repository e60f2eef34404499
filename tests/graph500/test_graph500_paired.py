"""``bench/graph500_paired.py``: runs of one call compared root by root."""

import json

import pytest


def _record(seconds, roots=(3, 5, 7, 9), label=None):
    record = {"roots": list(roots), "seconds": list(seconds), "nedge": [1e9] * len(seconds)}
    if label:
        record["label"] = label
    return record


def test_runs_are_compared_with_the_baseline_root_by_root(repo_script):
    paired = repo_script("bench/graph500_paired.py")
    base = [1.0e-3, 2.0e-3, 1.5e-3, 1.2e-3]
    runs = [("M", _record(base)), ("T", _record([t - 10e-6 for t in base])),
            ("M", _record([t + 4e-6 for t in base]))]
    rows = paired.compare(runs, "M")
    # the baseline of a root is the median of the M runs; an M run is compared with the other M runs
    assert [row["label"] for row in rows] == ["M", "T", "M"]
    assert rows[0]["median_diff_us"] == pytest.approx(-4.0)
    assert rows[2]["median_diff_us"] == pytest.approx(4.0)
    assert rows[1]["median_diff_us"] == pytest.approx(-12.0)
    assert rows[1]["faster"] == 4
    assert rows[1]["low_us"] == pytest.approx(-12.0) and rows[1]["high_us"] == pytest.approx(-12.0)
    assert rows[1]["gteps"] == pytest.approx(4 / sum(t - 10e-6 for t in base))
    assert "| T |" in paired.table(rows, "M", 4)


def test_runs_of_different_roots_or_without_the_baseline_are_refused(repo_script):
    paired = repo_script("bench/graph500_paired.py")
    with pytest.raises(ValueError, match="different roots"):
        paired.compare([("M", _record([1, 1, 1, 1])), ("T", _record([1, 1, 1, 1], roots=(1, 2, 3, 4)))], "M")
    with pytest.raises(ValueError, match="no run is labelled"):
        paired.compare([("M", _record([1, 1, 1, 1]))], "B")


def test_files_give_a_run_per_record_labelled_by_argument_record_or_folder(repo_script, tmp_path, capsys, monkeypatch):
    paired = repo_script("bench/graph500_paired.py")
    folder = tmp_path / "T-1"
    folder.mkdir()
    (folder / "graph500-cuda-4.json").write_text(json.dumps({"steps": {"main": _record([1e-3] * 4)}}))
    (tmp_path / "factors.json").write_text(json.dumps(
        {"steps": {"factors": [_record([1e-3] * 4, label="defaults"), _record([2e-3] * 4, label="dd 1")]}}))
    runs = paired.load_runs([str(folder / "graph500-cuda-4.json"), f"M={folder / 'graph500-cuda-4.json'}"], "main")
    assert [label for label, _ in runs] == ["T-1", "M"]
    assert [label for label, _ in paired.load_runs([str(tmp_path / "factors.json")], "factors")] == ["defaults", "dd 1"]
    with pytest.raises(ValueError, match="no step 'main'"):
        paired.load_runs([str(tmp_path / "factors.json")], "main")
    (tmp_path / "bare.json").write_text(json.dumps({"steps": {"main": {"seconds": [1e-3]}}}))
    with pytest.raises(ValueError, match="no per-root roots"):
        paired.load_runs([str(tmp_path / "bare.json")], "main")
    monkeypatch.setattr("sys.argv", ["graph500_paired.py", str(tmp_path / "factors.json")])
    assert paired.main() == 2 and "no step 'main'" in capsys.readouterr().err
    monkeypatch.setattr("sys.argv", ["graph500_paired.py", "--step", "factors", str(tmp_path / "factors.json")])
    assert paired.main() == 0 and "+1000.0" in capsys.readouterr().out
