"""Run a batch of updates through the dynamic graph unit in RTL simulation and check it.

The host side of ``graphgen sim --design dyngraph``: builds the slab-hash graph (the golden
model's bulk build, which is also the memory image), applies the operations with the golden
model, runs the emitted Verilog with the DRAM model on the same image, reads back the pool,
the vertex table, the free stack and the answers, and checks them: the state keeps the slab
hash's invariants, the final edge set with its weights and every answer equal the golden
model's, and so does every counter the rules define.
"""

import dataclasses
import time

import numpy as np

import golden
from golden.dyngraph import DynCounters, SlabGraph, SlabOptions, Updates
from golden.dyngraph.compaction import CompactedGraph, compact
from hw.lib.config import ConfigError
from hw.dyngraph.compact_index import RECORD_WORDS, record_fields
from hw.dyngraph.config import DynGraphConfig
from sim.dyngraph.top import DynGraphSimTop
from hw.dyngraph.registers import COUNTERS, ITERATION_COUNTER, REGISTERS
from sim.gateware.sim_memory import SimMemoryConfig
from sim.dram_run import memory_for, run_register_design, sim_top_for
from sim.dyngraph.image import answers_from_words, build_dyngraph_image, state_from_image
from sim.report import SimReport
from sim.run_settings import RunSettings
from sim.iterations import per_iteration


__all__ = ["DynGraphReport", "simulate", "COMPARED", "COMPACTED", "compacted_words", "MEMORY_KINDS"]

# What each memory client's lines hold (sim.traffic.roofline), by its name without numbers.
MEMORY_KINDS = {
    "op_reader": "operations", "answers": "write-back",
    "table": "tables", "present_reader": "tables", "compact_vertices": "tables",
    "slab_port": "edges", "compact_slabs": "edges", "compact_chains": "edges",
    "compact_writes": "write-back", "stack": "other",
}

# The compactor's regions (:mod:`hw.dyngraph.layouts`).
COMPACTED = ("edges", "table", "vconst")

# Counters the RTL and the golden model both keep, by the same rules.
COMPARED = ("inserted", "replaced", "deleted", "delete_misses", "search_hits",
            "search_misses", "skipped", "vertices_inserted", "vertex_insert_present",
            "vertices_deleted", "vertex_delete_absent", "in_edges_removed", "walk_slab_reads",
            "free_slab_reads", "sweeps", "sweep_slab_reads", "allocations",
            "allocation_failures", "slabs_freed", "batches")


@dataclasses.dataclass(kw_only=True)
class DynGraphReport(SimReport):
    """A dynamic graph run: the state and the answers read back, and their checks."""
    operations: int
    golden_counters: dict
    figures_after: dict              # the golden model's state figures after the updates
    structure_error: str | None
    edges_match: bool
    answers_match: bool
    counter_mismatch: dict | None
    compaction: dict | None          # the compactor's figures and check (runs that ask for it)
    state: SlabGraph = dataclasses.field(repr=False)
    found: np.ndarray = dataclasses.field(repr=False)
    weights: np.ndarray = dataclasses.field(repr=False)
    compacted: dict | None = dataclasses.field(default=None, repr=False)   # its regions' words
    compacted_reference: CompactedGraph | None = dataclasses.field(default=None, repr=False)

    @property
    def matches(self) -> bool:
        return (self.structure_error is None and self.edges_match and self.answers_match
                and self.counter_mismatch is None
                and (self.compaction is None or self.compaction["matches_golden"]))

    @property
    def figures(self) -> dict:
        c = self.counters
        run_cycles = c["cycles"] - c["load_cycles"]
        return {
            "cycles": c["cycles"], "load_cycles": c["load_cycles"], "run_cycles": run_cycles,
            "operations": self.operations,
            "ops_per_cycle": self.operations / c["cycles"] if c["cycles"] else 0.0,
            "ops_per_run_cycle": self.operations / run_cycles if run_cycles else 0.0,
            **{name: c[name] for name in COMPARED},
            "refused_inserts": c["refused_inserts"], "lock_waits": c["lock_waits"],
            "slot_waits": c["slot_waits"],
            "slab_reads": c["slab_reads"], "slab_writes": c["slab_writes"],
            "free_slabs": c["stack_top"],
            "sram": self.sram,
            "memory": {"reads": c["memory_reads"], "writes": c["memory_writes"]},
            "per_batch": per_iteration(self.snapshots, c, edges=None, also=("issued",)),
            **self.figures_after,
            "wall_seconds": self.wall_seconds, "build_cached": self.build_cached,
            **({"compaction": self.compaction} if self.compaction else {}),
            "matches_golden": self.matches,
        }


