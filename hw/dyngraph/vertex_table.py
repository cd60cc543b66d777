"""The vertex table's port: each vertex's word (its base slab and bucket count, Awad et al.'s
per-vertex hash-table header) read for every edge operation and written by vertex insertion
and deletion, through one memory client in order, so a read sees every earlier write (as
:class:`hw.dyngraph.slab_port.SlabPort` does for the pool).
"""

from amaranth.hdl import C, Cat, Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import WORDS_PER_LINE, MemoryPortSignature, line_request_layout
from hw.lib.stream.fifo import StreamFIFO


__all__ = ["VertexTable", "table_request_layout", "table_answer_layout"]

WORD_SHIFT = WORDS_PER_LINE.bit_length() - 1


def table_request_layout(ctx_shape) -> data.StructLayout:
    return data.StructLayout({"write": 1, "vertex": 32, "word": 32, "ctx": ctx_shape})


def table_answer_layout(ctx_shape) -> data.StructLayout:
    return data.StructLayout({"word": 32, "ctx": ctx_shape})


class VertexTable(wiring.Component):
    """Reads (answered in order, with their ``ctx``) and word writes of the vertex table.

    Responses are taken the cycle they arrive (a landing queue with room for every read in
    flight; see :class:`hw.lib.memory.word_lookup.WordLookup`).

    Parameters
    ----------
    addr_width : int
    ctx_shape : shape-like
    depth : int
        Reads in flight at most.

    Members
    -------
    base : ``In(addr_width)``
    requests : ``In(stream.Signature(table_request_layout(ctx_shape)))``
    answers : ``Out(stream.Signature(table_answer_layout(ctx_shape)))``
    busy : ``Out(1)``
    mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int, ctx_shape, depth: int = 32):
        check_int("VertexTable", "addr_width", addr_width, high=32)
        check_int("VertexTable", "depth", depth)
        self._addr_width = addr_width
        self._ctx_shape = ctx_shape
        self._depth = depth
        super().__init__({
            "base": In(addr_width),
            "requests": In(stream.Signature(table_request_layout(ctx_shape))),
            "answers": Out(stream.Signature(table_answer_layout(ctx_shape))),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(self._addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        aw = self._addr_width
        m.submodules.queue = queue = StreamFIFO(line_request_layout(aw), 2)
        m.submodules.in_flight = in_flight = StreamFIFO(self._ctx_shape, self._depth,
                                                        buffered=self._depth > 16)
        # The word's place in its line, for each read sent, in order.
        m.submodules.slots = slots = StreamFIFO(WORD_SHIFT, self._depth)
        m.submodules.words = words = StreamFIFO(32, self._depth, buffered=self._depth > 16)
        wiring.connect(m, queue.o, wiring.flipped(self.mem.req))
        request = self.requests.payload
        slot = request.vertex[:WORD_SHIFT]
        m.d.comb += [
            queue.i.payload.addr.eq(self.base + (request.vertex >> WORD_SHIFT)[:aw]),
            queue.i.payload.write.eq(request.write),
            queue.i.payload.wdata.eq(Cat(*[request.word] * WORDS_PER_LINE)),
            queue.i.payload.wmask.eq((C(0xF, 4) << (slot << 2))[:64]),
            in_flight.i.payload.eq(request.ctx),
            slots.i.payload.eq(slot),
        ]
        with m.If(request.write):
            m.d.comb += [queue.i.valid.eq(self.requests.valid),
                         self.requests.ready.eq(queue.i.ready)]
        with m.Else():
            room = in_flight.i.ready & slots.i.ready
            m.d.comb += [queue.i.valid.eq(self.requests.valid & room),
                         in_flight.i.valid.eq(self.requests.valid & queue.i.ready & room),
                         slots.i.valid.eq(self.requests.valid & queue.i.ready & room),
                         self.requests.ready.eq(queue.i.ready & room)]
        # Responses come in order; ``words`` never holds more than ``in_flight`` does.
        m.d.comb += [
            words.i.valid.eq(self.mem.resp.valid),
            words.i.payload.eq(self.mem.resp.payload.rdata.word_select(slots.o.payload, 32)),
            self.mem.resp.ready.eq(words.i.ready),
            slots.o.ready.eq(self.mem.resp.valid & words.i.ready),
            self.answers.valid.eq(in_flight.o.valid & words.o.valid),
            self.answers.payload.word.eq(words.o.payload),
            self.answers.payload.ctx.eq(in_flight.o.payload),
            in_flight.o.ready.eq(self.answers.ready & words.o.valid),
            words.o.ready.eq(self.answers.ready & in_flight.o.valid),
        ]
        m.d.comb += self.busy.eq(in_flight.o.valid | queue.o.valid)
        return m

