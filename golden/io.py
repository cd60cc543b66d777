"""Reading and writing graphs: Matrix Market, NumPy ``.npz`` and SNAP-style edge lists.

Graphicionado (section 3.1) consumes a COO edge list; these are the files such lists come in.

* ``.mtx`` -- Matrix Market ``coordinate`` matrices, field ``pattern``, ``integer`` or
  ``real``, symmetry ``general`` or ``symmetric``.  Entry (i, j) is the edge i-1 -> j-1.
  Symmetric files are expanded into both directions (the diagonal once) and the graph is
  flagged symmetric.  A rectangular M x N matrix becomes a graph of max(M, N) vertices.
* ``.npz`` -- arrays ``num_vertices``, ``src``, ``dst`` and optionally ``weight``,
  ``symmetric`` and ``name``.
* anything else -- an edge list: one ``src dst [weight]`` per line, 0-based ids, blank lines
  ignored, ``#`` or ``%`` starting a comment.  num_vertices is the largest id + 1 unless a
  header comment ``# Nodes: N`` (as SNAP writes) says more; a header comment line
  ``# Symmetric`` flags the graph symmetric.  Weights written as plain integers are read as
  uint32, any other numbers as float32 (``# Weights: uint32|float32`` gives the type of an
  edge list without edges).

A declared symmetry (``# Symmetric``, the ``.npz``'s ``symmetric``) is checked against the
edges; ``read_graph(path, detect_symmetry=True)`` (what :func:`golden.load_graph` does) also
flags symmetric an undeclared file whose edges mirror themselves.

Faults are reported as :class:`GraphFormatError` with the message ``path:line: fault``.
The fast path parses with ``np.loadtxt`` (C code); only on a fault is the file rescanned
line by line to find the offending line.  Writers build the whole text with array
operations and replace the target atomically.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
import warnings
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import numpy as np

from .graph import MAX_UINT32, Graph, GraphError, sort_permutation

__all__ = ["GraphFormatError", "read_graph", "write_graph"]

PathLike = str | os.PathLike


class GraphFormatError(GraphError):
    """A malformed graph file; the message is one line ``path:line: fault``."""

    def __init__(self, path: PathLike, line: int | None, fault: str) -> None:
        self.path, self.line = str(path), line
        self.fault = " ".join(str(fault).split())
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {self.fault}")


# ============================================================================ reading

def read_graph(path: PathLike, detect_symmetry: bool = False) -> Graph:
    """Read a graph file, choosing the format by suffix (see the module docstring).

    A file that declares itself symmetric (Matrix Market ``symmetric``, an edge list's
    ``# Symmetric``, an ``.npz``'s ``symmetric``) is flagged so; the last two are checked
    against the edges. With ``detect_symmetry`` any other file whose edges mirror themselves
    (:meth:`Graph.mirror_symmetric`: every edge in both directions, as often, with equal
    weights, as GAPBS's converter writes an undirected graph) is flagged symmetric too.
    """
    graph = _read_graph(Path(path))
    if detect_symmetry and not graph.symmetric and graph.mirror_symmetric():
        graph = graph.flagged(True)
    return graph


def _check_declared_symmetric(path: Path, graph: Graph, where: str) -> Graph:
    """``graph`` if its edges mirror themselves, as ``where`` (the file's word) says."""
    if graph.mirror_symmetric():
        return graph
    edge = graph.unmirrored_edge()
    what = (f"edge {graph.src[edge]} -> {graph.dst[edge]} has no {graph.dst[edge]} -> "
            f"{graph.src[edge]}" if edge is not None else
            "an edge is listed more often, or with other weights, in one direction than "
            "in the other")
    raise GraphFormatError(path, None, f"{where} says the graph is symmetric, but {what}")


def _read_graph(path: Path) -> Graph:
    suffix = path.suffix.lower()
    try:
        if suffix == ".npz":
            return _read_npz(path)
        data = path.read_bytes()
    except FileNotFoundError:
        raise GraphError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise GraphError(f"{path}: is a directory, not a graph file") from None
    except OSError as exc:
        raise GraphError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        return _read_mtx(path, data) if suffix == ".mtx" else _read_edge_list(path, data)
    except GraphFormatError:
        raise
    except GraphError as exc:                  # a fault only the whole graph reveals
        raise GraphFormatError(path, None, str(exc)) from None


def _read_npz(path: Path) -> Graph:
    try:
        archive = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise GraphFormatError(path, None, f"not a readable .npz archive ({exc})") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise GraphFormatError(path, None, "holds a single array, not a .npz archive")
    with archive:
        try:
            arrays = {key: archive[key] for key in archive.files}
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
            raise GraphFormatError(path, None, f"damaged .npz archive ({exc})") from None
    for key in ("num_vertices", "src", "dst"):
        if key not in arrays:
            raise GraphFormatError(path, None, f"missing array {key!r} "
                                   f"(found {', '.join(sorted(arrays)) or 'none'})")
    try:
        n = arrays["num_vertices"]
        if n.shape != () or n.dtype.kind not in "iu":
            raise GraphError(f"num_vertices must be one integer, got {n.dtype} of shape {n.shape}")
        symmetric = arrays.get("symmetric", np.bool_(False))
        if symmetric.shape != () or symmetric.dtype != np.bool_:
            raise GraphError("symmetric must be one boolean")
        name = str(arrays["name"]) if "name" in arrays else path.stem
        graph = Graph.from_edges(int(n), arrays["src"], arrays["dst"], arrays.get("weight"),
                                 symmetric=bool(symmetric), name=name)
    except GraphError as exc:
        raise GraphFormatError(path, None, str(exc)) from None
    return _check_declared_symmetric(path, graph, "its 'symmetric' array") \
        if graph.symmetric else graph


# -- text parsing shared by the edge-list and Matrix Market readers -------------------

def _data_lines(body: bytes, first_line: int) -> Iterator[tuple[int, list[bytes]]]:
    """(line number, tokens) of every line holding data; comments start at # or %."""
    for number, raw in enumerate(body.split(b"\n"), first_line):
        for mark in (b"#", b"%"):
            cut = raw.find(mark)
            if cut >= 0:
                raw = raw[:cut]
        tokens = raw.split()
        if tokens:
            yield number, tokens


def _plain_header(body: bytes) -> int | None:
    """Leading comment/blank lines, if every later line holds data and no comment (else None).

    Then data row r is on line ``first_line + header + r``, found without a scan.
    """
    position, header = 0, 0
    while position < len(body):
        end = body.find(b"\n", position)
        end = len(body) if end < 0 else end
        line = body[position:end].strip()
        if line and line[:1] not in (b"#", b"%"):
            break
        header, position = header + 1, end + 1
    for mark in (b"#", b"%", b"\n\n"):
        if body.find(mark, position) >= 0:
            return None
    return header


def _line_text(body: bytes, first_line: int, line: int) -> bytes:
    index = line - first_line
    ends = np.flatnonzero(np.frombuffer(body, dtype=np.uint8) == ord("\n"))
    if index < 0 or index > ends.size:
        return b""
    start = 0 if index == 0 else int(ends[index - 1]) + 1
    return body[start:int(ends[index]) if index < ends.size else len(body)]


def _line_of_row(body: bytes, first_line: int, row: int, values: np.ndarray | None = None
                 ) -> int:
    """Line number of data row ``row`` (checked against its parsed ``values`` if given)."""
    header = _plain_header(body)
    if header is not None:
        line = first_line + header + row
        if values is None:
            return line
        try:
            tokens = [float(t) for t in _line_text(body, first_line, line).split()]
        except ValueError:
            tokens = []
        if len(tokens) == values.size and np.array_equal(np.array(tokens), values,
                                                         equal_nan=True):
            return line
    for index, (number, _) in enumerate(_data_lines(body, first_line)):
        if index == row:
            return number
    return first_line + body.count(b"\n")


def _check_line(tokens: list[bytes], number: int, expected: int | None, first: int,
                columns: tuple[int, ...], layout: str) -> str | None:
    if expected is None and len(tokens) not in columns:
        return f"expected {layout}, found {len(tokens)} values"
    if expected is not None and len(tokens) != expected:
        return f"expected {expected} values as on line {first}, found {len(tokens)}"
    for token in tokens:
        try:
            float(token)
        except ValueError:
            return f"not a number: {token.decode('latin-1')!r}"
        if b"_" in token:
            return f"not a number: {token.decode('latin-1')!r}"
    return None


def _hinted_fault(body: bytes, first_line: int, columns: tuple[int, ...], layout: str,
                  failure: Exception) -> tuple[int, str] | None:
    """Use the row np.loadtxt names to find the fault without scanning the whole file."""
    hint = re.search(r"at row (\d+)", str(failure))
    header = _plain_header(body)
    if hint is None or header is None:
        return None
    first = first_line + header
    head = next(_data_lines(body[:65536], first_line), None)
    if head is None:
        return None
    expected = len(head[1]) if len(head[1]) in columns else None
    for row in (int(hint.group(1)) - 1, int(hint.group(1))):   # 1- or 0-based, by message
        if row < 0:
            continue
        line = first + row
        tokens = _line_text(body, first_line, line).split()
        if not tokens:                  # a blank line the quick layout check missed
            return None
        fault = _check_line(tokens, line, expected, head[0], columns, layout)
        if fault is not None:
            return line, fault
    return None


def _find_syntax_fault(body: bytes, first_line: int, columns: tuple[int, ...],
                       layout: str) -> tuple[int, str] | None:
    expected, first = None, 0
    for number, tokens in _data_lines(body, first_line):
        fault = _check_line(tokens, number, expected, first, columns, layout)
        if fault is not None:
            return number, fault
        if expected is None:
            expected, first = len(tokens), number
    return None


def _parse_table(path: Path, body: bytes, first_line: int, columns: tuple[int, ...],
                 layout: str) -> tuple[np.ndarray, bool]:
    """Parse whitespace-separated numbers: (rows x cols array, True if all were integers)."""
    text = body.replace(b"%", b"#") if b"%" in body else body
    for dtype in (np.int64, np.float64):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)   # "input contained no data"
                table = np.loadtxt(io.BytesIO(text), dtype=dtype, comments="#", ndmin=2,
                                   encoding="latin-1")
            break
        except ValueError as exc:
            failure = exc
    else:
        found = (_hinted_fault(body, first_line, columns, layout, failure)
                 or _find_syntax_fault(body, first_line, columns, layout))
        if found is None:
            raise GraphFormatError(path, None, f"cannot parse: {failure}")
        raise GraphFormatError(path, *found)
    if table.shape[0] and table.shape[1] not in columns:
        found = _find_syntax_fault(body, first_line, columns, layout)
        raise GraphFormatError(path, *(found or (None, f"expected {layout}")))
    return table, dtype is np.int64


def _bad_rows(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


def _check_ids(path: Path, locate: Callable[[int], int], values: np.ndarray, what: str,
               base: int, limit: int | None) -> np.ndarray:
    """Vertex ids (uint32, 0-based) from a column, faults reported on their line."""
    problems = [((values < base) | (values != np.floor(values)) | (values > MAX_UINT32 + base),
                 lambda v: f"{what} {_show(v)} is not a vertex id (an integer "
                           f"{base}..{MAX_UINT32 + base})")]
    if limit is not None:
        problems.append((values >= limit + base,
                         lambda v: f"{what} {_show(v)} is out of range {base}..{limit + base - 1}"))
    for mask, message in problems:
        row = _bad_rows(mask)
        if row is not None:
            raise GraphFormatError(path, locate(row), message(values[row]))
    return (values - base).astype(np.uint32)


def _check_weights(path: Path, locate: Callable[[int], int], values: np.ndarray,
                   integer: bool) -> np.ndarray:
    if integer:
        checks = [(values < 0, "is negative"), (values > MAX_UINT32, "does not fit in 32 bits")]
    else:
        with np.errstate(over="ignore"):
            as32 = values.astype(np.float32)
        checks = [(np.isnan(values), "is not a number"), (values < 0, "is negative"),
                  (np.isinf(as32), "is not a finite float32")]
    for mask, fault in checks:
        row = _bad_rows(mask)
        if row is not None:
            raise GraphFormatError(path, locate(row), f"weight {_show(values[row])} {fault}")
    return values.astype(np.uint32) if integer else as32


def _show(value: float | int) -> str:
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return str(int(value))
    return str(value)


# -- edge lists -----------------------------------------------------------------------

_NODES = re.compile(rb"\bnodes\s*:\s*(\d+)", re.IGNORECASE)
_SYMMETRIC = re.compile(rb"^\s*[#%]+\s*symmetric\b", re.IGNORECASE)
_WEIGHTS = re.compile(rb"^\s*[#%]+\s*weights\s*:\s*(uint32|float32)\b", re.IGNORECASE)
_EDGE_LAYOUT = "2 or 3 values (src dst [weight])"


def _header_directives(path: Path, data: bytes) -> tuple[int | None, bool, str | None]:
    """'# Nodes: N', '# Symmetric' and '# Weights: T' in the comments before the first edge."""
    nodes, symmetric, weights = None, False, None
    head = data[:1 << 16].split(b"\n")
    for number, line in enumerate(head if len(data) <= 1 << 16 else head[:-1], 1):
        stripped = line.strip()
        if stripped and stripped[:1] not in (b"#", b"%"):
            break
        match = _NODES.search(stripped)
        if match:
            nodes = int(match.group(1))
            if not 1 <= nodes <= 2**32:
                raise GraphFormatError(path, number, f"'Nodes: {nodes}' must be 1..{2**32}")
        symmetric |= bool(_SYMMETRIC.match(stripped))
        match = _WEIGHTS.match(stripped)
        if match:
            weights = match.group(1).decode().lower()
    return nodes, symmetric, weights


def _read_edge_list(path: Path, data: bytes) -> Graph:
    nodes, symmetric, weights = _header_directives(path, data)
    table, integer = _parse_table(path, data, 1, (2, 3), _EDGE_LAYOUT)
    if table.shape[0] == 0:
        if nodes is None:
            raise GraphFormatError(path, None, "no edges, and no '# Nodes: N' header saying "
                                   "how many vertices")
        empty = None if weights is None else np.zeros(0, dtype=weights)
        return Graph.from_edges(nodes, [], [], empty, symmetric=symmetric, name=path.stem)
    def locate(row: int) -> int:
        return _line_of_row(data, 1, row, table[row])

    src = _check_ids(path, locate, table[:, 0], "source", 0, nodes)
    dst = _check_ids(path, locate, table[:, 1], "destination", 0, nodes)
    if nodes is None:
        nodes = int(max(src.max(), dst.max())) + 1
    weight = None
    if table.shape[1] == 3:
        weight = _check_weights(path, locate, table[:, 2], integer)
    graph = Graph.from_edges(nodes, src, dst, weight, symmetric=symmetric, name=path.stem)
    return _check_declared_symmetric(path, graph, "the '# Symmetric' header") \
        if symmetric else graph


# -- Matrix Market --------------------------------------------------------------------

_MM_FIELDS = {"pattern": 2, "integer": 3, "real": 3, "double": 3}


def _read_mtx(path: Path, data: bytes) -> Graph:
    first_end = data.find(b"\n")
    first_end = len(data) if first_end < 0 else first_end
    banner = data[:first_end].decode("latin-1").split()
    if not banner or banner[0].lower() != "%%matrixmarket":
        raise GraphFormatError(path, 1, "missing the '%%MatrixMarket' banner")
    if len(banner) != 5:
        raise GraphFormatError(path, 1, "banner must read '%%MatrixMarket matrix coordinate "
                               "<field> <symmetry>'")
    obj, fmt, fld, sym = (word.lower() for word in banner[1:])
    if obj != "matrix":
        raise GraphFormatError(path, 1, f"object {obj!r} is not supported (only 'matrix')")
    if fmt != "coordinate":
        raise GraphFormatError(path, 1, f"format {fmt!r} is not supported (only 'coordinate')")
    if fld not in _MM_FIELDS:
        raise GraphFormatError(path, 1, f"field {fld!r} is not supported "
                               "(pattern, integer or real)")
    if sym not in ("general", "symmetric"):
        raise GraphFormatError(path, 1, f"symmetry {sym!r} is not supported "
                               "(general or symmetric)")
    # size line: the first line that is neither blank nor a comment
    offset, number = first_end + 1, 2
    while True:
        if offset >= len(data):
            raise GraphFormatError(path, number - 1, "missing the size line 'rows cols entries'")
        end = data.find(b"\n", offset)
        end = len(data) if end < 0 else end
        line = data[offset:end]
        offset = end + 1
        if line.strip() and not line.lstrip().startswith(b"%"):
            break
        number += 1
    size = line.split()
    if len(size) != 3 or not all(token.isdigit() for token in size):
        raise GraphFormatError(path, number, "size line must be three non-negative integers "
                               f"'rows cols entries', got {line.decode('latin-1').strip()!r}")
    rows, cols, entries = (int(token) for token in size)
    if rows < 1 or cols < 1:
        raise GraphFormatError(path, number, f"a {rows} x {cols} matrix has no vertices")
    if max(rows, cols) > 2**32:
        raise GraphFormatError(path, number, f"a {rows} x {cols} matrix does not fit "
                               "32-bit vertex ids")
    if sym == "symmetric" and rows != cols:
        raise GraphFormatError(path, number, f"a symmetric matrix must be square, "
                               f"got {rows} x {cols}")
    body, first = data[offset:], number + 1
    width = _MM_FIELDS[fld]
    layout = f"{width} values ({'row col' if width == 2 else 'row col value'})"
    table, integer = _parse_table(path, body, first, (width,), layout)
    if table.shape[0] != entries:
        if table.shape[0] < entries:
            last = first + max(0, body.count(b"\n") - (1 if body.endswith(b"\n") else 0))
            raise GraphFormatError(path, last, f"the size line promises {entries} entries "
                                   f"but the file ends after {table.shape[0]}")
        raise GraphFormatError(path, _line_of_row(body, first, entries, table[entries]),
                               f"more entries than the {entries} the size line promises")
    if entries == 0:
        empty = {"pattern": None, "integer": np.zeros(0, np.uint32)}.get(
            fld, np.zeros(0, np.float32))
        return Graph.from_edges(max(rows, cols), [], [], weight=empty,
                                symmetric=sym == "symmetric", name=path.stem)
    def locate(row: int) -> int:
        return _line_of_row(body, first, row, table[row])

    if fld == "integer" and not integer:
        bad = table[:, 2] != np.floor(table[:, 2])
        row = _bad_rows(bad | np.isnan(table[:, 2]))
        if row is not None:
            raise GraphFormatError(path, locate(row),
                                   f"value {_show(table[row, 2])} is not an integer "
                                   "(field 'integer')")
        integer = True
    src = _check_ids(path, locate, table[:, 0], "row", 1, rows)
    dst = _check_ids(path, locate, table[:, 1], "column", 1, cols)
    weight = None
    if width == 3:
        weight = _check_weights(path, locate, table[:, 2], fld == "integer")
    if sym == "symmetric":
        off = src != dst
        src, dst = np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]])
        if weight is not None:
            weight = np.concatenate([weight, weight[off]])
    return Graph.from_edges(max(rows, cols), src, dst, weight, symmetric=sym == "symmetric",
                            name=path.stem)


