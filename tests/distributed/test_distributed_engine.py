"""Distributed engines on the CPU over Gloo (issue 7): every policy, both modes and both
synchronisation options give the single-device answers, with 1 to 4 processes.

One process group per process count runs the whole matrix (starting ranks costs seconds), its
rank 0 saves every answer, and the test compares them with the single-device library run in
this process."""

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="the distributed engines need PyTorch (the test extra installs the CPU build)")

import gpugraph as gg  # noqa: E402
from gpugraph.algorithms import bfs, kcore, pagerank, sssp, wcc  # noqa: E402
from gpugraph.distributed import runner  # noqa: E402
from gpugraph.distributed.engine import ALGORITHMS, MODES  # noqa: E402
from gpugraph.distributed.partition import POLICIES  # noqa: E402
from gpugraph.errors import DeviceError, DistributedError, InvalidParameterError, InvalidWeightError  # noqa: E402

SOURCE = 3


def sample_graph(weighted=True):
    """A directed graph with a hub, a high in-degree vertex, a second component and isolated vertices."""
    rng = np.random.default_rng(11)
    n = 260
    src = np.concatenate((rng.integers(0, 200, 1400), np.zeros(120, dtype=np.int64), rng.integers(220, 240, 60)))
    dst = np.concatenate((rng.integers(0, 200, 1400), rng.integers(0, 200, 120), rng.integers(220, 240, 60)))
    dst[:150] = 9
    weights = np.round(rng.random(src.size) * 10, 3) if weighted else None
    return gg.from_edges(src, dst, weights, num_vertices=n, device="cpu")


def matrix_worker(rank, kind, folder, processes):
    """Runs in every rank: the whole matrix on the test graph; rank 0 writes the answers."""
    graph = sample_graph()
    index = []
    for algorithm in ALGORITHMS:
        parameters = {"source": SOURCE} if algorithm in ("bfs", "sssp") else {}
        if algorithm == "pagerank":
            parameters = {"tol": 1e-13}
        prepared, prepared_parameters = runner.prepare(graph, algorithm, parameters)
        for policy in POLICIES:
            if policy == "metis" and not _has_pymetis():
                continue
            for mode in MODES:
                for update_only in (True, False):
                    values, stats = runner.run_rank(prepared, algorithm, prepared_parameters, policy=policy,
                                                      mode=mode, update_only=update_only)
                    if rank == 0:
                        name = f"{algorithm}-{policy}-{mode}-{int(update_only)}"
                        np.savez(folder / f"{name}.npz", **values)
                        index.append({"name": name, "algorithm": algorithm, "policy": policy, "mode": mode,
                                      "bytes": stats["bytes_sent"], "broadcast": stats["broadcast_mirrors"],
                                      "reduce": stats["reduce_mirrors"], "ranks": stats["ranks"]})
    if rank == 0:
        (folder / "index.json").write_text(json.dumps(index))


def _has_pymetis():
    try:
        import pymetis  # noqa: F401
    except ImportError:
        return False
    return True


def single_device_answers():
    graph = sample_graph()
    return {
        "bfs": bfs.run(graph, source=SOURCE).to_numpy("depth"),
        "sssp": sssp.run(graph, source=SOURCE).to_numpy("distance"),
        "wcc": wcc.run(graph).to_numpy("component"),
        "pagerank": pagerank.run(graph, tol=1e-12, max_iterations=1000).to_numpy("rank"),
        "kcore": kcore.run(graph).to_numpy("core"),
    }


@pytest.mark.slow
@pytest.mark.parametrize("processes", [1, 2, 3, 4])
def test_every_policy_and_mode_gives_the_single_device_answers(processes, tmp_path):
    runner.launch(matrix_worker, processes, "cpu", tmp_path, processes)
    expected = single_device_answers()
    index = json.loads((tmp_path / "index.json").read_text())
    assert len(index) == len(ALGORITHMS) * (len(POLICIES) - (not _has_pymetis())) * 4
    for entry in index:
        with np.load(tmp_path / f"{entry['name']}.npz") as saved:
            (answer,) = saved.values()
        if entry["algorithm"] == "pagerank":
            np.testing.assert_allclose(answer, expected["pagerank"], rtol=0, atol=1e-9, err_msg=entry["name"])
        else:
            np.testing.assert_array_equal(answer, expected[entry["algorithm"]], err_msg=entry["name"])
        assert entry["ranks"] == processes
        if entry["policy"] == "oec" or entry["policy"] == "metis":
            assert entry["broadcast"] == 0 or entry["algorithm"] in ("wcc", "kcore"), "OEC never broadcasts"
        if entry["policy"] == "iec":
            assert entry["reduce"] == 0 or entry["algorithm"] in ("wcc", "kcore"), "IEC never reduces"
        if processes == 1:
            assert entry["bytes"] == 0


