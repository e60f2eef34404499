"""``gpugraph.distributed.comm.use_rank_device``: what a rank sets before its process group."""

import os
import types

import pytest

torch = pytest.importorskip("torch", reason="the distributed runtime needs PyTorch (the test extra installs the CPU build)")

from gpugraph.backend import get_backend  # noqa: E402
from gpugraph.distributed.comm import use_rank_device  # noqa: E402


def test_a_gpu_rank_makes_its_gpu_current_and_connects_nccl_at_the_start(monkeypatch):
    chosen = []
    monkeypatch.setattr(torch.cuda, "set_device", chosen.append)
    used = []
    fake_cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(
        Device=lambda number: types.SimpleNamespace(use=lambda: used.append(number))))
    backend = types.SimpleNamespace(is_cuda=True, simulated=False, device_id=3, xp=fake_cupy)
    monkeypatch.delenv("NCCL_RUNTIME_CONNECT", raising=False)
    use_rank_device(backend)
    assert chosen == [3] and used == [3]
    assert os.environ["NCCL_RUNTIME_CONNECT"] == "0"
    monkeypatch.setenv("NCCL_RUNTIME_CONNECT", "1")  # the user's setting stays
    use_rank_device(backend)
    assert os.environ["NCCL_RUNTIME_CONNECT"] == "1"


def test_cpu_ranks_change_nothing(monkeypatch):
    monkeypatch.setattr(torch.cuda, "set_device", lambda device: pytest.fail("set_device on a CPU rank"))
    monkeypatch.delenv("NCCL_RUNTIME_CONNECT", raising=False)
    use_rank_device(get_backend("cpu"))
    assert "NCCL_RUNTIME_CONNECT" not in os.environ
