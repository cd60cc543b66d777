"""The write side of :class:`hw.lib.axi.master.AXI4Master`: write bursts out on AW, their
lines as W beats, B responses counted.

A write burst is taken at once into a short queue of bursts waiting for their address to
leave: the oldest leaves while no read in flight overlaps it (``hold``, from the read path,
which AXI does not order against writes), so a write waiting for a read of its line does
not stop the reads of other lines behind it. Every write burst goes out on one ID
(``write_id``): the memory port's writes have no response and take effect in request order,
and AXI keeps same-ID writes in order, so no two writes to a line can pass each other; their
B responses then come back in order too, and a queue of the bursts sent (their line ranges)
tells which burst a B answers. A burst's W beats go out once its address is in the AW
register. A burst the master drops (marked ``drop``, or leaving the queue after ``stop``)
sends nothing: its lines are taken from the line queue and dropped.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import LINE_BITS
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.axi.burst_merger import write_line_layout
from hw.lib.axi.read_path import AXI_CACHE
from hw.lib.axi.signature import AXI4Signature, AXIBurst, AXIResp, axi4_channels


__all__ = ["WritePath", "write_burst_layout"]


def write_burst_layout(addr_width: int, max_lines: int) -> data.StructLayout:
    """A write burst: first line ``addr``, lines less one ``len``, ``drop`` (send nothing,
    drop its lines)."""
    return data.StructLayout({"addr": addr_width, "len": range(max_lines), "drop": 1})


class WritePath(wiring.Component):
    """Write bursts and their lines in, AW, W and B on the AXI side.

    Parameters
    ----------
    addr_width : int
        Line address width of the memory port.
    axi : AXI4Signature
    max_lines : int
        Lines in a burst at most.
    outstanding : int
        Bursts sent and not yet answered on B at most, 1 to 64.
    waiting : int
        Bursts taken and waiting for their address to leave at most, 1 to 16.
    write_id : int
        The ID of every write burst.

    Members
    -------
    bursts : ``In(stream.Signature(write_burst_layout(addr_width, max_lines)))``
    lines : ``In(stream.Signature(write_line_layout()))``
        The bursts' lines, in order.
    axi : ``Out(axi4_channels(axi, ("aw", "w", "b")))``
    probe_first, probe_last : ``In(addr_width)``
    probe_hit : ``Out(1)``
        A burst taken and not yet answered on B writes a line from ``probe_first`` to
        ``probe_last``.
    wait_first, wait_last : ``Out(addr_width)``
        The line range of the oldest burst waiting to leave.
    hold : ``In(1)``
        A read in flight overlaps ``wait_first`` to ``wait_last``: that burst stays.
    stop : ``In(1)``
        Bursts leaving the queue from now on are dropped.
    pending : ``Out(1)``
        A burst taken has not been answered on B, or its lines are not all sent or dropped.
    fault : ``Out(1)``
        A B response this cycle is SLVERR or DECERR: ``fault_resp``, and ``fault_addr`` the
        byte address of its burst.
    fault_resp : ``Out(AXIResp)``
    fault_addr : ``Out(axi.addr_width)``
    """

    def __init__(self, *, addr_width: int, axi: AXI4Signature, max_lines: int,
                 outstanding: int, waiting: int = 8, write_id: int = 0):
        check_int("WritePath", "outstanding", outstanding, high=64)
        check_int("WritePath", "waiting", waiting, high=16)
        check_int("WritePath", "write_id", write_id, low=0, high=(1 << axi.id_width) - 1)
        self._addr_width, self._axi, self._max_lines = addr_width, axi, max_lines
        self._outstanding, self._waiting, self._write_id = outstanding, waiting, write_id
        self._beats = LINE_BITS // axi.data_width
        super().__init__({
            "bursts": In(stream.Signature(write_burst_layout(addr_width, max_lines))),
            "lines": In(stream.Signature(write_line_layout())),
            "axi": Out(axi4_channels(axi, ("aw", "w", "b"))),
            "probe_first": In(addr_width), "probe_last": In(addr_width), "probe_hit": Out(1),
            "wait_first": Out(addr_width), "wait_last": Out(addr_width),
            "hold": In(1), "stop": In(1),
            "pending": Out(1),
            "fault": Out(1), "fault_resp": Out(AXIResp), "fault_addr": Out(axi.addr_width),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.commands = commands = StreamFIFO(
            data.StructLayout({"len": range(self._max_lines), "drop": 1}),
            self._outstanding + 2)
        leaving = self._wait_queue(m)
        sent_hit, sent_busy = self._send(m, leaving, commands.i)
        m.d.comb += [
            self.probe_hit.eq(sent_hit | leaving["hit"]),
            self.pending.eq(leaving["busy"] | sent_busy | commands.o.valid),
        ]
        self._beats_out(m, commands.o)
        return m

    def _overlaps(self, first, last):
        return (first <= self.probe_last) & (self.probe_first <= last)

    def _wait_queue(self, m):
        """Bursts taken into a ring of ``waiting`` entries; returns the oldest's fields, a
        ``take`` signal to drive when it leaves, ``hit`` (an entry overlaps the probe) and
        ``busy`` (an entry is held)."""
        n, burst = self._waiting, self.bursts.payload
        valid = Signal(n)
        first = [Signal(self._addr_width, name=f"wait_first{i}") for i in range(n)]
        last = [Signal(self._addr_width, name=f"wait_last{i}") for i in range(n)]
        length = [Signal(range(self._max_lines), name=f"wait_len{i}") for i in range(n)]
        drop = Signal(n)
        head, tail = Signal(range(n)), Signal(range(n))
        oldest = {"valid": valid.bit_select(head, 1), "take": Signal(),
                  "len": Signal(range(self._max_lines)), "drop": Signal(),
                  "hit": Cat(valid[i] & self._overlaps(first[i], last[i])
                             for i in range(n)).any(),
                  "busy": valid.any()}
        for i in range(n):
            with m.If(head == i):
                m.d.comb += [self.wait_first.eq(first[i]), self.wait_last.eq(last[i]),
                             oldest["len"].eq(length[i]), oldest["drop"].eq(drop[i])]
        m.d.comb += self.bursts.ready.eq(~valid.all())
        with m.If(self.bursts.valid & self.bursts.ready):
            m.d.sync += tail.eq(Mux(tail == n - 1, 0, tail + 1))
            for i in range(n):
                with m.If(tail == i):
                    m.d.sync += [valid[i].eq(1), first[i].eq(burst.addr),
                                 last[i].eq(burst.addr + burst.len), length[i].eq(burst.len),
                                 drop[i].eq(burst.drop)]
        with m.If(oldest["take"]):
            m.d.sync += head.eq(Mux(head == n - 1, 0, head + 1))
            for i in range(n):
                with m.If(head == i):
                    m.d.sync += valid[i].eq(0)
        return oldest

    def _send(self, m, oldest, command):
        """The oldest waiting burst into the AW register (or dropped) and its W command
        queued; B responses matched to the bursts sent. Returns: a burst sent and not yet
        answered overlaps the probe; a burst sent is not yet answered."""
        n, axi = self._outstanding, self.axi
        # The bursts sent and not yet answered, oldest at ``head``.
        valid = Signal(n)
        first = [Signal(self._addr_width, name=f"first{i}") for i in range(n)]
        last = [Signal(self._addr_width, name=f"last{i}") for i in range(n)]
        head, tail = Signal(range(n)), Signal(range(n))

        aw_full = Signal()
        dropping = oldest["drop"] | self.stop
        sendable = dropping | ((~aw_full | axi.awready) & ~valid.all() & ~self.hold)
        m.d.comb += [
            command.valid.eq(oldest["valid"] & sendable),
            command.payload.len.eq(oldest["len"]), command.payload.drop.eq(dropping),
            oldest["take"].eq(command.valid & command.ready),
        ]
        take = oldest["take"] & ~dropping
        size = (self._axi.data_width // 8).bit_length() - 1
        m.d.comb += [axi.awvalid.eq(aw_full), axi.awid.eq(self._write_id),
                     axi.awsize.eq(size), axi.awburst.eq(AXIBurst.INCR),
                     axi.awcache.eq(AXI_CACHE)]
        with m.If(axi.awready):
            m.d.sync += aw_full.eq(0)
        with m.If(take):
            m.d.sync += [
                aw_full.eq(1), axi.awaddr.eq(Cat(Const(0, 6), self.wait_first)),
                axi.awlen.eq(Cat(Const(self._beats - 1, (self._beats - 1).bit_length()),
                                 oldest["len"])),
                tail.eq(Mux(tail == n - 1, 0, tail + 1)),
            ]
            for i in range(n):
                with m.If(tail == i):
                    m.d.sync += [valid[i].eq(1), first[i].eq(self.wait_first),
                                 last[i].eq(self.wait_last)]

        # B: always taken; each answers the oldest burst sent.
        answered = axi.bvalid & valid.bit_select(head, 1)
        m.d.comb += axi.bready.eq(1)
        with m.If(answered):
            m.d.sync += head.eq(Mux(head == n - 1, 0, head + 1))
            for i in range(n):
                with m.If(head == i):
                    m.d.sync += valid[i].eq(0)
                    m.d.comb += self.fault_addr.eq(Cat(Const(0, 6), first[i]))
        bad = (axi.bresp == AXIResp.SLVERR) | (axi.bresp == AXIResp.DECERR)
        m.d.comb += [self.fault.eq(answered & bad), self.fault_resp.eq(axi.bresp)]
        return (Cat(valid[i] & self._overlaps(first[i], last[i]) for i in range(n)).any(),
                valid.any())

    def _beats_out(self, m, command):
        """Each command's lines cut into W beats (``wlast`` on its last), or dropped."""
        axi, beats, width = self.axi, self._beats, self._axi.data_width
        beat = Signal(range(beats))
        count = Signal(range(self._max_lines))
        line = self.lines.payload
        drop = command.payload.drop
        going = command.valid & self.lines.valid
        step = going & (drop | axi.wready)
        line_end = drop | (beat == beats - 1)
        burst_end = line_end & (count == command.payload.len)
        m.d.comb += [
            axi.wvalid.eq(going & ~drop),
            axi.wdata.eq(line.wdata.word_select(beat, width)),
            axi.wstrb.eq(line.wmask.word_select(beat, width // 8)),
            axi.wlast.eq(burst_end),
            self.lines.ready.eq(step & line_end),
            command.ready.eq(step & burst_end),
        ]
        with m.If(step):
            m.d.sync += beat.eq(Mux(line_end, 0, beat + 1))
            with m.If(line_end):
                m.d.sync += count.eq(Mux(burst_end, 0, count + 1))
