"""EdgeID Read (Graphicionado §3.2 stage P2, with the on-chip EdgeIDTable of §4.A and the
coarsened EdgeIDTable of §6.C).

For each active vertex it reads the EdgeIDTable in the scratchpad and hands Edge Read the
range of edge ids to scan. With a coarsening factor N the table holds one entry per N
vertices; the range then covers the whole group and Edge Read keeps only the edges whose
srcid matches. Vertices without edges are dropped here.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, is_power_of_two, check_int
from .layouts import ActiveVertex, EdgeJob


__all__ = ["EdgeIDRead"]


class EdgeIDRead(wiring.Component):
    """Active vertex in, edge-id range out, through two synchronous table read ports.

    Parameters
    ----------
    table_addr_width : int
        Address width of the EdgeIDTable.
    coarsening : int
        Vertices per table entry (a power of two; 1 = one entry per vertex).
    id_shift : int
        The table is a source stream's: it holds the vertices ``id`` with the stream's low
        ``id_shift`` bits, at ``id >> id_shift`` (§V.A).

    Members
    -------
    i : ``In(stream.Signature(ActiveVertex))``
    o : ``Out(stream.Signature(EdgeJob))``
    table_addr : ``Out(table_addr_width)``, table_next_addr : ``Out(table_addr_width)``
    table_en : ``Out(1)``
        Read enable of both table ports.
    table_data : ``In(32)``, table_next_data : ``In(32)``
        EdgeIDTable[addr] and EdgeIDTable[addr + 1], one cycle after the address.
    busy : ``Out(1)``
    """

    def __init__(self, *, table_addr_width: int, coarsening: int = 1, id_shift: int = 0):
        check_int("EdgeIDRead", "table_addr_width", table_addr_width)
        check_int("EdgeIDRead", "id_shift", id_shift, low=0)
        if not is_power_of_two(coarsening):
            raise ConfigError(f"EdgeIDRead: coarsening must be a power of two, not {coarsening!r}")
        self._table_addr_width = table_addr_width
        self._coarsening = coarsening
        self._id_shift = id_shift
        super().__init__({
            "i": In(stream.Signature(ActiveVertex)),
            "o": Out(stream.Signature(EdgeJob)),
            "table_addr": Out(table_addr_width),
            "table_next_addr": Out(table_addr_width),
            "table_en": Out(1),
            "table_data": In(32),
            "table_next_data": In(32),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        shift = self._coarsening.bit_length() - 1 + self._id_shift

        held = Signal(ActiveVertex)
        held_valid = Signal()
        empty = self.table_data == self.table_next_data
        m.d.comb += [
            self.o.valid.eq(held_valid & ~empty),
            self.o.payload.src.eq(held.id),
            self.o.payload.prop.eq(held.prop),
            self.o.payload.const.eq(0),
            self.o.payload.start.eq(self.table_data),
            self.o.payload.end.eq(self.table_next_data),
            self.busy.eq(held_valid),
        ]
        # The table ports hold their data while ``table_en`` is low, so the output is stable
        # until taken.
        advance = ~held_valid | empty | self.o.ready
        group = self.i.payload.id >> shift
        m.d.comb += [
            self.i.ready.eq(advance),
            self.table_en.eq(advance),
            self.table_addr.eq(group),
            self.table_next_addr.eq(group + 1),
        ]
        with m.If(advance):
            m.d.sync += [held_valid.eq(self.i.valid), held.eq(self.i.payload)]
        return m
