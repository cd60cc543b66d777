"""The single-stream Graphicionado pipeline (Ham et al., MICRO 2016, §3–4; figures 5 and 6).

Processing phase, frontier algorithms (BFS, SSSP, CC)::

    P1 Sequential Vertex Read (ActiveVertex list) → P2 EdgeID Read (scratchpad EdgeIDTable)
    → P3 Edge Read [→ P4 Random Vertex Read of VProperty[dst], with ``dst_property_read``]
    → P5 Process_Edge → P6–P9 Atomic Update (CAM, VTempProperty, Reduce)

Processing phase, full edge access (PageRank, §4.B)::

    P1 Sequential Vertex Read (VProperty, VConst) ┐
    P3 Edge Read (whole edge list, in order)      ┴→ Source Merge → P5 → P6–P9

Apply phase::

    A1 Sequential Vertex Read (VProperty) + A2 VTempProperty stream → A3 Apply
    → A4 Sequential Vertex Write (VProperty), A5 Sequential Vertex Write (ActiveVertex)

Stages are joined by FIFOs of ``fifo_depth`` entries. The controller loads the EdgeIDTable
into the scratchpad, clears VTempProperty, then alternates the phases until no vertex is
active or ``max_iterations`` is reached. All memory traffic leaves through a
:class:`hw.memory_interconnect.MemoryInterconnect`: ``memory_channels`` tagged ports
(:func:`hw.memory_port.mem_port_signature`), lines interleaved across them, each port behind a
round-robin arbiter (with one channel, the arbiter alone).
"""

from amaranth.hdl import Cat, Module, Mux, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..atomic_update_cam import CAMConfig
from ..config import ConfigError
from ..integer_units import Minimum, SaturatingAdd
from ..memory_interconnect import MemoryInterconnect
from ..memory_port import MEMORY_TAG_WIDTH, mem_port_signature
from ..stream_fifo import StreamFIFO
from ..stream_register_slice import StreamRegisterSlice
from ..stream_throttle import StreamLinks
from .algorithms import FP32_ALPHA, FP32_ONE_MINUS_ALPHA
from .apply import ApplyMin, ApplyPageRank
from .atomic_update import AtomicUpdate
from .config import GraphicionadoConfig
from .edge_id_read import EdgeIDRead
from .edge_read import EdgeRead
from .layouts import ActiveVertex, DestinedEdge, EdgeJob, SourcedEdge, Update
from .process_edge import ProcessEdge
from .random_vertex_read import RandomVertexRead
from .scratchpad import Scratchpad, TempItem, TempPropertyStream
from .sequential_vertex_read import SequentialVertexRead
from .sequential_vertex_write import SequentialVertexWrite
from .source_merge import SourceMerge


__all__ = ["REGISTERS", "COUNTERS", "CHANNEL_COUNTERS", "counter_names",
           "GraphicionadoPipeline"]

# Configuration registers the host sets before ``start`` (DEP/Graphicionado-style
# memory-mapped registers; here plain inputs). Bases are 64-byte line addresses.
REGISTERS = ("num_vertices", "num_edges", "vprop_base", "vconst_base", "edge_base",
             "table_base", "table_count", "active_base_a", "active_base_b", "active_count",
             "max_iterations")

# Status counters readable at the end of a run.
COUNTERS = ("cycles", "cycles_load", "cycles_process", "cycles_apply", "edges", "updates",
            "vertex_updates", "cam_stalls", "mem_reads", "mem_writes",
            "stall_p1", "stall_p2", "stall_p3", "stall_p4", "stall_p5", "stall_apply")
# Per memory channel c: requests taken (``mem{c}_reads``, ``mem{c}_writes``) and cycles a
# request waited at the channel, not taken (``mem{c}_refused``).
CHANNEL_COUNTERS = ("reads", "writes", "refused")


