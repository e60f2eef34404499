"""EdgeList: what every reader and generator produces before a Graph is built.

Readers parse a file into flat arrays and leave every policy decision (id relabelling, duplicate
and self-loop handling, CSR layout) to :func:`gpugraph.graph.build.from_edge_list`, so that all
formats obey the same documented rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpugraph.errors import InvalidParameterError


@dataclass
class EdgeList:
    """A graph as flat edge arrays on the host.

    Attributes
    ----------
    src, dst:
        Integer arrays (any integer dtype) of equal length: the endpoints of each edge as they
        appear in the input, *before* any relabelling. For undirected inputs each edge appears once
        (the builder adds the reverse direction).
    weights:
        ``None`` or an array of the same length (integer or floating point).
    num_vertices:
        The declared vertex count when the format declares one (DIMACS, PACE, METIS, Matrix Market,
        LDBC ``.v``); ``None`` when the vertices are whatever ids appear (SNAP edge lists).
    id_base:
        The smallest valid id of a format with declared vertex count (1 for DIMACS/PACE/METIS/
        Matrix Market, 0 otherwise). Ids are shifted down by it when the graph is built.
    vertex_ids:
        Optional array of original vertex ids, including isolated ones (LDBC ``.v`` files). When
        given, edges must use only these ids and the graph has exactly these vertices.
    directed:
        Whether the input describes a directed graph.
    source:
        A human-readable description of where the edges came from (a path), for error messages.
    """

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None = None
    num_vertices: int | None = None
    id_base: int = 0
    vertex_ids: np.ndarray | None = None
    directed: bool = True
    source: str | None = None
    metadata: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.src) != len(self.dst):
            raise InvalidParameterError(
                f"src has {len(self.src)} entries but dst has {len(self.dst)}"
            )
        if self.weights is not None and len(self.weights) != len(self.src):
            raise InvalidParameterError(
                f"weights has {len(self.weights)} entries, expected one per edge ({len(self.src)})"
            )

    @property
    def num_entries(self) -> int:
        """Number of edges as listed in the input."""
        return len(self.src)
