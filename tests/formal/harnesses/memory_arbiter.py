"""Proof that the memory arbiter answers every read request exactly once, to the client that
sent it, in that client's order.

The harness holds to the arbiter's interface contract only (clients' request/response
streams in, one memory port out), not to how it routes responses, so that it carries over
to an arbiter that tags its requests:

* each client offers any request each cycle (``AnySeq`` address and read/write), keeping the
  stream rules (assumed); it takes responses whenever it likes (``AnySeq`` ready);
* the memory (:class:`TaggedMemory`) takes requests whenever it likes, up to
  ``memory_outstanding`` reads in flight, and answers each read with a response whose
  ``rdata`` is the request's address and whose tag is the request's, in any order across
  tags and in order within one, keeping the stream rules;
* one client ``c`` and one index ``pick`` are ``AnyConst``: the ``pick``-th response ``c``
  receives must come after its ``pick``-th read request and carry that request's address
  (``order``). As both are any, every client's responses are its own reads' answers, in
  its order, none dropped (the later ones would shift) or repeated;
* ``delivered``: every response the memory gives reaches a client in the same cycle (an
  arbiter that buffers responses would allow ``response_slack`` > 0 here);
* ``output_rule``: the bus requests and the clients' responses keep the stream rules.

Covers (``mode="cover"``) show that the depth reaches two responses to one client and one
to the other.

Bounded proof (BMC): the counters do not wrap within the depth.

"""

from amaranth.asserts import AnyConst, AnySeq
from amaranth.hdl import Assume, Cat, Cover, Elaboratable, Module, Mux, Signal
from amaranth.lib import wiring

from hw.lib.memory.arbiter import MemoryArbiter
from tests.formal.harnesses.common import Properties, stream_rule


__all__ = ["SCRIPT", "ArbiterHarness", "TaggedMemory", "ArbiterSwapsResponses",
           "ArbiterDropsAResponse"]


class TaggedMemory(Elaboratable):
    """The memory side of the proof: takes ``bus.req`` when it likes (``AnySeq``) while it
    has room for ``outstanding`` reads, and answers each read with ``rdata`` = its line
    address and its tag echoed, in any order across tags (``AnySeq`` picks which) but in
    request order within a tag (AXI ID order), an offer held until taken (the stream
    rules)."""

    def __init__(self, bus, addr_width: int, outstanding: int):
        self.bus = bus
        self.addr_width = addr_width
        self.outstanding = outstanding

    def elaborate(self, platform):
        m = Module()
        bus, n = self.bus, self.outstanding
        tag_width = len(bus.req.payload.tag)
        used = Signal(n)
        addrs = [Signal(self.addr_width, name=f"slot_addr{i}") for i in range(n)]
        tags = [Signal(tag_width, name=f"slot_tag{i}") for i in range(n)]
        ages = [Signal(8, name=f"slot_age{i}") for i in range(n)]
        clock = Signal(8)
        free = Signal(range(n))
        m.d.comb += free.eq(n - 1)
        for i in reversed(range(n)):
            with m.If(~used[i]):
                m.d.comb += free.eq(i)
        take = Signal()
        m.d.comb += [take.eq(AnySeq(1)),
                     bus.req.ready.eq(take & (~used.all() | bus.req.payload.write))]
        accept = bus.req.valid & bus.req.ready & ~bus.req.payload.write

        # The answer: any slot in use with no older read of its tag waiting; held once
        # offered.
        pick = Signal(range(n))
        offered = Signal()
        held = Signal(range(n))
        m.d.comb += pick.eq(Mux(offered, held, AnySeq(range(n))))
        eligible = Signal()
        m.d.comb += eligible.eq(0)
        for i in range(n):
            with m.If(pick == i):
                older = Cat(used[j] & (tags[j] == tags[i]) & (ages[j] < ages[i])
                            for j in range(n) if j != i)
                m.d.comb += [eligible.eq(used[i] & ~older.any()),
                             bus.resp.payload.rdata.eq(addrs[i]),
                             bus.resp.payload.tag.eq(tags[i])]
        m.d.comb += bus.resp.valid.eq(eligible & (offered | AnySeq(1)))
        m.d.sync += [offered.eq(bus.resp.valid & ~bus.resp.ready), held.eq(pick)]
        answered = bus.resp.valid & bus.resp.ready
        for i in range(n):
            with m.If(accept & (free == i)):
                m.d.sync += [used[i].eq(1), addrs[i].eq(bus.req.payload.addr),
                             tags[i].eq(bus.req.payload.tag), ages[i].eq(clock)]
            with m.Elif(answered & (pick == i)):
                m.d.sync += used[i].eq(0)
        with m.If(accept):
            m.d.sync += clock.eq(clock + 1)
        return m


