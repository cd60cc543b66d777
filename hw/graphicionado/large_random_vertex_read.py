"""Random Vertex Read of the destination property (Graphicionado stage P4, figure 5) for
large properties (§IV.E): the edge travels as a packet of flits, and each flit gets its
share of VProperty[dst] as it passes (wormhole), without waiting for the whole packet.

VProperty is an array of ``lanes * flits`` words per vertex. A property of a line or more
(CF's 32 features: 128 bytes, two lines) starts a line; smaller ones pack several to a
line. A packet's first flit, and any flit whose words begin a line, requests its line; the
flits after it that fall in the same line take their words from the same response.
"""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, is_power_of_two, check_int
from hw.lib.memory.port import LINE_LANES, LINE_BITS, WORDS_PER_LINE, MemoryPortSignature
from hw.lib.stream.fifo import StreamFIFO
from .layouts import edge_flit


__all__ = ["LargeRandomVertexRead"]

WORD_SHIFT = WORDS_PER_LINE.bit_length() - 1


class LargeRandomVertexRead(wiring.Component):
    """Edge flits in, the same flits with ``dst_prop`` filled out, in order.

    Vertex v (of partition ``v % partitions``, §V.A) has its property at word
    ``(v >> log2(partitions)) * lanes * flits`` of its partition, which starts ``part_lines``
    lines after the previous one; flit f holds words ``f * lanes .. (f + 1) * lanes - 1``.
    The memory answers in request order, so the response at the head belongs to the flit at
    the head of the in-flight queue.

    Parameters
    ----------
    addr_width : int
    lanes, flits : int
        Powers of two; a flit fits in a line (lanes up to 16).
    outstanding : int
        Flits in flight at most, to cover the memory latency.
    partitions : int

    Members
    -------
    vprop_base : ``In(addr_width)``; part_lines : ``In(32)``
    i : ``In(stream.Signature(edge_flit(lanes, flits, dst_prop=False)))``
    o : ``Out(stream.Signature(edge_flit(lanes, flits)))``
    busy : ``Out(1)``
    mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int, lanes: int, flits: int, outstanding: int = 128,
                 partitions: int = 1):
        check_int("LargeRandomVertexRead", "addr_width", addr_width, high=32)
        if not (is_power_of_two(lanes) and lanes <= WORDS_PER_LINE):
            raise ConfigError(f"LargeRandomVertexRead: lanes must be a power of two up to "
                              f"{WORDS_PER_LINE}, not {lanes!r}")
        if not is_power_of_two(flits):
            raise ConfigError(f"LargeRandomVertexRead: flits must be a power of two, "
                              f"not {flits!r}")
        if not is_power_of_two(partitions):
            raise ConfigError(f"LargeRandomVertexRead: partitions must be a power of two, "
                              f"not {partitions!r}")
        if outstanding < 2:
            raise ConfigError(f"LargeRandomVertexRead: outstanding must be at least 2, "
                              f"not {outstanding!r}")
        self._addr_width = addr_width
        self._lanes = lanes
        self._flits = flits
        self._outstanding = outstanding
        self._partitions = partitions
        super().__init__({
            "vprop_base": In(addr_width),
            "part_lines": In(32),
            "i": In(stream.Signature(edge_flit(lanes, flits, dst_prop=False))),
            "o": Out(stream.Signature(edge_flit(lanes, flits))),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        lanes, flits = self._lanes, self._flits
        layout = edge_flit(lanes, flits, dst_prop=False)
        words = lanes * flits
        per_line = WORDS_PER_LINE // lanes          # flits of one line
        lane_bits = lanes.bit_length() - 1
        part_shift = self._partitions.bit_length() - 1
        m.submodules.in_flight = in_flight = StreamFIFO(layout, self._outstanding,
                                                        buffered=self._outstanding > 16)
        m.submodules.requests = requests = StreamFIFO(self._addr_width, 2)
        m.submodules.out = out = StreamFIFO(edge_flit(lanes, flits), 3, buffered=True)
        # The lines are taken from the memory as they come: a line serves up to two flits
        # over two cycles, and held at the memory's response it would block the responses
        # to every other client behind it (they come back in order on a channel).
        m.submodules.lines = lines = StreamFIFO(LINE_BITS, 4, buffered=True,
                                                lanes=LINE_LANES)
        m.d.comb += [lines.i.valid.eq(self.mem.resp.valid),
                     lines.i.payload.eq(self.mem.resp.payload.rdata),
                     self.mem.resp.ready.eq(lines.i.ready)]

        # The flit's first word, counted from the start of its partition's VProperty.
        edge, flit = self.i.payload.edge, self.i.payload.flit
        index = edge.dst >> part_shift
        word = (index << (words.bit_length() - 1)) + (flit << lane_bits)
        line = self.vprop_base + (word >> WORD_SHIFT)
        if self._partitions > 1:
            line = line + edge.dst[:part_shift] * self.part_lines
        # A packet's first flit always reads (a small property shares its line with others).
        starts_line = (flit == 0) | (word[:WORD_SHIFT] == 0)
        m.d.comb += [
            in_flight.i.payload.eq(self.i.payload),
            requests.i.payload.eq(line),
            in_flight.i.valid.eq(self.i.valid & (requests.i.ready | ~starts_line)),
            requests.i.valid.eq(self.i.valid & in_flight.i.ready & starts_line),
            self.i.ready.eq(in_flight.i.ready & (requests.i.ready | ~starts_line)),
            self.mem.req.valid.eq(requests.o.valid),
            self.mem.req.payload.addr.eq(requests.o.payload),
            self.mem.req.payload.write.eq(0),
            requests.o.ready.eq(self.mem.req.ready),
        ]

        # The head flit's words of the line at the head; the line goes with the last flit
        # (of the packet, or of those sharing the line).
        head = in_flight.o.payload
        head_word = ((head.edge.dst >> part_shift) << (words.bit_length() - 1)) + \
            (head.flit << lane_bits)
        offset = head_word[lane_bits:WORD_SHIFT] if WORD_SHIFT > lane_bits else 0
        data = lines.o.payload.word_select(offset, 32 * lanes) \
            if per_line > 1 else lines.o.payload[:32 * lanes]
        line_done = ((head_word[:WORD_SHIFT] >> lane_bits) == per_line - 1) | \
            (head.flit == flits - 1)
        m.d.comb += [
            out.i.valid.eq(in_flight.o.valid & lines.o.valid),
            out.i.payload.edge.eq(head.edge),
            out.i.payload.flit.eq(head.flit),
            out.i.payload.src_prop.eq(head.src_prop),
            out.i.payload.dst_prop.eq(data),
            in_flight.o.ready.eq(out.i.ready & lines.o.valid),
            lines.o.ready.eq(out.i.ready & in_flight.o.valid & line_done),
        ]
        wiring.connect(m, out.o, wiring.flipped(self.o))
        m.d.comb += self.busy.eq(any_busy(in_flight.level, out.level, lines.level))
        return m
