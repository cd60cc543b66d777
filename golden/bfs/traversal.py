"""Direction-optimising BFS with Enterprise's hub rule and hub cache: the golden model.

The specification of the BFS engine (Enterprise, Liu & Huang, SC'15, §4; Luo et al., DAC'10),
level-synchronous, vectorised per level.  The graph is directed: top-down levels follow
out-edges (CSR), bottom-up levels scan in-edges (the CSC, in-neighbours in ascending order);
on a symmetric graph the two are the same lists, as in Graph500.

Per level L (the root is level 0, visited before level 1):

* **top-down**: every out-edge of every frontier vertex is checked (one status read each);
  an unvisited destination gets level L and, as parent, the source that comes first in the
  class queues' order (small, middle, large, extreme, each lane-major).  The RTL may pick
  any frontier source: parents are checked by Graph500's rules, not compared.
* **bottom-up**: every frontier (unvisited) vertex scans its in-neighbours in order; for each
  it first looks in the **hub cache** ``HC[u % entries] == u`` (a hit: u was visited at level
  L - 1, so it is the parent; no status read), else reads u's status; the scan stops at the
  first neighbour at level L - 1, which becomes the parent.  Only neighbours at level L - 1
  count: one visited this level is not a parent.  Bottom-up results do not depend on the
  order vertices are processed, so the RTL matches parents and every counter exactly.

Between levels the next queue is generated (:mod:`golden.bfs.frontier`): top-down by an
interleaved scan of the status array for level L, the switch to bottom-up by a blocked scan
for the unvisited vertices, bottom-up by dropping the vertices just visited from the queue,
and the switch back to top-down by an interleaved scan (level 1's queue: an interleaved scan
for level 0, or a blocked one for the unvisited).  The derived queue needs no scan
(``scanned`` 0); every scan reads the whole status array.  The hub cache a level reads holds
the hubs (out-degree above ``tau``) visited by the level before, and only those (the RTL
keeps two tables and swaps them at each level); where several hash to one slot
(``id % entries``) the largest id stays, which does not depend on the order they were
found in.

Direction (``direction="auto"``): start top-down; after a top-down level, switch to
bottom-up when gamma = hubs visited at this level / all hubs exceeds ``gamma_percent``
(Enterprise's equation 1, default 30%; a graph without hubs never switches); after a
bottom-up level, switch back to top-down for the tail when the level visited fewer than
``n / tail_beta`` vertices and fewer than the level before (Beamer's beta = 24, as Enterprise
gives no rule), and never switch again.  ``"topdown"`` and ``"bottomup"`` force a direction
(bottom-up from level 1).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ..graph import Graph, GraphError
from .frontier import (CLASSES, DEFAULT_THRESHOLDS, blocked_scan, derived_queue,
                       interleaved_scan, split_by_class)

__all__ = ["UNREACHED", "DIRECTIONS", "BfsOptions", "LevelRecord", "BfsResult", "run_bfs",
           "in_edges"]

UNREACHED = np.uint32(2**32 - 1)
DIRECTIONS = ("auto", "topdown", "bottomup")


@dataclass(frozen=True)
class BfsOptions:
    """The knobs of the BFS model, the same names the engine's configuration uses.

    Parameters
    ----------
    lanes : frontier-generation lanes (sets the queue order, not the levels).
    direction : ``auto``, ``topdown`` or ``bottomup``.
    tau : a hub has out-degree above ``tau``.
    gamma_percent : the top-down to bottom-up switch threshold on gamma.
    tail_beta : the switch back to top-down when a level visits fewer than n / tail_beta.
    hub_cache : the hub cache on or off; ``hub_cache_entries`` its slots.
    middle_degree, large_degree, extreme_degree : the lowest degree of each class above
        small (Enterprise: 32, 256, 65,536).
    """

    lanes: int = 8
    direction: str = "auto"
    tau: int = 256
    gamma_percent: float = 30.0
    tail_beta: int = 24
    hub_cache: bool = True
    hub_cache_entries: int = 1024
    middle_degree: int = DEFAULT_THRESHOLDS[0]
    large_degree: int = DEFAULT_THRESHOLDS[1]
    extreme_degree: int = DEFAULT_THRESHOLDS[2]

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise GraphError(f"direction must be one of {', '.join(DIRECTIONS)}, "
                             f"not {self.direction!r}")
        for name in ("lanes", "tail_beta", "hub_cache_entries"):
            if int(getattr(self, name)) < 1:
                raise GraphError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.tau < 0:
            raise GraphError(f"tau must not be negative, not {self.tau}")
        if not 0 <= self.gamma_percent <= 100:
            raise GraphError(f"gamma_percent must be in 0..100, not {self.gamma_percent}")
        if not 0 < self.middle_degree < self.large_degree < self.extreme_degree:
            raise GraphError(f"middle_degree, large_degree and extreme_degree must increase "
                             f"from 1, not {self.thresholds}")

    @property
    def thresholds(self) -> tuple[int, int, int]:
        """The lowest degree of the middle, large and extreme classes."""
        return (self.middle_degree, self.large_degree, self.extreme_degree)

    @property
    def cache_slots(self) -> int:
        """Slots of the hub cache in use: 0 when it is off."""
        return self.hub_cache_entries if self.hub_cache else 0


@dataclass
class LevelRecord:
    """What one level did; ``queue`` is the frontier it processed, per degree class."""

    level: int
    direction: str                 # "topdown" or "bottomup"
    workflow: str                  # how its queue was made: root, interleaved, blocked, derived
    frontier: int                  # vertices in its queue
    classes: dict                  # frontier vertices per degree class
    scanned: int                   # status entries read to generate its queue
    edges_checked: int             # edges looked at
    status_reads: int              # of them, neighbour statuses read from memory
    hub_cache_hits: int            # of them, answered by the hub cache (bottom-up)
    visited: int                   # vertices given this level
    hubs_visited: int              # of them, hubs (gamma's numerator)


@dataclass
class BfsResult:
    """Levels (uint32, UNREACHED if not reached), parents (int64, -1 if not reached)."""

    levels: np.ndarray
    parents: np.ndarray
    records: list = field(default_factory=list)
    num_hubs: int = 0
    options: BfsOptions = BfsOptions()

    def total(self, key: str) -> int:
        return int(sum(getattr(r, key) for r in self.records))

    def directions(self) -> list[str]:
        return [r.direction for r in self.records]

    def figures(self) -> dict:
        """The counters a report prints (totals and per level)."""
        checked = self.total("edges_checked")
        reads = self.total("status_reads") + self.total("hub_cache_hits")
        return {"levels": len(self.records), "reached": int((self.parents >= 0).sum()),
                "edges_checked": checked, "status_reads": self.total("status_reads"),
                "hub_cache_hits": self.total("hub_cache_hits"),
                "hub_cache_hit_rate": (self.total("hub_cache_hits") / reads) if reads else 0.0,
                "hubs": self.num_hubs, "directions": self.directions(),
                "per_level": [asdict(r) for r in self.records]}


def in_edges(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """The CSC of ``graph``: in-offsets (n + 1) and the in-neighbours sorted by (dst, src)."""
    order = np.lexsort((graph.src, graph.dst))
    counts = np.bincount(graph.dst, minlength=graph.num_vertices)
    offsets = np.zeros(graph.num_vertices + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets, graph.src[order].astype(np.int64)


def _edge_ranges(offsets: np.ndarray, vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edge positions of ``vertices`` in their order, and the owner index of each."""
    starts = offsets[vertices]
    counts = offsets[vertices + 1] - starts
    owner = np.repeat(np.arange(vertices.size), counts)
    shift = starts - (np.cumsum(counts) - counts)
    return np.repeat(shift, counts) + np.arange(int(counts.sum()), dtype=np.int64), owner


