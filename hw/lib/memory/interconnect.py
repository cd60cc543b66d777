"""A shared memory system of several channels (DDR channels, HBM pseudo-channels) behind the
in-order memory clients of a design (Graphicionado §V: several streams share one memory).

Lines are interleaved across the channels by the low ``log2(channels)`` bits of their line
address, so a client's sequential stream spreads over every channel. Each channel answers on
its own, and may reorder its answers across clients (tags), so a client's reads come back out
of order across channels; a per-client :class:`ReorderBuffer` puts them back into the client's
request order. Its slot is reserved before a read is sent, so a channel's response is always
taken within ``channels`` cycles, whatever the clients do: no client's back-pressure can hold
up a channel, hence no deadlock across channels.

Each channel has a round-robin :class:`hw.lib.memory.arbiter.MemoryArbiter` of its own (fairness
between clients per channel, the reads in flight of the channel limited, requests tagged with
the client's index). With one channel the interconnect is that arbiter alone.
"""

from amaranth.hdl import C, Cat, Module, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, is_power_of_two, check_int
from hw.lib.memory.arbiter import MemoryArbiter
from hw.lib.memory.port import LINE_BITS, MEMORY_TAG_WIDTH, MemoryPortSignature, mem_port_signature
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.round_robin import RoundRobin


__all__ = ["MAX_CHANNELS", "MemoryInterconnect", "ReorderBuffer"]

MAX_CHANNELS = 16


def _check_channels(channels: int):
    if not (isinstance(channels, int) and is_power_of_two(channels)
            and 1 <= channels <= MAX_CHANNELS):
        raise ConfigError(f"channels must be a power of two from 1 to {MAX_CHANNELS}, "
                          f"not {channels!r}")


