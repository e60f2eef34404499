"""Multi-GPU and multi-host execution (issue 7), on torch.distributed.

:mod:`gpugraph.distributed.partition`: the partitioning policies of the D-IrGL study (OEC, IEC,
HVC, CVC), master and mirror proxies with local ids, replication factor and static balance,
saving and loading one partition per rank. Synchronisation and the distributed engines come
next (docs/NOTES.md).
"""

from gpugraph.distributed.partition import POLICIES, Partition, partition_graph

__all__ = ["POLICIES", "Partition", "partition_graph"]
