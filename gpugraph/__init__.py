"""gpugraph: graph algorithms on GPUs with a fast multi-core CPU fallback.

Importing gpugraph has no side effects: no device is probed until a function is asked to use one.
"""

from gpugraph.api import (
    adsorption, betweenness, bfs, cdlp, kcore, lcc, matching, pagerank, scc, sssp, triangles, wcc,
)
from gpugraph.backend import Backend, get_backend
from gpugraph.errors import (
    ChecksumError,
    DeviceError,
    DeviceOutOfMemoryError,
    DistributedError,
    EmptyGraphError,
    GpugraphError,
    GraphFormatError,
    InvalidParameterError,
    InvalidWeightError,
    UnknownFormatError,
    VertexIdError,
)
from gpugraph.graph import (
    EdgeList,
    Graph,
    from_csr,
    from_edge_list,
    from_edges,
    from_networkx,
    from_pandas,
    from_scipy,
)
from gpugraph import distributed
from gpugraph.io import load, save
from gpugraph.io.generators import gnm, grid, rmat

__version__ = "0.1.0"

__all__ = [
    "Backend",
    "ChecksumError",
    "DeviceError",
    "DeviceOutOfMemoryError",
    "DistributedError",
    "EdgeList",
    "EmptyGraphError",
    "GpugraphError",
    "Graph",
    "GraphFormatError",
    "InvalidParameterError",
    "InvalidWeightError",
    "UnknownFormatError",
    "VertexIdError",
    "adsorption",
    "betweenness",
    "bfs",
    "cdlp",
    "distributed",
    "from_csr",
    "from_edge_list",
    "from_edges",
    "from_networkx",
    "from_pandas",
    "from_scipy",
    "get_backend",
    "gnm",
    "grid",
    "kcore",
    "lcc",
    "load",
    "matching",
    "pagerank",
    "rmat",
    "save",
    "scc",
    "sssp",
    "triangles",
    "wcc",
]