class ReorderBuffer(wiring.Component):
    """One client's side of the interconnect: its requests sent to the channel of their line,
    its read responses, coming back from the channels in any order, given back in its request
    order.

    A read is sent only with a slot of the buffer reserved for its line (slots are handed out
    in request order, a circular buffer); the slot's number waits in a queue of the read's
    channel, which answers the client's reads in order, so each response finds its slot. One
    response is written a cycle, the channels taking turns (round robin: a channel's
    ``resp.ready`` depends on the other channels' ``resp.valid`` in the same cycle); the
    oldest slot is given to the client once filled, from a registered read of the storage.
    Writes need no slot and go straight through (the client's requests are passed on in its
    order; its ``req.ready`` is that of the channel its head request goes to).

    Parameters
    ----------
    channels : int
        A power of two, 1..16.
    addr_width : int
    depth : int
        Slots: reads of this client in flight (sent, or answered and not yet taken by the
        client) at most; a power of two, at least 2. The storage is ``depth`` lines.

    Members
    -------
    client : ``In(MemoryPortSignature(addr_width))``
        The client's port; read responses in request order.
    channels : ``Out(MemoryPortSignature(addr_width)).array(channels)``
        Towards channel ``c``'s arbiter: the requests for lines with ``addr % channels == c``
        (full address), in the client's order; the responses of that channel in order.
    """

    def __init__(self, *, channels: int, addr_width: int, depth: int):
        check_int("ReorderBuffer", "addr_width", addr_width, high=32)
        _check_channels(channels)
        if not (is_power_of_two(depth) and depth >= 2):
            raise ConfigError(f"reorder depth must be a power of two of at least 2, not {depth}")
        self._channels = channels
        self._depth = depth
        super().__init__({
            "client": In(MemoryPortSignature(addr_width)),
            "channels": Out(MemoryPortSignature(addr_width)).array(channels),
        })

    def elaborate(self, platform):
        m = Module()
        n, depth = self._channels, self._depth
        slot_bits = depth.bit_length() - 1
        # Slots handed out (``alloc``) and given back to the client (``head``), one bit more
        # than a slot number so that a full buffer differs from an empty one.
        alloc = Signal(slot_bits + 1)
        head = Signal(slot_bits + 1)
        # Per channel, the slots of the reads sent to it and not yet answered, oldest first.
        queues = []
        for c in range(n):
            queue = StreamFIFO(slot_bits, depth)
            m.submodules[f"slots{c}"] = queue
            queues.append(queue)
        m.submodules.storage = storage = memory.Memory(shape=LINE_BITS, depth=depth, init=[])
        filled = Signal(depth)          # the slots whose line has come
        set_bits = self._send_and_receive(m, queues, alloc, head, storage.write_port())
        clear_bits = self._give(m, storage.read_port(domain="sync"), head, filled)
        m.d.sync += filled.eq((filled | set_bits) & ~clear_bits)
        return m

    def _send_and_receive(self, m, queues, alloc, head, write):
        """Requests to the channel of their line, a read only with a slot free; responses
        into their slots, one a cycle, the channels in turn. Returns the slot filled (one-hot)."""
        n, depth = self._channels, self._depth
        slot_bits = depth.bit_length() - 1
        sel_bits = n.bit_length() - 1
        req = self.client.req
        room = Signal()
        m.d.comb += room.eq((alloc - head)[:slot_bits + 1] < depth)
        channel = req.payload.addr[:sel_bits] if sel_bits else C(0, 1)
        is_write = req.payload.write
        for c, (port, queue) in enumerate(zip(self.channels, queues)):
            mine = channel == c
            allowed = is_write | (room & queue.i.ready)
            m.d.comb += [
                port.req.payload.eq(req.payload),
                port.req.valid.eq(req.valid & mine & allowed),
                queue.i.payload.eq(alloc[:slot_bits]),
                queue.i.valid.eq(req.valid & mine & ~is_write & room & port.req.ready),
            ]
            with m.If(mine):
                m.d.comb += req.ready.eq(port.req.ready & allowed)
        m.d.sync += alloc.eq(alloc + (req.valid & req.ready & ~is_write))

        m.submodules.response_turn = turn = RoundRobin(n)
        offered = Cat(port.resp.valid & queue.o.valid
                      for port, queue in zip(self.channels, queues))
        chosen = turn.grant
        m.d.comb += [turn.requests.eq(offered), turn.served.eq(chosen)]
        writing = offered.any()
        for c, (port, queue) in enumerate(zip(self.channels, queues)):
            m.d.comb += [port.resp.ready.eq(chosen[c]), queue.o.ready.eq(chosen[c])]
            with m.If(chosen[c]):
                m.d.comb += [write.addr.eq(queue.o.payload),
                             write.data.eq(port.resp.payload.rdata)]
        m.d.comb += write.en.eq(writing)
        set_bits = Signal(depth)
        with m.If(writing):
            m.d.comb += set_bits.eq(C(1, depth) << write.addr)
        return set_bits

    def _give(self, m, read, head, filled):
        """The oldest slot, once filled, to the client (a registered read of the storage).
        Returns the slot given (one-hot)."""
        depth = self._depth
        resp = self.client.resp
        give = Signal()
        head_slot = head[:depth.bit_length() - 1]
        m.d.comb += [
            give.eq(filled.bit_select(head_slot, 1) & (~resp.valid | resp.ready)),
            read.addr.eq(head_slot),
            read.en.eq(give),
            resp.payload.rdata.eq(read.data),
        ]
        clear_bits = Signal(depth)
        with m.If(give):
            m.d.comb += clear_bits.eq(C(1, depth) << head_slot)
            m.d.sync += [head.eq(head + 1), resp.valid.eq(1)]
        with m.Elif(resp.ready):
            m.d.sync += resp.valid.eq(0)
        return clear_bits


