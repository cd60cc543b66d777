"""The level log: one line per level with what the level did (its direction, frontier per
degree class, edges checked, status reads, hub-cache hits, vertices and hubs visited,
cycles), written to memory for the host's report and compared with the golden model's
counters level by level.
"""

from amaranth.hdl import Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import LINE_BYTES, MemoryPortSignature
from .layouts import LOG_WORDS


__all__ = ["LevelLog", "LogRecord"]

LogRecord = data.StructLayout({name: 32 for name in LOG_WORDS})


class LevelLog(wiring.Component):
    """Members
    -------
    log_base : ``In(addr_width)``
    records : ``In(stream.Signature(LogRecord))``
        Level ``record.level`` goes to line ``log_base + level``.
    mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int):
        check_int("LevelLog", "addr_width", addr_width, high=32)
        super().__init__({
            "log_base": In(addr_width),
            "records": In(stream.Signature(LogRecord)),
            "mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        record = self.records.payload
        m.d.comb += [
            self.mem.req.valid.eq(self.records.valid),
            self.mem.req.payload.addr.eq(self.log_base + record.level),
            self.mem.req.payload.write.eq(1),
            self.mem.req.payload.wdata.eq(record),
            self.mem.req.payload.wmask.eq((1 << LINE_BYTES) - 1),
            self.records.ready.eq(self.mem.req.ready),
            self.mem.resp.ready.eq(1),
        ]
        return m