def compacted_words(compacted: CompactedGraph,
                    edge_words: int = RECORD_WORDS) -> dict[str, np.ndarray]:
    """The three lists as the compactor lays them out (:mod:`hw.dyngraph.layouts`), its
    edges of ``edge_words`` words (:func:`hw.dyngraph.compact_index.record_fields`)."""
    fields = {"src": compacted.src, "dst": compacted.dst, "weight": compacted.weight,
              "zero": np.zeros(compacted.num_edges)}
    records = np.stack([fields[name] for name in record_fields(edge_words)],
                       axis=1).astype(np.uint32)
    vconst = np.stack([compacted.inv_degree.view(np.uint32),
                       compacted.degree.astype(np.uint32)], axis=1)
    return {"edges": records.reshape(-1), "table": compacted.edge_id_table.astype(np.uint32),
            "vconst": vconst.reshape(-1)}


def check_compaction(words: dict, want: CompactedGraph, counters: dict,
                     edge_words: int = RECORD_WORDS) -> dict:
    """The compactor's lists (the first words of each region, its edges of ``edge_words``
    words) and counts against the golden walk's."""
    expected = compacted_words(want, edge_words)
    mismatch = None
    for name, wanted in expected.items():
        got = words[name][:len(wanted)]
        if len(got) != len(wanted) or not np.array_equal(got, wanted):
            bad = int(np.flatnonzero(got != wanted[:len(got)])[0]) if len(got) else 0
            mismatch = {"region": name, "word": bad,
                        "rtl": int(got[bad]) if bad < len(got) else None,
                        "golden": int(wanted[bad])}
            break
    for name, value in [("compacted_edges", want.num_edges),
                        # The end marker rides one more read (of slab 0).
                        ("compact_slab_reads", want.slab_reads + 1)]:
        if mismatch is None and counters[name] != value:
            mismatch = {"counter": name, "rtl": counters[name], "golden": value}
    cycles = counters["compact_cycles"]
    return {"vertices": want.num_vertices, "edges": want.num_edges, "edge_words": edge_words,
            "cycles": cycles,
            "edges_per_cycle": want.num_edges / cycles if cycles else 0.0,
            "slab_reads": counters["compact_slab_reads"],
            "chain_reads": counters["compact_chain_reads"],
            "matches_golden": mismatch is None, "first_mismatch": mismatch}


def golden_counters(counters: DynCounters, batches: int) -> dict:
    values = counters.as_dict()
    values.pop("operations")
    return {**values, "batches": batches}


