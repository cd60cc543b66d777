"""The graph container the golden models and the RTL harness share.

Graphicionado (Ham et al., MICRO 2016, section 3.1) takes its input graph as a COO edge
list sorted by source id and then destination id, so that the edge id (eid) of an edge is its
position in that list, plus an *EdgeIDTable* holding the first eid of every vertex.
:class:`Graph` keeps exactly that form: ``src``/``dst`` (uint32) sorted by ``(src, dst)``,
an optional weight per edge (uint32 or float32), and derives the CSR ``offsets`` and the
``edge_id_table`` (the same numbers as uint32, with the sentinel ``num_edges`` at the end).

Duplicate edges and self loops are kept as given; :meth:`Graph.without_duplicates` and
:meth:`Graph.symmetrized` remove duplicates on request.  The arrays are read-only so a
graph can be shared freely and its derived arrays cached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np

__all__ = ["GraphError", "Graph", "MAX_UINT32"]

MAX_UINT32 = 2**32 - 1


class GraphError(ValueError):
    """A graph (or a request about one) that the golden models cannot accept."""


# ---------------------------------------------------------------------------- helpers

def _as_count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise GraphError(f"{what} must be an integer, got {value!r}")
    return int(value)


def _as_id_array(values: Any, what: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise GraphError(f"{what} must be a 1-D array of vertex ids, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise GraphError(f"{what} must hold integer vertex ids, got dtype {arr.dtype}")
    return arr


def _check_ids(arr: np.ndarray, n: int, what: str) -> None:
    if arr.size == 0:
        return
    low, high = arr.min(), arr.max()
    if low < 0 or high >= n:
        bad = int(np.flatnonzero((arr < 0) | (arr >= n))[0])
        raise GraphError(f"edge {bad}: {what} vertex {int(arr[bad])} is out of range "
                         f"0..{n - 1} (num_vertices is {n})")


def _as_weight_array(values: Any, num_edges: int) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size != num_edges:
        raise GraphError(f"weight must be a 1-D array with one entry per edge ({num_edges}), "
                         f"got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.uint32 if arr.dtype.kind in "iu" else np.float32)
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iuf":
        raise GraphError(f"weight must be integer or floating point, got dtype {arr.dtype}")
    if arr.dtype.kind in "iu":
        bad = np.flatnonzero((arr < 0) | (arr > MAX_UINT32))
        if bad.size:
            i = int(bad[0])
            fault = "is negative" if arr[i] < 0 else "does not fit in 32 bits"
            raise GraphError(f"edge {i}: weight {int(arr[i])} {fault}")
        return arr.astype(np.uint32)
    nan = np.isnan(arr)
    if nan.any():
        raise GraphError(f"edge {int(np.flatnonzero(nan)[0])}: weight is NaN")
    neg = arr < 0
    if neg.any():
        i = int(np.flatnonzero(neg)[0])
        raise GraphError(f"edge {i}: weight {float(arr[i])!r} is negative")
    with np.errstate(over="ignore"):
        out = arr.astype(np.float32) + np.float32(0.0)      # also turns -0.0 into +0.0
    inf = np.isinf(out)
    if inf.any():
        i = int(np.flatnonzero(inf)[0])
        raise GraphError(f"edge {i}: weight {float(arr[i])!r} is not a finite float32")
    return out


def _edge_keys(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    return (src.astype(np.uint64) << np.uint64(32)) | dst.astype(np.uint64)


def _is_sorted(keys: np.ndarray) -> bool:
    return keys.size < 2 or bool(np.all(keys[1:] >= keys[:-1]))


def sort_permutation(src: np.ndarray, dst: np.ndarray, num_vertices: int) -> np.ndarray | None:
    """Stable permutation ordering edges by (src, dst), or None when already in order.

    Uses one SIMD sort of a packed (src, dst, position) key when the three fit in 64 bits,
    which is about ten times faster than a stable argsort of the same data.
    """
    keys = _edge_keys(src, dst)
    if _is_sorted(keys):
        return None
    m = keys.size
    id_bits = max(1, (num_vertices - 1).bit_length())
    pos_bits = max(1, (m - 1).bit_length())
    if 2 * id_bits + pos_bits <= 64:
        packed = ((src.astype(np.uint64) << np.uint64(id_bits + pos_bits))
                  | (dst.astype(np.uint64) << np.uint64(pos_bits))
                  | np.arange(m, dtype=np.uint64))
        packed.sort()
        return (packed & np.uint64((1 << pos_bits) - 1)).astype(np.intp)
    return np.argsort(keys, kind="stable")


def group_starts(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Positions where a new (src, dst) pair begins in a sorted edge list."""
    if src.size == 0:
        return np.zeros(0, dtype=np.intp)
    new = np.empty(src.size, dtype=bool)
    new[0] = True
    np.not_equal(src[1:], src[:-1], out=new[1:])
    new[1:] |= dst[1:] != dst[:-1]
    return np.flatnonzero(new)


