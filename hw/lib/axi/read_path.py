"""The read side of :class:`hw.lib.axi.master.AXI4Master`: read bursts out on AR, R beats
back into tagged lines.

Each burst taken holds a slot until its last beat: its ID, tag, line range, the lines still
to come and the beat reached within the current line. A burst's ID is its tag folded onto
the ID width (the tag's low bits). The slots of one ID form a queue (each names the next),
whose head is the burst the next beat of that ID belongs to: AXI returns one ID's bursts in
the order they were sent, and their beats in order, while beats of different IDs may come
in any order, interleaved. A line's beats but the last wait in a small memory, a row per
slot; the last completes the line, which leaves with its burst's tag. Reads of one tag thus
come back in request order, reads of different tags in any order.
"""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import LINE_BITS, mem_response_layout
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.axi.burst_merger import burst_layout
from hw.lib.axi.signature import AXI4Signature, AXIBurst, AXIResp, axi4_channels


__all__ = ["ReadPath", "AXI_CACHE"]

AXI_CACHE = 0b0011      # normal, non-cacheable, bufferable: what Xilinx's masters send


class ReadPath(wiring.Component):
    """Read bursts in, AR and R on the AXI side, tagged lines out.

    Parameters
    ----------
    addr_width, tag_width : int
        Of the memory port.
    axi : AXI4Signature
        The AXI interface (its address, data and ID widths).
    max_lines : int
        Lines in a burst at most.
    outstanding : int
        Bursts sent and not fully answered at most (slots), 1 to 64.

    Members
    -------
    bursts : ``In(stream.Signature(burst_layout(addr_width, tag_width, max_lines)))``
        Read bursts (``write`` is not looked at).
    resp : ``Out(stream.Signature(mem_response_layout(tag_width)))``
    axi : ``Out(axi4_channels(axi, ("ar", "r")))``
    probe_first, probe_last : ``In(addr_width)``
    probe_hit : ``Out(1)``
        A burst holding a slot reads a line from ``probe_first`` to ``probe_last``.
    busy : ``Out(1)``
        A slot is held.
    fault : ``Out(1)``
        A beat came back with SLVERR or DECERR this cycle; ``fault_resp`` is its response,
        ``fault_addr`` the byte address of its burst.
    fault_resp : ``Out(AXIResp)``
    fault_addr : ``Out(axi.addr_width)``
    """

    def __init__(self, *, addr_width: int, tag_width: int, axi: AXI4Signature,
                 max_lines: int, outstanding: int):
        check_int("ReadPath", "outstanding", outstanding, high=64)
        self._addr_width, self._tag_width = addr_width, tag_width
        self._axi, self._max_lines, self._slots = axi, max_lines, outstanding
        self._beats = LINE_BITS // axi.data_width
        super().__init__({
            "bursts": In(stream.Signature(burst_layout(addr_width, tag_width, max_lines))),
            "resp": Out(stream.Signature(mem_response_layout(tag_width))),
            "axi": Out(axi4_channels(axi, ("ar", "r"))),
            "probe_first": In(addr_width), "probe_last": In(addr_width), "probe_hit": Out(1),
            "busy": Out(1),
            "fault": Out(1), "fault_resp": Out(AXIResp), "fault_addr": Out(axi.addr_width),
        })

    def elaborate(self, platform):
        m = Module()
        n = self._slots
        s = {      # the slots, each field a list (or a bit vector) over them
            "used": Signal(n), "head": Signal(n), "tail": Signal(n), "linked": Signal(n),
            "next": [Signal(range(n), name=f"next{i}") for i in range(n)],
            "id": [Signal(self._axi.id_width, name=f"id{i}") for i in range(n)],
            "tag": [Signal(self._tag_width, name=f"tag{i}") for i in range(n)],
            "first": [Signal(self._addr_width, name=f"first{i}") for i in range(n)],
            "last": [Signal(self._addr_width, name=f"last{i}") for i in range(n)],
            "left": [Signal(range(self._max_lines), name=f"left{i}") for i in range(n)],
            "beat": [Signal(range(self._beats), name=f"beat{i}") for i in range(n)],
        }
        m.d.comb += [
            self.busy.eq(s["used"].any()),
            self.probe_hit.eq(Cat(s["used"][i] & (s["first"][i] <= self.probe_last) &
                                  (self.probe_first <= s["last"][i])
                                  for i in range(n)).any()),
        ]
        done, done_slot = self._beats_in(m, s)
        self._issue(m, s, done, done_slot)
        return m

    def _issue(self, m, s, done, done_slot):
        """Bursts taken into the AR register, each into a free slot at the tail of its ID's
        queue (the slot finishing this cycle, ``done_slot`` when ``done``, is no tail)."""
        n, axi, burst = self._slots, self.axi, self.bursts.payload
        ar_full = Signal()
        free = Signal(range(n))
        for i in reversed(range(n)):
            with m.If(~s["used"][i]):
                m.d.comb += free.eq(i)
        take = Signal()
        m.d.comb += [
            self.bursts.ready.eq(~s["used"].all() & (~ar_full | axi.arready)),
            take.eq(self.bursts.valid & self.bursts.ready),
        ]
        # The tag folded onto the ID: tags that share their low bits share an ID's queue.
        ident = burst.tag[:self._axi.id_width] if self._tag_width >= self._axi.id_width \
            else burst.tag
        size = (self._axi.data_width // 8).bit_length() - 1
        m.d.comb += [axi.arvalid.eq(ar_full), axi.arsize.eq(size),
                     axi.arburst.eq(AXIBurst.INCR), axi.arcache.eq(AXI_CACHE)]
        with m.If(axi.arready):
            m.d.sync += ar_full.eq(0)
        last = burst.addr + burst.len
        tails = Cat(s["used"][i] & s["tail"][i] & (s["id"][i] == ident) &
                    ~(done & (done_slot == i)) for i in range(n))
        with m.If(take):
            m.d.sync += [
                ar_full.eq(1), axi.arid.eq(ident),
                axi.araddr.eq(Cat(Const(0, 6), burst.addr)),
                axi.arlen.eq(Cat(Const(self._beats - 1, (self._beats - 1).bit_length()),
                                 burst.len)),
            ]
            for i in range(n):
                with m.If(free == i):
                    m.d.sync += [s["used"][i].eq(1), s["head"][i].eq(~tails.any()),
                                 s["tail"][i].eq(1), s["linked"][i].eq(0),
                                 s["id"][i].eq(ident), s["tag"][i].eq(burst.tag),
                                 s["first"][i].eq(burst.addr), s["last"][i].eq(last),
                                 s["left"][i].eq(burst.len), s["beat"][i].eq(0)]
                with m.If(tails[i]):
                    m.d.sync += [s["tail"][i].eq(0), s["linked"][i].eq(1),
                                 s["next"][i].eq(free)]

    def _beats_in(self, m, s):
        """R beats into their slot's line (the one at the head of the beat's ID); a line's
        last beat sends the line on, a burst's last frees its slot and makes the next of its
        ID the head. Returns (a burst finishes this cycle, its slot)."""
        n, axi, beats = self._slots, self.axi, self._beats
        m.submodules.out = out = StreamFIFO(self.resp.payload.shape(), 2)
        wiring.connect(m, out.o, wiring.flipped(self.resp))
        hits = Cat(s["used"][i] & s["head"][i] & (s["id"][i] == axi.rid) for i in range(n))
        slot = Signal(range(n))
        for i in range(n):
            with m.If(hits[i]):
                m.d.comb += slot.eq(i)
        beat, left, first = (Signal.like(s[key][0]) for key in ("beat", "left", "first"))
        for i in range(n):
            with m.If(slot == i):
                m.d.comb += [beat.eq(s["beat"][i]), left.eq(s["left"][i]),
                             first.eq(s["first"][i]), out.i.payload.tag.eq(s["tag"][i])]
        line_done = beat == beats - 1
        # A beat whose ID has no burst waiting is taken and dropped.
        arrived = axi.rvalid & axi.rready & hits.any()
        m.d.comb += [axi.rready.eq(out.i.ready), out.i.valid.eq(axi.rvalid & hits.any() &
                                                                  line_done)]
        if beats > 1:
            m.submodules.partial = partial = Memory(
                shape=self._axi.data_width * (beats - 1), depth=n, init=[])
            write = partial.write_port(granularity=self._axi.data_width)
            read = partial.read_port(domain="comb")
            m.d.comb += [write.addr.eq(slot), write.data.eq(axi.rdata.replicate(beats - 1)),
                         write.en.eq(Cat(arrived & ~line_done & (beat == k)
                                         for k in range(beats - 1))),
                         read.addr.eq(slot),
                         out.i.payload.rdata.eq(Cat(read.data, axi.rdata))]
        else:
            m.d.comb += out.i.payload.rdata.eq(axi.rdata)
        done = Signal()
        m.d.comb += done.eq(arrived & line_done & (left == 0))
        for i in range(n):
            with m.If(arrived & (slot == i)):
                with m.If(line_done):
                    m.d.sync += [s["beat"][i].eq(0), s["left"][i].eq(left - 1)]
                with m.Else():
                    m.d.sync += s["beat"][i].eq(beat + 1)
        self._finish(m, s, done, slot)
        bad = (axi.rresp == AXIResp.SLVERR) | (axi.rresp == AXIResp.DECERR)
        m.d.comb += [self.fault.eq(arrived & bad), self.fault_resp.eq(axi.rresp),
                     self.fault_addr.eq(Cat(Const(0, 6), first))]
        return done, slot

    def _finish(self, m, s, done, slot):
        """The slot whose burst is done is freed, and the next of its ID becomes the head."""
        n = self._slots
        following, linked = Signal(range(n)), Signal()
        for i in range(n):
            with m.If(slot == i):
                m.d.comb += [following.eq(s["next"][i]), linked.eq(s["linked"][i])]
        for i in range(n):
            with m.If(done & (slot == i)):
                m.d.sync += [s["used"][i].eq(0), s["head"][i].eq(0)]
        # The slot's successor picked once, not compared slot by slot (n squared terms).
        for j in range(n):
            with m.If(done & linked & (following == j)):
                m.d.sync += s["head"][j].eq(1)
