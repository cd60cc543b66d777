"""Frontier generation by a scan of the status array (Enterprise §4.1, figure 7 (a) and (b)):
no atomics, no duplicates, since each vertex's status is read once and each vertex found
goes to one lane's bin.

A line of the status array (16 vertices) and the edge ranges of its vertices come in
together; every vertex whose status equals ``match`` is a hit: the level just finished for a
top-down queue, UNVISITED for the bottom-up queue at the direction switch. Each lane takes
one hit a cycle from the line, its own: in the interleaved scan (top-down) vertex v belongs
to lane ``v % lanes``, in the blocked scan (direction switch) to lane ``v >> block_shift``,
so every lane's hits come in ascending order and the lanes' bins, read one after the other,
give Enterprise's lane-major queue. A hit leaves as a :data:`LaneEntry` with its edge range
and degree class (Enterprise §4.2): small below ``middle``, middle below ``large``, large
below ``extreme``, extreme above.
"""

from amaranth.hdl import C, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, is_power_of_two
from hw.lib.memory.port import WORDS_PER_LINE
from hw.lib.memory.range_streamer import range_out_layout
from .layouts import LaneEntry
from .offset_lines import OffsetPairs


__all__ = ["FrontierGenerator", "degree_class"]


def degree_class(count, thresholds):
    """0 small, 1 middle, 2 large, 3 extreme, for a degree ``count`` (a Value)."""
    middle, large, extreme = thresholds
    return (count >= middle).as_unsigned() + (count >= large) + (count >= extreme)


class FrontierGenerator(wiring.Component):
    """Parameters
    ----------
    lanes : int
        A power of two, 1..16.
    thresholds : tuple of three ints
        The lowest degree of the middle, large and extreme classes.

    Members
    -------
    status : ``In(stream.Signature(range_out_layout(16, 1)))``
        The status lines, ``ceil(n / 16)`` of them (``data``: 16 words).
    pairs : ``In(stream.Signature(OffsetPairs))``
        The edge ranges of the same lines' vertices.
    match : ``In(32)``; blocked : ``In(1)``; block_shift : ``In(5)``
        What a hit's status is, and which scan (``block_shift`` at least 4).
    num_vertices : ``In(32)``
    clear : ``In(1)``
        A pulse: ``hits`` restarts at 0.
    lane : ``Out(stream.Signature(LaneEntry)).array(lanes)``
    hits : ``Out(32)``
        Hits handed out since ``clear``.
    stalls : ``Out(32)``
        Lane-cycles a hit waited for its queue since reset (queue contention).
    busy : ``Out(1)``
        A line's hits are still being handed out.
    """

    def __init__(self, *, lanes: int, thresholds: tuple[int, int, int]):
        if not is_power_of_two(lanes) or lanes > WORDS_PER_LINE:
            raise ConfigError(f"FrontierGenerator: lanes must be a power of two up to 16, "
                              f"not {lanes!r}")
        self._lanes = lanes
        self._thresholds = thresholds
        super().__init__({
            "status": In(stream.Signature(range_out_layout(WORDS_PER_LINE, 1))),
            "pairs": In(stream.Signature(OffsetPairs)),
            "match": In(32),
            "blocked": In(1),
            "block_shift": In(5),
            "num_vertices": In(32),
            "clear": In(1),
            "lane": Out(stream.Signature(LaneEntry)).array(lanes),
            "hits": Out(32),
            "stalls": Out(32),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        words = WORDS_PER_LINE
        lanes = self._lanes
        lane_bits = max((lanes - 1).bit_length(), 1)

        # The line being handed out: its hits, their entries and classes, and its lane in a
        # blocked scan (all of a line's vertices are in one block: blocks are 16 or more).
        pending = Signal(words)
        entries = Signal(data.ArrayLayout(LaneEntry, words))
        block_lane = Signal(lane_bits)
        blocked = Signal()

        # Each lane's lowest pending hit.
        taken_by = []
        for lane in range(lanes):
            mine = Signal(words, name=f"mine{lane}")
            if lanes == 1:
                m.d.comb += mine.eq(pending)
            else:
                interleaved = Const(sum(1 << w for w in range(words) if w % lanes == lane),
                                    words)
                m.d.comb += mine.eq(pending & Mux(blocked,
                                                  (block_lane == lane).replicate(words),
                                                  interleaved))
            first = Signal(range(words), name=f"first{lane}")
            for w in reversed(range(words)):
                with m.If(mine[w]):
                    m.d.comb += first.eq(w)
            port = self.lane[lane]
            m.d.comb += [port.valid.eq(mine.any()), port.payload.eq(entries[first])]
            took = Signal(words, name=f"took{lane}")
            with m.If(port.valid & port.ready):
                m.d.comb += took.eq(C(1, words) << first)
            taken_by.append(took)
        waiting = sum(port.valid & ~port.ready for port in self.lane)
        m.d.sync += self.stalls.eq(self.stalls + waiting)
        taken = Signal(words)
        m.d.comb += taken.eq(Cat(*[Cat(t[w] for t in taken_by).any() for w in range(words)]))
        left = pending & ~taken
        with m.If(self.clear):
            m.d.sync += self.hits.eq(0)
        with m.Else():
            m.d.sync += self.hits.eq(self.hits + sum(taken[w] for w in range(words)))

        # The next line comes in when this one's hits are all taken (this cycle included).
        payload = data.ArrayLayout(32, words)(self.status.payload.data)
        pairs = self.pairs.payload
        load = ~left.any() & self.status.valid & self.pairs.valid
        m.d.comb += [self.status.ready.eq(load), self.pairs.ready.eq(load),
                     self.busy.eq(pending.any())]
        line_lane = ((pairs.line << 4) >> self.block_shift)[:lane_bits]
        with m.If(load):
            hits = Signal(words)
            for w in range(words):
                vertex = Cat(Const(w, 4), pairs.line)
                count = pairs.hi[w] - pairs.lo[w]
                m.d.comb += hits[w].eq((payload[w] == self.match) &
                                       (vertex < self.num_vertices))
                m.d.sync += [
                    entries[w].entry.vertex.eq(vertex),
                    entries[w].entry.first.eq(pairs.lo[w]),
                    entries[w].entry.count.eq(count[:32]),
                    entries[w].entry.spare.eq(0),
                    entries[w].cls.eq(degree_class(count[:32], self._thresholds)),
                    entries[w].lane.eq(Mux(self.blocked, line_lane, w % lanes)),
                ]
            m.d.sync += [pending.eq(hits), blocked.eq(self.blocked),
                         block_lane.eq(line_lane)]
        with m.Else():
            m.d.sync += pending.eq(left)
        return m

