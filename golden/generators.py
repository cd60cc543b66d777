"""Seeded synthetic graphs: the inputs of the papers' evaluations, built with array operations.

* :func:`kronecker` -- the Graph500 Kronecker generator (as in the Graph500 reference code,
  A, B, C = 0.57, 0.19, 0.19, vertex ids permuted), used by Enterprise and Graphicionado.
* :func:`rmat` -- R-MAT (Chakrabarti et al.; a, b, c = 0.45, 0.15, 0.15), ids not permuted.
* :func:`grid` -- Luo et al.'s degree-6 grids: a 4-neighbour grid plus random diagonals.
* :func:`scale_free` -- Luo et al.'s scale-free graphs: 0.1% hubs of degree ~1000, others ~6.
* :func:`hub_chain` -- hubs joined by chains, where DepGraph's hub index pays.
* :func:`road` -- road-like graphs: planar, of degree about 2.8, and deep (Delaunay thinned).
* :func:`networkx_graph` -- the small real graphs networkx ships (karate club, ...).
* :func:`uniform` -- exactly ``m`` distinct random edges (Erdos-Renyi G(n, m), directed).
* :func:`bipartite` -- a user/item rating graph for collaborative filtering (Graphicionado 2.2).

Every generator is deterministic for a seed (``np.random.default_rng(seed)``), drops self
loops and duplicate edges, and returns a :class:`~golden.graph.Graph`.  ``weights`` may be
``"none"`` (or None) or ``"uniform:LO:HI"`` for uint32 weights drawn uniformly from LO..HI
inclusive, from a random stream separate from the structure's (same seed, same edges).
Symmetric graphs get one weight per undirected edge, used in both directions.

:func:`from_spec` builds a graph from a string such as ``kron:scale=16,ef=16,seed=1`` and
:func:`load_graph` accepts either a file name or such a spec.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import numpy as np

from .graph import MAX_UINT32, Graph, GraphError, sort_permutation
from .io import read_graph

__all__ = ["SpecError", "kronecker", "rmat", "grid", "scale_free", "uniform", "bipartite",
           "hub_chain", "road", "networkx_graph", "NETWORKX_GRAPHS",
           "from_spec", "load_graph", "GENERATORS"]


class SpecError(GraphError):
    """A generator spec string that cannot be understood."""


# ---------------------------------------------------------------------------- helpers

def _int(value: Any, what: str, low: int = 0, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise GraphError(f"{what} must be an integer, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f"at least {low}"
        raise GraphError(f"{what} must be {bound}, got {value}")
    return value


# Past this many edges numpy cannot even describe the arrays ("array is too big"), let alone
# allocate them; smaller graphs too large for the machine fail with a MemoryError.
MAX_EDGES = 2**40


def _edge_count(count: int, what: str) -> int:
    if count > MAX_EDGES:
        raise GraphError(f"{what}: {count} edges, more than 2**40")
    return count


def _prob(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < float(value) < 1:
        raise GraphError(f"{what} must be a probability strictly between 0 and 1, got {value!r}")
    return float(value)


def _weight_spec(weights: str | None) -> tuple[int, int] | None:
    if weights is None or str(weights).strip().lower() in ("none", ""):
        return None
    match = re.fullmatch(r"\s*(?:uniform:)?(\d+):(\d+)\s*", str(weights))
    if not match:
        raise GraphError(f"weights must be 'none' or 'uniform:LO:HI', got {weights!r}")
    low, high = int(match.group(1)), int(match.group(2))
    if low > high or high > MAX_UINT32:
        raise GraphError(f"weights uniform:{low}:{high} needs LO <= HI <= {MAX_UINT32}")
    return low, high


def _draw_weights(bounds: tuple[int, int] | None, count: int, seed: int) -> np.ndarray | None:
    if bounds is None:
        return None
    rng = np.random.default_rng([seed, 0x77656967])          # a stream of its own
    return rng.integers(bounds[0], bounds[1], size=count, endpoint=True,
                        dtype=np.uint64).astype(np.uint32)


def _unique_sorted_keys(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Sorted distinct src<<32|dst keys of the edges that are not self loops."""
    keep = src != dst
    keys = (src[keep].astype(np.uint64) << np.uint64(32)) | dst[keep].astype(np.uint64)
    keys.sort()
    if keys.size > 1:
        distinct = np.empty(keys.size, dtype=bool)
        distinct[0] = True
        np.not_equal(keys[1:], keys[:-1], out=distinct[1:])
        keys = keys[distinct]
    return keys


