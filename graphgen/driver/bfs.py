"""The BFS engine's host adapter for :class:`~graphgen.driver.driver.Driver`: the memory image
and registers of a search (:func:`sim.bfs.image.build_bfs_image`, as the simulation lays them
out) and the answer, each vertex's level and parent."""

import numpy as np

from graphgen.driver.driver import HostImage
from hw.bfs.config import BfsConfig
from hw.bfs.layouts import UNVISITED
from sim.bfs.image import build_bfs_image
from sim.bfs.run import check_graph


__all__ = ["BfsHost", "RESULT_DTYPE"]

# A vertex's answer: its level and its parent (-1: not reached; the root is its own).
RESULT_DTYPE = np.dtype([("level", np.uint32), ("parent", np.int64)])


class BfsHost:
    """Searches on a BFS engine built with ``config``."""

    def __init__(self, config: BfsConfig):
        self.config = config

    def image(self, graph, *, root: int = 0, max_levels: int | None = None) -> HostImage:
        """The image of a search from ``root``; the level log holds ``max_levels`` levels
        (None: one more than the vertices, enough for any graph)."""
        check_graph(graph, self.config, root)
        if max_levels is None:
            max_levels = graph.num_vertices + 1
        image = build_bfs_image(graph, self.config, root=root, max_levels=max_levels)
        return HostImage.of(image)

    def result(self, image: HostImage, counters: dict, read_words) -> np.ndarray:
        """A :data:`RESULT_DTYPE` record per vertex (level ``UNVISITED``, parent -1: not
        reached)."""
        dram = image.state.dram
        levels = read_words(*dram.region("levels"))
        parents = read_words(*dram.region("parents"))
        out = np.empty(len(levels), RESULT_DTYPE)
        out["level"] = levels
        out["parent"] = np.where(parents == UNVISITED, -1, parents.astype(np.int64))
        return out
