"""The memory image of a BFS run and its register values (the host's set-up of Enterprise's
arrays: CSR and CSC, status and parent arrays, the queue bins and the level log), laid out as
:mod:`hw.bfs.layouts` describes."""

import dataclasses

import numpy as np

from golden import Graph
from golden.bfs import in_edges
from hw.bfs.registers import REGISTERS
from hw.bfs.bin_writer import CLASSES
from hw.bfs.config import BfsConfig
from hw.bfs.layouts import ENTRIES_PER_LINE, UNVISITED
from hw.lib.config import ConfigError
from sim.dram_image import DRAMImage


__all__ = ["BfsImage", "build_bfs_image", "block_shift"]


@dataclasses.dataclass
class BfsImage:
    dram: DRAMImage
    registers: dict[str, int]


def block_shift(num_vertices: int, lanes: int) -> int:
    """log2 of a blocked scan's block: at least 16 vertices, ``lanes`` blocks cover them all
    (:func:`golden.bfs.frontier.block_bounds`)."""
    shift = 4
    while (lanes << shift) < num_vertices:
        shift += 1
    return shift


def build_bfs_image(graph: Graph, config: BfsConfig, *, root: int, max_levels: int) -> BfsImage:
    n = graph.num_vertices
    if n > config.max_vertices:
        raise ConfigError(f"the graph has {n} vertices but the hub bitmap covers "
                          f"{config.max_vertices} (set max_vertices)")
    in_offsets, in_sources = in_edges(graph)
    shift = block_shift(n, config.lanes)
    # Entries a bin may need: a lane's share of a scan (its vertices or its block), or all.
    capacity = max(-(-n // config.lanes), 1 << shift) if config.queues == "hier" else n
    lines = -(-capacity // ENTRIES_PER_LINE)
    bin_shift = max(0, (lines - 1).bit_length())
    bins = 2 * CLASSES * config.queue_writers
    dram = DRAMImage()
    base = {}
    for name, words in [("out_offsets", graph.offsets), ("out_edges", graph.dst),
                        ("in_offsets", in_offsets), ("in_edges", in_sources),
                        ("levels", np.full(n, UNVISITED)), ("parents", np.full(n, UNVISITED)),
                        ("queues", np.zeros(16 * (bins << bin_shift))),
                        ("level_log", np.zeros(16 * max_levels))]:
        base[name] = dram.add(name, np.ascontiguousarray(words, dtype=np.uint32))
    values = {f"{name}_base": base[name] for name in
              ("out_offsets", "out_edges", "in_offsets", "in_edges", "levels", "parents")}
    values.update({"queue_base": base["queues"], "bin_shift": bin_shift, "block_shift": shift,
                   "log_base": base["level_log"], "max_levels": max_levels,
                   "num_vertices": n, "root": root,
                   "tail_limit": -(-n // config.tail_beta)})
    if set(values) != set(REGISTERS):
        raise ConfigError(f"the image sets {sorted(values)}, the engine has {REGISTERS}")
    return BfsImage(dram, values)
