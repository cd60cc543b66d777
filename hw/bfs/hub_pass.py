"""The hub count before the first level (Enterprise §4.3: Th, "the total number of hubs,
which can be computed very quickly at the first level"): a pass over the out-offsets marks
every vertex of out-degree above tau in the hub bitmap and counts them.
"""

from amaranth.hdl import C, Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import WORDS_PER_LINE
from hw.lib.stream.register_slice import StreamRegisterSlice
from .hub_bitmap import BitmapFill
from .offset_lines import OffsetPairs


__all__ = ["HubPass"]

# A line of offset pairs as degrees, with which of its vertices are in the graph.
Degrees = data.StructLayout({"line": 32, "degree": data.ArrayLayout(32, WORDS_PER_LINE),
                             "inside": WORDS_PER_LINE})


class HubPass(wiring.Component):
    """Offset pairs in, one bitmap word per line of vertices out, and the running count.

    Parameters
    ----------
    tau : int
        A hub has out-degree above ``tau``.

    Members
    -------
    num_vertices : ``In(32)``
    clear : ``In(1)``
        A pulse: the count restarts at 0.
    pairs : ``In(stream.Signature(OffsetPairs))``
    fill : ``Out(stream.Signature(BitmapFill))``
    hubs : ``Out(32)``
        Hubs counted since ``clear``.
    busy : ``Out(1)``
        A line is in the pass or its hubs not yet counted.
    """

    def __init__(self, *, tau: int):
        check_int("HubPass", "tau", tau, low=0, high=2**32 - 1)
        self._tau = tau
        super().__init__({
            "num_vertices": In(32),
            "clear": In(1),
            "pairs": In(stream.Signature(OffsetPairs)),
            "fill": Out(stream.Signature(BitmapFill)),
            "hubs": Out(32),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        # Two register stages: the lines' degrees (and which of their vertices exist), then
        # their hub bits, so that the 32-bit subtractions, the compares with tau and the
        # count each take a cycle of their own.
        m.submodules.degrees = degrees = StreamRegisterSlice(Degrees, skid=False)
        m.submodules.marked = marked = StreamRegisterSlice(BitmapFill)
        pairs = self.pairs.payload
        m.d.comb += [degrees.i.valid.eq(self.pairs.valid), self.pairs.ready.eq(degrees.i.ready),
                     degrees.i.payload.line.eq(pairs.line)]
        for i in range(WORDS_PER_LINE):
            m.d.comb += [
                degrees.i.payload.degree[i].eq(pairs.hi[i] - pairs.lo[i]),
                degrees.i.payload.inside[i].eq(Cat(C(i, 4), pairs.line) < self.num_vertices),
            ]
        line = degrees.o.payload
        m.d.comb += [marked.i.valid.eq(degrees.o.valid), degrees.o.ready.eq(marked.i.ready),
                     marked.i.payload.line.eq(line.line)]
        for i in range(WORDS_PER_LINE):
            m.d.comb += marked.i.payload.bits[i].eq((line.degree[i] > self._tau) &
                                                     line.inside[i])
        wiring.connect(m, marked.o, wiring.flipped(self.fill))
        # A line's hubs are added a cycle late, from a register: the count of its bits would
        # otherwise run on into the 32-bit count. The level controller reads the count only
        # after two quiet cycles.
        bits = marked.o.payload.bits
        line_hubs = Signal(range(WORDS_PER_LINE + 1))
        with m.If(self.clear):
            m.d.sync += [self.hubs.eq(0), line_hubs.eq(0)]
        with m.Else():
            m.d.sync += [
                self.hubs.eq(self.hubs + line_hubs),
                line_hubs.eq(Mux(self.fill.valid & self.fill.ready,
                                 sum(bits[i] for i in range(WORDS_PER_LINE)), 0)),
            ]
        m.d.comb += self.busy.eq(degrees.o.valid | marked.o.valid | (line_hubs != 0))
        return m