# The arbiter's queues are memories of 581-bit requests: mapped to flip-flops, the fields
# the proof holds at zero (wdata, wmask) can be simplified away.
SCRIPT = ("memory_map", "opt -full")


def make_arbiter(ports, addr_width, outstanding):
    return MemoryArbiter(ports=ports, addr_width=addr_width, outstanding=outstanding)


class ArbiterHarness(Elaboratable):
    """``dut`` has ``clients`` (``ports`` memory ports) and ``bus``; ``bound`` is the proof
    depth the counters must cover; ``only`` as for the other harnesses (``order``,
    ``delivered``, ``output_rule``)."""

    def __init__(self, *, ports: int = 2, addr_width: int = 4, outstanding: int = 4,
                 memory_outstanding: int = 3, bound: int = 20, response_slack: int = 0,
                 dut=None, only=None):
        self.ports = ports
        self.addr_width = addr_width
        self.memory_outstanding = memory_outstanding
        self.bound = bound
        self.response_slack = response_slack
        self.dut = dut if dut is not None else make_arbiter(ports, addr_width, outstanding)
        self.only = only

    def elaborate(self, platform):
        m = Module()
        props = self.properties = Properties(self.only)
        m.submodules.dut = dut = self.dut
        m.submodules.memory = TaggedMemory(dut.bus, self.addr_width, self.memory_outstanding)
        count_width = (self.bound + 1).bit_length()

        chosen = AnyConst(range(self.ports))
        pick = AnyConst(count_width)
        client_responses = []
        answer_counts = []
        for index, client in enumerate(dut.clients):
            req = client.req
            m.d.comb += [
                req.valid.eq(AnySeq(1)),
                req.payload.addr.eq(AnySeq(self.addr_width)),
                req.payload.write.eq(AnySeq(1)),
                req.payload.wdata.eq(0),
                req.payload.wmask.eq(0),
                client.resp.ready.eq(AnySeq(1)),
            ]
            stream_rule(m, props, "client_rule", req, kind=Assume,
                        payload=Cat(req.payload.addr, req.payload.write))
            stream_rule(m, props, "output_rule", client.resp,
                        payload=client.resp.payload.rdata[:self.addr_width])

            reads = Signal(count_width, name=f"reads{index}")
            answers = Signal(count_width, name=f"answers{index}")
            read = Signal(name=f"read{index}")
            answered = Signal(name=f"answered{index}")
            m.d.comb += [
                read.eq(req.valid & req.ready & ~req.payload.write),
                answered.eq(client.resp.valid & client.resp.ready),
            ]
            client_responses.append(answered)
            answer_counts.append(answers)
            with m.If(read):
                m.d.sync += reads.eq(reads + 1)
            with m.If(answered):
                m.d.sync += answers.eq(answers + 1)
            props.add(m, "order", answers <= reads)

            tracked = Signal(self.addr_width, name=f"tracked{index}")
            with m.If((chosen == index) & read & (reads == pick)):
                m.d.sync += tracked.eq(req.payload.addr)
            with m.If((chosen == index) & answered & (answers == pick)):
                props.add(m, "order", reads > pick)
                props.add(m, "order",
                          client.resp.payload.rdata[:self.addr_width] == tracked)

        # Every response the memory gives reaches a client (within the slack).
        given = Signal(count_width)
        delivered = Signal(count_width)
        with m.If(dut.bus.resp.valid & dut.bus.resp.ready):
            m.d.sync += given.eq(given + 1)
        m.d.sync += delivered.eq(delivered + sum(r.as_unsigned() for r in client_responses))
        props.add(m, "delivered", delivered <= given)
        props.add(m, "delivered", given - delivered <= self.response_slack)
        props.add(m, "delivered", Cat(client_responses).as_unsigned() & (
            Cat(client_responses).as_unsigned() - 1) == 0)

        # wdata and wmask are zero throughout: the rule is checked on the address and kind.
        # For ``mode="cover"``: the depth reaches two responses to one client and one to
        # another, so responses of two clients interleave within the proof.
        props.add(m, "reach", (answer_counts[0] >= 2) & (answer_counts[-1] >= 1), kind=Cover)
        props.add(m, "reach", (answer_counts[-1] >= 2) & (answer_counts[0] >= 1), kind=Cover)

        stream_rule(m, props, "output_rule", dut.bus.req,
                    payload=Cat(dut.bus.req.payload.addr, dut.bus.req.payload.write))
        return m


