"""Launching Numba kernels and recording what their first launch cost.

The first launch of a Numba kernel compiles it (or loads it from the on-disk cache: every kernel
of gpugraph is declared with ``cache=True``). That time is not run time, so it is measured apart and
kept in a log that benchmarks and ``gpugraph run --verbose`` print.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

import numpy as np

from gpugraph.errors import DeviceError


@dataclass
class FirstLaunch:
    """Cost of the first launch of one kernel on one target.

    Attributes
    ----------
    kernel:
        The kernel's module and Python name.
    target:
        ``"cpu"``, ``"cuda"`` or ``"cudasim"``.
    seconds:
        Wall time of the launches that compiled it (or loaded it from the cache), one per
        argument-type signature, compilation included.
    """

    kernel: str
    target: str
    seconds: float


_first_launches: dict[tuple[str, str], FirstLaunch] = {}
_compile_seconds = 0.0


def compile_report() -> list[FirstLaunch]:
    """Return the first-launch costs recorded so far in this process, in launch order."""
    return list(_first_launches.values())


def compile_seconds() -> float:
    """Total seconds spent so far in launches that compiled (or loaded from the cache) a kernel.

    Callers time a piece of work by reading it before and after: the difference is the part of
    the wall time that went to compilation rather than to running.
    """
    return _compile_seconds


def add_compile_seconds(seconds: float) -> None:
    """Count ``seconds`` of compilation done outside a launch (e.g. typing a user function)."""
    global _compile_seconds
    _compile_seconds += seconds


def _kernel_name(kernel) -> str:
    function = getattr(kernel, "py_func", kernel)
    return f"{getattr(function, '__module__', '')}.{getattr(function, '__name__', repr(kernel))}"


def _compiled_versions(kernel) -> int:
    """How many type signatures ``kernel`` has compiled (-1 where the dispatcher cannot say)."""
    overloads = getattr(kernel, "overloads", None)
    return len(overloads) if overloads is not None else -1


def _record(kernel, target: str, seconds: float) -> None:
    global _compile_seconds
    _compile_seconds += seconds
    key = (_kernel_name(kernel), target)
    if key in _first_launches:
        _first_launches[key].seconds += seconds
    else:
        _first_launches[key] = FirstLaunch(key[0], target, seconds)


def run_cpu_kernel(kernel, *args):
    """Call a Numba ``@njit`` kernel, timing the calls that compile it (or load it from cache).

    Parameters
    ----------
    kernel:
        A Numba CPU dispatcher.
    *args:
        Its arguments.

    Returns
    -------
    object
        Whatever the kernel returns.
    """
    before = _compiled_versions(kernel)
    start = time.perf_counter()
    result = kernel(*args)
    if _compiled_versions(kernel) != before:
        _record(kernel, "cpu", time.perf_counter() - start)
    return result


def launch_cuda_kernel(kernel, backend, items: int, *args) -> None:
    """Launch a numba-cuda kernel with one thread per item on ``backend``'s device.

    A launch that compiles the kernel for new argument types (or loads it from the on-disk
    cache) is synchronised and timed, and its time recorded as compile time. Later launches with
    arguments of the same types skip Numba's dispatch (see :class:`_DirectLaunch`).

    Parameters
    ----------
    kernel:
        A ``numba.cuda.jit`` dispatcher.
    backend:
        The :class:`gpugraph.backend.Backend` whose device runs it.
    items:
        Number of work items; the grid has ``ceil(items / threads_per_block)`` blocks.
    *args:
        Kernel arguments (CuPy arrays, or NumPy arrays under the simulator).
    """
    launch_cuda_grid(kernel, backend, backend.blocks_for(items), backend.threads_per_block(), *args)


def launch_cuda_grid(kernel, backend, blocks: int, threads: int, *args) -> None:
    """Launch a numba-cuda kernel on ``blocks`` blocks of ``threads`` threads (see
    :func:`launch_cuda_kernel`, which derives the grid from a number of items)."""
    target = "cudasim" if backend.simulated else "cuda"
    with backend.activate():
        if not backend.simulated:
            key = (id(kernel), backend.device_id, *(_type_key(value) for value in args))
            direct = _direct_launches.get(key)
            if direct is not None:
                direct(blocks, threads, args)
                return
        config = kernel[blocks, threads]
        before = _compiled_versions(kernel)
        if before >= 0 or (_kernel_name(kernel), target) in _first_launches:
            start = time.perf_counter()
            config(*args)
            if _compiled_versions(kernel) != before:
                backend.synchronize()
                _record(kernel, target, time.perf_counter() - start)
            if not backend.simulated:
                direct = _DirectLaunch.of(kernel, args)
                if direct is not None:
                    _direct_launches[key] = direct
            return
        # The simulator's kernels keep no list of compiled versions: time the first call.
        start = time.perf_counter()
        config(*args)
        _record(kernel, target, time.perf_counter() - start)


def resident_blocks(kernel, backend, threads: int, *args) -> int:
    """How many blocks of ``threads`` threads of ``kernel`` (compiled for ``args``) fit on the
    GPU at once: the most a persistent kernel with a grid barrier may launch. Compiling here
    counts as the kernel's first launch (:func:`compile_report`). The simulator runs one block.

    Parameters
    ----------
    kernel:
        A ``numba.cuda.jit`` kernel.
    backend:
        A CUDA backend (real or simulated).
    threads:
        Threads per block.
    *args:
        The arguments it will be launched with (their types select the compiled version).

    Returns
    -------
    int
        Resident blocks over all multiprocessors; 0 when a block of ``threads`` threads cannot
        run (too many registers per thread).
    """
    if backend.simulated:
        return 1
    key = (id(kernel), backend.device_id, threads, *(_type_key(value) for value in args))
    if key not in _resident_blocks:
        with backend.activate():
            before = _compiled_versions(kernel)
            start = time.perf_counter()
            compiled = kernel.compile(tuple(kernel.typeof_pyval(value) for value in args))
            if _compiled_versions(kernel) != before:
                _record(kernel, "cuda", time.perf_counter() - start)
            _resident_blocks[key] = compiled.max_cooperative_grid_blocks(threads)
    return _resident_blocks[key]


#: (kernel id, device, threads, argument type keys...) -> resident blocks (resident_blocks()).
_resident_blocks: dict = {}


#: (kernel id, device, argument type keys...) -> _DirectLaunch, for kernels launched at least once.
_direct_launches: dict = {}


def _type_key(value):
    """What decides an argument's Numba type: dtype, rank and layout of an array (of each array
    of a tuple), else the Python type of the scalar."""
    if isinstance(value, tuple):  # of arrays (kernel_tuple: Numba's device arrays, whose flags differ)
        return tuple((item.dtype.char, item.ndim) for item in value)
    flags = getattr(value, "flags", None)
    if flags is not None and getattr(value, "ndim", 0):
        return (value.dtype.char, value.ndim, flags.c_contiguous, flags.f_contiguous)
    return type(value)


class _DirectLaunch:
    """A kernel compiled for one argument-type signature, launched without Numba's dispatch.

    Numba's dispatcher types every argument on every launch (for a CuPy array, through its
    ``__cuda_array_interface__``: tens of microseconds each), which dominated the rounds of
    level-synchronous algorithms with small frontiers. Once a signature has been compiled, the
    kernel's parameters can be packed straight from the CuPy arrays' attributes, in Numba's
    layout for an array argument: meminfo, parent, size, itemsize, data pointer, shape,
    strides. Scalars go through Numba's own packing. The dispatcher stays referenced, so the
    ``id`` used as a key is never reused while the entry exists.
    """

    def __init__(self, dispatcher, compiled):
        import ctypes

        from numba.cuda import types
        from numba.cuda.cudadrv import driver

        self.dispatcher, self.compiled = dispatcher, compiled
        # Per argument: None for an array or a tuple of arrays (whose parameters are its arrays',
        # one after another), a ctypes constructor for an integer or float64 scalar, else the
        # Numba type (packed by Numba's own _prepare_args).
        self.packers = []
        for argument_type in compiled.argument_types:
            if isinstance(argument_type, types.Array) or (
                    isinstance(argument_type, types.UniTuple) and isinstance(argument_type.dtype, types.Array)):
                self.packers.append(None)
            elif isinstance(argument_type, types.Integer):
                self.packers.append(getattr(ctypes, f"c_{argument_type}"))
            elif argument_type == types.float64:
                self.packers.append(ctypes.c_double)
            else:
                self.packers.append(argument_type)
        self.stream = driver._to_core_stream(0)  # the default stream, as Numba launches on
        # The function handle of the current device's context (the cache key names the device).
        self.function = compiled._codelibrary.get_cufunc().kernel
        self.configs = {}

    @classmethod
    def of(cls, dispatcher, args):
        """The direct launch of ``dispatcher``'s version for ``args`` (``None`` if it has none)."""
        argument_types = tuple(dispatcher.typeof_pyval(value) for value in args)
        compiled = dispatcher.overloads.get(argument_types)
        return None if compiled is None else cls(dispatcher, compiled)

    def __call__(self, blocks: int, threads: int, args) -> None:
        from cuda.core import launch

        parameters = []
        for packer, value in zip(self.packers, args):
            if packer is None:
                parameters += _array_parameters(value)
            elif isinstance(packer, type):  # a ctypes class
                parameters.append(packer(value))
            else:
                self.compiled._prepare_args(packer, value, 0, [], parameters)
        config = self.configs.get((blocks, threads))
        if config is None:
            config = self.configs[(blocks, threads)] = self._config(blocks, threads)
        launch(self.stream, config, self.function, *parameters)

    def _config(self, blocks: int, threads: int):
        from cuda.core import LaunchConfig
        from numba.cuda._compat import CUDA_CORE_GE_1_0

        cooperative = {"is_cooperative" if CUDA_CORE_GE_1_0 else "cooperative_launch": self.compiled.cooperative}
        return LaunchConfig(grid=blocks, block=threads, shmem_size=0, **cooperative)


