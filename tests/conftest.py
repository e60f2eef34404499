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
