"""An AXI4 memory master in front of a design's tagged memory port.

The design's port (:func:`hw.lib.memory.port.mem_port_signature` with a tag) carries 64-byte
line requests: writes with byte masks and no response, reads tagged, their responses free
to come back out of order across tags and in request order within one. :class:`AXI4Master`
turns them into AXI4 INCR bursts:

* :class:`hw.lib.axi.burst_merger.BurstMerger` joins requests that continue each other (same
  kind, next line, a read's same tag) into one burst, up to 256 beats and never across a 4 KiB
  boundary, with a read burst open per tag (``open_bursts``) so that clients interleaved on
  the port still form bursts, a stream's burst held open up to ``burst_hold`` cycles while
  requests keep coming;
* bursts leave in request order (but reads of different tags, and a read and a write of
  different lines): a burst waits while it overlaps an earlier burst of the other kind
  not yet answered (a read waits for an overlapping write's B response, a write for an
  overlapping read's last beat), since AXI orders neither channel against the other and the
  memory port promises that a read sees every earlier write and no later one; a write waits
  in the write path's queue (``write_waiting``), so reads of other lines pass it;
* :class:`hw.lib.axi.read_path.ReadPath` sends reads on AR with the tag folded onto the ID
  (its low bits: same-tag reads share an ID and keep their order) and puts R beats back
  together into lines, out of order across IDs;
* :class:`hw.lib.axi.write_path.WritePath` sends writes on AW with one ID, W beats with the
  mask's byte enables, and counts B responses.

A SLVERR or DECERR on R or B sets the sticky ``error`` with its cause; from then on no burst
is sent (bursts not yet sent are dropped, write lines with them) but every burst already
sent is still answered and drained, so the master always comes to ``idle``. A read that came
back with an error is still handed to the design, with the data the slave gave.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int, is_power_of_two
from hw.lib.memory.port import LINE_BITS, MEMORY_TAG_WIDTH, mem_port_signature
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.axi.burst_merger import (MAX_HOLD, MAX_OPEN_BURSTS, PAGE_LINES, BurstMerger,
                                      write_line_layout)
from hw.lib.axi.read_path import ReadPath
from hw.lib.axi.signature import MAX_BURST_BEATS, AXI4Signature, AXIResp
from hw.lib.axi.write_path import WritePath


__all__ = ["AXI4Master", "error_cause_layout"]


def error_cause_layout(axi_addr_width: int) -> data.StructLayout:
    """Why the master stopped: ``write`` (B, else R), ``resp`` (SLVERR or DECERR) and ``addr``
    (the byte address of the failing burst)."""
    return data.StructLayout({"write": 1, "resp": AXIResp, "addr": axi_addr_width})


class AXI4Master(wiring.Component):
    """A tagged memory port in, an AXI4 master out.

    Parameters
    ----------
    addr_width : int
        Line address width of the memory port (1 to 32).
    tag_width : int
        Tag width of the memory port (default :data:`MEMORY_TAG_WIDTH`).
    data_width : int
        AXI data width: 64, 128, 256 or 512 bits (a line is ``512 / data_width`` beats).
    id_width : int
        AXI ID width (1 to 16). Tags wider than it are folded onto it by their low bits.
    axi_addr_width : int or None
        AXI byte address width, at least ``addr_width + 6`` (the default), 12 to 64.
    read_outstanding : int
        Read bursts in flight at most (1 to 64); each holds a slot with a partial line. The
        default keeps a memory 100 cycles away busy with bursts of two lines or more.
    write_outstanding : int
        Write bursts sent and not yet answered on B at most (1 to 64).
    write_waiting : int
        Write bursts taken and waiting for their address to leave at most (1 to 16): a write
        waits there while a read of its lines is in flight.
    open_bursts : int
        Read bursts being gathered at once, one per tag (1 to 16; 1: only requests that come
        back to back join a burst).
    burst_hold : int
        Cycles a stream's burst (one starting where its tag's previous burst ended) waits at
        most for the stream's next line while other requests keep coming (0 to 255); any
        other burst, and one alone at the port, leaves the first cycle nothing continues it,
        so random and dependent reads are not delayed.
    max_burst_beats : int
        Beats in a burst at most: a power of two from one line's beats to 256.
    write_buffer : int
        Lines of write data held (1 to 64): a write burst's lines wait there until its
        address goes out. A write burst is at most half of it (one line if it holds one),
        so the next burst gathers while one is sent.
    write_id : int
        The ID of every write burst.

    Members
    -------
    mem : ``In(mem_port_signature(addr_width, tag_width))``
        The design's memory port.
    axi : ``Out(AXI4Signature(addr_width=axi_addr_width, data_width=..., id_width=...))``
    error : ``Out(1)``
        Sticky: a response came back SLVERR or DECERR.
    error_cause : ``Out(error_cause_layout(axi_addr_width))``
        The first such response (held while ``error``).
    writes_pending : ``Out(1)``
        A write taken from the design has not been answered on B (or dropped).
    idle : ``Out(1)``
        Nothing held: no request taken and unanswered, no burst in flight.
    """

    def __init__(self, *, addr_width: int, tag_width: int = MEMORY_TAG_WIDTH,
                 data_width: int = 64, id_width: int = 4, axi_addr_width: int | None = None,
                 read_outstanding: int = 64, write_outstanding: int = 16,
                 max_burst_beats: int = MAX_BURST_BEATS, write_buffer: int = 16,
                 write_id: int = 0, open_bursts: int = 8, burst_hold: int = 16,
                 write_waiting: int = 16):
        check_int("AXI4Master", "addr_width", addr_width, high=32)
        check_int("AXI4Master", "tag_width", tag_width, high=16)
        if axi_addr_width is None:
            axi_addr_width = max(addr_width + 6, 12)
        self.axi_signature = AXI4Signature(addr_width=axi_addr_width, data_width=data_width,
                                           id_width=id_width)
        if axi_addr_width < addr_width + 6:
            raise ConfigError(f"AXI4Master: axi_addr_width must be at least addr_width + 6 = "
                              f"{addr_width + 6}, not {axi_addr_width}")
        beats = LINE_BITS // data_width
        if isinstance(max_burst_beats, bool) or not isinstance(max_burst_beats, int) or \
                not is_power_of_two(max_burst_beats) or \
                not beats <= max_burst_beats <= MAX_BURST_BEATS:
            raise ConfigError(f"AXI4Master: max_burst_beats must be a power of two from "
                              f"{beats} to {MAX_BURST_BEATS}, not {max_burst_beats!r}")
        check_int("AXI4Master", "write_buffer", write_buffer, high=PAGE_LINES)
        check_int("AXI4Master", "read_outstanding", read_outstanding, high=64)
        check_int("AXI4Master", "write_outstanding", write_outstanding, high=64)
        check_int("AXI4Master", "write_waiting", write_waiting, high=16)
        check_int("AXI4Master", "write_id", write_id, low=0, high=(1 << id_width) - 1)
        check_int("AXI4Master", "open_bursts", open_bursts, high=MAX_OPEN_BURSTS)
        check_int("AXI4Master", "burst_hold", burst_hold, low=0, high=MAX_HOLD)
        self._open_bursts, self._burst_hold = open_bursts, burst_hold
        self._addr_width, self._tag_width = addr_width, tag_width
        self._max_lines = min(max_burst_beats // beats, PAGE_LINES)
        self._read_outstanding, self._write_outstanding = read_outstanding, write_outstanding
        self._write_waiting = write_waiting
        self._write_buffer, self._write_id = write_buffer, write_id
        super().__init__({
            "mem": In(mem_port_signature(addr_width, tag_width)),
            "axi": Out(self.axi_signature),
            "error": Out(1),
            "error_cause": Out(error_cause_layout(axi_addr_width)),
            "writes_pending": Out(1),
            "idle": Out(1),
        })

    @property
    def max_lines(self) -> int:
        """Lines in a burst at most."""
        return self._max_lines

    def elaborate(self, platform):
        m = Module()
        common = dict(addr_width=self._addr_width, max_lines=self._max_lines)
        m.submodules.merger = merger = BurstMerger(
            tag_width=self._tag_width,
            max_write_lines=min(max(self._write_buffer // 2, 1), self._max_lines),
            open_bursts=self._open_bursts, hold=self._burst_hold, **common)
        m.submodules.reads = reads = ReadPath(
            tag_width=self._tag_width, axi=self.axi_signature,
            outstanding=self._read_outstanding, **common)
        m.submodules.writes = writes = WritePath(
            axi=self.axi_signature, outstanding=self._write_outstanding,
            waiting=self._write_waiting, write_id=self._write_id, **common)
        m.submodules.lines = lines = StreamFIFO(write_line_layout(), self._write_buffer)
        wiring.connect(m, wiring.flipped(self.mem.req), merger.i)
        wiring.connect(m, merger.lines, lines.i)
        wiring.connect(m, lines.o, writes.lines)
        wiring.connect(m, reads.resp, wiring.flipped(self.mem.resp))
        for path in (reads, writes):
            for name, member in path.axi.signature.members.items():
                ours, theirs = getattr(self.axi, name), getattr(path.axi, name)
                m.d.comb += (ours.eq(theirs) if member.flow == Out else theirs.eq(ours))

        # Bursts leave in request order; a read waits while a write taken overlaps it, and a
        # write, taken at once, leaves the write path while no read in flight overlaps it;
        # after an error, reads are dropped here and writes by the write path.
        burst = merger.bursts.payload
        m.d.comb += [writes.probe_first.eq(burst.addr),
                     writes.probe_last.eq(burst.addr + burst.len),
                     reads.probe_first.eq(writes.wait_first),
                     reads.probe_last.eq(writes.wait_last),
                     writes.hold.eq(reads.probe_hit), writes.stop.eq(self.error)]
        m.d.comb += [
            reads.bursts.payload.eq(burst),
            reads.bursts.valid.eq(merger.bursts.valid & ~burst.write & ~writes.probe_hit &
                                  ~self.error),
            writes.bursts.payload.addr.eq(burst.addr),
            writes.bursts.payload.len.eq(burst.len),
            writes.bursts.payload.drop.eq(self.error),
            writes.bursts.valid.eq(merger.bursts.valid & burst.write),
        ]
        with m.If(burst.write):
            m.d.comb += merger.bursts.ready.eq(writes.bursts.ready)
        with m.Else():
            m.d.comb += merger.bursts.ready.eq(self.error |
                                               (reads.bursts.ready & ~writes.probe_hit))

        # The first fault is kept (a read's, if both come in one cycle).
        with m.If(~self.error & (reads.fault | writes.fault)):
            m.d.sync += self.error.eq(1)
            with m.If(reads.fault):
                m.d.sync += [self.error_cause.write.eq(0),
                             self.error_cause.resp.eq(reads.fault_resp),
                             self.error_cause.addr.eq(reads.fault_addr)]
            with m.Else():
                m.d.sync += [self.error_cause.write.eq(1),
                             self.error_cause.resp.eq(writes.fault_resp),
                             self.error_cause.addr.eq(writes.fault_addr)]
        m.d.comb += [
            self.writes_pending.eq((lines.level != 0) | writes.pending |
                                   merger.writing),
            self.idle.eq(~merger.busy & ~reads.busy & ~writes.pending & (lines.level == 0) &
                         ~reads.resp.valid),
        ]
        return m