def _directed(n: int, src: np.ndarray, dst: np.ndarray, weights: str | None, seed: int,
              name: str) -> Graph:
    keys = _unique_sorted_keys(src, dst)
    bounds = _weight_spec(weights)
    s = (keys >> np.uint64(32)).astype(np.uint32)
    d = (keys & np.uint64(MAX_UINT32)).astype(np.uint32)
    return Graph._trusted(n, s, d, _draw_weights(bounds, keys.size, seed), False, name)


def _undirected(n: int, u: np.ndarray, v: np.ndarray, weights: str | None, seed: int,
                name: str) -> Graph:
    """Both directions of each distinct undirected pair; one weight per pair."""
    low, high = np.minimum(u, v), np.maximum(u, v)
    keys = _unique_sorted_keys(low, high)
    a = (keys >> np.uint64(32)).astype(np.uint32)
    b = (keys & np.uint64(MAX_UINT32)).astype(np.uint32)
    w = _draw_weights(_weight_spec(weights), keys.size, seed)
    src, dst = np.concatenate([a, b]), np.concatenate([b, a])
    perm = sort_permutation(src, dst, n)
    if perm is not None:
        src, dst = src[perm], dst[perm]
    if w is not None:
        w = np.concatenate([w, w])
        w = w if perm is None else w[perm]
    return Graph._trusted(n, src, dst, w, True, name)


_BLOCK = 1 << 16          # edges per block: the working set of a block stays in cache


