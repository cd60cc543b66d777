"""Proof that the AXI4 master keeps the AXI4 rules on the channels it drives and, against a
legal slave, answers every read exactly once (bounded).

The design's memory port offers any requests (``AnySeq`` line address, kind, tag; the write
data and mask held at zero, which no property looks at), keeping the stream rules
(assumed), and takes responses whenever it likes. With ``slave="free"`` the slave side is
free: ``awready``, ``wready``, ``arready`` and every R and B input (IDs, responses,
``rlast``, valid) are ``AnySeq`` each cycle, whether or not a legal slave would send them.
Asserted:

* ``aw_rule``, ``w_rule``, ``ar_rule``: once valid, the channel stays valid with the same
  payload until ready (AXI4 A3.2.1);
* ``page``: no burst on AW or AR crosses a 4 KiB boundary, and each is a whole number of
  lines of INCR beats of the bus's width;
* ``w_count``: the W beats of each burst are its ``awlen + 1``, ``wlast`` on the last and on
  no other; a burst's beats go out only once its address is offered or taken (counted: the
  AW lengths taken wait in a queue of the harness until their bursts' beats are through).

With ``slave="legal"`` the slave is a legal AXI4 slave with any delays (the R and B beats
of bursts outstanding only, one ID's in order, IDs interleaved freely, ``rlast`` on each
burst's last beat; see :meth:`AXIMasterHarness._legal_slave`), and also asserted, on the
master's side only (its ports):

* ``outstanding``: at most ``READ_OUTSTANDING`` read and ``WRITE_OUTSTANDING`` write bursts
  in flight;
* ``answered``: every read the design asked for comes back to it exactly once, with its tag
  and its line, in its tag's order; no write line is sent twice;
* ``drained``: once the master says it is ``idle``, every read has been answered, every
  write line sent and every AXI burst answered: nothing lost.

Covers (``mode="cover"``) show that the depth reaches the last beat of a write burst of two
lines and a read line put back together from its beats and handed to the design; with the
legal slave also the master idle after two reads of one tag answered, and after a read and
a write answered.
"""

from amaranth.asserts import AnyConst, AnySeq
from amaranth.hdl import Assert, Assume, Const, Cat, Cover, Elaboratable, Module, Mux, Signal
from amaranth.lib import wiring

from hw.lib.axi.master import AXI4Master
from hw.lib.axi.signature import AXIBurst, AXIResp
from tests.formal.harnesses.common import Properties, as_value, stream_rule


__all__ = ["SCRIPT", "AXIMasterHarness", "make_master", "MasterWithEarlyWlast",
           "MasterWithdrawsAW", "MasterShiftsReads", "MasterLosesAResponse",
           "MasterRepeatsAResponse", "MasterWithMoreReadsInFlight"]

# The master's queues are memories of 512-bit lines: mapped to flip-flops, the fields held
# at zero (wdata, wmask) can be simplified away.
SCRIPT = ("memory_map", "opt -full")

QUEUE = 8       # AW lengths the harness remembers (more than the master may have sent ahead)
INDEX = QUEUE.bit_length() - 1
SLAVES = ("free", "legal")

READ_OUTSTANDING = 2
WRITE_OUTSTANDING = 2
SLAVE_QUEUE = 4     # bursts per ID the legal slave remembers (more than may be in flight)


def make_master(read_outstanding=READ_OUTSTANDING):
    # Two open bursts and a hold of 3 keep the merger's gathering, holding and read/write
    # ordering in the proof at a fraction of the defaults' state (8 open bursts, hold 16).
    return AXI4Master(addr_width=8, tag_width=2, data_width=256, id_width=1,
                      read_outstanding=read_outstanding, write_outstanding=WRITE_OUTSTANDING,
                      max_burst_beats=8, write_buffer=4, open_bursts=2, burst_hold=3)


def channel_rule(m, props, name, valid, ready, payload, *, kind=Assert):
    """Once ``valid``, it stays, and ``payload`` unchanged, until ``ready``."""
    stalled = Signal(name=f"{name}_stalled")
    held = Signal(len(payload), name=f"{name}_held")
    m.d.sync += [stalled.eq(valid & ~ready), held.eq(payload)]
    with m.If(stalled):
        props.add(m, name, valid, kind=kind, src_loc_at=1)
        props.add(m, name, payload == held, kind=kind, src_loc_at=1)


def ring_read(m, entries, index, name):
    """The entry of ``entries`` at ``index`` (a signal, wrapping)."""
    value = Signal(len(entries[0]), name=name)
    for i, entry in enumerate(entries):
        with m.If(index[:(len(entries) - 1).bit_length()] == i):
            m.d.comb += value.eq(entry)
    return value


def ring_write(m, entries, index, value):
    for i, entry in enumerate(entries):
        with m.If(index[:(len(entries) - 1).bit_length()] == i):
            m.d.sync += entry.eq(value)


