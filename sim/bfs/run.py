"""Run a graph through the BFS engine in RTL simulation and check it.

The host side of ``graphgen sim --design bfs``: runs the golden model
(:func:`golden.bfs.run_bfs` with the engine's options), lays out the memory image, runs the
emitted Verilog with the DRAM model, reads back the levels, the parents and the level log,
and checks them: levels equal the golden model's exactly, the parent array passes Graph500's
validation, and every level's record (direction, frontier per class, scanned entries, edges
checked, status reads, hub-cache hits, vertices and hubs visited) equals the golden model's.
"""

import dataclasses
import time

import numpy as np

import golden
from golden.bfs import ValidationError, component_edges, run_bfs, validate_parents
from hw.bfs.registers import COUNTERS, ITERATION_COUNTER, REGISTERS
from hw.bfs.config import BfsConfig
from hw.bfs.layouts import LOG_WORDS, UNVISITED, Direction
from sim.bfs.top import BfsSimTop
from hw.lib.config import ConfigError
from sim.gateware.sim_memory import SimMemoryConfig
from sim.bfs.image import build_bfs_image
from sim.dram_run import memory_for, run_register_design, sim_top_for
from sim.report import SimReport
from sim.run_settings import RunSettings
from sim.iterations import per_iteration


__all__ = ["BfsReport", "simulate", "COMPARED", "MEMORY_KINDS"]

# What each memory client's lines hold (sim.traffic.roofline), by its name without numbers:
# a top-down check reads its edge's destination's status, a bottom-up search its candidate
# parent's (the edge's source).
MEMORY_KINDS = {
    "top_down.edges": "edges", "bottom_up.edges": "edges", "offsets_reader": "tables",
    "top_down.status": "destination properties", "bottom_up.status": "source properties",
    "status_reader": "frontier", "queue_reader": "frontier", "bins": "frontier",
    "writer.levels": "write-back", "writer.parents": "write-back", "log": "write-back",
}

# The level-log words compared with the golden model's records (the others are the RTL's own).
COMPARED = ("direction", "frontier", "small", "middle", "large", "extreme", "scanned",
            "edges_checked", "status_reads", "hub_cache_hits", "visited", "hubs_visited")


@dataclasses.dataclass(kw_only=True)
class BfsReport(SimReport):
    """A BFS run: the levels, the parents and the level log read back, and their checks."""
    root: int
    levels_log: list                 # one dict per level, the RTL's level log
    golden_levels_log: list          # the golden model's records, the same keys
    levels_match: bool
    parents_valid: bool
    parents_error: str | None
    log_match: bool
    log_mismatch: dict | None
    component_edges: int
    levels: np.ndarray = dataclasses.field(repr=False)
    parents: np.ndarray = dataclasses.field(repr=False)

    @property
    def matches(self) -> bool:
        return self.levels_match and self.parents_valid and self.log_match

    @property
    def figures(self) -> dict:
        c = self.counters
        generate = c["generate_cycles"]
        return {
            "cycles": c["cycles"], "levels": c["levels"],
            "directions": ["bottomup" if r["direction"] == Direction.BOTTOM_UP.value else "topdown"
                           for r in self.levels_log],
            "edges_checked": c["edges_checked"], "status_reads": c["status_reads"],
            "hub_cache_hits": c["cache_hits"],
            "hub_cache_hit_rate": c["cache_hits"] / (c["cache_hits"] + c["status_reads"])
            if c["cache_hits"] + c["status_reads"] else 0.0,
            "hubs": c["hubs"], "frontier_generation_cycles": generate,
            "component_edges": self.component_edges,
            "edges_per_cycle": self.component_edges / c["cycles"] if c["cycles"] else 0.0,
            "sram": self.sram,
            "memory": {"reads": c["memory_reads"], "writes": c["memory_writes"]},
            "per_level": self.levels_log,
            "per_iteration": per_iteration(self.snapshots, c, edges="edges_checked"),
            "wall_seconds": self.wall_seconds, "build_cached": self.build_cached,
            "matches_golden": self.levels_match and self.log_match,
            "parents_valid": self.parents_valid,
        }


