"""Run a graph through the DepGraph accelerator in RTL simulation and check it.

The host side of ``graphgen sim --design depgraph``: runs the golden model (whose software
pre-processing, partitions and the H'' bitmap, the hardware uses too), lays out the memory
image, emits the Verilog of the accelerator with the DRAM model beside it, runs the cocotb
testbench (register writes, ``start``, wait for ``done``), reads the states back and compares
them with the golden model's: exactly for BFS, SSSP and CC (their fixpoint does not depend on
the order of updates), within :data:`PAGERANK_RTOL` for PageRank, whose RTL sums in FP32 in
its own order while the golden model sums in float64.
"""

import dataclasses
import time

import numpy as np

import golden
from golden.depgraph import run_depgraph
from golden.depgraph.hub_index import HubIndex, graph_csr_bytes
from hw.lib.config import ConfigError
from hw.depgraph.config import DepGraphConfig
from hw.depgraph.program import stored
from hw.depgraph.top import COUNTERS, HUB_COUNTERS, registers
from sim.depgraph.top import DepGraphSimTop
from sim.gateware.sim_memory import SimMemoryConfig
from sim.depgraph.image import build_depgraph_image
from sim.dram_run import run_register_design, sim_top_for
from sim.report import SimReport
from sim.run_settings import RunSettings


__all__ = ["DepGraphReport", "check_graph", "simulate", "PAGERANK_RTOL", "PAGERANK_ATOL",
           "MEMORY_KINDS"]

# What each memory client's lines hold (sim.traffic.roofline), by its name without numbers.
MEMORY_KINDS = {
    "engine.edges": "edges", "engine.offsets": "tables", "engine.queue": "frontier",
    "loader.state": "vertex properties", "loader.delta": "vertex properties",
    "loader.const": "vertex properties", "loader.stop": "vertex properties",
    "loader.offsets": "tables", "ddmu": "tables", "learner": "tables",
    "writer": "write-back",
}

# PageRank: |rtl - golden| <= PAGERANK_ATOL + PAGERANK_RTOL * |golden| for every vertex.
PAGERANK_RTOL = 1e-3
PAGERANK_ATOL = 1e-3


@dataclasses.dataclass(kw_only=True)
class DepGraphReport(SimReport):
    """A DepGraph run: the vertex states read back and the golden model's counters."""
    algo: str
    golden_counters: dict
    values: np.ndarray = dataclasses.field(repr=False)
    hub: dict | None = None         # the hub index's figures; None when it is off

    @property
    def matches(self) -> bool:
        return self.first_mismatch is None

    @property
    def figures(self) -> dict:
        c = self.counters
        run_seconds = self.wall_seconds["run"]
        return {
            "cycles": c["cycles"],
            "phase_cycles": {"load": c["load_cycles"], "run": c["run_cycles"],
                             "write": c["write_cycles"]},
            "vertex_updates": c["vertex_updates"],
            "edges_fetched": c["edges_fetched"],
            "edges_per_run_cycle": c["edges_fetched"] / c["run_cycles"] if c["run_cycles"]
            else 0.0,
            "scanned_edges": c["scanned_edges"], "scan_read_edges": c["scan_read_edges"],
            "walks": c["walks"], "stale_visits": c["stale_visits"],
            "stack_overflows": c["stack_overflows"],
            # Bank ops (updates and visits, each one pick) and the bank-cycles the banks
            # waited on a read-modify-write hazard, both summed over the engines.
            "bank": {"ops": c["updates_applied"] + c["visits"] + c["stale_visits"],
                     "hazard_waits": c["hazard_waits"],
                     "updates_passed": c["updates_passed"]},
            "queue": {"pushes": c["pushes"], "line_reads": c["queue_line_reads"],
                      "line_writes": c["queue_line_writes"],
                      "empty_engine_cycles": c["queue_empty_cycles"]},
            # Walk slots without a walk, summed over every walk of every engine, while the
            # engines ran: over run_cycles x engines x walks, the share of idle walk slots.
            "walk_idle_slot_cycles": c["walk_idle_cycles"],
            "sram": self.sram,
            "memory": {"reads": c["memory_reads"], "writes": c["memory_writes"]},
            "hub_index": self.hub,
            "golden": self.golden_counters,
            "simulated_cycles_per_second": c["cycles"] / run_seconds if run_seconds else None,
            "wall_seconds": self.wall_seconds,
            "build_cached": self.build_cached,
            "matches_golden": self.matches,
        }


