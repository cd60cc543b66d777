"""The edge range of every vertex, sixteen at a time, from the lines of a CSR offsets array:
what the frontier generator's scan (Enterprise §4.1) and the hub count need beside each
line of the status array.
"""

from amaranth.hdl import Cat, Module, Signal
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
        is in the next offsets line (``needs_next``), as registers: both compares are made
        a cycle ahead for each value ``line`` can take next (0, itself, one more), so the
        handshakes do not wait for a 32-bit compare."""
        n = self.num_vertices
        vertex_lines = Signal(32)
        m.d.sync += vertex_lines.eq((n + WORDS_PER_LINE - 1) >> 4)
        pending, needs_next = Signal(), Signal()
        # Each value's tests in signals of their own (kept, so synthesis does not share one
        # compare behind the choice).
        # ``line`` + 1 and + 2 are registers of their own, kept with ``line``, so that no
        # adder comes before the compares (an adder into a compare of ``line`` + 2 was the
        # smallest build's deepest path in this block, 11.6 ns estimated).
        line1 = Signal(32, init=1)
        line2 = Signal(32, init=2)
        with m.If(self.start):
            m.d.sync += [line1.eq(1), line2.eq(2)]
        with m.Elif(emitted):
            m.d.sync += [line1.eq(line2), line2.eq(line2 + 1)]
        tests = {}
        for name, value, following in (("zero", 0, 1), ("same", line, line1),
                                        ("after", line1, line2)):
            tests[name] = Signal(2, name=f"tests_{name}", attrs={"keep": 1})
            m.d.comb += tests[name].eq(Cat(value < vertex_lines, (following << 4) <= n))
        with m.If(self.start):
            m.d.sync += Cat(pending, needs_next).eq(tests["zero"])
        with m.Elif(emitted):
            m.d.sync += Cat(pending, needs_next).eq(tests["after"])
        with m.Else():
            m.d.sync += Cat(pending, needs_next).eq(tests["same"])
        return pending, needs_next
