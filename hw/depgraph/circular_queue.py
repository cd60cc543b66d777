"""An engine's circular queue of active vertex ids (DepGraph, Zhang et al., HPCA 2021, §III-B:
the "local circular queue" each core keeps in memory).

The ring of ``lines`` lines lives in memory; on chip are a tail buffer of one line that pushes
fill, a head buffer of one line that pops drain, and a few lines read ahead of the head. A
full tail line is written to the ring; an empty head takes the oldest line read back, or,
when no whole line is in memory, the tail's ids directly, so an id never waits for fifteen
more.
"""

from amaranth.hdl import Module, Mux, ResetInserter, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import (LINE_LANES, LINE_BITS, LINE_BYTES, WORDS_PER_LINE,
                                MemoryPortSignature)
from hw.lib.stream.fifo import StreamFIFO


__all__ = ["CircularQueue"]


class CircularQueue(wiring.Component):
    """A FIFO of vertex ids of capacity ``16 * lines``, kept in memory.

    Pushes lose one cycle per line written; pops keep up with the memory as long as
    ``prefetch_lines`` lines read ahead cover its latency (16 pops per line).

    Parameters
    ----------
    addr_width : int
    lines : int
        Lines of the ring in memory (at least 2).
    prefetch_lines : int
        Lines read ahead of the head buffer (in flight or waiting on chip).

    Members
    -------
    base : ``In(addr_width)``
        First line of the ring; constant during a run.
    start : ``In(1)``
        Pulse: empty the queue; clears ``overflow`` and the counters. A push in the same cycle
        is the first id of the emptied queue. Reads still in flight are dropped on arrival.
    push : ``In(stream.Signature(32))``
    pop : ``Out(stream.Signature(32))``
        The pushed ids in order; the payload is a register.
    mem : ``Out(MemoryPortSignature(addr_width))``
    level : ``Out(32)``
        Ids held (tail buffer, ring, lines in flight or read ahead, head buffer).
    busy : ``Out(1)``
        Ids held or memory traffic in flight.
    overflow : ``Out(1)``
        Sticky: a push arrived while ``level`` was the capacity; that id was dropped.
    line_writes, line_reads : ``Out(32)``
        Memory requests since ``start``.
    """

    def __init__(self, *, addr_width: int, lines: int, prefetch_lines: int = 2):
        check_int("CircularQueue", "addr_width", addr_width, high=32)
        if lines < 2:
            raise ConfigError(f"CircularQueue: lines must be at least 2, not {lines!r}")
        if prefetch_lines < 1:
            raise ConfigError("CircularQueue: prefetch_lines must be at least 1, not "
                              f"{prefetch_lines!r}")
        self._addr_width = addr_width
        self._lines = lines
        self._prefetch_lines = prefetch_lines
        super().__init__({
            "base": In(addr_width),
            "start": In(1),
            "push": In(stream.Signature(32)),
            "pop": Out(stream.Signature(32)),
            "mem": Out(MemoryPortSignature(addr_width)),
            "level": Out(32),
            "busy": Out(1),
            "overflow": Out(1),
            "line_writes": Out(32),
            "line_reads": Out(32),
        })

    @property
    def capacity(self) -> int:
        """Ids held at most: ``16 * lines``."""
        return WORDS_PER_LINE * self._lines

    def _request_register(self, m, tail):
        """One request at a time, its address in a register; a write's data is the tail,
        which pushes leave alone until it is accepted. Returns the request's valid, write
        and address registers and whether it is accepted in this cycle."""
        req_valid = Signal()
        req_write = Signal()
        req_addr = Signal(self._addr_width)
        m.d.comb += [
            self.mem.req.valid.eq(req_valid),
            self.mem.req.payload.addr.eq(req_addr),
            self.mem.req.payload.write.eq(req_write),
            self.mem.req.payload.wdata.eq(tail),
            self.mem.req.payload.wmask.eq((1 << LINE_BYTES) - 1),
        ]
        accepted = req_valid & self.mem.req.ready
        with m.If(accepted):
            m.d.sync += req_valid.eq(0)
        return req_valid, req_write, req_addr, accepted

    def _count_level(self, m, pushed, popped):
        """``level``, ``full`` (level == capacity, a register) and ``overflow``. Returns
        ``full`` and whether a push is kept."""
        full = Signal()
        kept = pushed & ~full
        m.d.sync += self.level.eq(self.level + kept - popped)
        with m.If(kept & ~popped):
            m.d.sync += full.eq(self.level == self.capacity - 1)
        with m.Elif(popped):
            m.d.sync += full.eq(0)
        with m.If(pushed & full):
            m.d.sync += self.overflow.eq(1)
        return full, kept

    def elaborate(self, platform):
        m = Module()
        lines, prefetch = self._lines, self._prefetch_lines

        # The lines read ahead; emptied by ``start``.
        landing = StreamFIFO(LINE_BITS, prefetch, lanes=LINE_LANES)
        m.submodules.landing = ResetInserter(self.start)(landing)

        tail = Signal(LINE_BITS)
        tail_count = _CountWithFlags(m, "tail_count", WORDS_PER_LINE)
        head = Signal(LINE_BITS)             # id 0 at bits 0..31: shifts down on a pop
        head_count = _CountWithFlags(m, "head_count", WORDS_PER_LINE)
        stored = Signal(range(lines + 1))    # lines in the ring not yet requested
        behind = _CountWithFlags(m, "behind", lines + prefetch)  # lines not yet in the head
        write_index = Signal(range(lines))
        read_index = Signal(range(lines))
        outstanding = Signal(range(prefetch + 1))  # reads requested, response not yet in
        stale = Signal(range(prefetch + 1))  # of which issued before ``start``: dropped

        req_valid, req_write, req_addr, accepted = self._request_register(m, tail)
        write_pending = req_valid & req_write

        arrived = self.mem.resp.valid & self.mem.resp.ready
        m.d.comb += [
            landing.i.payload.eq(self.mem.resp.payload.rdata),
            landing.i.valid.eq(self.mem.resp.valid & (stale == 0)),
            self.mem.resp.ready.eq((stale != 0) | landing.i.ready),
        ]

        pushed = self.push.valid & self.push.ready
        popped = self.pop.valid & self.pop.ready
        full, kept = self._count_level(m, pushed, popped)
        m.d.comb += [
            self.push.ready.eq(~tail_count.is_full & ~write_pending),
            self.pop.valid.eq(~head_count.is_zero),
            self.pop.payload.eq(head[:32]),
            self.busy.eq(any_busy(self.level, req_valid, outstanding)),
        ]

        # Head side: the oldest line read back, else (nothing older in memory or on its way)
        # the tail as it stands.
        head_free = head_count.is_zero | (head_count.is_one & self.pop.ready)
        load_line = head_free & landing.o.valid
        # ``behind`` counts a line from its write request on, so the tail being written is
        # never taken.
        bypass = head_free & behind.is_zero & ~tail_count.is_zero
        m.d.comb += landing.o.ready.eq(load_line)
        with m.If(load_line):
            m.d.sync += head.eq(landing.o.payload)
            m.d.comb += head_count.next.eq(WORDS_PER_LINE)
        with m.Elif(bypass):
            m.d.sync += head.eq(tail)
            m.d.comb += head_count.next.eq(tail_count.value)
        with m.Elif(popped):
            m.d.sync += head.eq(head >> 32)
            m.d.comb += head_count.next.eq(head_count.value - 1)

        with m.If(bypass):
            m.d.sync += tail.word_select(0, 32).eq(self.push.payload)
            m.d.comb += tail_count.next.eq(kept)
        with m.Elif(kept):
            m.d.sync += tail.word_select(tail_count.value[:4], 32).eq(self.push.payload)
            m.d.comb += tail_count.next.eq(tail_count.value + 1)
        with m.Elif(accepted & req_write):
            m.d.comb += tail_count.next.eq(0)

        # A full tail line that the head does not take goes to the ring; else read ahead.
        # There is always a free line for the write: the ids held, at most 16 * lines, fill
        # the lines requested and not yet returned, those stored, and the full tail.
        # The write is issued by the push that fills the line, so only one push cycle is lost.
        tail_filled = (tail_count.is_full |
                       (self.push.valid & ~full & tail_count.is_last_but_one))
        issue_write = ~self.start & ~req_valid & tail_filled & ~bypass
        issue_read = (~self.start & ~req_valid & ~tail_filled & (stored != 0) &
                      (outstanding + landing.level < prefetch))
        behind.step(m, up=issue_write, down=load_line, clear=self.start)
        with m.If(issue_write):
            m.d.sync += [req_valid.eq(1), req_write.eq(1), req_addr.eq(self.base + write_index),
                         write_index.eq(_next(write_index, lines)), stored.eq(stored + 1),
                         self.line_writes.eq(self.line_writes + 1)]
        with m.Elif(issue_read):
            m.d.sync += [req_valid.eq(1), req_write.eq(0), req_addr.eq(self.base + read_index),
                         read_index.eq(_next(read_index, lines)), stored.eq(stored - 1),
                         self.line_reads.eq(self.line_reads + 1)]
        m.d.sync += outstanding.eq(outstanding + issue_read - arrived)
        with m.If(arrived & (stale != 0)):
            m.d.sync += stale.eq(stale - 1)

        with m.If(self.start):
            m.d.comb += [tail_count.next.eq(pushed), head_count.next.eq(0)]
            m.d.sync += [
                self.level.eq(pushed), tail.word_select(0, 32).eq(self.push.payload),
                stored.eq(0), full.eq(0),
                write_index.eq(0), read_index.eq(0),
                stale.eq(outstanding - arrived), outstanding.eq(outstanding - arrived),
                self.overflow.eq(0), self.line_writes.eq(0), self.line_reads.eq(0),
            ]
        return m


