"""Readers for the text formats real graphs come in. Each returns an :class:`EdgeList`.

Readers parse and validate; they never relabel, deduplicate or drop anything (that is the
builder's job, :mod:`gpugraph.graph.build`). Every malformed file raises a
:class:`~gpugraph.errors.GraphFormatError` (or a subclass) whose message starts ``FILE:LINE:``.

Formats (:data:`FORMATS`)
-------------------------
``edgelist``  SNAP / whitespace edge lists: ``u v [w]`` per line, separated by blanks or commas;
              lines starting with ``#`` or ``%`` are comments. Ids are non-negative integers,
              as sparse or large as int64 allows (``num_vertices=None``). The first data line
              decides whether there is a weight column (float); every line must then agree.
              Directed. A file of comments only is an empty edge list.
``mtx``       Matrix Market ``coordinate`` files; field ``pattern`` (no weights), ``integer``
              (int64) or ``real`` (float64); symmetry ``general`` (directed), ``symmetric``
              (undirected, entries as listed) or ``skew-symmetric`` (directed: every entry
              (i, j, v) off the diagonal also gives (j, i, -v)). Entry (i, j) is the edge i -> j;
              ``num_vertices = max(rows, cols)``, ``id_base = 1``; rows lie in [1, rows] and
              columns in [1, cols]. ``complex``, ``hermitian`` and dense ``array`` files raise
              :class:`~gpugraph.errors.UnknownFormatError`.
``dimacs``    9th DIMACS shortest paths: ``c`` comments, ``p sp n m``, then m lines ``a u v w``
              (1-based ids, int64 weights). Directed.
``pace``      PACE 2016: ``c`` comments, ``p tw n m``, then m lines ``u v`` (1-based). Undirected.
``metis``     METIS adjacency: ``%`` comments, header ``n m [fmt [ncon]]``, then exactly n lines,
              line i listing the neighbours of vertex i (1-based; a blank line is a vertex
              without neighbours; blank lines after the last vertex are ignored). ``fmt`` is
              read as METIS does, three digits: 100 = a vertex size first, 10 = ``ncon`` vertex
              weights next (both checked, then skipped), 1 = ``neighbour weight`` pairs (int64).
              Undirected: every edge is listed from both ends and m counts it once; the edge
              list keeps the entries with u <= v, and the counts of entries with u < v and
              u > v must both equal m (self-loops, u == v, count once).
``ldbc``      LDBC Graphalytics: ``NAME.v`` (one vertex id per line, isolated vertices
              included, becomes ``vertex_ids``) and ``NAME.e`` (``src dst [weight]``, float
              weights), found from either file or ``NAME``. ``NAME.properties``, when present,
              gives the direction (``graph.NAME.directed``, default directed) and, if it declares
              them, the counts ``meta.vertices`` / ``meta.edges`` that the files must match.

Numbers: ids are decimal integers; weights are decimal or scientific floats parsed exactly (as
Python's ``float``), including ``inf``, ``-inf`` and ``nan``, which the readers accept and leave to
the algorithms (SSSP rejects them with :class:`~gpugraph.errors.InvalidWeightError`).

Direction: ``directed=None`` keeps the format's own; ``directed=False`` on a directed format keeps
the entries and marks them undirected; ``directed=True`` on an undirected format lists every edge
in both directions (a self-loop once).

Compressed files (gzip, xz, bzip2) are recognised by their magic bytes and read transparently.
Bodies are parsed in pieces on all cores (:mod:`gpugraph.io._parse`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import numpy as np

from gpugraph.errors import GraphFileNotFoundError, GraphFormatError, UnknownFormatError
from gpugraph.graph.edgelist import EdgeList
from gpugraph.io._open import COMPRESSION_SUFFIXES, TextSource, check_readable, strip_compression_suffix
from gpugraph.io._parse import (
    INT64_MAX,
    VALUES_FLOAT,
    VALUES_INT,
    VALUES_NONE,
    RecordLayout,
    parse_adjacency,
    parse_records,
)
from gpugraph.progress import Progress

FORMATS = ("edgelist", "mtx", "dimacs", "pace", "metis", "ldbc")

_SUFFIX_FORMATS = {
    ".mtx": "mtx",
    ".mm": "mtx",
    ".graph": "metis",
    ".metis": "metis",
    ".v": "ldbc",
    ".e": "ldbc",
    ".properties": "ldbc",
    ".txt": "edgelist",
    ".edges": "edgelist",
    ".tsv": "edgelist",
    ".csv": "edgelist",
    ".el": "edgelist",
    ".wel": "edgelist",
}
_PROBLEM_KINDS = {b"sp": "dimacs", b"tw": "pace"}
#: Names of files whose problem line ('p sp' or 'p tw') tells DIMACS from PACE.
_PROBLEM_SUFFIXES = (".gr", ".dimacs")
#: Lines read while looking for a header or a first data line before giving up on detection.
_SNIFF_LINES = 10_000
_NUMBER = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|infinity|nan)", re.IGNORECASE)


def read_edge_list(
    path,
    format: str | None = None,
    *,
    directed: bool | None = None,
    weighted: bool | None = None,
    progress: bool | None = None,
) -> EdgeList:
    """Read a graph text file of any supported format.

    Parameters
    ----------
    path:
        The file, possibly gzip/xz/bzip2-compressed. For ``ldbc``: ``NAME.v``, ``NAME.e`` or
        ``NAME``.
    format:
        One of :data:`FORMATS`; ``None`` detects it with :func:`detect_format`.
    directed:
        ``None`` keeps the format's direction; ``True`` / ``False`` override it (see the
        module docstring).
    weighted:
        ``None`` keeps weights when the file has them; ``False`` drops them; ``True`` requires
        them (an error if the file has none).
    progress:
        Progress bar on stderr for reads longer than a second: ``None`` only when stderr is a
        terminal, ``True`` / ``False`` force it on / off.

    Returns
    -------
    EdgeList
        Raw ids as in the file, weights or ``None``, ``num_vertices`` and ``id_base`` when the
        format declares a vertex count, ``vertex_ids`` for LDBC, ``directed``, ``source=path``.

    Raises
    ------
    GraphFileNotFoundError
        If the file (or a sibling file the format needs) does not exist.
    UnknownFormatError
        If ``format`` is not in :data:`FORMATS` or cannot be detected.
    GraphFormatError
        If the file is malformed; the message names the file and 1-based line.
    FileVertexIdError
        If an id is negative or outside the declared range (also a ``VertexIdError``).
    """
    path = os.fspath(path)
    if format is None:
        format = detect_format(path)
    elif format not in _READERS:
        raise UnknownFormatError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}", path)
    return _READERS[format](path, directed=directed, weighted=weighted, progress=progress)


def detect_format(path) -> str:
    """Name of the format of ``path``: from its name (compression suffix aside), and from its
    first lines when the name says nothing (or, for ``.gr``, to tell DIMACS from PACE).

    Returns
    -------
    str
        One of :data:`FORMATS`.

    Raises
    ------
    GraphFileNotFoundError
        If neither the file nor LDBC siblings ``path.v`` / ``path.e`` exist.
    GraphFormatError
        If the file is empty.
    UnknownFormatError
        If the format cannot be told.
    """
    path = os.fspath(path)
    if not os.path.exists(path) and (_ldbc_sibling(path, "v") or _ldbc_sibling(path, "e")):
        return "ldbc"
    source = TextSource(path)
    suffix = os.path.splitext(strip_compression_suffix(os.path.basename(path)).lower())[1]
    if suffix in _SUFFIX_FORMATS:
        return _SUFFIX_FORMATS[suffix]
    empty = True
    for number, text, _ in _limited(source.head_lines()):
        stripped = text.strip()
        if not stripped:
            continue
        empty = False
        if number == 1 and stripped.lower().startswith(b"%%matrixmarket"):
            return "mtx"
        words = stripped.split()
        if stripped[:1] in (b"#", b"%") or words[0] == b"c":
            continue
        if words[0] == b"p" and len(words) > 1 and words[1] in _PROBLEM_KINDS:
            return _PROBLEM_KINDS[words[1]]
        if suffix in _PROBLEM_SUFFIXES:
            raise UnknownFormatError(
                f"a {suffix} file starts with a problem line 'p sp n m' (DIMACS) or 'p tw n m' (PACE), "
                f"got {_quote(text)}", path, number,
            )
        if 2 <= len(_tokens(stripped)) <= 3 and all(map(_NUMBER.fullmatch, _tokens(stripped))):
            return "edgelist"
        raise UnknownFormatError(
            f"cannot tell the graph format from the name or from {_quote(text)}; "
            f"pass format= one of {', '.join(FORMATS)}",
            path, number,
        )
    if empty:
        raise GraphFormatError("empty file", path)
    raise UnknownFormatError(
        f"only comments: cannot tell the format; pass format= one of {', '.join(FORMATS)}", path
    )


# --- formats -------------------------------------------------------------------------------------
def read_edgelist(
    path, *, directed: bool | None = None, weighted: bool | None = None, progress: bool | None = None
) -> EdgeList:
    """Read a SNAP / whitespace edge list (``u v [w]``; see the module docstring).

    Parameters are those of :func:`read_edge_list`.

    Returns
    -------
    EdgeList
        ``num_vertices=None``: the vertices are the ids that occur.

    Raises
    ------
    GraphFileNotFoundError, GraphFormatError, FileVertexIdError
        As :func:`read_edge_list`.
    """
    path = os.fspath(path)
    source = TextSource(path)
    first = _first_data_line(source, (b"#", b"%"))
    if first is None:  # comments only: a graph without edges
        empty = np.empty(0, dtype=np.int64)
        return EdgeList(empty, empty.copy(), None, directed=_direction(directed, True), source=path)
    number, text = first
    columns = len(_tokens(text))
    if columns not in (2, 3):
        raise GraphFormatError(
            f"expected 'u v' or 'u v w', got {columns} columns: {_quote(text)}", path, number
        )
    has_weights = columns == 3
    _check_weighted(weighted, has_weights, path, number)
    layout = RecordLayout(
        text="u v w" if has_weights else "u v",
        values=VALUES_FLOAT if has_weights else VALUES_NONE,
        comments=b"#%",
        commas=True,
        store_values=weighted is not False,
    )
    with _progress_bar(progress, path, source.size) as bar:
        records = parse_records(source, layout, progress=bar)
    return EdgeList(*records.ids, records.values, directed=_direction(directed, True), source=path)


def read_matrix_market(
    path, *, directed: bool | None = None, weighted: bool | None = None, progress: bool | None = None
) -> EdgeList:
    """Read a Matrix Market coordinate file (see the module docstring).

    Parameters are those of :func:`read_edge_list`.

    Returns
    -------
    EdgeList
        ``num_vertices = max(rows, cols)``, ``id_base = 1``; ``metadata`` holds ``rows``,
        ``cols``, ``field`` and ``symmetry``.

    Raises
    ------
    UnknownFormatError
        For a banner that is not ``%%MatrixMarket matrix coordinate`` with a supported field
        and symmetry (complex, hermitian, array, vector...).
    GraphFileNotFoundError, GraphFormatError, FileVertexIdError
        As :func:`read_edge_list`; also when the number of entries differs from the size line.
    """
    path = os.fspath(path)
    source = TextSource(path)
    lines = source.head_lines()
    first = next(lines, (1, b"", 0))
    if not first[1].strip():
        _first_data_line(source, (b"%",))  # "empty file" when there is nothing at all
    field, symmetry = _matrix_market_banner(first[1], path)
    size = _next_data_line(lines, (b"%",))
    if size is None:
        raise GraphFormatError("no size line 'rows columns entries' after the banner", path, first[0])
    number, text, offset = size
    rows, cols, entries = _header_integers(text, 3, "size line 'rows columns entries'", path, number)
    if field == "pattern":
        _check_weighted(weighted, False, path, 1)
    layout = RecordLayout(
        text="i j" if field == "pattern" else "i j value",
        values={"pattern": VALUES_NONE, "integer": VALUES_INT, "real": VALUES_FLOAT}[field],
        comments=b"%",
        id_ranges=((1, rows), (1, cols)),
        store_values=weighted is not False,
    )
    with _progress_bar(progress, path, source.size) as bar:
        records = parse_records(source, layout, start=offset, first_line=number + 1, progress=bar)
    src, dst = records.ids
    _check_count(src.size, entries, "entries", path, number)
    values = records.values
    if symmetry == "skew-symmetric" and directed is not False:
        src, dst, values = _both_directions(src, dst, values, negate=True)
    own_direction = symmetry != "symmetric"
    if symmetry == "symmetric" and directed:
        src, dst, values = _both_directions(src, dst, values)
    return EdgeList(
        src, dst, values,
        num_vertices=max(rows, cols), id_base=1,
        directed=_direction(directed, own_direction), source=path,
        metadata={"rows": rows, "cols": cols, "field": field, "symmetry": symmetry},
    )


def read_dimacs(
    path, *, directed: bool | None = None, weighted: bool | None = None, progress: bool | None = None
) -> EdgeList:
    """Read a 9th DIMACS shortest-path file (``p sp n m``, ``a u v w``).

    Parameters are those of :func:`read_edge_list`.

    Returns
    -------
    EdgeList
        Directed, 1-based, int64 weights, ``num_vertices = n``.

    Raises
    ------
    GraphFileNotFoundError, GraphFormatError, FileVertexIdError
        As :func:`read_edge_list`; also when the number of arcs differs from m.
    """
    path = os.fspath(path)
    source = TextSource(path)
    number, n, m, offset = _problem_line(source, b"sp")
    layout = RecordLayout(
        text="a u v w", tag=b"a", values=VALUES_INT, comments=b"c",
        id_ranges=((1, n), (1, n)), store_values=weighted is not False,
    )
    with _progress_bar(progress, path, source.size) as bar:
        records = parse_records(source, layout, start=offset, first_line=number + 1, progress=bar)
    _check_count(records.ids[0].size, m, "arcs", path, number)
    return EdgeList(*records.ids, records.values, num_vertices=n, id_base=1,
                    directed=_direction(directed, True), source=path)


def read_pace(
    path, *, directed: bool | None = None, weighted: bool | None = None, progress: bool | None = None
) -> EdgeList:
    """Read a PACE 2016 graph (``p tw n m``, ``u v``).

    Parameters are those of :func:`read_edge_list`.

    Returns
    -------
    EdgeList
        Undirected, 1-based, no weights, ``num_vertices = n``.

    Raises
    ------
    GraphFileNotFoundError, GraphFormatError, FileVertexIdError
        As :func:`read_edge_list`; also when the number of edges differs from m, or for
        ``weighted=True``.
    """
    path = os.fspath(path)
    source = TextSource(path)
    number, n, m, offset = _problem_line(source, b"tw")
    _check_weighted(weighted, False, path, number)
    layout = RecordLayout(text="u v", comments=b"c", id_ranges=((1, n), (1, n)))
    with _progress_bar(progress, path, source.size) as bar:
        records = parse_records(source, layout, start=offset, first_line=number + 1, progress=bar)
    src, dst = records.ids
    _check_count(src.size, m, "edges", path, number)
    if directed:
        src, dst, _ = _both_directions(src, dst, None)
    return EdgeList(src, dst, None, num_vertices=n, id_base=1,
                    directed=_direction(directed, False), source=path)


def read_metis(
    path, *, directed: bool | None = None, weighted: bool | None = None, progress: bool | None = None
) -> EdgeList:
    """Read a METIS adjacency file (see the module docstring).

    Parameters are those of :func:`read_edge_list`.

    Returns
    -------
    EdgeList
        Undirected, each edge once (u <= v), 1-based, int64 weights for ``fmt`` x1.

    Raises
    ------
    GraphFileNotFoundError, GraphFormatError, FileVertexIdError
        As :func:`read_edge_list`; also for a wrong number of lines, adjacency lists that are not
        symmetric or whose edge count differs from the header's m.
    """
    path = os.fspath(path)
    source = TextSource(path)
    _first_data_line(source, (b"%",))  # "empty file" when there is nothing at all
    header = next((line for line in source.head_lines() if not line[1].lstrip().startswith(b"%")), None)
    if header is None:
        raise GraphFormatError("no header line 'n m [fmt [ncon]]', only comments", path)
    number, text, offset = header
    fields = _header_integers(text, (2, 3, 4), "header 'n m [fmt [ncon]]'", path, number)
    n, m = fields[:2]
    fmt = fields[2] if len(fields) > 2 else 0
    digits = f"{fmt:03d}"
    if len(digits) != 3 or set(digits) - {"0", "1"}:
        raise GraphFormatError(
            f"METIS fmt must be 0, 1, 10, 11, 100, 101, 110 or 111, got {fmt}", path, number
        )
    vertex_sizes, vertex_weights, edge_weights = (digit == "1" for digit in digits)
    ncon = fields[3] if len(fields) > 3 and fields[3] > 0 else 1
    _check_weighted(weighted, edge_weights, path, number)
    with _progress_bar(progress, path, source.size) as bar:
        adjacency = parse_adjacency(
            source, num_vertices=n, skip_tokens=int(vertex_sizes) + (ncon if vertex_weights else 0),
            edge_weights=edge_weights, start=offset, first_line=number + 1, progress=bar,
        )
    if adjacency.vertex_lines < n:
        raise GraphFormatError(
            f"header declares {n:,} vertices but {adjacency.vertex_lines:,} adjacency lines follow",
            path, number,
        )
    if adjacency.below != adjacency.above:
        raise GraphFormatError(
            f"adjacency lists are not symmetric: {adjacency.below:,} entries (u, v) with u < v but "
            f"{adjacency.above:,} with u > v", path, number,
        )
    _check_count(adjacency.below + adjacency.loops, m, "edges", path, number)
    src, dst = adjacency.src, adjacency.dst
    weights = adjacency.weights if weighted is not False else None
    if directed:
        src, dst, weights = _both_directions(src, dst, weights)
    return EdgeList(src, dst, weights, num_vertices=n, id_base=1,
                    directed=_direction(directed, False), source=path)


def read_ldbc(
    path, *, directed: bool | None = None, weighted: bool | None = None, progress: bool | None = None
) -> EdgeList:
    """Read an LDBC Graphalytics graph: ``NAME.v`` + ``NAME.e`` [+ ``NAME.properties``].

    Parameters are those of :func:`read_edge_list`; ``path`` may be either file or ``NAME``.
    ``directed`` overrides the properties file, which overrides the default (directed).

    Returns
    -------
    EdgeList
        ``vertex_ids`` from ``NAME.v``; float weights when ``NAME.e`` has a third column.

    Raises
    ------
    GraphFileNotFoundError
        If ``NAME.v`` or ``NAME.e`` is missing.
    GraphFormatError, FileVertexIdError
        As :func:`read_edge_list`; also when counts in the properties file do not match.
    """
    vertex_path, edge_path, properties_path = _ldbc_files(os.fspath(path))
    properties = _ldbc_properties(properties_path)
    vertices, edges = TextSource(vertex_path), TextSource(edge_path)
    first = _first_data_line(vertices, (b"#",))
    if first is None:
        raise GraphFormatError("empty file: an LDBC vertex file lists at least one vertex", vertex_path)
    first_edge = _first_data_line(edges, (b"#",), empty_ok=True)
    has_weights = first_edge is not None and len(_tokens(first_edge[1])) == 3
    _check_weighted(weighted, has_weights, edge_path, first_edge[0] if first_edge else None)
    vertex_layout = RecordLayout(text="id", id_columns=1, comments=b"#", id_ranges=((0, INT64_MAX),))
    edge_layout = RecordLayout(
        text="src dst weight" if has_weights else "src dst",
        values=VALUES_FLOAT if has_weights else VALUES_NONE,
        comments=b"#",
        store_values=weighted is not False,
    )
    with _progress_bar(progress, edge_path, vertices.size + edges.size) as bar:
        vertex_ids = parse_records(vertices, vertex_layout, progress=bar).ids[0]
        records = parse_records(edges, edge_layout, progress=bar)
    for key, found in (("meta.vertices", vertex_ids.size), ("meta.edges", records.ids[0].size)):
        if key in properties:
            declared, line = properties[key]
            _check_count(found, int(declared), key.split(".")[1], properties_path, line)
    own_direction = properties.get("directed", ("true", 0))[0].lower() == "true"
    return EdgeList(*records.ids, records.values, vertex_ids=vertex_ids,
                    directed=_direction(directed, own_direction), source=edge_path)


_READERS = {
    "edgelist": read_edgelist,
    "mtx": read_matrix_market,
    "dimacs": read_dimacs,
    "pace": read_pace,
    "metis": read_metis,
    "ldbc": read_ldbc,
}


# --- headers -------------------------------------------------------------------------------------
def _limited(lines: Iterator[tuple[int, bytes, int]]) -> Iterator[tuple[int, bytes, int]]:
    for line in lines:
        if line[0] > _SNIFF_LINES:
            return
        yield line


def _tokens(text: bytes) -> list[bytes]:
    return text.replace(b",", b" ").split()


def _quote(text: bytes) -> str:
    return repr(text[:80].decode("utf-8", "replace"))


def _next_data_line(lines, comments: tuple[bytes, ...]):
    """The next ``(number, text, end_offset)`` of ``lines`` that is neither blank nor a comment."""
    for number, text, offset in lines:
        stripped = text.strip()
        if stripped and not stripped.startswith(comments):
            return number, text, offset
    return None


def _first_data_line(
    source: TextSource, comments: tuple[bytes, ...], empty_ok: bool = False
) -> tuple[int, bytes] | None:
    """``(number, text)`` of the first data line, ``None`` for a file of comments only.

    Raises
    ------
    GraphFormatError
        If the file has no content at all ("empty"), unless ``empty_ok``.
    """
    content = False
    for number, text, _ in source.head_lines():
        stripped = text.strip()
        content = content or bool(stripped)
        if stripped and not stripped.startswith(comments):
            return number, text
    if not content and not empty_ok:
        raise GraphFormatError("empty file", source.path)
    return None


def _header_integers(text: bytes, counts, what: str, path: str, number: int) -> list[int]:
    counts = (counts,) if isinstance(counts, int) else counts
    words = text.split()
    if len(words) not in counts or not all(re.fullmatch(rb"\d+", word) for word in words):
        raise GraphFormatError(f"malformed {what}: {_quote(text)}", path, number)
    return [int(word) for word in words]


def _problem_line(source: TextSource, kind: bytes) -> tuple[int, int, int, int]:
    """Find DIMACS/PACE ``p KIND n m`` after ``c`` comments: ``(line, n, m, body offset)``."""
    expected = f"'p {kind.decode()} n m'"
    found = _next_data_line(source.head_lines(), (b"c",))
    if found is None:
        _first_data_line(source, (b"c",))  # "empty file" when there is nothing at all
        raise GraphFormatError(f"no problem line {expected}, only comments", source.path)
    number, text, offset = found
    words = text.split()
    if len(words) < 2 or words[:2] != [b"p", kind]:
        raise GraphFormatError(
            f"expected the problem line {expected}, got {_quote(text)}", source.path, number
        )
    n, m = _header_integers(b" ".join(words[2:]), 2, f"problem line {expected}", source.path, number)
    return number, n, m, offset


def _matrix_market_banner(text: bytes, path: str) -> tuple[str, str]:
    words = text.decode("utf-8", "replace").lower().split()
    if not words or words[0] != "%%matrixmarket":
        raise UnknownFormatError(
            f"not a Matrix Market file: the first line must be '%%MatrixMarket matrix coordinate "
            f"FIELD SYMMETRY', got {_quote(text)}", path, 1,
        )
    if len(words) != 5:
        raise UnknownFormatError(f"malformed Matrix Market banner {_quote(text)}", path, 1)
    kind, layout, field, symmetry = words[1:]
    problems = []
    if kind != "matrix":
        problems.append(f"object {kind!r} (only 'matrix')")
    if layout != "coordinate":
        problems.append(f"format {layout!r} (only 'coordinate'; a dense 'array' is not a graph)")
    if field not in ("pattern", "integer", "real"):
        problems.append(f"field {field!r} (pattern, integer or real)")
    if symmetry not in ("general", "symmetric", "skew-symmetric"):
        problems.append(f"symmetry {symmetry!r} (general, symmetric or skew-symmetric)")
    elif field == "pattern" and symmetry == "skew-symmetric":
        problems.append("a 'pattern' matrix cannot be skew-symmetric")
    if problems:
        raise UnknownFormatError("unsupported Matrix Market " + "; ".join(problems), path, 1)
    return field, symmetry


def _ldbc_files(path: str) -> tuple[str, str, str | None]:
    stem = strip_compression_suffix(path)
    base, suffix = os.path.splitext(stem)
    if suffix in (".v", ".e", ".properties"):
        stem = base
    found = {}
    for kind in ("v", "e"):
        found[kind] = _ldbc_sibling(stem, kind)
        if found[kind] is None:
            raise GraphFileNotFoundError(f"{stem}.{kind}: no such file (an LDBC graph is NAME.v + NAME.e)")
        check_readable(found[kind])
    properties = f"{stem}.properties"
    return found["v"], found["e"], properties if os.path.exists(properties) else None


def _ldbc_sibling(stem: str, kind: str) -> str | None:
    """``stem.kind``, possibly compressed, if it exists."""
    candidates = [f"{stem}.{kind}"] + [f"{stem}.{kind}{suffix}" for suffix in COMPRESSION_SUFFIXES]
    return next((name for name in candidates if os.path.exists(name)), None)


def _ldbc_properties(path: str | None) -> dict[str, tuple[str, int]]:
    """``{"directed" | "meta.vertices" | "meta.edges": (value, line)}`` from ``graph.*.KEY = value``."""
    if path is None:
        return {}
    wanted = re.compile(r"graph\.[^=]+?\.(directed|meta\.vertices|meta\.edges)\s*[=:]\s*(\S+)")
    found = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            match = wanted.fullmatch(line.strip())
            if match:
                found[match.group(1)] = (match.group(2), number)
    if "directed" in found and found["directed"][0].lower() not in ("true", "false"):
        value, line = found["directed"]
        raise GraphFormatError(f"directed must be true or false, got {value!r}", path, line)
    for key in ("meta.vertices", "meta.edges"):
        if key in found and not found[key][0].isdigit():
            raise GraphFormatError(f"{key} must be a count, got {found[key][0]!r}", path, found[key][1])
    return found


# --- checks and conversions ----------------------------------------------------------------------
def _check_weighted(weighted: bool | None, has_weights: bool, path: str, number: int | None) -> None:
    if weighted and not has_weights:
        raise GraphFormatError("weighted=True but the file has no weight column", path, number)


def _check_count(found: int, declared: int, what: str, path: str, number: int) -> None:
    if found != declared:
        raise GraphFormatError(
            f"header declares {declared:,} {what} but the file has {found:,}", path, number
        )


def _direction(directed: bool | None, own: bool) -> bool:
    return own if directed is None else bool(directed)


def _both_directions(src, dst, values, negate: bool = False):
    """Add the reverse of every edge that is not a self-loop (negated value for skew-symmetric)."""
    off_diagonal = src != dst
    mirrored = None
    if values is not None:
        mirrored = -values[off_diagonal] if negate else values[off_diagonal]
        mirrored = np.concatenate([values, mirrored])
    return np.concatenate([src, dst[off_diagonal]]), np.concatenate([dst, src[off_diagonal]]), mirrored


def _progress_bar(progress: bool | None, path: str, total: int) -> Progress:
    return Progress(f"reading {os.path.basename(path)}", total=total, unit="B", enabled=progress)
