"""Compaction of the slab-hash graph into the sorted-by-source edge list an analytics pipeline
reads (issue 19, item 3: "a unit that compacts slabs into the edge list the pipeline reads").

The order is the compactor's walk: vertices by id; a vertex's buckets in order; each bucket's
chain from its base slab; a slab's live cells in cell order. Sources come out ascending, so
the list is Graphicionado's edge list (§3.1) with its EdgeIDTable; within a source the
destinations follow the hash, not their ids. Graphicionado's results do not depend on that
order: a destination's contributions still arrive by ascending source (a source has at most
one edge to it), so even PageRank's float32 sums are the ones of the sorted list.
"""

import dataclasses

import numpy as np

from .slab import EMPTY_KEY, NEXT_WORD, NULL_SLAB, SLAB_PAIRS, TOMBSTONE_KEY
from .slab_graph import SlabGraph


__all__ = ["CompactedGraph", "compact"]


@dataclasses.dataclass
class CompactedGraph:
    """The compactor's output for ``num_vertices`` vertices.

    ``src``, ``dst``, ``weight``: the edges in walk order; ``edge_id_table``: vertex ``u``'s
    first edge at entry ``u``, the edge count at entry ``num_vertices``; ``degree``: each
    vertex's out-degree; ``inv_degree``: float32(1) / degree, 0.0 without out-edges (PageRank's
    VConst, as :func:`golden.algorithms.pagerank_inv_outdeg`)."""
    num_vertices: int
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray
    edge_id_table: np.ndarray
    degree: np.ndarray
    inv_degree: np.ndarray
    slab_reads: int              # base slabs and chain slabs read by the walk

    @property
    def num_edges(self) -> int:
        return len(self.src)


def compact(state: SlabGraph, num_vertices: int | None = None) -> CompactedGraph:
    """Walk ``state``'s vertices ``0 .. num_vertices - 1`` (default: all) as the compactor
    does."""
    n = state.max_vertices if num_vertices is None else num_vertices
    src, dst, weight = [], [], []
    slab_reads = 0
    for u in np.flatnonzero(state.present[:n]):
        first = int(state.base[u])
        for bucket in range(int(state.buckets[u])):
            slab = first + bucket
            while slab != NULL_SLAB:
                slab_reads += 1
                words = state.pool[slab]
                keys, values = words[0:2 * SLAB_PAIRS:2], words[1:2 * SLAB_PAIRS:2]
                live = (keys != EMPTY_KEY) & (keys != TOMBSTONE_KEY)
                dst.append(keys[live])
                weight.append(values[live])
                src.append(np.full(int(live.sum()), u, dtype=np.int64))
                slab = int(words[NEXT_WORD])

    def joined(parts, dtype):
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)

    src, dst = joined(src, np.int64), joined(dst, np.int64)
    weight = joined(weight, np.uint32)
    degree = np.bincount(src, minlength=n).astype(np.int64)
    table = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=table[1:])
    inv = np.zeros(n, dtype=np.float32)
    np.divide(np.float32(1.0), degree.astype(np.float32), out=inv, where=degree > 0)
    return CompactedGraph(n, src, dst, weight, table, degree, inv, slab_reads)
