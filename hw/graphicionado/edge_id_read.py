"""EdgeID Read (Graphicionado §3.2 stage P2, with the on-chip EdgeIDTable of §4.A and the
coarsened EdgeIDTable of §6.C).

For each active vertex it reads the EdgeIDTable in the scratchpad and hands Edge Read the
range of edge ids to scan. With a coarsening factor N the table holds one entry per N
vertices; the range then covers the whole group and Edge Read keeps only the edges whose
srcid matches. Vertices without edges are dropped here.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, is_power_of_two, check_int
from .layouts import ActiveVertex, EdgeJob


__all__ = ["EdgeIDRead"]


class EdgeIDRead(wiring.Component):
    """Active vertex in, edge-id range out, through two synchronous table read ports and a
    register stage after them (a cycle more).

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

        # Stage 1: the vertex whose table entries are being read (their data is the table's
        # output). Stage 2: the vertex and its range, registered with the range's emptiness
        # as four byte compares: the block RAMs' outputs reach flip-flops, not the output's
        # valid and the register slice behind it through a 32-bit compare.
        held = Signal(ActiveVertex)
        held_valid = Signal()
        job = Signal(EdgeJob)
        job_valid = Signal()
        same = Signal(4)
        empty = same.all()
        m.d.comb += [
            self.o.valid.eq(job_valid & ~empty),
            self.o.payload.eq(job),
            self.busy.eq(held_valid | job_valid),
        ]
        take = ~job_valid | empty | self.o.ready
        with m.If(take):
            data, following = self.table_data, self.table_next_data
            m.d.sync += [
                job_valid.eq(held_valid),
                job.src.eq(held.id), job.prop.eq(held.prop), job.const.eq(0),
                job.start.eq(data), job.end.eq(following),
                same.eq(Cat(data.word_select(k, 8) == following.word_select(k, 8)
                            for k in range(4))),
            ]
        # The table ports hold their data while ``table_en`` is low, so stage 1's range is
        # stable until stage 2 takes it.
        advance = ~held_valid | take
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
