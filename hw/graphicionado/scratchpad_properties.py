"""The destination vertices' VProperty and VConst on chip, for the symmetric-graph
optimisation of a scalar program (Graphicionado §IV.D, §VI.B: with the optimisation the
scratchpad holds the vertex properties of both ends of an edge). The update an edge makes
for its source u reads the destination v's property and constant; the destination stream
that owns v finds them here, where the directed pipeline reads neither.

The copy is loaded before each processing phase from VProperty as the iteration began and
from VConst's constant word (two sequential reads of the stream's partitions), and read at
stage P4 for each edge, a word a cycle.
"""

from amaranth.hdl import Module, Signal
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
    """VProperty and VConst (its word 0) of destination stream ``index`` of ``streams``
    (vertex v at index ``v >> log2(streams)``), loaded from memory on ``load`` and joined to
    each edge by its destination.

    Parameters
    ----------
    vertices : int
        Entries (the stream's share of ``max_vertices``).
    streams : int
        Destination streams m, a power of two.
    index : int
        This stream's number.
    partitions : int
        L, the vertex partitions in memory (a multiple of m; the stream owns every m-th).
    const_words : int
        Words of a VConst item.
    addr_width, prefetch_lines : int
        Of the two sequential reads (a bulk load between phases: as many lines ahead as the
        edge stream reads, so that a memory latency does not bound it).

    Members
    -------
    load : ``In(1)``
        Pulse: load every vertex of the stream below ``num_vertices``.
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
        check_int("ScratchpadProperties", "const_words", const_words, power_of_two=True)
        self._vertices, self._streams, self._index = vertices, streams, index
        self._partitions, self._const_words = partitions, const_words
        self._addr_width, self._prefetch_lines = addr_width, prefetch_lines
        super().__init__({
            "load": In(1), "num_vertices": In(32), "part_lines": In(32),
            "vprop_base": In(32), "vconst_base": In(32), "loading": Out(1),
            "i": In(stream.Signature(SourcedEdge)),
            "o": Out(stream.Signature(SymmetricEdge)),
            "prop_load_mem": Out(MemoryPortSignature(addr_width)),
            "const_load_mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        dst_shift = self._streams.bit_length() - 1
        part_shift = self._partitions.bit_length() - 1
        m.submodules.props = props = memory.Memory(shape=32, depth=self._vertices, init=[])
        m.submodules.consts = consts = memory.Memory(shape=32, depth=self._vertices, init=[])
        self._loader(m, props, consts, dst_shift, part_shift)

        # The lookup, a register stage: the read port's data is the held edge's while the
        # output waits (the port reads only when the stage moves).
        move = ~self.o.valid | self.o.ready
        index = self.i.payload.edge.dst >> dst_shift
        held = Signal(SourcedEdge)
        reads = [props.read_port(), consts.read_port()]
        for port in reads:
            m.d.comb += [port.addr.eq(index), port.en.eq(move)]
        m.d.comb += self.i.ready.eq(move)
        with m.If(move):
            m.d.sync += [self.o.valid.eq(self.i.valid), held.eq(self.i.payload)]
        m.d.comb += [
            self.o.payload.edge.eq(held.edge), self.o.payload.prop.eq(held.prop),
            self.o.payload.const.eq(held.const),
            self.o.payload.dst_prop.eq(reads[0].data), self.o.payload.dst_const.eq(reads[1].data),
        ]
        return m

    def _loader(self, m, props, consts, dst_shift, part_shift):
        """``load``: the stream's partitions walked, VProperty's and VConst's items written to
        their vertices' entries as they come."""
        m.submodules.walk = walk = PartitionWalk(
            segments=self._partitions // self._streams, first=self._index,
            step=self._streams, partitions=self._partitions)
        readers = []
        for name, words, base, port in (
                ("prop_load", 1, self.vprop_base, self.prop_load_mem),
                ("const_load", self._const_words, self.vconst_base, self.const_load_mem)):
            m.submodules[name] = reader = SequentialVertexRead(
                item_words=words, addr_width=self._addr_width,
                prefetch_lines=self._prefetch_lines, index_shift=part_shift - dst_shift)
            wiring.connect(m, reader.mem, wiring.flipped(port))
            m.d.comb += [
                reader.start.eq(walk.seg_start), reader.base.eq(base + walk.offset * words),
                reader.count.eq(walk.size), reader.first_index.eq(walk.partition >> dst_shift),
                reader.o.ready.eq(1),
            ]
            readers.append(reader)
        for reader, store in zip(readers, (props, consts)):
            port = store.write_port()
            m.d.comb += [port.addr.eq(reader.o.payload.index),
                         port.data.eq(reader.o.payload.data[:32]), port.en.eq(reader.o.valid)]
        m.d.comb += [
            walk.start.eq(self.load), walk.num_vertices.eq(self.num_vertices),
            walk.part_lines.eq(self.part_lines), walk.range_first.eq(0),
            walk.seg_idle.eq(~any_busy(reader.busy for reader in readers)),
            walk.seg_drained.eq(1),
            self.loading.eq(walk.busy),
        ]