# Broken variants: each must make the proof fail (tests/formal/test_formal.py).

class _WrappedArbiter(wiring.Component):
    def __init__(self, ports, addr_width, outstanding):
        self.inner = make_arbiter(ports, addr_width, outstanding)
        super().__init__(self.inner.signature)

    def wire(self, m):
        m.submodules.inner = inner = self.inner
        for outer, mine in zip(self.clients, inner.clients):
            m.d.comb += [
                mine.req.valid.eq(outer.req.valid),
                mine.req.payload.eq(outer.req.payload),
                outer.req.ready.eq(mine.req.ready),
                outer.resp.valid.eq(mine.resp.valid),
                outer.resp.payload.eq(mine.resp.payload),
                mine.resp.ready.eq(outer.resp.ready),
            ]
        m.d.comb += [
            self.bus.req.valid.eq(inner.bus.req.valid),
            self.bus.req.payload.eq(inner.bus.req.payload),
            inner.bus.req.ready.eq(self.bus.req.ready),
            inner.bus.resp.valid.eq(self.bus.resp.valid),
            inner.bus.resp.payload.eq(self.bus.resp.payload),
            self.bus.resp.ready.eq(inner.bus.resp.ready),
            self.requests.eq(inner.requests),
            self.busy.eq(inner.busy),
        ]
        return inner


class ArbiterSwapsResponses(_WrappedArbiter):
    """Hands client 0's responses to client 1 and the other way round."""

    def elaborate(self, platform):
        m = Module()
        inner = self.wire(m)
        a, b = self.clients[0].resp, self.clients[1].resp
        ia, ib = inner.clients[0].resp, inner.clients[1].resp
        m.d.comb += [
            a.valid.eq(ib.valid), a.payload.eq(ib.payload), ib.ready.eq(a.ready),
            b.valid.eq(ia.valid), b.payload.eq(ia.payload), ia.ready.eq(b.ready),
        ]
        return m


class ArbiterDropsAResponse(_WrappedArbiter):
    """Swallows client 0's responses to address 0b1111 (takes them, hands nothing on)."""

    def elaborate(self, platform):
        m = Module()
        inner = self.wire(m)
        outer, mine = self.clients[0].resp, inner.clients[0].resp
        swallow = mine.payload.rdata[:4] == 0b1111
        m.d.comb += [
            outer.valid.eq(mine.valid & ~swallow),
            mine.ready.eq(outer.ready | swallow),
        ]
        return m
