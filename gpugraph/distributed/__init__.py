"""Multi-GPU and multi-host execution (issue 7), on torch.distributed.

:mod:`~gpugraph.distributed.partition`  OEC, IEC, HVC, CVC and METIS partitions; master and
                                         mirror proxies with local ids; save / load per rank.
:mod:`~gpugraph.distributed.comm`       the transport: collectives on NumPy / CuPy arrays, counters.
:mod:`~gpugraph.distributed.sync`       reduce mirrors into masters, broadcast masters to mirrors;
                                         update-only or all-shared; elision by the partition's shape.
:mod:`~gpugraph.distributed.programs`   bfs, sssp, wcc, pagerank, kcore as rank-local programs.
:mod:`~gpugraph.distributed.engine`     synchronous (BSP) and bulk-asynchronous (BASP) rounds, stats.
:mod:`~gpugraph.distributed.runner`     :func:`run` (``--gpus N``) and torchrun entry; results in
                                         original ids.

PyTorch is imported only when ranks are started (``pip install 'gpugraph[distributed]'``).
"""

from gpugraph.distributed.runner import launch, run
from gpugraph.distributed.partition import POLICIES, Partition, partition_graph

__all__ = ["POLICIES", "Partition", "launch", "partition_graph", "run"]
