"""Where operations end: an edge operation's slab write (and its lock's release) goes to the
slab port, a search's answer is written to its place in the answer region (two words: found,
weight), and the outcome is counted (Awad et al.'s batched operations report what each did).
"""

from amaranth.hdl import C, Cat, Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import LINE_BITS, MemoryPortSignature
from hw.lib.stream.fifo import StreamFIFO
from .layouts import ANSWER_WORDS, OUTCOMES, Outcome, Retire as RetireRecord, SlabWrite


__all__ = ["Retire"]

ANSWERS_PER_LINE = 16 // ANSWER_WORDS


class Retire(wiring.Component):
    """Members
    -------
    answers_base : ``In(addr_width)``
    i : ``In(stream.Signature(layouts.Retire))``
    writes : ``Out(stream.Signature(SlabWrite))``
    <outcome> : ``Out(32)`` for each name of :data:`layouts.OUTCOMES`
    busy : ``Out(1)``
    mem : ``Out(MemoryPortSignature(addr_width))``
        Answer writes.
    """

    def __init__(self, *, addr_width: int):
        check_int("Retire", "addr_width", addr_width, high=32)
        self._addr_width = addr_width
        members = {
            "answers_base": In(addr_width),
            "i": In(stream.Signature(RetireRecord)),
            "writes": Out(stream.Signature(SlabWrite)),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)),
        }
        members.update({name: Out(32) for name in OUTCOMES})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        record = self.i.payload
        answer = record.answer
        line_write = data.StructLayout({"addr": self._addr_width, "wdata": LINE_BITS,
                                        "wmask": 64})
        m.submodules.answers = answers = StreamFIFO(line_write, 2)
        m.d.comb += [
            self.mem.req.valid.eq(answers.o.valid),
            self.mem.req.payload.addr.eq(answers.o.payload.addr),
            self.mem.req.payload.write.eq(1),
            self.mem.req.payload.wdata.eq(answers.o.payload.wdata),
            self.mem.req.payload.wmask.eq(answers.o.payload.wmask),
            answers.o.ready.eq(self.mem.req.ready),
            self.mem.resp.ready.eq(1),
        ]
        slot = answer.index[:3]
        m.d.comb += [
            answers.i.payload.addr.eq(self.answers_base + (answer.index >> 3)[:self._addr_width]),
            answers.i.payload.wdata.eq(Cat(*[Cat(answer.found, C(0, 31), answer.weight)] * 8)),
            answers.i.payload.wmask.eq((C(0xFF, 8) << (slot << 3))[:64]),
            self.writes.payload.eq(record.slab_write),
        ]
        to_write = record.slab_write.write | record.slab_write.release
        room = (self.writes.ready | ~to_write) & (answers.i.ready | ~record.search)
        m.d.comb += [
            self.i.ready.eq(room),
            self.writes.valid.eq(self.i.valid & to_write & (answers.i.ready | ~record.search)),
            answers.i.valid.eq(self.i.valid & record.search & (self.writes.ready | ~to_write)),
        ]
        with m.If(self.i.valid & room):
            with m.Switch(record.outcome):
                for outcome in Outcome:
                    with m.Case(outcome):
                        counter = getattr(self, outcome.name.lower())
                        m.d.sync += counter.eq(counter + 1)
        m.d.comb += self.busy.eq(self.i.valid | answers.o.valid)
        return m