class BoundLaunch:
    """Repeated launches of one kernel on one backend, mostly with the same arrays.

    :func:`launch_cuda_grid` packs every argument on every call (~60 us of host time for twenty
    arrays, ``bench/launch_overhead.py``), which is most of a level of a search on a big graph
    whose kernels take tens of microseconds. A bound launch packs the parameters once into a
    ctypes block and launches it with the driver's ``cuLaunchKernel`` (~6 us); on later calls
    it repacks only the arguments that are not the same objects as last time (scalars are
    rewritten in place). The first call, a change of argument types and the simulator go
    through :func:`launch_cuda_grid`. The bound arrays stay referenced until the next call
    with others, so the owner should live no longer than they do.

    Parameters
    ----------
    kernel:
        A ``numba.cuda.jit`` kernel (not cooperative).
    backend:
        The CUDA backend it runs on.
    """

    def __init__(self, kernel, backend):
        self.kernel, self.backend = kernel, backend
        self.arguments = None  # what the block holds
        self.type_keys = None
        self.slots = None  # per argument: its ctypes values in the block
        self.block = self.function = None
        self.unbindable = False  # a cooperative kernel or an argument type the block cannot pack

    def __call__(self, blocks: int, threads: int, *args, stream: int = 0) -> None:
        """Launch on ``blocks`` blocks of ``threads`` threads with ``args``, on ``stream`` (a CUDA
        stream handle; 0: the default stream). A launch that packs its parameters (the first, a
        change of argument types) goes to the default stream whatever ``stream`` says.

        Raises
        ------
        DeviceError
            If the driver refuses the launch.
        """
        if self.backend.simulated:
            launch_cuda_grid(self.kernel, self.backend, blocks, threads, *args)
            return
        if self.block is None or not self._rebind(args):
            launch_cuda_grid(self.kernel, self.backend, blocks, threads, *args)
            if not self.unbindable:
                self._bind(args)
            return
        from cuda.bindings import driver

        with self.backend.activate():
            (error,) = driver.cuLaunchKernel(self.function, blocks, 1, 1, threads, 1, 1, 0, driver.CUstream(stream),
                                             self.address, 0)
        if error != driver.CUresult.CUDA_SUCCESS:
            raise DeviceError(f"launching {_kernel_name(self.kernel)} on {blocks} x {threads} threads failed: {error}")

    def _bind(self, args) -> None:
        """Pack ``args`` into a new parameter block (after a launch that compiled them)."""
        import ctypes

        from cuda.bindings import driver

        with self.backend.activate():
            direct = _DirectLaunch.of(self.kernel, args)
        if direct is None or direct.compiled.cooperative:
            self.block = None
            self.unbindable = direct is not None
            return
        slots = []
        for packer, value in zip(direct.packers, args):
            if packer is None:
                slots.append([ctypes.c_int64(part) for part in _array_parameters(value)])
            elif isinstance(packer, type):
                slots.append([packer(value)])
            elif isinstance(value, (bool, np.bool_)):
                slots.append([ctypes.c_bool(value)])
            else:  # a type this block does not pack: keep launching through launch_cuda_grid
                self.block = None
                self.unbindable = True
                return
        values = [value for slot in slots for value in slot]
        self.block = (ctypes.c_void_p * len(values))(*[ctypes.addressof(value) for value in values])
        self.address = ctypes.addressof(self.block)
        self.function = driver.CUfunction(int(direct.function._handle))
        self.slots, self.arguments = slots, list(args)
        self.type_keys = [_type_key(value) for value in args]

    def _rebind(self, args) -> bool:
        """Rewrite the slots of the arguments that changed; False if any changed type."""
        if len(args) != len(self.arguments):
            return False
        for index, value in enumerate(args):
            if value is self.arguments[index]:
                continue
            if _type_key(value) != self.type_keys[index]:
                return False
            slot = self.slots[index]
            if len(slot) == 1:
                slot[0].value = value
            else:
                for holder, part in zip(slot, _array_parameters(value)):
                    holder.value = part
            self.arguments[index] = value
        return True