def _golden_log(result) -> list[dict]:
    records = []
    for r in result.records:
        records.append({"direction": Direction.BOTTOM_UP.value if r.direction == "bottomup" else Direction.TOP_DOWN.value,
                        "frontier": r.frontier, **r.classes, "scanned": r.scanned,
                        "edges_checked": r.edges_checked, "status_reads": r.status_reads,
                        "hub_cache_hits": r.hub_cache_hits, "visited": r.visited,
                        "hubs_visited": r.hubs_visited})
    return records


def check_graph(graph: golden.Graph, config: BfsConfig, root: int):
    graph.validate_for_hardware(id_width=32)
    if not 0 <= root < graph.num_vertices:
        raise ConfigError(f"root {root} is not a vertex of the graph "
                          f"(0..{graph.num_vertices - 1})")
    if graph.num_vertices > config.max_vertices:
        raise ConfigError(f"the graph has {graph.num_vertices} vertices but the hub bitmap "
                          f"covers {config.max_vertices} (set max_vertices)")


def simulate(graph: golden.Graph, config: BfsConfig, memory: SimMemoryConfig | None = None,
             run: RunSettings = RunSettings()) -> BfsReport:
    """Search ``graph`` from ``run.root`` (None: 0) on the engine's Verilog beside
    ``memory`` and check the levels, the parents and the level log."""
    run.check("bfs")
    if run.algo not in (None, "bfs"):
        raise ConfigError(f"the bfs design runs bfs, not {run.algo}")
    root = run.root or 0
    check_graph(graph, config, root)
    started = time.perf_counter()
    reference = run_bfs(graph, root, **config.golden_options())
    golden_seconds = time.perf_counter() - started
    max_levels = len(reference.records) + 2
    image = build_bfs_image(graph, config, root=root, max_levels=max_levels)
    memory = memory_for(config, memory, "the engine")
    make_top, top_name, top_digest = sim_top_for(BfsSimTop, config, memory, run, "bfs_sim")
    dram_run = run_register_design(make_top, top_name, config,
                                   memory, image.dram, image.registers, REGISTERS, COUNTERS,
                                   max_cycles=run.max_cycles, bus=run.bus, top_digest=top_digest,
                                   iteration_counter=ITERATION_COUNTER, read_region="levels",
                                   also_read=("parents", "level_log"), simulator=run.simulator,
                                   seed=run.seed, build_root=run.build_root, trace=run.trace,
                                   error_text="the levels outgrew the level log",
                                   keep=run.keep)
    levels = dram_run.words.astype(np.uint32)
    raw_parents = dram_run.extra["parents"]
    parents = np.where(raw_parents == UNVISITED, -1, raw_parents.astype(np.int64))

    differing = np.flatnonzero(levels != reference.levels)
    first = None
    if differing.size:
        v = int(differing[0])
        first = {"vertex": v, "rtl": int(levels[v]), "golden": int(reference.levels[v])}
    parents_error = None
    try:
        validate_parents(graph, root, parents, levels)
    except ValidationError as error:
        parents_error = str(error)

    counters = dram_run.outcome["counters"]
    log = dram_run.extra["level_log"].reshape(-1, 16)[1:counters["levels"] + 1]
    rtl_log = [dict(zip(LOG_WORDS, (int(x) for x in row))) for row in log]
    golden_log = _golden_log(reference)
    log_mismatch = None
    for level, (got, want) in enumerate(zip(rtl_log, golden_log), start=1):
        for key in COMPARED:
            if got[key] != want[key]:
                log_mismatch = {"level": level, "field": key, "rtl": got[key],
                                "golden": want[key]}
                break
        if log_mismatch:
            break
    if log_mismatch is None and len(rtl_log) != len(golden_log):
        log_mismatch = {"level": min(len(rtl_log), len(golden_log)) + 1, "field": "levels",
                        "rtl": len(rtl_log), "golden": len(golden_log)}
    return BfsReport(
        graph=run.graph_name, root=root, num_vertices=graph.num_vertices,
        num_edges=graph.num_edges, counters=counters, levels_log=rtl_log,
        golden_levels_log=golden_log, levels_match=first is None, first_mismatch=first,
        parents_valid=parents_error is None, parents_error=parents_error,
        log_match=log_mismatch is None, log_mismatch=log_mismatch,
        component_edges=component_edges(graph, levels != UNVISITED),
        **dram_run.report_fields(golden_seconds, run.simulator), levels=levels,
        parents=parents)
