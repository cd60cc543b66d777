"""Joins consecutive line requests of a memory port into bursts, as they arrive.

The first stage of :class:`hw.lib.axi.master.AXI4Master`: a request opens a burst held in a
register; each request waiting at the input in the following cycles that continues it (same
kind, next line, for a read the same tag, not the first line of a 4 KiB page, the burst not
full) joins it; the first cycle nothing continues it, the burst is offered. A lone request
is never held back for a partner: it is offered the cycle after it was taken. Once offered,
a burst takes no more lines (its payload is held until taken, the stream rules).
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_BITS, LINE_BYTES, mem_request_layout
from hw.lib.axi.signature import PAGE_BYTES


__all__ = ["burst_layout", "write_line_layout", "BurstMerger"]

PAGE_LINES = PAGE_BYTES // LINE_BYTES


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

    Members
    -------
    i : ``In(stream.Signature(mem_request_layout(addr_width, tag_width)))``
    bursts : ``Out(stream.Signature(burst_layout(addr_width, tag_width, max_lines)))``
        In request order.
    lines : ``Out(stream.Signature(write_line_layout()))``
        A write request's line, handed on as the request is taken (a write is taken only
        when ``lines`` takes its line).
    busy : ``Out(1)``
        A burst is open or offered.
    """

    def __init__(self, *, addr_width: int, tag_width: int, max_lines: int,
                 max_write_lines: int):
        check_int("BurstMerger", "addr_width", addr_width, high=32)
        check_int("BurstMerger", "tag_width", tag_width, high=16)
        check_int("BurstMerger", "max_lines", max_lines, high=PAGE_LINES)
        check_int("BurstMerger", "max_write_lines", max_write_lines, high=max_lines)
        self._addr_width, self._max_lines = addr_width, max_lines
        self._max_write_lines = max_write_lines
        super().__init__({
            "i": In(stream.Signature(mem_request_layout(addr_width, tag_width))),
            "bursts": Out(stream.Signature(burst_layout(addr_width, tag_width, max_lines))),
            "lines": Out(stream.Signature(write_line_layout())),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        req = self.i.payload
        burst = Signal(self.bursts.payload.shape())
        is_open = Signal()
        offered_before = Signal()       # offered and not taken at the last edge
        m.d.comb += [self.bursts.payload.eq(burst), self.busy.eq(is_open)]

        # One bit wider than a line address, so the line after the last does not wrap to 0.
        following = Signal(self._addr_width + 1)
        m.d.comb += following.eq(burst.addr + burst.len + 1)
        new_page = req.addr[:6] == 0 if self._addr_width > 6 else 0
        room = Signal()
        m.d.comb += room.eq(burst.len + 1 < Mux(burst.write, self._max_write_lines,
                                                self._max_lines))
        joins = Signal()
        m.d.comb += joins.eq(is_open & ~offered_before & self.i.valid & room & ~new_page &
                             (req.addr == following) & (req.write == burst.write) &
                             (req.write | (req.tag == burst.tag)))
        # The burst is offered once nothing continues it; a write that continues it waits
        # for room for its line (the queue holds lines of earlier bursts then, which leave).
        m.d.comb += self.bursts.valid.eq(is_open & ~joins)
        m.d.sync += offered_before.eq(self.bursts.valid & ~self.bursts.ready)
        leaving = self.bursts.valid & self.bursts.ready
        starts = ~is_open | leaving
        m.d.comb += [
            self.i.ready.eq((joins | starts) & (~req.write | self.lines.ready)),
            self.lines.valid.eq(self.i.valid & req.write & (joins | starts)),
            self.lines.payload.wdata.eq(req.wdata),
            self.lines.payload.wmask.eq(req.wmask),
        ]
        taken = self.i.valid & self.i.ready
        with m.If(taken & joins):
            m.d.sync += burst.len.eq(burst.len + 1)
        with m.Elif(taken):
            m.d.sync += [burst.addr.eq(req.addr), burst.len.eq(0),
                         burst.write.eq(req.write), burst.tag.eq(req.tag), is_open.eq(1)]
        with m.Elif(leaving):
            m.d.sync += is_open.eq(0)
        return m
