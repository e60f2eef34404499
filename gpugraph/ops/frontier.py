"""Frontiers: the set of active vertices an operator works on.

Three forms, converted into one another on demand:

``all``
    Every vertex (PageRank-style rounds); costs no memory and lets operators index the CSR
    directly instead of through a list.
``sparse``
    A queue of distinct vertex ids (the graph's id dtype), in no particular order. Cheap when the
    frontier is small (BFS levels on road networks).
``dense``
    One byte per vertex, 1 if active. Cheap when the frontier is a large part of the graph, and
    parallel writers set entries without atomics (every writer stores the same 1). A packed
    bitmap would be 8x smaller but needs atomic ORs; on the GPU the sparse outputs use one
    internally to claim vertices once.
"""

from __future__ import annotations

import numpy as np

from gpugraph.backend import Backend
from gpugraph.errors import InvalidParameterError, VertexIdError


class Frontier:
    """A set of vertices of one graph, on that graph's backend.

    Use the constructors :meth:`all`, :meth:`from_ids`, :meth:`from_flags`, :meth:`empty`.

    Attributes
    ----------
    num_vertices:
        Vertex count of the graph the frontier belongs to.
    backend:
        Where its arrays live.
    kind:
        ``"all"``, ``"sparse"`` or ``"dense"``.
    """

    def __init__(self, num_vertices: int, backend: Backend, kind: str, ids=None, flags=None, size=None):
        self.num_vertices = int(num_vertices)
        self.backend = backend
        self.kind = kind
        self._ids = ids
        self._flags = flags
        self._size = size

    # --- constructors ----------------------------------------------------------------------
    @classmethod
    def all(cls, graph) -> "Frontier":
        """Every vertex of ``graph``."""
        return cls(graph.num_vertices, graph.backend, "all", size=graph.num_vertices)

    @classmethod
    def empty(cls, graph) -> "Frontier":
        """No vertex of ``graph``."""
        ids = graph.backend.empty(0, graph.indices.dtype)
        return cls(graph.num_vertices, graph.backend, "sparse", ids=ids, size=0)

    @classmethod
    def from_ids(cls, graph, ids, *, check: bool = True, deduplicate: bool = True) -> "Frontier":
        """The vertices ``ids`` (any integer array or sequence, host or device).

        Parameters
        ----------
        graph:
            The graph the vertices belong to.
        ids:
            Vertex ids.
        check:
            Check that every id is in ``[0, n)``.
        deduplicate:
            Sort and remove repeated ids (otherwise keep the queue as given; operators accept
            repeats, and :func:`gpugraph.ops.filter` removes them in linear time).

        Raises
        ------
        VertexIdError
            If an id is outside ``[0, n)`` (when ``check``).
        """
        backend = graph.backend
        xp = backend.xp
        with backend.activate():
            ids = backend.asarray(np.asarray(ids) if not hasattr(ids, "__cuda_array_interface__") else ids)
            ids = ids.reshape(-1)
            if check and ids.size:
                low, high = int(ids.min()), int(ids.max())
                if low < 0 or high >= graph.num_vertices:
                    bad = low if low < 0 else high
                    raise VertexIdError(f"frontier vertex {bad} is outside [0, {graph.num_vertices - 1}]")
            ids = (xp.unique(ids) if deduplicate else ids).astype(graph.indices.dtype, copy=False)
        return cls(graph.num_vertices, backend, "sparse", ids=ids, size=int(ids.size))

    @classmethod
    def from_flags(cls, graph, flags) -> "Frontier":
        """The vertices whose entry of ``flags`` (length ``n``) is non-zero.

        Raises
        ------
        InvalidParameterError
            If ``flags`` does not have one entry per vertex.
        """
        if flags.shape != (graph.num_vertices,):
            raise InvalidParameterError(
                f"dense frontier needs {graph.num_vertices} flags, got shape {tuple(flags.shape)}"
            )
        flags = flags if flags.dtype == np.uint8 else (flags != 0).view(np.uint8)
        return cls(graph.num_vertices, graph.backend, "dense", flags=flags)

    # --- views -----------------------------------------------------------------------------
    @property
    def size(self) -> int:
        """Number of vertices in the frontier (counting a dense frontier reads the device)."""
        if self._size is None:
            self._size = int(self.backend.xp.count_nonzero(self._flags))
        return self._size

    def __len__(self) -> int:
        return self.size

    def __bool__(self) -> bool:
        return self.size > 0

    def __repr__(self) -> str:
        return f"Frontier({self.kind}, {self.size:,} of {self.num_vertices:,} vertices, {self.backend.name})"

    def ids(self):
        """The vertex ids as an array on the backend (sorted for ``all`` and ``dense``).

        Built once per frontier: frontiers are not changed after construction.
        """
        if self._ids is None:
            xp = self.backend.xp
            with self.backend.activate():
                if self.kind == "all":
                    self._ids = xp.arange(self.num_vertices, dtype=np.int64)
                else:
                    self._ids = xp.flatnonzero(self._flags)
            self._size = int(self._ids.size)
        return self._ids

    def flags(self):
        """One byte per vertex, 1 where the vertex is in the frontier (built once)."""
        if self._flags is None:
            xp = self.backend.xp
            with self.backend.activate():
                if self.kind == "all":
                    self._flags = xp.ones(self.num_vertices, dtype=np.uint8)
                else:
                    self._flags = xp.zeros(self.num_vertices, dtype=np.uint8)
                    self._flags[self._ids] = 1
        return self._flags

    def to_sparse(self) -> "Frontier":
        """This frontier as a queue of ids."""
        if self.kind == "sparse":
            return self
        ids = self.ids()
        return Frontier(self.num_vertices, self.backend, "sparse", ids=ids, size=int(ids.size))

    def to_dense(self) -> "Frontier":
        """This frontier as one byte per vertex."""
        if self.kind == "dense":
            return self
        # A queue built without de-duplication may repeat ids: its length is not the set's size.
        size = self._size if self.kind == "all" else None
        return Frontier(self.num_vertices, self.backend, "dense", flags=self.flags(), size=size)

    def to_numpy(self) -> np.ndarray:
        """Sorted vertex ids on the host (for tests and small frontiers)."""
        from gpugraph.backend import to_numpy

        return np.sort(to_numpy(self.ids()).astype(np.int64))
