"""The Graphicionado accelerator (Ham et al., MICRO 2016, §III–V; figures 5–8): n source
streams and m destination streams joined by a crossbar, sharing one memory system.

Processing phase::

    SourceStream 0..n-1 (P1–P3) → Crossbar (virtual output queues, by destination id)
    → DestinationStream 0..m-1 (P5–P9, each with its scratchpad slice)

Apply phase: each destination stream applies the vertices it owns (A1–A5).

Vertices fall into L = max(n, m) partitions by the low bits of their id, each laid out in
memory as its own arrays (:mod:`hw.graphicionado.partition_walk`); a stream walks the
partitions it owns. The controller loads each source stream's EdgeIDTable slice, clears
VTempProperty, then alternates the phases until no vertex is active or ``max_iterations``
is reached. All memory traffic leaves through a :class:`hw.lib.memory.interconnect.
MemoryInterconnect`: ``memory_channels`` tagged ports, lines interleaved across them, each
behind a round-robin arbiter. The host writes the run's registers
(:mod:`hw.graphicionado.registers`) into a register file before ``start``, as it does the
other designs'.
"""

from amaranth.hdl import Cat, Module, Mux, Signal, Value
from amaranth.lib import wiring

from hw.lib.stream.crossbar import Crossbar
from hw.lib.memory.interconnect import MemoryInterconnect
from hw.lib.registers.design import RegisterDesign
from hw.lib.registers.file import RegisterFile
from hw.lib.stream.links import StreamLinks
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.destination_stream import DestinationStream
from hw.graphicionado.layouts import update_flit
from hw.graphicionado.phase_controller import PhaseController
from hw.graphicionado.registers import (counter_names, param_registers, register_description,
                                        registers)
from hw.graphicionado.source_stream import SourceStream


__all__ = ["GraphicionadoPipeline"]

# Counters of the phase controller's state, counted as they happen; every other event is
# counted a cycle late (:meth:`GraphicionadoPipeline._registered`).
PHASE_EVENTS = ("cycles", "cycles_load", "cycles_process", "cycles_apply")


