"""The source-oriented part of a Graphicionado stream, stages P1–P3 (Ham et al. §V.A,
figure 7): one of n, owning the source vertices whose id has its number as the low log2(n)
bits.

Frontier algorithms (BFS, SSSP, CC)::

    P1 Sequential Vertex Read (its ActiveVertex lists, one per partition it owns)
    → P2 EdgeID Read (its slice of the EdgeIDTable) → P3 Edge Read (or parallel readers)

Full edge access (PageRank, §IV.B), with k = 0 .. edge_readers - 1 (§V.B)::

    P1 Sequential Vertex Read (VProperty, VConst of its partitions), broadcast ┐
    P3 Edge Read k (its edges whose dstid is k modulo the readers)              ┴→ Source Merge k

Its edges leave, with their source's property, towards the crossbar (one crossbar input per
reader for full edge access).
"""

from amaranth.hdl import Array, Cat, Module, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.stream.broadcast import StreamBroadcast
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.links import StreamLinks
from hw.lib.stream.register_slice import StreamRegisterSlice
from .config import GraphicionadoConfig
from .edge_id_read import EdgeIDRead
from .edge_read import EdgeRead
from .layouts import ActiveVertex
from .packet_source_merge import PacketSourceMerge
from .parallel_edge_read import ParallelEdgeRead
from .partition_walk import PartitionWalk
from .scratchpad import Scratchpad
from .sequential_vertex_read import SequentialVertexRead
from .source_merge import SourceMerge


__all__ = ["SourceStream", "SOURCE_REGISTERS"]

# The registers a source stream reads (line addresses; counts).
SOURCE_REGISTERS = ("num_vertices", "part_lines", "vprop_base", "vconst_base", "edge_base",
                    "table_base", "table_count")


