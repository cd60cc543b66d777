"""Joins line requests of a memory port that continue each other into bursts.

The first stage of :class:`hw.lib.axi.master.AXI4Master`. Up to ``open_bursts`` read bursts
are open at once (bursts of either kind: one per tag for reads, one write burst), so
clients whose requests come interleaved on one port (each reading lines in order, on its own
tag) still form bursts. A request joins the open burst it continues (same kind, next line, a
read's same tag, not the first line of a 4 KiB page, the burst not full); otherwise it opens
a burst in a free place.

An open burst is offered once no request continues it in a cycle and one of these holds: it
is no stream's (it does not start where one of the last ``open_bursts`` bursts to leave,
of its kind and tag, ended: random and dependent accesses are never held) or it has been
open ``hold`` cycles, no request waits at the input (so a lone request is never held back),
it is full or ends a page, the waiting request needs it gone (a read of its tag, a write
that does not continue the write burst, a write to a line it reads, or no free place). At
most one burst is offered at a time, and once
offered it takes no more lines (its payload is held until taken, the stream rules).

Bursts leave in request order wherever order matters, so that
:class:`~hw.lib.axi.master.AXI4Master`'s checks of bursts in flight see a read and a write
of one line in the order they came: a tag has one open read burst at a time and writes one;
a read burst that took a line while a write burst was open leaves after it (the write came
before that line), and the write burst writes none of the lines read before it (a write to a
line an open read burst reads waits until that read burst has left, after the write burst). Only reads of
different tags, and a read and a write of different lines, may leave in another order than
they came, which the memory port allows.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_BITS, LINE_BYTES, mem_request_layout
from hw.lib.axi.signature import PAGE_BYTES


__all__ = ["burst_layout", "write_line_layout", "BurstMerger", "MAX_OPEN_BURSTS", "MAX_HOLD"]

PAGE_LINES = PAGE_BYTES // LINE_BYTES
MAX_OPEN_BURSTS = 16
MAX_HOLD = 255


def burst_layout(addr_width: int, tag_width: int, max_lines: int) -> data.StructLayout:
    """A burst of lines: ``addr`` its first line address, ``len`` the lines less one (as
    AXI's ``AxLEN`` counts beats), ``write``, ``tag`` (of a read)."""
    return data.StructLayout({"addr": addr_width, "len": range(max_lines), "write": 1,
                              "tag": tag_width})


def write_line_layout() -> data.StructLayout:
    """A line to write: ``wdata`` and its byte enables ``wmask``."""
    return data.StructLayout({"wdata": LINE_BITS, "wmask": LINE_BYTES})


class BurstMerger(wiring.Component):
    """Line requests in, bursts and the lines they write out.

    Parameters
    ----------
    addr_width, tag_width : int
        Of the memory port (line address; tag of a read).
    max_lines : int
        Lines in a burst at most: 1 to 64 (a 4 KiB page).
    max_write_lines : int
        Lines in a write burst at most (1 to ``max_lines``): no more than the write-line
        queue behind ``lines`` holds, since a write burst's lines wait there until its
        address is sent.
    open_bursts : int
        Bursts open at once, 1 to 16 (a read burst per tag, one write burst; with one, only
        requests that come back to back join).
    hold : int
        Cycles a stream's burst (one that starts where a burst of its kind and tag that left
        before ended) stays open for its next line while other requests keep coming, 0 to
        255 (0: offered the first cycle nothing continues it, as every other burst is).

    Members
    -------
    i : ``In(stream.Signature(mem_request_layout(addr_width, tag_width)))``
    bursts : ``Out(stream.Signature(burst_layout(addr_width, tag_width, max_lines)))``
        In request order but for reads of different tags, and reads and writes of
        different lines.
    lines : ``Out(stream.Signature(write_line_layout()))``
        A write request's line, handed on as the request is taken (a write is taken only
        when ``lines`` takes its line).
    busy : ``Out(1)``
        A burst is open or offered.
    writing : ``Out(1)``
        A write burst is open or offered.
    """

    def __init__(self, *, addr_width: int, tag_width: int, max_lines: int,
                 max_write_lines: int, open_bursts: int = 1, hold: int = 0):
        check_int("BurstMerger", "addr_width", addr_width, high=32)
        check_int("BurstMerger", "tag_width", tag_width, high=16)
        check_int("BurstMerger", "max_lines", max_lines, high=PAGE_LINES)
        check_int("BurstMerger", "max_write_lines", max_write_lines, high=max_lines)
        check_int("BurstMerger", "open_bursts", open_bursts, high=MAX_OPEN_BURSTS)
        check_int("BurstMerger", "hold", hold, low=0, high=MAX_HOLD)
        self._addr_width, self._max_lines = addr_width, max_lines
        self._max_write_lines = max_write_lines
        self._open, self._hold = open_bursts, hold
        super().__init__({
            "i": In(stream.Signature(mem_request_layout(addr_width, tag_width))),
            "bursts": Out(stream.Signature(burst_layout(addr_width, tag_width, max_lines))),
            "lines": Out(stream.Signature(write_line_layout())),
            "busy": Out(1),
            "writing": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n, req = self._open, self.i.payload
        slots = [Signal(self.bursts.payload.shape(), name=f"burst{k}") for k in range(n)]
        is_open = Signal(n)
        age = [Signal(range(self._hold + 1), name=f"age{k}") for k in range(n)]
        locked = Signal()                   # offered and not taken at the last edge
        locked_slot = Signal(range(n))
        after_write = Signal(n)             # a read burst took a line beside a write burst
        streaming = Signal(n)               # started where a stream's last burst ended
        m.d.comb += [self.busy.eq(is_open.any()),
                     self.writing.eq(Cat(is_open[k] & slots[k].write for k in range(n)).any())]

        new_page = req.addr[:6] == 0 if self._addr_width > 6 else 0
        owns, overlaps, joins, blocks, ready_to_go, free = (Signal(n, name=name) for name in (
            "owns", "overlaps", "joins", "blocks", "ready_to_go", "free"))
        for k, burst in enumerate(slots):
            # One bit wider than a line address, so the line after the last does not wrap.
            following = Signal(self._addr_width + 1, name=f"following{k}")
            room = Signal(name=f"room{k}")
            m.d.comb += [
                following.eq(burst.addr + burst.len + 1),
                room.eq(burst.len + 1 < Mux(burst.write, self._max_write_lines,
                                            self._max_lines)),
                # The open burst of the request's stream: the write burst, or its tag's.
                owns[k].eq(is_open[k] & (req.write == burst.write) &
                           (req.write | (req.tag == burst.tag))),
                # A write request to a line an open read burst reads.
                overlaps[k].eq(is_open[k] & ~burst.write & req.write &
                               (burst.addr <= req.addr) & (req.addr < following)),
                joins[k].eq(self.i.valid & owns[k] & ~(locked & (locked_slot == k)) & room &
                            ~new_page & (req.addr == following) & ~overlaps.any()),
                # Open bursts that must leave before the waiting request starts: its own
                # stream's; for a write to a line an open read reads, those reads and the
                # write burst (which leaves first).
                blocks[k].eq(self.i.valid & ~joins.any() & is_open[k] &
                             (owns[k] | overlaps[k] | (overlaps.any() & burst.write))),
            ]
            ends_page = following[:6] == 0 if self._addr_width > 6 else 0
            # A read burst that took a line while a write burst was open leaves after it
            # (the line may be one the write writes); the write burst then leaves at once
            # when such a read burst must go.
            m.d.comb += ready_to_go[k].eq(
                is_open[k] & ~joins[k] & ~after_write[k] &
                ((age[k] == self._hold) | ~streaming[k] | ~self.i.valid | ~room | ends_page |
                 blocks[k] |
                 (self.i.valid & ~joins.any() & is_open.all()) |
                 (burst.write & (blocks & after_write).any())))
        chosen = Signal(range(n))
        for k in reversed(range(n)):
            with m.If(ready_to_go[k]):
                m.d.comb += chosen.eq(k)
        offered = Signal(range(n))
        m.d.comb += [
            offered.eq(Mux(locked, locked_slot, chosen)),
            self.bursts.valid.eq(locked | ready_to_go.any()),
        ]
        for k in range(n):
            with m.If(offered == k):
                m.d.comb += self.bursts.payload.eq(slots[k])
        m.d.sync += [locked.eq(self.bursts.valid & ~self.bursts.ready), locked_slot.eq(offered)]
        leaving = Signal(n)
        m.d.comb += leaving.eq(Mux(self.bursts.valid & self.bursts.ready, 1 << offered, 0))

        # A request that continues no open burst starts one once those it waits for leave.
        m.d.comb += free.eq(~is_open | leaving)
        place = Signal(range(n))
        for k in reversed(range(n)):
            with m.If(free[k]):
                m.d.comb += place.eq(k)
        starts = Signal()
        m.d.comb += starts.eq(~joins.any() & ~(blocks & ~leaving).any() & free.any())
        m.d.comb += [
            self.i.ready.eq((joins.any() | starts) & (~req.write | self.lines.ready)),
            self.lines.valid.eq(self.i.valid & req.write & (joins.any() | starts)),
            self.lines.payload.wdata.eq(req.wdata),
            self.lines.payload.wmask.eq(req.wmask),
        ]
        taken = self.i.valid & self.i.ready
        continues = self._continues_a_stream(m, leaving.any())
        write_leaves = Cat(leaving[k] & slots[k].write for k in range(n)).any()
        with m.If(write_leaves):
            m.d.sync += after_write.eq(0)
        with m.Elif(taken & ~req.write & self.writing):
            m.d.sync += after_write.eq(after_write |
                                       Mux(joins.any(), joins, 1 << place))
        for k, burst in enumerate(slots):
            with m.If(is_open[k] & (age[k] != self._hold)):
                m.d.sync += age[k].eq(age[k] + 1)
            with m.If(taken & joins[k]):
                m.d.sync += burst.len.eq(burst.len + 1)
            with m.Elif(taken & ~joins.any() & (place == k)):
                m.d.sync += [burst.addr.eq(req.addr), burst.len.eq(0),
                             burst.write.eq(req.write), burst.tag.eq(req.tag),
                             is_open[k].eq(1), age[k].eq(0), streaming[k].eq(continues)]
            with m.Elif(leaving[k]):
                m.d.sync += is_open[k].eq(0)
        return m

    def _continues_a_stream(self, m, leaves):
        """Where the last ``open_bursts`` bursts to leave ended, in a ring (``leaves``: the
        offered burst is taken this cycle). Returns: the waiting request starts where one of
        them, or the burst leaving now, of its kind and tag ended."""
        n, req, burst = self._open, self.i.payload, self.bursts.payload
        end = Signal(self._addr_width + 1)
        m.d.comb += end.eq(burst.addr + burst.len + 1)
        ends = [Signal(burst.shape(), name=f"ended{k}") for k in range(n)]
        end_lines = [Signal.like(end, name=f"ended_line{k}") for k in range(n)]
        known = Signal(n)
        oldest = Signal(range(n))
        with m.If(leaves):
            m.d.sync += oldest.eq(Mux(oldest == n - 1, 0, oldest + 1))
            for k in range(n):
                with m.If(oldest == k):
                    m.d.sync += [ends[k].eq(burst), end_lines[k].eq(end), known[k].eq(1)]

        def continued(first, write, tag):
            return (first == req.addr) & (write == req.write) & (req.write | (tag == req.tag))
        return (Cat(known[k] & continued(end_lines[k], ends[k].write, ends[k].tag)
                    for k in range(n)).any() |
                (leaves & continued(end, burst.write, burst.tag)))
