"""Random reads of single words of an array, many in flight: the status checks of BFS
(Enterprise §2.1: each neighbour's entry of the status array in global memory), a 64-byte
line read for each 4-byte word, as :class:`hw.graphicionado.random_vertex_read.
RandomVertexRead` reads a destination's property.
"""

from amaranth.hdl import Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import WORDS_PER_LINE, MemoryPortSignature
from hw.lib.stream.fifo import StreamFIFO


__all__ = ["WordLookup", "lookup_in_layout", "lookup_out_layout"]

WORD_SHIFT = WORDS_PER_LINE.bit_length() - 1


def lookup_in_layout(ctx_width: int) -> data.StructLayout:
    return data.StructLayout({"index": 32, "ctx": max(ctx_width, 1)})


def lookup_out_layout(ctx_width: int) -> data.StructLayout:
    return data.StructLayout({"word": 32, "index": 32, "ctx": max(ctx_width, 1)})


class WordLookup(wiring.Component):
    """Word ``index`` of the array at line ``base``, for each request, in request order.

    Every response is taken the cycle it comes: its word lands in a queue with room for every
    read in flight, whatever the consumer does. A client that could refuse a response would
    hold up the shared memory's response channel, and when its consumer in turn waits for
    memory (a bottom-up search's next read, a discovery's write), the memory's outstanding
    reads never drain: a deadlock (found by ``make soak`` with 16 reads outstanding).

    Parameters
    ----------
    addr_width : int
    ctx_width : int
        Bits carried from a request to its answer.
    outstanding : int
        Requests in flight at most: the depth of the queue that holds them while their
        lines are on their way (above the memory latency for a read a cycle).

    Members
    -------
    base : ``In(addr_width)``
    i : ``In(stream.Signature(lookup_in_layout(ctx_width)))``
    o : ``Out(stream.Signature(lookup_out_layout(ctx_width)))``
    busy : ``Out(1)``
    reads : ``Out(32)``
        Lines read since reset.
    mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int, ctx_width: int = 1, outstanding: int = 128):
        check_int("WordLookup", "addr_width", addr_width, high=32)
        check_int("WordLookup", "ctx_width", ctx_width, low=0)
        if outstanding < 1:
            raise ConfigError(f"WordLookup: outstanding must be at least 1, not "
                              f"{outstanding!r}")
        self._addr_width = addr_width
        self._ctx_width = ctx_width
        self._outstanding = outstanding
        super().__init__({
            "base": In(addr_width),
            "i": In(stream.Signature(lookup_in_layout(ctx_width))),
            "o": Out(stream.Signature(lookup_out_layout(ctx_width))),
            "busy": Out(1),
            "reads": Out(32),
            "mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        layout = lookup_in_layout(self._ctx_width)
        m.submodules.in_flight = in_flight = StreamFIFO(
            layout, self._outstanding, buffered=self._outstanding > 16)
        # The line address waits in a queue of its own, so the input's ready never comes
        # from the memory and the adder ends in a register.
        m.submodules.requests = requests = StreamFIFO(self._addr_width, 2)
        # The word's place in its line, for each read sent, in order.
        m.submodules.response_slot = response_slot = StreamFIFO(
            WORD_SHIFT, self._outstanding, buffered=False)
        # The words leave from a register at any depth: the consumer's compare of the word
        # (a BFS check's test of the level) then does not follow the queue's read.
        m.submodules.words = words = StreamFIFO(32, self._outstanding, buffered=True)
        m.d.comb += [
            in_flight.i.payload.eq(self.i.payload),
            requests.i.payload.eq(self.base + (self.i.payload.index >> WORD_SHIFT)),
            response_slot.i.payload.eq(self.i.payload.index[:WORD_SHIFT]),
            in_flight.i.valid.eq(self.i.valid & requests.i.ready & response_slot.i.ready),
            requests.i.valid.eq(self.i.valid & in_flight.i.ready & response_slot.i.ready),
            response_slot.i.valid.eq(self.i.valid & in_flight.i.ready & requests.i.ready),
            self.i.ready.eq(in_flight.i.ready & requests.i.ready & response_slot.i.ready),
            self.mem.req.valid.eq(requests.o.valid),
            self.mem.req.payload.addr.eq(requests.o.payload),
            self.mem.req.payload.write.eq(0),
            requests.o.ready.eq(self.mem.req.ready),
        ]
        with m.If(self.mem.req.valid & self.mem.req.ready):
            m.d.sync += self.reads.eq(self.reads + 1)
        # A request leaves ``in_flight`` only with its word, so ``words`` never holds more
        # than ``in_flight`` does: it always has room for the next response.
        m.d.comb += [
            words.i.valid.eq(self.mem.resp.valid),
            words.i.payload.eq(self.mem.resp.payload.rdata.word_select(
                response_slot.o.payload, 32)),
            self.mem.resp.ready.eq(words.i.ready),
            response_slot.o.ready.eq(self.mem.resp.valid & words.i.ready),
        ]
        head = in_flight.o.payload
        m.d.comb += [
            self.o.valid.eq(in_flight.o.valid & words.o.valid),
            self.o.payload.word.eq(words.o.payload),
            self.o.payload.index.eq(head.index),
            self.o.payload.ctx.eq(head.ctx),
            in_flight.o.ready.eq(self.o.ready & words.o.valid),
            words.o.ready.eq(self.o.ready & in_flight.o.valid),
        ]
        m.d.comb += self.busy.eq(any_busy(in_flight.level))
        return m
