"""Proof that the AXI4 master keeps the AXI4 rules on the channels it drives (bounded).

The design's memory port offers any requests (``AnySeq`` line address, kind, tag; the write
data and mask held at zero, which no property looks at), keeping the stream rules
(assumed), and takes responses whenever it likes. The slave side is free: ``awready``,
``wready``, ``arready`` and every R and B input (IDs, responses, ``rlast``, valid) are
``AnySeq`` each cycle, whether or not a legal slave would send them. Asserted:

* ``aw_rule``, ``w_rule``, ``ar_rule``: once valid, the channel stays valid with the same
  payload until ready (AXI4 A3.2.1);
* ``page``: no burst on AW or AR crosses a 4 KiB boundary, and each is a whole number of
  lines of INCR beats of the bus's width;
* ``w_count``: the W beats of each burst are its ``awlen + 1``, ``wlast`` on the last and on
  no other; a burst's beats go out only once its address is offered or taken (counted: the
  AW lengths taken wait in a queue of the harness until their bursts' beats are through).

Covers (``mode="cover"``) show that the depth reaches the last beat of a write burst of two
lines and a read line put back together from its beats and handed to the design.
"""

from amaranth.asserts import AnySeq
from amaranth.hdl import Assume, Cat, Cover, Elaboratable, Module, Mux, Signal
from amaranth.lib import wiring

from hw.lib.axi.master import AXI4Master
from hw.lib.axi.signature import AXIBurst
from tests.formal.harnesses.common import Properties, as_value, stream_rule


__all__ = ["SCRIPT", "AXIMasterHarness", "make_master", "MasterWithEarlyWlast",
           "MasterWithdrawsAW", "MasterShiftsReads"]

# The master's queues are memories of 512-bit lines: mapped to flip-flops, the fields held
# at zero (wdata, wmask) can be simplified away.
SCRIPT = ("memory_map", "opt -full")

QUEUE = 8       # AW lengths the harness remembers (more than the master may have sent ahead)
INDEX = QUEUE.bit_length() - 1


def make_master():
    return AXI4Master(addr_width=8, tag_width=2, data_width=256, id_width=1,
                      read_outstanding=2, write_outstanding=2, max_burst_beats=8,
                      write_buffer=4)


def channel_rule(m, props, name, valid, ready, payload):
    """Once ``valid``, it stays, and ``payload`` unchanged, until ``ready``."""
    stalled = Signal(name=f"{name}_stalled")
    held = Signal(len(payload), name=f"{name}_held")
    m.d.sync += [stalled.eq(valid & ~ready), held.eq(payload)]
    with m.If(stalled):
        props.add(m, name, valid, src_loc_at=1)
        props.add(m, name, payload == held, src_loc_at=1)


