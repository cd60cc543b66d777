"""Where a discovery goes: the level and the parent written to memory (the status array
Enterprise §2.1 updates, and Graph500's parent array), the hub bitmap asked whether it is a
hub not counted yet (gamma's numerator, Enterprise equation 1) and, if so, the hub cache
told (§4.3: "cache the ids of the hubs just visited").
"""

from amaranth.hdl import C, Cat, Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import check_int
from hw.lib.memory.port import LINE_BITS, MemoryPortSignature
from hw.lib.stream.fifo import StreamFIFO
from .hub_bitmap import ClaimedDiscovery
from .layouts import Discovery


__all__ = ["DiscoveryWriter"]


class DiscoveryWriter(wiring.Component):
    """Members
    -------
    level : ``In(32)``
    levels_base, parents_base : ``In(addr_width)``
    discoveries : ``In(stream.Signature(Discovery))``
    claim : ``Out(stream.Signature(Discovery))``
    claimed : ``In(stream.Signature(ClaimedDiscovery))``
        The hub bitmap's claim port.
    insert : ``Out(stream.Signature(32))``
        A hub found (to the hub cache).
    written : ``Out(32)``; hubs : ``Out(32)``
        Discoveries written, and hubs among them counted for the first time, since reset.
    busy : ``Out(1)``
    levels_mem, parents_mem : ``Out(MemoryPortSignature(addr_width))``
        Writes only: a word of a line, by its byte mask.
    """

    def __init__(self, *, addr_width: int):
        check_int("DiscoveryWriter", "addr_width", addr_width, high=32)
        self._addr_width = addr_width
        super().__init__({
            "level": In(32),
            "levels_base": In(addr_width),
            "parents_base": In(addr_width),
            "discoveries": In(stream.Signature(Discovery)),
            "claim": Out(stream.Signature(Discovery)),
            "claimed": In(stream.Signature(ClaimedDiscovery)),
            "insert": Out(stream.Signature(32)),
            "written": Out(32),
            "hubs": Out(32),
            "busy": Out(1),
            "levels_mem": Out(MemoryPortSignature(addr_width)),
            "parents_mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        # Discoveries go straight on to the hub bitmap (a port of this block's own).
        m.d.comb += [self.claim.valid.eq(self.discoveries.valid),
                     self.claim.payload.eq(self.discoveries.payload),
                     self.discoveries.ready.eq(self.claim.ready)]
        write = data.StructLayout({"addr": self._addr_width, "wdata": LINE_BITS, "wmask": 64})
        queues = {}
        for name in ("levels", "parents"):
            m.submodules[name] = queue = StreamFIFO(write, 2)
            port = getattr(self, f"{name}_mem")
            m.d.comb += [
                port.req.valid.eq(queue.o.valid),
                port.req.payload.addr.eq(queue.o.payload.addr),
                port.req.payload.write.eq(1),
                port.req.payload.wdata.eq(queue.o.payload.wdata),
                port.req.payload.wmask.eq(queue.o.payload.wmask),
                queue.o.ready.eq(port.req.ready),
                port.resp.ready.eq(1),
            ]
            queues[name] = queue
        m.submodules.inserts = inserts = StreamFIFO(32, 2)
        wiring.connect(m, inserts.o, wiring.flipped(self.insert))

        found = self.claimed.payload.discovery
        hub = self.claimed.payload.hub
        room = queues["levels"].i.ready & queues["parents"].i.ready & inserts.i.ready
        go = self.claimed.valid & room
        mask = (C(0xF, 4) << (found.vertex[:4] << 2))[:64]
        for name, value, base in (("levels", self.level, self.levels_base),
                                  ("parents", found.parent, self.parents_base)):
            queue = queues[name]
            m.d.comb += [
                queue.i.valid.eq(go),
                queue.i.payload.addr.eq(base + (found.vertex >> 4)),
                queue.i.payload.wdata.eq(Cat(*[value[:32]] * 16)),
                queue.i.payload.wmask.eq(mask),
            ]
        m.d.comb += [
            inserts.i.valid.eq(go & hub),
            inserts.i.payload.eq(found.vertex),
            self.claimed.ready.eq(room),
        ]
        with m.If(go):
            m.d.sync += [self.written.eq(self.written + 1), self.hubs.eq(self.hubs + hub)]
        m.d.comb += self.busy.eq(any_busy(self.discoveries.valid, self.claimed.valid,
                                          queues["levels"].o.valid, queues["parents"].o.valid,
                                          inserts.o.valid))
        return m
