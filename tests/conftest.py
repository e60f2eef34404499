"""Shared fixtures: where the real datasets of ``../shared/datasets`` are, the repository's scripts as
modules, the device parameter and the compiler and launch fakes."""

from __future__ import annotations

import importlib.util
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


@pytest.fixture(scope="session")
def repo_script():
    """Factory: ``repo_script("bench/graph500_paired.py")`` is that script of the repository,
    loaded as a module (scripts are not importable: ``bench/`` and ``tools/`` are no packages)."""
    root = Path(__file__).resolve().parents[1]

    def load(relative: str):
        path = root / relative
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


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


@pytest.fixture()
def captured_launches(monkeypatch):
    """CUDA kernel launches recorded as ``(kernel, args)`` instead of run.

    Every gpugraph module that launches through ``launch_cuda_kernel`` or ``launch_cuda_grid`` is patched, so operators,
    programs and hand-written algorithm kernels can be driven on a :func:`fake_cuda_graph` and
    their kernels compiled to PTX afterwards (see :func:`ptx_of`).
    """
    import sys

    launches = []

    def capture(kernel, backend, items, *args):
        launches.append((kernel, args))

    def capture_grid(kernel, backend, blocks, threads, *args):
        launches.append((kernel, args))

    for name, module in list(sys.modules.items()):
        if name.startswith("gpugraph"):
            for launcher, replacement in (("launch_cuda_kernel", capture), ("launch_cuda_grid", capture_grid)):
                if hasattr(module, launcher):
                    monkeypatch.setattr(module, launcher, replacement)
    return launches


@pytest.fixture()
def fake_cuda_graph():
    """Factory of small random graphs whose backend claims to be CUDA but holds NumPy arrays."""
    import numpy as np

    import gpugraph as gg
    from gpugraph.backend import Backend

    def make(weighted=False, directed=True, n=30, m=120, seed=1):
        rng = np.random.default_rng(seed)
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        graph = gg.from_edges(src, dst, rng.random(m) if weighted else None, num_vertices=n, directed=directed, device="cpu")
        graph.reverse_edge_index, graph.in_indptr  # built on the CPU before the backend is swapped
        graph.backend = Backend("cuda", 0, simulated=True)
        return graph

    return make


@pytest.fixture()
def ptx_of(hopper_compiler):
    """``ptx_of(kernel, args)``: the sm_90 PTX of a captured launch, compiled for its argument types."""
    from gpugraph.ops._parts import numba_type

    def compile_launch(kernel, args):
        ptx, _ = hopper_compiler.compile_ptx(kernel.py_func, tuple(numba_type(a) for a in args), cc=HOPPER)
        assert ".entry" in ptx
        return ptx

    return compile_launch
