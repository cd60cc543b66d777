"""The edge range of every vertex, sixteen at a time, from the lines of a CSR offsets array:
what the frontier generator's scan (Enterprise §4.1) and the hub count need beside each
line of the status array.
"""

from amaranth.hdl import Cat, Module, Signal, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.memory.port import WORDS_PER_LINE
from hw.lib.memory.range_streamer import range_out_layout


__all__ = ["OffsetLines", "OffsetPairs"]

# The edge ranges of vertices 16 * line .. 16 * line + 15: [lo[i], hi[i]).
OffsetPairs = data.StructLayout({"line": 32, "lo": data.ArrayLayout(32, WORDS_PER_LINE),
                                 "hi": data.ArrayLayout(32, WORDS_PER_LINE)})


class OffsetLines(wiring.Component):
    """Lines of ``offsets[0 .. n]`` in, one :data:`OffsetPairs` per line of vertices out.

    ``hi`` of the line's last vertex is the first word of the next offsets line, so a
    line is handed out once the next has arrived (when there is one: the last offsets line
    may hold only ``offsets[n]``, which is then not a line of vertices).

    Members
    -------
    start : ``In(1)``
        A pulse before each pass: the next line in is line 0.
    num_vertices : ``In(32)``
    lines : ``In(stream.Signature(range_out_layout(16, 1)))``
        The offsets lines (``data``), in order: ``ceil((n + 1) / 16)`` of them.
    pairs : ``Out(stream.Signature(OffsetPairs))``
        ``ceil(n / 16)`` of them.
    busy : ``Out(1)``
        Lines of vertices still to hand out.
    """

    def __init__(self):
        super().__init__({
            "start": In(1),
            "num_vertices": In(32),
            "lines": In(stream.Signature(range_out_layout(WORDS_PER_LINE, 1))),
            "pairs": Out(stream.Signature(OffsetPairs)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        current = Signal(data.ArrayLayout(32, WORDS_PER_LINE))
        have = Signal()
        line = Signal(32)
        incoming = data.ArrayLayout(32, WORDS_PER_LINE)(self.lines.payload.data)
        emitted = Signal()
        pending, needs_next = self._line_tests(m, line, emitted)

        m.d.comb += [
            self.pairs.valid.eq(have & pending & (~needs_next | self.lines.valid)),
            self.pairs.payload.line.eq(line),
            self.pairs.payload.lo.eq(current),
            self.busy.eq(pending),
        ]
        for i in range(WORDS_PER_LINE - 1):
            m.d.comb += self.pairs.payload.hi[i].eq(current[i + 1])
        m.d.comb += self.pairs.payload.hi[WORDS_PER_LINE - 1].eq(incoming[0])

        m.d.comb += emitted.eq(self.pairs.valid & self.pairs.ready)
        with m.If(~have):
            m.d.comb += self.lines.ready.eq(pending)
            with m.If(self.lines.valid & pending):
                m.d.sync += [current.eq(self.lines.payload.data), have.eq(1)]
        with m.Elif(emitted):
            m.d.sync += line.eq(line + 1)
            with m.If(needs_next):
                m.d.comb += self.lines.ready.eq(1)
                m.d.sync += current.eq(self.lines.payload.data)
            with m.Else():
                m.d.sync += have.eq(0)
        with m.If(self.start):
            m.d.sync += [line.eq(0), have.eq(0)]
        return m

    def _line_tests(self, m, line, emitted):
        """Whether ``line`` is a line of vertices (``pending``) and whether its last ``hi``
        is in the next offsets line (``needs_next``), as registers, made a cycle ahead for
        each value ``line`` can take next (0, itself, one more) from two counters kept beside
        it: the lines of vertices left from ``line`` on, and how far the first vertex of the
        line after it is below the vertex count. Each test is then a test of a counter for a
        few values, with no adder or 32-bit compare on the way from the handshakes (a compare
        of ``line`` + 1 with the count was the smallest build's deepest path in this block,
        9.3 ns estimated)."""
        n = self.num_vertices
        left = Signal(32)                  # lines of vertices from ``line`` on
        below = Signal(signed(34))         # n - 16 * (line + 1)
        with m.If(self.start):
            m.d.sync += [left.eq((n + WORDS_PER_LINE - 1) >> 4),
                         below.eq(n - WORDS_PER_LINE)]
        with m.Elif(emitted):
            m.d.sync += [left.eq(left - 1), below.eq(below - WORDS_PER_LINE)]
        tests = {}
        # Each value's tests in signals of their own (kept, so synthesis does not share one
        # test behind the choice).
        for name, pending, needs_next in (
                ("zero", n != 0, n[4:].any()),
                ("same", left != 0, ~below[-1]),
                ("after", left != 1, ~below[-1] & below[4:].any())):
            tests[name] = Signal(2, name=f"tests_{name}", attrs={"keep": 1})
            m.d.comb += tests[name].eq(Cat(pending, needs_next))
        pending, needs_next = Signal(), Signal()
        with m.If(self.start):
            m.d.sync += Cat(pending, needs_next).eq(tests["zero"])
        with m.Elif(emitted):
            m.d.sync += Cat(pending, needs_next).eq(tests["after"])
        with m.Else():
            m.d.sync += Cat(pending, needs_next).eq(tests["same"])
        return pending, needs_next
