"""Round-robin arbiter joining the pipeline's memory clients onto one memory port.

Each request goes out tagged with its client's index and each response goes back to the
client its tag names, so the memory may return reads of different clients in any order; it
must return a client's own reads (one tag) in request order, as AXI does for one ID.
"""

from amaranth.hdl import Array, C, Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.fanout import COPY_ATTRS, lane_slices
from hw.lib.memory.port import (LINE_LANES, MEMORY_TAG_WIDTH, MemoryPortSignature,
                                line_response_layout, mem_port_signature)
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.memory.response_router import ResponseRouter


__all__ = ["MemoryArbiter"]

GROUP = 4       # clients in a group of the two-level round robin, at most


def _groups(ports: int) -> list[list[int]]:
    """The clients in groups of at most :data:`GROUP` consecutive indices, sizes as equal as
    can be."""
    count = -(-ports // GROUP)
    bounds = [ports * g // count for g in range(count + 1)]
    return [list(range(bounds[g], bounds[g + 1])) for g in range(count)]


def _rotate(m, wanted, first, name):
    """The first of ``wanted`` at or after the index ``first`` names (one-hot), cyclic:
    (one-hot, its index); zero when none is wanted. A sum of
    products of ``wanted`` and ``first`` (no priority chain): two LUT levels at four."""
    k = len(wanted)
    # Nets of their own (``keep``): not folded into the logic they feed.
    one_hot = Signal(k, name=f"{name}_pick", attrs={"keep": 1})
    index = Signal(range(k), name=f"{name}_index")
    for chosen in range(k):
        # ``chosen`` wins from start ``s`` if none between ``s`` and it is wanted.
        terms = [first[(chosen - back) % k] &
                 ~Cat(wanted[(chosen - d) % k] for d in range(1, back + 1)).any()
                 for back in range(k)]
        m.d.comb += one_hot[chosen].eq(wanted[chosen] & Cat(terms).any())
    for bit in range(len(index)):
        m.d.comb += index[bit].eq(Cat(one_hot[j] for j in range(k) if j >> bit & 1).any())
    return one_hot, index


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

    request_slice : bool
        Pass each granted request through a register before the outbox: the clients' queue
        heads then reach one flip-flop, not the outbox's write enable. One cycle more per
        request and an outbox entry more; for a design whose clients are spread over the
        chip.

    The grant is two-level round robin, chosen a cycle ahead: the clients are in groups of
    at most :data:`GROUP` consecutive indices; each group's pick (the member it would send) is
    a register, and so is the grant among the groups, each worked out from registers and
    whether a request goes this cycle alone, so the grant's depth does not grow with the
    clients (a flat round robin over twelve clients was 8.5 ns on the ECP5 estimate). With
    four clients or fewer it is plain round robin. A queue's read enable, which is the clock
    enable of its wide head register, is an AND of registers. Reads are counted a cycle after
    they go and answers a cycle after they come, and any request sent counts as a read for
    the next cycle's room: at the limit a write or an answer costs a cycle.

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
                 responses_never_refused: bool = False):
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
                                                  4 if self._request_slice else 3,
                                                  lanes=LINE_LANES)
        wiring.connect(m, outbox.o, wiring.flipped(self.bus.req))

        heads, levels, requests = self._client_queues(m)
        groups = _groups(n)
        # ``grant`` (one-hot over the groups), each group's ``pick`` (one-hot over its
        # members) and ``go`` are registers: the group that may send this cycle, the member
        # each group would send, and whether the outbox has room and the reads in flight are
        # below the limit. A group is granted only if its pick's queue head is valid, and a
        # pick only names a client whose head is valid, so the valids need not be looked at.
        grant = Signal(len(groups))
        go = Signal()
        group_sends = [Signal(name=f"group{g}_sends") for g in range(len(groups))]
        sending = Signal()
        m.d.comb += [sending.eq(grant.any() & go)]
        m.d.comb += [sends.eq(grant[g] & go) for g, sends in enumerate(group_sends)]
        picks = [Signal(len(members), name=f"group{g}_pick") for g, members in enumerate(groups)]
        indices = [Signal(range(len(members)), name=f"group{g}_index")
                   for g, members in enumerate(groups)]
        index_copies = [[Signal(range(len(members)), name=f"group{g}_index_copy{k}",
                                attrs=COPY_ATTRS) for k in range(LINE_LANES)]
                        for g, members in enumerate(groups)]
        sent = Signal(n)
        for g, members in enumerate(groups):
            for k, client in enumerate(members):
                m.d.comb += sent[client].eq(group_sends[g] & picks[g][k])
        for index, req in enumerate(heads):
            m.d.comb += req.ready.eq(sent[index])
        granted_group = Signal(range(len(groups)))
        group_copies = [Signal(range(len(groups)), name=f"granted_group_copy{k}",
                               attrs=COPY_ATTRS) for k in range(LINE_LANES)]
        granted = self._granted(m, requests, groups, index_copies, group_copies)
        m.d.comb += self.requests.eq(sent)
        # Requests in the outbox, or on their way to it, after this cycle (at most).
        if self._request_slice:
            # The granted request is taken into a register every cycle, sent or not (no
            # clock enable), and ``sending`` into its valid: the grant then reaches one
            # flip-flop and not the write enable of the outbox's wide distributed RAM (once
            # the two-engine DepGraph's critical path on ECP5).
            staged = Signal.like(granted)
            staged_valid = Signal()
            m.d.sync += [staged.eq(granted), staged_valid.eq(sending)]
            m.d.comb += [outbox.i.valid.eq(staged_valid), outbox.i.payload.eq(staged)]
        else:
            m.d.comb += [outbox.i.valid.eq(sending), outbox.i.payload.eq(granted)]
            staged_valid = 0

        # Next cycle's picks and grant, round robin at two levels: in each group, the first
        # member at or after the one after its last sender whose queue head will be valid; among
        # the groups, the first at or after the one after the last to send that will have a
        # pick. Each choice is among at most four (or the groups), from registers and
        # ``sending`` alone, so the grant's depth does not grow with the clients.
        some, more, some_next = self._level_flag_registers(m, levels, sent)
        group_some = Signal(len(groups))        # a group has a request: a register
        group_left = Signal(len(groups))        # and will have one once its pick is sent
        for g, members in enumerate(groups):
            group_some_next = Cat(some_next[c] for c in members).any()
            m.d.sync += group_some[g].eq(group_some_next)
            mine = Cat(some[c] for c in members)
            mine_more = Cat(more[c] for c in members)
            m.d.comb += group_left[g].eq((mine & ~(picks[g] & ~mine_more)).any())
            self._turn(m, f"group{g}", mine, mine_more, group_sends[g], picks[g],
                       [indices[g], *index_copies[g]])
        self._turn(m, "groups", group_some, group_left, sending, grant,
                   [granted_group, *group_copies])
        self._read_limit(m, go, sending, granted, outbox, staged_valid)
        # A registered queue's output is not yet valid in the cycle after it took a request:
        # busy looks at the levels.
        m.d.comb += self.busy.eq(outbox.o.valid | staged_valid | some.any())

        self._responses(m)
        return m

    @staticmethod
    def _turn(m, name, some, left, moved, pick, indexes):
        """The next ``pick`` (one-hot) and its index (binary, into every register of
        ``indexes``: the copies that choose the lanes of the granted request, each a line's
        :data:`LINE_LANES`), all registers, among a group's members or among the groups: the
        first at or after the one after the last sent (``start``) that will have a request. ``some``: which have one now (registers);
        ``left``: whether the pick still has one once it is sent. Both choices, as if the pick
        is sent now (``moved``: from the one after the pick, which comes last) and as if not,
        are worked out from ``some`` and small registers alone; ``moved`` chooses."""
        k = len(some)
        gone = Signal(k, name=f"{name}_gone")       # the pick, if it has no request left
        m.d.comb += gone.eq(pick & ~left)
        kept = Signal(name=f"{name}_moved", attrs={"keep": 1})
        m.d.comb += kept.eq(moved)
        if k == 1:
            m.d.sync += pick.eq(some & ~(kept & gone))
            return
        start = Signal(k, name=f"{name}_start", init=1)
        after = Cat(pick[-1], pick[:-1])        # wires: the one after the pick
        if_sent = _rotate(m, some, after, f"{name}_if_sent")
        if_idle = _rotate(m, some, start, f"{name}_if_idle")
        with m.If(kept):
            m.d.sync += [pick.eq(if_sent[0] & ~gone), start.eq(after)]
            m.d.sync += [index.eq(if_sent[1]) for index in indexes]
        with m.Else():
            m.d.sync += pick.eq(if_idle[0])
            m.d.sync += [index.eq(if_idle[1]) for index in indexes]

    def _granted(self, m, requests, groups, index_copies, group_copies):
        """The request of the granted group's pick, with the client's index as its tag:
        binary-indexed multiplexers, a member among its group's then a group, lane by lane,
        each lane under its own copies of the indices."""
        granted = Signal(self.bus.req.payload.shape())
        tagged = [Cat(request.as_value(), C(client, range(self._ports)))
                  for client, request in enumerate(requests)]
        for lane, part in enumerate(lane_slices(len(tagged[0]), LINE_LANES)):
            per_group = []
            for members, copies in zip(groups, index_copies):
                values = [tagged[client][part] for client in members]
                per_group.append(Array(values)[copies[lane]] if len(values) > 1 else values[0])
            m.d.comb += granted.as_value()[part].eq(
                Array(per_group)[group_copies[lane]] if len(per_group) > 1 else per_group[0])
        return granted

    def _read_limit(self, m, go, sending, granted, outbox, staged_valid):
        """``go`` for the next cycle: the outbox will have room and the reads in flight will
        be below the limit. Reads are counted a cycle after they are sent and answers a cycle
        after they come (both registered), so the count is behind at most by one answer: the
        limit holds. Whether a send this cycle is a read is not waited for: any send counts
        as one for the next cycle's ``go`` (a write at the limit costs a cycle)."""
        inflight = Signal(range(self._outstanding + 2))
        read_sent = Signal()
        answered = Signal()
        m.d.sync += [read_sent.eq(sending & ~granted.write),
                     answered.eq(self.bus.resp.valid & self.bus.resp.ready),
                     inflight.eq(inflight + read_sent - answered)]
        counted = inflight + read_sent
        queued = outbox.level + staged_valid
        m.d.sync += go.eq(Mux(sending,
                              (counted + 1 < self._outstanding) & (queued + 1 < outbox.depth),
                              (counted < self._outstanding) & (queued < outbox.depth)))

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
                queue = StreamFIFO(client.req.payload.shape(), self._queue_depth, buffered=True,
                                   lanes=LINE_LANES)
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
        level, kept alongside it) and this cycle's push and pop; and ``some``'s next value."""
        n = self._ports
        some = Signal(n)
        more = Signal(n)
        some_next = Signal(n)
        for index in range(n):
            count = Signal.like(levels[index], name=f"count{index}")
            queue = m.submodules[f"queue{index}"]
            pushed = queue.i.valid & queue.i.ready
            popped = sent[index]
            m.d.sync += count.eq(count + pushed - popped)
            # A pop needs an entry, so count == 1 and a pop leaves none unless one comes in.
            m.d.comb += some_next[index].eq(pushed | (count >= 2) | ((count == 1) & ~popped))
            m.d.sync += [
                some[index].eq(some_next[index]),
                more[index].eq((count >= 3) | ((count == 2) & (pushed | ~popped)) |
                               ((count == 1) & pushed & ~popped)),
            ]
        return some, more, some_next

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
                line_response_layout(), n, never_refused=self._never_refused,
                lanes=LINE_LANES)
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