class GraphicionadoPipeline(RegisterDesign):
    """Graphicionado for one algorithm, ``streams_src`` × ``streams_dst`` streams.

    Parameters
    ----------
    config : :class:`GraphicionadoConfig`
    throttle : the stream throttle class for stall injection (simulation only)

    Members
    -------
    The members of :class:`~hw.lib.registers.design.RegisterDesign`, with the registers of
    :func:`~hw.graphicionado.registers.registers` and the counters of
    :func:`~hw.graphicionado.registers.counter_names`:

    mem
        One port, or with ``memory_channels`` > 1 an array of them, channel ``c`` serving
        the lines with ``addr % memory_channels == c``. Tagged with the client's index: reads
        of different clients may come back in any order.
    control.start : ``In(1)``
        Pulse: run with the values of the registers.
    control.busy, control.done : ``Out(1)``
        ``done`` rises when the run ends and stays high until the next ``start``.
    control.error : ``Out(1)``
        The graph image broke an invariant (an edge out of source order).
    counters.iterations : ``Out(32)``
        Iterations run.
    counters.active_count : ``Out(32)``
        Active vertices left after the last iteration.
    """

    CONFIG = GraphicionadoConfig

    def __init__(self, config: GraphicionadoConfig, *, throttle=None):
        self.check_config(config)
        super().__init__(config, registers=registers(config), counters=counter_names(config),
                         throttle=throttle)
        self._streams = []
        self._own_probes = []

    def register_description(self):
        return register_description(self.config)

    @property
    def link_probes(self):
        """Every stream link, the streams' own included (known once elaborated)."""
        return self._own_probes + [probe for stream_ in self._streams
                                   for probe in stream_.link_probes]

    def elaborate(self, platform):
        cfg = self._config
        m = Module()
        link = StreamLinks(m, percent=cfg.stall_injection, throttle=self._throttle,
                           seed=self.stall_seed if cfg.stall_injection else None)
        self._own_probes = link.probes
        sources = [SourceStream(cfg, s, throttle=self._throttle) for s in range(cfg.streams_src)]
        destinations = [DestinationStream(cfg, d, throttle=self._throttle) for d in range(cfg.streams_dst)]
        self._streams = sources + destinations
        outs = cfg.source_outputs
        m.submodules.crossbar = crossbar = Crossbar(
            cfg.edge_payload, inputs=cfg.streams_src * outs, outputs=cfg.streams_dst,
            route=lambda edge: edge.edge.dst, voq_depth=cfg.voq_entries,
            # Large properties: an edge's flits pass an output together (wormhole, §IV.E).
            packet_last=cfg.packet_last)
        # Register slices on each side of the crossbar: its queues' levels and its
        # arbitration reach flip-flops, not the source streams' Source Merge / Edge Read and
        # the destination streams' first FIFO (the slices' words count in ``link.busy``).
        for s, source in enumerate(sources):
            m.submodules[f"src{s}"] = source
            for k in range(outs):
                name = f"src{s}" + (f".{k}" if outs > 1 else "")
                link(source.o[k], crossbar.i[s * outs + k], f"{name}->crossbar", register=True)
        for d, destination in enumerate(destinations):
            m.submodules[f"dst{d}"] = destination
            link(crossbar.o[d], destination.i, f"crossbar->dst{d}", register=True)
        network = self._update_network(m, destinations, link)
        if cfg.paths == 2:
            # Paired source updates (§IV.D, two update paths): no source stream is busy and
            # no edge is in the crossbar or a link, registered (the terms span the chip).
            edges_done = Signal()
            m.d.sync += edges_done.eq(~Cat(source.busy_late for source in sources).any() &
                                      ~crossbar.busy & ~link.busy)
            m.d.comb += [destination.edges_done.eq(edges_done) for destination in destinations]
        if cfg.stall_injection:
            m.d.comb += [stream_.stall_seed.eq(self.stall_seed) for stream_ in self._streams]

        m.submodules.registers = regs = RegisterFile(self._registers)
        m.d.comb += [regs.addr.eq(self.regs.addr), regs.data.eq(self.regs.data),
                     regs.write.eq(self.regs.write)]
        m.submodules.control = control = PhaseController(cfg)
        self._wire_control(m, control, regs, sources, destinations, crossbar, link)
        if network is not None:
            m.d.comb += control.network_idle.eq(~network.busy)

        clients = [(f"src{s}.{name}", port) for s, source in enumerate(sources)
                   for name, port in source.memory_clients]
        clients += [(f"dst{d}.{name}", port) for d, destination in enumerate(destinations)
                    for name, port in destination.memory_clients]
        self._memory_clients = [name for name, _ in clients]
        m.submodules.interconnect = interconnect = MemoryInterconnect(
            ports=len(clients), channels=cfg.memory_channels, addr_width=cfg.addr_width,
            outstanding=cfg.memory_outstanding,
            # Only the write clients' request queues hold a line of data and its mask.
            read_only=[index for index, (name, _) in enumerate(clients)
                       if not name.endswith("write")])
        for (name, client), port in zip(clients, interconnect.clients):
            # A write's request (a line, its mask) through a register slice: the writer's line
            # assembly reaches flip-flops, not the arbiter's request queue, and the arbiter's
            # ready not the writer.
            link(client.req, port.req, f"{name}.req->interconnect",
                 register=name.endswith("write"))
            link(port.resp, client.resp, f"interconnect->{name}.resp")
        for channel, mem in zip(interconnect.channels, self.memory_ports):
            wiring.connect(m, channel, wiring.flipped(mem))
        m.d.comb += control.memory_idle.eq(~interconnect.busy & ~link.busy)
        self._counters(m, control, sources, destinations, crossbar)
        return m

    def _update_network(self, m, destinations, link):
        """The symmetric-graph optimisation over m > 1 destination streams (§IV.D): a
        second crossbar takes every stream's update packets to the stream that owns their
        vertex (wormhole, as the edge crossbar). None when not needed."""
        cfg = self._config
        if not cfg.update_network:
            return None
        owner_bits = cfg.streams_dst.bit_length() - 1
        # With two update paths a stream's v and u packets enter apart, and each leaves for
        # the path of its owner that holds its scratchpad index (its half: index bit 0):
        # port 2d + k is stream d's k.
        paths = cfg.paths
        route = (lambda update: update.owner) if paths == 1 else \
            (lambda update: Cat(update.dst[0], update.owner))
        # An update flit ends its packet as an edge flit does: ``packet_last`` reads ``flit``.
        m.submodules.update_network = network = Crossbar(
            update_flit(cfg.lanes, cfg.flits, owner_bits), inputs=paths * cfg.streams_dst,
            outputs=paths * cfg.streams_dst, route=route,
            voq_depth=cfg.voq_entries, packet_last=cfg.packet_last)
        for d, destination in enumerate(destinations):
            if paths == 1:
                link(destination.updates_o, network.i[d], f"dst{d}->update_network")
                link(network.o[d], destination.updates_i, f"update_network->dst{d}")
                continue
            for k in range(paths):
                link(destination.updates_o[k], network.i[paths * d + k],
                     f"dst{d}.{k}->update_network")
                link(network.o[paths * d + k], destination.updates_i[k],
                     f"update_network->dst{d}.{k}")
        return network

    def _wire_control(self, m, control, register_file, sources, destinations, crossbar, link):
        cfg = self._config
        full = cfg.algorithm.full_edge_access
        regs = {name: getattr(register_file, name) for name in self._registers}
        # The current slice's vertex range, registered from the slice number: valid the cycle
        # a slice's processing starts; only the destination streams' apply, clear and
        # Process_Edge (an edge comes a memory latency later) use it.
        slice_first, slice_end = self._vertex_range(
            m, control.part_dst if cfg.extended_slicing else control.slice, regs)
        ranges = self._extended_ranges(m, control, regs, slice_first, slice_end)
        # The EdgeIDTable's loaders, or the destinations' copies of VProperty and VConst.
        loaders = destinations if cfg.scratchpad_properties else sources
        read_prop = Mux(control.parity, regs["vprop_next_base"], regs["vprop_base"]) \
            if full else regs["vprop_base"]
        write_prop = Mux(control.parity, regs["vprop_base"], regs["vprop_next_base"]) \
            if full else regs["vprop_base"]
        m.d.comb += [
            control.start.eq(self.control.start),
            control.num_slices.eq(regs["num_slices"]),
            control.num_vertices.eq(regs["num_vertices"]),
            *([control.ext_partitions.eq(regs["ext_partitions"])]
              if cfg.extended_slicing else []),
            control.max_iterations.eq(regs["max_iterations"]),
            self.control.busy.eq(control.busy), self.control.done.eq(control.done),
            self.counters.iterations.eq(control.iterations),
            self.counters.active_count.eq(control.active_total),
            self.control.error.eq(Cat(source.error for source in sources).any()),
            control.loaded.eq(~Cat(unit.loading for unit in loaders).any() & ~link.busy),
            control.cleared.eq(~Cat(d.clearing for d in destinations).any()),
            control.drained.eq(self._drained(m, sources, destinations, crossbar, link,
                                             control.network_idle)),
            control.applied.eq(~Cat(d.applying for d in destinations).any()),
            control.spilled.eq(~Cat(d.spilling for d in destinations).any()),
        ]
        if not cfg.algorithm.full_edge_access:
            m.d.comb += [control.initial_counts[l].eq(regs[f"active_count_{l}"])
                         for l in range(cfg.partitions)]
        for s, source in enumerate(sources):
            m.d.comb += [getattr(source, name).eq(regs[name])
                         for name in ("part_lines", "vconst_base", "edge_base",
                                      "table_base", "table_count")]
            m.d.comb += [source.range_first.eq(ranges["src_first"]),
                         source.num_vertices.eq(ranges["src_end"])]
            m.d.comb += [source.vprop_base.eq(read_prop), source.slice.eq(control.slice),
                         source.load.eq(control.load), source.start.eq(control.start_process),
                         source.active_base.eq(Mux(control.parity, regs["active_base_b"],
                                                   regs["active_base_a"]))]
            readers = cfg.edge_readers
            for j in range(cfg.source_segments):
                part = s + cfg.streams_src * j
                m.d.comb += source.active_counts[j].eq(control.counts[part])
                if not cfg.algorithm.full_edge_access:
                    continue
                for slice_ in range(cfg.max_slices):
                    for k in range(readers):
                        group = (slice_ * cfg.partitions + part) * readers + k
                        at = (slice_ * cfg.source_segments + j) * readers + k
                        m.d.comb += [
                            source.edge_starts[at].eq(regs[f"edge_part_{group}"]),
                            source.edge_ends[at].eq(regs[f"edge_part_{group + 1}"])]
        # Extended slicing: no stream takes an edge while any stream's region is not ready
        # (u's updates cross the update network to other streams' scratchpads).
        if cfg.extended_slicing:
            holding = Signal(name="regions_holding")
            m.d.sync += holding.eq(Cat(d.holding for d in destinations).any())
        for d, destination in enumerate(destinations):
            m.d.comb += [
                destination.clear.eq(control.clear),
                destination.clear_all.eq(control.clear_all),
                destination.start_process.eq(control.start_process),
                destination.start_apply.eq(control.start_apply),
                destination.num_vertices.eq(slice_end),
                destination.slice_first.eq(slice_first),
                destination.first_slice.eq(control.slice == 0),
                destination.region_first.eq(ranges["region_first"]),
                destination.region_vertices.eq(ranges["region_vertices"]),
                destination.src_base.eq(ranges["src_base"]),
                destination.part_lines.eq(regs["part_lines"]),
                destination.vprop_base.eq(write_prop),
                destination.vprop_read_base.eq(read_prop),
                destination.active_base.eq(Mux(control.parity, regs["active_base_a"],
                                               regs["active_base_b"])),
            ]
            if cfg.algorithm.apply_reads_root:
                m.d.comb += destination.root.eq(regs["root"])
            m.d.comb += [destination.params[name].eq(regs[register])
                         for register, name in param_registers(cfg.algorithm).items()]
            if cfg.algorithm.large_property:
                m.d.comb += [destination.gamma.eq(regs["cf_gamma"]),
                             destination.lam.eq(regs["cf_lam"])]
            if cfg.scratchpad_properties:
                m.d.comb += [destination.load.eq(control.load),
                             destination.load_consts.eq(control.iterations == 0),
                             destination.vconst_base.eq(regs["vconst_base"])]
            if cfg.extended_slicing:
                m.d.comb += destination.hold_edges.eq(holding)
                m.d.comb += [destination.spill_store.eq(control.spill_store),
                             destination.spill_load.eq(control.spill_load),
                             destination.spill_base.eq(ranges["spill_base"]),
                             destination.spill_lines.eq(ranges["spill_lines"])]
            for j in range(cfg.destination_segments):
                m.d.comb += control.new_counts[d + cfg.streams_dst * j].eq(
                    destination.active_counts[j])

    @staticmethod
    def _drained(m, sources, destinations, crossbar, link, network_idle):
        """The processing phase's idle check of the cycle before: the streams' own (their
        ``busy_late``, ``drained_late``) and registers of the crossbar's, the links' and the
        update network's, all taken in the same cycle. Still correct, a cycle late (a
        drained phase stays drained); every stream's busy flags and compares reach a
        flip-flop near them, not the controller's ``drained_r`` through the whole AND."""
        held = Signal(3, name="drained_terms")
        m.d.sync += held.eq(Cat(~crossbar.busy, ~link.busy, network_idle))
        return (~Cat(source.busy_late for source in sources).any() & held.all() &
                Cat(d.drained_late for d in destinations).all())

    @staticmethod
    def _vertex_range(m, number, regs):
        """Registered: the first and end id of slice (or partition) ``number`` of
        ``slice_vertices`` ids."""
        first, end = Signal(32), Signal(32)
        start = number * regs["slice_vertices"]
        stop = start + regs["slice_vertices"]
        m.d.sync += [first.eq(start),
                     end.eq(Mux(stop < regs["num_vertices"], stop, regs["num_vertices"]))]
        return first, end

    def _extended_ranges(self, m, control, regs, slice_first, slice_end):
        """Where each stream works in the current slice. Unsliced or plainly sliced: the
        sources are all vertices, the scratchpad's one region the slice's destinations.
        Extended slicing (§VI.B), slice (i, j): sources in partition i; the destinations,
        partition j, in region A, from index 0; partition i in region B below the diagonal
        (A on it), which is what ``clear`` and the spill act on."""
        cfg = self._config
        shift = cfg.streams_dst.bit_length() - 1
        if not cfg.extended_slicing:
            return {"src_first": 0, "src_end": regs["num_vertices"],
                    "region_first": 0, "region_vertices": slice_end - slice_first,
                    "src_base": slice_first >> shift}
        src_first, src_end = self._vertex_range(m, control.part_src, regs)
        region_b = Signal()
        m.d.sync += region_b.eq(~control.diagonal)
        region_first = Mux(region_b, cfg.region_vertices, 0)
        # A destination stream's share of a partition, in lines: slice_vertices / m vertices
        # of K words, 16 words a line.
        spill_lines = ((regs["slice_vertices"] >> shift) * cfg.property_words) >> 4
        return {"src_first": src_first, "src_end": src_end,
                "region_first": region_first, "region_vertices": src_end - src_first,
                "src_base": (src_first >> shift) - region_first,
                "spill_lines": spill_lines,
                "spill_base": regs["temp_base"] +
                control.part_src * (spill_lines * cfg.streams_dst)}

    def _counters(self, m, control, sources, destinations, crossbar):
        """Event counts over a run; several streams' events of one cycle add up."""
        cfg = self._config
        total = lambda signals: sum(signals)  # noqa: E731
        process = control.in_process
        channel_events = {}
        channels = self.memory_ports
        for c, mem in enumerate(channels):
            taken = mem.req.valid & mem.req.ready
            channel_events.update({
                f"memory{c}_reads": taken & ~mem.req.payload.write,
                f"memory{c}_writes": taken & mem.req.payload.write,
                f"memory{c}_refused": mem.req.valid & ~mem.req.ready,
            })
        events = {
            "cycles": self.control.busy,
            "cycles_load": control.in_load,
            "cycles_process": process,
            "cycles_apply": control.in_apply,
            "edges": total(d.edge_taken for d in destinations),
            "updates": total(d.update_written for d in destinations),
            "vertex_updates": total(d.vertex_updated for d in destinations),
            "cam_stalls": total(d.cam_stall & process for d in destinations),
            "memory_reads": total(channel_events[f"memory{c}_reads"]
                                  for c in range(len(channels))),
            "memory_writes": total(channel_events[f"memory{c}_writes"]
                                   for c in range(len(channels))),
            "stall_p1": total(s.stall_p1 for s in sources),
            "stall_p2": total(s.stall_p2 for s in sources),
            "stall_p3": total(d.stall_p3 for d in destinations),
            "stall_p4": total(d.stall_p4 for d in destinations),
            "stall_p5": total(d.stall_p5 for d in destinations),
            "stall_apply": total(d.stall_apply & control.in_apply for d in destinations),
            "xbar_stalls": total(crossbar.stalls[k] for k in range(len(crossbar.i))),
            "xbar_occupancy": crossbar.occupancy & process.replicate(len(crossbar.occupancy)),
        }
        events.update(channel_events)
        if cfg.extended_slicing:
            events["stall_region"] = total(d.stall_region for d in destinations)
        # Edges (a packet's last flit, with large properties) each source stream handed on.
        last = cfg.packet_last or (lambda payload: 1)
        events.update({f"edges_src{s}": total(o.valid & o.ready & last(o.payload)
                                              for o in source.o)
                       for s, source in enumerate(sources)})
        events.update({f"edges_dst{d}": destination.edge_taken
                       for d, destination in enumerate(destinations)})
        # The counters restart the cycle after a run starts, from that cycle's event (a
        # register, not the start input and the busy decode on the way to every bit).
        restart = Signal()
        m.d.sync += restart.eq(self.control.start & ~self.control.busy)
        for name, event in events.items():
            counter = getattr(self.counters, name)
            if name not in PHASE_EVENTS:
                event = self._registered(m, event, name)
            with m.If(restart):
                m.d.sync += counter.eq(event)
            with m.Else():
                m.d.sync += counter.eq(counter + event)

    @staticmethod
    def _registered(m, event, name):
        """``event`` a cycle late, from a register: the stages' handshakes, spread over the
        chip, then reach a flip-flop and not a 32-bit counter's carry chain. The count is
        still exact when ``done`` rises: the stream events all stop with the run's last
        phase, which ends cycles before ``done`` (its idle checks are registered and settle,
        :class:`PhaseController`), and they are zero in the cycle a run starts (everything is
        idle then), which the first registered value counts."""
        late = Signal(Value.cast(event).shape(), name=f"{name}_event")
        m.d.sync += late.eq(event)
        return late
