"""Update streams for the dynamic graph: the text format, and a seeded generator.

One operation a line; ``#`` starts a comment; blank lines are skipped:

=============  ======================================================
``+ u v w``    insert edge (u, v) with weight w, or replace its weight
``- u v``      delete edge (u, v)
``? u v``      search edge (u, v): its weight, or absent
``+v u``       insert vertex u
``-v u``       delete vertex u, with its out- and in-edges
=============  ======================================================

Ids and weights are decimal integers below 2^32 (ids also below ``max_vertices``, checked
when the operations are applied, before any is).  A malformed line is refused with its line
number and nothing is applied.

A generator spec such as ``mix:ops=4096,insert=50,delete=25,search=25,hit=50,seed=1`` draws
operations against a graph: the percentages of the five kinds (``insert``, ``delete``,
``search``, ``vinsert``, ``vdelete``; they sum to 100), ``hit`` the percentage of edge
operations aimed at an edge of the initial graph (else both ends are drawn uniformly from its
vertices), weights uniform in ``weights=LO:HI`` (default 1:1000) and ``seed``.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..graph import Graph, GraphError
from .slab import MAX_VERTEX_ID

__all__ = ["OpKind", "UpdateError", "Updates", "read_updates", "parse_updates",
           "generate_updates", "load_updates", "write_updates"]


class OpKind(enum.IntEnum):
    """An operation's kind, as the update unit decodes it (3 bits)."""
    INSERT_EDGE = 0
    DELETE_EDGE = 1
    SEARCH_EDGE = 2
    INSERT_VERTEX = 3
    DELETE_VERTEX = 4


_TOKENS = {b"+": (OpKind.INSERT_EDGE, 3), b"-": (OpKind.DELETE_EDGE, 2),
           b"?": (OpKind.SEARCH_EDGE, 2), b"+v": (OpKind.INSERT_VERTEX, 1),
           b"-v": (OpKind.DELETE_VERTEX, 1)}
_NUMBER = re.compile(rb"^[0-9]+$")
EDGE_KINDS = (OpKind.INSERT_EDGE, OpKind.DELETE_EDGE, OpKind.SEARCH_EDGE)


class UpdateError(GraphError):
    """An update file or spec that cannot be understood, or an operation out of range."""


@dataclass(frozen=True)
class Updates:
    """Operations in order: ``kind`` (:class:`OpKind` values), ``u``, ``v``, ``w`` (uint32;
    unused fields 0) and ``line``, where each came from (file line, or index + 1)."""
    kind: np.ndarray
    u: np.ndarray
    v: np.ndarray
    w: np.ndarray
    line: np.ndarray
    source: str = "updates"

    def __len__(self) -> int:
        return int(self.kind.size)

    def batches(self, size: int | None) -> list[range]:
        """Index ranges of consecutive batches of ``size`` operations (all in one if None)."""
        if size is not None and size < 1:
            raise UpdateError(f"--batch must be at least 1, got {size}")
        count = len(self)
        step = count if size is None else size
        return [range(start, min(start + step, count)) for start in range(0, count, max(step, 1))]

    def check_ids(self, max_vertices: int) -> None:
        """Refuse, naming the first offending line, an id at or above ``max_vertices``."""
        edge = np.isin(self.kind, [int(k) for k in EDGE_KINDS])
        bad = (self.u >= max_vertices) | (edge & (self.v >= max_vertices))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            vertex = int(self.u[i]) if self.u[i] >= max_vertices else int(self.v[i])
            raise UpdateError(f"{self.source} line {int(self.line[i])}: vertex {vertex} is "
                              f"not below max_vertices ({max_vertices})")

    def slice(self, indices: range) -> Updates:
        part = slice(indices.start, indices.stop)
        return Updates(self.kind[part], self.u[part], self.v[part], self.w[part],
                       self.line[part], self.source)


def _updates(kind, u, v, w, line, source) -> Updates:
    return Updates(np.asarray(kind, dtype=np.uint8), np.asarray(u, dtype=np.uint32),
                   np.asarray(v, dtype=np.uint32), np.asarray(w, dtype=np.uint32),
                   np.asarray(line, dtype=np.int64), source)


def parse_updates(text: bytes, source: str = "updates") -> Updates:
    """Operations from the text format (see the module docstring)."""
    columns: list[list[int]] = [[], [], [], [], []]
    for number, raw in enumerate(text.splitlines(), start=1):
        tokens = raw.split(b"#", 1)[0].split()
        if not tokens:
            continue
        where = f"{source} line {number}"
        if tokens[0] not in _TOKENS:
            raise UpdateError(f"{where}: unknown operation {tokens[0].decode(errors='replace')!r} "
                              f"(expected +, -, ?, +v or -v)")
        kind, arity = _TOKENS[tokens[0]]
        values = tokens[1:]
        if len(values) != arity:
            raise UpdateError(f"{where}: {tokens[0].decode()} takes {arity} value"
                              f"{'s' if arity > 1 else ''}, got {len(values)}")
        numbers = []
        for token in values:
            if not _NUMBER.match(token):
                raise UpdateError(f"{where}: {token.decode(errors='replace')!r} is not a "
                                  f"non-negative integer")
            numbers.append(int(token))
        for index, value in enumerate(numbers):
            is_weight = kind == OpKind.INSERT_EDGE and index == 2
            if value > (0xFFFF_FFFF if is_weight else MAX_VERTEX_ID):
                raise UpdateError(f"{where}: {'weight' if is_weight else 'vertex'} {value} "
                                  f"does not fit")
        numbers += [0] * (3 - len(numbers))
        for column, value in zip(columns, (int(kind), *numbers, number)):
            column.append(value)
    return _updates(*columns, source)