class _CountWithFlags:
    """A counter whose comparisons with 0, 1, ``top - 1`` and ``top`` are registers, worked
    out from its next value: the queue's line registers (512 bits each) are clocked on
    decisions made from these, and a compare of the count itself took two LUT levels more on
    the way to a clock enable spread across the chip (once the two-engine ECP5 build's
    critical path: docs/results.md). Assign ``next`` in the comb domain; it holds otherwise."""

    def __init__(self, m, name, top):
        self.value = Signal(range(top + 1), name=name)
        self.next = Signal(range(top + 1), name=f"{name}_next")
        self.is_zero = Signal(name=f"{name}_is_zero", init=1)
        self.is_one = Signal(name=f"{name}_is_one")
        self.is_last_but_one = Signal(name=f"{name}_is_last_but_one", init=top == 1)
        self.is_full = Signal(name=f"{name}_is_full")
        m.d.comb += self.next.eq(self.value)
        m.d.sync += [self.value.eq(self.next), self.is_zero.eq(self.next == 0),
                     self.is_one.eq(self.next == 1),
                     self.is_last_but_one.eq(self.next == top - 1),
                     self.is_full.eq(self.next == top)]

    def step(self, m, *, up, down, clear):
        """Count ``up`` and ``down`` (0 on ``clear``), with ``is_zero`` worked out from the
        count and the steps, not through the adder: the adder's carry chain then the compare
        were the next critical path (docs/results.md). This rule
        replaces the one ``__init__`` gives ``is_zero`` (the later assignment wins); the other
        flags still follow ``next``."""
        with m.If(clear):
            m.d.comb += self.next.eq(0)
        with m.Else():
            m.d.comb += self.next.eq(self.value + up - down)
        m.d.sync += self.is_zero.eq(clear | ((self.value == 0) & (up == down)) |
                                    ((self.value == 1) & down & ~up))


def _next(index, lines):
    return Mux(index == lines - 1, 0, index + 1)
