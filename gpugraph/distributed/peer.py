"""Memory that every process of one host reads and writes directly (no collective in between).

A :class:`PeerMemory` gives each process of a job a block of named arrays and opens every other
process's block in its own address space, so a kernel of one process can store into (and
atomically add to) a peer's arrays, and a process orders its work with its peers by a barrier
instead of a collective call. On GPUs the blocks are device memory shared by CUDA IPC (each block
one ``cudaMalloc``, its handle all-gathered once, the peers' blocks opened with peer access:
NVLink stores and atomics between the GPUs of a host); the barrier is then a kernel
(:func:`gpugraph.graph500._kernels_cuda.barrier`), so a process launches a whole round of
kernels and barriers without waiting, and a CUDA graph can hold them. On the CPU and under the
CUDA simulator the blocks are files in shared memory (``/dev/shm``) mapped by every process, and
the barrier is the process group's (:meth:`PeerMemory.barrier`): the same kernels and protocol,
testable without a GPU.

Why: with one process per GPU, every collective call of torch.distributed costs ~85-90 us of
host time, and a search that waits for the host between its levels loses ~2 ms a level on 4
GPUs (docs/graph500.md, "Weak scaling"); peer stores need no host at all.
"""

from __future__ import annotations

import atexit
import mmap
import os
import socket
import tempfile
import threading
import time
import weakref

import numpy as np

from gpugraph import config
from gpugraph.errors import DistributedError

#: Bytes each array of a block starts at a multiple of (CUDA's allocation alignment).
ALIGNMENT = 256
#: Where the CPU blocks are created (memory-backed on Linux); the temporary folder elsewhere.
SHARED_MEMORY_FOLDER = "/dev/shm"


