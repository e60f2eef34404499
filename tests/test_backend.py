"""Device selection and the NumPy 2.5 compatibility step for numba-cuda."""

import numpy as np
import pytest

import gpugraph as gg
from gpugraph.backend import get_backend, parse_device
from gpugraph.backend.numba_cuda import apply_numpy_compat


def test_parse_device_names():
    assert parse_device("cpu") == ("cpu", None)
    assert parse_device("cuda") == ("cuda", 0)
    assert parse_device("CUDA:1") == ("cuda", 1)
    assert parse_device("gpu") == ("cuda", 0)
    assert parse_device("auto") == ("auto", None)


@pytest.mark.parametrize("bad", ["tpu", "cuda:x", "cpu:1", ""])
def test_bad_device_names(bad):
    with pytest.raises(gg.DeviceError):
        parse_device(bad)


def test_environment_variable_picks_device(monkeypatch):
    monkeypatch.setenv("GPUGRAPH_DEVICE", "cpu")
    assert get_backend(None).name == "cpu"


def test_auto_without_gpu_is_cpu(monkeypatch):
    monkeypatch.setattr("gpugraph.backend.cuda_available", lambda: False)
    assert get_backend("auto").name == "cpu"


def test_backend_is_shared_object():
    assert get_backend("cpu") is get_backend("cpu")


def test_import_has_no_device_side_effects():
    import subprocess
    import sys

    code = "import sys, gpugraph; print('cupy' in sys.modules, 'numba.cuda' in sys.modules)"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert output.stdout.split() == ["False", "False"]


def test_numpy_row_stack_shim(monkeypatch):
    monkeypatch.delattr(np, "row_stack", raising=False)
    monkeypatch.setattr("gpugraph.backend.numba_cuda._ROW_STACK_SHIM_APPLIED", False)
    assert apply_numpy_compat() is True
    assert np.row_stack is np.vstack


def test_cpu_memory_info():
    free, total = get_backend("cpu").memory_info()
    assert 0 < free <= total


def test_the_pool_measures_are_zero_and_releasing_does_nothing_off_the_gpu():
    backend = get_backend("cpu")
    backend.reset_pool_peak()
    backend.release_cached_memory()
    assert backend.pool_peak_bytes() == 0


class CUDARuntimeError(RuntimeError):
    """Stands for CuPy's runtime error (``cupy_backends``), which names its CUDA status."""

    def __init__(self, status):
        super().__init__(f"status {status}")
        self.status = status


@pytest.mark.parametrize("error", [MemoryError("pool exhausted"), CUDARuntimeError(2)])
def test_running_out_of_memory_is_a_named_error_saying_what_was_done(error):
    from gpugraph.errors import DeviceOutOfMemoryError

    with pytest.raises(DeviceOutOfMemoryError, match=r"cpu: out of memory sorting the keys \("):
        with get_backend("cpu").out_of_memory_named("sorting the keys"):
            raise error


def test_other_runtime_errors_pass_through_out_of_memory_naming():
    with pytest.raises(CUDARuntimeError):
        with get_backend("cpu").out_of_memory_named("sorting the keys"):
            raise CUDARuntimeError(700)  # an illegal address: not memory
