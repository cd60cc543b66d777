"""The destination vertices' VProperty and VConst on chip, for the symmetric-graph
optimisation of a scalar program (Graphicionado §IV.D, §VI.B: with the optimisation the
scratchpad holds the vertex properties of both ends of an edge). The update an edge makes
for its source u reads the destination v's property and constant; the destination stream
that owns v finds them here, where the directed pipeline reads neither.

The copy is loaded before each processing phase from VProperty as the iteration began and,
in a run's first iteration, from VConst's constant word (two sequential reads of the
stream's partitions, a line a cycle), and read at stage P4 for each edge, a word a cycle. It is kept as the memory's
lines are: 16 vertices of a partition to a word, partition after partition, so that a line
read is a word written (VConst's lines, with a vertex's degree words beside its constant,
fill part of a word each).
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import memory, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import check_int
from hw.lib.memory.port import MemoryPortSignature
from .layouts import SourcedEdge, SymmetricEdge
from .partition_walk import PartitionWalk
from .sequential_vertex_read import SequentialVertexRead


__all__ = ["ScratchpadProperties"]


class ScratchpadProperties(wiring.Component):
    """VProperty and VConst (its word 0) of destination stream ``index`` of ``streams``,
    loaded from memory on ``load`` and joined to each edge by its destination.

    Parameters
    ----------
    vertices : int
        The stream's share of ``max_vertices``.
    streams : int
        Destination streams m, a power of two.
    index : int
        This stream's number.
    partitions : int
        L, the vertex partitions in memory (a multiple of m; the stream owns every m-th,
        vertex v in partition ``v % L`` at ``v // L``).
    const_words : int
        Words of a VConst item (a power of two up to 16).
    addr_width, prefetch_lines : int
        Of the two sequential reads (a bulk load between phases: as many lines ahead as the
        edge stream reads, so that a memory latency does not bound it).

    Members
    -------
    load : ``In(1)``
        Pulse: load every vertex of the stream below ``num_vertices``.
    consts : ``In(1)``
        With ``load``: VConst too (it does not change during a run).
    num_vertices, part_lines : ``In(32)``
    vprop_base, vconst_base : ``In(32)``
        Line addresses of VProperty (as the iteration began) and of VConst.
    loading : ``Out(1)``
    i : ``In(stream.Signature(SourcedEdge))``
    o : ``Out(stream.Signature(SymmetricEdge))``
        The edge with ``dst_prop`` and ``dst_const`` of its destination, a cycle later.
    prop_load_mem, const_load_mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, vertices: int, streams: int = 1, index: int = 0,
                 partitions: int = 1, const_words: int = 2, addr_width: int = 26,
                 prefetch_lines: int = 4):
        check_int("ScratchpadProperties", "vertices", vertices)
        check_int("ScratchpadProperties", "streams", streams, power_of_two=True)
        check_int("ScratchpadProperties", "index", index, low=0, high=streams - 1)
        check_int("ScratchpadProperties", "partitions", partitions, power_of_two=True,
                  low=streams)
        check_int("ScratchpadProperties", "const_words", const_words, power_of_two=True,
                  high=16)
        self._streams, self._index = streams, index
        self._partitions, self._const_words = partitions, const_words
        self._addr_width, self._prefetch_lines = addr_width, prefetch_lines
        self._segments = partitions // streams
        # Lines of one partition's part: its most vertices, 16 a line.
        self._segment_lines = -(-(-(-vertices // self._segments)) // 16)
        super().__init__({
            "load": In(1), "consts": In(1), "num_vertices": In(32), "part_lines": In(32),
            "vprop_base": In(32), "vconst_base": In(32), "loading": Out(1),
            "i": In(stream.Signature(SourcedEdge)),
            "o": Out(stream.Signature(SymmetricEdge)),
            "prop_load_mem": Out(MemoryPortSignature(addr_width)),
            "const_load_mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        depth = self._segments * self._segment_lines
        m.submodules.props = props = memory.Memory(shape=32 * 16, depth=depth, init=[])
        m.submodules.consts = consts = memory.Memory(shape=32 * 16, depth=depth, init=[])
        self._loader(m, props, consts)

        # The lookup, a register stage: the read port's data is the held edge's while the
        # output waits (the port reads only when the stage moves).
        move = ~self.o.valid | self.o.ready
        dst = self.i.payload.edge.dst
        part_shift = self._partitions.bit_length() - 1
        dst_shift = self._streams.bit_length() - 1
        segment = dst[dst_shift:part_shift] if part_shift > dst_shift else 0
        within = dst >> part_shift
        held = Signal(SourcedEdge)
        lane = Signal(4)
        reads = [props.read_port(), consts.read_port()]
        for port in reads:
            m.d.comb += [port.addr.eq(segment * self._segment_lines + (within >> 4)),
                         port.en.eq(move)]
        m.d.comb += self.i.ready.eq(move)
        with m.If(move):
            m.d.sync += [self.o.valid.eq(self.i.valid), held.eq(self.i.payload),
                         lane.eq(within[:4])]
        m.d.comb += [
            self.o.payload.edge.eq(held.edge), self.o.payload.prop.eq(held.prop),
            self.o.payload.const.eq(held.const),
            self.o.payload.dst_prop.eq(reads[0].data.word_select(lane, 32)),
            self.o.payload.dst_const.eq(reads[1].data.word_select(lane, 32)),
        ]
        return m

    def _loader(self, m, props, consts):
        """``load``: the stream's partitions walked, a line of VProperty and one of VConst a
        cycle, each written to its word (VConst's constants to their lanes)."""
        m.submodules.walk = walk = PartitionWalk(
            segments=self._segments, first=self._index, step=self._streams,
            partitions=self._partitions)
        cw = self._const_words
        cw_shift = cw.bit_length() - 1
        with_consts = Signal()
        with m.If(self.load):
            m.d.sync += with_consts.eq(self.consts)
        readers = []
        for name, words, base, port in (
                ("prop_load", 1, self.vprop_base, self.prop_load_mem),
                ("const_load", cw, self.vconst_base, self.const_load_mem)):
            m.submodules[name] = reader = SequentialVertexRead(
                item_words=16, addr_width=self._addr_width, prefetch_lines=self._prefetch_lines)
            wiring.connect(m, reader.mem, wiring.flipped(port))
            m.d.comb += [
                reader.start.eq(walk.seg_start & (with_consts if name == "const_load" else 1)),
                reader.base.eq(base + walk.offset * words),
                reader.count.eq((walk.size * words + 15) >> 4), reader.first_index.eq(0),
                reader.o.ready.eq(1),
            ]
            readers.append(reader)
        first = walk.segment * self._segment_lines
        prop_item, const_item = (reader.o.payload for reader in readers)
        write = props.write_port()
        m.d.comb += [write.addr.eq(first + prop_item.index), write.data.eq(prop_item.data),
                     write.en.eq(readers[0].o.valid)]
        # A VConst line holds 16 / cw vertices: constant t (word t * cw) goes to lane
        # ``(k mod cw) * 16 / cw + t`` of word ``k / cw`` (line k of the partition).
        per_line = 16 // cw
        write = consts.write_port(granularity=32)
        line = const_item.index
        words = [const_item.data.word_select((lane % per_line) * cw, 32) for lane in range(16)]
        m.d.comb += [
            write.addr.eq(first + (line >> cw_shift)), write.data.eq(Cat(words)),
            write.en.eq(Cat(readers[1].o.valid & ((line & (cw - 1)) == lane // per_line)
                            for lane in range(16))),
        ]
        m.d.comb += [
            walk.start.eq(self.load), walk.num_vertices.eq(self.num_vertices),
            walk.part_lines.eq(self.part_lines), walk.range_first.eq(0),
            walk.seg_idle.eq(~any_busy(reader.busy for reader in readers)),
            walk.seg_drained.eq(1),
            self.loading.eq(walk.busy),
        ]