class _Traversal:
    def __init__(self, graph: Graph, root: int, opts: BfsOptions):
        self.g, self.opts, self.n = graph, opts, graph.num_vertices
        self.out_off = graph.offsets.astype(np.int64)
        self.out_dst = graph.dst.astype(np.int64)
        self.in_off, self.in_src = in_edges(graph)
        self.out_deg = np.diff(self.out_off)
        self.in_deg = np.diff(self.in_off)
        self.hub = self.out_deg > opts.tau
        self.levels = np.full(self.n, UNREACHED, dtype=np.uint32)
        self.parents = np.full(self.n, -1, dtype=np.int64)
        self.levels[root], self.parents[root] = 0, root
        self.cache = np.full(opts.cache_slots, -1, dtype=np.int64)
        self.records: list[LevelRecord] = []

    def _fill_cache(self, visited: np.ndarray) -> None:
        """The hub cache for the next level: the hubs just visited, the largest id per slot."""
        if not self.cache.size:
            return
        hubs = visited[self.hub[visited]]
        self.cache[:] = -1
        np.maximum.at(self.cache, hubs % self.cache.size, hubs)

    def _classes(self, queue: np.ndarray, degree: np.ndarray) -> tuple[dict, np.ndarray]:
        parts = split_by_class(queue, degree, self.opts.thresholds)
        counts = {name: int(p.size) for name, p in zip(CLASSES, parts)}
        return counts, np.concatenate(parts) if parts else queue

    def top_down(self, level: int, queue: np.ndarray):
        counts, ordered = self._classes(queue, self.out_deg)
        edges, owner = _edge_ranges(self.out_off, ordered)
        dst = self.out_dst[edges]
        fresh = self.levels[dst] == UNREACHED
        new, first = np.unique(dst[fresh], return_index=True)
        self.levels[new] = level
        self.parents[new] = ordered[owner[fresh][first]]
        return counts, int(edges.size), int(edges.size), 0, new

    def bottom_up(self, level: int, queue: np.ndarray):
        counts, ordered = self._classes(queue, self.in_deg)
        edges, owner = _edge_ranges(self.in_off, ordered)
        src = self.in_src[edges]
        cached = (self.cache[src % self.cache.size] == src) if self.cache.size else \
            np.zeros(src.size, dtype=bool)
        stop = cached | (self.levels[src] == level - 1)
        # the first stopping edge of each owner: its position, else past the owner's edges
        ends = np.cumsum(self.in_deg[ordered])
        first_stop = np.full(ordered.size, -1, dtype=np.int64)
        stops = np.flatnonzero(stop)
        owners_of_stops = owner[stops]
        uniq, idx = np.unique(owners_of_stops, return_index=True)
        first_stop[uniq] = stops[idx]
        found = first_stop >= 0
        starts = ends - self.in_deg[ordered]
        checked = np.where(found, first_stop - starts + 1, self.in_deg[ordered])
        hits = int(cached[first_stop[found]].sum())
        new = ordered[found]
        self.levels[new] = level
        self.parents[new] = src[first_stop[found]]
        total = int(checked.sum())
        return counts, total, total - hits, hits, np.sort(new)

    def run(self) -> None:
        opts, n = self.opts, self.n
        num_hubs = int(self.hub.sum())
        root = int(np.flatnonzero(self.parents >= 0)[0])
        direction = "bottomup" if opts.direction == "bottomup" else "topdown"
        self._fill_cache(np.array([root], dtype=np.int64))
        if direction == "topdown":
            queue, workflow = interleaved_scan(self.levels == 0, opts.lanes), "interleaved"
        else:
            queue, workflow = blocked_scan(self.levels == UNREACHED, opts.lanes), "blocked"
        scanned, switched_back, previous_visited, level = n, False, 1, 1
        while queue.size:
            step = self.top_down if direction == "topdown" else self.bottom_up
            counts, checked, reads, hits, new = step(level, queue)
            hubs_visited = int(self.hub[new].sum())
            self.records.append(LevelRecord(level, direction, workflow, int(queue.size), counts,
                                            scanned, checked, reads, hits, int(new.size),
                                            hubs_visited))
            if new.size == 0:
                break
            self._fill_cache(new)
            following = direction
            if opts.direction == "auto":
                if direction == "topdown" and not switched_back and num_hubs and \
                        100 * hubs_visited > opts.gamma_percent * num_hubs:
                    following = "bottomup"
                elif direction == "bottomup" and new.size < n / opts.tail_beta and \
                        new.size < previous_visited:
                    following, switched_back = "topdown", True
            just = self.levels == level
            if following == "topdown":
                queue, workflow, scanned = interleaved_scan(just, opts.lanes), "interleaved", n
            elif direction == "topdown":
                queue = blocked_scan(self.levels == UNREACHED, opts.lanes)
                workflow, scanned = "blocked", n
            else:
                scanned = 0
                queue, workflow = derived_queue(queue, just), "derived"
            direction, previous_visited = following, int(new.size)
            level += 1
        self.num_hubs = num_hubs


def run_bfs(graph: Graph, root: int = 0, options: BfsOptions | None = None,
            **overrides) -> BfsResult:
    """BFS from ``root`` with the given options (or keyword overrides of the defaults)."""
    if not isinstance(graph, Graph):
        raise GraphError(f"run_bfs needs a Graph, got {type(graph).__name__}")
    if options is None:
        options = BfsOptions(**overrides)
    elif overrides:
        raise GraphError("give options or keyword overrides, not both")
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or \
            not 0 <= root < graph.num_vertices:
        raise GraphError(f"root {root!r} is not a vertex of this graph "
                         f"(0..{graph.num_vertices - 1})")
    t = _Traversal(graph, int(root), options)
    t.run()
    return BfsResult(t.levels, t.parents, t.records, t.num_hubs, options)