def _array_parameters(array) -> list[int]:
    """Numba's parameters for a CuPy array argument: meminfo, parent, size, itemsize, data
    pointer, shape, strides; for a tuple of arrays, each array's in turn."""
    if isinstance(array, tuple):  # Numba's device arrays (kernel_tuple)
        return [part for item in array
                for part in (0, 0, item.size, item.dtype.itemsize, item.__cuda_array_interface__["data"][0],
                             *item.shape, *item.strides)]
    return [0, 0, array.size, array.itemsize, array.data.ptr, *array.shape, *array.strides]


def kernel_tuple(arrays, backend) -> tuple:
    """``arrays`` as one kernel argument (a ``UniTuple`` a kernel indexes with a run-time number,
    e.g. the peers' arrays of :class:`gpugraph.distributed.peer.PeerMemory`): on a GPU as
    Numba's views of them, because Numba types a tuple only of arrays it knows (CuPy arrays are
    typed one by one, through their ``__cuda_array_interface__``, not inside a tuple); NumPy
    arrays (CPU, simulator) as they are.

    Parameters
    ----------
    arrays:
        Arrays of one dtype and rank.
    backend:
        The backend whose kernels take the tuple.

    Returns
    -------
    tuple
    """
    if not backend.is_cuda or backend.simulated:
        return tuple(arrays)
    from gpugraph.backend.numba_cuda import load_numba_cuda

    cuda = load_numba_cuda()
    with backend.activate():
        return tuple(cuda.as_cuda_array(array) for array in arrays)


@contextlib.contextmanager
def dynamic_schedule(chunk: int):
    """Within the block, Numba ``prange`` loops hand out iterations to cores ``chunk`` at a time.

    Numba splits a parallel loop into one equal block per core by default; vertex loops over
    power-law graphs then wait for the core that drew the hubs. Setting the chunk size makes the
    cores take chunks from a shared queue instead. (The ``numba.parallel_chunksize`` context inside
    a kernel would do the same but makes the kernel impossible to cache.)
    """
    import numba

    previous = numba.set_parallel_chunksize(chunk)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(previous)
