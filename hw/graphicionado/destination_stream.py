"""The destination-oriented part of a Graphicionado stream, stages P4–P9 and the apply phase
A1–A5 (Ham et al. §V.A, figures 7 and 8): one of m, owning the destination vertices whose id
has its number as the low log2(m) bits, and its slice of the scratchpad (VTempProperty of
those vertices, at ``id >> log2(m)``), which no other stream touches.

Processing phase: edges from the crossbar [→ P4 Random Vertex Read of VProperty[dst]]
→ P5 Process_Edge → P6–P9 Atomic Update.
Apply phase, partition by partition of the ones it owns (:class:`PartitionWalk`)::

    A1 Sequential Vertex Read (VProperty) + A2 VTempProperty stream → A3 Apply
    → A4 Sequential Vertex Write (VProperty), A5 Sequential Vertex Write (ActiveVertex)
"""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from graphgen.programs import Float32
from hw.lib.busy import any_busy
from hw.lib.cam import CAMConfig
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.line_writer import SequentialLineWriter
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.program import drive_params, params_member
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.gate import StreamGate
from hw.lib.stream.register_slice import StreamRegisterSlice
from hw.lib.stream.links import StreamLinks
from .apply import Apply, FlitApply
from .atomic_update import AtomicUpdate, update_layout
from .config import GraphicionadoConfig
from .large_random_vertex_read import LargeRandomVertexRead
from .layouts import ActiveVertex, update_flit
from .partition_walk import PartitionWalk
from .flit_process_edge import FlitProcessEdge
from .process_edge import ProcessEdge
from .parallel_random_vertex_read import ParallelRandomVertexRead
from .random_vertex_read import RandomVertexRead
from .scratchpad import Scratchpad, TempPropertyStream
from .scratchpad_halves import ScratchpadHalves
from .scratchpad_properties import ScratchpadProperties
from .scratchpad_spill import ScratchpadSpill
from .sequential_vertex_read import SequentialVertexRead
from .symmetric_process_edge import SymmetricProcessEdge
from .units import reduce_unit
from .update_paths import UpdatePairUnzip, UpdatePathSplit


__all__ = ["DestinationStream"]


