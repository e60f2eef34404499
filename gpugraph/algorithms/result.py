"""The Result every algorithm returns: per-vertex arrays, counters and timings."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpugraph.backend import to_numpy


@dataclass
class Result:
    """Output of one algorithm run.

    Attributes
    ----------
    algorithm:
        Name of the algorithm, e.g. ``"bfs"``.
    graph:
        The graph it ran on (arrays are indexed by its internal vertex ids).
    values:
        Named per-vertex arrays (host or device), e.g. ``{"depth": ..., "parent": ...}``.
    stats:
        Counters and timings: ``rounds``, ``edges_traversed``, ``seconds``, ...
    parameters:
        The parameters the algorithm ran with.
    """

    algorithm: str
    graph: object
    values: dict
    stats: dict = field(default_factory=dict)
    parameters: dict = field(default_factory=dict)

    def __getitem__(self, name: str):
        """The per-vertex array ``name``."""
        return self.values[name]

    def to_numpy(self, name: str) -> np.ndarray:
        """The per-vertex array ``name`` as a host NumPy array."""
        return to_numpy(self.values[name])

    def by_original_id(self, name: str) -> dict:
        """``{original vertex id: value}`` for the array ``name`` (for small graphs and tests)."""
        ids = self.graph.to_original(np.arange(self.graph.num_vertices))
        return dict(zip(ids.tolist(), self.to_numpy(name).tolist()))
