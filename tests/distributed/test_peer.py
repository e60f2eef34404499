"""``gpugraph.distributed.peer.PeerMemory`` on the CPU: blocks in shared memory that every process
reads and writes, ordered by the group's barrier."""

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="the distributed runtime needs PyTorch (the test extra installs the CPU build)")

from gpugraph.distributed.runner import launch  # noqa: E402
from gpugraph.errors import DistributedError  # noqa: E402


def _write_to_every_peer(rank, kind, folder):
    """Each process stores its rank into its cell of every process's block (the blocks differ in
    size), meets the others, and writes what its own block holds."""
    from gpugraph.backend import get_backend
    from gpugraph.distributed.comm import Communicator
    from gpugraph.distributed.peer import PeerMemory

    backend = get_backend("cpu")
    comm = Communicator(backend)
    memory = PeerMemory(comm, backend, {"seen": (comm.size, np.int64), "room": (rank + 1, np.uint8)})
    assert np.all(memory.own["seen"] == 0) and memory.own["room"].size == rank + 1
    memory.barrier()  # nobody stores before everyone has looked
    for block in memory.peers["seen"]:
        block[rank] = rank + 10
    memory.peers["room"][(rank + 1) % comm.size][:] = 7
    memory.barrier()
    record = {"seen": memory.own["seen"].tolist(), "room": memory.own["room"].tolist(),
              "sizes": [block.size for block in memory.peers["room"]]}
    (folder / f"rank-{rank}.json").write_text(json.dumps(record))


def test_every_process_sees_what_the_others_stored(tmp_path):
    launch(_write_to_every_peer, 3, "cpu", tmp_path)
    for rank in range(3):
        record = json.loads((tmp_path / f"rank-{rank}.json").read_text())
        assert record["seen"] == [10, 11, 12]
        assert record["room"] == [7] * (rank + 1) and record["sizes"] == [1, 2, 3]


def _peer_memory_across_hosts(rank, kind):
    import socket

    from gpugraph.backend import get_backend
    from gpugraph.distributed.comm import Communicator
    from gpugraph.distributed.peer import PeerMemory

    socket.gethostname = lambda: f"host-{rank}"
    backend = get_backend("cpu")
    PeerMemory(Communicator(backend), backend, {"cells": (4, np.int64)})


def test_processes_on_several_hosts_are_refused():
    with pytest.raises(DistributedError, match="one host"):
        launch(_peer_memory_across_hosts, 2, "cpu")


class _OneProcess:
    """A communicator of one process (what PeerMemory asks of one)."""

    rank, size = 0, 1
    dist = type("dist", (), {"barrier": staticmethod(lambda: None)})

    @staticmethod
    def all_gather(array):
        return [np.asarray(array)]


def test_a_full_shared_memory_folder_is_a_named_error(monkeypatch):
    from gpugraph.backend import get_backend
    from gpugraph.distributed import peer

    def no_room(handle, offset, size):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(peer.os, "posix_fallocate", no_room)
    with pytest.raises(DistributedError, match="no room for a peer memory block"):
        peer.PeerMemory(_OneProcess(), get_backend("cpu"), {"cells": (1 << 20, np.int64)})


def test_one_process_sees_its_own_block():
    from gpugraph.backend import get_backend
    from gpugraph.distributed.peer import PeerMemory

    memory = PeerMemory(_OneProcess(), get_backend("cpu"), {"cells": (5, np.int64), "bytes": (3, np.uint8)})
    memory.own["cells"][:] = 7
    assert memory.peers["cells"][0].tolist() == [7] * 5 and memory.peers["bytes"][0].dtype == np.uint8


def _meet_at_host_barriers(rank, kind, folder):
    """Each process meets the others at a host barrier five times; between two meetings it
    stores its round into its cell of every block, and after each meeting it reads what every
    process stored before it (a process that ran ahead would show a later round)."""
    import time

    from gpugraph.backend import get_backend
    from gpugraph.distributed.comm import Communicator
    from gpugraph.distributed.peer import HostBarrier, PeerMemory

    backend = get_backend("cpu")
    comm = Communicator(backend)
    memory = PeerMemory(comm, backend, {"rounds": (comm.size, np.int64)})
    barrier = HostBarrier(comm)
    seen = []
    for round_ in range(1, 6):
        if rank == round_ % comm.size:
            time.sleep(0.05)  # a late arrival each round, a different one
        for block in memory.peers["rounds"]:
            block[rank] = round_
        barrier.wait()
        seen.append(memory.own["rounds"].tolist())
        barrier.wait()  # nobody stores the next round before everyone has read this one
    (folder / f"rank-{rank}.json").write_text(json.dumps(seen))