class AXIMasterHarness(Elaboratable):
    """``dut``: an :class:`AXI4Master` (or a broken variant with its members); ``bound`` the
    proof depth the counters must cover; ``only`` as for the other harnesses (``aw_rule``,
    ``w_rule``, ``ar_rule``, ``page``, ``w_count``)."""

    def __init__(self, *, bound: int = 24, dut=None, only=None, slave: str = "free"):
        if slave not in SLAVES:
            raise ValueError(f"slave must be one of {SLAVES}, not {slave!r}")
        self.bound = bound
        self.slave = slave
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
        # A legal slave drives the R and B payloads from its model (_legal_slave).
        modelled = {"rdata", "rlast", "rresp", "bresp"} if self.slave == "legal" else set()
        for name, member in axi.signature.members.items():
            if member.flow.name == "In" and name not in modelled:
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
        if self.slave == "legal":
            self._legal_slave(m, props, axi)
            self._answers(m, props, dut)
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

    def _legal_slave(self, m, props, axi):
        """Assumed: the slave answers as a legal AXI4 slave, with any delays. R and B hold
        valid and payload until ready; an R beat or a B response comes only for an ID with a
        burst outstanding (a write burst once its address and last beat are both taken),
        the bursts of one ID in the order sent, those of different IDs interleaved freely.
        Driven by the model: ``rlast`` on the burst's last beat and no other, every response
        OKAY, and each R beat's data its own byte address (the bits above it zero), so a line
        handed to the design tells which line the slave read. Asserted: ``outstanding``, at most
        ``READ_OUTSTANDING`` read and ``WRITE_OUTSTANDING`` write bursts in flight."""
        width = (self.bound + 1).bit_length() + 1
        beat_bytes = len(axi.rdata) // 8
        # The payloads but the IDs follow from the model's state, which moves only on a
        # handshake: holding the ID holds them.
        channel_rule(m, props, "slave_r", axi.rvalid, axi.rready, axi.rid, kind=Assume)
        channel_rule(m, props, "slave_b", axi.bvalid, axi.bready, axi.bid, kind=Assume)
        m.d.comb += [axi.rresp.eq(AXIResp.OKAY), axi.bresp.eq(AXIResp.OKAY)]

        ar_taken, r_done = Signal(width), Signal(width)
        aw_taken, w_done, b_done = Signal(width), Signal(width), Signal(width)
        self.slave_counts = dict(ar_taken=ar_taken, r_done=r_done, aw_taken=aw_taken,
                                 b_done=b_done)
        ar_go = axi.arvalid & axi.arready
        r_go = axi.rvalid & axi.rready
        aw_go = axi.awvalid & axi.awready
        w_end = axi.wvalid & axi.wready & axi.wlast
        b_go = axi.bvalid & axi.bready
        m.d.sync += [ar_taken.eq(ar_taken + ar_go), r_done.eq(r_done + (r_go & axi.rlast)),
                     aw_taken.eq(aw_taken + aw_go), w_done.eq(w_done + w_end),
                     b_done.eq(b_done + b_go)]
        props.add(m, "outstanding", ar_taken - r_done <= READ_OUTSTANDING)
        props.add(m, "outstanding", aw_taken - b_done <= WRITE_OUTSTANDING)

        # Reads: a queue of bursts per ID; its head is the burst the ID's next beat is of.
        for i in range(1 << len(axi.arid)):
            addrs = [Signal(len(axi.araddr), name=f"r{i}_addr{j}") for j in range(SLAVE_QUEUE)]
            lens = [Signal(8, name=f"r{i}_len{j}") for j in range(SLAVE_QUEUE)]
            head = Signal(range(SLAVE_QUEUE), name=f"r{i}_head")
            count = Signal(range(SLAVE_QUEUE + 1), name=f"r{i}_count")
            beat = Signal(8, name=f"r{i}_beat")
            push = Signal(name=f"r{i}_push")
            pop = Signal(name=f"r{i}_pop")
            m.d.comb += [push.eq(ar_go & (axi.arid == i)),
                         pop.eq(r_go & (axi.rid == i) & axi.rlast)]
            with m.If(push):
                ring_write(m, addrs, head + count, axi.araddr)
                ring_write(m, lens, head + count, axi.arlen)
            m.d.sync += count.eq(count + push - pop)
            with m.If(pop):
                m.d.sync += head.eq(head + 1)
            head_addr = ring_read(m, addrs, head, f"r{i}_head_addr")
            head_len = ring_read(m, lens, head, f"r{i}_head_len")
            with m.If(axi.rvalid & (axi.rid == i)):
                props.add(m, "slave", count != 0, kind=Assume)
            with m.If(axi.rid == i):
                m.d.comb += [axi.rlast.eq(beat == head_len),
                             axi.rdata.eq(head_addr + beat * beat_bytes)]
            with m.If(r_go & (axi.rid == i)):
                m.d.sync += beat.eq(Mux(axi.rlast, 0, beat + 1))

        # Writes: the IDs of the bursts in AW order; a burst may be answered once its
        # address and its last W beat (W bursts come in AW order) are both taken.
        awids = [Signal(len(axi.awid), name=f"awid{j}") for j in range(SLAVE_QUEUE)]
        with m.If(aw_go):
            ring_write(m, awids, aw_taken, axi.awid)
        done_id = ring_read(m, awids, w_done, "w_done_id")
        for i in range(1 << len(axi.awid)):
            complete = Signal(width, name=f"b{i}_complete")
            answered = Signal(width, name=f"b{i}_answered")
            by_w = w_end & (w_done < aw_taken) & (done_id == i)
            by_aw = aw_go & (aw_taken <= w_done) & (axi.awid == i) & \
                ((aw_taken < w_done) | w_end)
            m.d.sync += [complete.eq(complete + by_w + by_aw),
                         answered.eq(answered + (b_go & (axi.bid == i)))]
            with m.If(axi.bvalid & (axi.bid == i)):
                props.add(m, "slave", answered < complete, kind=Assume)

    def _answers(self, m, props, dut):
        """Asserted, at the design's port (against a legal slave): ``answered``, every read
        the design asked for is answered exactly once, with its tag and its line, in its
        tag's order, and no write line goes out twice; ``drained``, once the master says it
        is ``idle`` every read has been answered, every write line sent and every burst
        answered (nothing lost). One tag and one index are ``AnyConst``: the ``pick``-th
        read of that tag must come back as the ``pick``-th response with that tag."""
        width = (self.bound + 1).bit_length() + 1
        req, resp, axi = dut.mem.req, dut.mem.resp, dut.axi
        beats = 512 // len(axi.wdata)
        tag = AnyConst(len(req.payload.tag))
        pick = AnyConst(width)
        asked, answered = Signal(width), Signal(width)
        picked = Signal(len(req.payload.addr))
        with m.If(req.valid & req.ready & ~req.payload.write & (req.payload.tag == tag)):
            m.d.sync += asked.eq(asked + 1)
            with m.If(asked == pick):
                m.d.sync += picked.eq(req.payload.addr)
        with m.If(resp.valid & (resp.payload.tag == tag)):
            props.add(m, "answered", answered < asked)
            with m.If(answered == pick):
                props.add(m, "answered", resp.payload.rdata[:len(axi.araddr)] ==
                          Cat(Const(0, 6), picked))
            with m.If(resp.ready):
                m.d.sync += answered.eq(answered + 1)

        lines, sent = Signal(width), Signal(width + 2)
        with m.If(req.valid & req.ready & req.payload.write):
            m.d.sync += lines.eq(lines + 1)
        with m.If(axi.wvalid & axi.wready):
            m.d.sync += sent.eq(sent + 1)
        props.add(m, "answered", sent <= lines * beats)
        counts = self.slave_counts
        with m.If(dut.idle):
            props.add(m, "drained", answered == asked)
            props.add(m, "drained", sent == lines * beats)
            props.add(m, "drained", counts["ar_taken"] == counts["r_done"])
            props.add(m, "drained", counts["aw_taken"] == counts["b_done"])
        props.add(m, "reach", dut.idle & (answered == 2), kind=Cover)
        props.add(m, "reach", dut.idle & (counts["b_done"] != 0) & (answered != 0), kind=Cover)


