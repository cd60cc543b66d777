"""Vertex orders that balance a graph over the streams that own its vertices by their ids.

Graphicionado gives destination vertex ``v`` to stream ``v mod m`` (Ham et al. §V.A, the low
bits of the id), and source vertex ``v`` to stream ``v mod n``. A stream's share of the
work is then the edges of the ids it owns: even when hubs are spread over the ids (the
Graph500 Kronecker generator permutes them), uneven when they are not (R-MAT, or a graph
whose ids follow its crawl or its degrees), and never better than the luck of where the
largest hubs fall.

:func:`spread_hubs` renumbers the vertices so that each stream owns as many edges as the
others: the vertices by in-degree, largest first, each to the stream with the fewest edges
so far that still has an id free (longest-processing-time-first list scheduling, whose
heaviest stream is at most the mean plus one vertex's in-degree); within a stream the
vertices keep the graph's order. The host relabels the
graph with it before laying it out and maps the result back; the hardware is unchanged.
"""

from __future__ import annotations

import heapq

import numpy as np

from .graph import Graph, GraphError


__all__ = ["VERTEX_ORDERS", "spread_hubs", "spread", "relabel", "stream_loads",
           "busiest_share"]

# ``ids``: the graph's own ids (the paper's partition by their low bits); ``spread``: the ids
# of :func:`spread_hubs`.
VERTEX_ORDERS = ("ids", "spread")


def spread_hubs(graph: Graph, parts: int) -> np.ndarray:
    """New ids (``new[v]`` for vertex ``v``, a permutation of ``0 .. n - 1``) that give each
    of ``parts`` streams, owning the ids ``c, c + parts, ...``, about the same number of
    edges into its vertices (with one stream, the ids as they are). Deterministic: ties go
    to the lower vertex and stream."""
    if isinstance(parts, bool) or not isinstance(parts, (int, np.integer)) or parts < 1:
        raise GraphError(f"parts must be a positive integer, not {parts!r}")
    n = graph.num_vertices
    if parts == 1:
        return np.arange(n, dtype=np.int64)     # one stream owns every vertex
    in_degree = np.bincount(graph.dst, minlength=n).astype(np.int64)
    order = np.argsort(-in_degree, kind="stable")
    # Stream c owns the ids below n whose low part is c.
    room = [(n - c + parts - 1) // parts for c in range(parts)]
    used = [0] * parts
    part = np.empty(n, dtype=np.int64)
    heap = [(0, c) for c in range(parts) if room[c]]
    heapq.heapify(heap)
    heavy = int(np.count_nonzero(in_degree))
    for v in order[:heavy].tolist():
        load, c = heapq.heappop(heap)
        part[v] = c
        used[c] += 1
        if used[c] < room[c]:
            heapq.heappush(heap, (load + int(in_degree[v]), c))
    # Vertices without in-edges fill the streams' room left in turn, in vertex order.
    free = np.repeat(np.arange(parts), [room[c] - used[c] for c in range(parts)])
    turn = np.concatenate([np.arange(room[c] - used[c]) for c in range(parts)])
    part[np.sort(order[heavy:])] = free[np.lexsort((free, turn))]
    # Within a stream the vertices keep their order: the hubs are not all given its first
    # ids, which would put them first in every source's edges, where the streams' updates of
    # them would meet at the atomic-update CAMs at once.
    new = np.empty(n, dtype=np.int64)
    for c in range(parts):
        members = np.flatnonzero(part == c)
        new[members] = np.arange(len(members)) * parts + c
    return new


def spread(graph: Graph, parts: int) -> tuple[Graph, np.ndarray]:
    """``graph`` renumbered by :func:`spread_hubs` for ``parts`` streams, and the new ids."""
    new = spread_hubs(graph, parts)
    return relabel(graph, new), new


def relabel(graph: Graph, new: np.ndarray) -> Graph:
    """``graph`` with vertex ``v`` renamed ``new[v]`` (weights and symmetry kept)."""
    new = np.asarray(new)
    n = graph.num_vertices
    if new.shape != (n,) or not np.array_equal(np.sort(new), np.arange(n)):
        raise GraphError(f"the new ids are not a permutation of the {n} vertices")
    return Graph.from_edges(n, new[graph.src], new[graph.dst], graph.weight,
                            symmetric=graph.symmetric, name=graph.name)


def stream_loads(ids: np.ndarray, parts: int) -> np.ndarray:
    """Edges each of ``parts`` streams owns when it owns the ids ``c, c + parts, ...``
    (``ids``: an endpoint of every edge)."""
    return np.bincount(np.asarray(ids) % parts, minlength=parts)


def busiest_share(loads) -> float:
    """The busiest stream's share of the edges, from each stream's edges (``loads``)."""
    return float(max(loads) / max(1, sum(loads)))
