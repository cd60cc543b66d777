"""The hub index that DepGraph's DDMU builds and uses at run time.

DepGraph (Zhang et al., HPCA 2021) section III-B: "generating the hub index", "maintaining the
hub index" and "shortcut propagation".  One entry per core path of length >= 2 whose
interior vertices the walk may enter (see :mod:`golden.depgraph.hubs`; the others could
never be observed): ``<head, tail, L, mu, eps, flag>`` with L = the path's second
vertex (core paths share no edges, so (head, L) names a path), flag N (nothing known),
I (one observation held in the mu/eps fields) or A (mu, eps available).  Entries are sorted
by (head, L); the hash-table view ``<vertex id, begin offset, end offset>`` gives the slice of
the entry array that belongs to a head (``begin``/``end`` are entry indices).

Learning (two observations, as the paper).  An observation of path j is a pair (x, y):
x = the value the head propagated at its visit (its new state for min, its folded delta for
sum) and y = the value that x produces at the tail *through this path*, i.e. EdgeCompute
composed along the edges the walk followed (the HDTL keeps it per stack entry as the walk
descends).  It is taken when the walk, rooted at the head and with L at depth 2, processes an
edge from depth ``length`` to the tail.  The first observation is stored (flag I); the second,
with a different x, gives mu = (y' - y)/(x' - x) and eps = y' - mu·x' (flag A).  An equal x
replaces the stored observation.

Why y and not the tail's state (the paper's literal (s_head, s_tail) pair): the tail's state
also depends on other routes, so a fit of states can give an eps below every real path
weight.  Example: the core path h→a→t weighs 15; the observed states are (s_h, s_t) =
(10, 20) and then (4, 14), both tail values coming from other routes; the fit mu = 1,
eps = 10 would later give t the distance s_h + 10, shorter than any path, and SSSP would
return a wrong result.  The carried value y is exact, so:

* min type: the fit is accepted only if y' - y == x' - x exactly (mu = 1) and y' is not
  saturated; then eps = y' - x' is the weight of a path the walk really took from head to
  tail, so ``x + eps`` is an upper bound reached by a real path and min-Accum of it cannot
  change the fixpoint.  A rejected fit keeps flag I with the newer observation.
* sum type: every shortcut value z is lent to the tail and paid back by the pseudo-edge
  <-1, tail, NULL, z> (see :mod:`golden.depgraph.engine`), so the fixpoint is exactly the one
  without shortcuts whatever finite mu and eps are; the fit only decides how useful the loan
  is. A fit with an infinite or NaN mu or eps is refused (z - z would not cancel).

A walk with the same (head, L, tail, length) but a different interior route would observe a
different function; by the two rules above that is harmless for correctness.

Memory (hardware layout, 32-bit fields): an entry is head, tail, L, mu, eps and a word for
flag and length = 24 bytes; a hash-table slot <vertex id, begin, end> is 12 bytes, one per head.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph import Graph
from .hubs import CoreStructure

__all__ = ["HubIndex", "FLAG_N", "FLAG_I", "FLAG_A", "ENTRY_BYTES", "HASH_SLOT_BYTES",
           "graph_csr_bytes"]

FLAG_N, FLAG_I, FLAG_A = 0, 1, 2
ENTRY_BYTES = 24
HASH_SLOT_BYTES = 12
_U32 = 2**32 - 1


def graph_csr_bytes(graph: Graph) -> int:
    """Bytes of the CSR the engines read: (n+1) 32-bit offsets, m 32-bit destinations and,
    for a weighted graph, m 32-bit weights."""
    words = graph.num_vertices + 1 + graph.num_edges * (2 if graph.weight is not None else 1)
    return 4 * words


@dataclass
class HubIndex:
    """Hub-index entries (numpy arrays) plus the hash-table view and learning counters."""

    head: np.ndarray
    tail: np.ndarray
    second: np.ndarray
    length: np.ndarray
    is_min: bool
    mu: np.ndarray = field(init=False)
    eps: np.ndarray = field(init=False)
    flag: np.ndarray = field(init=False)
    table: dict = field(init=False)
    by_path: dict = field(init=False)
    learned: int = 0
    rejected: int = 0
    observations: int = 0

    def __post_init__(self) -> None:
        k = self.head.size
        self.mu = np.zeros(k, dtype=np.float64)
        self.eps = np.zeros(k, dtype=np.float64)
        self.flag = np.zeros(k, dtype=np.int8)
        self.table = {}
        if k:
            starts = np.flatnonzero(np.r_[True, self.head[1:] != self.head[:-1]])
            ends = np.r_[starts[1:], k]
            self.table = {int(self.head[b]): (int(b), int(e)) for b, e in zip(starts, ends)}
        self.by_path = {(int(h), int(s)): j for j, (h, s) in enumerate(zip(self.head,
                                                                             self.second))}

    @classmethod
    def from_core(cls, core: CoreStructure, is_min: bool,
                  walkable: np.ndarray | None = None) -> HubIndex:
        """One N entry per core path of length >= 2, sorted by (head, L).

        With ``walkable`` (per vertex: the walk may descend into it) only paths whose
        interior vertices are all walkable get an entry; the others could never be observed.
        """
        lengths = core.lengths
        off = core.path_offsets
        flat = core.paths_flat
        ok = lengths >= 2
        if walkable is not None and flat.size:
            interior = np.ones(flat.size, dtype=bool)
            interior[off[:-1]] = False                   # heads
            interior[off[1:] - 1] = False                # tails
            blocked = interior & ~walkable[flat]
            path_of = np.repeat(np.arange(lengths.size), lengths + 1)
            ok &= np.bincount(path_of[blocked], minlength=lengths.size) == 0
        keep = np.flatnonzero(ok)
        return cls(head=flat[off[keep]].astype(np.int64),
                   tail=flat[off[keep + 1] - 1].astype(np.int64),
                   second=flat[off[keep] + 1].astype(np.int64),
                   length=lengths[keep].astype(np.int64), is_min=is_min)

    @property
    def num_entries(self) -> int:
        return int(self.head.size)

    @property
    def memory_bytes(self) -> int:
        return ENTRY_BYTES * self.num_entries + HASH_SLOT_BYTES * len(self.table)

    def entries_of(self, vertex: int) -> tuple[int, int]:
        """The hash-table lookup: (begin, end) entry offsets of ``vertex`` ((0, 0) if none)."""
        return self.table.get(vertex, (0, 0))

    def entry_for(self, head: int, second: int) -> int:
        """Index of the entry of path (head, L), or -1."""
        return self.by_path.get((head, second), -1)

    def observe(self, j: int, x: float, y: float) -> None:
        """One observation (x at the head, y carried to the tail) of entry ``j``."""
        if self.flag[j] == FLAG_A:
            return
        self.observations += 1
        if self.is_min and y >= _U32:
            return                                   # saturated: not on the line
        if self.flag[j] == FLAG_N or self.mu[j] == x:
            self.mu[j], self.eps[j], self.flag[j] = x, y, FLAG_I
            return
        x0, y0 = self.mu[j], self.eps[j]
        if self.is_min:
            if y - y0 != x - x0:
                self.rejected += 1
                self.mu[j], self.eps[j] = x, y
                return
            self.mu[j], self.eps[j] = 1.0, y - x
        else:
            mu = (y - y0) / (x - x0)
            eps = y - mu * x
            if not (np.isfinite(mu) and np.isfinite(eps)):
                # An infinite or NaN shortcut could not be paid back by its pseudo-edge.
                self.rejected += 1
                self.mu[j], self.eps[j] = x, y
                return
            self.mu[j], self.eps[j] = mu, eps
        self.flag[j] = FLAG_A
        self.learned += 1

    def shortcut_value(self, j: int, x: float):
        """mu·x + eps of an A entry: uint32 saturating for min, float for sum."""
        if self.is_min:
            return min(int(x) + int(self.eps[j]), _U32)
        return float(self.mu[j] * x + self.eps[j])

    def counts(self) -> dict:
        return {"entries": self.num_entries, "heads": len(self.table),
                "available": int(np.count_nonzero(self.flag == FLAG_A)),
                "initial": int(np.count_nonzero(self.flag == FLAG_I)),
                "learned": self.learned, "rejected_fits": self.rejected,
                "observations": self.observations}