class SourceStream(wiring.Component):
    """Source stream ``index`` of ``config.streams_src``.

    Parameters
    ----------
    config : :class:`GraphicionadoConfig`
    index : int

    Members
    -------
    load : ``In(1)``
        Pulse (frontier algorithms): load the stream's EdgeIDTable slice, ``table_count``
        entries at ``table_base + (slice * n + index) * ceil(table_count / 16)``.
    slice : ``In(range(max_slices))``
        The graph slice of the phase (§VI.A): each slice has its own EdgeIDTables (frontier
        algorithms) or its own edge ranges and VConst degree words (full edge access, VConst
        slice s at ``vconst_base + s * L * part_lines * const_words``).
    start : ``In(1)``
        Pulse: run the processing phase over the stream's partitions.
    range_first : ``In(32)``
        Full edge access: the first source id walked, a multiple of 16 L (extended slicing,
        §VI.B, walks one partition of sources; 0 otherwise), to ``num_vertices``.
    <register> : ``In(32)`` for each of :data:`SOURCE_REGISTERS`
    active_base : ``In(32)``
        The ActiveVertex lists this iteration reads (partition l at ``2 * l * part_lines``).
    active_counts : ``In(32).array(segments)``
        Entries of the list of each partition the stream owns.
    edge_starts, edge_ends : ``In(32).array(max_slices * segments * edge_readers)``
        Full edge access: the edge-id range of reader k in the stream's j-th partition in
        slice s, at ``(s * segments + j) * edge_readers + k``.
    o : ``Out(stream.Signature(config.edge_payload)).array(config.source_outputs)``
        Edges, or with large properties edge packets of flits (§IV.E).
    busy : ``Out(1)``
        A vertex or an edge of the phase is still inside.
    busy_late : ``Out(1)``
        ``busy`` of the cycle before, from registers of its terms (the top's idle check
        takes every block's a cycle late).
    loading : ``Out(1)``
    error : ``Out(1)``
        Source Merge saw an edge out of source order.
    stall_p1, stall_p2 : ``Out(1)``
    <client>_mem : ``Out(MemoryPortSignature)`` for each name of :attr:`memory_clients`
    stall_seed : ``In(32)`` with stall injection.
    """

    def __init__(self, config: GraphicionadoConfig, index: int, *, throttle=None):
        if not isinstance(config, GraphicionadoConfig):
            raise ConfigError(f"SourceStream needs a GraphicionadoConfig, not "
                              f"{type(config).__name__}")
        check_int("SourceStream", "index", index, low=0, high=config.streams_src - 1)
        self._throttle = throttle
        self._config = config
        self._index = index
        segments = config.source_segments
        ranges = config.max_slices * segments * config.edge_readers
        members = {
            "load": In(1), "start": In(1), "active_base": In(32), "range_first": In(32),
            "slice": In(range(max(2, config.max_slices))),
            "active_counts": In(32).array(segments),
            "edge_starts": In(32).array(ranges),
            "edge_ends": In(32).array(ranges),
            "o": Out(stream.Signature(config.edge_payload)).array(config.source_outputs),
            "busy": Out(1), "busy_late": Out(1), "loading": Out(1), "error": Out(1),
            "stall_p1": Out(1), "stall_p2": Out(1),
        }
        members.update({name: In(32) for name in SOURCE_REGISTERS})
        members.update({f"{name}_mem": Out(MemoryPortSignature(config.addr_width))
                        for name in self.client_names(config)})
        if config.stall_injection:
            members["stall_seed"] = In(32)
        super().__init__(members)
        self.link_probes = []

    @staticmethod
    def client_names(config: GraphicionadoConfig) -> tuple[str, ...]:
        readers = ("edge_read",) if config.edge_readers == 1 else \
            tuple(f"edge_read{k}" for k in range(config.edge_readers))
        if config.algorithm.full_edge_access:
            return ("src_prop_read", "src_const_read") + readers
        return ("active_read", "table_read") + readers

    @property
    def memory_clients(self) -> list[tuple[str, object]]:
        return [(name, getattr(self, f"{name}_mem")) for name in self.client_names(self._config)]

    def elaborate(self, platform):
        cfg = self._config
        m = Module()
        link = StreamLinks(m, percent=cfg.stall_injection, prefix=f"src{self._index}.",
                           throttle=self._throttle,
                           seed=self.stall_seed if cfg.stall_injection else None)
        self.link_probes = link.probes
        m.submodules.walk = walk = PartitionWalk(
            segments=cfg.source_segments, first=self._index, step=cfg.streams_src,
            partitions=cfg.partitions)
        m.d.comb += [
            walk.start.eq(self.start), walk.num_vertices.eq(self.num_vertices),
            walk.part_lines.eq(self.part_lines), walk.seg_drained.eq(1),
            walk.range_first.eq(self.range_first),
        ]
        if cfg.algorithm.full_edge_access:
            front_busy = self._full_edge_front(m, link, walk)
        else:
            front_busy = self._frontier_front(m, link, walk)
        terms = [walk.busy, *front_busy, link.busy]
        # The same flag a cycle late, from a register of each term: the units' busy flags
        # reach flip-flops here, not the controller's idle check through the top's AND.
        late = Signal(len(terms), name="busy_terms")
        m.d.sync += late.eq(Cat(Value.cast(term).any() for term in terms))
        m.d.comb += [self.busy.eq(Cat(terms).any()), self.busy_late.eq(late.any())]
        return m

    def _reader_ports(self) -> list:
        cfg = self._config
        if cfg.edge_readers == 1:
            return [self.edge_read_mem]
        return [getattr(self, f"edge_read{k}_mem") for k in range(cfg.edge_readers)]

    def _svr(self, words: int, index_shift: int = 0, prefetch: int | None = None
             ) -> SequentialVertexRead:
        cfg = self._config
        return SequentialVertexRead(item_words=words, addr_width=cfg.addr_width,
                                    prefetch_lines=prefetch or cfg.prefetch_lines,
                                    index_shift=index_shift)

    def _frontier_front(self, m, link, walk):
        """P1 → P2 → P3, and the loader of the EdgeIDTable slice. Returns the busy flags."""
        cfg = self._config
        id_shift = cfg.streams_src.bit_length() - 1
        tag = {"tag_bits": cfg.edge_tag_bits, "tag_shift": id_shift}
        if cfg.edge_readers == 1:
            m.submodules.edge_read = edge_read = EdgeRead(
                addr_width=cfg.addr_width, prefetch_lines=cfg.edge_prefetch_lines,
                job_depth=cfg.edge_jobs, edge_words=cfg.edge_words, **tag)
            wiring.connect(m, edge_read.mem, wiring.flipped(self.edge_read_mem))
            m.d.comb += edge_read.match_any.eq(0)
        else:
            m.submodules.edge_read = edge_read = ParallelEdgeRead(
                readers=cfg.edge_readers, addr_width=cfg.addr_width,
                prefetch_lines=cfg.edge_prefetch_lines, job_depth=cfg.edge_jobs,
                queue_depth=cfg.fifo_depth, edge_words=cfg.edge_words, **tag)
            for port, client in zip(edge_read.mem, self._reader_ports()):
                wiring.connect(m, port, wiring.flipped(client))
        m.d.comb += [edge_read.start.eq(self.start), edge_read.edge_base.eq(self.edge_base)]
        m.submodules.edge_id_table = table = Scratchpad(vertices=0,
                                                table_entries=cfg.source_table_entries)
        m.submodules.table_read = table_read = self._svr(1)
        m.submodules.active_read = active_read = self._svr(2)
        m.submodules.fifo_p1 = fifo_p1 = StreamFIFO(ActiveVertex, cfg.fifo_depth)
        m.submodules.edge_id_read = edge_id_read = EdgeIDRead(
            table_addr_width=table.table_width, coarsening=cfg.coarsening,
            id_shift=id_shift)
        wiring.connect(m, table_read.mem, wiring.flipped(self.table_read_mem))
        wiring.connect(m, active_read.mem, wiring.flipped(self.active_read_mem))

        table_lines = (self.table_count + 15) >> 4
        m.d.comb += [
            table_read.start.eq(self.load),
            table_read.base.eq(self.table_base + table_lines *
                               (self.slice * cfg.streams_src + self._index)),
            table_read.count.eq(self.table_count),
            table.table_write_addr.eq(table_read.o.payload.index),
            table.table_write_data.eq(table_read.o.payload.data),
            table.table_write_en.eq(table_read.o.valid),
            table_read.o.ready.eq(1),
            self.loading.eq(table_read.busy),
        ]
        # P1 walks the list of each partition the stream owns: a list entry is (id, prop).
        counts = Array(self.active_counts)
        m.d.comb += [
            active_read.start.eq(walk.seg_start),
            active_read.base.eq(self.active_base + (walk.offset << 1)),
            active_read.count.eq(counts[walk.segment]),
            walk.seg_idle.eq(~active_read.busy),
        ]
        entries = stream.Signature(ActiveVertex).create()
        m.d.comb += [
            entries.valid.eq(active_read.o.valid),
            entries.payload.eq(active_read.o.payload.data),
            active_read.o.ready.eq(entries.ready),
        ]
        # (Through a register slice: the FIFO's level is not on the way to P1's hand-out.)
        link(entries, fifo_p1.i, "active_read->fifo_p1", register=True)
        # A register slice between P1's FIFO and P2: the FIFO's LUT-RAM read reaches
        # flip-flops, not EdgeID Read's table address (and its carry) into the block RAM.
        m.submodules.slice_p1 = slice_p1 = StreamRegisterSlice(ActiveVertex)
        link(fifo_p1.o, slice_p1.i, "fifo_p1->edge_id_read")
        wiring.connect(m, slice_p1.o, edge_id_read.i)
        # A register slice between P2 and P3: the EdgeIDTable's read data (block RAM
        # outputs) reach flip-flops, not Edge Read's job decode and its queue's write.
        m.submodules.slice_p2 = slice_p2 = StreamRegisterSlice(edge_id_read.o.payload.shape())
        wiring.connect(m, edge_id_read.o, slice_p2.i)
        link(slice_p2.o, edge_read.i, "edge_id_read->edge_read")
        wiring.connect(m, edge_read.o, wiring.flipped(self.o[0]))
        m.d.comb += [
            table.table_addr.eq(edge_id_read.table_addr),
            table.table_next_addr.eq(edge_id_read.table_next_addr),
            table.table_en.eq(edge_id_read.table_en),
            edge_id_read.table_data.eq(table.table_data),
            edge_id_read.table_next_data.eq(table.table_next_data),
            self.stall_p1.eq(fifo_p1.o.valid & ~fifo_p1.o.ready),
            self.stall_p2.eq(edge_id_read.o.valid & ~edge_id_read.o.ready),
        ]
        return [active_read.busy, fifo_p1.o.valid, slice_p1.o.valid, edge_id_read.busy,
                slice_p2.o.valid, edge_read.busy]

    def _full_edge_front(self, m, link, walk):
        """P1 (VProperty, VConst) broadcast to the readers' Source Merges, P3 per reader,
        partition by partition. Returns the busy flags."""
        cfg = self._config
        readers = cfg.edge_readers
        shift = cfg.partitions.bit_length() - 1
        large = cfg.algorithm.large_property
        # Large properties (§IV.E) are read a flit per item, flits per vertex.
        flit_shift = cfg.flits.bit_length() - 1
        m.submodules.src_prop_read = src_prop = self._svr(cfg.lanes, shift,
                                                          cfg.property_prefetch_lines)
        m.submodules.src_const_read = src_const = self._svr(cfg.const_words, shift)
        wiring.connect(m, src_prop.mem, wiring.flipped(self.src_prop_read_mem))
        wiring.connect(m, src_const.mem, wiring.flipped(self.src_const_read_mem))
        const_slice_lines = self.part_lines * (cfg.partitions * cfg.const_words)
        for reader, base, words, items in (
                (src_prop, self.vprop_base, cfg.property_words, walk.size << flit_shift),
                (src_const, self.vconst_base + self.slice * const_slice_lines,
                 cfg.const_words, walk.size)):
            m.d.comb += [
                reader.start.eq(walk.seg_start),
                reader.base.eq(base + walk.offset * words),
                reader.count.eq(items),
                reader.first_index.eq(walk.partition + self.range_first),
            ]
        props, consts = self._broadcast(m, link, src_prop.o, src_const.o, readers)

        starts, ends = Array(self.edge_starts), Array(self.edge_ends)
        busy, pending, errors = [], [], []
        for k, port in enumerate(self._reader_ports()):
            edge_read = EdgeRead(addr_width=cfg.addr_width,
                                 prefetch_lines=cfg.edge_prefetch_lines, job_depth=cfg.edge_jobs,
                                 edge_words=cfg.edge_words)
            srcid = cfg.edge_format == "coo"
            if large:
                merge = PacketSourceMerge(lanes=cfg.lanes, flits=cfg.flits,
                                          depth=cfg.fifo_depth, const_words=cfg.const_words,
                                          degree_word=1 + k, srcid_stored=srcid)
            else:
                merge = SourceMerge(depth=cfg.fifo_depth, const_words=cfg.const_words,
                                    degree_word=1 + k, srcid_stored=srcid)
            suffix = "" if readers == 1 else str(k)
            m.submodules[f"edge_read{suffix}"] = edge_read
            m.submodules[f"source_merge{suffix}"] = merge
            wiring.connect(m, edge_read.mem, wiring.flipped(port))
            cast = "" if readers == 1 else "_broadcast"
            link(props[k], merge.prop, f"src_prop{cast or '_read'}->source_merge{suffix}")
            link(consts[k], merge.const, f"src_const{cast or '_read'}->source_merge{suffix}")
            link(edge_read.o, merge.edges, f"edge_read{suffix}->source_merge{suffix}")
            wiring.connect(m, merge.o, wiring.flipped(self.o[k]))
            # One edge job per partition: the reader's whole range, offered at its start. The
            # range is registered from the partition's number, set the cycle before
            # ``seg_start`` (START), so the selection of the registers is not on the way to
            # ``job_pending`` and the job queue.
            job_pending = Signal(name=f"job_pending{suffix}")
            job_start = Signal(32, name=f"job_start{suffix}")
            job_end = Signal(32, name=f"job_end{suffix}")
            at = (self.slice * cfg.source_segments + walk.segment) * readers + k
            m.d.sync += [job_start.eq(starts[at]), job_end.eq(ends[at])]
            with m.If(edge_read.i.ready):
                m.d.sync += job_pending.eq(0)
            with m.If(walk.seg_start):
                m.d.sync += job_pending.eq(job_start != job_end)
            m.d.comb += [
                edge_read.start.eq(self.start), edge_read.edge_base.eq(self.edge_base),
                edge_read.match_any.eq(1),
                edge_read.i.valid.eq(job_pending),
                edge_read.i.payload.start.eq(job_start),
                edge_read.i.payload.end.eq(job_end),
            ]
            busy.append(job_pending | merge.busy | edge_read.busy)
            pending.append(job_pending)
            errors.append(merge.mismatch)
            if k == 0:
                m.d.comb += self.stall_p2.eq(edge_read.i.valid & ~edge_read.i.ready)
        m.d.comb += [
            walk.seg_idle.eq(~any_busy(src_prop.busy, src_const.busy, pending)),
            self.error.eq(Cat(errors).any()),
            self.stall_p1.eq(src_prop.o.valid & ~src_prop.o.ready),
        ]
        return [src_prop.busy, src_const.busy, *busy]

    def _broadcast(self, m, link, prop, const, readers):
        """The vertex streams, to each reader's Source Merge (§V.B: every source id is
        broadcast to all readers)."""
        if readers == 1:
            return [prop], [const]
        m.submodules.prop_broadcast = prop_cast = StreamBroadcast(prop.payload.shape(), readers)
        m.submodules.const_broadcast = const_cast = StreamBroadcast(const.payload.shape(),
                                                                    readers)
        link(prop, prop_cast.i, "src_prop_read->src_prop_broadcast")
        link(const, const_cast.i, "src_const_read->src_const_broadcast")
        return list(prop_cast.o), list(const_cast.o)
