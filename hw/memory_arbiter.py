"""Round-robin arbiter joining the pipeline's memory clients onto one memory port.

The memory answers reads in request order, so the arbiter needs no tags: it remembers, in a
FIFO, which client each outstanding read came from and hands the responses back in turn.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .memory_port import MemoryPortSignature
from .stream_fifo import StreamFIFO


__all__ = ["MemoryArbiter"]


class MemoryArbiter(wiring.Component):
    """``ports`` client ports in, one memory port out.

    Parameters
    ----------
    ports : int
    addr_width : int
    outstanding : int
        Reads in flight at most (the depth of the return-route FIFO, of which one entry is
        kept free); at least 2.
    queue_depth : int
        Entries of the registered request queue in front of each client's input (at least 3,
        the least a registered queue needs to take and give in one cycle). The queues make
        every input of the grant logic a register, so a client's request logic and another
        client's ``ready`` are never on one combinational path.

    The grant is a register, chosen a cycle ahead among the queue heads that will be valid,
    and so is whether the memory side has room: a queue's read enable, which is the clock
    enable of its wide head register, is an AND of registers.

    Members
    -------
    clients : ``In(MemoryPortSignature(addr_width)).array(ports)``
    bus : ``Out(MemoryPortSignature(addr_width))``
    busy : ``Out(1)``
        A request taken from a client has not yet reached the memory.
    requests : ``Out(ports)``
        The client whose request entered the memory this cycle, one-hot (for request
        counters).
    """

    def __init__(self, *, ports: int, addr_width: int, outstanding: int = 128,
                 queue_depth: int = 3):
        assert ports >= 1 and outstanding >= 2 and queue_depth >= 3
        self._ports = ports
        self._outstanding = outstanding
        self._queue_depth = queue_depth
        super().__init__({
            "clients": In(MemoryPortSignature(addr_width)).array(ports),
            "bus": Out(MemoryPortSignature(addr_width)),
            "requests": Out(ports),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n = self._ports
        m.submodules.route = route = StreamFIFO(range(n), self._outstanding,
                                                buffered=self._outstanding > 16)
        # Requests leave through a three-entry queue, so that the memory's ready does not reach
        # back through the grant into every client; three entries so that whether it has room
        # can be worked out a cycle ahead without knowing whether the memory takes a request.
        m.submodules.outbox = outbox = StreamFIFO(self.bus.req.payload.shape(), 3)
        wiring.connect(m, outbox.o, wiring.flipped(self.bus.req))

        heads, levels = [], []
        for index, client in enumerate(self.clients):
            queue = StreamFIFO(client.req.payload.shape(), self._queue_depth, buffered=True)
            m.submodules[f"queue{index}"] = queue
            wiring.connect(m, wiring.flipped(client.req), queue.i)
            heads.append(queue.o)
            levels.append(queue.level)
        # A registered queue's output is not yet valid in the cycle after it took a request:
        # busy looks at the levels.
        m.d.comb += self.busy.eq(outbox.o.valid | Cat(level != 0 for level in levels).any())

        # ``grant`` (one-hot) and ``go`` are registers: the client that may send this cycle,
        # and whether the outbox and the route FIFO have room for a request.
        grant = Signal(n)
        go = Signal()
        valid = Cat(req.valid for req in heads)
        sent = Signal(n)
        m.d.comb += sent.eq(grant & valid & go.replicate(n))
        sending = sent.any()
        for index, req in enumerate(heads):
            m.d.comb += req.ready.eq(sent[index])
        width = len(outbox.i.payload.as_value())
        payload = 0
        for index, req in enumerate(heads):
            payload = payload | (req.payload.as_value() & grant[index].replicate(width))
        granted_index = Signal(range(n))
        for index in range(n):
            with m.If(grant[index]):
                m.d.comb += granted_index.eq(index)
        m.d.comb += [
            outbox.i.valid.eq(sending),
            outbox.i.payload.eq(payload),
            self.requests.eq(sent),
            route.i.valid.eq(sending & ~outbox.i.payload.write),
            route.i.payload.eq(granted_index),
        ]

        # Next cycle's grant, round robin: the first client at or after ``priority`` (the one
        # after the last to send) whose queue head will be valid. A buffered queue's head is
        # valid next cycle exactly if it holds more entries than it gives now. Writes wait for
        # room in the route FIFO too: then the grant does not depend on what the request is,
        # only on who asks.
        priority = Signal(range(n))
        next_priority = Signal(range(n))
        m.d.comb += next_priority.eq(priority)
        with m.If(sending):
            m.d.comb += next_priority.eq(Mux(granted_index == n - 1, 0, granted_index + 1))
        m.d.sync += priority.eq(next_priority)
        candidates = Cat(level > sent[index] for index, level in enumerate(levels))
        next_grant = Signal(n)
        with m.Switch(next_priority):
            for first in range(n):
                with m.Case(first):
                    order = [(first + k) % n for k in range(n)]
                    for index in reversed(order):
                        with m.If(candidates[index]):
                            m.d.comb += next_grant.eq(1 << index)
        m.d.sync += grant.eq(next_grant)
        # The route FIFO gains at most one entry a cycle and the outbox at most one; the
        # memory side's taking a request is not waited for.
        m.d.sync += go.eq((route.level < self._outstanding - 1) &
                          (outbox.level + sending < outbox.depth))

        # Responses go back to the client at the head of the route FIFO.
        for index, client in enumerate(self.clients):
            mine = route.o.valid & (route.o.payload == index)
            m.d.comb += [client.resp.payload.eq(self.bus.resp.payload),
                         client.resp.valid.eq(self.bus.resp.valid & mine)]
            with m.If(mine):
                m.d.comb += self.bus.resp.ready.eq(client.resp.ready)
        m.d.comb += route.o.ready.eq(self.bus.resp.valid & self.bus.resp.ready)
        return m
