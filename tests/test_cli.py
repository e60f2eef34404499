"""The command line: help everywhere, one-line errors with non-zero exit, atomic outputs."""

import re
import subprocess
import sys

import pytest

from gpugraph.cli import main


def run_cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["info", "--help"], ["convert", "--help"], ["generate", "--help"],
     ["generate", "rmat", "--help"], ["generate", "gnm", "--help"], ["generate", "grid", "--help"],
     ["run", "--help"]],
)
def test_help_everywhere(capsys, argv):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_run_bfs_on_builtin_example(capsys):
    code, out, err = run_cli(capsys, "run", "bfs", "example:rmat10", "--device", "cpu")
    assert code == 0, err
    assert "edges_traversed" in out and "reached" in out


def test_run_writes_results_with_original_ids(capsys, tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("# tiny\n10 20\n20 30\n")
    output = tmp_path / "out.tsv"
    code, _, err = run_cli(capsys, "run", "bfs", str(edges), "--source", "10", "-o", str(output), "--device", "cpu")
    assert code == 0, err
    assert output.read_text().splitlines() == ["10\t0", "20\t1", "30\t2"]


def test_run_writes_ldbc_output(capsys, tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("10 20\n20 30\n40 10\n")
    output = tmp_path / "out.txt"
    code, _, err = run_cli(capsys, "run", "bfs", str(edges), "--source-vertex", "10", "-o", str(output),
                           "--output-format", "ldbc", "--device", "cpu")
    assert code == 0, err
    assert output.read_text().splitlines() == ["10 0", "20 1", "30 2", "40 9223372036854775807"]
    code, _, err = run_cli(capsys, "run", "pagerank", str(edges), "--damping-factor", "0.85", "--num-iterations", "3",
                           "-o", str(output), "--output-format", "ldbc", "--device", "cpu")
    assert code == 0, err
    lines = output.read_text().splitlines()
    assert [line.split()[0] for line in lines] == ["10", "20", "30", "40"]
    assert abs(sum(float(line.split()[1]) for line in lines) - 1.0) < 1e-12


def test_run_on_the_path_engine(capsys, tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("10 20 1\n20 30 2\n10 30 5\n30 10 1\n")
    output = tmp_path / "out.tsv"
    code, out, err = run_cli(capsys, "run", "sssp", str(edges), "--source", "10", "--engine", "path", "-o", str(output),
                             "--device", "cpu")
    assert code == 0, err
    assert "vertex_updates" in out and "layout_seconds" in out
    assert output.read_text().splitlines() == ["10\t0", "20\t1", "30\t3"]
    code, _, err = run_cli(capsys, "run", "kcore", str(edges), "--engine", "async", "--k", "2", "-o", str(output),
                           "--device", "cpu")
    assert code == 0, err
    assert output.read_text().splitlines() == ["10\t1", "20\t1", "30\t1"]
    code, _, err = run_cli(capsys, "run", "bfs", str(edges), "--engine", "path", "--device", "cpu")
    assert code != 0 and "--engine runs pagerank" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "run", "kcore", str(edges), "--k", "2", "--device", "cpu")
    assert code != 0 and "--k applies to kcore with --engine" in err
    code, out, err = run_cli(capsys, "run", "sssp", str(edges), "--source", "10", "--engine", "path",
                             "--bucket-width", "1", "-o", str(output), "--device", "cpu")
    assert code == 0 and "bucket_width" in out, err
    assert output.read_text().splitlines() == ["10\t0", "20\t1", "30\t3"]
    for bad in (("--engine", "async", "--bucket-width", "1"), ("--bucket-width", "1"),
                ("--engine", "path", "--bucket-width", "0")):
        code, _, err = run_cli(capsys, "run", "sssp", str(edges), "--source", "10", *bad, "--device", "cpu")
        assert code != 0 and "bucket-width" in err.replace("_", "-") and "Traceback" not in err, bad
    code, out, err = run_cli(capsys, "run", "sssp", str(edges), "--source", "10", "--engine", "path",
                             "--layout", "device", "-o", str(output), "--device", "cpu")
    assert code == 0 and "layout_built_on device" in out, (out, err)
    assert output.read_text().splitlines() == ["10\t0", "20\t1", "30\t3"]
    code, _, err = run_cli(capsys, "run", "sssp", str(edges), "--source", "10", "--layout", "device", "--device", "cpu")
    assert code != 0 and "--layout applies to --engine path" in err and "Traceback" not in err
    code, out, err = run_cli(capsys, "run", "sssp", str(edges), "--source", "10", "--engine", "path", "--proxies", "0",
                             "--batching", "-o", str(output), "--device", "cpu")  # (the CPU ignores both)
    assert code == 0 and re.search(r"proxy_vertices +0\n", out) and re.search(r"batched +False\n", out), (out, err)
    assert output.read_text().splitlines() == ["10\t0", "20\t1", "30\t3"]
    for bad, message in ((("--proxies", "4"), "--proxies applies to --engine path"),
                         (("--batching",), "--batching applies to --engine path"),
                         (("--engine", "path", "--proxies", "999"), "proxies must be in [0, 512]")):
        code, _, err = run_cli(capsys, "run", "sssp", str(edges), "--source", "10", *bad, "--device", "cpu")
        assert code != 0 and message in err and "Traceback" not in err, bad
    code, _, err = run_cli(capsys, "run", "pagerank", str(edges), "--engine", "path", "--max-iterations", "3",
                           "--device", "cpu")
    assert code != 0 and "not max_iterations" in err


def test_run_refuses_options_of_other_algorithms(capsys, tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("1 2\n")
    code, _, err = run_cli(capsys, "run", "bfs", str(edges), "--damping-factor", "0.5", "--device", "cpu")
    assert code != 0 and "--damping-factor does not apply to bfs" in err
    code, _, err = run_cli(capsys, "run", "pagerank", str(edges), "--source", "1", "--device", "cpu")
    assert code != 0 and "takes no source" in err


def test_unknown_source_is_one_line_error(capsys, tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("1 2\n")
    code, _, err = run_cli(capsys, "run", "bfs", str(edges), "--source", "7", "--device", "cpu")
    assert code != 0 and err.count("\n") == 1 and "vertex 7" in err


def test_info_prints_counts(capsys, tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("0 1\n1 2\n2 0\n2 2\n")
    code, out, err = run_cli(capsys, "info", str(edges), "--device", "cpu")
    assert code == 0, err
    assert "vertices     3" in out and "edges        4" in out and "self-loops   1" in out


def test_malformed_file_one_line_and_exit_code(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1\n1 x\n")
    process = subprocess.run(
        [sys.executable, "-m", "gpugraph", "info", str(bad), "--device", "cpu"],
        capture_output=True, text=True,
    )
    assert process.returncode == 1
    assert process.stderr.startswith("gpugraph: error: ") and "bad.txt:2" in process.stderr
    assert "Traceback" not in process.stderr and process.stderr.count("\n") == 1


def test_missing_file(capsys, tmp_path):
    code, _, err = run_cli(capsys, "info", str(tmp_path / "nope.txt"))
    assert code == 1 and "nope.txt" in err and err.count("\n") == 1


def test_unknown_example_and_device(capsys):
    code, _, err = run_cli(capsys, "run", "bfs", "example:petersen")
    assert code == 1 and "unknown example" in err
    code, _, err = run_cli(capsys, "run", "bfs", "example:rmat8", "--device", "tpu")
    assert code == 1 and "unknown device" in err


def test_convert_failure_writes_nothing(capsys, tmp_path):
    bad = tmp_path / "bad.gr"
    bad.write_text("p sp 3 2\na 1 2 5\n")  # declares 2 arcs, has 1
    output = tmp_path / "out.gg"
    code, _, err = run_cli(capsys, "convert", str(bad), str(output))
    assert code == 1 and not output.exists()
    assert list(tmp_path.iterdir()) == [bad]  # no temporary file left behind either


def test_convert_and_generate_round_trip(capsys, tmp_path):
    generated = tmp_path / "g.gg"
    code, out, err = run_cli(capsys, "generate", "rmat", "--scale", "8", "-o", str(generated), "--device", "cpu")
    assert code == 0, err
    text = tmp_path / "g.mtx"
    code, _, err = run_cli(capsys, "convert", str(generated), str(text), "--device", "cpu")
    assert code == 0, err
    import gpugraph as gg

    assert gg.load(text, device="cpu", duplicates="keep").num_edges == gg.load(generated, device="cpu").num_edges


def test_generate_to_bin_suffix_is_binary(capsys, tmp_path):
    output = tmp_path / "g.bin"
    code, out, err = run_cli(capsys, "generate", "rmat", "--scale", "6", "-o", str(output), "--device", "cpu")
    assert code == 0, err
    import gpugraph as gg

    graph = gg.load(output, device="cpu")
    assert graph.num_vertices == 64 and graph.num_edges == 16 * 64
