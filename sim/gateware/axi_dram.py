"""An AXI4 slave in front of one channel of the simulated DRAM (:class:`SimDRAM`), so that a
design's AXI top (:class:`hw.lib.axi.top.AXITop`) runs behind the same memory model, with its
latency, jitter, bandwidth, pushback and reordering, as the internal line port does.

Simulation only: never imported by synthesizable code.

* Reads: an AR burst is split into line reads, one a cycle, each tagged with the burst's ARID
  in the low bits and, at bit :data:`LAST_TAG_BIT`, whether it is the burst's last line. The
  model tells tags apart by their low 10 bits only (``graphgen_dram.v``), so the lines of one
  ID keep their order even with ``+dram_reorder=1`` while those of different IDs overtake
  each other: R beats of different IDs come back out of order, and interleaved, one ID's in
  order, as AXI allows. A line is ``512 / data_width`` beats; ``rlast`` on the last beat of a
  line tagged last.
* Writes: AW addresses queue; W beats are gathered into lines (one a beat at 512 bits,
  ``wstrb`` the byte mask) and written in the order they come; when the last line of a burst
  has been taken by the model (a write takes effect then) its B response is queued.
* Reads and writes share the channel's one request a cycle, alternating when both wait.

The slave takes a beat a cycle on W and gives one on R, and keeps as many bursts in flight as
the model's outstanding limit allows: it holds no burst but the one being split.

Supported: INCR bursts of full-width beats, line-aligned, a whole number of lines long, as
:class:`hw.lib.axi.master.AXI4Master` sends them; anything else sets the sticky
``protocol_error`` (and is served as if it were such a burst). Responses are always OKAY.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.axi.signature import AXI4Signature, AXIBurst
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_BITS, LINE_BYTES, mem_port_signature
from hw.lib.stream.fifo import StreamFIFO


__all__ = ["AXIDRAMAdapter", "LAST_TAG_BIT", "DRAM_TAG_WIDTH"]

# The model orders reads by the low 10 bits of their tags: the ID goes there, the burst's
# last-line flag above them.
LAST_TAG_BIT = 10
DRAM_TAG_WIDTH = LAST_TAG_BIT + 1


class AXIDRAMAdapter(wiring.Component):
    """An AXI4 slave serving bursts from one channel of :class:`SimDRAM`.

    Parameters
    ----------
    axi : AXI4Signature
        The master's signature (its address, data and ID widths); data 64 to 512 bits, IDs
        of 10 bits at most.
    addr_width : int
        The DRAM's line address width; the line is the AXI address's bits from 6 up.
    aw_depth, b_depth : int
        Write bursts whose address waits for data, and B responses waiting for ``bready``.

    Members
    -------
    axi : ``In(axi)``
        The slave's side of the bus.
    mem : ``Out(mem_port_signature(addr_width, DRAM_TAG_WIDTH))``
        To the DRAM channel (requests out, tagged responses in).
    protocol_error : ``Out(1)``
        Sticky: a burst that is not INCR, not full-width, not line-aligned or not whole
        lines, or a ``wlast`` not on a burst's last beat.
    """

    def __init__(self, axi: AXI4Signature, *, addr_width: int, aw_depth: int = 16,
                 b_depth: int = 16):
        if not isinstance(axi, AXI4Signature):
            raise ConfigError(f"AXIDRAMAdapter takes an AXI4Signature, not {axi!r}")
        if axi.id_width > LAST_TAG_BIT:
            raise ConfigError(f"AXIDRAMAdapter: IDs of at most {LAST_TAG_BIT} bits (the DRAM "
                              f"model orders reads by 10 tag bits), not {axi.id_width}")
        check_int("AXIDRAMAdapter", "addr_width", addr_width, high=32)
        if axi.addr_width < addr_width + 6:
            raise ConfigError(f"AXIDRAMAdapter: the AXI address ({axi.addr_width} bits) does "
                              f"not reach {addr_width}-bit line addresses")
        check_int("AXIDRAMAdapter", "aw_depth", aw_depth)
        check_int("AXIDRAMAdapter", "b_depth", b_depth)
        self._axi, self._addr_width = axi, addr_width
        self._aw_depth, self._b_depth = aw_depth, b_depth
        self._beats = LINE_BITS // axi.data_width
        super().__init__({
            "axi": In(axi),
            "mem": Out(mem_port_signature(addr_width, DRAM_TAG_WIDTH)),
            "protocol_error": Out(1),
        })

    @property
    def beats_per_line(self) -> int:
        return self._beats

    def _burst_layout(self):
        return data.StructLayout({"id": self._axi.id_width, "line": self._addr_width,
                                  "lines": 8 - (self._beats - 1).bit_length()})

    def _take_burst(self, m, ch: str, fifo, bad):
        """The AW or AR channel into ``fifo`` as (ID, first line, lines less one); ``bad``
        high for a burst this slave does not serve."""
        axi = self.axi
        dw_bytes = self._axi.data_width // 8
        addr, length = getattr(axi, f"{ch}addr"), getattr(axi, f"{ch}len")
        beat_bits = (self._beats - 1).bit_length()
        m.d.comb += [
            fifo.i.valid.eq(getattr(axi, f"{ch}valid")),
            getattr(axi, f"{ch}ready").eq(fifo.i.ready),
            fifo.i.payload.id.eq(getattr(axi, f"{ch}id")),
            fifo.i.payload.line.eq(addr[6:6 + self._addr_width]),
            fifo.i.payload.lines.eq(length[beat_bits:]),
            bad.eq(getattr(axi, f"{ch}valid") & (
                (getattr(axi, f"{ch}burst") != AXIBurst.INCR) |
                (getattr(axi, f"{ch}size") != (dw_bytes.bit_length() - 1)) |
                (addr[:6] != 0) |
                ((length[:beat_bits] != self._beats - 1) if beat_bits else Const(0)))),
        ]

    def elaborate(self, platform):
        m = Module()
        axi, mem = self.axi, self.mem
        beats, width = self._beats, self._axi.data_width
        layout = self._burst_layout()
        m.submodules.ar = ar = StreamFIFO(layout, 2)
        m.submodules.aw = aw = StreamFIFO(layout, self._aw_depth)
        m.submodules.b = b = StreamFIFO(self._axi.id_width, self._b_depth)
        bad_ar, bad_aw, bad_w = Signal(), Signal(), Signal()
        self._take_burst(m, "ar", ar, bad_ar)
        self._take_burst(m, "aw", aw, bad_aw)
        with m.If(bad_ar | bad_aw | bad_w):
            m.d.sync += self.protocol_error.eq(1)

        # Reads: the burst at the FIFO's head is split, a line a grant.
        read_valid, read_grant = Signal(), Signal()
        done_lines = Signal(8)
        head = ar.o.payload
        read_last = done_lines == head.lines
        m.d.comb += read_valid.eq(ar.o.valid)
        with m.If(read_grant):
            m.d.sync += done_lines.eq(Mux(read_last, 0, done_lines + 1))
        m.d.comb += ar.o.ready.eq(read_grant & read_last)

        # Writes: beats gathered into a line, the line written on its last beat.
        write_valid, write_grant = Signal(), Signal()
        beat = Signal(range(beats))
        line_index = Signal(8)
        gathered = Signal(LINE_BITS)
        gathered_mask = Signal(LINE_BYTES)
        line_data, line_mask = Signal(LINE_BITS), Signal(LINE_BYTES)
        for i in range(beats):
            here = beat == i
            m.d.comb += [
                line_data.word_select(i, width).eq(
                    Mux(here, axi.wdata, gathered.word_select(i, width))),
                line_mask.word_select(i, width // 8).eq(
                    Mux(here, axi.wstrb, gathered_mask.word_select(i, width // 8))),
            ]
        line_done = beat == beats - 1
        burst_done = line_done & (line_index == aw.o.payload.lines)
        # A line's last beat waits for its grant, the burst's also for room for its B.
        beat_ready = Signal()
        m.d.comb += [
            write_valid.eq(axi.wvalid & aw.o.valid & line_done & (~burst_done | b.i.ready)),
            beat_ready.eq(aw.o.valid & Mux(line_done, write_grant, 1)),
            axi.wready.eq(beat_ready),
            b.i.valid.eq(write_grant & burst_done),
            b.i.payload.eq(aw.o.payload.id),
            aw.o.ready.eq(write_grant & burst_done),
            bad_w.eq(axi.wvalid & aw.o.valid & (axi.wlast != burst_done)),
        ]
        with m.If(axi.wvalid & beat_ready):
            m.d.sync += [beat.eq(Mux(line_done, 0, beat + 1)),
                         gathered.eq(line_data), gathered_mask.eq(line_mask)]
            with m.If(line_done):
                m.d.sync += [line_index.eq(Mux(burst_done, 0, line_index + 1)),
                             gathered_mask.eq(0)]
        m.d.comb += [axi.bvalid.eq(b.o.valid), axi.bid.eq(b.o.payload), axi.bresp.eq(0),
                     b.o.ready.eq(axi.bready)]

        # One request a cycle: the other kind goes first after a grant when both wait.
        writes_first = Signal()
        take_write = write_valid & (writes_first | ~read_valid)
        m.d.comb += [
            mem.req.valid.eq(read_valid | write_valid),
            write_grant.eq(mem.req.ready & take_write),
            read_grant.eq(mem.req.ready & read_valid & ~take_write),
        ]
        with m.If(mem.req.ready & read_valid & write_valid):
            m.d.sync += writes_first.eq(~take_write)
        with m.If(take_write):
            m.d.comb += [mem.req.payload.addr.eq(aw.o.payload.line + line_index),
                         mem.req.payload.write.eq(1),
                         mem.req.payload.wdata.eq(line_data),
                         mem.req.payload.wmask.eq(line_mask)]
        with m.Else():
            m.d.comb += [mem.req.payload.addr.eq(head.line + done_lines),
                         mem.req.payload.tag.eq(Cat(head.id, Const(0, LAST_TAG_BIT -
                                                                   self._axi.id_width),
                                                    read_last))]

        # Read responses: a line, then its beats.
        resp = mem.resp.payload
        out_beat = Signal(range(beats))
        last_beat = out_beat == beats - 1
        m.d.comb += [
            axi.rvalid.eq(mem.resp.valid),
            axi.rid.eq(resp.tag[:self._axi.id_width]),
            axi.rdata.eq(resp.rdata.word_select(out_beat, width) if beats > 1 else resp.rdata),
            axi.rresp.eq(0),
            axi.rlast.eq(resp.tag[LAST_TAG_BIT] & last_beat),
            mem.resp.ready.eq(axi.rready & last_beat),
        ]
        if beats > 1:
            with m.If(axi.rvalid & axi.rready):
                m.d.sync += out_beat.eq(Mux(last_beat, 0, out_beat + 1))
        return m
