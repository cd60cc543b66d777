"""Several requesters sharing one request/response server that answers in request order: how a
DepGraph engine's walks share its vertex-store bank and its memory ports (issue 17, several
walks in flight per engine).

Requests are merged round robin (:class:`hw.lib.stream.arbiter.StreamArbiter`); the number of the
requester of every request that will be answered is kept in a FIFO, and each response goes
to the requester at its head. The server must answer in request order, as the vertex-store
bank answers visits and probes and as one client's reads come back from a memory port.
"""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import MemoryPortSignature, line_request_layout, line_response_layout
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.fifo import StreamFIFO


__all__ = ["OrderedMerge", "MemoryPortMerge"]


class OrderedMerge(wiring.Component):
    """``count`` request streams into one, responses routed back in request order.

    Parameters
    ----------
    request_shape, response_shape : shape-like
    count : int
        Requesters, at least 1.
    outstanding : int
        Requests answered at most in flight (the FIFO of requester numbers); a request waits
        while it is full.
    answered : callable or None
        Request payload to a 1-bit value: the server will answer it (writes to memory are
        not). None: every request is answered.

    Members
    -------
    requests : ``In(stream.Signature(request_shape)).array(count)``
    responses : ``Out(stream.Signature(response_shape)).array(count)``
    request : ``Out(stream.Signature(request_shape))``
        To the server.
    response : ``In(stream.Signature(response_shape))``
        From the server, in the order of its requests.
    busy : ``Out(1)``
        A response is owed.
    """

    def __init__(self, request_shape, response_shape, count: int, *, outstanding: int,
                 answered=None):
        if count < 1:
            raise ConfigError(f"OrderedMerge: count must be at least 1, not {count!r}")
        if outstanding < 1:
            raise ConfigError(f"OrderedMerge: outstanding must be at least 1, not "
                              f"{outstanding!r}")
        self._count = count
        self._outstanding = outstanding
        self._answered = answered
        super().__init__({
            "requests": In(stream.Signature(request_shape)).array(count),
            "responses": Out(stream.Signature(response_shape)).array(count),
            "request": Out(stream.Signature(request_shape)),
            "response": In(stream.Signature(response_shape)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n = self._count
        m.submodules.arbiter = arbiter = StreamArbiter(self.request.payload.shape(), n)
        m.submodules.owners = owners = StreamFIFO(range(max(n, 2)), self._outstanding)
        for source, sink in zip(self.requests, arbiter.i):
            wiring.connect(m, wiring.flipped(source), sink)

        answered = self._answered(arbiter.o.payload) if self._answered else 1
        # A request that will be answered leaves only with its requester's number queued.
        room = owners.i.ready | ~answered
        m.d.comb += [
            self.request.valid.eq(arbiter.o.valid & room),
            self.request.payload.eq(arbiter.o.payload),
            arbiter.o.ready.eq(self.request.ready & room),
            owners.i.valid.eq(arbiter.o.valid & self.request.ready & answered),
        ]
        for k, source in enumerate(self.requests):
            with m.If(source.valid & source.ready):
                m.d.comb += owners.i.payload.eq(k)

        for k, sink in enumerate(self.responses):
            mine = owners.o.valid & (owners.o.payload == k)
            m.d.comb += [sink.valid.eq(self.response.valid & mine),
                         sink.payload.eq(self.response.payload)]
            with m.If(mine):
                m.d.comb += self.response.ready.eq(sink.ready)
        m.d.comb += [owners.o.ready.eq(self.response.valid & self.response.ready),
                     self.busy.eq(owners.o.valid)]
        return m


class MemoryPortMerge(wiring.Component):
    """``count`` memory clients on one memory port whose reads come back in request order
    (an untagged port: one client of the accelerator's memory arbiter).

    Members
    -------
    clients : ``In(MemoryPortSignature(addr_width)).array(count)``
    mem : ``Out(MemoryPortSignature(addr_width))``
    busy : ``Out(1)``
        A read is owed to a client.
    """

    def __init__(self, *, addr_width: int, count: int, outstanding: int):
        check_int("MemoryPortMerge", "addr_width", addr_width, high=32)
        check_int("MemoryPortMerge", "count", count)
        check_int("MemoryPortMerge", "outstanding", outstanding)
        self._addr_width = addr_width
        self._count = count
        self._outstanding = outstanding
        super().__init__({
            "clients": In(MemoryPortSignature(addr_width)).array(count),
            "mem": Out(MemoryPortSignature(addr_width)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.merge = merge = OrderedMerge(
            line_request_layout(self._addr_width), line_response_layout(), self._count,
            outstanding=self._outstanding, answered=lambda request: ~request.write)
        for client, requests, responses in zip(self.clients, merge.requests, merge.responses):
            wiring.connect(m, wiring.flipped(client.req), requests)
            wiring.connect(m, responses, wiring.flipped(client.resp))
        wiring.connect(m, merge.request, wiring.flipped(self.mem.req))
        wiring.connect(m, wiring.flipped(self.mem.resp), merge.response)
        m.d.comb += self.busy.eq(merge.busy)
        return m
