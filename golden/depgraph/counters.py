"""Event counters of a run, shared by the DepGraph engines and the synchronous baseline.

DepGraph (Zhang et al., HPCA 2021) section IV reports vertex updates (figure 10); the other
counts describe the engine activity of :mod:`golden.depgraph.engine` (queues, stack, DDMU).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["Counters"]


@dataclass
class Counters:
    """Event counts of a run (DepGraph engines or the synchronous baseline)."""

    vertex_updates: int = 0      # folds that changed a state (min) / folded a delta (sum)
    edges_fetched: int = 0       # real edges the PE processed
    shortcut_uses: int = 0       # A entries applied at a head visit
    stack_overflows: int = 0     # activations not descended into because the stack was full
    queue_pushes: int = 0        # ids appended to a circular queue / frontier insertions
    visits: int = 0              # visits that folded a delta (= vertex_updates here)
    stale_visits: int = 0        # visits of an active vertex that had nothing worth folding
    stale_pops: int = 0          # queue pops of an id that was no longer active
    pseudo_edges: int = 0        # compensating pseudo-edges processed (sum type)
    queue_overflows: int = 0     # pushes refused by a full queue (spill)
    rescans: int = 0             # partition rescans after a spill
    rounds: int = 0              # scheduler rounds (baseline: iterations)
    thread_steps: int = 0        # Ligra-o: steps in which a thread had a vertex to visit
    thread_work: int = 0         # Ligra-o: visits weighted by out-degree (a stale one: 1)
    span: int = 0                # Ligra-o: the steps' longest weighted visits, summed

    def as_dict(self) -> dict:
        return asdict(self)