def test_run_returns_a_result_in_original_ids():
    graph = gg.from_edges([10, 11, 12, 10], [11, 12, 13, 13], [1.0, 2.0, 3.0, 10.0], relabel=True, device="cpu")
    result = gg.distributed.run(graph, "sssp", processes=2, policy="cvc", source=10)
    assert result.by_original_id("distance") == {10: 0.0, 11: 1.0, 12: 3.0, 13: 6.0}
    assert result.parameters["source"] == 10 and result.stats["ranks"] == 2
    assert set(result.stats["balance"]) == {"static", "dynamic", "memory"}


def test_bad_requests_fail_before_starting_ranks():
    graph = sample_graph()
    with pytest.raises(InvalidParameterError, match="distributed 'scc'"):
        gg.distributed.run(graph, "scc")
    with pytest.raises(InvalidParameterError, match="policy"):
        gg.distributed.run(graph, "bfs", policy="random")
    with pytest.raises(InvalidParameterError, match="mode"):
        gg.distributed.run(graph, "bfs", mode="async")
    with pytest.raises(InvalidParameterError, match="wcc takes no source"):
        gg.distributed.run(graph, "wcc", source=1)
    with pytest.raises(InvalidParameterError, match="max_iterations applies to BSP"):
        gg.distributed.run(graph, "pagerank", mode="basp", max_iterations=3)
    with pytest.raises(DeviceError):  # no GPU here; on a GPU host: more ranks than GPUs
        gg.distributed.run(graph, "bfs", processes=64, device="cuda")
    negative = gg.from_edges([0, 1], [1, 2], [1.0, -2.0], device="cpu")
    with pytest.raises(InvalidWeightError):
        gg.distributed.run(negative, "sssp", source=0)


def failing_worker(rank, kind):
    """Rank 1 fails: the launcher must stop the others and report it."""
    if rank == 1:
        raise InvalidParameterError("rank one cannot go on")
    from gpugraph.distributed.comm import torch_distributed

    torch_distributed()[1].barrier()


def test_a_failing_rank_is_reported_and_the_others_stopped():
    with pytest.raises(DistributedError, match="rank 1 of 2 failed: InvalidParameterError: rank one cannot go on"):
        runner.launch(failing_worker, 2, "cpu")


def gpugraph_location_worker(rank, kind, folder):
    """Each rank writes where its gpugraph package comes from."""
    (folder / f"rank-{rank}.txt").write_text(gg.__file__)


def test_ranks_import_the_gpugraph_that_launched_them(tmp_path, monkeypatch):
    """The ranks start in the launcher's working directory; another gpugraph there (a second
    checkout, an older copy) must not be the one they run."""
    shadow = tmp_path / "elsewhere" / "gpugraph"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('the gpugraph of the working directory')\n")
    monkeypatch.chdir(shadow.parent)
    runner.launch(gpugraph_location_worker, 2, "cpu", tmp_path)
    assert [(tmp_path / f"rank-{rank}.txt").read_text() for rank in range(2)] == [gg.__file__] * 2