# ============================================================================ writing

def write_graph(graph: Graph, path: PathLike) -> None:
    """Write ``graph`` in the format the suffix of ``path`` names, atomically."""
    if not isinstance(graph, Graph):
        raise GraphError(f"write_graph needs a Graph, got {type(graph).__name__}")
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".npz":
        _atomic_write(path, lambda handle: _write_npz(graph, handle))
    elif suffix == ".mtx":
        _atomic_write(path, lambda handle: handle.write(_mtx_bytes(graph)))
    else:
        _atomic_write(path, lambda handle: handle.write(_edge_list_bytes(graph)))


def _atomic_write(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    try:
        handle, temp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise GraphError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, path)
    except BaseException as exc:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise GraphError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise


def _write_npz(graph: Graph, handle: IO[bytes]) -> None:
    arrays = {"num_vertices": np.int64(graph.num_vertices), "src": graph.src, "dst": graph.dst,
              "symmetric": np.bool_(graph.symmetric), "name": np.str_(graph.name)}
    if graph.weight is not None:
        arrays["weight"] = graph.weight
    np.savez(handle, **arrays)


# -- text formatting with array operations --------------------------------------------

def _format_uints(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Decimal digits of non-negative integers: (right-aligned bytes, lengths, False)."""
    x = values.astype(np.uint64)
    if x.size == 0 or int(x.max()) <= MAX_UINT32:     # 32-bit arithmetic is much faster
        x, kind, widest = x.astype(np.uint32), np.uint32, 10
    else:
        kind, widest = np.uint64, 20
    lengths = np.ones(x.size, dtype=np.int16)
    for k in range(1, widest):
        lengths += x >= kind(10**k)
    width = int(lengths.max()) if x.size else 1
    digits = np.empty((x.size, width), dtype=np.uint8)
    ten = kind(10)
    for column in range(width - 1, -1, -1):
        quotient = x // ten
        digits[:, column] = (x - quotient * ten).astype(np.uint8) + ord("0")
        x = quotient
    return digits, lengths, False


def _format_floats(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Shortest round-trip text of float32 values, always with a '.' or exponent."""
    ordered = np.sort(values)
    keep = np.ones(ordered.size, dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    unique = ordered[keep]
    texts = [str(np.float32(v)) for v in unique]
    table = np.array([t.encode("ascii") for t in texts] or [b"0"])
    lengths = np.char.str_len(table).astype(np.int16)
    width = table.dtype.itemsize
    matrix = table.view(np.uint8).reshape(-1, width)
    index = np.searchsorted(unique, values)
    return matrix[index], lengths[index], True


def _lines(columns: list[tuple[np.ndarray, np.ndarray, bool]]) -> bytes:
    """Join columns (bytes, lengths, left-aligned) with spaces into newline-ended lines."""
    rows = columns[0][0].shape[0]
    if rows == 0:
        return b""
    width = sum(matrix.shape[1] + 1 for matrix, _, _ in columns)
    text = np.empty((rows, width), dtype=np.uint8)
    keep = np.empty((rows, width), dtype=bool)
    at = 0
    for i, (matrix, lengths, left) in enumerate(columns):
        w = matrix.shape[1]
        text[:, at:at + w] = matrix
        position = np.arange(w, dtype=np.int16)
        if left:
            np.less(position[None, :], lengths[:, None], out=keep[:, at:at + w])
        else:
            np.greater_equal(position[None, :], (w - lengths)[:, None], out=keep[:, at:at + w])
        text[:, at + w] = ord("\n") if i == len(columns) - 1 else ord(" ")
        keep[:, at + w] = True
        at += w + 1
    return text[keep].tobytes()


def _columns(src: np.ndarray, dst: np.ndarray, weight: np.ndarray | None, base: int) -> bytes:
    cols = [_format_uints(src.astype(np.uint64) + np.uint64(base)),
            _format_uints(dst.astype(np.uint64) + np.uint64(base))]
    if weight is not None:
        cols.append(_format_floats(weight) if weight.dtype == np.float32
                    else _format_uints(weight))
    return _lines(cols)


def _edge_list_bytes(graph: Graph) -> bytes:
    layout = "src dst weight" if graph.weight is not None else "src dst"
    header = [f"# graphgen edge list {graph.name}".rstrip(),
              f"# {layout} per line, 0-based vertex ids, sorted by (src, dst)",
              f"# Nodes: {graph.num_vertices} Edges: {graph.num_edges}"]
    if graph.weight is not None:
        header.append(f"# Weights: {graph.weight.dtype}")
    if graph.symmetric:
        header.append("# Symmetric: every edge is listed in both directions")
    text = "\n".join(header) + "\n"
    return text.encode() + _columns(graph.src, graph.dst, graph.weight, 0)


def _mirror_in_order(graph: Graph) -> bool:
    """True when the edges (with weights) equal their own transpose edge for edge, so that
    the lower triangle read back in both directions is the same graph, weights in order."""
    perm = sort_permutation(graph.dst, graph.src, graph.num_vertices)
    order = slice(None) if perm is None else perm
    if not (np.array_equal(graph.dst[order], graph.src)
            and np.array_equal(graph.src[order], graph.dst)):
        return False
    return graph.weight is None or np.array_equal(graph.weight[order], graph.weight)


def _mtx_bytes(graph: Graph) -> bytes:
    field = ("pattern" if graph.weight is None
             else "real" if graph.weight.dtype == np.float32 else "integer")
    symmetric = graph.symmetric and _mirror_in_order(graph)
    src, dst, weight = graph.src, graph.dst, graph.weight
    if symmetric:
        lower = src >= dst
        src, dst = src[lower], dst[lower]
        weight = None if weight is None else weight[lower]
    header = (f"%%MatrixMarket matrix coordinate {field} "
              f"{'symmetric' if symmetric else 'general'}\n"
              f"% graphgen graph {graph.name}".rstrip() + "\n"
              f"{graph.num_vertices} {graph.num_vertices} {src.size}\n")
    return header.encode() + _columns(src, dst, weight, 1)