def read_updates(path: str | Path) -> Updates:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UpdateError(f"cannot read {path}: {error.strerror or error}") from None
    return parse_updates(data, str(path))


def write_updates(updates: Updates, path: str | Path) -> None:
    """The operations in the text format (the generator's draws, reproducible by hand)."""
    lines = []
    for kind, u, v, w in zip(updates.kind, updates.u, updates.v, updates.w):
        kind = OpKind(int(kind))
        if kind == OpKind.INSERT_EDGE:
            lines.append(f"+ {u} {v} {w}")
        elif kind in EDGE_KINDS:
            lines.append(f"{'-' if kind == OpKind.DELETE_EDGE else '?'} {u} {v}")
        else:
            lines.append(f"{'+v' if kind == OpKind.INSERT_VERTEX else '-v'} {u}")
    Path(path).write_text("".join(line + "\n" for line in lines))


_KIND_KEYS = ("insert", "delete", "search", "vinsert", "vdelete")


def _spec_int(name: str, text: str, low: int, high: int) -> int:
    if not re.fullmatch(r"[0-9]+", text.strip()):
        raise UpdateError(f"mix: {name} must be an integer, got {text!r}")
    value = int(text)
    if not low <= value <= high:
        raise UpdateError(f"mix: {name} must be in {low}..{high}, got {value}")
    return value


def generate_updates(spec: str, graph: Graph, max_vertices: int) -> Updates:
    """Operations drawn as a ``mix:...`` spec says (see the module docstring)."""
    name, _, body = spec.partition(":")
    if name.strip() != "mix":
        raise UpdateError(f"no such update file or generator spec: {spec!r} "
                          f"(generator: mix:ops=N,insert=P,delete=P,search=P,...)")
    settings = {"ops": 1024, "insert": 0, "delete": 0, "search": 0, "vinsert": 0,
                "vdelete": 0, "hit": 50, "seed": 1}
    weights = (1, 1000)
    for item in filter(None, (part.strip() for part in body.split(","))):
        key, sep, text = (part.strip() for part in item.partition("="))
        if key == "weights" and sep:
            low, colon, high = text.partition(":")
            if not colon:
                raise UpdateError(f"mix: weights must be LO:HI, got {text!r}")
            weights = (_spec_int("weights", low, 0, 0xFFFF_FFFF),
                       _spec_int("weights", high, 0, 0xFFFF_FFFF))
            if weights[0] > weights[1]:
                raise UpdateError(f"mix: weights {text} is an empty range")
        elif key in settings and sep:
            high = {"ops": 1 << 26, "seed": 2**32 - 1}.get(key, 100)
            settings[key] = _spec_int(key, text, 1 if key == "ops" else 0, high)
        else:
            raise UpdateError(f"mix: unknown key {item!r} (keys: {', '.join(settings)}, weights)")
    shares = [settings[key] for key in _KIND_KEYS]
    if not any(shares):
        settings["insert"] = shares[0] = 100
    if sum(shares) != 100:
        raise UpdateError(f"mix: the kinds' percentages sum to {sum(shares)}, not 100")
    n = graph.num_vertices
    if n == 0:
        raise UpdateError("mix: the graph has no vertices to draw operations on")
    rng = np.random.default_rng(settings["seed"])
    count = settings["ops"]
    kind = rng.choice(len(_KIND_KEYS), size=count, p=np.array(shares) / 100).astype(np.uint8)
    u = rng.integers(0, n, size=count, dtype=np.int64)
    v = rng.integers(0, n, size=count, dtype=np.int64)
    hit = rng.random(count) < settings["hit"] / 100
    if graph.num_edges:
        picks = rng.integers(0, graph.num_edges, size=count)
        u = np.where(hit, graph.src[picks], u)
        v = np.where(hit, graph.dst[picks], v)
    vertex_insert = kind == OpKind.INSERT_VERTEX
    u = np.where(vertex_insert, rng.integers(0, max_vertices, size=count), u)
    w = rng.integers(weights[0], weights[1] + 1, size=count, dtype=np.int64)
    edge = np.isin(kind, [int(k) for k in EDGE_KINDS])
    v = np.where(edge, v, 0)
    w = np.where(kind == OpKind.INSERT_EDGE, w, 0)
    return _updates(kind, u, v, w, np.arange(1, count + 1), f"generated {spec}")


def load_updates(file_or_spec: str, graph: Graph, max_vertices: int) -> Updates:
    """Operations from a file (when the path exists) or else from a ``mix:`` spec."""
    path = Path(file_or_spec)
    if path.exists():
        return read_updates(path)
    return generate_updates(file_or_spec, graph, max_vertices)
