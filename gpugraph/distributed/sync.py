"""Synchronising proxies: mirrors reduce into masters, masters broadcast to mirrors.

A :class:`SyncPlan` is built once per partition, collectively. It fixes, for every pair of ranks,
which proxies are ever exchanged and in which order, so that a message names a proxy by its
position in that list and not by a global id:

* **reduce** entries: a mirror that is the destination of a local arc (it collects values along
  arcs) sends to its master, which folds them in with the program's combiner;
* **broadcast** entries: a master sends to each mirror of it that is the source of a local arc
  (the mirror's arcs read the vertex's value).

Elision follows from the partition's structure, with no case per policy: under OEC no mirror is
a source, so nothing is ever broadcast; under IEC no mirror is a destination, so nothing is
reduced; under CVC a vertex's source mirrors lie in its master's grid row and its destination
mirrors in its column, so every pair of ranks that exchanges anything shares a row or a column.

Two modes (``update_only``):

* update-only (the default, Gluon's): only proxies flagged *dirty* since they were last sent
  travel, each as a (position, value) pair;
* all-shared: every proxy of the lists travels every time, as bare values in list order.

Values are float64 on the wire (int64 bit patterns, so one payload carries positions and values).
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend import to_numpy


class SyncPlan:
    """The exchange lists of one rank (module docstring); built collectively.

    Parameters
    ----------
    part:
        This rank's :class:`gpugraph.distributed.partition.Partition` (arrays on the rank's device).
    comm:
        The :class:`gpugraph.distributed.comm.Communicator`.
    update_only:
        Send only dirty proxies (else every listed proxy every time).

    Attributes
    ----------
    reduce_mirrors, broadcast_mirrors:
        How many of this rank's mirrors take part in each direction (the elision made visible).
    """

    def __init__(self, part, comm, update_only: bool = True):
        self.comm, self.update_only = comm, bool(update_only)
        xp = comm.backend.xp
        self.xp = xp
        masters = part.num_masters
        local_in = xp.bincount(part.indices, minlength=part.num_proxies) > 0
        local_out = xp.diff(part.indptr) > 0
        owner = to_numpy(part.mirror_owner)
        mirror_ids = np.arange(masters, part.num_proxies, dtype=np.int64)
        reduce_mask, broadcast_mask = to_numpy(local_in[masters:]), to_numpy(local_out[masters:])
        self.reduce_mirrors, self.broadcast_mirrors = int(reduce_mask.sum()), int(broadcast_mask.sum())
        global_ids = to_numpy(part.local_to_global)
        master_globals = global_ids[:masters]
        # Per peer: my reduce mirrors and my broadcast mirrors it owns, in global order.
        my_reduce = [mirror_ids[reduce_mask & (owner == peer)] for peer in range(comm.size)]
        my_broadcast = [mirror_ids[broadcast_mask & (owner == peer)] for peer in range(comm.size)]
        # The owners learn which of their masters each peer reduces from / needs broadcasts of.
        their_reduce = self._ask(my_reduce, global_ids, master_globals)
        their_broadcast = self._ask(my_broadcast, global_ids, master_globals)
        send = [np.concatenate((my_reduce[peer], their_broadcast[peer])) for peer in range(comm.size)]
        receive = [np.concatenate((their_reduce[peer], my_broadcast[peer])) for peer in range(comm.size)]
        self.send_counts = np.array([ids.size for ids in send], dtype=np.int64)
        self.receive_counts = np.array([ids.size for ids in receive], dtype=np.int64)
        self.send_offsets = np.concatenate(([0], np.cumsum(self.send_counts)))
        self.receive_offsets = np.concatenate(([0], np.cumsum(self.receive_counts)))
        self.send_ids = xp.asarray(np.concatenate(send))
        self.send_is_reduce = xp.asarray(np.concatenate(
            [np.arange(ids.size) < my_reduce[peer].size for peer, ids in enumerate(send)]))
        self.receive_ids = xp.asarray(np.concatenate(receive))
        self.receive_is_reduce = xp.asarray(np.concatenate(
            [np.arange(ids.size) < their_reduce[peer].size for peer, ids in enumerate(receive)]))
        self._send_peer = xp.asarray(np.repeat(np.arange(comm.size), self.send_counts))
        self._send_start = xp.asarray(self.send_offsets[:-1])
        self._receive_start = xp.asarray(self.receive_offsets[:-1])

    def _ask(self, lists, global_ids, master_globals):
        """Send each peer the global ids of ``lists[peer]``; return, per peer, the local ids of my
        masters that the peer listed (in its order)."""
        comm = self.comm
        counts = np.array([ids.size for ids in lists], dtype=np.int64)
        payload = self.xp.asarray(np.concatenate([global_ids[ids] for ids in lists]).astype(np.int64))
        exchange = comm.exchange(payload, counts, 0).wait()
        asked = to_numpy(exchange.received)
        offsets = np.concatenate(([0], np.cumsum(exchange.received_counts)))
        local = np.searchsorted(master_globals, asked)
        return [local[offsets[peer]:offsets[peer + 1]] for peer in range(comm.size)]

    def start(self, program, busy: bool):
        """Pack what ``program`` has to send and start the exchange; ``busy`` (this rank has local
        work) and whether any proxy changed since it was last sent make up the rank's status word."""
        xp = self.xp
        ids, is_reduce = self.send_ids, self.send_is_reduce
        if ids.size == 0:  # nothing is ever exchanged with the others (one rank): no device work
            return self.comm.exchange(xp.zeros(0, dtype=np.int64), np.zeros(self.comm.size, dtype=np.int64),
                                      int(bool(busy)))
        dirty = xp.where(is_reduce, program.reduce_dirty[ids], program.broadcast_dirty[ids])
        chosen = xp.flatnonzero(dirty)
        changed = int(chosen.size)
        if not self.update_only:
            chosen = xp.arange(ids.size)
        chosen_ids, chosen_reduce = ids[chosen], is_reduce[chosen]
        values = xp.where(chosen_reduce, program.reduce_values[chosen_ids], program.broadcast_values[chosen_ids])
        program.sent(chosen_ids[chosen_reduce], chosen_ids[~chosen_reduce])
        bits = values.astype(np.float64).view(np.int64)
        if self.update_only:
            peers = self._send_peer[chosen]
            payload = xp.stack((chosen - self._send_start[peers], bits), axis=1).reshape(-1)
            counts = 2 * to_numpy(xp.bincount(peers, minlength=self.comm.size))
        else:
            payload, counts = bits, self.send_counts
        return self.comm.exchange(payload, counts, int(bool(busy) or changed > 0))

    def fold(self, program, exchange) -> None:
        """Hand what ``exchange`` brought to ``program.fold`` as (local ids, values) per direction."""
        xp = self.xp
        received = exchange.received
        if received.size == 0:
            return
        if self.update_only:
            pairs = received.reshape(-1, 2)
            senders = xp.asarray(np.repeat(np.arange(self.comm.size), exchange.received_counts // 2))
            positions = pairs[:, 0] + self._receive_start[senders]
            values = pairs[:, 1].view(np.float64)
        else:
            positions = xp.arange(self.receive_ids.size)
            values = received.view(np.float64)
        ids, is_reduce = self.receive_ids[positions], self.receive_is_reduce[positions]
        program.fold(ids[is_reduce], values[is_reduce], ids[~is_reduce], values[~is_reduce])
