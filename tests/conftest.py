"""Shared fixtures: where the real datasets of ``../shared/datasets`` are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: Environment variable that points the tests at another datasets folder.
DATASETS_ENV_VAR = "GPUGRAPH_DATASETS"


def _datasets_dir() -> Path:
    override = os.environ.get(DATASETS_ENV_VAR)
    if override:
        return Path(override)
    # The repository root's parent holds shared/ (CI checks the project out beside it).
    return Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    """The datasets folder; skips the test when it is not there."""
    folder = _datasets_dir()
    if not folder.is_dir():
        pytest.skip(f"datasets folder not found: {folder} (set {DATASETS_ENV_VAR} to point at it)")
    return folder


@pytest.fixture(scope="session")
def dataset(datasets_dir):
    """Factory: ``dataset("wiki-Vote.txt.gz")`` is that file's path; skips the test when it is missing."""

    def locate(name: str) -> Path:
        path = datasets_dir / name
        if not path.is_file():
            pytest.skip(f"dataset file not found: {path}")
        return path

    return locate


_SIMULATOR_ON = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


@pytest.fixture(
    params=[
        pytest.param("cpu", marks=pytest.mark.skipif(_SIMULATOR_ON, reason="CPU run covered by the main invocation")),
        pytest.param(
            "cuda",
            marks=[pytest.mark.cudasim, pytest.mark.skipif(not _SIMULATOR_ON, reason="needs NUMBA_ENABLE_CUDASIM=1")],
        ),
    ]
)
def device(request) -> str:
    """Each test using it runs on the CPU kernels and, under the simulator, on the CUDA kernels."""
    return request.param


#: Compute capability the PTX tests compile for (the H100 and H200 of the device machines).
HOPPER = (9, 0)


class _NoDeviceHopper:
    """Stands in for the current device: numba-cuda compiles device functions for the current
    device's compute capability, and a CI machine has no device."""

    compute_capability = HOPPER


@pytest.fixture(scope="session")
def hopper_compiler():
    """``numba.cuda`` set up to compile PTX for sm_90 without a GPU; skips when NVVM is missing
    (and under the simulator, which cannot compile)."""
    if _SIMULATOR_ON:
        pytest.skip("the simulator cannot compile PTX")
    from numba import types

    from gpugraph.backend.numba_cuda import load_numba_cuda

    module = load_numba_cuda()
    from numba.cuda import dispatcher

    patcher = pytest.MonkeyPatch()
    patcher.setattr(dispatcher, "get_current_device", _NoDeviceHopper)
    try:
        module.compile_ptx(lambda value: value, (types.int32,), device=True, cc=HOPPER)
    except Exception as exc:  # noqa: BLE001 - any missing NVVM/NVRTC piece means: skip
        patcher.undo()
        pytest.skip(f"NVVM not available to numba-cuda: {exc.__class__.__name__}")
    yield module
    patcher.undo()