# Broken variants: each must make the proof fail (tests/formal/test_formal.py).

class _WrappedMaster(wiring.Component):
    """An AXI4Master whose members are passed through; a subclass changes one."""

    def __init__(self, inner=None):
        self.inner = inner if inner is not None else make_master()
        super().__init__(self.inner.signature)

    def pass_through(self, m, skip=()):
        """Connect every member but those in ``skip`` (AXI member names, or ``"resp"``: the
        design's read responses, then only their payload is passed)."""
        m.submodules.inner = inner = self.inner
        wiring.connect(m, wiring.flipped(self.mem.req), inner.mem.req)
        if "resp" in skip:
            m.d.comb += self.mem.resp.payload.eq(inner.mem.resp.payload)
        else:
            wiring.connect(m, inner.mem.resp, wiring.flipped(self.mem.resp))
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


class MasterLosesAResponse(_WrappedMaster):
    """Takes its first read response from the read path and never hands it to the design."""

    def elaborate(self, platform):
        m = Module()
        inner = self.pass_through(m, skip={"resp"})
        lost = Signal()
        m.d.comb += [self.mem.resp.valid.eq(inner.mem.resp.valid & lost),
                     inner.mem.resp.ready.eq(self.mem.resp.ready | ~lost)]
        with m.If(inner.mem.resp.valid):
            m.d.sync += lost.eq(1)
        return m


class MasterRepeatsAResponse(_WrappedMaster):
    """Hands its first read response to the design twice."""

    def elaborate(self, platform):
        m = Module()
        inner = self.pass_through(m, skip={"resp"})
        repeated = Signal()
        m.d.comb += [self.mem.resp.valid.eq(inner.mem.resp.valid),
                     inner.mem.resp.ready.eq(self.mem.resp.ready & repeated)]
        with m.If(self.mem.resp.valid & self.mem.resp.ready):
            m.d.sync += repeated.eq(1)
        return m


class MasterWithMoreReadsInFlight(_WrappedMaster):
    """An AXI4Master configured for one more read burst in flight than the proof allows."""

    def __init__(self):
        super().__init__(make_master(READ_OUTSTANDING + 1))

    def elaborate(self, platform):
        m = Module()
        self.pass_through(m)
        return m
