"""Transport between ranks: torch.distributed collectives on NumPy or CuPy arrays, with counters.

Everything that crosses between ranks goes through :class:`Communicator`: NCCL on GPUs, Gloo on
CPUs, whatever process group ``torch.distributed`` was initialised with (by ``torchrun`` or by
:mod:`gpugraph.distributed.runner`). Arrays cross without copies: NumPy arrays through
``torch.from_numpy``, CuPy arrays through the CUDA array interface (both share the array's
memory).

The one data-moving primitive is :class:`Exchange`, a personalised all-to-all of variable-sized
int64 payloads in two collectives: a header (entries for each peer, and a status word every rank
sends to every other) and then the payloads. Both are started asynchronously, so a rank can go
on computing while an exchange is in flight (the bulk-asynchronous engine does) or wait for it at
once (the synchronous engine). The header's collective doubles as the point where a rank waits
for the slowest one, so its duration is counted as *waiting* and the payload's as
*communication*.
"""

from __future__ import annotations

import os
import time

import numpy as np

from gpugraph.backend import get_backend
from gpugraph.errors import DistributedError


def torch_distributed():
    """``(torch, torch.distributed)``, or a :class:`DistributedError` saying how to get them.

    Raises
    ------
    DistributedError
        If PyTorch is not installed.
    """
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        raise DistributedError(
            "multi-process execution needs PyTorch: pip install 'gpugraph[distributed]'"
        ) from None
    return torch, dist


def rank_backend(kind: str):
    """This rank's backend in a job: GPU ``LOCAL_RANK`` (set by torchrun, or by
    :mod:`gpugraph.distributed.runner`) for ``kind="cuda"``, else the CPU."""
    return get_backend(f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}" if kind == "cuda" else "cpu")


def use_rank_device(backend) -> None:
    """Make ``backend``'s GPU this process's current CUDA device, for PyTorch (and so NCCL) and
    for CuPy, and have NCCL connect its peers when the group is made (``NCCL_RUNTIME_CONNECT=0``
    unless the environment sets it); before the process group is made (no-op on the CPU and the
    simulator).

    A rank that leaves the current device at GPU 0 gets a context there as well as on its own
    GPU (PyTorch and CuPy make one on the current device), and any work issued outside
    :meth:`gpugraph.backend.Backend.activate` runs on GPU 0, shared with rank 0. NCCL's
    connections made at first use stalled a collective for ~3 s now and then (4 H200,
    2026-11-26: two Graph500 searches in 16 on 4 processes, none with the connections made at
    the start).

    Raises
    ------
    DistributedError
        If PyTorch is not installed.
    """
    if not backend.is_cuda or backend.simulated:
        return
    torch, _ = torch_distributed()
    os.environ.setdefault("NCCL_RUNTIME_CONNECT", "0")
    torch.cuda.set_device(backend.device_id)
    backend.xp.cuda.Device(backend.device_id).use()


class Communicator:
    """This rank's view of the process group, for arrays on ``backend``.

    Parameters
    ----------
    backend:
        The rank's :class:`gpugraph.backend.Backend` (its GPU, or the CPU).

    Attributes
    ----------
    rank, size:
        This rank and the number of ranks.
    counters:
        ``bytes_sent`` (payload bytes to other ranks), ``messages`` (non-empty payloads to other
        ranks), ``exchanges``, ``communication_seconds``, ``waiting_seconds``.

    Raises
    ------
    DistributedError
        If torch.distributed has not been initialised.
    """

    def __init__(self, backend):
        self.torch, self.dist = torch_distributed()
        if not self.dist.is_initialized():
            raise DistributedError(
                "torch.distributed is not initialised: start with torchrun or gpugraph.distributed.run")
        self.backend = backend
        self.rank = self.dist.get_rank()
        self.size = self.dist.get_world_size()
        on_gpu = backend.is_cuda and not backend.simulated  # the simulator's arrays live on the host
        self.device = self.torch.device("cuda", backend.device_id) if on_gpu else self.torch.device("cpu")
        self.counters = {"bytes_sent": 0, "messages": 0, "exchanges": 0,
                         "communication_seconds": 0.0, "waiting_seconds": 0.0}

    def tensor(self, array):
        """A tensor sharing ``array``'s memory (NumPy on the CPU, CuPy on this rank's GPU)."""
        if self.backend.is_cuda and not self.backend.simulated:
            if array.size == 0:  # an empty CuPy array may carry a null pointer
                return self.torch.from_numpy(np.empty(0, dtype=array.dtype)).to(self.device)
            return self.torch.as_tensor(array, device=self.device)
        return self.torch.from_numpy(np.ascontiguousarray(array))

    def allreduce(self, values, op: str = "sum") -> np.ndarray:
        """Combine a small host vector over all ranks (``"sum"``, ``"min"`` or ``"max"``)."""
        tensor = self.torch.as_tensor(np.atleast_1d(np.asarray(values)).copy()).to(self.device)
        self.dist.all_reduce(tensor, op=self._operation(op))
        return tensor.cpu().numpy()

    def _operation(self, op: str):
        return {"sum": self.dist.ReduceOp.SUM, "min": self.dist.ReduceOp.MIN, "max": self.dist.ReduceOp.MAX}[op]

    def allreduce_array(self, array, op: str = "sum"):
        """Combine a contiguous array (NumPy or CuPy, on this rank's device) over all ranks, in
        place; returns it."""
        self.dist.all_reduce(self.tensor(array), op=self._operation(op))
        return array

    def start_allreduce_array(self, array, op: str = "sum"):
        """Start combining ``array`` in place over all ranks; returns the collective's handle,
        whose ``wait()`` finishes it (the caller may compute meanwhile)."""
        return self.dist.all_reduce(self.tensor(array), op=self._operation(op), async_op=True)

    def all_gather_array(self, array):
        """Every rank's contiguous ``array`` (the same size on every rank; NumPy or CuPy on this
        rank's device), one after another in rank order, in a new array of the same kind."""
        gathered = self.backend.xp.empty(array.size * self.size, dtype=array.dtype)
        self.dist.all_gather(list(self.tensor(gathered).chunk(self.size)), self.tensor(array))
        return gathered

    def all_gather(self, array) -> list:
        """Every rank's 1-D host array (sizes may differ), in rank order."""
        array = np.ascontiguousarray(array)
        sizes = self.allreduce(np.eye(self.size, dtype=np.int64)[self.rank] * array.size)
        padded = np.zeros(int(sizes.max()), dtype=array.dtype)
        padded[: array.size] = array
        local = self.torch.from_numpy(padded).to(self.device)
        gathered = [self.torch.empty_like(local) for _ in range(self.size)]
        self.dist.all_gather(gathered, local)
        return [tensor.cpu().numpy()[: int(size)] for tensor, size in zip(gathered, sizes)]

    def exchange(self, payload, counts: np.ndarray, status: int) -> "Exchange":
        """Start sending ``payload`` (int64, grouped by destination rank, ``counts[r]`` entries for
        rank ``r``) and a status word to every rank; see :class:`Exchange`."""
        return Exchange(self, payload, counts, status)


