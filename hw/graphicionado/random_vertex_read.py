"""Random Vertex Read of the destination property (Graphicionado §3.2 stage P4, figure 5).

The optional stage between Edge Read and Process_Edge: for each edge it reads
``VProperty[edge.dst]`` from memory, one 64-byte line per edge, and hands the edge on with
that property. The reads are random, so nothing is prefetched or shared between edges; the
edges wait in a queue deep enough to cover the memory latency while their lines are in flight.

Beside :class:`hw.lib.memory.word_lookup.WordLookup`, which reads single words the same way:
this reader takes a response only when its registered output queue has room (Process_Edge
never waits on memory, so the memory's response channel may wait on it), where that one
takes every response the cycle it comes into a queue of its own; the output here is
registered, a cycle later than that one's for up to 16 reads in flight; the address is
VProperty's, partitioned; and the whole edge rides along, not a few bits of context.
"""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import WORDS_PER_LINE, MemoryPortSignature
from hw.lib.stream.fifo import StreamFIFO
from .layouts import DestinedEdge, SourcedEdge


__all__ = ["RandomVertexRead"]

WORD_SHIFT = WORDS_PER_LINE.bit_length() - 1


class RandomVertexRead(wiring.Component):
    """Edges in, the same edges with their destination's property out, in order.

    Each edge accepted issues a read of line ``vprop_base + dst // 16``; the property is word
    ``dst % 16`` of that line. The memory answers in request order, so the response at the
    head belongs to the edge at the head of the in-flight queue. With the memory answering a
    line a cycle and ``outstanding`` above its latency, one edge passes per cycle.

    Parameters
    ----------
    addr_width : int
        Width of a line address.
    outstanding : int
        Edges in flight at most (requested, not yet handed out): the depth of the queue that
        holds them, to cover the memory latency (128 for a latency of 100 cycles).
    partitions : int
        VProperty lies in memory as this many partitions (§V.A; a power of two): vertex v is
        word ``v >> log2(partitions)`` of partition ``v % partitions``, which starts
        ``part_lines`` lines after the previous one.

    Members
    -------
    vprop_base : ``In(addr_width)``
        Line address of VProperty[0].
    part_lines : ``In(32)``
        Lines between two partitions (unused with one).
    i : ``In(stream.Signature(SourcedEdge))``
    o : ``Out(stream.Signature(DestinedEdge))``
    busy : ``Out(1)``
        An edge taken in has not yet left through ``o``.
    level : ``Out(range(outstanding + 4))``
        Edges inside (its occupancy, for parallel readers' dispatch).
    mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int, outstanding: int = 128, partitions: int = 1):
        check_int("RandomVertexRead", "addr_width", addr_width, high=32)
        check_int("RandomVertexRead", "partitions", partitions, power_of_two=True)
        if outstanding < 1:
            raise ConfigError("RandomVertexRead: outstanding must be at least 1, not "
                              f"{outstanding!r}")
        self._addr_width = addr_width
        self._outstanding = outstanding
        self._partitions = partitions
        super().__init__({
            "vprop_base": In(addr_width),
            "part_lines": In(32),
            "i": In(stream.Signature(SourcedEdge)),
            "o": Out(stream.Signature(DestinedEdge)),
            "busy": Out(1),
            "level": Out(range(outstanding + 4)),
            "mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.in_flight = in_flight = StreamFIFO(
            SourcedEdge, self._outstanding, buffered=self._outstanding > 16)
        # Line addresses wait in their own small queue: the input's ready then comes from two
        # queues, never from the memory, and the address adder ends in a register.
        m.submodules.requests = requests = StreamFIFO(self._addr_width, 2)
        # Registered output: Process_Edge's operands start from flip-flops, and its ready does
        # not reach the memory's response channel.
        m.submodules.out = out = StreamFIFO(DestinedEdge, 3, buffered=True)

        edge = self.i.payload.edge
        part_shift = self._partitions.bit_length() - 1
        line = self.vprop_base + (edge.dst >> (part_shift + WORD_SHIFT))
        if self._partitions > 1:
            line = line + edge.dst[:part_shift] * self.part_lines
        m.d.comb += [
            in_flight.i.payload.eq(self.i.payload),
            requests.i.payload.eq(line),
            in_flight.i.valid.eq(self.i.valid & requests.i.ready),
            requests.i.valid.eq(self.i.valid & in_flight.i.ready),
            self.i.ready.eq(in_flight.i.ready & requests.i.ready),

            self.mem.req.valid.eq(requests.o.valid),
            self.mem.req.payload.addr.eq(requests.o.payload),
            self.mem.req.payload.write.eq(0),
            requests.o.ready.eq(self.mem.req.ready),
        ]

        head = in_flight.o.payload
        line = self.mem.resp.payload.rdata
        m.d.comb += [
            out.i.valid.eq(in_flight.o.valid & self.mem.resp.valid),
            out.i.payload.edge.eq(head.edge),
            out.i.payload.prop.eq(head.prop),
            out.i.payload.const.eq(head.const),
            out.i.payload.dst_prop.eq(line.word_select(
                head.edge.dst[part_shift:part_shift + WORD_SHIFT], 32)),
            in_flight.o.ready.eq(out.i.ready & self.mem.resp.valid),
            self.mem.resp.ready.eq(out.i.ready & in_flight.o.valid),
        ]
        wiring.connect(m, out.o, wiring.flipped(self.o))
        # Every request is in ``in_flight`` too, so the two levels cover all the block holds.
        m.d.comb += [self.busy.eq(any_busy(in_flight.level, out.level)),
                     self.level.eq(in_flight.level + out.level)]
        return m