def simulate(graph: golden.Graph, config: DynGraphConfig,
             memory: SimMemoryConfig | None = None,
             run: RunSettings = RunSettings()) -> DynGraphReport:
    """Apply ``run.updates`` to ``graph`` in batches of ``run.batch`` on the unit's Verilog
    beside ``memory`` and check the state, the answers and the counters.

    ``run.compact_vertices`` > 0: after the operations the compactor writes vertices
    ``0 .. compact_vertices - 1`` out as Graphicionado's edge list, checked word for word
    against :func:`golden.dyngraph.compaction.compact` (``report.compacted`` holds the words,
    for :mod:`sim.dyngraph.analytics`)."""
    run.check("dyngraph")
    updates, batch, compact_vertices = run.updates, run.batch, run.compact_vertices
    if not isinstance(updates, Updates):
        raise ConfigError("the dyngraph simulation needs its operations: "
                          "RunSettings(updates=golden.dyngraph.Updates)")
    graph.validate_for_hardware(id_width=32)
    if graph.num_vertices > config.max_vertices:
        raise ConfigError(f"the graph has {graph.num_vertices} vertices, more than "
                          f"max_vertices ({config.max_vertices})")
    updates.check_ids(config.max_vertices)
    options = SlabOptions(**config.golden_options())
    started = time.perf_counter()
    state = SlabGraph.build(graph, options)
    image = build_dyngraph_image(state, updates, config, batch=batch,
                                 compact_vertices=compact_vertices)
    wanted, counters, batches = state.apply_batches(updates, batch)
    want_found, want_weights = wanted.found, wanted.weight
    golden_seconds = time.perf_counter() - started

    memory = memory_for(config, memory, "the unit")
    make_top, top_name, top_digest = sim_top_for(DynGraphSimTop, config, memory, run,
                                                 "dyngraph_sim")
    dram_run = run_register_design(make_top, top_name,
                                   config, memory, image.dram, image.registers, REGISTERS,
                                   COUNTERS, max_cycles=run.max_cycles, bus=run.bus,
                                   top_digest=top_digest,
                                   iteration_counter=ITERATION_COUNTER, read_region="pool",
                                   also_read=("vertices", "stack", "answers",
                                              *(COMPACTED if compact_vertices else ())),
                                   simulator=run.simulator, seed=run.seed,
                                   build_root=run.build_root, trace=run.trace,
                                   error_text="a vertex lock was released twice",
                                   keep=run.keep)
    rtl = dram_run.outcome["counters"]
    result = state_from_image(dram_run.words, dram_run.extra["vertices"],
                              dram_run.extra["stack"],
                              rtl["stack_top"], options, config.slab_index_bits)
    structure_error = None
    try:
        result.check()
    except golden.GraphError as error:
        structure_error = str(error)
    got, want = result.edges(), state.edges()
    edges_match = all(np.array_equal(a, b) for a, b in zip(got, want))
    first = None
    if not edges_match:
        got_set = set(zip(*(t.tolist() for t in got)))
        want_set = set(zip(*(t.tolist() for t in want)))
        extra = sorted(got_set - want_set)[:1]
        missing = sorted(want_set - got_set)[:1]
        first = {"rtl_only": extra, "golden_only": missing}
    rtl_found, rtl_weights = answers_from_words(dram_run.extra["answers"], image.searches)
    answers_match = bool(np.array_equal(rtl_found, want_found) and
                         np.array_equal(rtl_weights[want_found], want_weights[want_found]))
    if not answers_match and first is None:
        bad = int(np.flatnonzero((rtl_found != want_found) |
                                 (want_found & (rtl_weights != want_weights)))[0])
        first = {"answer": bad, "rtl": [bool(rtl_found[bad]), int(rtl_weights[bad])],
                 "golden": [bool(want_found[bad]), int(want_weights[bad])]}
    expected = golden_counters(counters, batches)
    counter_mismatch = None
    for name in COMPARED:
        if rtl[name] != expected[name]:
            counter_mismatch = {"counter": name, "rtl": rtl[name], "golden": expected[name]}
            break
    if counter_mismatch is None and rtl["issued"] != len(updates):
        counter_mismatch = {"counter": "issued", "rtl": rtl["issued"], "golden": len(updates)}
    compaction = compacted = reference = None
    if compact_vertices:
        compacted = {name: dram_run.extra[name] for name in COMPACTED}
        reference = compact(state, compact_vertices)
        compaction = check_compaction(compacted, reference, rtl, config.compact_edge_words)
    return DynGraphReport(
        compaction=compaction, compacted=compacted, compacted_reference=reference,
        graph=run.graph_name, num_vertices=graph.num_vertices, num_edges=graph.num_edges,
        operations=len(updates), counters=rtl, golden_counters=expected,
        figures_after=state.figures(), structure_error=structure_error,
        edges_match=edges_match, answers_match=answers_match,
        counter_mismatch=counter_mismatch, first_mismatch=first,
        **dram_run.report_fields(golden_seconds, run.simulator), state=result,
        found=rtl_found, weights=rtl_weights)
