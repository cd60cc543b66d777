"""Frontier-queue generation without atomics or duplicates (Enterprise, Liu & Huang, SC'15, §4.1).

Enterprise builds each level's frontier queue in two steps instead of appending with atomics:
every lane scans its share of the status array and keeps the frontier vertices it finds in
a bin of its own, a prefix sum of the bins' counts gives each lane its offset, and the lanes
copy their bins into the queue in parallel.  The queue is therefore *lane-major*: lane 0's
hits, then lane 1's, each lane's in ascending vertex order.  Three workflows:

* **top-down** (``interleaved_scan``): lane ``l`` scans vertices ``l, l + lanes, ...``
  (consecutive vertices go to different lanes, so the scan reads the array sequentially);
* **direction switch** (``blocked_scan``): lane ``l`` scans one contiguous block, so the
  bottom-up queue comes out in ascending order and the next level reads adjacency lists
  sequentially;
* **bottom-up** (``derived_queue``): the next queue is the previous one minus the vertices
  just visited, in the same order -- no scan at all.

Each generated queue is also split by degree into Enterprise's four classes (§4.2):
``SMALL`` below 32 edges, ``MIDDLE`` below 256, ``LARGE`` below 65,536, ``EXTREME`` above
(the thresholds are parameters).  A class queue keeps the lane-major order.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CLASSES", "DEFAULT_THRESHOLDS", "interleaved_scan", "blocked_scan",
           "derived_queue", "degree_class", "split_by_class", "block_bounds"]

CLASSES = ("small", "middle", "large", "extreme")
DEFAULT_THRESHOLDS = (32, 256, 65536)


def interleaved_scan(hits: np.ndarray, lanes: int) -> np.ndarray:
    """The queue of the vertices where ``hits`` is true, lane ``v % lanes`` owning ``v``.

    Lane-major: every vertex of lane 0 (ascending), then of lane 1, ...
    """
    found = np.flatnonzero(hits)
    lane = found % lanes
    return found[np.argsort(lane, kind="stable")]


def block_bounds(num_vertices: int, lanes: int) -> np.ndarray:
    """The first vertex of each lane's block in a blocked scan, and ``num_vertices`` last.

    Blocks are the least power of two of vertices that ``lanes`` blocks cover (the RTL's
    lane is ``v >> shift``), the last ones shorter or empty.
    """
    size = 1
    while size * lanes < num_vertices:
        size *= 2
    return np.minimum(np.arange(lanes + 1, dtype=np.int64) * size, num_vertices)


def blocked_scan(hits: np.ndarray, lanes: int) -> np.ndarray:
    """The queue of the vertices where ``hits`` is true, lane ``l`` owning one block.

    Lane-major over contiguous blocks is plain ascending order.
    """
    return np.flatnonzero(hits)


def derived_queue(previous: np.ndarray, visited: np.ndarray) -> np.ndarray:
    """The bottom-up queue: ``previous`` without the vertices now ``visited``, order kept."""
    return previous[~visited[previous]]


def degree_class(degree: np.ndarray, thresholds=DEFAULT_THRESHOLDS) -> np.ndarray:
    """0 (small), 1 (middle), 2 (large) or 3 (extreme) for each degree."""
    return np.searchsorted(np.asarray(thresholds), degree, side="right")


def split_by_class(queue: np.ndarray, degree: np.ndarray,
                   thresholds=DEFAULT_THRESHOLDS) -> list[np.ndarray]:
    """The four class queues of ``queue`` (each in ``queue``'s order)."""
    cls = degree_class(degree[queue], thresholds)
    return [queue[cls == c] for c in range(len(CLASSES))]