class MemoryInterconnect(wiring.Component):
    """``ports`` in-order clients onto ``channels`` memory channels, lines interleaved.

    Channel ``c`` serves the line addresses with ``addr % channels == c``; the full line
    address goes out on the channel. Each client receives its read responses in its own
    request order, although its reads go to channels that answer independently (and each
    channel may reorder across tags, as :class:`hw.lib.memory.arbiter.MemoryArbiter` allows).
    A client's requests to one channel reach it in the client's order, so a read sees every
    earlier write of its client to the line.

    Parameters
    ----------
    ports : int
        Clients, at least 1.
    channels : int
        A power of two, 1..16. With 1 the interconnect is one :class:`MemoryArbiter`.
    addr_width : int
        Width of a line address; more than ``log2(channels)``.
    outstanding : int
        Reads in flight at most PER CHANNEL (each channel's arbiter counts them, at least 2);
        with several channels also per client: each client's :class:`ReorderBuffer` has
        ``reorder_depth`` slots.
    tag_width : int
        Tag width of the channel ports (the client's index); at least ``ceil(log2(ports))``.
    reorder_depth : int or None
        Slots of each client's reorder buffer (lines of storage), a power of two; by default
        ``outstanding`` rounded up to one. Unused with one channel.
    read_only : iterable of int
        Clients that never write (see :class:`MemoryArbiter`).

    Members
    -------
    clients : ``In(MemoryPortSignature(addr_width)).array(ports)``
    channels : ``Out(mem_port_signature(addr_width, tag_width)).array(channels)``
        Requests tagged with the client's index; responses routed by their tag; different
        tags may come back in any order, one tag in request order.
    busy : ``Out(1)``
        A request taken from a client has not yet reached its channel.
    requests : ``Out(channels * ports)``
        Bit ``c * ports + p``: client ``p``'s request entered channel ``c`` this cycle. (Per
        channel read and write counts: count ``channels[c].req`` transfers by ``write``.)
    """

    def __init__(self, *, ports: int, channels: int, addr_width: int, outstanding: int = 128,
                 tag_width: int = MEMORY_TAG_WIDTH, reorder_depth: int | None = None,
                 read_only=()):
        if not isinstance(ports, int) or ports < 1:
            raise ConfigError(f"ports must be at least 1, not {ports!r}")
        _check_channels(channels)
        if addr_width <= channels.bit_length() - 1:
            raise ConfigError(f"addr_width {addr_width} leaves no bits above the channel "
                              f"number of {channels} channels")
        if outstanding < 2:
            raise ConfigError(f"outstanding must be at least 2, not {outstanding}")
        if reorder_depth is None:
            reorder_depth = 1 << (outstanding - 1).bit_length()
        if not (is_power_of_two(reorder_depth) and reorder_depth >= 2):
            raise ConfigError(f"reorder_depth must be a power of two of at least 2, "
                              f"not {reorder_depth}")
        if not 1 <= tag_width or ports > 1 << tag_width:
            raise ConfigError(f"a tag of {tag_width} bits cannot name {ports} clients")
        self._ports = ports
        self._channels = channels
        self._addr_width = addr_width
        self._outstanding = outstanding
        self._tag_width = tag_width
        self._reorder_depth = reorder_depth
        self._read_only = tuple(read_only)
        super().__init__({
            "clients": In(MemoryPortSignature(addr_width)).array(ports),
            "channels": Out(mem_port_signature(addr_width, tag_width)).array(channels),
            "busy": Out(1),
            "requests": Out(channels * ports),
        })

    @property
    def reorder_depth(self) -> int:
        return self._reorder_depth

    def elaborate(self, platform):
        m = Module()
        arbiters = []
        for c in range(self._channels):
            arbiter = MemoryArbiter(ports=self._ports, addr_width=self._addr_width,
                                    outstanding=self._outstanding, tag_width=self._tag_width,
                                    read_only=self._read_only)
            m.submodules[f"arbiter{c}"] = arbiter
            wiring.connect(m, arbiter.bus, wiring.flipped(self.channels[c]))
            arbiters.append(arbiter)
        m.d.comb += [self.busy.eq(Cat(arbiter.busy for arbiter in arbiters).any()),
                     self.requests.eq(Cat(arbiter.requests for arbiter in arbiters))]
        for p, client in enumerate(self.clients):
            if self._channels == 1:
                wiring.connect(m, wiring.flipped(client), arbiters[0].clients[p])
                continue
            rob = ReorderBuffer(channels=self._channels, addr_width=self._addr_width,
                                depth=self._reorder_depth)
            m.submodules[f"reorder{p}"] = rob
            wiring.connect(m, wiring.flipped(client), rob.client)
            for c, arbiter in enumerate(arbiters):
                wiring.connect(m, rob.channels[c], arbiter.clients[p])
        return m