def test_cli_runs_on_ranks_and_refuses_what_it_cannot(capsys, tmp_path):
    from gpugraph.cli import main

    edges = tmp_path / "g.txt"
    edges.write_text("10 20 1\n20 30 2\n10 30 5\n30 10 1\n")
    output = tmp_path / "out.tsv"
    code = main(["run", "sssp", str(edges), "--source", "10", "--gpus", "2", "--device", "cpu", "--policy", "hvc",
                 "--mode", "basp", "--sync", "all-shared", "-o", str(output)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "ranks         2" in out and "balance       static" in out
    assert output.read_text().splitlines() == ["10\t0", "20\t1", "30\t3"]
    code = main(["run", "cdlp", str(edges), "--gpus", "2", "--device", "cpu"])
    err = capsys.readouterr().err
    assert code != 0 and "--gpus and torchrun run bfs" in err and "Traceback" not in err
    code = main(["run", "pagerank", str(edges), "--gpus", "2", "--num-iterations", "3", "--device", "cpu"])
    err = capsys.readouterr().err
    assert code != 0 and "takes no iterations" in err


STREAM_SCALE = 9


def whole_rmat():
    """The graph the streamed parts of :func:`stream_worker` make together, built on one device."""
    from gpugraph.distributed.build import edge_weights
    from gpugraph.io.generators import rmat_edges

    edges = rmat_edges(STREAM_SCALE, device="cpu")
    src, dst = edges.src.astype(np.int64), edges.dst.astype(np.int64)
    sources, destinations = np.concatenate((src, dst)), np.concatenate((dst, src))
    return gg.from_edges(sources, destinations, edge_weights(sources, destinations),
                         num_vertices=1 << STREAM_SCALE, device="cpu")


def stream_worker(rank, kind, folder):
    """Every rank generates a slice of the RMAT edges; the parts are built by exchanging arcs."""
    from gpugraph.backend import get_backend
    from gpugraph.distributed.build import rmat_part
    from gpugraph.distributed.comm import Communicator
    from gpugraph.distributed.engine import run_on_rank
    from gpugraph.distributed.partition import partition_graph

    comm = Communicator(get_backend("cpu"))
    whole = whole_rmat()
    for policy in ("oec", "iec", "hvc", "cvc"):
        part = rmat_part(comm, STREAM_SCALE, policy, weighted=True)
        (expected,) = partition_graph(whole, comm.size, policy, hosts=[rank])
        assert np.array_equal(part.local_to_global, expected.local_to_global), policy
        assert np.array_equal(part.indptr, expected.indptr), policy
        assert np.array_equal(part.out_degree, expected.out_degree), policy
        for algorithm, parameters in (("bfs", {"source": 5}), ("sssp", {"source": 5}), ("pagerank", {"tol": 1e-13})):
            values, _ = run_on_rank(part, comm.backend, algorithm, parameters)
            if rank == 0:
                np.savez(folder / f"{algorithm}-{policy}.npz", **values)


@pytest.mark.slow
def test_streamed_parts_equal_the_whole_graph_parts_and_answers(tmp_path):
    runner.launch(stream_worker, 3, "cpu", tmp_path)
    whole = whole_rmat()
    expected = {"bfs": bfs.run(whole, source=5).to_numpy("depth"),
                "sssp": sssp.run(whole, source=5).to_numpy("distance"),
                "pagerank": pagerank.run(whole, tol=1e-12, max_iterations=1000).to_numpy("rank")}
    for policy in ("oec", "iec", "hvc", "cvc"):
        for algorithm, answer in expected.items():
            with np.load(tmp_path / f"{algorithm}-{policy}.npz") as saved:
                (value,) = saved.values()
            np.testing.assert_allclose(value, answer, rtol=1e-12, atol=1e-9, err_msg=f"{algorithm} {policy}")


def saved_parts_worker(rank, kind, folder):
    """Each rank reloads its own saved part and runs on it."""
    from gpugraph.backend import get_backend
    from gpugraph.distributed.engine import run_on_rank
    from gpugraph.distributed.partition import Partition

    part = Partition.load(folder / f"{rank}.npz")
    values, _ = run_on_rank(part, get_backend("cpu"), "bfs", {"source": SOURCE})
    if rank == 0:
        np.save(folder / "depth.npy", values["depth"])


def test_parts_saved_once_are_reloaded_per_rank(tmp_path):
    from gpugraph.distributed.partition import partition_graph

    for part in partition_graph(sample_graph(), 2, "cvc"):
        part.save(tmp_path / f"{part.host}.npz")
    runner.launch(saved_parts_worker, 2, "cpu", tmp_path)
    expected = bfs.run(sample_graph(), source=SOURCE).to_numpy("depth")
    assert np.array_equal(np.load(tmp_path / "depth.npy"), expected)
