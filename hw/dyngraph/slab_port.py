"""The slab port: every read and write of the slab pool goes through this one memory client,
in the order it takes them.

A bucket's operations run one after another (the lock CAM), but their slab reads and writes are
issued by different stages; the memory answers a read with every write it accepted before
(``sim/gateware/verilog/graphgen_dram.v``), and a client's requests reach it in the client's order. So a
write that releases a bucket's lock releases it the cycle the write enters this port's queue:
the next operation of that bucket is issued later and its reads queue behind the write (a
vertex's slabs all go through one port). (The GPU slab hash gets the same from a warp's program
order.)
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import LINE_BITS, MemoryPortSignature, line_request_layout
from hw.lib.stream.fifo import StreamFIFO
from .layouts import SLAB_LINES, Slab, SlabWrite


__all__ = ["SlabPort", "slab_read_layout", "slab_out_layout"]

def slab_read_layout(ctx_shape) -> data.StructLayout:
    return data.StructLayout({"slab": 32, "ctx": ctx_shape})


def slab_out_layout(ctx_shape) -> data.StructLayout:
    return data.StructLayout({"slab": Slab, "index": 32, "ctx": ctx_shape})


class SlabPort(wiring.Component):
    """Slab reads (both lines) and line writes of the pool, in one queue.

    Every response is taken the cycle it arrives (a landing queue with room for every line in
    flight): a client that refused one would hold up the shared memory's response channel
    (see :class:`hw.lib.memory.word_lookup.WordLookup`).

    Parameters
    ----------
    addr_width : int
    ctx_shape : shape-like
        Carried from a read to its slab.
    depth : int
        Slab reads in flight at most.
    read_only : bool
        No ``writes`` or ``released`` (the compactor's ports).

    Members
    -------
    pool_base : ``In(addr_width)``
        Line address of slab 0.
    reads : ``In(stream.Signature(slab_read_layout(ctx_shape)))``
    slabs : ``Out(stream.Signature(slab_out_layout(ctx_shape)))``
        In read order.
    writes : ``In(stream.Signature(SlabWrite))``
        Writes have priority over reads not yet started.
    released : ``Out(stream.Signature(32))``
        The lock (bucket) of a ``release``, the cycle its write is queued.
    reads_done : ``Out(32)``; writes_done : ``Out(32)``
        Slabs read and lines written since reset.
    busy : ``Out(1)``
    mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int, ctx_shape, depth: int = 32,
                 read_only: bool = False):
        check_int("SlabPort", "addr_width", addr_width, high=32)
        if depth < 1:
            raise ConfigError(f"SlabPort: depth must be at least 1, not {depth!r}")
        self._addr_width = addr_width
        self._ctx_shape = ctx_shape
        self._depth = depth
        self._read_only = read_only
        writes = {} if read_only else {"writes": In(stream.Signature(SlabWrite)),
                                       "released": Out(stream.Signature(32)),
                                       "writes_done": Out(32)}
        super().__init__({
            "pool_base": In(addr_width),
            "reads": In(stream.Signature(slab_read_layout(ctx_shape))),
            "slabs": Out(stream.Signature(slab_out_layout(ctx_shape))),
            **writes,
            "reads_done": Out(32),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        aw = self._addr_width
        # Read-only: the queue holds addresses (constant write fields stay out of processes).
        m.submodules.requests = requests = StreamFIFO(
            aw if self._read_only else line_request_layout(aw), 2)
        m.submodules.in_flight = in_flight = StreamFIFO(
            data.StructLayout({"index": 32, "ctx": self._ctx_shape}), self._depth,
            buffered=self._depth > 16)
        m.submodules.landing = landing = StreamFIFO(LINE_BITS, SLAB_LINES * self._depth,
                                                    buffered=True)
        address = Signal(aw)
        if self._read_only:
            m.d.comb += [self.mem.req.valid.eq(requests.o.valid),
                         self.mem.req.payload.addr.eq(requests.o.payload),
                         requests.o.ready.eq(self.mem.req.ready),
                         requests.i.payload.eq(address)]
        else:
            wiring.connect(m, requests.o, wiring.flipped(self.mem.req))
            m.d.comb += requests.i.payload.addr.eq(address)

        def line_address(slab, line):
            return self.pool_base + (slab << 1)[:aw] + line

        # Line 1 of a read follows its line 0 at once; otherwise writes go first. The read
        # is taken with its line 0 (its slab kept for line 1), so the read stream is free
        # for another port in the cycle of line 1.
        second = Signal()
        second_slab = Signal(32)
        read = self.reads.payload
        with m.If(second):
            m.d.comb += [requests.i.valid.eq(1),
                         address.eq(line_address(second_slab, 1))]
            with m.If(requests.i.ready):
                m.d.sync += [second.eq(0), self.reads_done.eq(self.reads_done + 1)]
        if not self._read_only:
            with m.Elif(self.writes.valid):
                self._write(m, requests, address, line_address)
        with m.Elif(self.reads.valid):
            m.d.comb += [
                requests.i.valid.eq(in_flight.i.ready),
                address.eq(line_address(read.slab, 0)),
                in_flight.i.valid.eq(requests.i.ready),
                in_flight.i.payload.index.eq(read.slab),
                in_flight.i.payload.ctx.eq(read.ctx),
            ]
            m.d.comb += self.reads.ready.eq(requests.i.ready & in_flight.i.ready)
            with m.If(requests.i.ready & in_flight.i.ready):
                m.d.sync += [second.eq(1), second_slab.eq(read.slab)]

        # Responses land whatever the consumer does: at most two lines per read in flight.
        m.d.comb += [landing.i.valid.eq(self.mem.resp.valid),
                     landing.i.payload.eq(self.mem.resp.payload.rdata),
                     self.mem.resp.ready.eq(landing.i.ready)]
        low = Signal(LINE_BITS)
        low_valid = Signal()
        out = self.slabs
        m.d.comb += [
            out.valid.eq(low_valid & landing.o.valid & in_flight.o.valid),
            out.payload.slab.eq(Cat(low, landing.o.payload)),
            out.payload.index.eq(in_flight.o.payload.index),
            out.payload.ctx.eq(in_flight.o.payload.ctx),
            landing.o.ready.eq(~low_valid | (out.ready & in_flight.o.valid)),
            in_flight.o.ready.eq(out.ready & low_valid & landing.o.valid),
        ]
        with m.If(landing.o.valid & ~low_valid):
            m.d.sync += [low.eq(landing.o.payload), low_valid.eq(1)]
        with m.Elif(out.valid & out.ready):
            m.d.sync += low_valid.eq(0)
        m.d.comb += self.busy.eq(any_busy(second, in_flight.o.valid, requests.o.valid, low_valid))
        return m

    def _write(self, m, requests, address, line_address):
        write = self.writes.payload
        # The release's valid does not wait for its ready (an arbiter may merge them).
        queued = requests.i.ready | ~write.write
        released = self.released.ready | ~write.release
        m.d.comb += [
            requests.i.valid.eq(write.write & released),
            address.eq(line_address(write.slab, write.line)),
            requests.i.payload.write.eq(1),
            requests.i.payload.wdata.eq(write.data),
            requests.i.payload.wmask.eq(write.mask),
            self.writes.ready.eq(queued & released),
            self.released.valid.eq(write.release & queued),
            self.released.payload.eq(write.lock),
        ]
        with m.If(write.write & requests.i.ready & released):
            m.d.sync += self.writes_done.eq(self.writes_done + 1)