def _readonly(arr: np.ndarray | None) -> np.ndarray | None:
    if arr is not None:
        arr.setflags(write=False)
    return arr


# ---------------------------------------------------------------------------- the graph

@dataclass(frozen=True, eq=False)
class Graph:
    """A directed multigraph in Graphicionado's sorted-COO form (section 3.1).

    ``src[e]``, ``dst[e]`` and ``weight[e]`` describe edge ``e``; edges are sorted by
    ``(src, dst)`` so ``e`` is Graphicionado's edge id.  ``weight`` is None for an
    unweighted graph.  ``symmetric`` records that every edge is present in both
    directions (an undirected graph).  ``name`` is metadata and is ignored by ``==``.
    Build graphs with :meth:`from_edges`; the constructor checks but does not sort.
    """

    num_vertices: int
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray | None = None
    symmetric: bool = False
    name: str = ""
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = _as_count(self.num_vertices, "num_vertices")
        src, dst, weight = _validated(n, self.src, self.dst, self.weight)
        if not _is_sorted(_edge_keys(src, dst)):
            raise GraphError("edges are not sorted by (src, dst); build the graph with "
                             "Graph.from_edges, which sorts them")
        src, dst = _owned(src, self.src), _owned(dst, self.dst)
        weight = None if weight is None else _owned(weight, self.weight)
        _set_fields(self, n, src, dst, weight, bool(self.symmetric), str(self.name))

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_edges(cls, num_vertices: int, src: Any, dst: Any, weight: Any = None,
                   symmetric: bool = False, name: str = "") -> Graph:
        """Validate an edge list and sort it stably by (src, dst) into a Graph.

        Errors name the first bad edge by its index in the arrays given here.
        """
        n = _as_count(num_vertices, "num_vertices")
        original = (src, dst, weight)
        src, dst, weight = _validated(n, src, dst, weight)
        perm = sort_permutation(src, dst, n)
        if perm is not None:
            src, dst = src[perm], dst[perm]
            weight = None if weight is None else weight[perm]
        else:
            src, dst = _owned(src, original[0]), _owned(dst, original[1])
            weight = None if weight is None else _owned(weight, original[2])
        return cls._trusted(n, src, dst, weight, symmetric, name)

    @classmethod
    def _trusted(cls, n: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray | None,
                 symmetric: bool, name: str) -> Graph:
        """Wrap arrays already validated, typed, owned and sorted (no checks, no copies)."""
        graph = object.__new__(cls)
        object.__setattr__(graph, "_cache", {})
        _set_fields(graph, n, src, dst, weight, bool(symmetric), str(name))
        return graph

    # -- derived arrays -----------------------------------------------------------------

    def _cached(self, key: str, build) -> Any:
        cache = self._cache
        if key not in cache:
            cache[key] = _readonly(build())
        return cache[key]

    @property
    def num_edges(self) -> int:
        return int(self.src.size)

    @property
    def offsets(self) -> np.ndarray:
        """CSR row pointers (int64, length n+1): the edges of v are offsets[v]:offsets[v+1]."""
        def build() -> np.ndarray:
            out = np.zeros(self.num_vertices + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.src, minlength=self.num_vertices), out=out[1:])
            return out
        return self._cached("offsets", build)

    @property
    def edge_id_table(self) -> np.ndarray:
        """Graphicionado's EdgeIDTable: first edge id of each vertex, then num_edges (uint32)."""
        if self.num_edges > MAX_UINT32:
            raise GraphError(f"{self.num_edges} edges do not fit 32-bit edge ids")
        return self._cached("edge_id_table", lambda: self.offsets.astype(np.uint32))

    @property
    def out_degree(self) -> np.ndarray:
        return self._cached("out_degree", lambda: np.diff(self.offsets))

    @property
    def in_degree(self) -> np.ndarray:
        return self._cached("in_degree", lambda: np.bincount(
            self.dst, minlength=self.num_vertices).astype(np.int64))

    @property
    def is_weighted(self) -> bool:
        return self.weight is not None

    # -- checks -------------------------------------------------------------------------

    def validate_for_hardware(self, id_width: int, weight_width: int = 32) -> None:
        """Raise GraphError unless every vertex id, edge id and weight fits the design."""
        id_width = _as_count(id_width, "id_width")
        weight_width = _as_count(weight_width, "weight_width")
        if id_width < 1 or weight_width < 1:
            raise GraphError("id_width and weight_width must be at least 1")
        top = self.num_vertices - 1
        need = max(1, top.bit_length())
        if need > id_width:
            raise GraphError(f"vertex id {top} needs {need} bits but the design holds {id_width}")
        if self.num_edges > MAX_UINT32:
            raise GraphError(f"{self.num_edges} edges do not fit 32-bit edge ids")
        if self.weight is None or self.num_edges == 0:
            return
        if self.weight.dtype == np.float32:
            if weight_width != 32:
                raise GraphError(f"float32 weights need a 32-bit weight field but the design "
                                 f"holds {weight_width}")
            return
        heaviest = int(self.weight.max())
        need = max(1, heaviest.bit_length())
        if need > weight_width:
            edge = int(np.argmax(self.weight))
            raise GraphError(f"weight {heaviest} (edge {edge}) needs {need} bits but the design "
                             f"holds {weight_width}")

    def require_nonnegative_integer_weights(self) -> np.ndarray:
        """The weights as uint32 (all ones when unweighted), as SSSP needs them."""
        if self.weight is None:
            return np.ones(self.num_edges, dtype=np.uint32)
        if self.weight.dtype == np.uint32:
            return self.weight
        w = self.weight.astype(np.float64)
        bad = (w < 0) | (w != np.floor(w)) | (w > MAX_UINT32)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            value = float(w[i])
            fault = ("is negative" if value < 0 else "is not an integer" if value != int(value)
                     else "does not fit in 32 bits")
            raise GraphError(f"edge {i}: weight {value!r} {fault}; SSSP needs non-negative "
                             f"integer weights below 2**32")
        return w.astype(np.uint32)

    # -- transformations ----------------------------------------------------------------

    def without_duplicates(self) -> Graph:
        """Drop repeated (src, dst) edges, keeping the first (lowest edge id) of each."""
        keep = group_starts(self.src, self.dst)
        if keep.size == self.num_edges:
            return self
        weight = None if self.weight is None else self.weight[keep]
        return Graph._trusted(self.num_vertices, self.src[keep], self.dst[keep], weight,
                              self.symmetric, self.name)

    def symmetrized(self) -> Graph:
        """Every edge in both directions, duplicates removed, flagged symmetric.

        Where several edges join the same ordered pair the smallest weight is kept, which
        makes the weight of (u, v) equal that of (v, u).
        """
        if "symmetrized" in self._cache:
            return self._cache["symmetrized"]
        src = np.concatenate([self.src, self.dst])
        dst = np.concatenate([self.dst, self.src])
        w = None if self.weight is None else np.concatenate([self.weight, self.weight])
        id_bits = max(1, (self.num_vertices - 1).bit_length())
        low_bits = 0
        if w is not None and w.size:
            low_bits = 32 if w.dtype == np.float32 else max(1, int(w.max()).bit_length())
        if 2 * id_bits + low_bits <= 64:
            # one sort of (src, dst, weight) packed in 64 bits: the first of each group is
            # the distinct edge with its smallest weight (non-negative float32 bit
            # patterns order like their values)
            shift = np.uint64(id_bits + low_bits)
            packed = (src.astype(np.uint64) << shift) | (
                dst.astype(np.uint64) << np.uint64(low_bits))
            if w is not None:
                packed |= w.view(np.uint32).astype(np.uint64)
            packed.sort()
            src = (packed >> shift).astype(np.uint32)
            dst = ((packed >> np.uint64(low_bits)) & np.uint64((1 << id_bits) - 1)
                   ).astype(np.uint32)
            starts = group_starts(src, dst)
            weight = None
            if w is not None:
                low = (packed[starts] & np.uint64((1 << low_bits) - 1)).astype(np.uint32)
                weight = low.view(w.dtype)
        else:
            perm = sort_permutation(src, dst, self.num_vertices)
            if perm is not None:
                src, dst = src[perm], dst[perm]
                w = None if w is None else w[perm]
            starts = group_starts(src, dst)
            weight = None if w is None else (np.minimum.reduceat(w, starts) if w.size else w)
        out = Graph._trusted(self.num_vertices, src[starts], dst[starts], weight, True,
                             self.name)
        out._cache["symmetrized"] = out
        self._cache["symmetrized"] = out
        return out

    def mirror_symmetric(self) -> bool:
        """Whether the edges mirror themselves: the multiset of ``(src, dst, weight)`` equals
        that of ``(dst, src, weight)`` (every edge listed in both directions, as often, with
        the same weights), which is what ``symmetric`` promises. Array operations only."""
        if "mirror_symmetric" in self._cache:
            return self._cache["mirror_symmetric"]
        self._cache["mirror_symmetric"] = answer = self._mirrors()
        return answer

    def _mirrors(self) -> bool:
        if not np.array_equal(self.out_degree, self.in_degree):      # a cheap first refusal
            return False
        perm = sort_permutation(self.dst, self.src, self.num_vertices)
        order = slice(None) if perm is None else perm
        if not (np.array_equal(self.dst[order], self.src)
                and np.array_equal(self.src[order], self.dst)):
            return False
        if self.weight is None:
            return True
        mine, mirrored = self.weight, self.weight[order]
        if np.array_equal(mine, mirrored):
            return True
        # repeated (src, dst) pairs: compare the weights of each pair as sorted multisets
        starts = group_starts(self.src, self.dst)
        group = np.repeat(np.arange(starts.size), np.diff(np.append(starts, self.num_edges)))
        return bool(np.array_equal(mine[np.lexsort((mine, group))],
                                   mirrored[np.lexsort((mirrored, group))]))

    def unmirrored_edge(self) -> int | None:
        """The id of an edge (u, v) with no edge (v, u) at all, or None (then any asymmetry
        is in how often a pair is listed, or in its weights)."""
        keys = _edge_keys(self.src, self.dst)
        missing = ~np.isin(keys, _edge_keys(self.dst, self.src))
        return int(np.flatnonzero(missing)[0]) if missing.any() else None

    def flagged(self, symmetric: bool) -> Graph:
        """This graph with ``symmetric`` set as given (the same arrays, no checks)."""
        if bool(symmetric) == self.symmetric:
            return self
        return Graph._trusted(self.num_vertices, self.src, self.dst, self.weight,
                              bool(symmetric), self.name)

    # -- comparison and display ---------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Graph):
            return NotImplemented
        if (self.num_vertices, self.symmetric) != (other.num_vertices, other.symmetric):
            return False
        if (self.weight is None) != (other.weight is None):
            return False
        if self.weight is not None and (self.weight.dtype != other.weight.dtype
                                        or not np.array_equal(self.weight, other.weight)):
            return False
        return np.array_equal(self.src, other.src) and np.array_equal(self.dst, other.dst)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        weight = "unweighted" if self.weight is None else f"{self.weight.dtype} weights"
        kind = "symmetric" if self.symmetric else "directed"
        name = f"{self.name!r}, " if self.name else ""
        return (f"Graph({name}{self.num_vertices} vertices, {self.num_edges} edges, "
                f"{weight}, {kind})")


