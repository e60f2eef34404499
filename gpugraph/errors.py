"""Named exceptions of gpugraph.

Every error a user can cause (bad files, bad ids, bad parameters, a device that is not there)
is one of these, so callers can catch ``GpugraphError`` and the CLI can print one line.
"""

from __future__ import annotations


class GpugraphError(Exception):
    """Base class of every error gpugraph raises on purpose."""


class GraphFormatError(GpugraphError, ValueError):
    """A graph file is malformed.

    Parameters
    ----------
    message:
        What is wrong, in words.
    path:
        The file that is malformed (``None`` for in-memory text).
    line:
        1-based line number where the problem was found, when known.
    """

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.reason = message
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + message)


class UnknownFormatError(GraphFormatError):
    """The file's format could not be detected, or a forced format name is unknown."""


class ChecksumError(GraphFormatError):
    """A binary graph file's checksum does not match its contents (corrupt or truncated)."""


class VertexIdError(GpugraphError, ValueError):
    """A vertex id is negative, out of the declared range, or unknown to the graph."""


class InvalidWeightError(GpugraphError, ValueError):
    """Edge weights are unusable for the requested operation (e.g. negative or NaN for SSSP)."""


class EmptyGraphError(GpugraphError, ValueError):
    """An operation needs at least one vertex (or edge) and the graph has none."""


class InvalidParameterError(GpugraphError, ValueError):
    """A parameter has a value outside what the function accepts."""


class DeviceError(GpugraphError, RuntimeError):
    """A requested device cannot be used (no GPU, bad ordinal, missing CUDA packages)."""


class DeviceOutOfMemoryError(DeviceError, MemoryError):
    """The device ran out of memory; the message says how much was asked for and how much is free."""


class GraphFileNotFoundError(GpugraphError, FileNotFoundError):
    """A graph file (or the sibling file a format needs, e.g. LDBC's ``.e``) does not exist."""


class FileVertexIdError(GraphFormatError, VertexIdError):
    """A vertex id in a graph file is negative or outside the range the file declares.

    Both a :class:`GraphFormatError` (it carries ``path`` and ``line``) and a
    :class:`VertexIdError`, so either ``except`` clause catches it.
    """


class ProgramError(GpugraphError, TypeError):
    """A user function of a graph program cannot be compiled or bound.

    Raised for unknown parameter names, Python that Numba cannot compile, or type errors
    inside the function. The message names the function, its kind (EDGE, VERTEX, ...) and where
    it is defined, followed by the compiler's own one-line reason.

    Parameters
    ----------
    message:
        What is wrong, in words.
    function:
        ``"kind name (file:line)"`` of the user function, when known.
    """

    def __init__(self, message: str, function: str | None = None):
        self.function = function
        super().__init__(f"{function}: {message}" if function else message)


class DistributedError(GpugraphError, RuntimeError):
    """Multi-process execution cannot start or failed: torch (or pymetis) missing, a worker
    process died, or the parts given to the ranks do not belong together."""


class Graph500ValidationError(GpugraphError, ValueError):
    """A BFS parent array fails a Graph500 validation rule; the message names the rule and a vertex or edge."""
