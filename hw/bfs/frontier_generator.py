"""Frontier generation by a scan of the status array (Enterprise §4.1, figure 7 (a) and (b)):
no atomics, no duplicates, since each vertex's status is read once and each vertex found
goes to one lane's bin.

Lines of the status array (16 vertices each) come in; every vertex whose status equals
``match`` is a hit: the level just finished for a top-down queue, UNVISITED for the bottom-up
queue at the direction switch. In the interleaved scan (top-down) vertex v belongs to lane
``v % lanes``, in the blocked scan (direction switch) to lane ``v >> block_shift``. Each lane
takes several of its hits a cycle: those of one class in one quad of the line (four words, a
bin line's worth), so a line of sixteen hits in the blocked scan, all one lane's, goes in
four cycles, not sixteen. Every class's hits stay in ascending order in the lane's bin, and
the lanes' bins, read one after the other, give Enterprise's lane-major queue. A line holding
a hit waits for the edge ranges of its vertices, asked for on ``wanted``
(:class:`~hw.bfs.pair_fetch.PairFetch`); a hit leaves in a :data:`LaneGroup` with its edge
range and degree class (Enterprise §4.2): small below ``middle``, middle below ``large``,
large below ``extreme``, extreme above.
"""

from amaranth.hdl import C, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, is_power_of_two
from hw.lib.memory.port import WORDS_PER_LINE
from hw.lib.memory.range_streamer import range_out_layout
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.register_slice import StreamRegisterSlice
from .layouts import (CLASS_BITS, ENTRIES_PER_LINE as GROUP, DegreeClass, LaneGroup,
                      QueueEntry)
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
    scan_hits : int
        Hits a lane takes a cycle at most: 4 (a quad's of one class) or 1 (one at a time,
        the baseline).
    depth : int
        Lines with a hit that may wait for their edge ranges (cover the memory latency).
    on_demand : bool
        Ask for the edge ranges of the lines with a hit only (else of every line, hit or
        not: the baseline, which reads every offsets line).

    Members
    -------
    status : ``In(stream.Signature(range_out_layout(16, 1)))``
        The status lines, ``ceil(n / 16)`` of them (``data``: 16 words).
    wanted : ``Out(stream.Signature(32))``
        The index of each status line holding a hit (every line without ``on_demand``), in
        order.
    pairs : ``In(stream.Signature(OffsetPairs))``
        The edge ranges of the vertices of the lines wanted, in the same order.
    match : ``In(32)``; blocked : ``In(1)``; block_shift : ``In(5)``
        What a hit's status is, and which scan (``block_shift`` at least 4).
    num_vertices : ``In(32)``
    clear : ``In(1)``
        A pulse: ``hits`` restarts at 0.
    lane : ``Out(stream.Signature(LaneGroup)).array(lanes)``
        A group a cycle per lane: a quad's hits of one class.
    hits : ``Out(32)``
        Hits handed out since ``clear``.
    stalls : ``Out(32)``
        Lane-cycles a hit waited for its queue since reset (queue contention).
    busy : ``Out(1)``
        A line's hits are still being handed out.
    """

    def __init__(self, *, lanes: int, thresholds: tuple[int, int, int], scan_hits: int = 4,
                 depth: int = 32, on_demand: bool = True):
        if not is_power_of_two(lanes) or lanes > WORDS_PER_LINE:
            raise ConfigError(f"FrontierGenerator: lanes must be a power of two up to 16, "
                              f"not {lanes!r}")
        if scan_hits not in (1, GROUP):
            raise ConfigError(f"FrontierGenerator: scan_hits must be 1 or {GROUP}, "
                              f"not {scan_hits!r}")
        self._scan_hits = scan_hits
        self._depth = depth
        self._on_demand = on_demand
        self._lanes = lanes
        self._thresholds = thresholds
        super().__init__({
            "status": In(stream.Signature(range_out_layout(WORDS_PER_LINE, 1))),
            "wanted": Out(stream.Signature(32)),
            "pairs": In(stream.Signature(OffsetPairs)),
            "match": In(32),
            "blocked": In(1),
            "block_shift": In(5),
            "num_vertices": In(32),
            "clear": In(1),
            "lane": Out(stream.Signature(LaneGroup)).array(lanes),
            "hits": Out(32),
            "stalls": Out(32),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        lanes = self._lanes
        lane_bits = max((lanes - 1).bit_length(), 1)
        self._load = load = Signal()
        self._pairs = self._degree_stages(m)
        mine, ready_line = self._hits_stage(m, lane_bits)
        entries = self._entries(m, load)
        offers = self._hand_out(m, mine, ready_line, entries, load)
        for lane, (port, (quad, group, cls)) in enumerate(zip(self.lane, offers)):
            with m.Switch(quad):
                for q in range(WORDS_PER_LINE // GROUP):
                    with m.Case(q):
                        m.d.comb += [port.payload.entries[i].eq(entries[GROUP * q + i].entry)
                                     for i in range(GROUP)]
            m.d.comb += [port.payload.valid.eq(group), port.payload.cls.eq(cls),
                         port.payload.lane.eq(lane)]
        return m

    def _hits_stage(self, m, lane_bits):
        """A status line's hits, each lane's share of them apart, in a register slice: the
        compares with ``match`` and the lane masks end there, and the line's ``ready`` is a
        register. A line with a hit goes on to the waiting lines, and its index to ``wanted``
        for its edge ranges; a line without is dropped. Returns the oldest waiting line's
        hits per lane (``lanes`` signals of 16 bits) and whether there is one."""
        words, lanes = WORDS_PER_LINE, self._lanes
        held_layout = data.StructLayout({"line": 32, "mine": data.ArrayLayout(words, lanes)})
        m.submodules.held = held = StreamRegisterSlice(held_layout)
        line = self.status.payload.index
        payload = data.ArrayLayout(32, words)(self.status.payload.data)
        hits = Cat((payload[w] == self.match) & (Cat(Const(w, 4), line) < self.num_vertices)
                   for w in range(words))
        line_lane = ((line << 4) >> self.block_shift)[:lane_bits]
        m.d.comb += [held.i.valid.eq(self.status.valid), self.status.ready.eq(held.i.ready),
                     held.i.payload.line.eq(line)]
        for lane in range(lanes):
            if lanes == 1:
                share = hits
            else:
                interleaved = Const(sum(1 << w for w in range(words) if w % lanes == lane),
                                    words)
                share = hits & Mux(self.blocked, (line_lane == lane).replicate(words),
                                   interleaved)
            m.d.comb += held.i.payload.mine[lane].eq(share)
        m.submodules.waiting = waiting = StreamFIFO(held_layout.members["mine"], self._depth,
                                                    buffered=True)
        mine = held.o.payload.mine
        any_hit = mine.as_value().any() if self._on_demand else C(1, 1)
        m.d.comb += [
            waiting.i.payload.eq(mine),
            waiting.i.valid.eq(held.o.valid & any_hit & self.wanted.ready),
            self.wanted.valid.eq(held.o.valid & any_hit & waiting.i.ready),
            self.wanted.payload.eq(held.o.payload.line),
            held.o.ready.eq(~any_hit | (waiting.i.ready & self.wanted.ready)),
            waiting.o.ready.eq(self._load),
        ]
        self._held = held.o.valid | ~held.i.ready | waiting.o.valid
        return [waiting.o.payload[lane] for lane in range(lanes)], waiting.o.valid

    def _hand_out(self, m, mine, ready_line, entries, load):
        """Each lane's next group, offered from registers: ``quad`` (which four words),
        ``group`` (its hits there of one class), ``cls``, ``rest`` (the lane's hits after the
        group), ``several`` (whether ``rest`` has any) and ``offering``; the next line loads
        once every lane gives its last group this cycle, a decision made from those registers
        and the lanes' ``ready`` alone. Returns each lane's (quad, group, cls)."""
        offers, done, took = [], [], []
        taken_now = Signal(range(WORDS_PER_LINE + 1))   # hits taken the cycle before
        for lane, port in enumerate(self.lane):
            quad = Signal(2, name=f"quad{lane}")
            group = Signal(GROUP, name=f"group{lane}")
            cls = Signal(CLASS_BITS, name=f"cls{lane}")
            rest = Signal(WORDS_PER_LINE, name=f"rest{lane}")
            several = Signal(name=f"several{lane}")
            offering = Signal(name=f"offering{lane}")
            m.d.comb += port.valid.eq(offering)
            offers.append((quad, group, cls))
            taken = offering & port.ready
            took.append(Mux(taken, sum(group), 0))
            done.append(~offering | (~several & port.ready))
            state = Cat(quad, group, cls, rest, several, offering)
            loaded = self._next_group(m, mine[lane], self._pairs.payload.cls, f"{lane}_load")
            following = self._next_group(m, rest, [e.cls for e in entries], f"{lane}_next")
            with m.If(load):
                m.d.sync += state.eq(loaded)
            with m.Elif(taken):
                m.d.sync += state.eq(following)
        m.d.comb += [load.eq(ready_line & self._pairs.valid & Cat(*done).all()),
                     self._pairs.ready.eq(load),
                     self.busy.eq(self._held | (taken_now != 0) |
                                  Cat(port.valid for port in self.lane).any() |
                                  Cat(Cat(stage.o.valid, ~stage.i.ready)
                                      for stage in self._stages).any())]
        waiting = sum(port.valid & ~port.ready for port in self.lane)
        m.d.sync += self.stalls.eq(self.stalls + waiting)
        # The hits taken are counted, and the count cleared, a cycle late, from registers:
        # the lanes' readies and the controller's decision to clear would otherwise run on
        # into the 32-bit count (read only once the engine has been quiet for two cycles).
        clearing = Signal()
        m.d.sync += [taken_now.eq(sum(took)), clearing.eq(self.clear)]
        with m.If(clearing):
            m.d.sync += self.hits.eq(0)
        with m.Else():
            m.d.sync += self.hits.eq(self.hits + taken_now)
        return offers

    def _next_group(self, m, hits, classes, name):
        """The offer after ``hits`` (16 bits, each word's class in ``classes``): the lowest
        quad holding a hit, and its hits of the class of the lowest of them, as
        ``Cat(quad, group, cls, rest, several, offering)`` in a signal of its own (kept, so
        that synthesis does not share the logic behind the choice between a line's hits and
        a lane's rest). Each quad's group is worked out beside the others and the lowest
        chosen after, a few LUT levels. Taking a quad's hits class by class keeps each
        class's bin ascending, as one hit at a time does."""
        quads = WORDS_PER_LINE // GROUP
        quad = Signal(2, name=f"quad{name}")
        in_quad = [hits[GROUP * q:GROUP * (q + 1)] for q in range(quads)]
        for q in reversed(range(quads)):
            with m.If(in_quad[q].any()):
                m.d.comb += quad.eq(q)
        groups, first_classes = [], []
        for q in range(quads):
            first = Signal(CLASS_BITS, name=f"first_cls{name}_{q}")
            for i in reversed(range(GROUP)):
                with m.If(in_quad[q][i]):
                    m.d.comb += first.eq(classes[GROUP * q + i])
            if self._scan_hits == 1:
                group = Cat(in_quad[q][i] & ~in_quad[q][:i].any() for i in range(GROUP))
            else:
                group = Cat(in_quad[q][i] & (classes[GROUP * q + i] == first)
                            for i in range(GROUP))
            groups.append(group)
            first_classes.append(first)
        group = Signal(GROUP, name=f"group{name}")
        cls = Signal(CLASS_BITS, name=f"cls{name}")
        with m.Switch(quad):
            for q in range(quads):
                with m.Case(q):
                    m.d.comb += [group.eq(groups[q]), cls.eq(first_classes[q])]
        chosen = [quad == q for q in range(quads)]
        rest = Cat(Mux(chosen[q], in_quad[q] & ~groups[q], in_quad[q]) for q in range(quads))
        # Hits after the group: in a quad above it, or in its quad two hits that do not go
        # together (of two classes; any two when one is taken at a time), tested pair by
        # pair rather than against the group, which waits for the lowest hit's class.
        several = Cat(chosen[q] & (self._apart(in_quad[q], classes[GROUP * q:GROUP * (q + 1)]) |
                                   Cat(in_quad[j].any() for j in range(q + 1, quads)).any())
                      for q in range(quads)).any()
        after = Signal(2 + GROUP + CLASS_BITS + WORDS_PER_LINE + 2, name=f"after{name}",
                       attrs={"keep": 1})
        m.d.comb += after.eq(Cat(quad, group, cls, rest, several, hits.any()))
        return after

    def _apart(self, hits, classes):
        """Whether two of a quad's ``hits`` cannot leave in one group."""
        pairs = [(i, j) for i in range(GROUP) for j in range(i + 1, GROUP)]
        if self._scan_hits == 1:
            return Cat(hits[i] & hits[j] for i, j in pairs).any()
        return Cat(hits[i] & hits[j] & (classes[i] != classes[j]) for i, j in pairs).any()

    def _degree_stages(self, m):
        """The edge ranges through two register slices: the first takes each vertex's degree
        (``hi - lo``), the second its class (three compares of the degree). A subtractor and
        the compares after it in one cycle, from the pairs into the entries' registers, were
        the smallest BFS build's deepest path but for the memory arbiter's grant; two cycles
        more per line, at a line a cycle still. Returns the second slice's output."""
        words = WORDS_PER_LINE
        counted = data.StructLayout({"line": 32, "lo": data.ArrayLayout(32, words),
                                     "count": data.ArrayLayout(32, words)})
        classed = data.StructLayout({"line": 32, "lo": data.ArrayLayout(32, words),
                                     "count": data.ArrayLayout(32, words),
                                     "cls": data.ArrayLayout(CLASS_BITS, words)})
        m.submodules.degrees = degrees = StreamRegisterSlice(counted)
        m.submodules.classes = classes = StreamRegisterSlice(classed)
        pairs = self.pairs.payload
        m.d.comb += [degrees.i.valid.eq(self.pairs.valid), self.pairs.ready.eq(degrees.i.ready),
                     degrees.i.payload.line.eq(pairs.line), degrees.i.payload.lo.eq(pairs.lo),
                     classes.i.valid.eq(degrees.o.valid), degrees.o.ready.eq(classes.i.ready),
                     classes.i.payload.line.eq(degrees.o.payload.line),
                     classes.i.payload.lo.eq(degrees.o.payload.lo),
                     classes.i.payload.count.eq(degrees.o.payload.count)]
        for w in range(words):
            m.d.comb += [
                degrees.i.payload.count[w].eq((pairs.hi[w] - pairs.lo[w])[:32]),
                classes.i.payload.cls[w].eq(degree_class(degrees.o.payload.count[w],
                                                         self._thresholds)),
            ]
        self._stages = (degrees, classes)
        return classes.o

    def _entries(self, m, load):
        """The line's entries, each with its edge range and class, loaded with its hits."""
        words = WORDS_PER_LINE
        entries = Signal(data.ArrayLayout(data.StructLayout(
            {"entry": QueueEntry, "cls": DegreeClass}), words))
        pairs = self._pairs.payload
        with m.If(load):
            for w in range(words):
                m.d.sync += [
                    entries[w].entry.vertex.eq(Cat(Const(w, 4), pairs.line)),
                    entries[w].entry.first.eq(pairs.lo[w]),
                    entries[w].entry.count.eq(pairs.count[w]),
                    entries[w].entry.spare.eq(0),
                    entries[w].cls.eq(pairs.cls[w]),
                ]
        return entries