def _quadrant_bits(rng: np.random.Generator, scale: int, m: int, draws_per_bit: int,
                   bits: Callable[[np.ndarray, np.ndarray, np.ndarray], None]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Row and column ids of m edges chosen bit by bit (Kronecker / R-MAT recursion).

    For each block of edges and each bit (least significant first), ``draws_per_bit``
    float32 uniforms per edge are drawn and ``bits(draws, row_bit, col_bit)`` sets the
    two bits.  Working block by block keeps the arrays in cache (about twice as fast).
    """
    row = np.zeros(m, dtype=np.uint32)
    col = np.zeros(m, dtype=np.uint32)
    draws = np.empty(draws_per_bit * _BLOCK, dtype=np.float32)
    row_bit, col_bit = np.empty(_BLOCK, dtype=bool), np.empty(_BLOCK, dtype=bool)
    shifted = np.empty(_BLOCK, dtype=np.uint32)
    for start in range(0, m, _BLOCK):
        size = min(_BLOCK, m - start)
        d = draws[:draws_per_bit * size].reshape(draws_per_bit, size)
        rb, cb, sh = row_bit[:size], col_bit[:size], shifted[:size]
        r, c = row[start:start + size], col[start:start + size]
        for bit in range(scale):
            rng.random(out=d, dtype=np.float32)
            bits(d, rb, cb)
            weight = np.uint32(1 << bit)
            np.multiply(rb, weight, out=sh, dtype=np.uint32)
            r |= sh
            np.multiply(cb, weight, out=sh, dtype=np.uint32)
            c |= sh
    return row, col


# ---------------------------------------------------------------------------- generators

def kronecker(scale: int, edge_factor: int = 16, seed: int = 1, a: float = 0.57,
              b: float = 0.19, c: float = 0.19, weights: str | None = None) -> Graph:
    """Graph500 Kronecker graph of 2**scale vertices and about edge_factor * 2**scale edges.

    As the Graph500 reference generator: for each of the ``scale`` bits, two uniform draws
    (float32 here); the row bit is set when the first exceeds a + b, the column bit when
    the second exceeds c / (1 - (a + b)) if the row bit is set, else a / (a + b); finally
    the vertex ids go through a seeded random permutation.  Edges are kept directed
    (Graph500 reads them as undirected); self loops and duplicates are dropped, so the
    count is a little below edge_factor * 2**scale.
    """
    scale = _int(scale, "scale", 1, 31)
    edge_factor = _int(edge_factor, "edge_factor", 1)
    seed = _int(seed, "seed")
    a, b, c = _prob(a, "a"), _prob(b, "b"), _prob(c, "c")
    if a + b + c >= 1:
        raise GraphError(f"a + b + c must be below 1, got {a + b + c:g}")
    n, m = 1 << scale, _edge_count(edge_factor << scale, "edge_factor * 2**scale")
    rng = np.random.default_rng(seed)
    ab = np.float32(a + b)
    c_norm, a_norm = np.float32(c / (1 - (a + b))), np.float32(a / (a + b))

    def bits(draws: np.ndarray, row_bit: np.ndarray, col_bit: np.ndarray) -> None:
        np.greater(draws[0], ab, out=row_bit)
        np.greater(draws[1], a_norm, out=col_bit)
        np.copyto(col_bit, draws[1] > c_norm, where=row_bit)

    row, col = _quadrant_bits(rng, scale, m, 2, bits)
    perm = rng.permutation(n).astype(np.uint32)
    name = f"kron:scale={scale},ef={edge_factor},seed={seed}"
    return _directed(n, perm[row], perm[col], weights, seed, name)


def rmat(scale: int, edge_factor: int = 16, seed: int = 1, a: float = 0.45, b: float = 0.15,
         c: float = 0.15, weights: str | None = None) -> Graph:
    """R-MAT graph: per bit one draw picks a quadrant with probabilities a, b, c, 1-a-b-c.

    Quadrant a sets neither bit, b the column bit, c the row bit, d both.  Ids are not
    permuted, so the hubs sit at low vertex ids.  Self loops and duplicates are dropped.
    """
    scale = _int(scale, "scale", 1, 31)
    edge_factor = _int(edge_factor, "edge_factor", 1)
    seed = _int(seed, "seed")
    a, b, c = _prob(a, "a"), _prob(b, "b"), _prob(c, "c")
    if a + b + c >= 1:
        raise GraphError(f"a + b + c must be below 1, got {a + b + c:g}")
    n, m = 1 << scale, _edge_count(edge_factor << scale, "edge_factor * 2**scale")
    rng = np.random.default_rng(seed)
    qa, qab, qabc = np.float32(a), np.float32(a + b), np.float32(a + b + c)

    def bits(draws: np.ndarray, row_bit: np.ndarray, col_bit: np.ndarray) -> None:
        r = draws[0]
        np.greater_equal(r, qab, out=row_bit)
        np.logical_or((r >= qa) & ~row_bit, r >= qabc, out=col_bit)

    row, col = _quadrant_bits(rng, scale, m, 1, bits)
    name = f"rmat:scale={scale},ef={edge_factor},seed={seed}"
    return _directed(n, row, col, weights, seed, name)


def grid(rows: int, cols: int, seed: int = 1, weights: str | None = None) -> Graph:
    """A rows x cols 4-neighbour grid plus random diagonals; every degree is at most 6.

    Vertex (r, c) has id r * cols + c.  Each unit square in an even row of squares gets one
    diagonal, of a random orientation; a vertex touches squares of only one such row and
    at most two squares in it, so it gains at most two diagonals (Luo et al.'s degree-6
    grids).  Symmetric: every edge is present in both directions.
    """
    rows, cols = _int(rows, "rows", 1), _int(cols, "cols", 1)
    seed = _int(seed, "seed")
    if rows * cols > 2**32:
        raise GraphError(f"a {rows} x {cols} grid has more than 2**32 vertices")
    rng = np.random.default_rng(seed)
    ids = np.arange(rows * cols, dtype=np.uint32).reshape(rows, cols)
    right = (ids[:, :-1].ravel(), ids[:, 1:].ravel())
    down = (ids[:-1, :].ravel(), ids[1:, :].ravel())
    top = ids[0:rows - 1:2, :]                       # top edge of the even square rows
    bottom = ids[1:rows:2, :]
    slope = rng.integers(0, 2, size=(top.shape[0], max(cols - 1, 0)), dtype=np.uint8) == 1
    diag_u = np.where(slope, top[:, :-1], top[:, 1:]).ravel()        # "\" or "/"
    diag_v = np.where(slope, bottom[:, 1:], bottom[:, :-1]).ravel()
    u = np.concatenate([right[0], down[0], diag_u])
    v = np.concatenate([right[1], down[1], diag_v])
    name = f"grid:rows={rows},cols={cols},seed={seed}"
    return _undirected(rows * cols, u, v, weights, seed, name)


def scale_free(n: int, seed: int = 1, hub_fraction: float = 0.001, hub_degree: int = 1000,
               avg_degree: int = 6, weights: str | None = None) -> Graph:
    """Luo et al.'s scale-free test graph: a few hubs of high out-degree, the rest low.

    ``round(n * hub_fraction)`` randomly chosen vertices (at least one if hub_fraction > 0)
    get ``hub_degree`` out-edges, every other vertex ``avg_degree``, to uniformly random
    other vertices (capped at n - 1).  Duplicates are dropped, so out-degrees can fall a
    little below these figures but never exceed them.  Directed.
    """
    n = _int(n, "n", 2, 2**32)
    seed = _int(seed, "seed")
    hub_degree, avg_degree = _int(hub_degree, "hub_degree", 0), _int(avg_degree, "avg_degree", 0)
    if isinstance(hub_fraction, bool) or not isinstance(hub_fraction, Real) or not (
            0 <= hub_fraction <= 1):
        raise GraphError(f"hub_fraction must be in 0..1, got {hub_fraction!r}")
    rng = np.random.default_rng(seed)
    hubs = 0 if hub_fraction == 0 else max(1, round(n * hub_fraction))
    _edge_count(hubs * min(hub_degree, n - 1) + (n - hubs) * min(avg_degree, n - 1),
                "the out-degrees")
    degree = np.full(n, min(avg_degree, n - 1), dtype=np.int64)
    degree[rng.choice(n, size=hubs, replace=False)] = min(hub_degree, n - 1)
    src = np.repeat(np.arange(n, dtype=np.uint32), degree)
    dst = rng.integers(0, n - 1, size=src.size, dtype=np.uint32)
    dst += dst >= src                                  # never a self loop
    return _directed(n, src, dst, weights, seed, f"scalefree:n={n},seed={seed}")


def hub_chain(hubs: int = 64, chains: int = 1, length: int = 8, fan: int = 200,
              stride: int = 1, seed: int = 1, weights: str | None = None) -> Graph:
    """Hubs joined by chains: the graph DepGraph's hub index needs (Zhang et al., HPCA 2021,
    §III-A: core paths between hub vertices).

    Hub i heads ``chains`` chains of ``length`` edges, their interior vertices of in- and
    out-degree 1: the first to hub (i + ``stride``) mod ``hubs`` (a ring), the others to
    random other hubs; ``fan`` leaves point at every hub (they make it a hub by degree).
    Ids run hub i, its chains' interiors, its leaves, so with P engines and hubs = k·P a hub
    shares its partition with its chains and, with stride >= k, the ring's tails lie in other
    partitions: the shortcut then reaches another engine's vertex before the walk does.
    Measured (4 engines are too few, 64 with k = 1): the hub index saves 37-73% of the
    rounds of directed CC for lengths 2-10 within the stack depth, nothing on shuffled ids.
    Directed.
    """
    hubs, chains = _int(hubs, "hubs", 2), _int(chains, "chains", 1)
    length, fan = _int(length, "length", 1), _int(fan, "fan", 0)
    stride, seed = _int(stride, "stride", 1), _int(seed, "seed")
    if stride % hubs == 0:
        raise GraphError(f"stride must not be a multiple of hubs ({hubs}), got {stride}")
    rng = np.random.default_rng(seed)
    per = 1 + chains * (length - 1) + fan
    n = _int(hubs * per, "the vertex count", 2, 2**32)
    head = np.arange(hubs, dtype=np.int64) * per
    targets = np.empty((hubs, chains), dtype=np.int64)
    targets[:, 0] = (np.arange(hubs) + stride) % hubs
    if chains > 1:
        targets[:, 1:] = (np.arange(hubs)[:, None] + 1 +
                          rng.integers(0, hubs - 1, size=(hubs, chains - 1))) % hubs
    inner = (head[:, None, None] + 1 + np.arange(chains)[None, :, None] * (length - 1) +
             np.arange(length - 1)[None, None, :])                  # hubs x chains x (L-1)
    paths = np.concatenate([np.broadcast_to(head[:, None, None], (hubs, chains, 1)), inner,
                            head[targets][:, :, None]], axis=2)
    leaves = head[:, None] + 1 + chains * (length - 1) + np.arange(fan)[None, :]
    src = np.concatenate([paths[:, :, :-1].ravel(), leaves.ravel()])
    dst = np.concatenate([paths[:, :, 1:].ravel(), np.repeat(head, fan)])
    name = (f"hubchain:hubs={hubs},chains={chains},length={length},fan={fan},"
            f"stride={stride},seed={seed}")
    return _directed(n, src.astype(np.uint32), dst.astype(np.uint32), weights, seed, name)


def road(n: int, extra: float = 0.2, seed: int = 1, weights: str | None = None) -> Graph:
    """A road-like graph: n random points in the unit square, joined by the Euclidean minimum
    spanning tree of their Delaunay triangulation plus each other Delaunay edge with
    probability ``extra``.  Planar, connected, of average degree about ``2 + 4 * extra``
    (road networks: 2.4-2.8) and of diameter growing like the square root of n, the kind
    of graph on which a BFS takes hundreds of levels.  Vertex ids follow a row-major walk
    of a sqrt(n) x sqrt(n) raster of the square, so neighbours have nearby ids, as in a road
    network's file.  Symmetric.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree
    from scipy.spatial import Delaunay

    n = _int(n, "n", 3, 2**26)
    seed = _int(seed, "seed")
    if isinstance(extra, bool) or not isinstance(extra, Real) or not 0 <= extra <= 1:
        raise GraphError(f"extra must be in 0..1, got {extra!r}")
    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(n)))
    points = rng.random((n, 2))
    cell = np.minimum((points * side).astype(np.int64), side - 1)
    points = points[np.lexsort((points[:, 0], cell[:, 0], cell[:, 1]))]
    simplices = Delaunay(points).simplices
    pairs = np.concatenate([simplices[:, [0, 1]], simplices[:, [1, 2]], simplices[:, [0, 2]]])
    pairs = np.unique(np.sort(pairs, axis=1), axis=0)
    length = np.linalg.norm(points[pairs[:, 0]] - points[pairs[:, 1]], axis=1)
    tree = minimum_spanning_tree(coo_matrix((length, (pairs[:, 0], pairs[:, 1])), shape=(n, n)))
    in_tree = np.zeros(pairs.shape[0], dtype=bool)
    tree = tree.tocoo()
    tree_keys = np.minimum(tree.row, tree.col).astype(np.int64) * n + np.maximum(tree.row,
                                                                               tree.col)
    in_tree[np.isin(pairs[:, 0].astype(np.int64) * n + pairs[:, 1], tree_keys)] = True
    keep = in_tree | (rng.random(pairs.shape[0]) < extra)
    u, v = pairs[keep, 0].astype(np.uint32), pairs[keep, 1].astype(np.uint32)
    return _undirected(n, u, v, weights, seed, f"road:n={n},extra={extra},seed={seed}")


