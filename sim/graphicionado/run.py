"""Run a graph through the Graphicionado pipeline in RTL simulation and check it.

The host side of ``graphgen sim --design graphicionado``: checks that the graph fits the
configuration (a clear error before any simulation), lays out the memory image, emits the
Verilog of the pipeline with the DRAM model beside it, runs the cocotb testbench of the
designs run through registers (which only writes the registers, starts the run and waits for
``done``), reads the memory back and compares the vertex
properties with the golden model: exactly for integers, bit for bit for PageRank.
"""

import dataclasses
import time

import numpy as np

import golden
from golden.graphicionado import stored_edges
from golden.vertex_order import busiest_share, spread, stream_loads
from hw.lib.config import ConfigError
from graphgen.programs import Float32
from hw.graphicionado.algorithms import algorithm_of
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.registers import ITERATION_COUNTER, counter_names, registers
from sim.graphicionado.top import GraphicionadoSimTop, SimMemoryConfig
from sim.dram_run import RunFailure, memory_for, run_register_design, sim_top_for
from sim.graphicionado.check import expected_values
from sim.graphicionado.image import build_image
from sim.report import SimReport
from sim.run_settings import RunSettings
from sim.iterations import per_iteration


__all__ = ["GraphicionadoReport", "plan_slices", "plan_partitions", "check_graph",
           "stored_graph", "check_memory", "simulate", "MEMORY_KINDS"]

# What each memory client's lines hold (sim.traffic.roofline), by its name without numbers.
MEMORY_KINDS = {
    "src.edge_read": "edges", "src.table_read": "tables",
    "src.active_read": "source properties", "src.src_prop_read": "source properties",
    "src.src_const_read": "source properties",
    "dst.vprop_read": "destination properties", "dst.dst_prop_read": "destination properties",
    "dst.spill_read": "destination properties",
    "dst.vprop_write": "write-back", "dst.spill_write": "write-back",
    "dst.active_write": "frontier",
}


@dataclasses.dataclass(kw_only=True)
class GraphicionadoReport(SimReport):
    """A Graphicionado run: the vertex properties read back and how they compared."""
    algo: str
    iterations: int
    golden_iterations: int
    values: np.ndarray = dataclasses.field(repr=False)
    comparison: str = "exact"       # how the values were compared with the golden model
    crossbar_inputs: int = 1
    memory: dict | None = None      # the simulated memory's settings (SimMemoryConfig.as_dict)
    slices: int = 1                 # graph slices of the run (§VI.A)
    slice_vertices: int = 0         # destinations per slice (extended: per partition)
    ext_partitions: int = 0         # extended slicing (§VI.B): N partitions, else 0
    vertices_compared: int = 0      # vertices whose values were compared with the golden model
    vertices_differing: int = 0     # of them, those that differ (0 when ``matches``)
    # The host's vertex order (RunSettings.vertex_order): its name, the destination streams'
    # busiest share of the edges with it and with the graph's ids, and the host's seconds.
    vertex_order: dict | None = None

    @property
    def matches(self) -> bool:
        return self.first_mismatch is None

    @property
    def figures(self) -> dict:
        c = self.counters
        process = c["cycles_process"]
        apply = c["cycles_apply"]
        run_seconds = self.wall_seconds["run"]
        return {
            "cycles": c["cycles"],
            "iterations": self.iterations,
            "slices": self.slices,
            "slice_vertices": self.slice_vertices,
            "extended_partitions": self.ext_partitions,
            "ready_cycles": self.ready_cycles,
            "edges_traversed": c["edges"],
            "edges_per_cycle": c["edges"] / c["cycles"] if c["cycles"] else 0.0,
            "edges_per_process_cycle": c["edges"] / process if process else 0.0,
            "vertices_per_apply_cycle":
                self.iterations * self.num_vertices / apply if apply else 0.0,
            "phase_cycles": {"load": c["cycles_load"], "process": process, "apply": apply},
            "updates": c["updates"],
            "vertex_updates": c["vertex_updates"],
            "stalls": {name: c[name] for name in ("cam_stalls", "stall_p1", "stall_p2",
                                                   "stall_p3", "stall_p4", "stall_p5",
                                                   "stall_apply", "stall_region")
                       if name in c},
            "sram": self.sram,
            "memory": {"reads": c["memory_reads"], "writes": c["memory_writes"],
                       "channels": self._channel_figures()},
            "per_iteration": per_iteration(self.snapshots, c),
            "streams": {
                "edges_src": _per_stream(c, "edges_src"),
                "edges_dst": _per_stream(c, "edges_dst"),
            },
            "crossbar": {
                "stalls": c["xbar_stalls"],
                # Input-cycles of the processing phase in which an input could not hand over.
                "stall_share": (c["xbar_stalls"] / (process * self.crossbar_inputs)
                                if process else 0.0),
                "mean_occupancy": c["xbar_occupancy"] / process if process else 0.0,
            },
            "comparison": self.comparison,
            "simulated_cycles_per_second": c["cycles"] / run_seconds if run_seconds else None,
            "wall_seconds": self.wall_seconds,
            "simulator": self.simulator,
            "build_cached": self.build_cached,
            "vertex_order": self.vertex_order or {"order": "ids"},
            "matches_golden": self.matches,
            "check": {"vertices_compared": self.vertices_compared,
                      "vertices_differing": self.vertices_differing,
                      "iterations": self.iterations,
                      "golden_iterations": self.golden_iterations},
        }

    def _channel_figures(self) -> list[dict]:
        """Per memory channel: lines read and written; ``utilisation``, the share of the
        channel's bandwidth used (lines x 64 bytes / (bytes_per_cycle x cycles)); and
        ``refused_share``, the share of cycles in which a request waited at the channel."""
        c = self.counters
        cycles = c["cycles"]
        per_channel = (self.memory or {}).get("bytes_per_cycle")
        figures = []
        index = 0
        while f"memory{index}_reads" in c:
            lines = c[f"memory{index}_reads"] + c[f"memory{index}_writes"]
            figures.append({
                "reads": c[f"memory{index}_reads"], "writes": c[f"memory{index}_writes"],
                "utilisation": lines * 64 / (per_channel * cycles)
                if per_channel and cycles else None,
                "refused_share": c[f"memory{index}_refused"] / cycles if cycles else 0.0,
            })
            index += 1
        return figures


