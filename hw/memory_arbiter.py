"""Round-robin arbiter joining the pipeline's memory clients onto one memory port.

The memory answers reads in request order, so the arbiter needs no tags: it remembers, in a
FIFO, which client each outstanding read came from and hands the responses back in turn.
"""

from amaranth.hdl import Cat, Module, Signal
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
        Entries of the registered request queue in front of each client's input (0: none; else
        at least 3, the least a registered queue needs to take and give in one cycle). The
        queues make every input of the grant logic a register, so a client's request logic and
        another client's ``ready`` are never on one combinational path.

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
        assert ports >= 1 and outstanding >= 2 and (queue_depth == 0 or queue_depth >= 3)
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
        # Requests leave through a two-entry queue, so that the memory's ready does not reach
        # back through the grant into every client.
        m.submodules.outbox = outbox = StreamFIFO(self.bus.req.payload.shape(), 2)
        wiring.connect(m, outbox.o, wiring.flipped(self.bus.req))

        heads, levels = [], []
        for index, client in enumerate(self.clients):
            if self._queue_depth:
                queue = StreamFIFO(client.req.payload.shape(), self._queue_depth,
                                   buffered=True)
                m.submodules[f"queue{index}"] = queue
                wiring.connect(m, wiring.flipped(client.req), queue.i)
                heads.append(queue.o)
                levels.append(queue.level)
            else:
                heads.append(client.req)
                levels.append(client.req.valid)
        # A registered queue's output is not yet valid in the cycle after it took a request:
        # busy looks at the levels.
        m.d.comb += self.busy.eq(outbox.o.valid | Cat(level != 0 for level in levels).any())

        # Round robin: the first requesting client at or after ``priority`` wins.
        priority = Signal(range(n))
        valid = Cat(req.valid for req in heads)
        grant = Signal(n)
        with m.Switch(priority):
            for first in range(n):
                with m.Case(first):
                    order = [(first + k) % n for k in range(n)]
                    with m.If(valid.any()):
                        for index in reversed(order):
                            with m.If(valid[index]):
                                m.d.comb += grant.eq(1 << index)

        granted_is_read = Signal()
        for index, req in enumerate(heads):
            with m.If(grant[index]):
                m.d.comb += [outbox.i.payload.eq(req.payload),
                             granted_is_read.eq(~req.payload.write)]
        # Writes wait for room in the route FIFO too: then the grant does not depend on what
        # the request is, only on who asks. The room is a register, computed a cycle early
        # with a margin of the one entry that cycle may add: the FIFO's own ready is a compare
        # of its level, which would otherwise lead the grant and the wide queues' read enables.
        room = Signal()
        m.d.sync += room.eq(route.level < self._outstanding - 1)
        m.d.comb += outbox.i.valid.eq(valid.any() & room)
        accepted = outbox.i.valid & outbox.i.ready
        for index, req in enumerate(heads):
            m.d.comb += req.ready.eq(grant[index] & room & outbox.i.ready)
        m.d.comb += [
            self.requests.eq(grant & accepted.replicate(n)),
            route.i.valid.eq(accepted & granted_is_read),
        ]
        for index in range(n):
            with m.If(grant[index]):
                m.d.comb += route.i.payload.eq(index)
                with m.If(accepted):
                    m.d.sync += priority.eq((index + 1) % n)

        # Responses go back to the client at the head of the route FIFO.
        for index, client in enumerate(self.clients):
            mine = route.o.valid & (route.o.payload == index)
            m.d.comb += [client.resp.payload.eq(self.bus.resp.payload),
                         client.resp.valid.eq(self.bus.resp.valid & mine)]
            with m.If(mine):
                m.d.comb += self.bus.resp.ready.eq(client.resp.ready)
        m.d.comb += route.o.ready.eq(self.bus.resp.valid & self.bus.resp.ready)
        return m