# The small real graphs networkx ships, by a short name.
NETWORKX_GRAPHS = {"karate": "karate_club_graph", "davis": "davis_southern_women_graph",
                   "florentine": "florentine_families_graph", "lesmis": "les_miserables_graph"}


def networkx_graph(name: str, seed: int = 1, weights: str | None = None) -> Graph:
    """One of the real graphs networkx ships (:data:`NETWORKX_GRAPHS`): karate (Zachary's
    karate club, 34 vertices), davis (Davis's southern women, 32), florentine (Padgett's
    Florentine families, 15), lesmis (the characters of Les Misérables, 77).  Undirected;
    vertex ids in networkx's node order; ``weights`` drawn as for the generators (the
    graphs' own weights, where they have any, are not used)."""
    import networkx as nx

    if name not in NETWORKX_GRAPHS:
        raise GraphError(f"name must be one of {', '.join(NETWORKX_GRAPHS)}, got {name!r}")
    seed = _int(seed, "seed")
    nx_graph = getattr(nx, NETWORKX_GRAPHS[name])()
    index = {node: i for i, node in enumerate(nx_graph.nodes)}
    ends = np.array([(index[a], index[b]) for a, b in nx_graph.edges], dtype=np.uint32)
    return _undirected(len(index), ends[:, 0], ends[:, 1], weights, seed,
                       f"networkx:name={name}")


