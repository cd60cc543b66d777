"""The frontier queue read back for the next level: each lane's bins in turn, class by class
(Enterprise §4.2: the small queue, then the middle, large and extreme ones), the bins'
counts telling where each ends (the prefix sum of Enterprise §4.1 is their running total).
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.memory.range_streamer import RangeStreamer
from .bin_writer import CLASSES
from .layouts import CLASS_BITS, ENTRY_WORDS, LaneEntry


__all__ = ["QueueReader"]


class QueueReader(wiring.Component):
    """Parameters
    ----------
    addr_width : int
    lanes : int
    window : int
        Lines requested ahead.

    Members
    -------
    start : ``In(1)``
        A pulse: read buffer ``buffer`` with the ``counts`` held from now on.
    buffer : ``In(1)``; queue_base : ``In(addr_width)``; bin_shift : ``In(5)``
    counts : ``In(32).array(4 * lanes)``
        Entries of bin (class c, lane l) at index ``c * lanes + l``.
    entries : ``Out(stream.Signature(LaneEntry))``
    busy : ``Out(1)``
    mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int, lanes: int, window: int = 32):
        check_int("QueueReader", "addr_width", addr_width, high=32)
        check_int("QueueReader", "lanes", lanes)
        check_int("QueueReader", "window", window)
        self._addr_width = addr_width
        self._lanes = lanes
        self._window = window
        super().__init__({
            "start": In(1),
            "buffer": In(1),
            "queue_base": In(addr_width),
            "bin_shift": In(5),
            "counts": In(32).array(CLASSES * lanes),
            "entries": Out(stream.Signature(LaneEntry)),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        bins = CLASSES * self._lanes
        lane_bits = max((self._lanes - 1).bit_length(), 1)
        m.submodules.reader = reader = RangeStreamer(
            addr_width=self._addr_width, item_words=ENTRY_WORDS,
            ctx_width=CLASS_BITS + lane_bits, window=self._window)
        wiring.connect(m, reader.mem, wiring.flipped(self.mem))

        walking = Signal()
        bin_index = Signal(range(bins + 1))
        buffer = Signal()
        count = Signal(32)
        held = [Signal(32, name=f"count{b}") for b in range(bins)]
        with m.Switch(bin_index):
            for b in range(bins):
                with m.Case(b):
                    m.d.comb += count.eq(held[b])
        cls, lane = bin_index // self._lanes, bin_index % self._lanes
        m.d.comb += [
            reader.cmd.valid.eq(walking),
            reader.cmd.payload.base.eq(
                self.queue_base + ((buffer * bins + bin_index) << self.bin_shift)),
            reader.cmd.payload.first.eq(0),
            reader.cmd.payload.count.eq(count),
            reader.cmd.payload.ctx.eq(cls | (lane << CLASS_BITS)),
        ]
        with m.If(reader.cmd.valid & reader.cmd.ready):
            m.d.sync += bin_index.eq(bin_index + 1)
            with m.If(bin_index == bins - 1):
                m.d.sync += walking.eq(0)
        with m.If(self.start):
            m.d.sync += [walking.eq(1), bin_index.eq(0), buffer.eq(self.buffer)]
            m.d.sync += [held[b].eq(self.counts[b]) for b in range(bins)]

        item = reader.items.payload
        m.d.comb += [
            self.entries.valid.eq(reader.items.valid),
            self.entries.payload.entry.eq(item.data),
            self.entries.payload.cls.eq(item.ctx[:CLASS_BITS]),
            self.entries.payload.lane.eq(item.ctx[CLASS_BITS:CLASS_BITS + lane_bits]),
            reader.items.ready.eq(self.entries.ready),
            self.busy.eq(walking | reader.busy),
        ]
        return m
