"""Round-robin arbiter joining the pipeline's memory clients onto one memory port.

Each request goes out tagged with its client's index and each response goes back to the
client its tag names, so the memory may return reads of different clients in any order; it
must return a client's own reads (one tag) in request order, as AXI does for one ID.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import (MEMORY_TAG_WIDTH, MemoryPortSignature, line_response_layout,
                          mem_port_signature)
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.memory.response_router import ResponseRouter
from hw.lib.stream.round_robin import above, first_request


__all__ = ["MemoryArbiter"]


class MemoryArbiter(wiring.Component):
    """``ports`` client ports in, one memory port out.

    Parameters
    ----------
    ports : int
    addr_width : int
    outstanding : int
        Reads in flight at most (sent and not yet answered; a counter); at least 2.
    queue_depth : int
        Entries of the registered request queue in front of each client's input (at least 3,
        the least a registered queue needs to take and give in one cycle). The queues make
        every input of the grant logic a register, so a client's request logic and another
        client's ``ready`` are never on one combinational path.

    tag_width : int
        Width of the bus tag, which holds the client's index (default
        :data:`hw.lib.memory.port.MEMORY_TAG_WIDTH`); at least ``ceil(log2(ports))``.
    read_only : iterable of int
        Clients that never write: their queues hold only the line address, not a line of
        write data and its byte mask (a 3-entry queue of a full request is 1,800 flip-flops
        that synthesis cannot remove, since their initial contents are unknown).
    response_buffer : bool
        Take the responses into a :class:`hw.lib.memory.response_router.ResponseRouter` before they are
        handed to their clients, their tags decoded on the way in: each client's valid (its
        line queue's write enable) is then a flip-flop of its own, not the memory's tag
        decoded in the same cycle nor one shared read pointer's choice, and the memory's
        ``ready`` is a register. Not a register slice: its output line is clocked on the
        clients' ``ready``, a clock enable spread over 520 flip-flops that every client reads
        (once the two-engine DepGraph's critical path on ECP5); the router's two lines are
        loaded only by the memory's handshake. One cycle more per read and two lines of
        flip-flops; for a design whose clients are spread over the chip.

    responses_never_refused : bool
        The clients never refuse a response (each reserved room for it when it sent the
        read): with ``response_buffer`` the router then takes no client's ``ready`` into its
        registers (:class:`hw.lib.memory.response_router.ResponseRouter`'s
        ``never_refused``), without it the memory's ``ready`` is 1. A client that refuses
        a response all the same loses it.

    level_flags : bool
        Keep whether each client queue holds at least one and at least two requests as
        flip-flops of the arbiter's own, worked out from its pushes and pops, for the next
        grant (which otherwise compares each queue's level, the sum of its inner count and
        output register: once the one-engine DepGraph's deepest path into the grant).

    request_slice : bool
        Pass each granted request through a register before the outbox: the clients' queue
        heads then reach one flip-flop, not the outbox's write enable. One cycle more per
        request and an outbox entry more; for a design whose clients are spread over the
        chip.

    The grant is a register, chosen a cycle ahead among the queue heads that will be valid,
    and so is whether the memory side has room: a queue's read enable, which is the clock
    enable of its wide head register, is an AND of registers.

    Members
    -------
    clients : ``In(MemoryPortSignature(addr_width)).array(ports)``
    bus : ``Out(mem_port_signature(addr_width, tag_width))``
        Requests tagged with the client's index; responses routed by their tag.
    busy : ``Out(1)``
        A request taken from a client has not yet reached the memory.
    requests : ``Out(ports)``
        The client whose request entered the memory this cycle, one-hot (for request
        counters).
    """

    def __init__(self, *, ports: int, addr_width: int, outstanding: int = 128,
                 queue_depth: int = 3, tag_width: int = MEMORY_TAG_WIDTH,
                 read_only=(), response_buffer: bool = False, request_slice: bool = False,
                 responses_never_refused: bool = False, level_flags: bool = False):
        check_int("MemoryArbiter", "addr_width", addr_width, high=32)
        if ports < 1:
            raise ConfigError(f"ports must be at least 1, not {ports}")
        if outstanding < 2:
            raise ConfigError(f"outstanding must be at least 2, not {outstanding}")
        if queue_depth < 3:
            raise ConfigError(f"queue_depth must be at least 3, not {queue_depth}")
        if not 1 <= tag_width or ports > 1 << tag_width:
            raise ConfigError(f"a tag of {tag_width} bits cannot name {ports} clients")
        read_only = frozenset(read_only)
        if not read_only <= set(range(ports)):
            raise ConfigError(f"read_only names clients that do not exist: "
                              f"{sorted(read_only - set(range(ports)))}")
        self._read_only = read_only
        self._response_buffer = response_buffer
        self._request_slice = request_slice
        self._never_refused = responses_never_refused
        self._level_flags = level_flags
        self._ports = ports
        self._outstanding = outstanding
        self._queue_depth = queue_depth
        super().__init__({
            "clients": In(MemoryPortSignature(addr_width)).array(ports),
            "bus": Out(mem_port_signature(addr_width, tag_width)),
            "requests": Out(ports),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n = self._ports
        # Requests leave through a three-entry queue, so that the memory's ready does not reach
        # back through the grant into every client; three entries so that whether it has room
        # can be worked out a cycle ahead without knowing whether the memory takes a request.
        # With the request slice, a sent request spends a cycle in a register first (below),
        # and the outbox's fourth entry keeps one request a cycle going.
        m.submodules.outbox = outbox = StreamFIFO(self.bus.req.payload.shape(),
                                                  4 if self._request_slice else 3)
        wiring.connect(m, outbox.o, wiring.flipped(self.bus.req))

        heads, levels, requests = self._client_queues(m)

        # ``grant`` (one-hot) and ``go`` are registers: the client that may send this cycle,
        # and whether the outbox has room and the reads in flight are below the limit.
        grant = Signal(n)
        go = Signal()
        valid = Cat(req.valid for req in heads)
        sent = Signal(n)
        m.d.comb += sent.eq(grant & valid & go.replicate(n))
        # With the level flags, ``sending`` is kept a net of its own (two LUT levels from
        # the registered grant, heads' valids and ``go``), so that synthesis does not fold it
        # into the logic it feeds (the read count's and the payload's) on the way to the
        # next grant.
        sending = sent.any()
        if self._level_flags:
            kept = Signal(attrs={"keep": 1})
            m.d.comb += kept.eq(sending)
            sending = kept
        for index, req in enumerate(heads):
            m.d.comb += req.ready.eq(sent[index])
        width = len(requests[0].as_value())
        payload = 0
        for index, request in enumerate(requests):
            payload = payload | (request.as_value() & grant[index].replicate(width))
        granted_index = Signal(range(n))
        for index in range(n):
            with m.If(grant[index]):
                m.d.comb += granted_index.eq(index)
        granted = Signal(self.bus.req.payload.shape())
        m.d.comb += [granted.eq(Cat(payload, granted_index)),   # the tag above the request
                     self.requests.eq(sent)]
        # Requests in the outbox, or on their way to it, after this cycle (at most).
        if self._request_slice:
            # The granted request is taken into a register every cycle, sent or not (no
            # clock enable), and ``sending`` into its valid: the queue heads' valids, which
            # sit with their clients across the chip, then reach one flip-flop and not the
            # write enable of the outbox's wide distributed RAM (once the two-engine
            # DepGraph's critical path on ECP5).
            staged = Signal.like(granted)
            staged_valid = Signal()
            m.d.sync += [staged.eq(granted), staged_valid.eq(sending)]
            m.d.comb += [outbox.i.valid.eq(staged_valid), outbox.i.payload.eq(staged)]
            queued = outbox.level + staged_valid + sending
        else:
            m.d.comb += [outbox.i.valid.eq(sending), outbox.i.payload.eq(granted)]
            staged_valid = 0
            queued = outbox.level + sending

        # Next cycle's grant, round robin: the first client at or after the one after the
        # last to send whose queue head will be valid. A buffered queue's head is valid next
        # cycle exactly if it holds more entries than it gives now. Writes wait for the read
        # limit too: then the grant does not depend on what the request is, only on who asks.
        # ``at_or_after`` is a mask of the clients from that one on: after a send, those above
        # the sender (none after the last: then the lowest candidate wins, as a wrap to
        # client 0 would give).
        at_or_after = Signal(n)
        above_granted = Signal(n)
        m.d.comb += above_granted.eq(above(grant))
        with m.If(sending):
            m.d.sync += at_or_after.eq(above_granted)
        # Whether a request goes this cycle comes from the queue heads' valid, the last thing
        # known: both grants, as if one goes and as if none does, are worked out from
        # registers alone, and ``sending`` only chooses between them.
        if self._level_flags:
            some, more = self._level_flag_registers(m, levels, sent)
            will_have = Cat(Mux(grant[index], more[index], some[index]) for index in range(n))
        else:
            some = Cat(level != 0 for level in levels)
            will_have = Cat(level > grant[index] for index, level in enumerate(levels))
        if_sent = first_request(m, will_have, above_granted, "if_sent")
        if_idle = first_request(m, some, at_or_after, "if_idle")
        m.d.sync += grant.eq(Mux(sending, if_sent, if_idle))
        # Reads in flight: sent to the outbox and not yet answered. At most one read is sent
        # a cycle, so a read may go next cycle if the count with this cycle's read is below
        # the limit (an answer this cycle is not waited for); the outbox likewise.
        inflight = Signal(range(self._outstanding + 1))
        read_sent = Signal()
        answered = Signal()
        m.d.comb += [read_sent.eq(sending & ~granted.write),
                     answered.eq(self.bus.resp.valid & self.bus.resp.ready)]
        m.d.sync += inflight.eq(inflight + read_sent - answered)
        # The outbox never refuses: a request sent now enters it (with the slice, next
        # cycle), and the next may go only if it too will find room.
        m.d.sync += go.eq((inflight + read_sent < self._outstanding) &
                          (queued < outbox.depth))
        # A registered queue's output is not yet valid in the cycle after it took a request:
        # busy looks at the levels.
        m.d.comb += self.busy.eq(outbox.o.valid | staged_valid | some.any())

        self._responses(m)
        return m

    def _client_queues(self, m):
        """Each client's request queue (a read-only client's holds addresses alone): their
        heads, levels and the requests at their heads."""
        heads, levels, requests = [], [], []
        for index, client in enumerate(self.clients):
            if index in self._read_only:
                queue = StreamFIFO(client.req.payload.addr.shape(), self._queue_depth,
                                   buffered=True)
                m.d.comb += [queue.i.payload.eq(client.req.payload.addr),
                             queue.i.valid.eq(client.req.valid),
                             client.req.ready.eq(queue.i.ready)]
                request = Signal(client.req.payload.shape())
                m.d.comb += request.addr.eq(queue.o.payload)
            else:
                queue = StreamFIFO(client.req.payload.shape(), self._queue_depth, buffered=True)
                wiring.connect(m, wiring.flipped(client.req), queue.i)
                request = queue.o.payload
            m.submodules[f"queue{index}"] = queue
            heads.append(queue.o)
            levels.append(queue.level)
            requests.append(request)
        return heads, levels, requests

    def _level_flag_registers(self, m, levels, sent):
        """Whether each client queue holds at least one (``some``) and at least two
        (``more``) requests, as registers: from a count of the arbiter's own (the queue's
        level, kept alongside it) and this cycle's push and pop."""
        n = self._ports
        some = Signal(n)
        more = Signal(n)
        for index in range(n):
            count = Signal.like(levels[index], name=f"count{index}")
            queue = m.submodules[f"queue{index}"]
            pushed = queue.i.valid & queue.i.ready
            popped = sent[index]
            m.d.sync += count.eq(count + pushed - popped)
            # A pop needs an entry, so count == 1 and a pop leaves none unless one comes in.
            m.d.sync += [
                some[index].eq(pushed | (count >= 2) | ((count == 1) & ~popped)),
                more[index].eq((count >= 3) | ((count == 2) & (pushed | ~popped)) |
                               ((count == 1) & pushed & ~popped)),
            ]
        return some, more

    def _responses(self, m):
        """Responses go back to the client their tag names (``answered`` counts them as the
        memory hands them over, before the router if there is one)."""
        n = self._ports
        resp = self.bus.resp
        mine = Cat(resp.payload.tag == index for index in range(n))
        if self._response_buffer:
            # The tag is decoded before the router, which gives each client a valid of its
            # own from a register: the write enable of a wide line queue placed anywhere.
            m.submodules.response_router = router = ResponseRouter(
                line_response_layout(), n, never_refused=self._never_refused)
            m.d.comb += [router.i.valid.eq(resp.valid),
                         router.i.payload.data.rdata.eq(resp.payload.rdata),
                         router.i.payload.clients.eq(mine),
                         resp.ready.eq(router.i.ready)]
            for index, client in enumerate(self.clients):
                wiring.connect(m, router.o[index], wiring.flipped(client.resp))
            return
        for index, client in enumerate(self.clients):
            m.d.comb += [client.resp.payload.rdata.eq(resp.payload.rdata),
                         client.resp.valid.eq(resp.valid & mine[index])]
            if self._never_refused:
                m.d.comb += resp.ready.eq(1)
                continue
            with m.If(mine[index]):
                m.d.comb += resp.ready.eq(client.resp.ready)
