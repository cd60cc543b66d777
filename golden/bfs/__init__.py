"""Golden model of the BFS engine: Enterprise (Liu & Huang, SC'15) and Luo et al. (DAC'10).

* :mod:`golden.bfs.frontier` -- frontier queues without atomics or duplicates: interleaved and
  blocked scans of the status array, the bottom-up queue derived from the previous one, and
  the four degree classes (Enterprise §4.1-4.2).
* :mod:`golden.bfs.traversal` -- direction-optimising BFS with the hub rule (gamma) and the
  hub cache (Enterprise §4.3), with its counters per level: :func:`run_bfs`.
* :mod:`golden.bfs.graph500` -- Graph500's validation of a parent array, and TEPS.

Never imports ``hw/`` or ``sim/``.
"""

from .frontier import CLASSES, DEFAULT_THRESHOLDS
from .graph500 import ValidationError, component_edges, harmonic_mean, validate_parents
from .traversal import DIRECTIONS, UNREACHED, BfsOptions, BfsResult, LevelRecord, in_edges, run_bfs

__all__ = ["CLASSES", "DEFAULT_THRESHOLDS", "DIRECTIONS", "UNREACHED", "BfsOptions",
           "BfsResult", "LevelRecord", "in_edges", "run_bfs", "ValidationError",
           "validate_parents", "component_edges", "harmonic_mean"]
