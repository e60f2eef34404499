"""Reading, writing and generating graphs.

:func:`load` is the one entry point for files: it recognises our binary format (``.gg``) and every
text format of :mod:`gpugraph.io.readers`, and applies the builder's documented policies.
"""

from __future__ import annotations

import os

from gpugraph import config
from gpugraph.graph.build import from_edge_list
from gpugraph.graph.graph import Graph


def load(
    path,
    format: str | None = None,
    *,
    directed: bool | None = None,
    device=None,
    relabel: bool | None = None,
    self_loops: str = config.DEFAULT_SELF_LOOP_POLICY,
    duplicates: str = config.DEFAULT_DUPLICATE_POLICY,
    progress: bool | None = None,
    mmap: bool = False,
    verify: bool = True,
) -> Graph:
    """Load a graph file into a :class:`~gpugraph.Graph`.

    Parameters
    ----------
    path:
        File to read. ``.gz``, ``.xz`` and ``.bz2`` files are decompressed on the fly.
    format:
        Force a format: ``"binary"`` or one of :data:`gpugraph.io.readers.FORMATS`. Default:
        detected from the name and the first bytes.
    directed:
        Override the direction the format implies (e.g. read a SNAP list as undirected).
    device:
        Where to build the graph (see :func:`gpugraph.backend.get_backend`).
    relabel, self_loops, duplicates:
        Builder policies, see :mod:`gpugraph.graph.build` (not applicable to binary files,
        which hold an already built graph).
    progress:
        Show a progress bar for loads longer than a second: ``None`` when stderr is a terminal.
    mmap, verify:
        For binary ``.gg`` files: map the arrays from the file instead of reading them, and check
        checksums and structure (see :func:`gpugraph.io.binary.load_binary`).

    Returns
    -------
    Graph

    Raises
    ------
    GraphFormatError
        (or a subclass) naming the file and line when the file is malformed.
    VertexIdError
        When ids are negative or outside the declared range.
    """
    from gpugraph.io import binary, readers

    path = os.fspath(path)
    if format == "binary" or (format is None and binary.is_binary_file(path)):
        return binary.load_binary(path, mmap=mmap, verify=verify, device=device)
    edge_list = readers.read_edge_list(path, format, directed=directed, progress=progress)
    return from_edge_list(
        edge_list,
        relabel=relabel,
        self_loops=self_loops,
        duplicates=duplicates,
        device=device,
        name=os.path.basename(path),
    )


def save(graph: Graph, path, format: str | None = None) -> None:
    """Write ``graph`` to ``path``; the format follows the suffix unless given (see
    :func:`gpugraph.io.writers.save`). Nothing is written unless the whole write succeeds."""
    from gpugraph.io import writers

    writers.save(graph, os.fspath(path), format=format)


__all__ = ["load", "save"]