def counter_names(config: GraphicionadoConfig) -> tuple[str, ...]:
    """Every status counter of a pipeline of ``config``: :data:`COUNTERS`, then
    ``mem{c}_<name>`` for each channel ``c`` and name of :data:`CHANNEL_COUNTERS`."""
    return COUNTERS + tuple(f"mem{c}_{name}" for c in range(config.memory_channels)
                            for name in CHANNEL_COUNTERS)


class GraphicionadoPipeline(wiring.Component):
    """One Graphicionado stream for one algorithm.

    Parameters
    ----------
    config : :class:`GraphicionadoConfig`

    Members
    -------
    mem : ``Out(mem_port_signature(addr_width, MEMORY_TAG_WIDTH)).array(memory_channels)``
        Memory channel ``c`` serves the lines with ``addr % memory_channels == c``. Tagged
        with the client's index: reads of different clients may come back in any order.
    start : ``In(1)``
        Pulse: run with the values of the registers.
    <register> : ``In(32)`` for each name in :data:`REGISTERS`
    busy, done : ``Out(1)``
        ``done`` rises when the run ends and stays high until the next ``start``.
    iterations : ``Out(32)``
    active_count_out : ``Out(32)``
        Active vertices left after the last iteration.
    stat_<counter> : ``Out(32)`` for each name of :func:`counter_names`
    error : ``Out(1)``
        The graph image broke an invariant (an edge out of source order).
    """

    def __init__(self, config: GraphicionadoConfig):
        if not isinstance(config, GraphicionadoConfig):
            raise ConfigError("GraphicionadoPipeline needs a GraphicionadoConfig, not "
                              f"{type(config).__name__}")
        self._config = config
        members = {
            "mem": Out(mem_port_signature(config.addr_width, MEMORY_TAG_WIDTH))
            .array(config.memory_channels),
            "start": In(1),
            "busy": Out(1),
            "done": Out(1),
            "iterations": Out(32),
            "active_count_out": Out(32),
            "error": Out(1),
        }
        members.update({name: In(32) for name in REGISTERS})
        members.update({f"stat_{name}": Out(32) for name in counter_names(config)})
        if config.stall_injection:
            members["stall_seed"] = In(32)
        super().__init__(members)
        self.link_probes = []

    @property
    def config(self) -> GraphicionadoConfig:
        return self._config

    def elaborate(self, platform):
        cfg = self._config
        full = cfg.algorithm.full_edge_access
        m = Module()
        fifo = lambda shape: StreamFIFO(shape, cfg.fifo_depth)  # noqa: E731
        svr = lambda words: SequentialVertexRead(  # noqa: E731
            item_words=words, addr_width=cfg.addr_width, prefetch_lines=cfg.prefetch_lines)

        m.submodules.scratchpad = pad = Scratchpad(vertices=cfg.max_vertices,
                                                   table_entries=cfg.table_entries)
        units = _compute_units(cfg)
        m.submodules.edge_read = edge_read = EdgeRead(
            addr_width=cfg.addr_width, prefetch_lines=cfg.edge_prefetch_lines,
            job_depth=cfg.edge_jobs)
        m.submodules.process_edge = process = ProcessEdge(
            algo=cfg.algo, unit=units["process"], dst_prop=cfg.dst_property_read)
        m.submodules.atomic_update = atomic = AtomicUpdate(
            reduce_unit=units["reduce"], index_width=pad.index_width,
            cam=CAMConfig(entries=cfg.cam_entries, ways=cfg.cam_ways,
                          id_width=max(pad.index_width, (cfg.cam_entries // cfg.cam_ways)
                                       .bit_length())))
        m.submodules.fifo_p3 = fifo_p3 = StreamFIFO(SourcedEdge, cfg.fifo_depth, buffered=True)
        # Registered output: the CAM lookup then starts from a flip-flop, not a LUT RAM read.
        m.submodules.fifo_p5 = fifo_p5 = StreamFIFO(Update, cfg.fifo_depth, buffered=True)
        m.submodules.temp_stream = temp_stream = TempPropertyStream(index_width=pad.index_width)
        m.submodules.vprop_write = vprop_write = SequentialVertexWrite(
            item_words=1, addr_width=cfg.addr_width)
        m.submodules.fifo_a4 = fifo_a4 = fifo(32)
        # With ``stall_injection``, stages are joined through random throttles.
        link = StreamLinks(m, percent=cfg.stall_injection,
                           seed=self.stall_seed if cfg.stall_injection else None)
        self.link_probes = link.probes

        if cfg.dst_property_read:
            # As many edges in flight as the arbiter lets reads be: a deeper queue gains nothing.
            m.submodules.dst_prop_read = dst_prop_read = RandomVertexRead(
                addr_width=cfg.addr_width, outstanding=cfg.memory_outstanding)
            m.d.comb += dst_prop_read.vprop_base.eq(self.vprop_base)
            link(fifo_p3.o, dst_prop_read.i, "fifo_p3->dst_prop_read")
            link(dst_prop_read.o, process.i, "dst_prop_read->process_edge")
            dst_prop_idle = ~dst_prop_read.busy
            stall_p4 = dst_prop_read.o.valid & ~dst_prop_read.o.ready
        else:
            link(fifo_p3.o, process.i, "fifo_p3->process_edge")
            dst_prop_idle, stall_p4 = 1, 0
        link(process.o, fifo_p5.i, "process_edge->fifo_p5")
        # Atomic Update takes an update after a CAM lookup; a register slice keeps that
        # decision off the queue's read logic (the queue spans more of the chip than P6).
        m.submodules.slice_p6 = slice_p6 = StreamRegisterSlice(Update)
        link(fifo_p5.o, slice_p6.i, "fifo_p5->slice_p6")
        link(slice_p6.o, atomic.i, "slice_p6->atomic_update")
        link(fifo_a4.o, vprop_write.i, "fifo_a4->vprop_write")

        # ---- controller ------------------------------------------------------------------
        regs = {name: getattr(self, name) for name in REGISTERS}
        start_process = Signal()
        start_apply = Signal()
        flush = Signal()
        settle = Signal(3)
        clear_index = Signal(32)
        clear_last = Signal()    # clear_index + 1 >= num_vertices, a cycle ahead
        parity = Signal()              # which ActiveVertex buffer this iteration reads
        active_count = Signal(32)
        front_idle = Signal()
        edges_in = Signal(32)
        updates_out = Signal(32)
        loader_busy = Signal()
        arbiter_busy = Signal()
        apply_done = Signal()
        writers_idle = Signal()
        new_active = Signal(32)
        phase_load, phase_clear, phase_process, phase_apply = (Signal(name=f"in_{n}")
                                                              for n in ("load", "clear",
                                                                        "process", "apply"))

        # Cycles since the last phase started, saturating: a phase's idle checks wait a few
        # cycles for its start pulse to reach every stage.
        settled = settle == 7
        m.d.sync += settle.eq(settle + ~settled)
        # The start pulses are registers, and so are the idle checks the states wait on: both
        # reach across the whole design, and neither may be a long path. Waiting a cycle more
        # is safe because a drained phase stays drained.
        stop = Signal()
        drained = Signal()
        applied = Signal()
        flushed = Signal()
        # A word held in a stall-injection throttle is work not yet done.
        links_busy = Signal()
        m.d.sync += [start_process.eq(0), start_apply.eq(0), flush.eq(0),
                     drained.eq(front_idle & (edges_in == updates_out) & ~links_busy),
                     applied.eq(apply_done & ~links_busy),
                     flushed.eq(writers_idle & ~arbiter_busy & ~links_busy)]
        with m.FSM(name="control"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [self.done.eq(0), self.iterations.eq(0), parity.eq(0),
                                 active_count.eq(regs["active_count"]), clear_index.eq(0),
                                 clear_last.eq(regs["num_vertices"] <= 1), settle.eq(0)]
                    m.next = "CLEAR" if full else "LOAD"
            if not full:
                with m.State("LOAD"):
                    m.d.comb += phase_load.eq(1)
                    with m.If(settled & ~loader_busy & ~links_busy):
                        m.next = "CLEAR"
            with m.State("CLEAR"):
                m.d.comb += phase_clear.eq(1)
                m.d.sync += [clear_index.eq(clear_index + 1),
                             clear_last.eq(clear_index + 2 >= regs["num_vertices"])]
                with m.If(clear_last):
                    m.next = "NEXT"
            with m.State("NEXT"):
                m.d.sync += stop.eq(((active_count == 0) & (not full)) |
                                    (self.iterations == regs["max_iterations"]))
                m.next = "DECIDE"
            with m.State("DECIDE"):
                with m.If(stop):
                    m.d.sync += self.done.eq(1)
                    m.next = "IDLE"
                with m.Else():
                    m.d.sync += [start_process.eq(1), settle.eq(0)]
                    m.next = "PROCESS"
            with m.State("PROCESS"):
                m.d.comb += phase_process.eq(1)
                with m.If(settled & drained):
                    m.d.sync += [start_apply.eq(1), settle.eq(0)]
                    m.next = "APPLY"
            with m.State("APPLY"):
                m.d.comb += phase_apply.eq(1)
                with m.If(settled & applied):
                    m.d.sync += [flush.eq(1), settle.eq(0)]
                    m.next = "FLUSH"
            with m.State("FLUSH"):
                m.d.comb += phase_apply.eq(1)
                with m.If(settled & flushed):
                    m.d.sync += [self.iterations.eq(self.iterations + 1), parity.eq(~parity),
                                 active_count.eq(new_active)]
                    m.next = "NEXT"
        m.d.comb += [self.busy.eq(~self.done & (phase_load | phase_clear | phase_process |
                                                phase_apply)),
                     self.active_count_out.eq(active_count)]

        # ---- scratchpad ports, by phase ------------------------------------------------
        m.d.comb += [
            pad.table_addr.eq(0), pad.table_next_addr.eq(0),
        ]
        with m.If(phase_apply):
            m.d.comb += [
                pad.temp_read_addr.eq(temp_stream.read_addr),
                pad.temp_write_addr.eq(temp_stream.write_addr),
                pad.temp_write_data.eq(temp_stream.write_data),
                pad.temp_write_en.eq(temp_stream.write_en),
            ]
        with m.Elif(phase_clear):
            m.d.comb += [
                pad.temp_write_addr.eq(clear_index),
                pad.temp_write_data.eq(cfg.algorithm.reduce_identity),
                pad.temp_write_en.eq(1),
            ]
        with m.Else():
            m.d.comb += [
                pad.temp_read_addr.eq(atomic.temp_read_addr),
                pad.temp_write_addr.eq(atomic.temp_write_addr),
                pad.temp_write_data.eq(atomic.temp_write_data),
                pad.temp_write_en.eq(atomic.temp_write_en),
            ]
        m.d.comb += [
            atomic.temp_read_data.eq(pad.temp_read_data),
            temp_stream.read_data.eq(pad.temp_read_data),
            temp_stream.start.eq(start_apply),
            temp_stream.count.eq(regs["num_vertices"]),
            temp_stream.identity.eq(cfg.algorithm.reduce_identity),
        ]

        # ---- processing phase front end and apply phase, per mode ----------------------
        vprop_base_next = regs["vprop_base"]
        m.d.comb += [
            edge_read.start.eq(start_process),
            edge_read.edge_base.eq(regs["edge_base"]),
            vprop_write.start.eq(start_apply),
            vprop_write.base.eq(vprop_base_next),
            vprop_write.flush.eq(flush),
        ]
        clients = []
        if full:
            m.submodules.src_prop_read = src_prop = svr(1)
            m.submodules.src_const_read = src_const = svr(2)
            m.submodules.source_merge = merge = SourceMerge(depth=cfg.fifo_depth)
            m.submodules.apply = apply = ApplyPageRank(
                multiplier=units["apply_multiplier"], adder=units["apply_adder"],
                alpha=FP32_ALPHA, one_minus_alpha=FP32_ONE_MINUS_ALPHA)
            link(src_prop.o, merge.prop, "src_prop_read->source_merge")
            link(src_const.o, merge.const, "src_const_read->source_merge")
            link(edge_read.o, merge.edges, "edge_read->source_merge")
            link(merge.o, fifo_p3.i, "source_merge->fifo_p3")
            link(temp_stream.o, apply.temp, "temp_stream->apply")
            link(apply.o_prop, fifo_a4.i, "apply.o_prop->fifo_a4")
            # One edge job covering the whole edge list, offered at the start of the phase.
            job_pending = Signal()
            with m.If(edge_read.i.ready):
                m.d.sync += job_pending.eq(0)
            with m.If(start_process):
                m.d.sync += job_pending.eq(regs["num_edges"] != 0)
            m.d.comb += [
                edge_read.i.valid.eq(job_pending),
                edge_read.i.payload.start.eq(0),
                edge_read.i.payload.end.eq(regs["num_edges"]),
                edge_read.match_any.eq(1),
                src_prop.start.eq(start_process), src_prop.base.eq(regs["vprop_base"]),
                src_prop.count.eq(regs["num_vertices"]),
                src_const.start.eq(start_process), src_const.base.eq(regs["vconst_base"]),
                src_const.count.eq(regs["num_vertices"]),
                front_idle.eq(~job_pending & ~src_prop.busy & ~src_const.busy &
                              ~merge.busy & ~edge_read.busy & (fifo_p3.level == 0)),
                self.error.eq(merge.mismatch),
            ]
            clients = [("src_prop_read", src_prop.mem), ("src_const_read", src_const.mem),
                       ("edge_read", edge_read.mem), ("vprop_write", vprop_write.mem)]
            stall_p1 = src_prop.o.valid & ~src_prop.o.ready
            stall_p2 = edge_read.i.valid & ~edge_read.i.ready
            vertex_updated = temp_stream.o.valid & temp_stream.o.ready
            apply_stall = temp_stream.o.valid & ~temp_stream.o.ready
            m.d.comb += [
                apply_done.eq(~temp_stream.busy & ~fifo_a4.o.valid &
                              (vprop_write.written == regs["num_vertices"])),
                writers_idle.eq(~vprop_write.busy),
                new_active.eq(regs["num_vertices"]),
            ]
        else:
            m.submodules.active_read = active_read = svr(2)
            m.submodules.fifo_p1 = fifo_p1 = fifo(ActiveVertex)
            m.submodules.edge_id_read = edge_id_read = EdgeIDRead(
                table_addr_width=pad.table_width, coarsening=cfg.coarsening)
            m.submodules.vprop_read = vprop_read = svr(1)
            m.submodules.apply = apply = ApplyMin()
            m.submodules.fifo_a1 = fifo_a1 = StreamFIFO(vprop_read.o.payload.shape(),
                                                        cfg.fifo_depth)
            m.submodules.fifo_a5 = fifo_a5 = fifo(ActiveVertex)
            m.submodules.active_write = active_write = SequentialVertexWrite(
                item_words=2, addr_width=cfg.addr_width)
            # P1 → P2: a list entry is (id, prop) in two words.
            active_entries = stream.Signature(ActiveVertex).create()
            m.d.comb += [
                active_entries.valid.eq(active_read.o.valid),
                active_entries.payload.eq(active_read.o.payload.data),
                active_read.o.ready.eq(active_entries.ready),
            ]
            link(active_entries, fifo_p1.i, "active_read->fifo_p1")
            link(fifo_p1.o, edge_id_read.i, "fifo_p1->edge_id_read")
            link(edge_id_read.o, edge_read.i, "edge_id_read->edge_read")
            link(edge_read.o, fifo_p3.i, "edge_read->fifo_p3")
            link(temp_stream.o, apply.temp, "temp_stream->apply")
            link(fifo_a1.o, apply.prop, "fifo_a1->apply")
            link(apply.o_prop, fifo_a4.i, "apply.o_prop->fifo_a4")
            link(apply.o_active, fifo_a5.i, "apply.o_active->fifo_a5")
            link(fifo_a5.o, active_write.i, "fifo_a5->active_write")
            m.d.comb += [
                pad.table_addr.eq(edge_id_read.table_addr),
                pad.table_next_addr.eq(edge_id_read.table_next_addr),
                pad.table_en.eq(edge_id_read.table_en),
                edge_id_read.table_data.eq(pad.table_data),
                edge_id_read.table_next_data.eq(pad.table_next_data),
                edge_read.match_any.eq(0),
                active_read.start.eq(start_process),
                active_read.base.eq(Mux(parity, regs["active_base_b"],
                                            regs["active_base_a"])),
                active_read.count.eq(active_count),
                active_write.start.eq(start_apply),
                active_write.base.eq(Mux(parity, regs["active_base_a"],
                                             regs["active_base_b"])),
                active_write.flush.eq(flush),
                front_idle.eq(~active_read.busy & ~fifo_p1.o.valid & ~edge_id_read.busy &
                              ~edge_read.busy & (fifo_p3.level == 0) & dst_prop_idle),
            ]
            # A1 reads VProperty in the apply phase; at the start it loads the EdgeIDTable.
            load_start = Signal()
            m.d.comb += load_start.eq(self.start & ~self.busy)
            m.d.comb += [
                vprop_read.start.eq(load_start | start_apply),
                vprop_read.base.eq(Mux(phase_apply | start_apply, regs["vprop_base"],
                                           regs["table_base"])),
                vprop_read.count.eq(Mux(phase_apply | start_apply, regs["num_vertices"],
                                            regs["table_count"])),
            ]
            # In the load phase A1's words go to the EdgeIDTable, else to Apply.
            to_apply = stream.Signature(vprop_read.o.payload.shape()).create()
            m.d.comb += [
                pad.table_write_addr.eq(vprop_read.o.payload.index),
                pad.table_write_data.eq(vprop_read.o.payload.data),
                pad.table_write_en.eq(vprop_read.o.valid & phase_load),
                to_apply.payload.eq(vprop_read.o.payload),
                to_apply.valid.eq(vprop_read.o.valid & ~phase_load),
                vprop_read.o.ready.eq(phase_load | to_apply.ready),
            ]
            link(to_apply, fifo_a1.i, "vprop_read->fifo_a1")
            clients = [("active_read", active_read.mem), ("edge_read", edge_read.mem),
                       ("vprop_read", vprop_read.mem), ("vprop_write", vprop_write.mem),
                       ("active_write", active_write.mem)]
            if cfg.dst_property_read:
                clients.append(("dst_prop_read", dst_prop_read.mem))
            stall_p1 = fifo_p1.o.valid & ~fifo_p1.o.ready
            stall_p2 = edge_id_read.o.valid & ~edge_id_read.o.ready
            vertex_updated = apply.o_active.valid & apply.o_active.ready
            apply_stall = (fifo_a1.o.valid ^ temp_stream.o.valid)
            m.d.comb += [
                apply_done.eq(~temp_stream.busy & ~vprop_read.busy & ~fifo_a1.o.valid &
                              ~fifo_a4.o.valid & ~fifo_a5.o.valid &
                              (vprop_write.written == regs["num_vertices"])),
                writers_idle.eq(~vprop_write.busy & ~active_write.busy),
                new_active.eq(active_write.written),
                loader_busy.eq(vprop_read.busy),
            ]

        m.submodules.arbiter = arbiter = MemoryInterconnect(
            ports=len(clients), channels=cfg.memory_channels, addr_width=cfg.addr_width,
            outstanding=cfg.memory_outstanding)
        for (name, client), port in zip(clients, arbiter.clients):
            link.port(client, port, name)
        m.d.comb += [arbiter_busy.eq(arbiter.busy), links_busy.eq(link.busy)]
        for channel, mem in zip(arbiter.channels, self.mem):
            wiring.connect(m, channel, wiring.flipped(mem))

        # ---- counters --------------------------------------------------------------------
        edge_taken = process.i.valid & process.i.ready
        update_written = atomic.temp_write_en & phase_process
        with m.If(start_process):
            m.d.sync += [edges_in.eq(0), updates_out.eq(0)]
        with m.Else():
            m.d.sync += [edges_in.eq(edges_in + edge_taken),
                         updates_out.eq(updates_out + update_written)]
        channel_events = {}
        for c, mem in enumerate(self.mem):
            taken = mem.req.valid & mem.req.ready
            channel_events.update({
                f"mem{c}_reads": taken & ~mem.req.payload.write,
                f"mem{c}_writes": taken & mem.req.payload.write,
                f"mem{c}_refused": mem.req.valid & ~mem.req.ready,
            })
        # Requests taken this cycle over every channel (up to one a channel).
        reads, writes = (Cat(channel_events[f"mem{c}_{kind}"] for c in range(len(self.mem)))
                         for kind in ("reads", "writes"))
        if len(self.mem) > 1:
            reads, writes = (sum(taken) for taken in (reads, writes))
        events = {
            "cycles": self.busy,
            "cycles_load": phase_load | phase_clear,
            "cycles_process": phase_process,
            "cycles_apply": phase_apply,
            "edges": edge_taken,
            "updates": update_written,
            "vertex_updates": vertex_updated,
            "cam_stalls": atomic.cam_stall & phase_process,
            "mem_reads": reads,
            "mem_writes": writes,
            "stall_p1": stall_p1,
            "stall_p2": stall_p2,
            "stall_p3": fifo_p3.o.valid & ~fifo_p3.o.ready,
            "stall_p4": stall_p4,
            "stall_p5": fifo_p5.o.valid & ~fifo_p5.o.ready,
            "stall_apply": apply_stall & phase_apply,
            **channel_events,
        }
        # The counters restart the cycle after a run starts, from that cycle's event: the
        # restart is a register, not the start input and the busy decode of the control state
        # on the way to every counter bit. (Nothing reads them in that cycle.)
        restart = Signal()
        m.d.sync += restart.eq(self.start & ~self.busy)
        for name in counter_names(cfg):
            counter = getattr(self, f"stat_{name}")
            event = Value.cast(events[name])
            with m.If(restart):
                m.d.sync += counter.eq(event)
            with m.Elif(event != 0):
                # (Several a cycle for the memory totals: up to one per channel.)
                m.d.sync += counter.eq(counter + (1 if len(event) == 1 else event))
        return m


def _compute_units(cfg: GraphicionadoConfig) -> dict:
    """The custom compute modules of ``cfg.algo`` (Graphicionado §3.2 "Custom Modules")."""
    index_width = (cfg.max_vertices - 1).bit_length()
    if cfg.algorithm.floating_point:
        from ..fp32 import FP32Adder, FP32Multiplier
        return {"process": FP32Multiplier(tag_width=32),
                "reduce": FP32Adder(tag_width=index_width, lzc_stage=True),
                "apply_multiplier": FP32Multiplier(tag_width=1),
                "apply_adder": FP32Adder(tag_width=1, lzc_stage=True)}
    return {"process": SaturatingAdd(tag_width=32), "reduce": Minimum(tag_width=index_width)}