class DestinationStream(wiring.Component):
    """Destination stream ``index`` of ``config.streams_dst``.

    Parameters
    ----------
    config : :class:`GraphicionadoConfig`
    index : int

    Members
    -------
    i : ``In(stream.Signature(config.edge_payload))``
        Edges whose destination the stream owns, from the crossbar (with large properties,
        edge packets of flits, §IV.E).
    clear : ``In(1)``
        Pulse: set the stream's VTempProperty entries of the region to the Reduce identity.
    clear_all : ``In(1)``
        Pulse: set every VTempProperty entry of the stream to the Reduce identity (after
        reset).
    region_first, region_vertices : ``In(32)``
        The region that ``clear`` and the spill act on: its first scratchpad index and the
        vertex range it holds (``region_vertices`` ids, the stream holding every m-th).
    src_base : ``In(32)``
        Symmetric: subtracted from ``src >> log2(m)`` for the update of an edge's source:
        where the source's partition lies in the scratchpad (extended slicing, §VI.B).
    spill_store, spill_load : ``In(1)``
        Extended slicing: pulses, write the region back to memory at ``spill_base +
        index * spill_lines``, or load it from there (:class:`ScratchpadSpill`).
    spill_base, spill_lines : ``In(32)``
    spilling : ``Out(1)``
    start_process, start_apply : ``In(1)``
    num_vertices, part_lines, vprop_base : ``In(32)``
        ``num_vertices``: the end of the vertex range of the current slice (graph slicing,
        §VI.A), the graph's vertex count unsliced. ``vprop_base``: the VProperty that apply
        writes.
    vprop_read_base : ``In(32)``
        CF: the VProperty the iteration started with, which P4 and A1 read (the same as
        ``vprop_base`` unsliced).
    gamma, lam : ``In(32)``
        Float32Vector programs: Apply's parameters ``gamma`` and ``lam`` (binary32; CF's
        constants), when it has them.
    slice_first : ``In(32)``
        The current slice's first vertex id, a multiple of 16 max(n, m) (0 unsliced): the
        scratchpad holds the slice's destinations from index ``slice_first >> log2(m)``.
    first_slice : ``In(1)``
        The apply phase is the iteration's first: the ActiveVertex lists start empty; later
        slices append to them.
    active_base : ``In(32)``
        The ActiveVertex lists this iteration writes (partition l at ``2 * l * part_lines``).
    active_counts : ``Out(32).array(segments)``
        Entries written to each of the stream's lists in the last apply phase.
    clearing, applying : ``Out(1)``
    drained : ``Out(1)``
        Every edge taken so far in the processing phase has been reduced into the scratchpad.
    drained_late : ``Out(1)``
        ``drained`` of the cycle before, from registers of its terms (the top's idle check
        takes every block's a cycle late).
    edge_taken, vertex_updated, cam_stall : ``Out(1)``
        Events for the counters.
    update_written : ``Out(2)``
        Update packets reduced this cycle (one per update path at most).
    stall_p3, stall_p4, stall_p5, stall_apply : ``Out(1)``
    stall_region : ``Out(1)``
        Extended slicing: an edge waits at P3 for the regions' loads or clears.
    holding : ``Out(1)``; hold_edges : ``In(1)``
        Extended slicing: this stream's region is being cleared, written back or loaded (a
        register); P3 also takes no edge while ``hold_edges`` (every stream's ``holding``,
        ORed by the top): with the update network a stream's updates reach the others'
        scratchpads.
    updates_o : ``Out(stream.Signature(update_flit(lanes, flits, log2(m))))``
        With ``symmetric`` and m > 1: every update packet Process_Edge makes, v's and u's,
        each naming the stream that owns its vertex, into the update network (§IV.D). With
        two update paths (``config.paths``), an array of two: v's packets and u's.
    load, load_consts : ``In(1)``; loading : ``Out(1)``; vconst_base : ``In(32)``
        A symmetric scalar program (``config.scratchpad_properties``): pulse, load the
        stream's vertices' VProperty (at ``vprop_read_base``) and, with ``load_consts``,
        VConst into the copy P4 reads (:class:`ScratchpadProperties`).
    edges_done : ``In(1)``, with two update paths
        No edge is on its way to any destination stream, and no source stream will send
        more in this processing phase: Process Edge releases its held u packet.
    updates_i : ``In(...)``, the same
        The update packets of the stream's own vertices, from the update network; with two
        update paths, those of each path's half of the scratchpad (even and odd entries).
    <client>_mem : ``Out(MemoryPortSignature)`` for each name of :attr:`memory_clients`
        ``vprop_write``; ``vprop_read`` and ``active_write`` for frontier algorithms;
        ``dst_prop_read`` with P4.
    stall_seed : ``In(32)`` with stall injection.
    root : ``In(32)`` for programs whose Apply reads ``is_root``: the root's id.
    params : ``In(StructLayout)`` for programs with run-time parameters
        (:attr:`~hw.graphicionado.algorithms.Algorithm.params`), to Process_Edge and Apply.
    """

    def __init__(self, config: GraphicionadoConfig, index: int, *, throttle=None):
        if not isinstance(config, GraphicionadoConfig):
            raise ConfigError(f"DestinationStream needs a GraphicionadoConfig, not "
                              f"{type(config).__name__}")
        check_int("DestinationStream", "index", index, low=0, high=config.streams_dst - 1)
        self._throttle = throttle
        self._config = config
        self._index = index
        members = {
            "i": In(stream.Signature(config.edge_payload)),
            "clear": In(1), "clear_all": In(1), "start_process": In(1), "start_apply": In(1),
            "region_first": In(32), "region_vertices": In(32), "src_base": In(32),
            "spill_store": In(1), "spill_load": In(1), "spill_base": In(32),
            "spill_lines": In(32), "spilling": Out(1),
            "num_vertices": In(32), "part_lines": In(32), "vprop_base": In(32),
            "vprop_read_base": In(32), "gamma": In(32), "lam": In(32),
            "slice_first": In(32), "first_slice": In(1), "active_base": In(32),
            "active_counts": Out(32).array(config.destination_segments),
            "clearing": Out(1), "applying": Out(1), "drained": Out(1), "drained_late": Out(1),
            "edge_taken": Out(1), "update_written": Out(2), "vertex_updated": Out(1),
            "cam_stall": Out(1), "stall_p3": Out(1), "stall_p4": Out(1), "stall_p5": Out(1),
            "stall_region": Out(1), "holding": Out(1), "hold_edges": In(1),
            "stall_apply": Out(1),
        }
        members.update({f"{name}_mem": Out(MemoryPortSignature(config.addr_width))
                        for name in self.client_names(config)})
        if config.update_network:
            updates = stream.Signature(update_flit(config.lanes, config.flits,
                                                   config.streams_dst.bit_length() - 1))
            if config.paths == 1:
                members.update({"updates_o": Out(updates), "updates_i": In(updates)})
            else:
                members.update({"updates_o": Out(updates).array(2),
                                "updates_i": In(updates).array(2)})
        if config.paths == 2:
            members["edges_done"] = In(1)
        if config.scratchpad_properties:
            members.update({"load": In(1), "load_consts": In(1), "loading": Out(1),
                            "vconst_base": In(32)})
        if config.stall_injection:
            members["stall_seed"] = In(32)
        if config.algorithm.apply_reads_root:
            members["root"] = In(32)
        members.update(params_member(config.algorithm.params))
        super().__init__(members)
        self.link_probes = []

    @staticmethod
    def client_names(config: GraphicionadoConfig) -> tuple[str, ...]:
        if config.extended_slicing:
            return ("dst_prop_read", "vprop_read", "vprop_write", "spill_read", "spill_write")
        if config.scratchpad_properties:
            return ("vprop_write", "prop_load", "const_load")
        if config.algorithm.large_property:
            return ("dst_prop_read", "vprop_read", "vprop_write")
        if config.algorithm.full_edge_access:
            return ("vprop_write",)
        p4 = ()
        if config.dst_property_read:
            p4 = ("dst_prop_read",) if config.dst_prop_readers == 1 else \
                tuple(f"dst_prop_read{k}" for k in range(config.dst_prop_readers))
        return ("vprop_read", "vprop_write", "active_write") + p4

    @property
    def memory_clients(self) -> list[tuple[str, object]]:
        return [(name, getattr(self, f"{name}_mem")) for name in self.client_names(self._config)]

    def elaborate(self, platform):
        cfg = self._config
        m = Module()
        link = StreamLinks(m, percent=cfg.stall_injection, prefix=f"dst{self._index}.",
                           throttle=self._throttle,
                           seed=self.stall_seed if cfg.stall_injection else None)
        self.link_probes = link.probes
        dst_shift = cfg.streams_dst.bit_length() - 1
        # Large properties (§IV.E): a scratchpad word per flit, a vertex's at consecutive
        # addresses.
        flit_shift = cfg.flits.bit_length() - 1
        word_width = 32 * cfg.lanes
        if cfg.paths == 2:
            m.submodules.pad = pad = ScratchpadHalves(
                vertices=cfg.destination_slice_vertices, flits=cfg.flits, word_width=word_width)
        else:
            m.submodules.pad = pad = Scratchpad(
                vertices=cfg.destination_slice_vertices * cfg.flits, table_entries=0,
                word_width=word_width)
        self._edges_held = self._hold_edges(m) | self.hold_edges \
            if cfg.extended_slicing else None
        fifo_p3, process, paths, between_busy, p4_busy = self._processing(m, link, pad,
                                                                          dst_shift)
        walk, temp_stream = self._apply(m, link, pad, dst_shift, flit_shift)
        spill = self._spill(m, pad) if cfg.extended_slicing else None
        self._scratchpad_ports(m, pad, [atomic for _, atomic in paths], temp_stream, spill)
        self._drained(m, link, fifo_p3, process, paths, between_busy, walk, p4_busy,
                      flit_shift)
        return m

    def _hold_edges(self, m):
        """Extended slicing (§VI.B): ``holding``, a register, high from a clear or spill
        pulse until the region is ready (and a cycle more), while P3 takes no edge: a
        slice's processing may start beside its region's load or clear
        (``process_overlap``), its first edges read and waiting at the crossbar. Not later
        in the pipeline: P4's reads, once issued, must be answered for the region's load to
        be."""
        m.d.sync += self.holding.eq(self.clear | self.clear_all | self.clearing |
                                    self.spill_load | self.spill_store | self.spilling)
        return self.holding

    def _processing(self, m, link, pad, dst_shift):
        """The processing phase's stages from P3 (the edges' queue) to P6 (Atomic Update's
        CAM), through P4 when configured, Process Edge and, with the update network, the
        other streams. Returns P3's queue, Process Edge, each update path's (P5 queue,
        Atomic Update), the busy flag of what lies between, and P4's busy flag."""
        cfg = self._config
        m.submodules.fifo_p3 = fifo_p3 = StreamFIFO(cfg.edge_payload, cfg.fifo_depth,
                                                    buffered=True)
        if cfg.scratchpad_properties:
            process = SymmetricProcessEdge(
                program=cfg.program, dst_shift=dst_shift,
                owner_bits=dst_shift if cfg.update_network else 0)
            if hasattr(process, "params"):
                drive_params(m, self.params, process)
        elif cfg.algorithm.large_property:
            process = FlitProcessEdge(program=cfg.program, lanes=cfg.lanes, flits=cfg.flits,
                                      dst_shift=dst_shift, symmetric=cfg.symmetric,
                                      owner_bits=dst_shift if cfg.update_network else 0,
                                      paths=cfg.paths)
        else:
            process = ProcessEdge(program=cfg.program, dst_prop=cfg.dst_property_read,
                                  dst_shift=dst_shift)
            if hasattr(process, "params"):
                drive_params(m, self.params, process)
        m.submodules.process_edge = process
        if self._edges_held is None:
            wiring.connect(m, wiring.flipped(self.i), fifo_p3.i)
        else:
            m.submodules.hold_p3 = hold = StreamGate(cfg.edge_payload)
            wiring.connect(m, wiring.flipped(self.i), hold.i)
            wiring.connect(m, hold.o, fifo_p3.i)
            m.d.comb += [hold.open.eq(~self._edges_held),
                         self.stall_region.eq(self._edges_held & self.i.valid)]
        p4_busy = self._destination_property_read(m, link, fifo_p3, process)
        m.d.comb += process.dst_base.eq(self.slice_first >> dst_shift)
        if cfg.symmetric:
            m.d.comb += process.src_base.eq(self.src_base)
        if cfg.paths == 2:
            m.d.comb += process.flush.eq(self.edges_done & (fifo_p3.level == 0) &
                                         ~Value.cast(p4_busy))
        updates, between_busy = self._update_streams(m, link, process, dst_shift)
        paths = [self._update_path(m, link, pad, path_updates, k)
                 for k, path_updates in enumerate(updates)]
        return fifo_p3, process, paths, between_busy, p4_busy

    def _update_streams(self, m, link, process, dst_shift):
        """Process Edge's update packets as each update path's stream (and its source's
        link name): with the update network (§IV.D over several streams) those of the
        stream's own vertices; with two paths split by the half of the scratchpad their
        vertex's entry is in. Returns them and the busy flag of what holds packets on the
        way."""
        cfg = self._config
        if cfg.paths == 1:
            if not cfg.update_network:
                return [(process.o, "process_edge")], 0
            # §IV.D over several streams: u's update belongs to u's stream.
            link(process.o, wiring.flipped(self.updates_o), "process_edge->updates_o")
            return [(wiring.flipped(self.updates_i), "updates_i")], 0
        if cfg.update_network:
            m.submodules.unzip = unzip = UpdatePairUnzip(lanes=cfg.lanes, flits=cfg.flits,
                                                         owner_bits=dst_shift)
            link(process.o, unzip.i, "process_edge->unzip")
            for k, end in enumerate("vu"):
                link(unzip.o[k], wiring.flipped(self.updates_o[k]), f"unzip.{end}->updates_o")
            return [(wiring.flipped(self.updates_i[k]), f"updates_i{k}") for k in range(2)], \
                unzip.busy
        m.submodules.path_split = split = UpdatePathSplit(lanes=cfg.lanes, flits=cfg.flits)
        link(process.o, split.i, "process_edge->path_split")
        return [(split.o[k], f"path_split.{k}") for k in range(2)], split.busy

    def _update_path(self, m, link, pad, updates, k):
        """Update path ``k`` (P6–P9): its queue, register slice and Atomic Update, on the
        scratchpad or, with two paths, on half ``k`` of it. Returns the queue and the unit."""
        cfg = self._config
        source, name = updates
        suffix = "" if cfg.paths == 1 else str(k)
        word_width = 32 * cfg.lanes
        index_width = pad.index_width if cfg.paths == 1 else pad.half_width
        update = update_layout(word_width)
        # Registered output: the CAM lookup then starts from a flip-flop, not a LUT RAM read.
        m.submodules[f"fifo_p5{suffix}"] = fifo_p5 = StreamFIFO(update, cfg.fifo_depth,
                                                                buffered=True)
        # Atomic Update takes an update after a CAM lookup; a register slice keeps that
        # decision off the queue's read logic.
        m.submodules[f"slice_p6{suffix}"] = slice_p6 = StreamRegisterSlice(update)
        m.submodules[f"atomic_update{suffix}"] = atomic = AtomicUpdate(
            reduce_unit=reduce_unit(cfg, index_width=index_width),
            index_width=index_width, value_width=word_width, window=cfg.atomic_window,
            cam=CAMConfig(entries=cfg.cam_entries, ways=cfg.cam_ways,
                          id_width=max(index_width, (cfg.cam_entries // cfg.cam_ways)
                                       .bit_length())))
        if cfg.algorithm.large_property or cfg.symmetric:
            source = self._flit_addresses(m, source, halved=cfg.paths == 2)
        link(source, fifo_p5.i, f"{name}->fifo_p5{suffix}")
        link(fifo_p5.o, slice_p6.i, f"fifo_p5{suffix}->slice_p6{suffix}")
        link(slice_p6.o, atomic.i, f"slice_p6{suffix}->atomic_update{suffix}")
        return fifo_p5, atomic

    def _apply(self, m, link, pad, dst_shift, flit_shift):
        """The apply phase: the partition walk over this stream's segments, the temporary
        properties streamed through Apply and written to VProperty."""
        cfg = self._config
        word_width = 32 * cfg.lanes
        m.submodules.walk = walk = PartitionWalk(
            segments=cfg.destination_segments, first=self._index, step=cfg.streams_dst,
            partitions=cfg.partitions)
        m.submodules.temp_stream = temp_stream = TempPropertyStream(
            index_width=pad.index_width, stride=cfg.destination_segments,
            id_shift=dst_shift, id_low=self._index, flits=cfg.flits, word_width=word_width)
        # A frontier program's Apply says which properties changed: only their lines are
        # written back.
        changes = cfg.algorithm.frontier and not cfg.algorithm.large_property
        m.submodules.vprop_write = vprop_write = SequentialLineWriter(
            item_words=cfg.lanes, addr_width=cfg.addr_width, marked=False, changes=changes)
        m.submodules.fifo_a4 = fifo_a4 = StreamFIFO(vprop_write.items.payload.shape(),
                                                    cfg.fifo_depth)
        wiring.connect(m, vprop_write.mem, wiring.flipped(self.vprop_write_mem))
        # Register slices in front of the line writers (here and A5's): a writer's decision
        # to take an item (its slot in the line) reached the queue's read and, through its
        # distributed RAM, the writer's line address and mask again.
        link(fifo_a4.o, vprop_write.items, "fifo_a4->vprop_write", register=True)
        m.d.comb += [
            walk.start.eq(self.start_apply), walk.num_vertices.eq(self.num_vertices),
            walk.part_lines.eq(self.part_lines), walk.range_first.eq(self.slice_first),
            temp_stream.start.eq(walk.seg_start), temp_stream.first.eq(walk.segment),
            temp_stream.count.eq(walk.size), temp_stream.id_base.eq(self.slice_first),
            temp_stream.identity.eq(cfg.algorithm.reduce_identity),
            vprop_write.start.eq(walk.seg_start),
            vprop_write.base.eq(self.vprop_base + walk.offset * cfg.property_words),
            vprop_write.flush.eq(walk.seg_end),
            self.applying.eq(walk.busy),
        ]
        if cfg.algorithm.large_property:
            apply_idle, writers_idle = self._apply_flits(m, link, walk, temp_stream, fifo_a4)
        elif cfg.algorithm.full_edge_access:
            apply_idle, writers_idle = self._apply_all(m, link, temp_stream, fifo_a4)
        else:
            apply_idle, writers_idle = self._apply_frontier(m, link, walk, temp_stream,
                                                            fifo_a4)
        m.d.comb += [
            walk.seg_idle.eq(apply_idle & ~fifo_a4.o.valid & ~link.busy &
                             (vprop_write.written == (walk.size << flit_shift))),
            walk.seg_drained.eq(writers_idle & ~vprop_write.busy),
        ]
        return walk, temp_stream

    def _drained(self, m, link, fifo_p3, process, paths, between_busy, walk, p4_busy,
                 flit_shift):
        """``drained`` and the stage events and stalls."""
        cfg = self._config
        fifos_p5 = [fifo for fifo, _ in paths]
        atomics = [atomic for _, atomic in paths]
        # Drained: as many updates reduced as edges taken, nothing waiting in front (with
        # large properties, as many update flits as edge flits; the events count edges).
        flits_in = Signal(32)
        flits_reduced = Signal(32)
        flit_taken = process.i.valid & process.i.ready
        flits_written = [atomic.temp_write_en & ~walk.busy & ~self.clearing
                         for atomic in atomics]
        flit_written = sum(flits_written)
        edge_taken, update_written = flit_taken, flit_written
        if flit_shift:
            last = (1 << flit_shift) - 1
            edge_taken = flit_taken & (process.i.payload.flit == last)
            update_written = sum(written & (atomic.temp_write_addr[:flit_shift] == last)
                                 for written, atomic in zip(flits_written, atomics))
        # Symmetric (§IV.D): an edge makes one or two update packets, u's perhaps for another
        # stream; count the update flits that reach this stream's Reduce instead.
        flit_counted = sum(fifo.i.valid & fifo.i.ready for fifo in fifos_p5) \
            if cfg.symmetric else flit_taken
        process_busy = any_busy(process.busy, between_busy) if cfg.symmetric else 0
        with m.If(self.start_process):
            m.d.sync += [flits_in.eq(0), flits_reduced.eq(0)]
        with m.Else():
            m.d.sync += [flits_in.eq(flits_in + flit_counted),
                         flits_reduced.eq(flits_reduced + flit_written)]
        m.d.sync += self.cam_stall.eq(any_busy(atomic.cam_stall for atomic in atomics))
        counted = flits_in == flits_reduced
        busy_terms = [fifo_p3.level != 0, p4_busy, process_busy, link.busy]
        # The same test a cycle late, from a register of each term (the compare's carry and
        # the busy flags reach flip-flops here, not the controller through the top's AND).
        late = Signal(1 + len(busy_terms), name="drained_terms")
        m.d.sync += late.eq(Cat(counted, *(~Value.cast(term) for term in busy_terms)))
        m.d.comb += [
            self.drained.eq(counted & ~any_busy(busy_terms)),
            self.drained_late.eq(late.all()),
            self.edge_taken.eq(edge_taken),
            self.update_written.eq(update_written),
            # A cycle late, from a register: the CAM's free-way test reaches a flip-flop
            # here, not the counter's.
            self.stall_p3.eq(fifo_p3.o.valid & ~fifo_p3.o.ready),
            self.stall_p5.eq(any_busy(fifo.o.valid & ~fifo.o.ready for fifo in fifos_p5)),
        ]

    def _destination_property_read(self, m, link, fifo_p3, process):
        """P4 when configured: VProperty[dst] read from memory for each edge. Returns its
        busy flag."""
        cfg = self._config
        if cfg.algorithm.large_property:
            return self._large_property_read(m, link, fifo_p3, process)
        if cfg.scratchpad_properties:
            return self._scratchpad_property_read(m, link, fifo_p3, process)
        if not cfg.dst_property_read:
            link(fifo_p3.o, process.i, "fifo_p3->process_edge")
            m.d.comb += self.stall_p4.eq(0)
            return 0
        # As many edges in flight as the memory lets reads be: a deeper queue gains nothing.
        unit = dict(addr_width=cfg.addr_width, outstanding=cfg.memory_outstanding,
                    partitions=cfg.partitions)
        if cfg.dst_prop_readers == 1:
            m.submodules.dst_prop_read = p4 = RandomVertexRead(**unit)
            wiring.connect(m, p4.mem, wiring.flipped(self.dst_prop_read_mem))
        else:
            m.submodules.dst_prop_read = p4 = ParallelRandomVertexRead(
                readers=cfg.dst_prop_readers, **unit)
            for k, port in enumerate(p4.mem):
                wiring.connect(m, port, wiring.flipped(getattr(self, f"dst_prop_read{k}_mem")))
        m.d.comb += [p4.vprop_base.eq(self.vprop_base), p4.part_lines.eq(self.part_lines),
                     self.stall_p4.eq(p4.o.valid & ~p4.o.ready)]
        link(fifo_p3.o, p4.i, "fifo_p3->dst_prop_read")
        link(p4.o, process.i, "dst_prop_read->process_edge")
        return p4.busy

    def _large_property_read(self, m, link, fifo_p3, process):
        """P4 for large properties: each edge flit gets its words of VProperty[dst] (of the
        iteration's start). Returns its busy flag."""
        cfg = self._config
        m.submodules.dst_prop_read = p4 = LargeRandomVertexRead(
            addr_width=cfg.addr_width, lanes=cfg.lanes, flits=cfg.flits,
            outstanding=cfg.memory_outstanding, partitions=cfg.partitions)
        wiring.connect(m, p4.mem, wiring.flipped(self.dst_prop_read_mem))
        m.d.comb += [p4.vprop_base.eq(self.vprop_read_base),
                     p4.part_lines.eq(self.part_lines * cfg.property_words),
                     self.stall_p4.eq(p4.o.valid & ~p4.o.ready)]
        link(fifo_p3.o, p4.i, "fifo_p3->dst_prop_read")
        link(p4.o, process.i, "dst_prop_read->process_edge")
        return p4.busy

    def _scratchpad_property_read(self, m, link, fifo_p3, process):
        """P4 of the symmetric optimisation for scalar programs: VProperty[dst] and
        VConst[dst] from the stream's copy on chip (:class:`ScratchpadProperties`), loaded
        on ``load``. Returns its busy flag."""
        cfg = self._config
        m.submodules.dst_props = props = ScratchpadProperties(
            vertices=cfg.destination_slice_vertices, streams=cfg.streams_dst, index=self._index,
            partitions=cfg.partitions, const_words=cfg.const_words, addr_width=cfg.addr_width,
            prefetch_lines=cfg.edge_prefetch_lines)
        wiring.connect(m, props.prop_load_mem, wiring.flipped(self.prop_load_mem))
        wiring.connect(m, props.const_load_mem, wiring.flipped(self.const_load_mem))
        m.d.comb += [
            props.load.eq(self.load), props.consts.eq(self.load_consts),
            props.num_vertices.eq(self.num_vertices),
            props.part_lines.eq(self.part_lines), props.vprop_base.eq(self.vprop_read_base),
            props.vconst_base.eq(self.vconst_base), self.loading.eq(props.loading),
            self.stall_p4.eq(props.o.valid & ~props.o.ready),
        ]
        link(fifo_p3.o, props.i, "fifo_p3->dst_props")
        link(props.o, process.i, "dst_props->process_edge")
        return props.i.valid | props.o.valid

    def _flit_addresses(self, m, updates, halved=False):
        """The symmetric optimisation's update flits (CF's, or a scalar program's one-word
        packets) as scratchpad words: flit f of the vertex at index i is word
        ``i * flits + f``; ``halved``, of the half of the scratchpad that holds index i,
        word ``(i >> 1) * flits + f`` (:class:`ScratchpadHalves`)."""
        cfg = self._config
        shift = cfg.flits.bit_length() - 1
        out = stream.Signature(update_layout(32 * cfg.lanes)).create()
        index = updates.payload.dst >> 1 if halved else updates.payload.dst
        m.d.comb += [
            out.valid.eq(updates.valid),
            out.payload.dst.eq((index << shift) | updates.payload.flit[:shift] if shift
                               else index),
            out.payload.value.eq(updates.payload.value),
            updates.ready.eq(out.ready),
        ]
        return out

    def _region_count(self):
        """Scratchpad entries of the region: its ids over the m streams, rounded up."""
        cfg = self._config
        shift = cfg.streams_dst.bit_length() - 1
        return (self.region_vertices + cfg.streams_dst - 1) >> shift

    def _spill(self, m, pad):
        """Extended slicing (§VI.B): the region's write-back and load."""
        cfg = self._config
        m.submodules.spill = spill = ScratchpadSpill(
            index_width=pad.index_width, word_width=32 * cfg.lanes, flits=cfg.flits,
            addr_width=cfg.addr_width, prefetch_lines=cfg.spill_prefetch_lines)
        wiring.connect(m, spill.read_mem, wiring.flipped(self.spill_read_mem))
        wiring.connect(m, spill.write_mem, wiring.flipped(self.spill_write_mem))
        m.d.comb += [
            spill.store.eq(self.spill_store), spill.load.eq(self.spill_load),
            spill.base.eq(self.spill_base + self._index * self.spill_lines),
            spill.first.eq(self.region_first), spill.count.eq(self._region_count()),
            spill.identity.eq(cfg.algorithm.reduce_identity),
            spill.read_data.eq(pad.temp_read_data),
            self.spilling.eq(spill.busy),
        ]
        return spill

    def _scratchpad_ports(self, m, pad, atomics, temp_stream, spill):
        """The slice's ports by phase: clearing, spilling, apply (A2) or Atomic Update (P7,
        P9); with two update paths, each path's half while neither of the others is on."""
        cfg = self._config
        flit_shift = cfg.flits.bit_length() - 1
        clear_index = Signal(32)
        clear_left = Signal(32)
        # ``clearing`` (``clear_left != 0``) is a register of its own: the count's compare is
        # not on the way to the scratchpad's port select and the update counters. A region
        # count is 0 only for no vertices.
        with m.If(self.clear_all):
            m.d.sync += [clear_index.eq(0), clear_left.eq(pad.temp_entries),
                         self.clearing.eq(1)]
        with m.Elif(self.clear):
            m.d.sync += [clear_index.eq(self.region_first << flit_shift),
                         clear_left.eq(self._region_count() << flit_shift),
                         self.clearing.eq(self.region_vertices != 0)]
        with m.Elif(self.clearing):
            m.d.sync += [clear_index.eq(clear_index + 1), clear_left.eq(clear_left - 1),
                         self.clearing.eq(clear_left != 1)]
        m.d.comb += temp_stream.read_data.eq(pad.temp_read_data)
        if cfg.paths == 2:
            m.d.comb += pad.shared.eq(self.applying | self.clearing |
                                      (spill.busy if spill is not None else 0))
            for k, atomic in enumerate(atomics):
                m.d.comb += [
                    atomic.temp_read_data.eq(pad.path_read_data[k]),
                    pad.path_read_addr[k].eq(atomic.temp_read_addr),
                    pad.path_write_addr[k].eq(atomic.temp_write_addr),
                    pad.path_write_data[k].eq(atomic.temp_write_data),
                    pad.path_write_en[k].eq(atomic.temp_write_en),
                ]
        else:
            m.d.comb += atomics[0].temp_read_data.eq(pad.temp_read_data)

        def use(read_addr, write_addr, write_data, write_en):
            m.d.comb += [pad.temp_read_addr.eq(read_addr), pad.temp_write_addr.eq(write_addr),
                         pad.temp_write_data.eq(write_data), pad.temp_write_en.eq(write_en)]

        with m.If(self.applying):
            use(temp_stream.read_addr, temp_stream.write_addr, temp_stream.write_data,
                temp_stream.write_en)
        with m.Elif(self.clearing):
            m.d.comb += [
                pad.temp_write_addr.eq(clear_index),
                pad.temp_write_data.eq(Const(cfg.algorithm.reduce_identity, 32)
                                       .replicate(cfg.lanes)),
                pad.temp_write_en.eq(1),
            ]
        if spill is not None:
            with m.Elif(self.spilling):
                use(spill.read_addr, spill.write_addr, spill.write_data, spill.write_en)
        if cfg.paths == 1:
            with m.Else():
                use(atomics[0].temp_read_addr, atomics[0].temp_write_addr,
                    atomics[0].temp_write_data, atomics[0].temp_write_en)

    def _program_apply(self, m):
        """Apply built from the program, with the root when it reads ``is_root``."""
        apply = Apply(program=self._config.program)
        if self._config.algorithm.apply_reads_root:
            m.d.comb += apply.root.eq(self.root)
        if self._config.algorithm.params:
            drive_params(m, self.params, apply)
        return apply

    def _apply_all(self, m, link, temp_stream, fifo_a4):
        """A3 for full edge access (mode "all"): the new property from VTempProperty alone.
        Returns (idle, drained)."""
        m.submodules.apply = apply = self._program_apply(m)
        link(temp_stream.o, apply.temp, "temp_stream->apply")
        link(apply.o_prop, fifo_a4.i, "apply.o_prop->fifo_a4")
        m.d.comb += [
            self.vertex_updated.eq(temp_stream.o.valid & temp_stream.o.ready),
            self.stall_apply.eq(temp_stream.o.valid & ~temp_stream.o.ready),
        ]
        return ~temp_stream.busy & ~apply.busy, 1

    def _apply_flits(self, m, link, walk, temp_stream, fifo_a4):
        """A1 and A3 for Float32Vector programs, a flit at a time: VProperty of the
        iteration's start and VTempProperty into Apply. Returns (idle, drained)."""
        cfg = self._config
        flit_shift = cfg.flits.bit_length() - 1
        m.submodules.vprop_read = vprop_read = SequentialVertexRead(
            item_words=cfg.lanes, addr_width=cfg.addr_width,
            prefetch_lines=cfg.property_prefetch_lines)
        m.submodules.fifo_a1 = fifo_a1 = StreamFIFO(vprop_read.o.payload.shape(),
                                                    cfg.fifo_depth)
        m.submodules.apply = apply = FlitApply(program=cfg.program, lanes=cfg.lanes)
        wiring.connect(m, vprop_read.mem, wiring.flipped(self.vprop_read_mem))
        link(vprop_read.o, fifo_a1.i, "vprop_read->fifo_a1")
        link(temp_stream.o, apply.temp, "temp_stream->apply")
        link(fifo_a1.o, apply.prop, "fifo_a1->apply")
        link(apply.o_prop, fifo_a4.i, "apply.o_prop->fifo_a4")
        last_flit = temp_stream.o.payload.index[:flit_shift] == (1 << flit_shift) - 1 \
            if flit_shift else 1
        m.d.comb += [
            vprop_read.start.eq(walk.seg_start),
            vprop_read.base.eq(self.vprop_read_base + walk.offset * cfg.property_words),
            vprop_read.count.eq(walk.size << flit_shift),
            self.vertex_updated.eq(temp_stream.o.valid & temp_stream.o.ready & last_flit),
            self.stall_apply.eq(fifo_a1.o.valid ^ temp_stream.o.valid),
        ]
        # The run's registers cf_gamma and cf_lam set the Float32 parameters of those names
        # (CF's); any other parameter keeps its default.
        m.d.comb += [getattr(apply, name).eq(getattr(self, name)) for name in ("gamma", "lam")
                     if name in apply.params and apply.params[name].type is Float32]
        return ~temp_stream.busy & ~vprop_read.busy & ~fifo_a1.o.valid, 1

    def _apply_frontier(self, m, link, walk, temp_stream, fifo_a4):
        """A1, A3 and A5 for frontier programs. Returns (idle, drained)."""
        cfg = self._config
        m.submodules.vprop_read = vprop_read = SequentialVertexRead(
            item_words=1, addr_width=cfg.addr_width, prefetch_lines=cfg.prefetch_lines)
        m.submodules.fifo_a1 = fifo_a1 = StreamFIFO(vprop_read.o.payload.shape(),
                                                    cfg.fifo_depth)
        m.submodules.apply = apply = self._program_apply(m)
        m.submodules.fifo_a5 = fifo_a5 = StreamFIFO(ActiveVertex, cfg.fifo_depth)
        m.submodules.active_write = active_write = SequentialLineWriter(
            item_words=2, addr_width=cfg.addr_width, marked=False)
        wiring.connect(m, vprop_read.mem, wiring.flipped(self.vprop_read_mem))
        wiring.connect(m, active_write.mem, wiring.flipped(self.active_write_mem))
        link(vprop_read.o, fifo_a1.i, "vprop_read->fifo_a1")
        link(temp_stream.o, apply.temp, "temp_stream->apply")
        link(fifo_a1.o, apply.prop, "fifo_a1->apply")
        link(apply.o_prop, fifo_a4.i, "apply.o_prop->fifo_a4")
        link(apply.o_active, fifo_a5.i, "apply.o_active->fifo_a5")
        link(fifo_a5.o, active_write.items, "fifo_a5->active_write", register=True)
        # Slices after the first append to the lists (§VI.A).
        counts = Array(self.active_counts)
        listed = Signal(32)
        m.d.comb += listed.eq(Mux(self.first_slice, 0, counts[walk.segment]))
        m.d.comb += [
            active_write.first.eq(listed),
            vprop_read.start.eq(walk.seg_start),
            vprop_read.base.eq(self.vprop_base + walk.offset),
            vprop_read.count.eq(walk.size),
            active_write.start.eq(walk.seg_start),
            active_write.base.eq(self.active_base + (walk.part_offset << 1)),
            active_write.flush.eq(walk.seg_end),
            self.vertex_updated.eq(apply.o_active.valid & apply.o_active.ready),
            self.stall_apply.eq(fifo_a1.o.valid ^ temp_stream.o.valid),
        ]
        # The list's length is final once its last entry is taken (the walk's end pulse).
        with m.If(walk.seg_end):
            with m.Switch(walk.segment):
                for j, count in enumerate(self.active_counts):
                    with m.Case(j):
                        m.d.sync += count.eq(listed + active_write.written)
        idle = ~any_busy(temp_stream.busy, vprop_read.busy, fifo_a1.o.valid, apply.busy,
                         fifo_a5.o.valid)
        return idle, ~active_write.busy