def check_graph(graph: golden.Graph, algo: str, config: DepGraphConfig):
    """Refuse, with one line, a graph this configuration cannot run correctly."""
    if algo != config.algo:
        raise ConfigError(f"the design is configured for {config.algo}, not {algo}")
    graph.validate_for_hardware(id_width=32)
    if graph.num_vertices < config.engines:
        raise ConfigError(f"the graph has {graph.num_vertices} vertices, fewer than the "
                          f"{config.engines} engines")
    if graph.num_vertices > config.max_vertices:
        raise ConfigError(f"the graph has {graph.num_vertices} vertices but the vertex store "
                          f"holds {config.max_vertices} ({config.engines} banks of "
                          f"{config.bank_vertices}; set bank_vertices)")
    if config.gas.uses_weight:
        graph.require_nonnegative_integer_weights()


def simulate(graph: golden.Graph, config: DepGraphConfig,
             memory: SimMemoryConfig | None = None,
             run: RunSettings = RunSettings()) -> DepGraphReport:
    """Run ``graph`` on the design's Verilog beside ``memory`` and compare with the golden
    model; ``run.hub_lam`` and ``run.hub_sample_min`` choose the hubs (the host's
    pre-processing, as :func:`golden.depgraph.run_depgraph`)."""
    run.check("depgraph")
    algo = run.algo or config.algo
    check_graph(graph, algo, config)
    needs_root = config.gas.uses_root
    root = (run.root or 0) if needs_root else None
    started = time.perf_counter()
    reference = run_depgraph(algo, graph, root=root, engines=config.engines,
                             stack_depth=config.stack_depth, walks=config.walks,
                             hub_index=config.hub_index,
                             leave_max_edges=config.golden_leave_max_edges,
                             tolerance=run.tolerance, lam=run.hub_lam,
                             hub_sample_min=run.hub_sample_min)
    golden_seconds = time.perf_counter() - started

    run_graph = graph.symmetrized() if config.gas.program.undirected else graph
    # The golden run learnt its own index; the hardware starts from the same unlearnt one.
    index = HubIndex.from_core(reference.core, config.gas.accum == "min", ~reference.stop) \
        if config.hub_index and reference.shortcuts else None
    image = build_depgraph_image(run_graph, algo=algo, config=config, bounds=reference.bounds,
                                 stop=reference.stop, root=root, tolerance=run.tolerance,
                                 index=index)
    memory = memory or SimMemoryConfig()
    make_top, top_name, top_digest = sim_top_for(DepGraphSimTop, config, memory, run,
                                                 "depgraph_sim")
    dram_run = run_register_design(make_top, top_name, config, memory, image.dram,
                                   image.registers, registers(config.engines), COUNTERS,
                                   max_cycles=run.max_cycles, bus=run.bus,
                                   top_digest=top_digest, read_region="state",
                                   simulator=run.simulator, seed=run.seed,
                                   build_root=run.build_root, trace=run.trace,
                                   error_text="a circular queue overflowed", keep=run.keep)
    outcome, words = dram_run.outcome, dram_run.words

    expected = np.asarray(reference.states)
    if expected.dtype.kind == "f":
        values = words.view(np.float32)
        bad = ~(np.abs(values.astype(np.float64) - expected) <=
                PAGERANK_ATOL + PAGERANK_RTOL * np.abs(expected))
    else:
        values = stored(config.gas, words)
        bad = values != expected.astype(np.uint32)
    differing = np.flatnonzero(bad)
    first = None
    if differing.size:
        v = int(differing[0])
        first = {"vertex": v, "rtl": values[v].item(), "golden": expected[v].item()}
    hub = None
    if config.hub_index:
        c = outcome["counters"]
        hub = {"entries": image.index_entries, "heads": image.index_heads,
               "index_bytes": image.index_bytes,
               "index_share": image.index_bytes / graph_csr_bytes(run_graph),
               "linear": reference.shortcuts, "reason": reference.shortcut_reason,
               **{name: c[name] for name in HUB_COUNTERS},
               "observations_sent": c["observations"], "pseudo_edges": c["pseudo_edges"]}
    return DepGraphReport(
        algo=algo, graph=run.graph_name, hub=hub, num_vertices=graph.num_vertices,
        num_edges=run_graph.num_edges, counters=outcome["counters"],
        golden_counters=dataclasses.asdict(reference.counters),
        first_mismatch=first,
        **dram_run.report_fields(golden_seconds, run.simulator), values=values.copy())
