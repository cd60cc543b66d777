"""Which vertices exist: a bit a vertex id on chip, loaded from memory at start, read for both
ends of every edge operation (an operation on an absent vertex is skipped) and set or cleared
by vertex insertion and deletion. The GPU implementation keeps the vertex table's state in
global memory; here the one bit an edge operation needs about its destination costs no
memory read.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.memory.port import LINE_BITS
from hw.lib.memory.range_streamer import range_out_layout


__all__ = ["PresenceBitmap"]


class PresenceBitmap(wiring.Component):
    """Parameters
    ----------
    max_vertices : int
        A power of two of at least 16.

    Members
    -------
    load : ``In(stream.Signature(range_out_layout(16, 1)))``
        The ``present`` region's lines in order (a :class:`~hw.lib.memory.range_streamer.RangeStreamer`
        of whole lines), after ``restart``.
    restart : ``In(1)``
        The next line loaded is the first.
    read_en : ``In(1)``; read_u, read_v : ``In(32)``
        Ask for two bits; ``present_u`` and ``present_v`` hold them from the next cycle until
        the next ``read_en``.
    present_u, present_v : ``Out(1)``
    update : ``In(stream.Signature(data.StructLayout({"vertex": 32, "set": 1})))``
        Set or clear a bit: taken the cycle it is written (a read, then the write), visible
        to a ``read_en`` of the cycle after.
    """

    def __init__(self, *, max_vertices: int):
        if max_vertices < 16 or max_vertices & (max_vertices - 1):
            raise ConfigError(f"PresenceBitmap: max_vertices must be a power of two of at "
                              f"least 16, not {max_vertices!r}")
        self._width = min(LINE_BITS, max_vertices)
        self._depth = max_vertices // self._width
        super().__init__({
            "load": In(stream.Signature(range_out_layout(16, 1))),
            "restart": In(1),
            "read_en": In(1),
            "read_u": In(32),
            "read_v": In(32),
            "present_u": Out(1),
            "present_v": Out(1),
            "update": In(stream.Signature(data.StructLayout({"vertex": 32, "set": 1}))),
        })

    def elaborate(self, platform):
        m = Module()
        width, depth = self._width, self._depth
        bit_shift = width.bit_length() - 1
        m.submodules.bits = bits = Memory(shape=width, depth=depth, init=[])
        write = bits.write_port()
        row_of = (lambda vertex: vertex[bit_shift:bit_shift + (depth - 1).bit_length()]) \
            if depth > 1 else (lambda vertex: 0)

        read_u, read_v = bits.read_port(), bits.read_port()
        column_u, column_v = Signal(bit_shift), Signal(bit_shift)
        m.d.comb += [read_u.en.eq(self.read_en), read_v.en.eq(self.read_en),
                     read_u.addr.eq(row_of(self.read_u)), read_v.addr.eq(row_of(self.read_v))]
        with m.If(self.read_en):
            m.d.sync += [column_u.eq(self.read_u[:bit_shift]),
                         column_v.eq(self.read_v[:bit_shift])]
        m.d.comb += [self.present_u.eq(read_u.data.bit_select(column_u, 1)),
                     self.present_v.eq(read_v.data.bit_select(column_v, 1))]

        # A bit changed: read its row, then write it back the next cycle.
        modify = bits.read_port()
        reading = Signal()
        vertex = self.update.payload.vertex
        m.d.comb += [modify.addr.eq(row_of(vertex)), modify.en.eq(~reading)]
        with m.If(self.update.valid & ~reading):
            m.d.sync += reading.eq(1)
        row = Signal(range(max(depth, 2)))
        with m.If(self.restart):
            m.d.sync += row.eq(0)
        with m.Elif(self.load.valid & self.load.ready):
            m.d.sync += row.eq(row + 1)
        with m.If(reading):
            column = vertex[:bit_shift]
            changed = Signal(width)
            m.d.comb += changed.eq(modify.data)
            m.d.comb += changed.bit_select(column, 1).eq(self.update.payload.set)
            m.d.comb += [write.en.eq(1), write.addr.eq(row_of(vertex)), write.data.eq(changed),
                         self.update.ready.eq(1)]
            m.d.sync += reading.eq(0)
        with m.Else():
            m.d.comb += [write.en.eq(self.load.valid), write.addr.eq(row),
                         write.data.eq(self.load.payload.data[:width])]
        m.d.comb += self.load.ready.eq(~reading)
        return m