class Exchange:
    """A personalised all-to-all in flight (module docstring); poll :meth:`done` or :meth:`wait`.

    Attributes (once done)
    ----------------------
    received:
        int64 array (NumPy or CuPy) of what every rank sent here, grouped by sender.
    received_counts:
        Entries from each rank.
    statuses:
        The status word of every rank.
    """

    def __init__(self, comm: Communicator, payload, counts: np.ndarray, status: int):
        self.comm = comm
        self.payload = payload  # referenced until the collective that reads it has completed
        self.counts = np.asarray(counts, dtype=np.int64)
        header = np.empty((comm.size, 2), dtype=np.int64)
        header[:, 0] = self.counts
        header[:, 1] = int(status)
        self._header_out = comm.torch.from_numpy(header.reshape(-1)).to(comm.device)
        self._header_in = comm.torch.empty_like(self._header_out)
        self._started = time.perf_counter()
        self._work = comm.dist.all_to_all_single(self._header_in, self._header_out, async_op=True)
        self._stage = "header"
        self.received = self.received_counts = self.statuses = None
        comm.counters["exchanges"] += 1

    def done(self) -> bool:
        """Advance without blocking; True once the payloads have arrived."""
        if self._stage == "header" and self._work.is_completed():
            self._start_payload()
        if self._stage == "payload" and self._work.is_completed():
            self._finish()
        return self._stage == "done"

    def send(self) -> "Exchange":
        """Wait for the header alone and start the payloads without waiting for them (the
        caller computes while they travel, then calls :meth:`wait`); returns ``self``."""
        if self._stage == "header":
            self._start_payload()
        return self

    def wait(self) -> "Exchange":
        """Block until the payloads have arrived; returns ``self``."""
        if self._stage == "header":
            self._work.wait()
            self._start_payload()
        if self._stage == "payload":
            self._work.wait()
            self._finish()
        return self

    def _start_payload(self):
        comm = self.comm
        self._work.wait()  # complete: orders the current CUDA stream after the collective
        header = self._header_in.cpu().numpy().reshape(comm.size, 2)
        now = time.perf_counter()
        comm.counters["waiting_seconds"] += now - self._started
        self._started = now
        self.received_counts, self.statuses = header[:, 0].copy(), header[:, 1].copy()
        others = np.arange(comm.size) != comm.rank
        comm.counters["bytes_sent"] += int(self.counts[others].sum()) * 8
        comm.counters["messages"] += int(np.count_nonzero(self.counts[others]))
        # The inbox comes from the backend's own allocator (CuPy's pool on a GPU), which holds
        # the memory the caller's arrays freed: PyTorch's allocator cannot use that memory, and
        # a large exchange after large CuPy work then ran out of it (2 H200s at scale 26).
        self._inbox = comm.backend.xp.empty(int(self.received_counts.sum()), dtype=np.int64)
        self._inbox_tensor = comm.tensor(self._inbox)
        self._work = comm.dist.all_to_all_single(
            self._inbox_tensor, comm.tensor(self.payload),
            output_split_sizes=self.received_counts.tolist(), input_split_sizes=self.counts.tolist(), async_op=True,
        )
        self._stage = "payload"

    def _finish(self):
        self._work.wait()
        self.received, self._inbox, self._inbox_tensor = self._inbox, None, None
        self.comm.counters["communication_seconds"] += time.perf_counter() - self._started
        self._stage = "done"
