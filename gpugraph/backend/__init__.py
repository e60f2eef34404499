"""The backend layer: where arrays live and kernels run.

Two backends share one small interface (:class:`Backend`):

``cpu``
    NumPy arrays, Numba ``@njit(parallel=True, cache=True)`` kernels.
``cuda`` / ``cuda:N``
    CuPy arrays on GPU ``N``, numba-cuda kernels. Under ``NUMBA_ENABLE_CUDASIM=1`` the same CUDA
    kernels run in Numba's simulator on NumPy arrays, which is how CI exercises them.

A backend is chosen once, by :func:`get_backend`, and passed down explicitly. Nothing is detected
at import time; ``device=None`` consults the ``GPUGRAPH_DEVICE`` environment variable and then
looks for a GPU the first time it is asked.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys

import numpy as np

from gpugraph import config
from gpugraph.errors import DeviceError, DeviceOutOfMemoryError, InvalidParameterError

_CUDA_ERROR_MEMORY_ALLOCATION = 2  # cudaErrorMemoryAllocation


def _out_of_memory(error: Exception) -> bool:
    """Whether ``error`` says the GPU (or the host) ran out of memory."""
    return isinstance(error, MemoryError) or (type(error).__name__ == "CUDARuntimeError"
                                              and getattr(error, "status", None) == _CUDA_ERROR_MEMORY_ALLOCATION)


_DEVICE_PATTERN = re.compile(r"^(cpu|cuda|gpu)(?::(\d+))?$")


class Backend:
    """One place arrays can live: the host (``cpu``) or one CUDA device (``cuda:N``).

    Attributes
    ----------
    kind:
        ``"cpu"`` or ``"cuda"``.
    device_id:
        CUDA ordinal for ``cuda`` backends, ``None`` for ``cpu``.
    simulated:
        ``True`` when CUDA kernels run in Numba's simulator on host arrays.
    xp:
        The array module: :mod:`numpy` or :mod:`cupy` (NumPy under the simulator).
    """

    def __init__(self, kind: str, device_id: int | None = None, simulated: bool = False):
        self.kind = kind
        self.device_id = device_id
        self.simulated = simulated
        self._multiprocessors = None
        self._pool_peak = 0  # pool_peak_bytes
        if kind == "cuda" and not simulated:
            import cupy

            self.xp = cupy
        else:
            self.xp = np

    # --- identity ----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """Canonical device string: ``"cpu"`` or ``"cuda:N"``."""
        return "cpu" if self.kind == "cpu" else f"cuda:{self.device_id}"

    @property
    def is_cuda(self) -> bool:
        """Whether kernels for this backend are CUDA kernels (real or simulated)."""
        return self.kind == "cuda"

    @property
    def on_host(self) -> bool:
        """Whether arrays of this backend are NumPy arrays in host memory."""
        return self.xp is np

    def __repr__(self) -> str:
        return f"Backend({self.name!r}{', simulated' if self.simulated else ''})"

    def __str__(self) -> str:
        return self.name

    # --- arrays --------------------------------------------------------------------------------
    def activate(self):
        """Context manager making this backend's GPU the current CUDA device (no-op on host)."""
        if self.on_host:
            return contextlib.nullcontext()
        return self.xp.cuda.Device(self.device_id)

    def asarray(self, array, dtype=None):
        """Copy ``array`` (NumPy, CuPy or anything with DLPack) to this backend.

        Raises
        ------
        DeviceOutOfMemoryError
            If the device cannot hold the array.
        """
        if self.on_host:
            return np.asarray(to_numpy(array), dtype=dtype)
        with self.activate(), self.out_of_memory_named(f"copying an array of {_nbytes(array):,} bytes"):
            return self.xp.asarray(array, dtype=dtype)

    @contextlib.contextmanager
    def out_of_memory_named(self, what: str):
        """Turn running out of memory inside the block (CuPy's ``OutOfMemoryError`` is a
        ``MemoryError``; an allocation outside CuPy's pool fails with a ``CUDARuntimeError`` of
        status ``cudaErrorMemoryAllocation``) into a :class:`DeviceOutOfMemoryError` saying what
        was being done.

        Raises
        ------
        DeviceOutOfMemoryError
            ``"{backend}: out of memory {what} ({free} of {total} bytes free)"``.
        """
        try:
            yield
        except DeviceOutOfMemoryError:
            raise
        except Exception as exc:
            if not _out_of_memory(exc):
                raise
            free, total = self.memory_info()
            message = f"{self.name}: out of memory {what} ({free:,} of {total:,} bytes free)"
            raise DeviceOutOfMemoryError(message) from exc

    def empty(self, shape, dtype):
        """Allocate an uninitialised array on this backend."""
        with self.activate():
            return self.xp.empty(shape, dtype=dtype)

    def synchronize(self) -> None:
        """Wait until all queued work on this backend has finished."""
        if not self.on_host:
            with self.activate():
                self.xp.cuda.get_current_stream().synchronize()

    def memory_info(self) -> tuple[int, int]:
        """Return ``(free_bytes, total_bytes)`` of this backend's memory."""
        if self.on_host:
            page = os.sysconf("SC_PAGE_SIZE")
            return os.sysconf("SC_AVPHYS_PAGES") * page, os.sysconf("SC_PHYS_PAGES") * page
        with self.activate():
            return self.xp.cuda.runtime.memGetInfo()

    def reset_pool_peak(self) -> None:
        """Start a new measurement of :meth:`pool_peak_bytes` from what the pool holds now."""
        self._pool_peak = self._pool_held()

    def pool_peak_bytes(self) -> int:
        """The most bytes CuPy's memory pool has held on this GPU (used and kept for reuse) since
        :meth:`reset_pool_peak` or the backend's making; 0 on the CPU and the simulator.

        The pool only grows between releases (:meth:`release_cached_memory`), so this is the
        larger of what it held at each release and what it holds now."""
        self._pool_peak = max(self._pool_peak, self._pool_held())
        return self._pool_peak

    def release_cached_memory(self) -> None:
        """Give the blocks CuPy's memory pool keeps for reuse back to the GPU; nothing on the CPU
        and the simulator.

        Between the phases of a construction that fills most of the GPU this keeps a long-lived
        array from being carved out of a large cached block (which it would pin: the pool
        returns only whole blocks), so that the next phase's large arrays find the memory.
        """
        self._pool_peak = max(self._pool_peak, self._pool_held())
        if not (self.on_host or self.simulated):
            with self.activate():
                self.xp.get_default_memory_pool().free_all_blocks()

    def _pool_held(self) -> int:
        if self.on_host or self.simulated:
            return 0
        with self.activate():
            return int(self.xp.get_default_memory_pool().total_bytes())

    def device_description(self) -> str:
        """Human-readable device name, e.g. ``"NVIDIA H100 80GB HBM3 (cuda:0)"``."""
        if self.kind == "cpu":
            return f"cpu ({os.cpu_count()} cores)"
        if self.simulated:
            return f"CUDA simulator ({self.name})"
        props = self.xp.cuda.runtime.getDeviceProperties(self.device_id)
        name = props["name"]
        name = name.decode() if isinstance(name, bytes) else name
        return f"{name} ({self.name})"

    def multiprocessors(self) -> int:
        """Number of streaming multiprocessors of this backend's GPU (1 on the CPU and simulator)."""
        if self.on_host or self.simulated:
            return 1
        if self._multiprocessors is None:
            with self.activate():
                self._multiprocessors = int(self.xp.cuda.Device().attributes["MultiProcessorCount"])
        return self._multiprocessors

    def threads_per_block(self) -> int:
        """Default CUDA block size for one-thread-per-item kernels."""
        return config.CUDA_THREADS_PER_BLOCK

    def blocks_for(self, items: int) -> int:
        """Number of blocks to cover ``items`` with one thread each (at least one)."""
        tpb = self.threads_per_block()
        return max(1, (items + tpb - 1) // tpb)


#: DLPack device types (``DLDeviceType`` of dlpack.h) whose memory the host reads directly:
#: kDLCPU and kDLCUDAHost (pinned host memory).
_DLPACK_HOST_DEVICES = (1, 3)
#: DLPack device types that CuPy imports: kDLCUDA and kDLCUDAManaged.
_DLPACK_CUDA_DEVICES = (2, 13)


def as_array(obj):
    """Return ``obj`` as a NumPy (host) or CuPy (GPU) array, sharing its memory where it can.

    Parameters
    ----------
    obj:
        A NumPy or CuPy array (returned as it is); anything with ``__dlpack__`` (PyTorch
        tensors, JAX arrays, on the CPU or a CUDA GPU); anything with
        ``__cuda_array_interface__`` (Numba device arrays); or an array-like (list, pandas
        Series), which NumPy converts.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        A view of ``obj``'s memory, without a copy, for arrays and tensors: a NumPy view of host
        memory (``numpy.from_dlpack``), a CuPy view of GPU memory (``cupy.from_dlpack``). Only
        array-likes that are not arrays (lists) are copied into a new NumPy array.

    Raises
    ------
    DeviceError
        If ``obj`` lives on a CUDA GPU and CuPy is not installed, or on a device that is neither
        the host nor a CUDA GPU.
    InvalidParameterError
        If ``obj`` refuses to share its memory through DLPack (a PyTorch tensor that requires
        grad: pass ``tensor.detach()``).
    """
    if isinstance(obj, np.ndarray) or _is_cupy_array(obj):
        return obj
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        device_type = int(obj.__dlpack_device__()[0])
        if device_type in _DLPACK_HOST_DEVICES:
            return _from_dlpack(np, obj)
        if device_type in _DLPACK_CUDA_DEVICES:
            return _from_dlpack(_cupy_for(obj), obj)
        raise DeviceError(
            f"{type(obj).__name__} lives on DLPack device type {device_type}, neither the host "
            "nor a CUDA GPU"
        )
    if hasattr(obj, "__cuda_array_interface__"):
        return _cupy_for(obj).asarray(obj)
    return np.asarray(obj)


def to_numpy(array) -> np.ndarray:
    """Return ``array`` as a NumPy array, copying it only when it lives on a GPU.

    Parameters
    ----------
    array:
        Anything :func:`as_array` takes.

    Returns
    -------
    numpy.ndarray
        ``array`` itself for NumPy arrays, a view for host tensors (PyTorch CPU tensors through
        DLPack), a host copy for GPU arrays and tensors.

    Raises
    ------
    DeviceError, InvalidParameterError
        As :func:`as_array`.
    """
    array = as_array(array)
    return array if isinstance(array, np.ndarray) else array.get()


def _is_cupy_array(obj) -> bool:
    # CuPy is never imported just to ask: if it is not loaded, obj cannot be one of its arrays.
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(obj, cupy.ndarray)


def _cupy_for(obj):
    try:
        import cupy
    except ImportError as exc:
        raise DeviceError(
            f"{type(obj).__name__} lives on a CUDA GPU and reading it needs CuPy: "
            "pip install 'gpugraph[gpu]'"
        ) from exc
    return cupy


def _from_dlpack(xp, obj):
    try:
        return xp.from_dlpack(obj)
    except (BufferError, RuntimeError, TypeError) as exc:
        raise InvalidParameterError(
            f"{type(obj).__name__} cannot share its memory through DLPack: {exc}"
        ) from exc


def array_module(array):
    """Return :mod:`cupy` for CuPy (GPU) arrays and :mod:`numpy` for anything else."""
    if isinstance(array, np.ndarray) or not hasattr(array, "__cuda_array_interface__"):
        return np
    import cupy

    return cupy


def _nbytes(array) -> int:
    return int(getattr(array, "nbytes", 0))


def cuda_available() -> bool:
    """Whether a real CUDA GPU can be used (CuPy imports and sees at least one device)."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # ImportError, CUDARuntimeError (no driver), ...
        return False


def parse_device(device: str | None) -> tuple[str, int | None]:
    """Split a device string into ``(kind, ordinal)``.

    Parameters
    ----------
    device:
        ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"gpu"``, ``"auto"`` or ``None`` (read
        ``GPUGRAPH_DEVICE``, default ``"auto"``).

    Returns
    -------
    tuple
        ``("cpu", None)``, ``("cuda", N)`` or ``("auto", None)``.

    Raises
    ------
    DeviceError
        If the string is not a device name.
    """
    if device is None:
        device = os.environ.get(config.DEVICE_ENV_VAR, "auto") or "auto"
    text = str(device).strip().lower()
    if text == "auto":
        return "auto", None
    match = _DEVICE_PATTERN.match(text)
    if not match:
        raise DeviceError(
            f"unknown device {device!r}: use 'cpu', 'cuda', 'cuda:N' or 'auto'"
        )
    kind = "cpu" if match.group(1) == "cpu" else "cuda"
    if kind == "cpu":
        if match.group(2) is not None:
            raise DeviceError(f"unknown device {device!r}: the cpu backend has no ordinal")
        return "cpu", None
    return "cuda", int(match.group(2) or 0)


def get_backend(device: "str | Backend | None" = None) -> Backend:
    """Resolve a device request to a :class:`Backend`.

    Parameters
    ----------
    device:
        A :class:`Backend`, a device string (see :func:`parse_device`), or ``None``.
        ``"auto"`` picks ``cuda:0`` when a GPU is usable and ``cpu`` otherwise.

    Returns
    -------
    Backend
        The same object for the same device on every call.

    Raises
    ------
    DeviceError
        If a CUDA device is requested and none is usable, or the ordinal does not exist.
    """
    if isinstance(device, Backend):
        return device
    kind, ordinal = parse_device(device)
    if kind == "auto":
        kind, ordinal = ("cuda", 0) if cuda_available() else ("cpu", None)
    return _backend_for(kind, ordinal, _simulator_on() if kind == "cuda" else False)


@functools.lru_cache(maxsize=None)
def _backend_for(kind: str, ordinal: int | None, simulated: bool) -> Backend:
    if kind == "cpu":
        return Backend("cpu")
    if simulated:
        return Backend("cuda", ordinal, simulated=True)
    try:
        import cupy
    except ImportError as exc:
        raise DeviceError(
            "device 'cuda' requested but CuPy is not installed; install the GPU extra: "
            "pip install 'gpugraph[gpu]'"
        ) from exc
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise DeviceError(f"device 'cuda:{ordinal}' requested but no CUDA driver works: {exc}") from exc
    if ordinal >= count:
        raise DeviceError(f"device 'cuda:{ordinal}' requested but only {count} GPU(s) are visible")
    return Backend("cuda", ordinal)


def _simulator_on() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