def _watchdog(config: GraphicionadoConfig) -> int:
    """The hang limit of a run: the configured one, but never below one and a half
    destination stream scratchpad slices, which the clear phase writes a word a cycle with
    no stream link moving (a 262,144-vertex slice takes 262,144 such cycles)."""
    if not config.watchdog:
        return 0
    slice_vertices = config.destination_slice_vertices
    return max(config.watchdog, slice_vertices + slice_vertices // 2)


def _per_stream(counters: dict, prefix: str) -> list[int]:
    """The counters ``<prefix>0``, ``<prefix>1``, ... in stream order."""
    streams = sum(1 for name in counters if name.startswith(prefix))
    return [counters[f"{prefix}{index}"] for index in range(streams)]


def plan_slices(num_vertices: int, config: GraphicionadoConfig,
                slices: int | None = None) -> int:
    """Destinations per graph slice (§VI.A): with ``slices`` None, the most a scratchpad holds
    (one slice when the graph fits), else ``ceil(num_vertices / slices)``; rounded up to a
    multiple of 16 L so that every partition's part of a slice starts on a line. Refuses,
    with one line, a plan the configuration cannot run."""
    align = 16 * config.partitions
    capacity = config.max_vertices // align * align
    if slices is None:
        if num_vertices <= config.max_vertices:
            return max(align, -(-num_vertices // align) * align)
        if capacity == 0:
            raise ConfigError(f"graph slicing needs slices of a multiple of {align} vertices "
                              f"(16 x {config.partitions} partitions), more than the "
                              f"scratchpad's {config.max_vertices}")
        size = capacity
    else:
        if slices < 1:
            raise ConfigError(f"slices must be at least 1, not {slices}")
        size = max(align, -(-(-(-num_vertices // slices)) // align) * align)
        if min(size, num_vertices) > config.max_vertices:
            raise ConfigError(f"{slices} slice{'s' * (slices > 1)} of {num_vertices} vertices "
                              f"need {size} destinations per slice (a multiple of {align}), "
                              f"more than the scratchpad's {config.max_vertices}")
        if -(-num_vertices // size) != slices:
            raise ConfigError(f"{num_vertices} vertices do not make {slices} slices: a slice "
                              f"is a multiple of {align} vertices (16 x {config.partitions} "
                              f"partitions), so slices of {size} make "
                              f"{-(-num_vertices // size)}")
    needed = -(-num_vertices // size)
    if needed > config.max_slices:
        raise ConfigError(f"the graph's {num_vertices} vertices need {needed} slices of "
                          f"{size} but the design runs at most max_slices="
                          f"{config.max_slices} (set max_slices, or max_vertices)")
    return size


def plan_partitions(num_vertices: int, config: GraphicionadoConfig,
                    partitions: int | None = None) -> int:
    """Extended slicing (§VI.B): vertices per partition. A graph that fits the scratchpad
    runs as one partition; else each partition fills a region (half the scratchpad), or, with
    ``partitions``, ``ceil(num_vertices / partitions)``; a multiple of 16 L. Refuses, with one
    line, a plan the configuration cannot run (N(N+1)/2 slices above ``max_slices``)."""
    align = 16 * config.partitions
    whole = config.destination_slice_vertices * config.streams_dst
    region = config.region_vertices * config.streams_dst // align * align
    fit = max(align, -(-num_vertices // align) * align)
    if partitions is None:
        size = fit if fit <= whole else region
    else:
        if partitions < 1:
            raise ConfigError(f"slices (partitions, with extended slicing) must be at least 1, "
                              f"not {partitions}")
        size = max(align, -(-(-(-num_vertices // partitions)) // align) * align)
        if -(-num_vertices // size) != partitions:
            raise ConfigError(f"{num_vertices} vertices do not make {partitions} partitions: "
                              f"a partition is a multiple of {align} vertices, so partitions "
                              f"of {size} make {-(-num_vertices // size)}")
    count = -(-num_vertices // size)
    if size > (whole if count == 1 else region):
        raise ConfigError(f"partitions of {size} vertices do not fit the scratchpad's "
                          f"{'' if count == 1 else 'half, '}"
                          f"{whole if count == 1 else region} vertices (max_vertices="
                          f"{config.max_vertices})")
    if count * (count + 1) // 2 > config.max_slices:
        raise ConfigError(f"the graph's {num_vertices} vertices need {count} partitions of "
                          f"{size}, {count * (count + 1) // 2} slices (extended slicing), but "
                          f"the design runs at most max_slices={config.max_slices}")
    return size


def check_graph(graph: golden.Graph, algo: str, config: GraphicionadoConfig,
                slices: int | None = None) -> int:
    """Refuse, with one line, a graph this configuration cannot run correctly; return the
    destinations per slice (:func:`plan_slices`), or with extended slicing the vertices per
    partition (:func:`plan_partitions`)."""
    if config.extended_slicing:
        slice_vertices = plan_partitions(graph.num_vertices, config, slices)
    else:
        slice_vertices = plan_slices(graph.num_vertices, config, slices)
    if not config.algorithm.full_edge_access and \
            graph.num_vertices > config.edge_table_vertices:
        raise ConfigError(f"the graph has {graph.num_vertices} vertices but the EdgeIDTable "
                          f"covers table_vertices={config.edge_table_vertices} (set "
                          f"table_vertices, and coarsening to keep the table small)")
    graph.validate_for_hardware(id_width=32)
    program = algorithm_of(algo).program
    if program.uses_weight and program.weight != Float32:
        graph.require_nonnegative_integer_weights()
    if config.algorithm.large_property and config.algo != "cf":
        raise ConfigError(f"{config.algo}: the simulation's memory image and golden check of "
                          f"Float32Vector programs are CF's (the built-in cf); the hardware "
                          f"of other vector programs is generated but not simulated")
    if algo == "cf" and graph.weight is None:
        raise ConfigError("cf needs a rating (weight) on every edge, e.g. a graph from "
                          "bipartite:users=...,items=...,ratings=...")
    if algo != config.algo:
        raise ConfigError(f"the design is configured for {config.algo}, not {algo}")
    if config.symmetric and not graph.symmetric:
        raise ConfigError("symmetric: the symmetric-graph optimisation (§IV.D) needs an "
                          "undirected graph, each edge in both directions with one weight "
                          "(e.g. bipartite:users=...,items=...,ratings=...)")
    return slice_vertices


def stored_graph(graph: golden.Graph, config: GraphicionadoConfig) -> golden.Graph:
    """The edges the pipeline reads: all of them, or with the symmetric-graph optimisation
    (§IV.D) each undirected edge once, from the larger id to the smaller."""
    if not config.symmetric:
        return graph
    kept = stored_edges(graph)
    return golden.Graph.from_edges(graph.num_vertices, graph.src[kept], graph.dst[kept],
                                   None if graph.weight is None else graph.weight[kept])


def check_memory(config: GraphicionadoConfig, memory: SimMemoryConfig):
    """Refuse, with one line, a memory whose channels do not match the pipeline's ports."""
    memory_for(config, memory, "the pipeline")


def simulate(graph: golden.Graph, config: GraphicionadoConfig,
             memory: SimMemoryConfig | None = None,
             run: RunSettings = RunSettings()) -> GraphicionadoReport:
    """Run ``graph`` through the pipeline beside the DRAM model (``memory``; None: the default
    one with the configuration's channels) and check the result.

    ``run`` (:class:`sim.run_settings.RunSettings`): ``algo`` (None: the configuration's),
    ``root``, ``iters`` (PageRank and CF run 10 unless it says otherwise, as the golden
    model), ``slices`` (graph slices, §VI.A; None: as many as the scratchpad needs), ``cf``
    (CF's parameters), ``params`` (the program's parameters), ``overlay`` (regions another unit wrote, put over the host's) and
    ``sim_top`` (a top in place of :class:`GraphicionadoSimTop`, as :mod:`sim.postsynth`'s
    around the ECP5 netlist)."""
    run.check("graphicionado")
    algo, root, iters, cf = run.algo or config.algo, run.root, run.iters, run.cf
    slice_vertices = check_graph(graph, algo, config, run.slices)
    program = config.program
    if iters is None:
        iters = program.iterations
    if algo == "cf":
        cf = {**(cf or {}), "K": config.property_words}
    root = (root or 0) if program.uses_root else None
    new_ids, order = None, None
    if run.vertex_order == "spread":
        graph, new_ids, order = _spread(graph, config.streams_dst)
        root = None if root is None else int(new_ids[root])
    started = time.perf_counter()
    reference = expected_values(graph, algo, root=root,
                                iters=iters, streams_src=config.streams_src,
                                streams_dst=config.streams_dst, cf=cf,
                                symmetric=config.symmetric,
                                partition_vertices=slice_vertices, params=run.params,
                                paired_runs=config.paths == 2,
                                edge_readers=config.edge_readers)
    golden_seconds = time.perf_counter() - started

    run_graph = graph.symmetrized() if program.undirected and not config.symmetric else \
        stored_graph(graph, config)
    max_iterations = iters if iters is not None else 0xFFFF_FFFF
    image = build_image(run_graph, algo=algo, root=root or 0, coarsening=config.coarsening,
                        max_iterations=max_iterations, streams_src=config.streams_src,
                        streams_dst=config.streams_dst, edge_readers=config.edge_readers,
                        slice_vertices=slice_vertices, max_slices=config.max_slices, cf=cf,
                        extended=config.extended_slicing, params=run.params,
                        edge_words=config.edge_words,
                        undirected=graph if config.symmetric else None)
    for name, words in (run.overlay or {}).items():
        image.dram.overwrite(name, words)
    memory = memory or SimMemoryConfig(channels=config.memory_channels)
    check_memory(config, memory)
    if run.sim_top is not None:
        if run.bus != "native":
            raise ConfigError("a sim_top of its own (post-synthesis) runs on the internal "
                              "bus only")
        sim_top, top_digest = run.sim_top
        make_top, top_name = (lambda: sim_top(config, memory)), "graphicionado_sim"
    else:
        make_top, top_name, top_digest = sim_top_for(GraphicionadoSimTop, config, memory, run,
                                                     "graphicionado_sim")
    dram_run = run_register_design(make_top, top_name,
                                   config, memory, image.dram, image.registers,
                                   registers(config), counter_names(config),
                                   max_cycles=run.max_cycles, bus=run.bus,
                                   iteration_counter=ITERATION_COUNTER, watchdog=_watchdog(config),
                                   top_digest=top_digest,
                                   read_region=image.result_region(reference.iterations),
                                   simulator=run.simulator, seed=run.seed,
                                   build_root=run.build_root, trace=run.trace, keep=run.keep,
                                   error_text="an edge out of source order in the graph "
                                              "image")
    values = image.vertex_values(dram_run.words)
    iterations = dram_run.outcome["counters"]["iterations"]
    if image.double_vprop and iterations != reference.iterations:
        # The result's VProperty array was chosen by the golden model's iteration count.
        raise RunFailure(f"the pipeline ran {iterations} iterations, the golden "
                         f"model {reference.iterations}: VProperty alternates between two "
                         f"arrays, so the values read back would be the wrong ones")

    expected = np.asarray(reference.values)
    expected_bits = expected.view(np.uint32) if expected.dtype == np.float32 else \
        expected.astype(np.uint32)
    rtl = values.view(np.float32).astype(np.float64)
    gold = expected.astype(np.float64)
    wrong = values != expected_bits     # equal bits always match (an infinity, say)
    with np.errstate(invalid="ignore"):
        if reference.absolute_bound is not None:
            wrong &= ~(np.abs(rtl - gold) <= reference.absolute_bound)
        elif reference.relative_bound:
            wrong &= ~(np.abs(rtl - gold) <= reference.relative_bound * np.abs(gold))
    # A vertex differs if any of its features does (CF's properties are vectors).
    differing = np.flatnonzero(wrong.reshape(len(wrong), -1).any(axis=1))
    first = None
    if differing.size:
        v = int(differing[0])
        k = int(np.flatnonzero(wrong.reshape(len(wrong), -1)[v])[0])
        at = (v, k) if values.ndim == 2 else v
        first = {"vertex": v, "rtl": _show(values[at], expected.dtype),
                 "golden": _show(expected_bits[at], expected.dtype)}
        if values.ndim == 2:
            first["feature"] = k
    rtl_values = values.view(np.float32) if expected.dtype == np.float32 else values
    if new_ids is not None:
        # Back in the graph's vertex order (a value that is a vertex id, such as CC's label,
        # stays a new id).
        rtl_values = rtl_values[new_ids]
        if first is not None:
            first["vertex"] = int(np.flatnonzero(new_ids == first["vertex"])[0])
    return GraphicionadoReport(
        algo=algo, graph=run.graph_name, num_vertices=graph.num_vertices,
        num_edges=run_graph.num_edges, iterations=iterations,
        counters=dram_run.outcome["counters"], golden_iterations=reference.iterations,
        first_mismatch=first,
        **dram_run.report_fields(golden_seconds, run.simulator),
        values=rtl_values.copy(), comparison=reference.comparison,
        crossbar_inputs=config.streams_src * config.source_outputs, memory=memory.as_dict(),
        slices=image.slices, slice_vertices=image.slice_vertices,
        ext_partitions=image.registers.get("ext_partitions", 0),
        vertices_compared=int(wrong.shape[0]), vertices_differing=int(differing.size),
        vertex_order=order)


def _spread(graph: golden.Graph, streams: int):
    """The graph renumbered by :func:`golden.vertex_order.spread_hubs` for ``streams``
    destination streams; the new ids and the order's figures."""
    started = time.perf_counter()
    renumbered, new_ids = spread(graph, streams)
    seconds = time.perf_counter() - started
    return renumbered, new_ids, {
        "order": "spread", "streams": streams,
        "busiest_share": busiest_share(stream_loads(renumbered.dst, streams)),
        "busiest_share_ids": busiest_share(stream_loads(graph.dst, streams)),
        "host_seconds": seconds}


def _show(word, dtype) -> str:
    if dtype == np.float32:
        return f"{float(np.uint32(word).view(np.float32))!r} (0x{int(word):08x})"
    return str(int(word))
