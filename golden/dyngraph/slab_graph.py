"""The slab-hash graph: every vertex's out-adjacency a hash table of slabs, updated in batches
(Awad et al., "Dynamic Graphs on the GPU", on Ashkiani et al.'s slab hash): the golden model
of the dynamic graph unit.

State, as the hardware keeps it in memory:

* the **vertex table**, one entry per vertex id below ``max_vertices``: present, the first of
  its ``buckets`` base slabs (consecutive), and its out-degree (the paper keeps each vertex's
  number of neighbours);
* the **slab pool** of ``pool_slabs`` slabs (:mod:`golden.dyngraph.slab`);
* the **allocator**: a stack of free slab indices; a slab popped is written empty with its
  owner, a slab freed gets ``FREE_OWNER`` as owner.

**Build** (the host's bulk load): vertex u gets ``ceil(deg(u) / (15 * load factor))`` buckets,
at least 1 and at most ``max_buckets``, edge (u, v) goes to bucket ``bucket_of(v, buckets(u))`` and fills its chain in the
graph's (src, dst) order, 15 pairs a slab; the base slabs of all vertices come first in the
pool, in vertex order, then the overflow slabs in (vertex, bucket, chain position) order; the
rest is free, handed out lowest index first.  A repeated (u, v) in the graph keeps its last
weight.  Unweighted graphs get weight 1.

**Operations**, each on the state every earlier one left (file order):

* a **walk** of u's chain for key v reads slab after slab from the base slab of v's bucket and
  stops at the slab holding v, at a slab holding an empty cell (nothing lies beyond it) or at
  the chain's end; it notes the first free cell (empty or tombstone) on its way;
* insert (u, v, w): found -> the weight replaced; else into the first free cell; else a slab
  is allocated, linked after the last one and the pair put in its cell 0; with no free slab
  the insert is refused and counted (nothing changes);
* delete (u, v): found -> the key becomes a tombstone; search (u, v): the weight or absent;
* an edge operation with u or v not present is skipped and counted;
* insert vertex u: one bucket, its slab allocated (refused and counted when none is free);
  already present -> counted, nothing changes;
* delete vertex: a run of up to ``sweep_group`` consecutive vertex deletions is done together:
  each present vertex's chains are read and their slabs freed (in bucket order, base slab
  first), then one **sweep** reads the whole pool and turns every pair whose key is one of
  the deleted vertices into a tombstone in the slabs still owned (their owners' degrees
  drop).  A vertex deletion of an absent vertex is counted and changes nothing.

Counters follow exactly these rules (slabs read by walks, by frees and by sweeps, allocations,
refusals...), so the RTL can be compared with them, not only with the final adjacency.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ..graph import Graph, GraphError
from .slab import (AUX_WORD, EMPTY_KEY, FREE_OWNER, MAX_VERTEX_ID, NEXT_WORD, NULL_SLAB,
                   SLAB_BYTES, SLAB_PAIRS, SLAB_WORDS, TOMBSTONE_KEY, bucket_of, empty_slab)
from .updates import OpKind, Updates

__all__ = ["SlabOptions", "DynCounters", "SlabGraph", "Answers", "buckets_for_degree",
           "edges_of_pool"]

_KEYS = slice(0, 2 * SLAB_PAIRS, 2)
_PAIR_BYTES = 8


@dataclass(frozen=True)
class SlabOptions:
    """The slab-hash graph's parameters (the hardware configuration uses the same names).

    Parameters
    ----------
    load_factor_percent : int
        Target fill of the base slabs at build time, 1..100 (the paper's load factor).
    pool_slabs : int
        Slabs in the pool; 0 sizes it as twice the build's slabs plus 64.
    max_vertices : int
        Vertex ids are below this; 0 takes the graph's vertex count.
    sweep_group : int
        Consecutive vertex deletions that share one sweep of the pool.
    max_buckets : int
        Base buckets a vertex gets at most (the hardware's vertex word holds 12 bits of it).
    """
    load_factor_percent: int = 70
    pool_slabs: int = 0
    max_vertices: int = 0
    sweep_group: int = 8
    max_buckets: int = 4095

    def __post_init__(self) -> None:
        for name in ("load_factor_percent", "pool_slabs", "max_vertices", "sweep_group",
                     "max_buckets"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise GraphError(f"{name} must be a non-negative integer, got {value!r}")
        if not 1 <= self.load_factor_percent <= 100:
            raise GraphError(f"load_factor_percent must be 1..100, got {self.load_factor_percent}")
        if self.sweep_group < 1:
            raise GraphError("sweep_group must be at least 1")
        if self.max_buckets < 1:
            raise GraphError("max_buckets must be at least 1")
        if self.max_vertices > MAX_VERTEX_ID + 1:
            raise GraphError(f"max_vertices must be at most {MAX_VERTEX_ID + 1}")


@dataclass
class DynCounters:
    """What the operations did, by the rules of the module docstring."""
    operations: dict[str, int] = field(default_factory=lambda: {k.name.lower(): 0 for k in OpKind})
    skipped: int = 0                  # edge operations on an absent vertex
    inserted: int = 0                 # edge inserts that added a pair
    replaced: int = 0                 # edge inserts that replaced a weight
    deleted: int = 0                  # edge deletes that found their edge
    delete_misses: int = 0
    search_hits: int = 0
    search_misses: int = 0
    vertices_inserted: int = 0
    vertex_insert_present: int = 0    # insert of a vertex already present
    vertices_deleted: int = 0
    vertex_delete_absent: int = 0
    in_edges_removed: int = 0         # pairs the sweeps turned into tombstones
    walk_slab_reads: int = 0          # slabs read by edge operations' walks
    free_slab_reads: int = 0          # slabs read to free a deleted vertex's chains
    sweeps: int = 0
    sweep_slab_reads: int = 0         # every slab of the pool, once a sweep
    allocations: int = 0
    allocation_failures: int = 0      # inserts refused: no free slab
    slabs_freed: int = 0

    def as_dict(self) -> dict:
        return asdict(self)

    def add(self, other: DynCounters) -> None:
        for name, value in other.__dict__.items():
            if isinstance(value, dict):
                for key, count in value.items():
                    getattr(self, name)[key] += count
            else:
                setattr(self, name, getattr(self, name) + value)


@dataclass(frozen=True)
class Answers:
    """The searches' answers in the order asked: found, and the weight where found."""
    found: np.ndarray
    weight: np.ndarray

    def lines(self) -> list[str]:
        return [str(int(w)) if f else "-" for f, w in zip(self.found, self.weight)]


def buckets_for_degree(degree, load_factor_percent: int, max_buckets: int = 4095):
    """Base buckets of a vertex of this out-degree: enough that its pairs fill them to the load
    factor, at least one, at most ``max_buckets``."""
    degree = np.asarray(degree, dtype=np.int64)
    per = SLAB_PAIRS * load_factor_percent
    return np.clip((100 * degree + per - 1) // per, 1, max_buckets)


def _graph_weights(graph: Graph) -> np.ndarray:
    if graph.weight is None:
        return np.ones(graph.num_edges, dtype=np.uint32)
    if graph.weight.dtype.kind == "f":
        raise GraphError("the slab-hash graph keeps uint32 weights; this graph's are floating "
                         "point")
    return graph.weight.astype(np.uint32)


class SlabGraph:
    """The slab-hash graph's state and its operations (module docstring)."""

    def __init__(self, options: SlabOptions, max_vertices: int, pool_slabs: int) -> None:
        self.options = options
        self.max_vertices = max_vertices
        self.pool = np.zeros((pool_slabs, SLAB_WORDS), dtype=np.uint32)
        self.pool[:, _KEYS] = EMPTY_KEY
        self.pool[:, AUX_WORD] = FREE_OWNER
        self.pool[:, NEXT_WORD] = NULL_SLAB
        self.present = np.zeros(max_vertices, dtype=bool)
        self.base = np.zeros(max_vertices, dtype=np.uint32)
        self.buckets = np.zeros(max_vertices, dtype=np.uint32)
        self.degree = np.zeros(max_vertices, dtype=np.uint32)
        self.free: list[int] = list(range(pool_slabs - 1, -1, -1))   # popped from the end

    # ------------------------------------------------------------------ build

    @classmethod
    def build(cls, graph: Graph, options: SlabOptions = SlabOptions()) -> SlabGraph:
        n = graph.num_vertices
        max_vertices = options.max_vertices or n
        if max_vertices < n:
            raise GraphError(f"the graph has {n} vertices, more than max_vertices "
                             f"({max_vertices})")
        if max_vertices == 0:
            raise GraphError("the slab-hash graph needs at least one vertex")
        weight = _graph_weights(graph)
        src, dst = graph.src.astype(np.int64), graph.dst.astype(np.int64)
        last = np.ones(src.size, dtype=bool)         # keep the last of repeated (u, v)
        if src.size > 1:
            last[:-1] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
        src, dst, weight = src[last], dst[last], weight[last]
        degree = np.bincount(src, minlength=n)
        buckets = buckets_for_degree(degree, options.load_factor_percent, options.max_buckets)
        base = np.concatenate(([0], np.cumsum(buckets)[:-1]))
        bucket = bucket_of(dst, buckets[src]) if src.size else np.zeros(0, dtype=np.int64)
        group = base[src] + bucket                   # the base slab of each edge's bucket
        order = np.lexsort((np.arange(src.size), group))
        group_sorted = group[order]
        starts = np.flatnonzero(np.r_[True, group_sorted[1:] != group_sorted[:-1]]) \
            if src.size else np.zeros(0, dtype=np.int64)
        position = np.arange(src.size) - np.repeat(starts, np.diff(np.r_[starts, src.size]))
        chain, cell = position // SLAB_PAIRS, position % SLAB_PAIRS
        overflow = chain > 0                          # in (vertex, bucket, chain) order
        base_slabs = int(buckets.sum())
        slab_sorted = group_sorted.copy()
        opens = overflow & (cell == 0)                # an overflow slab's first pair
        slab_sorted[overflow] = base_slabs + np.cumsum(opens)[overflow] - 1
        used = base_slabs + int(opens.sum())
        pool_slabs = options.pool_slabs or 2 * used + 64
        if pool_slabs < used:
            raise GraphError(f"the graph needs {used} slabs, more than pool_slabs ({pool_slabs})")
        state = cls(options, max_vertices, pool_slabs)
        state.present[:n] = True
        state.base[:n] = base
        state.buckets[:n] = buckets
        state.degree[:n] = degree
        owners = np.repeat(np.arange(n), buckets)
        state.pool[:base_slabs, AUX_WORD] = owners
        state.pool[base_slabs:used, AUX_WORD] = src[order][opens]
        state.pool[slab_sorted, 2 * cell] = dst[order]
        state.pool[slab_sorted, 2 * cell + 1] = weight[order]
        # Each overflow slab follows the slab holding the previous 15 pairs of its bucket.
        first = np.flatnonzero(opens)
        state.pool[slab_sorted[first - SLAB_PAIRS], NEXT_WORD] = slab_sorted[first]
        state.free = list(range(pool_slabs - 1, used - 1, -1))
        return state

    # ------------------------------------------------------------------ the operations

    def _walk(self, u: int, v: int, counters: DynCounters):
        """Read u's chain for key v: (slab, cell) of v or None, the first free (slab, cell) or
        None, and the last slab read."""
        slab = int(self.base[u]) + bucket_of(v, int(self.buckets[u]))
        free = None
        while True:
            counters.walk_slab_reads += 1
            keys = self.pool[slab, _KEYS]
            hit = np.flatnonzero(keys == v)
            if hit.size:
                return (slab, int(hit[0])), free, slab
            if free is None:
                open_cells = np.flatnonzero((keys == EMPTY_KEY) | (keys == TOMBSTONE_KEY))
                if open_cells.size:
                    free = (slab, int(open_cells[0]))
            following = int(self.pool[slab, NEXT_WORD])
            if (keys == EMPTY_KEY).any() or following == NULL_SLAB:
                return None, free, slab
            slab = following

    def _allocate(self, owner: int, counters: DynCounters) -> int | None:
        if not self.free:
            counters.allocation_failures += 1
            return None
        slab = self.free.pop()
        self.pool[slab] = empty_slab(owner)
        counters.allocations += 1
        return slab

    def _edge_op(self, kind: OpKind, u: int, v: int, w: int, counters: DynCounters,
                 answers: list) -> None:
        if not (self.present[u] and self.present[v]):
            counters.skipped += 1
            if kind == OpKind.SEARCH_EDGE:
                answers.append(None)
            return
        found, free, last = self._walk(u, v, counters)
        if kind == OpKind.SEARCH_EDGE:
            answers.append(None if found is None else int(self.pool[found[0], 2 * found[1] + 1]))
            if found is None:
                counters.search_misses += 1
            else:
                counters.search_hits += 1
        elif kind == OpKind.DELETE_EDGE:
            if found is None:
                counters.delete_misses += 1
            else:
                self.pool[found[0], 2 * found[1]] = TOMBSTONE_KEY
                self.degree[u] -= 1
                counters.deleted += 1
        elif found is not None:
            self.pool[found[0], 2 * found[1] + 1] = w
            counters.replaced += 1
        else:
            if free is None:
                slab = self._allocate(u, counters)
                if slab is None:
                    return
                self.pool[last, NEXT_WORD] = slab
                free = (slab, 0)
            self.pool[free[0], 2 * free[1]] = v
            self.pool[free[0], 2 * free[1] + 1] = w
            self.degree[u] += 1
            counters.inserted += 1

    def _insert_vertex(self, u: int, counters: DynCounters) -> None:
        if self.present[u]:
            counters.vertex_insert_present += 1
            return
        slab = self._allocate(u, counters)
        if slab is None:
            return
        self.present[u] = True
        self.base[u], self.buckets[u], self.degree[u] = slab, 1, 0
        counters.vertices_inserted += 1

    def _free_vertex(self, u: int, counters: DynCounters) -> None:
        for bucket in range(int(self.buckets[u])):
            slab = int(self.base[u]) + bucket
            while slab != NULL_SLAB:
                counters.free_slab_reads += 1
                following = int(self.pool[slab, NEXT_WORD])
                self.pool[slab, AUX_WORD] = FREE_OWNER
                self.free.append(slab)
                counters.slabs_freed += 1
                slab = following
        self.present[u] = False
        self.buckets[u] = self.degree[u] = self.base[u] = 0
        counters.vertices_deleted += 1

    def _sweep(self, deleted: list[int], counters: DynCounters) -> None:
        counters.sweeps += 1
        counters.sweep_slab_reads += len(self.pool)
        owned = self.pool[:, AUX_WORD] != FREE_OWNER
        keys = self.pool[:, _KEYS]
        hits = np.isin(keys, np.array(deleted, dtype=np.uint32)) & owned[:, None]
        if not hits.any():
            return
        rows, cells = np.nonzero(hits)
        self.pool[rows, 2 * cells] = TOMBSTONE_KEY
        np.subtract.at(self.degree, self.pool[rows, AUX_WORD].astype(np.int64), 1)
        counters.in_edges_removed += int(rows.size)

    def apply(self, updates: Updates) -> tuple[Answers, DynCounters]:
        """Apply the operations in order; ids are checked against ``max_vertices`` first, so a
        bad line changes nothing."""
        updates.check_ids(self.max_vertices)
        counters = DynCounters()
        answers: list[int | None] = []
        kinds = updates.kind.tolist()
        us, vs, ws = updates.u.tolist(), updates.v.tolist(), updates.w.tolist()
        index = 0
        while index < len(kinds):
            kind = OpKind(kinds[index])
            counters.operations[kind.name.lower()] += 1
            if kind == OpKind.DELETE_VERTEX:
                group = [index]
                while (len(group) < self.options.sweep_group and group[-1] + 1 < len(kinds)
                       and kinds[group[-1] + 1] == OpKind.DELETE_VERTEX):
                    group.append(group[-1] + 1)
                    counters.operations["delete_vertex"] += 1
                deleted = []
                for op in group:
                    if self.present[us[op]]:
                        self._free_vertex(us[op], counters)
                        deleted.append(us[op])
                    else:
                        counters.vertex_delete_absent += 1
                if deleted:
                    self._sweep(deleted, counters)
                index = group[-1] + 1
                continue
            if kind == OpKind.INSERT_VERTEX:
                self._insert_vertex(us[index], counters)
            else:
                self._edge_op(kind, us[index], vs[index], ws[index], counters, answers)
            index += 1
        found = np.array([a is not None for a in answers], dtype=bool)
        weight = np.array([0 if a is None else a for a in answers], dtype=np.uint32)
        return Answers(found, weight), counters

    def apply_batches(self, updates: Updates, batch: int | None
                      ) -> tuple[Answers, DynCounters, int]:
        """Apply the operations ``batch`` at a time (all at once if None): the answers in the
        order asked, the counters summed, and the number of batches."""
        updates.check_ids(self.max_vertices)
        counters = DynCounters()
        found, weights = [], []
        batches = updates.batches(batch)
        for indices in batches:
            answers, part = self.apply(updates.slice(indices))
            counters.add(part)
            found.append(answers.found)
            weights.append(answers.weight)
        answers = Answers(np.concatenate(found) if found else np.zeros(0, dtype=bool),
                          np.concatenate(weights) if weights else np.zeros(0, dtype=np.uint32))
        return answers, counters, len(batches)

    # ------------------------------------------------------------------ reading it back

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every live pair as (src, dst, weight), sorted by src then dst."""
        return edges_of_pool(self.pool)

    def to_graph(self) -> Graph:
        """The graph now held: ``max_vertices`` vertices (absent ones isolated), uint32
        weights."""
        src, dst, weight = self.edges()
        return Graph.from_edges(self.max_vertices, src, dst, weight)

    def slabs_in_use(self) -> int:
        return len(self.pool) - len(self.free)

    def memory_efficiency(self) -> float:
        """Bytes of live (key, value) pairs over bytes of slabs in use (the paper's figure; a
        slab full of pairs gives 15 * 8 / 128 = 93.75%)."""
        used = self.slabs_in_use()
        return 0.0 if used == 0 else int(self.degree.sum()) * _PAIR_BYTES / (used * SLAB_BYTES)

    def chain_lengths(self) -> np.ndarray:
        """Slabs in each bucket's chain, for every bucket of every present vertex."""
        lengths = []
        for u in np.flatnonzero(self.present):
            for bucket in range(int(self.buckets[u])):
                slab, length = int(self.base[u]) + bucket, 0
                while slab != NULL_SLAB:
                    length += 1
                    slab = int(self.pool[slab, NEXT_WORD])
                lengths.append(length)
        return np.array(lengths, dtype=np.int64)

    def figures(self) -> dict:
        chains = self.chain_lengths()
        return {"vertices": int(self.present.sum()), "edges": int(self.degree.sum()),
                "slabs_in_use": self.slabs_in_use(), "pool_slabs": len(self.pool),
                "memory_efficiency": self.memory_efficiency(),
                "buckets": int(chains.size),
                "chain_length_max": int(chains.max()) if chains.size else 0,
                "chain_length_mean": float(chains.mean()) if chains.size else 0.0}

    def check(self) -> None:
        """Raise GraphError unless the state keeps the structure's invariants: every chain's
        slabs owned by its vertex and reached once, no key twice in a table, empty cells only
        as a suffix of a chain, degrees equal to the live pairs, the free stack exactly the
        unowned slabs."""
        seen = np.zeros(len(self.pool), dtype=bool)
        for u in np.flatnonzero(self.present):
            live = 0
            table_keys = []
            for bucket in range(int(self.buckets[u])):
                slab, empty_seen = int(self.base[u]) + bucket, False
                while slab != NULL_SLAB:
                    if slab >= len(self.pool) or seen[slab]:
                        raise GraphError(f"vertex {u}: chain reaches slab {slab} twice or "
                                         f"outside the pool")
                    seen[slab] = True
                    if int(self.pool[slab, AUX_WORD]) != u:
                        raise GraphError(f"vertex {u}: slab {slab} is owned by "
                                         f"{int(self.pool[slab, AUX_WORD])}")
                    keys = self.pool[slab, _KEYS]
                    empty = keys == EMPTY_KEY
                    if empty_seen and not empty.all():
                        raise GraphError(f"vertex {u}: pairs after an empty cell (slab {slab})")
                    if empty.any() and not empty[int(np.argmax(empty)):].all():
                        raise GraphError(f"vertex {u}: pairs after an empty cell (slab {slab})")
                    empty_seen |= bool(empty.any())
                    pairs = keys[(keys != EMPTY_KEY) & (keys != TOMBSTONE_KEY)]
                    if (bucket_of(pairs, int(self.buckets[u])) != bucket).any():
                        raise GraphError(f"vertex {u}: a key in slab {slab} is in the wrong "
                                         f"bucket")
                    table_keys.append(pairs)
                    live += pairs.size
                    slab = int(self.pool[slab, NEXT_WORD])
            keys = np.concatenate(table_keys) if table_keys else np.zeros(0)
            if np.unique(keys).size != keys.size:
                raise GraphError(f"vertex {u}: a key appears twice in its table")
            if live != int(self.degree[u]):
                raise GraphError(f"vertex {u}: degree {int(self.degree[u])}, {live} live pairs")
        owned = self.pool[:, AUX_WORD] != FREE_OWNER
        if (owned != seen).any():
            slab = int(np.flatnonzero(owned != seen)[0])
            raise GraphError(f"slab {slab} is owned but on no chain, or on a chain but free")
        free = np.array(self.free, dtype=np.int64)
        if np.unique(free).size != free.size or owned[free].any() \
                or free.size != int((~owned).sum()):
            raise GraphError("the free stack is not exactly the free slabs")


def edges_of_pool(pool: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every live pair of a slab pool as (src, dst, weight) sorted by (src, dst): the owner
    word of each slab names the source, so no chain is walked."""
    owner = pool[:, AUX_WORD]
    keys = pool[:, _KEYS]
    live = (keys != EMPTY_KEY) & (keys != TOMBSTONE_KEY) & (owner != FREE_OWNER)[:, None]
    rows, cells = np.nonzero(live)
    src = owner[rows].astype(np.int64)
    dst = keys[rows, cells].astype(np.int64)
    weight = pool[rows, 2 * cells + 1]
    order = np.lexsort((dst, src))
    return src[order], dst[order], weight[order]