class PeerMemory:
    """The arrays ``fields`` in a block of every process of the group, each process's block
    opened by all (collective: every process constructs it with the same ``fields``).

    Parameters
    ----------
    comm:
        The :class:`~gpugraph.distributed.comm.Communicator` of the job (its processes must all
        run on one host).
    backend:
        This process's backend: a GPU (CUDA IPC), the CPU or the simulator (shared-memory files).
    fields:
        ``{name: (entries, dtype)}``, the same names and dtypes on every process (the entries
        may differ); every array starts zeroed.

    Attributes
    ----------
    own:
        ``{name: array}`` of this process's block (CuPy on a GPU, else NumPy).
    peers:
        ``{name: tuple}``: the array of every process, in rank order (this process's own among
        them), what a kernel indexes with a process number.
    on_device:
        Whether the blocks are GPU memory (then the barrier is a kernel's job).

    Raises
    ------
    DistributedError
        If the processes are not all on one host, or a block cannot be shared (CUDA IPC refused,
        no room in the shared-memory folder).
    DeviceOutOfMemoryError
        If this process's GPU cannot hold its block.
    """

    def __init__(self, comm, backend, fields: dict):
        self.comm, self.backend = comm, backend
        self.on_device = backend.is_cuda and not backend.simulated
        hosts = host_names(comm)
        if len(hosts) > 1:
            raise DistributedError(f"peer memory needs every process on one host; the job spans {sorted(hosts)}")
        entries = np.asarray([int(count) for count, _ in fields.values()], dtype=np.int64)
        every_entries = comm.all_gather(entries)
        # Per process: {name: (byte offset, entries, dtype)} of its block, and the block's bytes.
        self._places, self._sizes = [], []
        for counts in every_entries:
            places, size = {}, 0
            for (name, (_, dtype)), count in zip(fields.items(), counts):
                dtype = np.dtype(dtype)
                places[name] = (size, int(count), dtype)
                size += -(-max(1, int(count)) * dtype.itemsize // ALIGNMENT) * ALIGNMENT
            self._places.append(places)
            self._sizes.append(size)
        blocks = self._share_device_blocks() if self.on_device else self._share_host_blocks()
        arrays = [self._arrays(block, places) for block, places in zip(blocks, self._places)]
        self.own = arrays[comm.rank]
        self.peers = {name: tuple(process[name] for process in arrays) for name in fields}
        # On GPUs the first bytes of every block as 8-byte words: what keeps the links awake reads.
        self._heads = [block(0, min(size, config.PEER_WAKE_BYTES) // 8, np.dtype(np.uint64))
                       for block, size in zip(blocks, self._sizes)] if self.on_device else []

    def link_waker(self) -> "LinkWaker | None":
        """A :class:`LinkWaker` that reads the head of every peer's block over the links from a
        side stream, or ``None`` where the blocks are not GPU memory (no links to keep awake).
        The kernel is compiled and launched once here.

        Returns
        -------
        LinkWaker or None
        """
        if not self.on_device:
            return None
        import cupy

        from gpugraph.backend.kernels import BoundLaunch, kernel_tuple
        from gpugraph.distributed import _peer_cuda

        backend, me = self.backend, np.int64(self.comm.rank)
        with backend.activate():
            heads = kernel_tuple(self._heads, backend)
            sink = cupy.zeros(1, dtype=np.uint64)
            stream = cupy.cuda.Stream(non_blocking=True)  # never waits for the searches' work, nor they for it
        launch = BoundLaunch(_peer_cuda.touch_peers, backend)
        threads = config.PEER_WAKE_THREADS

        def touch():
            launch(1, threads, heads, me, sink, stream=stream.ptr)

        touch()  # compiles and binds the kernel on this thread
        backend.synchronize()

        def on_thread():  # the device's primary context current on the waker's thread
            cupy.cuda.runtime.setDevice(backend.device_id)

        return LinkWaker(touch, on_thread=on_thread, drain=stream.synchronize)

    def barrier(self) -> None:
        """Wait until every process has got here (the host's barrier, for the CPU and simulator
        blocks; on GPUs the processes meet in a kernel instead)."""
        self.comm.dist.barrier()

    @staticmethod
    def _arrays(block, places) -> dict:
        return {name: block(offset, entries, dtype) for name, (offset, entries, dtype) in places.items()}

    def _share_device_blocks(self) -> list:
        import cupy

        runtime = cupy.cuda.runtime
        with self.backend.activate():
            size = self._sizes[self.comm.rank]
            with self.backend.out_of_memory_named(f"allocating a peer memory block of {size:,} bytes"):
                memory = cupy.cuda.Memory(size)
            memory_pointer = cupy.cuda.MemoryPointer(memory, 0)
            memory_pointer.memset(0, size)
            cupy.cuda.Device(self.backend.device_id).synchronize()
            try:
                handle = runtime.ipcGetMemHandle(memory.ptr)
            except runtime.CUDARuntimeError as error:
                raise DistributedError(f"GPU {self.backend.device_id} cannot share its memory by CUDA IPC: {error}") from None
            handles = self.comm.all_gather(np.frombuffer(handle, dtype=np.uint8))
            pointers = []
            for rank, peer_handle in enumerate(handles):
                if rank == self.comm.rank:
                    pointers.append(memory_pointer)
                    continue
                try:
                    address = runtime.ipcOpenMemHandle(bytes(peer_handle), runtime.cudaIpcMemLazyEnablePeerAccess)
                except runtime.CUDARuntimeError as error:
                    raise DistributedError(f"process {self.comm.rank} cannot open the memory of process {rank}: "
                                           f"{error}") from None
                shared = cupy.cuda.UnownedMemory(address, self._sizes[rank], self, device_id=self.backend.device_id)
                pointers.append(cupy.cuda.MemoryPointer(shared, 0))
        self._memory = memory  # this process's block lives as long as the peer memory

        def block_of(pointer):
            return lambda offset, entries, dtype: cupy.ndarray(entries, dtype, pointer + offset)

        return [block_of(pointer) for pointer in pointers]

    def _share_host_blocks(self) -> list:
        folder = SHARED_MEMORY_FOLDER if os.path.isdir(SHARED_MEMORY_FOLDER) else tempfile.gettempdir()
        handle, path = tempfile.mkstemp(prefix="gpugraph-peer-", dir=folder)
        try:
            try:  # reserved, not sparse: a full /dev/shm must fail here, not as a bus error later
                os.posix_fallocate(handle, 0, self._sizes[self.comm.rank])  # reads as zeros
            except OSError as error:
                raise DistributedError(f"no room for a peer memory block of {self._sizes[self.comm.rank]:,} bytes "
                                       f"in {folder}: {error}") from None
            paths = [bytes(name).decode() for name in self.comm.all_gather(_text_bytes(path))]
            maps = []
            for peer_path, size in zip(paths, self._sizes):
                with open(peer_path, "r+b") as peer_file:
                    maps.append(mmap.mmap(peer_file.fileno(), size))
            self.barrier()  # every process has mapped every file: the names can go
        finally:
            os.close(handle)
            os.unlink(path)

        def block_of(shared):
            buffer = np.frombuffer(shared, dtype=np.uint8)
            return lambda offset, entries, dtype: buffer[offset:offset + entries * dtype.itemsize].view(dtype)

        return [block_of(shared) for shared in maps]


class LinkWaker:
    """Keeps the links between the GPUs of a host awake between searches: a thread of its own
    calls ``touch`` (a tiny kernel reading from every peer over the links) every
    ``config.PEER_WAKE_PERIOD_SECONDS``, from :meth:`start` until :meth:`stop`, or until
    ``config.PEER_WAKE_IDLE_SECONDS`` have passed (so a searcher left alone stops costing).

    Why: links idle for more than ~10-100 ms answer the next remote atomics and loads slowly,
    and every search of the Graph500 harness (which validates each tree in between) paid ~300
    us of its ~2.4 ms at its first meeting and first merge on 4 GPUs (docs/graph500.md,
    "Eleventh session"); a search less than ~10 ms after the last did not. With the waker,
    4 H200s at scale 24 per GPU ran 598-616 GTEPS against 520-532 without, and a waker reading
    only its own block gained nothing ("Twenty-third session").

    Parameters
    ----------
    touch:
        Called on the waker's thread; it must not wait for the device's other work (launch on
        a stream of its own).
    on_thread:
        Called first on the waker's thread (e.g. to make the GPU's context current there).
    drain:
        Called by :meth:`stop` after the thread has ended (e.g. to wait for the last touch).
    period, idle_seconds:
        Override ``config.PEER_WAKE_PERIOD_SECONDS`` and ``config.PEER_WAKE_IDLE_SECONDS``.
    """

    def __init__(self, touch, on_thread=None, drain=None, period: float | None = None,
                 idle_seconds: float | None = None):
        self._touch, self._on_thread, self._drain = touch, on_thread, drain
        self.period = config.PEER_WAKE_PERIOD_SECONDS if period is None else period
        self.idle_seconds = config.PEER_WAKE_IDLE_SECONDS if idle_seconds is None else idle_seconds
        self._thread = self._stopping = self._error = None
        self.touches = 0  # calls of ``touch`` since the last start
        # At the interpreter's exit the thread ends before the device's context goes.
        atexit.register(_halt_at_exit, weakref.ref(self))

    @property
    def running(self) -> bool:
        """Whether the thread is touching the links now."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start touching (again), counting ``touches`` from 0; nothing if already running."""
        if self.running:
            return
        self.touches = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(self._stopping,), name="gpugraph-link-waker",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop touching and wait for the last touch to finish.

        Raises
        ------
        DistributedError
            If a touch failed on the thread.
        """
        if self._halt() and self._drain is not None:
            self._drain()
        error, self._error = self._error, None
        if error is not None:
            raise DistributedError(f"keeping the links between the GPUs awake failed: {error}")

    def _halt(self) -> bool:
        """End the thread, if any; whether there was one."""
        if self._thread is None:
            return False
        self._stopping.set()
        self._thread.join()
        self._thread = None
        return True

    def _run(self, stopping: threading.Event) -> None:
        try:
            if self._on_thread is not None:
                self._on_thread()
            deadline = time.monotonic() + self.idle_seconds
            while not stopping.is_set() and time.monotonic() < deadline:
                self._touch()
                self.touches += 1
                stopping.wait(self.period)
        except Exception as error:  # noqa: BLE001 -- handed to the caller by stop()
            self._error = error


def _halt_at_exit(reference) -> None:
    """End the thread of the :class:`LinkWaker` ``reference`` points to, if it still lives (at
    the interpreter's exit: nothing is left to report a failed touch to)."""
    waker = reference()
    if waker is not None:
        waker._halt()


class HostBarrier:
    """A barrier of the processes of one host through shared memory (collective to construct):
    each process writes how many times it has arrived into a cell of its own shared-memory
    block (:class:`PeerMemory` on the CPU) and polls the others' cells until each has got as
    far. The last arrival releases the others within a few microseconds: the Graph500 harness's
    4 processes started their searches 10 us apart (median) instead of the 96 us of a small
    all-reduce over Gloo (4 H100, 2026-11-26; the searches' medians did not change measurably).

    Parameters
    ----------
    comm:
        The job's :class:`~gpugraph.distributed.comm.Communicator` (every process on one host).

    Raises
    ------
    DistributedError
        If the processes are not all on one host, or the shared-memory folder has no room.
    """

    def __init__(self, comm):
        from gpugraph.backend import get_backend

        self._rank = comm.rank
        self._memory = PeerMemory(comm, get_backend("cpu"), {"arrivals": (1, np.int64)})
        self._arrivals = self._memory.peers["arrivals"]
        self._count = 0

    def wait(self) -> None:
        """Return once every process has called this as often as this one has.

        Raises
        ------
        DistributedError
            If a process has not arrived after ``config.HOST_BARRIER_SECONDS`` (it died or hangs).
        """
        self._count += 1
        self._arrivals[self._rank][0] = self._count
        polls, deadline = 0, None
        for process, arrivals in enumerate(self._arrivals):
            while arrivals[0] < self._count:
                polls += 1
                if polls <= config.HOST_BARRIER_BUSY_POLLS:
                    continue
                os.sched_yield()  # a process waited for may need this core (more processes than cores)
                if deadline is None:
                    deadline = time.monotonic() + config.HOST_BARRIER_SECONDS
                elif time.monotonic() > deadline:
                    raise DistributedError(f"process {self._rank} waited {config.HOST_BARRIER_SECONDS} s at a "
                                           f"host barrier for process {process}: it died or hangs")


def host_names(comm) -> set:
    """The names of the hosts the job's processes run on (collective).

    Parameters
    ----------
    comm:
        The job's :class:`~gpugraph.distributed.comm.Communicator`.

    Returns
    -------
    set of str
    """
    return {bytes(name).decode() for name in comm.all_gather(_text_bytes(socket.gethostname()))}


def _text_bytes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode(), dtype=np.uint8)