def test_host_barrier_holds_every_process_until_the_last_arrives(tmp_path):
    launch(_meet_at_host_barriers, 3, "cpu", tmp_path)
    for rank in range(3):
        seen = json.loads((tmp_path / f"rank-{rank}.json").read_text())
        assert seen == [[round_] * 3 for round_ in range(1, 6)]


def test_host_barrier_names_a_process_that_never_arrives(monkeypatch):
    from gpugraph import config
    from gpugraph.distributed import peer

    monkeypatch.setattr(config, "HOST_BARRIER_BUSY_POLLS", 10)
    monkeypatch.setattr(config, "HOST_BARRIER_SECONDS", 0.05)
    barrier = peer.HostBarrier.__new__(peer.HostBarrier)  # two processes' cells, the other never arriving
    barrier._rank, barrier._count = 0, 0
    barrier._arrivals = (np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))
    with pytest.raises(DistributedError, match="process 1: it died or hangs"):
        barrier.wait()


def test_link_waker_touches_until_stopped_and_starts_again():
    import threading

    from gpugraph.distributed.peer import LinkWaker

    threads = []
    waker = LinkWaker(lambda: None, on_thread=lambda: threads.append(threading.current_thread().name),
                      period=0.001, idle_seconds=30.0)
    waker.start()
    waker.start()  # already running: no second thread
    while waker.touches < 3:
        threading.Event().wait(0.001)
    waker.stop()
    assert not waker.running and threads == ["gpugraph-link-waker"]
    touches = waker.touches
    threading.Event().wait(0.01)
    assert waker.touches == touches  # stopped: no touch since
    waker.start()
    waker.stop()
    assert len(threads) == 2
    waker.stop()  # stopping a stopped waker does nothing


def test_link_waker_stops_on_its_own_after_its_idle_time():
    from gpugraph.distributed.peer import LinkWaker

    drained = []
    waker = LinkWaker(lambda: None, drain=lambda: drained.append(True), period=0.001, idle_seconds=0.02)
    waker.start()
    waker._thread.join(timeout=5)
    assert not waker.running and waker.touches >= 1
    waker.stop()
    assert drained == [True]


def test_a_failed_touch_is_a_named_error_at_the_next_stop():
    from gpugraph.distributed.peer import LinkWaker

    def touch():
        raise RuntimeError("link down")

    waker = LinkWaker(touch, period=0.001, idle_seconds=30.0)
    waker.start()
    waker._thread.join(timeout=5)
    with pytest.raises(DistributedError, match="keeping the links between the GPUs awake failed: link down"):
        waker.stop()
    waker.stop()  # reported once


def test_processes_on_the_cpu_have_no_links_to_keep_awake():
    from gpugraph.backend import get_backend
    from gpugraph.distributed.peer import PeerMemory

    assert PeerMemory(_OneProcess(), get_backend("cpu"), {"cells": (5, np.int64)}).link_waker() is None


def _peer_heads():
    """Three processes' block heads (8-byte words), as :meth:`PeerMemory.link_waker` passes them."""
    return tuple(np.arange(4, dtype=np.uint64) + 10 * process for process in range(3))


@pytest.mark.cudasim
@pytest.mark.skipif("os.environ.get('NUMBA_ENABLE_CUDASIM') != '1'", reason="needs NUMBA_ENABLE_CUDASIM=1")
def test_touching_the_peers_changes_nothing_under_the_simulator():
    from gpugraph.distributed import _peer_cuda

    heads, sink = _peer_heads(), np.zeros(1, dtype=np.uint64)
    _peer_cuda.touch_peers[1, 8](heads, np.int64(1), sink)
    for process, head in enumerate(heads):
        np.testing.assert_array_equal(head, np.arange(4, dtype=np.uint64) + 10 * process)
    assert sink[0] == 0


def test_touching_the_peers_compiles_to_ptx(ptx_of):
    from gpugraph.distributed import _peer_cuda

    ptx = ptx_of(_peer_cuda.touch_peers, (_peer_heads(), np.int64(1), np.zeros(1, dtype=np.uint64)))
    assert "atom" in ptx


def test_a_running_link_waker_ends_its_thread_at_exit():
    import weakref

    from gpugraph.distributed import peer

    waker = peer.LinkWaker(lambda: None, period=0.001, idle_seconds=30.0)
    waker.start()
    peer._halt_at_exit(weakref.ref(waker))  # what atexit calls
    assert not waker.running
