"""Hub vertices, partitions, the H'' bitmap and the core-path decomposition.

DepGraph (Zhang et al., HPCA 2021) section III-A, definitions 1 and 2, and the configuration of
section III-B (partition start/end registers and the H'' bitmap).  This is the software
pre-processing that runs before the engines start.

Hubs (definition 1).  The degree used is the total degree ``out_degree + in_degree`` (for a
symmetric graph, twice the undirected degree).  k = ``min(n, max(min_sample, round(beta·n)))``
vertices are sampled without replacement with ``np.random.default_rng(seed)``; T is the
``max(1, ceil(lam·k))``-th largest degree in the sample; the hubs are the vertices with degree
**strictly** greater than T (ties are never hubs, so the set is a deterministic function of
the seed).  ``min_sample`` (1024 by default) is not the paper's: its graphs have millions of
vertices, so beta = 0.001 samples about a thousand of them (its smallest, about 0.9 M
vertices, about 900).  On a graph of 4,096 vertices beta alone samples 4, T is then the
largest of 4 degrees, often 1, and 46% of a Kronecker graph's vertices became hubs (measured,
scale 12, edge factor 4), against lam = 0.5%.

Partitions.  P contiguous id ranges ``[bounds[i], bounds[i+1])``, one per engine, balanced by
out-edges: bound i is the first vertex whose first edge id reaches ``i·m/P``, then forced
strictly increasing so that every partition has at least one vertex.

Core subgraph (definition 2), bounded so that it is computable in a few vectorised passes:

1. db(v) = hop distance from v to the nearest hub along out-edges through non-hub vertices
   (multi-source BFS on the reversed graph from the hubs, at most ``max_len - 1`` levels);
   nxt(v) = the target of v's lowest-id out-edge with db = db(v) - 1 (a hub when db(v) = 1).
2. One hub path per non-hub vertex v1 with a hub in-neighbour and db(v1) finite: head = the
   lowest-id hub h with an edge h→v1, then v1, nxt(v1), nxt(nxt(v1)), ... to a hub (length
   1 + db(v1) <= ``max_len``).  Direct hub→hub edges are hub paths of length 1.
3. The core subgraph is the union of these paths.  Every non-hub vertex in it has exactly one
   core out-edge (to nxt), so paths only merge: a non-hub vertex with two or more core
   in-edges is a *core vertex* (a shared end).  A core edge a→b crossing partitions makes b
   a *boundary vertex*, so that a core path's head and interior lie in one engine's partition.
4. H'' = hubs ∪ core vertices ∪ boundary vertices (one bitmap; the engine also compares ids
   with its partition registers, so other cross-partition vertices need no bit: the walk
   never descends into a vertex another engine owns).
5. Core paths: from every core edge a→b with a in H'', follow nxt until the first H'' vertex.
   They are disjoint (share only H'' ends).  Paths of length >= 2 get a hub-index entry
   (a length-1 path's shortcut would be the edge itself).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..graph import Graph

__all__ = ["HubSelection", "CoreStructure", "select_hubs", "partition_bounds", "owner_of",
           "core_structure", "hub_degree"]


@dataclass(frozen=True)
class HubSelection:
    """Result of :func:`select_hubs`: the sample, the threshold T and the hub ids (sorted)."""

    sample: np.ndarray
    threshold: int
    hubs: np.ndarray
    top_count: int


@dataclass(frozen=True)
class CoreStructure:
    """H'' and the core paths (see the module docstring).

    ``paths_flat[path_offsets[i]:path_offsets[i+1]]`` are the vertices of core path i, head
    first; paths are sorted by (head, second vertex).  Masks have one entry per vertex.
    """

    hub: np.ndarray
    core: np.ndarray
    boundary: np.ndarray
    hpp: np.ndarray
    paths_flat: np.ndarray
    path_offsets: np.ndarray

    @property
    def num_paths(self) -> int:
        return int(self.path_offsets.size - 1)

    def path(self, i: int) -> np.ndarray:
        return self.paths_flat[self.path_offsets[i]:self.path_offsets[i + 1]]

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.path_offsets) - 1


def hub_degree(graph: Graph) -> np.ndarray:
    """The degree hubs are chosen by: out-degree plus in-degree."""
    return graph.out_degree + graph.in_degree


def select_hubs(graph: Graph, lam: float = 0.005, beta: float = 0.001,
                seed: int = 0, min_sample: int = 1024) -> HubSelection:
    """Sample a fraction ``beta`` of the vertices (at least ``min_sample``) and take T from
    the top ``lam`` of the sample."""
    if not 0 < lam <= 1 or not 0 < beta <= 1:
        raise ValueError(f"lam and beta must be in (0, 1], got lam={lam!r}, beta={beta!r}")
    if min_sample < 1:
        raise ValueError(f"min_sample must be at least 1, got {min_sample!r}")
    n = graph.num_vertices
    degree = hub_degree(graph)
    k = min(n, max(min_sample, round(beta * n)))
    rng = np.random.default_rng(seed)
    sample = np.sort(rng.choice(n, size=k, replace=False))
    top = max(1, math.ceil(lam * k))
    ranked = np.sort(degree[sample])[::-1]
    threshold = int(ranked[top - 1])
    hubs = np.flatnonzero(degree > threshold)
    return HubSelection(sample, threshold, hubs, top)


def partition_bounds(graph: Graph, parts: int) -> np.ndarray:
    """P+1 vertex ids: partition i is ``[b[i], b[i+1])``, balanced by out-edges."""
    n, m = graph.num_vertices, graph.num_edges
    if parts < 1 or parts > n:
        raise ValueError(f"engines must be in 1..{n} (one partition of >= 1 vertex each), "
                         f"got {parts}")
    targets = (np.arange(1, parts, dtype=np.float64) * m / parts)
    inner = np.searchsorted(graph.offsets[:-1], targets, side="left").astype(np.int64)
    bounds = np.concatenate([[0], inner, [n]]).astype(np.int64)
    for i in range(1, parts):                       # at least one vertex per partition
        bounds[i] = min(max(bounds[i], bounds[i - 1] + 1), n - (parts - i))
    return bounds


def owner_of(bounds: np.ndarray, n: int) -> np.ndarray:
    """The engine owning each vertex (int32)."""
    return (np.searchsorted(bounds[1:], np.arange(n), side="right")).astype(np.int32)


def _distance_to_hubs(graph: Graph, hub: np.ndarray, levels: int) -> np.ndarray:
    """db: hops to the nearest hub through non-hubs (hubs 0, -1 = farther than levels)."""
    n = graph.num_vertices
    db = np.full(n, -1, dtype=np.int64)
    db[hub] = 0
    order = np.argsort(graph.dst, kind="stable")          # reversed CSR
    rsrc = graph.src[order].astype(np.int64)
    roff = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(graph.in_degree, out=roff[1:])
    frontier = np.flatnonzero(hub)
    for level in range(1, levels + 1):
        if frontier.size == 0:
            break
        starts, ends = roff[frontier], roff[frontier + 1]
        counts = ends - starts
        idx = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        preds = np.unique(rsrc[idx])
        preds = preds[(db[preds] < 0) & ~hub[preds]]
        db[preds] = level
        frontier = preds
    return db


def core_structure(graph: Graph, hubs: np.ndarray, bounds: np.ndarray,
                   max_len: int = 10) -> CoreStructure:
    """Core vertices, boundary vertices, H'' and the disjoint core paths (module docstring)."""
    n = graph.num_vertices
    hub = np.zeros(n, dtype=bool)
    hub[hubs] = True
    owner = owner_of(bounds, n)
    src, dst = graph.src.astype(np.int64), graph.dst.astype(np.int64)
    db = _distance_to_hubs(graph, hub, max(0, max_len - 1))
    # nxt(v): first out-edge of a reached non-hub to a vertex one hop closer
    nxt = np.full(n, -1, dtype=np.int64)
    step = (db[src] > 0) & (db[dst] == db[src] - 1)
    cand_src, first = np.unique(src[step], return_index=True)
    nxt[cand_src] = dst[step][first]
    # one hub path per non-hub v1 with a hub in-neighbour: head = lowest-id such hub
    start = hub[src] & ~hub[dst] & (db[dst] > 0)
    v1, first = np.unique(dst[start], return_index=True)    # edges sorted by src: min head
    head_of_v1 = np.full(n, -1, dtype=np.int64)
    head_of_v1[v1] = src[start][first]
    route = np.zeros(n, dtype=bool)
    route[v1] = True
    cur = v1
    while cur.size:                                          # mark nxt closures
        cur = nxt[cur]
        cur = np.unique(cur[(cur >= 0) & ~hub[np.maximum(cur, 0)]])
        cur = cur[~route[cur]]
        route[cur] = True
    members = np.flatnonzero(route)
    # core in-degree of route vertices: hub edge into v1 plus route predecessors
    cin = np.zeros(n, dtype=np.int64)
    cin[v1] += 1
    succ = nxt[members]
    inner = succ[~hub[succ]]
    np.add.at(cin, inner, 1)
    core = route & (cin >= 2)
    boundary = np.zeros(n, dtype=bool)
    cross_first = owner[head_of_v1[v1]] != owner[v1]
    boundary[v1[cross_first]] = True
    nonhub_succ = ~hub[succ]
    cross = nonhub_succ & (owner[members] != owner[np.maximum(succ, 0)])
    boundary[succ[cross]] = True
    hpp = hub | core | boundary
    # core paths: every core edge leaving an H'' vertex, followed to the next H'' vertex
    heads = np.concatenate([head_of_v1[v1], members[hpp[members]]])
    seconds = np.concatenate([v1, nxt[members[hpp[members]]]])
    order = np.lexsort((seconds, heads))
    heads, seconds = heads[order], seconds[order]
    walk = [heads, seconds]
    cur = seconds.copy()
    open_ = ~hpp[cur]
    for _ in range(max_len + 1):
        if not open_.any():
            break
        cur = np.where(open_, nxt[cur], -1)
        walk.append(cur)
        open_ = open_ & ~hpp[np.maximum(cur, 0)]
    table = np.stack(walk, axis=1)                           # paths x positions, -1 padded
    lengths = (table >= 0).sum(axis=1)
    offsets = np.zeros(heads.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = table[table >= 0]
    return CoreStructure(hub, core, boundary, hpp, flat, offsets)