class AXIMasterHarness(Elaboratable):
    """``dut``: an :class:`AXI4Master` (or a broken variant with its members); ``bound`` the
    proof depth the counters must cover; ``only`` as for the other harnesses (``aw_rule``,
    ``w_rule``, ``ar_rule``, ``page``, ``w_count``)."""

    def __init__(self, *, bound: int = 24, dut=None, only=None):
        self.bound = bound
        self.dut = dut if dut is not None else make_master()
        self.only = only

    def elaborate(self, platform):
        m = Module()
        props = self.properties = Properties(self.only)
        m.submodules.dut = dut = self.dut
        axi, req = dut.axi, dut.mem.req
        m.d.comb += [
            req.valid.eq(AnySeq(1)), req.payload.addr.eq(AnySeq(len(req.payload.addr))),
            req.payload.write.eq(AnySeq(1)), req.payload.tag.eq(AnySeq(len(req.payload.tag))),
            req.payload.wdata.eq(0), req.payload.wmask.eq(0),
            dut.mem.resp.ready.eq(AnySeq(1)),
        ]
        stream_rule(m, props, "client_rule", req, kind=Assume,
                    payload=Cat(req.payload.addr, req.payload.write, req.payload.tag))
        for name, member in axi.signature.members.items():
            if member.flow.name == "In":
                value = as_value(getattr(axi, name))
                m.d.comb += value.eq(AnySeq(len(value)))
        channel_rule(m, props, "aw_rule", axi.awvalid, axi.awready,
                     Cat(axi.awid, axi.awaddr, axi.awlen, axi.awsize, axi.awburst))
        channel_rule(m, props, "w_rule", axi.wvalid, axi.wready,
                     Cat(axi.wdata, axi.wstrb, axi.wlast))
        channel_rule(m, props, "ar_rule", axi.arvalid, axi.arready,
                     Cat(axi.arid, axi.araddr, axi.arlen, axi.arsize, axi.arburst))
        beat_bytes = len(axi.wdata) // 8
        beats = 512 // len(axi.wdata)
        for valid, addr, length, size, burst in (
                (axi.awvalid, axi.awaddr, axi.awlen, axi.awsize, axi.awburst),
                (axi.arvalid, axi.araddr, axi.arlen, axi.arsize, axi.arburst)):
            end = Signal(len(addr) + 1)
            m.d.comb += end.eq(addr + (length + 1) * beat_bytes - 1)
            with m.If(valid):
                props.add(m, "page", addr[12:] == end[12:])
                props.add(m, "page", addr[:6] == 0)
                props.add(m, "page", length[:(beats - 1).bit_length()] == beats - 1)
                props.add(m, "page", size == beat_bytes.bit_length() - 1)
                props.add(m, "page", burst == AXIBurst.INCR)
        self._w_count(m, props, axi)
        return m

    def _w_count(self, m, props, axi):
        width = (self.bound + 1).bit_length()
        taken, finished, beat = Signal(width), Signal(width), Signal(8)
        lengths = [Signal(8, name=f"awlen{i}") for i in range(QUEUE)]
        with m.If(axi.awvalid & axi.awready):
            m.d.sync += taken.eq(taken + 1)
            for i in range(QUEUE):
                with m.If(taken[:INDEX] == i):
                    m.d.sync += lengths[i].eq(axi.awlen)
        current = Signal(8)
        for i in range(QUEUE):
            with m.If(finished[:INDEX] == i):
                m.d.comb += current.eq(Mux(finished < taken, lengths[i], axi.awlen))
        props.add(m, "w_count", taken - finished < QUEUE)
        with m.If(axi.wvalid):
            props.add(m, "w_count", (finished < taken) | axi.awvalid)
            props.add(m, "w_count", axi.wlast == (beat == current))
        with m.If(axi.wvalid & axi.wready):
            m.d.sync += beat.eq(Mux(axi.wlast, 0, beat + 1))
            with m.If(axi.wlast):
                m.d.sync += finished.eq(finished + 1)
        props.add(m, "reach", axi.wvalid & axi.wready & axi.wlast & (beat == 3), kind=Cover)
        props.add(m, "reach", self.dut.mem.resp.valid & self.dut.mem.resp.ready, kind=Cover)


# Broken variants: each must make the proof fail (tests/formal/test_formal.py).

class _WrappedMaster(wiring.Component):
    """An AXI4Master whose members are passed through; a subclass changes one."""

    def __init__(self):
        self.inner = make_master()
        super().__init__(self.inner.signature)

    def pass_through(self, m, skip=()):
        m.submodules.inner = inner = self.inner
        wiring.connect(m, wiring.flipped(self.mem), inner.mem)
        for name, member in self.axi.signature.members.items():
            if name in skip:
                continue
            ours, theirs = getattr(self.axi, name), getattr(inner.axi, name)
            m.d.comb += ours.eq(theirs) if member.flow.name == "Out" else theirs.eq(ours)
        m.d.comb += [self.error.eq(inner.error), self.error_cause.eq(inner.error_cause),
                     self.writes_pending.eq(inner.writes_pending), self.idle.eq(inner.idle)]
        return inner


class MasterWithEarlyWlast(_WrappedMaster):
    """Raises ``wlast`` on the first beat of every burst as well."""

    def elaborate(self, platform):
        m = Module()
        inner = self.pass_through(m, skip={"wlast"})
        first = Signal(init=1)
        with m.If(inner.axi.wvalid & inner.axi.wready):
            m.d.sync += first.eq(inner.axi.wlast)
        m.d.comb += self.axi.wlast.eq(inner.axi.wlast | first)
        return m


class MasterWithdrawsAW(_WrappedMaster):
    """Offers its write address only while ``wready`` is high."""

    def elaborate(self, platform):
        m = Module()
        inner = self.pass_through(m, skip={"awvalid", "awready"})
        m.d.comb += [self.axi.awvalid.eq(inner.axi.awvalid & self.axi.wready),
                     inner.axi.awready.eq(self.axi.awready & self.axi.wready)]
        return m


class MasterShiftsReads(_WrappedMaster):
    """Reads from one line further on than asked (a burst ending a page then crosses it)."""

    def elaborate(self, platform):
        m = Module()
        inner = self.pass_through(m, skip={"araddr"})
        m.d.comb += self.axi.araddr.eq(inner.axi.araddr + 64)
        return m
