"""Golden model of the dynamic graph unit: Awad et al., "Dynamic Graphs on the GPU", on
Ashkiani et al.'s slab hash.

* :mod:`golden.dyngraph.slab` -- the 128-byte slab, its sentinels and the bucket hash.
* :mod:`golden.dyngraph.updates` -- the update file format and the ``mix:`` generator.
* :mod:`golden.dyngraph.slab_graph` -- the slab-hash graph: build, batched operations, counters,
  memory efficiency, its invariants, the graph it holds.

Never imports ``hw/`` or ``sim/``.
"""

from .slab import EMPTY_KEY, NULL_SLAB, SLAB_PAIRS, TOMBSTONE_KEY, bucket_of
from .slab_graph import (Answers, DynCounters, SlabGraph, SlabOptions, buckets_for_degree,
                         edges_of_pool)
from .updates import (OpKind, UpdateError, Updates, generate_updates, load_updates,
                      parse_updates, read_updates, write_updates)

__all__ = ["EMPTY_KEY", "NULL_SLAB", "SLAB_PAIRS", "TOMBSTONE_KEY", "bucket_of", "Answers",
           "DynCounters", "SlabGraph", "SlabOptions", "buckets_for_degree", "edges_of_pool",
           "OpKind", "UpdateError", "Updates", "generate_updates", "load_updates",
           "parse_updates", "read_updates", "write_updates"]