def _first_occurrences(keys: np.ndarray) -> np.ndarray:
    """Indices of the first occurrence of each distinct key, in their original order."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    first = np.ones(keys.size, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return np.sort(order[first])


def uniform(n: int, m: int, seed: int = 1, weights: str | None = None) -> Graph:
    """Exactly ``m`` distinct directed edges between uniformly random distinct endpoints.

    Edges are drawn in rounds; repeats of an edge already drawn are dropped and replaced
    by later draws, so the result is the first ``m`` distinct edges of the random stream.
    """
    n = _int(n, "n", 1, 2**32)
    m = _edge_count(_int(m, "m", 0), "m")
    seed = _int(seed, "seed")
    if m > n * (n - 1):
        raise GraphError(f"a simple directed graph on {n} vertices has at most "
                         f"{n * (n - 1)} edges, {m} asked")
    rng = np.random.default_rng(seed)
    keys = np.zeros(0, dtype=np.uint64)
    while keys.size < m:
        need = m - keys.size
        s = rng.integers(0, n, size=need, dtype=np.uint64)
        d = rng.integers(0, n - 1, size=need, dtype=np.uint64)
        d += d >= s
        keys = np.concatenate([keys, s * np.uint64(n) + d])
        keys = keys[_first_occurrences(keys)]
    src, dst = keys // np.uint64(n), keys % np.uint64(n)
    return _directed(n, src, dst, weights, seed, f"uniform:n={n},m={m},seed={seed}")


def bipartite(users: int, items: int, ratings_per_user: int, seed: int = 1) -> Graph:
    """A rating graph for collaborative filtering (Graphicionado section 2.2).

    Users are vertices 0..users-1, items users..users+items-1.  Each user rates
    ``ratings_per_user`` distinct random items with a float32 rating 1..5; every rating is
    an edge in both directions (user -> item and item -> user, same weight), so the graph
    is flagged symmetric.
    """
    users, items = _int(users, "users", 1), _int(items, "items", 1)
    per_user = _int(ratings_per_user, "ratings_per_user", 0, items)
    seed = _int(seed, "seed")
    if users + items > 2**32:
        raise GraphError("users + items must fit 32-bit vertex ids")
    _edge_count(2 * users * per_user, "2 * users * ratings_per_user")
    rng = np.random.default_rng(seed)
    if 2 * per_user > items:                         # dense: pick by random ranking
        chosen = np.argsort(rng.random((users, items)), axis=1)[:, :per_user]
        keys = np.sort((np.arange(users, dtype=np.uint64)[:, None] * np.uint64(items)
                        + chosen.astype(np.uint64)).ravel())
    else:                                           # sparse: draw, drop repeats, top up
        keys = np.zeros(0, dtype=np.uint64)
        missing = np.full(users, per_user, dtype=np.int64)
        while missing.any():
            who = np.repeat(np.arange(users, dtype=np.uint64), missing)
            what = rng.integers(0, items, size=who.size, dtype=np.uint64)
            keys = np.concatenate([keys, who * np.uint64(items) + what])
            keys.sort()
            distinct = np.ones(keys.size, dtype=bool)
            distinct[1:] = keys[1:] != keys[:-1]
            keys = keys[distinct]
            missing = per_user - np.bincount((keys // np.uint64(items)).astype(np.intp),
                                             minlength=users)
    user = (keys // np.uint64(items)).astype(np.uint32)
    item = (keys % np.uint64(items)).astype(np.uint32) + np.uint32(users)
    rating = rng.integers(1, 6, size=keys.size).astype(np.float32)
    src, dst = np.concatenate([user, item]), np.concatenate([item, user])
    weight = np.concatenate([rating, rating])
    perm = sort_permutation(src, dst, users + items)
    if perm is not None:
        src, dst, weight = src[perm], dst[perm], weight[perm]
    name = f"bipartite:users={users},items={items},ratings={per_user},seed={seed}"
    return Graph._trusted(users + items, src, dst, weight, True, name)


# ---------------------------------------------------------------------------- specs

def _spec_weights(text: str) -> str:
    return text if text.lower() in ("none", "") or text.lower().startswith("uniform:") \
        else f"uniform:{text}"


_COMMON = {"seed": ("seed", int)}
_WEIGHTS = {"weights": ("weights", _spec_weights)}
_KRON = {"scale": ("scale", int), "ef": ("edge_factor", int), "edge_factor": ("edge_factor", int),
         **_COMMON, "a": ("a", float), "b": ("b", float), "c": ("c", float), **_WEIGHTS}

GENERATORS: dict[str, tuple[Callable[..., Graph], dict[str, tuple[str, Callable]], tuple]] = {
    "kron": (kronecker, _KRON, ("scale",)),
    "rmat": (rmat, _KRON, ("scale",)),
    "grid": (grid, {"rows": ("rows", int), "cols": ("cols", int), **_COMMON, **_WEIGHTS},
             ("rows", "cols")),
    "scalefree": (scale_free, {"n": ("n", int), **_COMMON,
                               "hubs": ("hub_fraction", float),
                               "hub_fraction": ("hub_fraction", float),
                               "hub_degree": ("hub_degree", int),
                               "deg": ("avg_degree", int), "avg_degree": ("avg_degree", int),
                               **_WEIGHTS}, ("n",)),
    "uniform": (uniform, {"n": ("n", int), "m": ("m", int), **_COMMON, **_WEIGHTS}, ("n", "m")),
    "hubchain": (hub_chain, {"hubs": ("hubs", int), "chains": ("chains", int),
                             "length": ("length", int), "fan": ("fan", int),
                             "stride": ("stride", int), **_COMMON, **_WEIGHTS}, ()),
    "road": (road, {"n": ("n", int), "extra": ("extra", float), **_COMMON, **_WEIGHTS},
             ("n",)),
    "networkx": (networkx_graph, {"name": ("name", str), **_COMMON, **_WEIGHTS}, ("name",)),
    "bipartite": (bipartite, {"users": ("users", int), "items": ("items", int),
                              "ratings": ("ratings_per_user", int),
                              "ratings_per_user": ("ratings_per_user", int), **_COMMON},
                  ("users", "items", "ratings")),
}
_ALIASES = {"kronecker": "kron", "scale_free": "scalefree", "rating": "bipartite",
            "hub_chain": "hubchain"}
_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::(.*))?$", re.DOTALL)


def from_spec(spec: str) -> Graph:
    """Generate the graph a spec such as ``kron:scale=16,ef=16,seed=1`` describes; the key
    ``undirected=1``, accepted by every generator, symmetrizes it (each edge both ways, one
    weight: :meth:`Graph.symmetrized`)."""
    if not isinstance(spec, str):
        raise SpecError(f"a generator spec must be a string, got {spec!r}")
    match = _SPEC.match(spec)
    known = ", ".join(GENERATORS)
    if not match:
        raise SpecError(f"bad generator spec {spec!r}: expected NAME:key=value,... "
                        f"with NAME one of {known}")
    name = _ALIASES.get(match.group(1).lower(), match.group(1).lower())
    if name not in GENERATORS:
        raise SpecError(f"unknown generator {match.group(1)!r} in {spec!r} "
                        f"(generators: {known})")
    function, keys, required = GENERATORS[name]
    valid = ", ".join(keys)
    kwargs: dict[str, Any] = {}
    undirected = False
    for item in filter(None, (part.strip() for part in (match.group(2) or "").split(","))):
        key, sep, text = (part.strip() for part in item.partition("="))
        if key.lower() == "undirected" and sep:
            # Any generator: every edge in both directions (Graph.symmetrized).
            if text not in ("0", "1"):
                raise SpecError(f"{name}: undirected must be 0 or 1, got {text!r}")
            undirected = text == "1"
            continue
        if not sep or key.lower() not in keys:
            what = f"unknown key {key!r}" if sep else f"{item!r} is not key=value"
            raise SpecError(f"{name}: {what} in {spec!r} (keys: {valid})")
        param, convert = keys[key.lower()]
        try:
            value = convert(text)
        except ValueError:
            kind = "an integer" if convert is int else "a number" if convert is float else "text"
            raise SpecError(f"{name}: {key} must be {kind}, got {text!r} "
                            f"(keys: {valid})") from None
        kwargs[param] = value
    missing = [key for key in required if keys[key][0] not in kwargs]
    if missing:
        raise SpecError(f"{name} needs {', '.join(missing)} in {spec!r} (keys: {valid})")
    try:
        graph = function(**kwargs)
    except SpecError:
        raise
    except GraphError as exc:
        raise SpecError(f"{name}: {exc} (spec {spec!r})") from None
    if undirected:
        graph = graph.symmetrized()
    object.__setattr__(graph, "name", spec.strip())
    return graph


def load_graph(file_or_spec: str | Path) -> Graph:
    """A graph from a file (when the path exists) or else from a generator spec. A file's
    graph is flagged symmetric when its edges mirror themselves (``read_graph``'s
    ``detect_symmetry``), so that an undirected graph written with both directions of each
    edge (GAPBS's converter, a SNAP file) counts its edges once, as generated ones do."""
    text = str(file_or_spec)
    path = Path(text)
    if path.exists():
        return read_graph(path, detect_symmetry=True)
    match = _SPEC.match(text)
    if match and (match.group(2) is not None
                  or _ALIASES.get(match.group(1).lower(), match.group(1).lower()) in GENERATORS):
        return from_spec(text)
    raise GraphError(f"no such file or generator spec: {text!r}")
