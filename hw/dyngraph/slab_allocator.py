"""The slab allocator: a stack of free slab indices in memory (the slab hash's allocator hands
out 128-byte slabs from a pool; Ashkiani et al.'s SlabAlloc keeps bitmaps per warp, here one
unit serves every request, which are rare: one per 15 inserts into a full chain).

A request pops the top index, writes the slab empty with its owner (and the new pair in cell
0 for an edge insert), and links it after the chain's last slab; with the stack empty the
request is refused and nothing is written. Freed slabs (a deleted vertex's) are pushed.
"""

from amaranth.hdl import C, Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import WORDS_PER_LINE, MemoryPortSignature
from .layouts import EMPTY_KEY, NULL_SLAB, AllocRequest, Outcome, Retire, SlabWrite


__all__ = ["SlabAllocator", "Grant"]

WORD_SHIFT = WORDS_PER_LINE.bit_length() - 1

# A vertex's new table slab (``ok`` 0: the pool is empty).
Grant = data.StructLayout({"ok": 1, "slab": 32})


class SlabAllocator(wiring.Component):
    """Parameters
    ----------
    addr_width : int
    plenty : int
        The ``plenty`` flag's threshold.

    Members
    -------
    stack_base : ``In(addr_width)``
    start_top : ``In(32)``; restart : ``In(1)``
        Free slabs at the start of a run, taken on ``restart``.
    top : ``Out(32)``
        Free slabs now.
    plenty : ``Out(1)``
        ``top >= plenty`` (a register beside ``top``).
    requests : ``In(stream.Signature(AllocRequest))``
    frees : ``In(stream.Signature(32))``
        Slabs given back (pushed).
    writes : ``Out(stream.Signature(SlabWrite))``
        The new slab's two lines, then the link (which releases an edge insert's bucket; a
        refused edge insert sends the release alone).
    retire : ``Out(stream.Signature(Retire))``
        An edge insert's end (inserted or refused), after its writes.
    granted : ``Out(stream.Signature(Grant))``
        A vertex table's slab, after its writes.
    allocations, failures, pushes : ``Out(32)``
    busy : ``Out(1)``
    mem : ``Out(MemoryPortSignature(addr_width))``
        The stack.
    """

    def __init__(self, *, addr_width: int, plenty: int = 1):
        check_int("SlabAllocator", "addr_width", addr_width, high=32)
        check_int("SlabAllocator", "plenty", plenty)
        self._addr_width = addr_width
        self._plenty = plenty
        super().__init__({
            "stack_base": In(addr_width),
            "start_top": In(32),
            "restart": In(1),
            "top": Out(32),
            "plenty": Out(1),
            "requests": In(stream.Signature(AllocRequest)),
            "frees": In(stream.Signature(32)),
            "writes": Out(stream.Signature(SlabWrite)),
            "retire": Out(stream.Signature(Retire)),
            "granted": Out(stream.Signature(Grant)),
            "allocations": Out(32),
            "failures": Out(32),
            "pushes": Out(32),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)),
        })

    def _stack_line(self, index):
        return self.stack_base + (index >> WORD_SHIFT)[:self._addr_width]

    def _payloads(self, m, slab, ok):
        """The outputs' payloads; returns the new slab's two lines (cell 0 the pair of an
        edge insert, the owner and a null link in the last cell)."""
        request = self.requests.payload
        empty_pair = Cat(C(EMPTY_KEY, 32), C(0, 32))
        line0 = Signal(512)
        line1 = Signal(512)
        m.d.comb += [
            line0.eq(Cat(request.key, request.value, *[empty_pair] * 7)),
            line1.eq(Cat(*[empty_pair] * 7, request.vertex, C(NULL_SLAB, 32))),
        ]
        with m.If(~request.pair):
            m.d.comb += line0.eq(Cat(*[empty_pair] * 8))
        write = self.writes.payload
        m.d.comb += [write.vertex.eq(request.vertex), write.lock.eq(request.lock),
                     write.slab.eq(slab),
                     write.mask.eq(C((1 << 64) - 1, 64))]
        outcome = self.retire.payload
        # Every field driven unconditionally: a payload with constant bits beside
        # conditional ones becomes a Verilog process that reads nothing (Verilator: ALWNEVER).
        m.d.comb += [outcome.outcome.eq(Mux(ok, Outcome.INSERTED, Outcome.REFUSED_INSERTS)),
                     outcome.answer.index.eq(request.answer)]
        m.d.comb += [self.granted.payload.ok.eq(ok), self.granted.payload.slab.eq(slab)]
        return line0, line1

    def _idle(self, m, ok, top_zero):
        """IDLE: a freed slab is pushed first; a request pops, or is refused on an empty
        stack."""
        with m.If(self.frees.valid):
            m.d.comb += [
                self.mem.req.valid.eq(1),
                self.mem.req.payload.addr.eq(self._stack_line(self.top)),
                self.mem.req.payload.write.eq(1),
                self.mem.req.payload.wdata.eq(Cat(*[self.frees.payload] * 16)),
                self.mem.req.payload.wmask.eq(
                    (C(0xF, 4) << (self.top[:WORD_SHIFT] << 2))[:64]),
                self.frees.ready.eq(self.mem.req.ready),
            ]
            with m.If(self.mem.req.ready):
                m.d.sync += [self.top.eq(self.top + 1), top_zero.eq(0),
                             self.plenty.eq(self.top + 1 >= self._plenty),
                             self.pushes.eq(self.pushes + 1)]
        with m.Elif(self.requests.valid & top_zero):
            m.d.sync += [ok.eq(0), self.failures.eq(self.failures + 1)]
            m.next = "RELEASE"
        with m.Elif(self.requests.valid):
            m.d.comb += [self.mem.req.valid.eq(1),
                         self.mem.req.payload.addr.eq(self._stack_line(self.top - 1))]
            with m.If(self.mem.req.ready):
                m.d.sync += [self.top.eq(self.top - 1), top_zero.eq(self.top == 1),
                             self.plenty.eq(self.top > self._plenty)]
                m.next = "POP"

    def elaborate(self, platform):
        m = Module()
        request = self.requests.payload
        slab = Signal(32)
        ok = Signal()
        # ``top == 0`` and ``plenty``, kept beside ``top`` (registers, not compares in the
        # paths to the memory request and to the lock stage's choice).
        top_zero = Signal(init=1)
        with m.If(self.restart):
            m.d.sync += [self.top.eq(self.start_top), top_zero.eq(self.start_top == 0),
                         self.plenty.eq(self.start_top >= self._plenty)]
        line0, line1 = self._payloads(m, slab, ok)
        write = self.writes.payload

        with m.FSM():
            with m.State("IDLE"):
                self._idle(m, ok, top_zero)
            with m.State("POP"):
                m.d.comb += self.mem.resp.ready.eq(1)
                with m.If(self.mem.resp.valid):
                    m.d.sync += [slab.eq(self.mem.resp.payload.rdata.word_select(
                                     self.top[:WORD_SHIFT], 32)),
                                 ok.eq(1), self.allocations.eq(self.allocations + 1)]
                    m.next = "LINE0"
            with m.State("LINE0"):
                m.d.comb += [self.writes.valid.eq(1), write.write.eq(1), write.line.eq(0),
                             write.data.eq(line0)]
                with m.If(self.writes.ready):
                    m.next = "LINE1"
            with m.State("LINE1"):
                m.d.comb += [self.writes.valid.eq(1), write.write.eq(1), write.line.eq(1),
                             write.data.eq(line1)]
                with m.If(self.writes.ready):
                    with m.If(request.pair):
                        m.next = "RELEASE"
                    with m.Else():
                        m.next = "GRANT"
            with m.State("RELEASE"):
                # The link, with the insert's release; a refused insert releases alone.
                m.d.comb += [
                    self.writes.valid.eq(request.pair),
                    write.write.eq(ok),
                    write.release.eq(1),
                    write.slab.eq(request.last),
                    write.line.eq(1),
                    write.data.eq(Cat(*[slab] * 16)),
                    write.mask.eq(C(0xF << 60, 64)),
                ]
                with m.If(~request.pair):
                    m.next = "GRANT"
                with m.Elif(self.writes.ready):
                    m.next = "RETIRE"
            with m.State("RETIRE"):
                m.d.comb += self.retire.valid.eq(1)
                with m.If(self.retire.ready):
                    m.d.comb += self.requests.ready.eq(1)
                    m.next = "IDLE"
            with m.State("GRANT"):
                m.d.comb += self.granted.valid.eq(1)
                with m.If(self.granted.ready):
                    m.d.comb += self.requests.ready.eq(1)
                    m.next = "IDLE"
        m.d.comb += self.busy.eq(self.requests.valid | self.frees.valid)
        return m