def _validated(n: int, src: Any, dst: Any, weight: Any
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    if n < 1:
        raise GraphError(f"num_vertices must be at least 1, got {n}")
    if n > 2**32:
        raise GraphError(f"num_vertices {n} does not fit 32-bit vertex ids")
    src = _as_id_array(src, "src")
    dst = _as_id_array(dst, "dst")
    if src.size != dst.size:
        raise GraphError(f"src has {src.size} entries but dst has {dst.size}")
    _check_ids(src, n, "source")
    _check_ids(dst, n, "destination")
    w = None if weight is None else _as_weight_array(weight, src.size)
    return src.astype(np.uint32, copy=False), dst.astype(np.uint32, copy=False), w


def _owned(arr: np.ndarray, original: Any) -> np.ndarray:
    """``arr``, copied if it may share memory with the caller's ``original``."""
    if isinstance(original, np.ndarray) and np.may_share_memory(arr, original):
        return arr.copy()
    return arr


def _set_fields(graph: Graph, n: int, src: np.ndarray, dst: np.ndarray,
                weight: np.ndarray | None, symmetric: bool, name: str) -> None:
    for key, value in (("num_vertices", n), ("src", _readonly(src)), ("dst", _readonly(dst)),
                       ("weight", _readonly(weight)), ("symmetric", symmetric), ("name", name)):
        object.__setattr__(graph, key, value)
