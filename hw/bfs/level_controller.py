"""The BFS engine's level loop (Enterprise §4, figure 2): the hub count, the root, and then per
level the expand-and-check in its direction followed by the next frontier queue's generation,
the direction decided between the two by Enterprise's gamma (equation 1) going down and
Beamer's beta rule for the tail (:class:`~hw.bfs.direction_policy.DirectionPolicy`).

Each step waits until the whole engine is quiet (every block idle, every request taken by
the memory), so a level's status writes are in memory before the next scan or check reads
them. A level's record goes to the level log once its visited count is known: from its
discoveries bottom-up, from the scan that follows it top-down (a top-down level may find a
vertex twice; the scan counts it once). Its edges, reads and hubs are the blocks' counters'
increase over the level (:class:`~hw.bfs.level_statistics.LevelStatistics`).
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import data, enum, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.range_streamer import range_cmd_layout
from .bin_writer import CLASSES
from .direction_policy import DIRECTIONS, DirectionPolicy
from .layouts import UNVISITED, Direction, Discovery
from .level_log import LogRecord
from .level_statistics import LevelStatistics


__all__ = ["LevelController", "COUNTER_INPUTS"]

# Counters from the blocks, each counting since reset; the controller takes differences.
COUNTER_INPUTS = ("td_edges", "bu_edges", "bu_reads", "cache_hits", "written", "hubs_found",
                  "reads_issued")

# The next queue's scan: for the level just done (top-down) or for the unvisited (blocked).
GEN_INTERLEAVED, GEN_BLOCKED = 0, 1


class CountFrom(enum.Enum, shape=2):
    """Where a level's visited count comes from: its discoveries (bottom-up: already known),
    the hits of the scan after it, or the unvisited that scan did not find (the switch)."""
    KNOWN = 0
    HITS = 1
    UNVISITED = 2


class LevelController(wiring.Component):
    """Parameters
    ----------
    addr_width : int
    lanes : int
    direction : str
        ``auto``, ``topdown`` or ``bottomup``.
    gamma_percent : int

    Members
    -------
    start : ``In(1)``; done : ``Out(1)``; busy : ``Out(1)``; error : ``Out(1)``
        ``error``: the levels outgrew the log (``max_levels``).
    num_vertices, root, tail_limit, max_levels : ``In(32)``
    levels_base, out_offsets_base, in_offsets_base : ``In(addr_width)``
    quiet : ``In(1)``
        Every block idle and every memory request taken.
    hubs_total, scan_hits : ``In(32)``
    counts : ``In(32).array(4 * lanes)``
        The bin writers' counts, bin (class c, lane l) at ``c * lanes + l``.
    <counter> : ``In(32)`` for each of :data:`COUNTER_INPUTS`
    status_cmd, offsets_cmd : ``Out(stream.Signature(range_cmd_layout(addr_width, 1)))``
        The status lines of a scan; the out-offsets of the hub count (``offsets_cmd.base``
        is also the offsets a scan's edge ranges come from, read on demand).
    lines_start : ``Out(1)``
        A pulse with the hub count's offsets pass (the offset pairing restarts).
    to_scan : ``Out(1)``
        Offsets lines go to the scan's pair fetch (else to the hub count).
    match : ``Out(32)``; blocked : ``Out(1)``; scan_clear : ``Out(1)``
    buffer : ``Out(1)``
        The queue buffer the bin writers fill.
    bins_clear, bins_flush : ``Out(1)``
    read_start : ``Out(1)``; read_buffer : ``Out(1)``
        The queue reader starts on the buffer the bin writers have just filled.
    direction : ``Out(1)``
        A :class:`Direction`: where the queue's entries go.
    level : ``Out(32)``
    cache_clear, hubs_clear : ``Out(1)``
    root_discovery : ``Out(stream.Signature(Discovery))``
    log : ``Out(stream.Signature(LogRecord))``
    levels_done : ``Out(32)``
    generate_total : ``Out(32)``
        Cycles spent generating queues since ``start`` (every scan and flush, the last one,
        which finds no frontier and has no level's record, too).
    """

    def __init__(self, *, addr_width: int, lanes: int, direction: str, gamma_percent: int):
        check_int("LevelController", "addr_width", addr_width, high=32)
        check_int("LevelController", "lanes", lanes)
        if direction not in DIRECTIONS:
            raise ConfigError(f"LevelController: direction must be one of "
                              f"{', '.join(DIRECTIONS)}, not {direction!r}")
        check_int("LevelController", "gamma_percent", gamma_percent, low=0, high=100)
        self._addr_width = addr_width
        self._lanes = lanes
        self._direction = direction
        self._gamma = gamma_percent
        cmd = stream.Signature(range_cmd_layout(addr_width, 1))
        members = {
            "start": In(1), "done": Out(1), "busy": Out(1), "error": Out(1),
            "num_vertices": In(32), "root": In(32), "tail_limit": In(32),
            "max_levels": In(32), "levels_base": In(addr_width),
            "out_offsets_base": In(addr_width), "in_offsets_base": In(addr_width),
            "quiet": In(1), "hubs_total": In(32), "scan_hits": In(32),
            "counts": In(32).array(CLASSES * lanes),
            "status_cmd": Out(cmd), "offsets_cmd": Out(cmd), "lines_start": Out(1),
            "to_scan": Out(1), "match": Out(32), "blocked": Out(1), "scan_clear": Out(1),
            "buffer": Out(1), "bins_clear": Out(1), "bins_flush": Out(1),
            "read_start": Out(1), "read_buffer": Out(1), "direction": Out(1),
            "level": Out(32), "cache_clear": Out(1), "hubs_clear": Out(1),
            "root_discovery": Out(stream.Signature(Discovery)),
            "log": Out(stream.Signature(LogRecord)), "levels_done": Out(32),
            "generate_total": Out(32),
        }
        members.update({name: In(32) for name in COUNTER_INPUTS})
        super().__init__(members)

    def _scan(self, m, kind, offsets_base):
        """Set up the scan that makes the next queue (``kind``) into the other buffer."""
        m.d.sync += [self.match.eq(UNVISITED if kind == GEN_BLOCKED else self.level),
                     self.blocked.eq(kind == GEN_BLOCKED),
                     self.buffer.eq(~self._cur), self._offsets.eq(offsets_base)]
        m.d.comb += [self.bins_clear.eq(1), self.scan_clear.eq(1)]

    def _class_sums(self):
        return [sum(self.counts[c * self._lanes + lane] for lane in range(self._lanes))
                for c in range(CLASSES)]

    def _first_scan(self, m):
        """ROOT_WRITTEN: level 1's queue comes from a scan, in the first level's direction."""
        m.d.sync += [self._reached.eq(1), self._previous_visited.eq(1),
                     self._next_scanned.eq(self.num_vertices), self._generate_cycles.eq(0),
                     self.to_scan.eq(1), self._status_sent.eq(0)]
        if self._direction == "bottomup":
            self._scan(m, GEN_BLOCKED, self.in_offsets_base)
            m.d.sync += self.direction.eq(Direction.BOTTOM_UP)
        else:
            self._scan(m, GEN_INTERLEAVED, self.out_offsets_base)
            m.d.sync += self.direction.eq(Direction.TOP_DOWN)

    def _generated(self, m):
        """GENERATED: the level just expanded (if any) now knows its visited count."""
        with m.If(self.level != 0):
            visited = Signal(32)
            with m.If(self._count_from == CountFrom.HITS):
                m.d.comb += visited.eq(self.scan_hits)
            with m.Else():
                m.d.comb += visited.eq(self._newly_visited)
            with m.If(self._count_from != CountFrom.KNOWN):
                m.d.sync += [self._record.visited.eq(visited),
                             self._to_reach.eq(visited)]
            m.next = "LOG"
        with m.Else():
            m.next = "NEXT"

    def _next_level(self, m, statistics):
        """NEXT: the queue just made is the next level's frontier, or there is none."""
        class_sums, frontier = self._sums, self._frontier
        record = self._record
        with m.If(frontier == 0):
            m.next = "FINISH"
        with m.Elif(self.level + 1 >= self.max_levels):
            m.d.sync += self.error.eq(1)
            m.next = "FINISH"
        with m.Else():
            m.d.sync += [
                self.level.eq(self.level + 1), self._cur.eq(self.buffer),
                record.level.eq(self.level + 1), record.direction.eq(self.direction),
                record.frontier.eq(frontier), record.scanned.eq(self._next_scanned),
                record.generate_cycles.eq(self._generate_cycles), record.expand_cycles.eq(0),
                record.small.eq(class_sums[0]), record.middle.eq(class_sums[1]),
                record.large.eq(class_sums[2]), record.extreme.eq(class_sums[3]),
                self._generate_cycles.eq(0),
            ]
            m.d.comb += [statistics.begin.eq(1), self.read_start.eq(1)]
            with m.If(self.direction == Direction.BOTTOM_UP):
                # Survivors go to the other buffer, counted from zero.
                m.d.comb += self.bins_clear.eq(1)
                m.d.sync += self.buffer.eq(~self.buffer)
            m.next = "EXPAND"

    def _decide(self, m, figures, policy):
        """DECIDE: the level's figures go to its record, and the next queue's scan starts in
        the direction the policy gives (or, bottom-up, the survivors are the next queue)."""
        record, n = self._record, self.num_vertices
        m.d.sync += [
            record.edges_checked.eq(figures.td_edges + figures.bu_edges),
            record.hubs_visited.eq(figures.hubs_found),
            record.status_reads.eq(figures.td_edges + figures.bu_reads),
            record.hub_cache_hits.eq(figures.cache_hits),
            record.reads_issued.eq(figures.reads_issued),
            self._status_sent.eq(0), self._generate_cycles.eq(0),
        ]
        with m.If(self.direction == Direction.TOP_DOWN):
            with m.If(policy.to_bottom_up):
                self._scan(m, GEN_BLOCKED, self.in_offsets_base)
                m.d.sync += [self._count_from.eq(CountFrom.UNVISITED),
                             self.direction.eq(Direction.BOTTOM_UP)]
            with m.Else():
                self._scan(m, GEN_INTERLEAVED, self.out_offsets_base)
                m.d.sync += self._count_from.eq(CountFrom.HITS)
            m.d.sync += self._next_scanned.eq(n)
            m.next = "SCAN"
        with m.Else():
            visited = figures.written
            m.d.sync += [record.visited.eq(visited), self._to_reach.eq(visited),
                         self._count_from.eq(CountFrom.KNOWN)]
            with m.If(policy.none_visited):
                m.d.sync += self._stop_after.eq(1)
                m.next = "LOG"
            with m.Elif(policy.to_top_down):
                self._scan(m, GEN_INTERLEAVED, self.out_offsets_base)
                m.d.sync += [self.direction.eq(Direction.TOP_DOWN), self._switched_back.eq(1),
                             self._next_scanned.eq(n)]
                m.next = "SCAN"
            with m.Else():
                m.d.sync += self._next_scanned.eq(0)
                m.next = "LOG"

    def _start(self, m):
        """IDLE, on ``start``: a run begins with the hub count, from the out-offsets."""
        m.d.comb += [self.cache_clear.eq(1), self.hubs_clear.eq(1)]
        m.d.sync += [self.done.eq(0), self.error.eq(0), self._offsets.eq(self.out_offsets_base),
                     self._offsets_sent.eq(0), self.to_scan.eq(0), self.levels_done.eq(0),
                     self.level.eq(0), self._switched_back.eq(0), self._stop_after.eq(0),
                     self.generate_total.eq(0),
                     self._cur.eq(1), self._count_from.eq(CountFrom.KNOWN)]

    def _connect(self, m, statistics, policy):
        """The level's figures, the direction policy's answers (and whether the level visited
        no vertex), and the bins' class sums and their total, each in a register updated
        every cycle: the decisions in NEXT and DECIDE then start from flip-flops, not from the
        adders and the policy's products behind them. They are read only once the engine has
        been quiet for two cycles, when the counters behind them have stood still for longer
        than the two registers take."""
        m.d.comb += [statistics.totals[name].eq(getattr(self, name)) for name in COUNTER_INPUTS]
        figures = Signal.like(statistics.level)
        m.d.sync += figures.eq(statistics.level)
        m.d.comb += [
            policy.hubs.eq(self._hubs), policy.hubs_found.eq(figures.hubs_found),
            policy.switched_back.eq(self._switched_back), policy.tail_limit.eq(self.tail_limit),
            policy.visited.eq(figures.written),
            policy.previous_visited.eq(self._previous_visited),
        ]
        decided = Signal(data.StructLayout({"to_bottom_up": 1, "to_top_down": 1,
                                            "none_visited": 1}))
        m.d.sync += [decided.to_bottom_up.eq(policy.to_bottom_up),
                     decided.to_top_down.eq(policy.to_top_down),
                     decided.none_visited.eq(statistics.level.written == 0)]
        self._sums = [Signal(32, name=f"class_sum{c}") for c in range(CLASSES)]
        self._frontier = Signal(32)
        m.d.sync += [total.eq(value) for total, value in zip(self._sums, self._class_sums())]
        m.d.sync += self._frontier.eq(sum(self._sums))
        return figures, decided

    def _reach_counts(self, m):
        """The vertices reached, counted from registers (before the state machine, whose
        assignments win): a level's visited count is added to ``reached`` a cycle after it is
        known, so the state's choice of the count does not run into the adder; a bottom-up
        level's count (``newly_visited``) is worked out every cycle for GENERATED to read, so
        its two subtractions and that addition are not one path. The scan's hits have stood
        still since the engine went quiet, ``reached`` since DECIDE."""
        m.d.sync += [self._newly_visited.eq(self.num_vertices - self._reached - self.scan_hits),
                     self._reached.eq(self._reached + self._to_reach), self._to_reach.eq(0)]

    def _registers(self):
        """The loop's state, named as in the waveform."""
        self._offsets = Signal(self._addr_width, name="offsets")
        self._cur = Signal(name="cur")         # the buffer the level expanding reads
        self._count_from = Signal(CountFrom, name="count_from")    # how GENERATED finds visited
        self._record = Signal(LogRecord, name="record")
        self._hubs = Signal(32, name="hubs")
        self._reached = Signal(32, name="reached")
        self._to_reach = Signal(32, name="to_reach")      # added to ``reached`` next cycle
        self._newly_visited = Signal(32, name="newly_visited")
        self._previous_visited = Signal(32, name="previous_visited")
        self._switched_back = Signal(name="switched_back")
        self._stop_after = Signal(name="stop_after")
        self._next_scanned = Signal(32, name="next_scanned")
        self._generate_cycles = Signal(32, name="generate_cycles")
        self._status_sent = Signal(name="status_sent")
        self._offsets_sent = Signal(name="offsets_sent")

    def elaborate(self, platform):
        m = Module()
        m.submodules.statistics = statistics = LevelStatistics(counters=COUNTER_INPUTS)
        m.submodules.policy = policy = DirectionPolicy(direction=self._direction,
                                                       gamma_percent=self._gamma)
        self._registers()
        n, offsets, record = self.num_vertices, self._offsets, self._record
        status_sent, offsets_sent = self._status_sent, self._offsets_sent
        generate_cycles = self._generate_cycles
        quiet = self._quiet(m)
        figures, decided = self._connect(m, statistics, policy)
        m.d.comb += [
            self.status_cmd.payload.base.eq(self.levels_base),
            self.status_cmd.payload.count.eq((n + 15) >> 4),
            self.offsets_cmd.payload.base.eq(offsets),
            self.offsets_cmd.payload.count.eq((n + 16) >> 4),     # lines of n + 1 words
            self.root_discovery.payload.vertex.eq(self.root),
            self.root_discovery.payload.parent.eq(self.root),
            self.log.payload.eq(record),
        ]
        with m.If(self.offsets_cmd.valid & self.offsets_cmd.ready):
            m.d.comb += self.lines_start.eq(1)
            m.d.sync += offsets_sent.eq(1)
        with m.If(self.status_cmd.valid & self.status_cmd.ready):
            m.d.sync += status_sent.eq(1)
        self._reach_counts(m)
        with m.FSM() as fsm:
            with m.State("IDLE"):
                with m.If(self.start):
                    self._start(m)
                    m.next = "HUB_COUNT"
            with m.State("HUB_COUNT"):
                m.d.comb += self.offsets_cmd.valid.eq(~offsets_sent)
                with m.If(offsets_sent & quiet):
                    m.d.sync += self._hubs.eq(self.hubs_total)
                    m.next = "ROOT"
            with m.State("ROOT"):
                m.d.comb += self.root_discovery.valid.eq(1)
                with m.If(self.root_discovery.ready):
                    m.next = "ROOT_WRITTEN"
            with m.State("ROOT_WRITTEN"):
                with m.If(quiet):
                    self._first_scan(m)
                    m.next = "SCAN"
            with m.State("SCAN"):
                m.d.sync += [generate_cycles.eq(generate_cycles + 1),
                             self.generate_total.eq(self.generate_total + 1)]
                m.d.comb += self.status_cmd.valid.eq(~status_sent)
                with m.If(status_sent & quiet):
                    m.d.comb += self.bins_flush.eq(1)
                    m.next = "FLUSH"
            with m.State("FLUSH"):
                m.d.sync += [generate_cycles.eq(generate_cycles + 1),
                             self.generate_total.eq(self.generate_total + 1)]
                with m.If(quiet):
                    m.next = "GENERATED"
            with m.State("GENERATED"):
                self._generated(m)
            with m.State("LOG"):
                m.d.comb += self.log.valid.eq(1)
                with m.If(self.log.ready):
                    m.d.sync += [self._previous_visited.eq(record.visited),
                                 self.levels_done.eq(self.levels_done + 1)]
                    m.next = "AFTER_LOG"
            with m.State("AFTER_LOG"):
                with m.If(self._stop_after):
                    m.next = "FINISH"
                with m.Else():
                    m.next = "NEXT"
            with m.State("NEXT"):
                self._next_level(m, statistics)
            with m.State("EXPAND"):
                m.d.sync += record.expand_cycles.eq(record.expand_cycles + 1)
                with m.If(quiet):
                    with m.If(self.direction == Direction.BOTTOM_UP):
                        m.d.comb += self.bins_flush.eq(1)
                    m.next = "EXPANDED"
            with m.State("EXPANDED"):
                with m.If(quiet):
                    m.next = "DECIDE"
            with m.State("DECIDE"):
                self._decide(m, figures, decided)
            with m.State("FINISH"):
                with m.If(quiet):
                    # The hub cache empties itself while the engine is idle.
                    m.d.comb += self.cache_clear.eq(1)
                    m.d.sync += self.done.eq(1)
                    m.next = "IDLE"
        m.d.comb += [self.busy.eq(~fsm.ongoing("IDLE")), self.read_buffer.eq(self.buffer)]
        # What the controller did last cycle: changed state, or passed something on.
        transfers = [self.status_cmd, self.offsets_cmd, self.root_discovery, self.log]
        state_before, transferred = Signal.like(fsm.state), Signal()
        m.d.sync += [state_before.eq(fsm.state),
                     transferred.eq(Cat(s.valid & s.ready for s in transfers).any())]
        m.d.comb += self._acted.eq((state_before != fsm.state) | transferred)
        return m

    def _quiet(self, m):
        """Whether the engine is quiet, from a register: ``quiet`` (an OR over every block)
        is sampled into a flip-flop, so it does not reach the state machine's decisions in
        the same cycle. A sample shows the cycle before, so the engine counts as quiet when
        the last two samples are, and the controller did nothing the cycle before (changed
        state or passed a command, whose effect the samples cannot show yet): the same
        decision as from ``quiet`` itself in that cycle and the one before it, a cycle late."""
        sampled, sampled_before = Signal(), Signal()
        self._acted = Signal()
        m.d.sync += [sampled.eq(self.quiet), sampled_before.eq(sampled)]
        quiet = Signal()
        m.d.comb += quiet.eq(sampled & sampled_before & ~self._acted)
        return quiet
