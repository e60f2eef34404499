"""The Result every algorithm returns: per-vertex arrays, counters and timings.

The arrays go to other libraries without a copy where the memory allows: :meth:`Result.to_torch`
and :meth:`Result.to_cupy` share them (DLPack), :meth:`Result.to_pandas` shares host arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpugraph.backend import to_numpy
from gpugraph.errors import InvalidParameterError
from gpugraph.graph.graph import optional_module


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

    def to_torch(self, name: str):
        """The per-vertex array ``name`` as a PyTorch tensor sharing its memory (no copy).

        ``torch.from_dlpack`` of the stored array: a CPU tensor for a host result, a CUDA tensor
        on the same GPU for a device result. Writing to the tensor changes the result.

        Parameters
        ----------
        name:
            Which array, e.g. ``"rank"``.

        Returns
        -------
        torch.Tensor

        Raises
        ------
        KeyError
            If the result has no array ``name``.
        ImportError
            If PyTorch is not installed.
        """
        torch = optional_module("torch", "Result.to_torch")
        return torch.from_dlpack(self.values[name])

    def to_cupy(self, name: str):
        """The per-vertex array ``name`` as a CuPy array: a device result's own array (no
        copy), a host result's copied to the current GPU.

        Parameters and Raises are those of :meth:`to_torch`, with CuPy in place of PyTorch.

        Returns
        -------
        cupy.ndarray
        """
        cupy = optional_module("cupy", "Result.to_cupy")
        array = self.values[name]
        return array if isinstance(array, cupy.ndarray) else cupy.asarray(array)

    def to_pandas(self, names=None):
        """The per-vertex arrays as a pandas DataFrame, one row per vertex.

        Column ``vertex`` holds original ids (:meth:`Graph.to_original`), then one column per
        array, with the values as the result stores them (the top-level functions such as
        :func:`gpugraph.bfs` store vertex-valued arrays in original ids). The columns share a
        host result's arrays (no copy); a device result is copied to the host.

        Parameters
        ----------
        names:
            The arrays to include (a name or a list of names); ``None`` includes all of them.

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        KeyError
            If the result has no array of a given name.
        InvalidParameterError
            If an array is not one value per vertex, or is called ``vertex``.
        ImportError
            If pandas is not installed.
        """
        pandas = optional_module("pandas", "Result.to_pandas")
        names = [names] if isinstance(names, str) else list(self.values if names is None else names)
        num_vertices = self.graph.num_vertices
        columns = {"vertex": self.graph.to_original(np.arange(num_vertices))}
        for name in names:
            array = self.to_numpy(name)
            if name == "vertex" or array.shape != (num_vertices,):
                raise InvalidParameterError(
                    f"{self.algorithm} result: array {name!r} of shape {array.shape} cannot be a "
                    f"column beside 'vertex' (one value per vertex, {num_vertices}); leave it out "
                    "of names"
                )
            columns[name] = array
        return pandas.DataFrame(columns, copy=False)
