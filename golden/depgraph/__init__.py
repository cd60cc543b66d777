"""Golden model of DepGraph (Zhang et al., HPCA 2021): the specification its RTL will match.

* :mod:`golden.depgraph.gas` -- the GAS algorithms (PageRank, SSSP, BFS, CC) as data, and
  the linearity check that gates dependency transformation (section III-A).
* :mod:`golden.depgraph.hubs` -- hub selection by sampling, partitions, core paths and the
  H'' bitmap (section III-A definitions 1-2, III-B configuration).
* :mod:`golden.depgraph.hub_index` -- the DDMU's hub index: entries, hash-table view, the
  two-observation learning and shortcut values (section III-B).
* :mod:`golden.depgraph.engine` -- the dependency-driven asynchronous executor: circular
  queues, HDTL depth-first walks with a bounded stack, FIFO edge buffer, PE, pseudo-edges.
* :mod:`golden.depgraph.counters` -- the event counters both executors report.
* :mod:`golden.depgraph.baseline` -- the bulk-synchronous frontier baseline (Ligra-o style).
* :mod:`golden.depgraph.ligra` -- the paper's baseline Ligra-o: frontier push, asynchronous,
  T threads.
* :mod:`golden.depgraph.run` -- :func:`run_depgraph`, :func:`run_sync_baseline` and
  :func:`run_ligra_baseline`.

Never imports ``hw/`` or ``sim/``.
"""

from .baseline import run_sync
from .counters import Counters
from .engine import execute
from .gas import (BFS, CC, DAMPING, GAS_ALGORITHMS, PAGERANK, SSSP, GasAlgorithm, check_linear,
                  get_algorithm, source_constants)
from .hub_index import (ENTRY_BYTES, FLAG_A, FLAG_I, FLAG_N, HASH_SLOT_BYTES, HubIndex,
                        graph_csr_bytes)
from .hubs import (CoreStructure, HubSelection, core_structure, hub_degree, owner_of,
                   partition_bounds, select_hubs)
from .run import (DEFAULT_TOLERANCE, DepGraphResult, HubStats, LigraResult, SyncResult,
                  run_depgraph, run_ligra_baseline, run_sync_baseline)

__all__ = [
    "run_depgraph", "run_sync_baseline", "run_ligra_baseline", "DepGraphResult", "SyncResult",
    "LigraResult", "HubStats",
    "DEFAULT_TOLERANCE", "Counters", "execute", "run_sync",
    "GasAlgorithm", "PAGERANK", "SSSP", "BFS", "CC", "GAS_ALGORITHMS", "DAMPING",
    "get_algorithm", "check_linear", "source_constants",
    "HubIndex", "FLAG_N", "FLAG_I", "FLAG_A", "ENTRY_BYTES", "HASH_SLOT_BYTES",
    "graph_csr_bytes",
    "HubSelection", "CoreStructure", "select_hubs", "partition_bounds", "owner_of",
    "core_structure", "hub_degree",
]
