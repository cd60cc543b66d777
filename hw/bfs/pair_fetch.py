"""The edge ranges of the status lines that hold a hit, read on demand: a scan of a sparse
frontier (Enterprise §4.1) reads every status line but needs the offsets of only the few
lines in which it finds a frontier vertex, where reading the offsets beside every status line
would double the scan's memory traffic.

Line ``k`` of vertices needs ``offsets[16k .. 16k + 16]``: offsets lines ``k`` and ``k + 1``.
Lines are asked for in ascending order, so when ``k - 1`` was the line asked for before, line
``k`` has just been read and only ``k + 1`` is; a dense scan thus reads each offsets line
once, as the sequential reader did.
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import WORDS_PER_LINE
from hw.lib.memory.range_streamer import range_cmd_layout, range_out_layout
from .offset_lines import OffsetPairs


__all__ = ["PairFetch"]


class PairFetch(wiring.Component):
    """Parameters
    ----------
    addr_width : int

    Members
    -------
    start : ``In(1)``
        A pulse before each scan: no line has been read.
    offsets_base : ``In(addr_width)``; num_vertices : ``In(32)``
    wanted : ``In(stream.Signature(32))``
        Lines of vertices whose edge ranges are needed, ascending.
    cmd : ``Out(stream.Signature(range_cmd_layout(addr_width, 1)))``
        Reads of offsets lines (``ctx`` 1: the read holds line ``k`` alone).
    lines : ``In(stream.Signature(range_out_layout(16, 1)))``
        The lines those reads return, in order.
    pairs : ``Out(stream.Signature(OffsetPairs))``
        One per line wanted, in order.
    busy : ``Out(1)``
        A read asked for has not yet given its pair.
    """

    def __init__(self, *, addr_width: int):
        check_int("PairFetch", "addr_width", addr_width, high=32)
        super().__init__({
            "start": In(1),
            "offsets_base": In(addr_width),
            "num_vertices": In(32),
            "wanted": In(stream.Signature(32)),
            "cmd": Out(stream.Signature(range_cmd_layout(addr_width, 1))),
            "lines": In(stream.Signature(range_out_layout(WORDS_PER_LINE, 1))),
            "pairs": Out(stream.Signature(OffsetPairs)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        self._requests(m)
        self._pairs(m)
        return m

    def _requests(self, m):
        """Each wanted line ``k`` becomes a read: ``k + 1`` alone when ``k`` was read last,
        ``k`` and ``k + 1``, or ``k`` alone when no line ``k + 1`` holds an offset. ``k``
        waits in a register with ``k + 1`` and whether that line exists, so the read's
        address is a compare and a choice from registers."""
        line, after, has_next, full = Signal(32), Signal(32), Signal(), Signal()
        lines_total = Signal(32)
        m.d.sync += lines_total.eq((self.num_vertices + WORDS_PER_LINE) >> 4)
        last_read = Signal(32)          # one more than the last line read; 0: none yet
        follows = last_read == after
        asked = self.cmd.valid & self.cmd.ready
        m.d.comb += self.wanted.ready.eq(~full | asked)
        with m.If(self.wanted.valid & self.wanted.ready):
            k = self.wanted.payload
            m.d.sync += [full.eq(1), line.eq(k), after.eq(k + 1),
                         has_next.eq((k + 1) < lines_total)]
        with m.Elif(asked):
            m.d.sync += full.eq(0)
        cmd = self.cmd.payload
        m.d.comb += [
            self.cmd.valid.eq(full),
            cmd.base.eq(self.offsets_base),
            cmd.first.eq(Mux(follows & has_next, after, line)),
            cmd.count.eq(Mux(has_next & ~follows, 2, 1)),
            cmd.ctx.eq(~has_next),
        ]
        with m.If(asked):
            m.d.sync += last_read.eq(Mux(has_next, after + 1, after))
        with m.If(self.start):
            m.d.sync += last_read.eq(0)
        pending = Signal(range(1 << 16))
        given = self.pairs.valid & self.pairs.ready
        m.d.sync += pending.eq(pending + asked - given)
        m.d.comb += self.busy.eq(full | (pending != 0))

    def _pairs(self, m):
        """A pair at the last line of each read: ``lo`` the line before it (or the line
        itself when it is read alone), ``hi`` the same shifted by one word, the last from
        the line."""
        kept = Signal(data.ArrayLayout(32, WORDS_PER_LINE))
        item = self.lines.payload
        incoming = data.ArrayLayout(32, WORDS_PER_LINE)(item.data)
        alone = item.ctx[0]
        lo = [Signal(32, name=f"lo{i}") for i in range(WORDS_PER_LINE)]
        for i in range(WORDS_PER_LINE):
            m.d.comb += lo[i].eq(kept[i])
            with m.If(alone):
                m.d.comb += lo[i].eq(incoming[i])
        pair = self.pairs.payload
        m.d.comb += [
            self.pairs.valid.eq(self.lines.valid & item.last),
            self.lines.ready.eq(~item.last | self.pairs.ready),
            pair.line.eq(item.index - ~alone),
        ]
        m.d.comb += [pair.lo[i].eq(lo[i]) for i in range(WORDS_PER_LINE)]
        m.d.comb += [pair.hi[i].eq(lo[i + 1]) for i in range(WORDS_PER_LINE - 1)]
        m.d.comb += pair.hi[WORDS_PER_LINE - 1].eq(incoming[0])
        with m.If(self.lines.valid & self.lines.ready):
            m.d.sync += kept.eq(incoming)
