"""Graph storage (CSR/CSC on one backend) and the builders that make graphs."""

from gpugraph.graph.build import (
    DUPLICATE_POLICIES,
    SELF_LOOP_POLICIES,
    from_csr,
    from_edge_list,
    from_edges,
    from_networkx,
    from_pandas,
    from_scipy,
)
from gpugraph.graph.edgelist import EdgeList
from gpugraph.graph.graph import DegreeStats, Graph

__all__ = [
    "DUPLICATE_POLICIES",
    "SELF_LOOP_POLICIES",
    "DegreeStats",
    "EdgeList",
    "Graph",
    "from_csr",
    "from_edge_list",
    "from_edges",
    "from_networkx",
    "from_pandas",
    "from_scipy",
]
