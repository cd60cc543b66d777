"""Several slab ports, each its own memory client, the pool's traffic split by the vertex a
slab belongs to: a port takes one line request a cycle, and an edge operation needs three
(two to read a slab, one to write), so one port would hold the unit to a third of an
operation a cycle. Each vertex's slabs are read and written through one port, in order, as
:class:`~hw.dyngraph.slab_port.SlabPort` requires; the sweep reads slab ``s`` through port
``s mod ports`` (the vertex operations wait for the memory to be quiet around it).

The reads and the writes enter through register slices: the arbiters' grants, the allocator's
and the vertex operations' choices are then not in one path with a port's choice between a
write and a read, its line address adder and its request queue (nor is the port's ready in
theirs). A write releases its lock when it enters its port, as before, so a slice costs a
cycle and changes no order; ``busy`` counts what the slices hold.
"""

from amaranth.hdl import Module, Mux
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.register_slice import StreamRegisterSlice
from hw.lib.stream.select import StreamDemux
from .layouts import SlabCtx, SlabPurpose, SlabWrite
from .slab_port import SlabPort, slab_out_layout, slab_read_layout


__all__ = ["SlabPorts"]

READ_QUEUE_DEPTH = 4


class SlabPorts(wiring.Component):
    """Parameters
    ----------
    ports : int
        1, 2 or 4.
    addr_width : int
    depth : int
        Slab reads in flight per port.

    Members
    -------
    pool_base : ``In(addr_width)``
    reads : ``In(stream.Signature(slab_read_layout(SlabCtx)))``
    slabs : ``Out(stream.Signature(slab_out_layout(SlabCtx)))``
        Each port's in its order; the ports' interleaved.
    writes : ``In(stream.Signature(SlabWrite))``
    released : ``Out(stream.Signature(32))``
    reads_done, writes_done : ``Out(32)``
    busy : ``Out(1)``
    mem : ``Out(MemoryPortSignature(addr_width)).array(ports)``
    """

    def __init__(self, *, ports: int, addr_width: int, depth: int):
        check_int("SlabPorts", "addr_width", addr_width, high=32)
        check_int("SlabPorts", "depth", depth)
        if ports not in (1, 2, 4):
            raise ConfigError(f"SlabPorts: ports must be 1, 2 or 4, not {ports!r}")
        self._ports = ports
        self._addr_width = addr_width
        self._depth = depth
        super().__init__({
            "pool_base": In(addr_width),
            "reads": In(stream.Signature(slab_read_layout(SlabCtx))),
            "slabs": Out(stream.Signature(slab_out_layout(SlabCtx))),
            "writes": In(stream.Signature(SlabWrite)),
            "released": Out(stream.Signature(32)),
            "reads_done": Out(32),
            "writes_done": Out(32),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)).array(ports),
        })

    def elaborate(self, platform):
        m = Module()
        count = self._ports
        bits = count.bit_length() - 1
        ports, queues = [], []
        for k in range(count):
            m.submodules[f"port{k}"] = port = SlabPort(
                addr_width=self._addr_width, ctx_shape=SlabCtx, depth=self._depth)
            m.d.comb += port.pool_base.eq(self.pool_base)
            wiring.connect(m, port.mem, wiring.flipped(self.mem[k]))
            ports.append(port)

        def read_route(p):
            if not bits:
                return 0
            return Mux(p.ctx.purpose == SlabPurpose.SWEEP, p.slab[:bits], p.ctx.op.u[:bits])

        m.submodules.read_split = read_split = StreamDemux(slab_read_layout(SlabCtx), count,
                                                           route=read_route)
        m.submodules.write_split = write_split = StreamDemux(
            SlabWrite, count, route=(lambda p: p.vertex[:bits]) if bits else (lambda p: 0))
        m.submodules.slab_merge = slab_merge = StreamArbiter(slab_out_layout(SlabCtx), count)
        m.submodules.release_merge = release_merge = StreamArbiter(32, count)
        m.submodules.read_slice = read_slice = StreamRegisterSlice(slab_read_layout(SlabCtx))
        m.submodules.write_slice = write_slice = StreamRegisterSlice(SlabWrite)
        wiring.connect(m, wiring.flipped(self.reads), read_slice.i)
        wiring.connect(m, wiring.flipped(self.writes), write_slice.i)
        wiring.connect(m, read_slice.o, read_split.i)
        wiring.connect(m, write_slice.o, write_split.i)
        for k, port in enumerate(ports):
            if count > 1:
                # A port takes a read only between its other line requests (two cycles a
                # read); a few entries of its own keep a busy port from holding the shared
                # read stream, and with it the other ports, back.
                m.submodules[f"reads{k}"] = queue = StreamFIFO(slab_read_layout(SlabCtx),
                                                               READ_QUEUE_DEPTH)
                queues.append(queue)
                wiring.connect(m, read_split.o[k], queue.i)
                wiring.connect(m, queue.o, port.reads)
            else:
                wiring.connect(m, read_split.o[k], port.reads)
            wiring.connect(m, write_split.o[k], port.writes)
            wiring.connect(m, port.slabs, slab_merge.i[k])
            wiring.connect(m, port.released, release_merge.i[k])
        wiring.connect(m, slab_merge.o, wiring.flipped(self.slabs))
        wiring.connect(m, release_merge.o, wiring.flipped(self.released))
        m.d.comb += [
            self.reads_done.eq(sum(port.reads_done for port in ports)),
            self.writes_done.eq(sum(port.writes_done for port in ports)),
            self.busy.eq(any_busy((port.busy for port in ports),
                                  (queue.o.valid for queue in queues),
                                  read_slice.o.valid, write_slice.o.valid)),
        ]
        return m
