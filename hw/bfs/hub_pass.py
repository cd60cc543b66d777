"""The hub count before the first level (Enterprise §4.3: Th, "the total number of hubs,
which can be computed very quickly at the first level"): a pass over the out-offsets marks
every vertex of out-degree above tau in the hub bitmap and counts them.
"""

from amaranth.hdl import C, Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import WORDS_PER_LINE
from .hub_bitmap import BitmapFill
from .offset_lines import OffsetPairs


__all__ = ["HubPass"]


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
        })

    def elaborate(self, platform):
        m = Module()
        pairs = self.pairs.payload
        bits = Signal(WORDS_PER_LINE)
        for i in range(WORDS_PER_LINE):
            vertex = Cat(C(i, 4), pairs.line)
            m.d.comb += bits[i].eq(((pairs.hi[i] - pairs.lo[i]) > self._tau) &
                                   (vertex < self.num_vertices))
        m.d.comb += [
            self.fill.valid.eq(self.pairs.valid),
            self.fill.payload.line.eq(pairs.line),
            self.fill.payload.bits.eq(bits),
            self.pairs.ready.eq(self.fill.ready),
        ]
        with m.If(self.clear):
            m.d.sync += self.hubs.eq(0)
        with m.Elif(self.fill.valid & self.fill.ready):
            m.d.sync += self.hubs.eq(self.hubs + sum(bits[i] for i in range(WORDS_PER_LINE)))
        return m

