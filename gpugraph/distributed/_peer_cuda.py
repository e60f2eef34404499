"""numba-cuda kernel that keeps the links between the GPUs of a host awake
(:class:`gpugraph.distributed.peer.LinkWaker`).

It has no CPU twin: processes on the CPU share no links. Its test runs it under the simulator.
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend.numba_cuda import load_numba_cuda

cuda = load_numba_cuda()

#: A value no sum of the loaded words is expected to take: the kernel stores its sum only then,
#: which keeps the loads from being optimised away without writing on every call.
_UNLIKELY = np.uint64(0x9E3779B97F4A7C15)


@cuda.jit(cache=True)
def touch_peers(heads, me, sink):
    """Read every word of ``heads[q]`` (the head of process ``q``'s peer block) for every
    process ``q`` other than ``me``, and add 0 to each one's first word atomically: loads and a
    round trip over each link, changing nothing. One block; ``sink`` (one local cell) takes the
    words' sum in the unlikely case that it equals ``_UNLIKELY``."""
    total = np.uint64(0)
    for process in range(len(heads)):
        if process == me:
            continue
        head = heads[process]
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(head, 0, np.uint64(0))
        for word in range(cuda.threadIdx.x, head.size, cuda.blockDim.x):
            total += head[word]
    if total == _UNLIKELY:
        sink[0] = total
