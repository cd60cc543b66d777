"""Bottom-up check (Enterprise §2.1 and §4.3, figure 11): every unvisited vertex of the
frontier looks through its in-neighbours, in order, for one visited at the level before; the
first found is its parent and the search stops there. Each neighbour is looked up in the hub
cache first; a hit ends the search without a status read.

Up to ``slots`` vertices search at once, each one neighbour at a time: a vertex's status
reads are never speculative, so the edges checked and the status reads are exactly the
golden model's, and the memory latency is covered by the other vertices' searches. A
vertex's in-edges are read a line at a time into its slot's line (:class:`SearchLines`),
where it stays until its neighbours are used up; the search itself (its :data:`CheckItem`)
carries only its slot number. A vertex that finds no parent is a
survivor: it goes to the next level's bottom-up queue, the previous queue minus the
vertices just visited (Enterprise §4.1, figure 7 (c)).
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.memory.port import WORDS_PER_LINE, MemoryPortSignature
from hw.lib.memory.range_streamer import RangeStreamer
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.register_slice import StreamRegisterSlice
from hw.lib.memory.word_lookup import WordLookup
from .hub_cache import cache_answer_layout, cache_lookup_layout
from .layouts import CLASS_BITS, Discovery, LaneEntry
from .search_lines import SearchLines
from .slot_pool import SlotPool


__all__ = ["BottomUpCheck", "SearchState", "CheckItem"]

MAX_SLOTS = 256

# A vertex's search: its in-edge range, how many neighbours it has looked at, its bin, and
# the slot that holds the line of in-edges its next neighbour is in.
SearchState = data.StructLayout({"vertex": 32, "first": 32, "count": 32, "pos": 32,
                                 "cls": CLASS_BITS, "lane": 4, "slot": range(MAX_SLOTS)})
# What a search carries through the hub cache and its status read: with whether the neighbour
# checked is the search's last (``last``) and the last of its line (``line_end``), worked out
# as the check starts, so the status answer's route needs no adder.
CheckItem = data.StructLayout({"state": SearchState, "last": 1, "line_end": 1})


class BottomUpCheck(wiring.Component):
    """Parameters
    ----------
    addr_width : int
    slots : int
        Vertices searching at once.
    outstanding : int
        Status reads in flight (at least ``slots``).

    Members
    -------
    level : ``In(32)``
        The level being found: a parent has level - 1.
    edges_base : ``In(addr_width)``; levels_base : ``In(addr_width)``
    entries : ``In(stream.Signature(LaneEntry))``
        The frontier (unvisited vertices), each with its in-edge range.
    cache_lookup : ``Out(stream.Signature(cache_lookup_layout(CheckItem.size)))``
    cache_answer : ``In(stream.Signature(cache_answer_layout(CheckItem.size)))``
        The hub cache, its context the search.
    discoveries : ``Out(stream.Signature(Discovery))``
    survivors : ``Out(stream.Signature(LaneEntry))``
    edges_checked, cache_hits, status_reads, edge_lines : ``Out(32)``
        Since reset: neighbours looked at (hits and status reads), of them hub-cache hits
        and status reads, and in-edge lines read.
    busy : ``Out(1)``
    edges_mem, status_mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int, slots: int = 64, outstanding: int = 128):
        if not 1 <= slots <= MAX_SLOTS:
            raise ConfigError(f"BottomUpCheck: slots must be 1..{MAX_SLOTS}, not {slots!r}")
        self._addr_width = addr_width
        self._slots = slots
        self._outstanding = max(outstanding, slots)
        ctx = CheckItem.size
        super().__init__({
            "level": In(32),
            "edges_base": In(addr_width),
            "levels_base": In(addr_width),
            "entries": In(stream.Signature(LaneEntry)),
            "cache_lookup": Out(stream.Signature(cache_lookup_layout(ctx))),
            "cache_answer": In(stream.Signature(cache_answer_layout(ctx))),
            "discoveries": Out(stream.Signature(Discovery)),
            "survivors": Out(stream.Signature(LaneEntry)),
            "edges_checked": Out(32),
            "cache_hits": Out(32),
            "status_reads": Out(32),
            "edge_lines": Out(32),
            "busy": Out(1),
            "edges_mem": Out(MemoryPortSignature(addr_width)),
            "status_mem": Out(MemoryPortSignature(addr_width)),
        })

    def _start(self, m, pool, entering, started, left):
        """New searches, while a slot is free (the lowest); a vertex without in-edges
        survives at once. ``entering``: the entries, with whether they have no in-edges,
        out of their register slice."""
        entry = entering.payload.entry
        no_edges = entering.payload.no_edges
        room = pool.room
        m.d.comb += [
            started.valid.eq(entering.valid & ~no_edges & room),
            started.payload.vertex.eq(entry.entry.vertex),
            started.payload.first.eq(entry.entry.first),
            started.payload.count.eq(entry.entry.count),
            started.payload.pos.eq(0),
            started.payload.cls.eq(entry.cls),
            started.payload.lane.eq(entry.lane),
            started.payload.slot.eq(pool.offer),
            pool.take.eq(started.valid & started.ready),
            left.valid.eq(entering.valid & no_edges),
            left.payload.eq(entry),
        ]
        with m.If(no_edges):
            m.d.comb += entering.ready.eq(left.ready)
        with m.Else():
            m.d.comb += entering.ready.eq(started.ready & room)

    def _fetch(self, m, fetches, fetch, arrived_check, lines):
        """Line fetches: the line of neighbour ``first + pos``, into the search's slot; the
        search goes on to check that neighbour."""
        fetching = fetches.payload
        arrived = SearchState(fetch.items.payload.ctx)
        m.d.comb += [
            fetch.cmd.valid.eq(fetches.valid),
            fetch.cmd.payload.base.eq(self.edges_base),
            fetch.cmd.payload.first.eq((fetching.first + fetching.pos) >> 4),
            fetch.cmd.payload.count.eq(1),
            fetch.cmd.payload.ctx.eq(fetching),
            fetches.ready.eq(fetch.cmd.ready),
            arrived_check.valid.eq(fetch.items.valid),
            arrived_check.payload.state.eq(arrived),
            fetch.items.ready.eq(arrived_check.ready),
            lines.write.slot.eq(arrived.slot),
            lines.write.line.eq(fetch.items.payload.data),
            lines.write_en.eq(fetch.items.valid & fetch.items.ready),
        ]

    def _look_up(self, m, checks, lines):
        """The neighbour to look at, read from the slot's line, goes to the hub cache with
        its search."""
        checking = checks.payload
        state = checking.state
        item = Signal(CheckItem)
        next_pos = state.pos + 1
        wiring.connect(m, lines.neighbour, wiring.flipped(self.cache_lookup))
        m.d.comb += [
            item.state.eq(state),
            item.last.eq(next_pos == state.count),
            item.line_end.eq((state.first + next_pos)[:4] == 0),
            lines.lookup.valid.eq(checks.valid),
            lines.lookup.payload.slot.eq(state.slot),
            lines.lookup.payload.word.eq((state.first + state.pos)[:4]),
            lines.lookup.payload.ctx.eq(item),
            checks.ready.eq(lines.lookup.ready),
        ]

    def _cache_answer(self, m, found, status, release):
        """A hit is the parent (the search ends, its slot comes back); a miss reads the
        neighbour's status. Returns whether a hit was taken this cycle."""
        answer = self.cache_answer.payload
        answered = CheckItem(answer.ctx)
        hit = answer.hit
        m.d.comb += [
            found.valid.eq(self.cache_answer.valid & hit),
            found.payload.vertex.eq(answered.state.vertex),
            found.payload.parent.eq(answer.vertex),
            status.i.valid.eq(self.cache_answer.valid & ~hit),
            status.i.payload.index.eq(answer.vertex),
            status.i.payload.ctx.eq(answer.ctx),
        ]
        with m.If(hit):
            m.d.comb += self.cache_answer.ready.eq(found.ready)
        with m.Else():
            m.d.comb += self.cache_answer.ready.eq(status.i.ready)
        hit_taken = self.cache_answer.valid & self.cache_answer.ready & hit
        m.d.comb += [release.valid.eq(hit_taken), release.payload.eq(answered.state.slot)]
        return hit_taken

    def _status_answer(self, m, answers, found, left, fetch_next, check_next, release):
        """A neighbour at the level before is the parent; else the search goes on, within
        the line, from the next line, or ends with no parent. Ending, it gives its slot
        back. Returns whether a status was taken this cycle."""
        read = answers.payload.read
        item = CheckItem(read.ctx)
        state = item.state
        parent = answers.payload.parent
        next_pos = state.pos + 1
        exhausted = item.last
        new_line = item.line_end
        route_found = parent
        route_left = ~parent & exhausted
        route_fetch = ~parent & ~exhausted & new_line
        route_check = ~parent & ~exhausted & ~new_line
        m.d.comb += [
            found.valid.eq(answers.valid & route_found),
            found.payload.vertex.eq(state.vertex),
            found.payload.parent.eq(read.index),
            left.valid.eq(answers.valid & route_left),
            left.payload.entry.vertex.eq(state.vertex),
            left.payload.entry.first.eq(state.first),
            left.payload.entry.count.eq(state.count),
            left.payload.cls.eq(state.cls),
            left.payload.lane.eq(state.lane),
            fetch_next.valid.eq(answers.valid & route_fetch),
            fetch_next.payload.eq(state),
            fetch_next.payload.pos.eq(next_pos),
            check_next.valid.eq(answers.valid & route_check),
            check_next.payload.eq(item),
            check_next.payload.state.pos.eq(next_pos),
        ]
        with m.If(route_found):
            m.d.comb += answers.ready.eq(found.ready)
        with m.Elif(route_left):
            m.d.comb += answers.ready.eq(left.ready)
        with m.Elif(route_fetch):
            m.d.comb += answers.ready.eq(fetch_next.ready)
        with m.Else():
            m.d.comb += answers.ready.eq(check_next.ready)
        read_taken = answers.valid & answers.ready
        m.d.comb += [release.valid.eq(read_taken & (route_found | route_left)),
                     release.payload.eq(state.slot)]
        return read_taken

    def elaborate(self, platform):
        m = Module()
        slots = self._slots
        # A search can end at the hub cache and another at its status read in one cycle;
        # each gives its slot back.
        m.submodules.slots = pool = SlotPool(slots=slots, releases=2)
        # The four arbiters' grants are registers: the status answers' route, its readies
        # and the slots it gives back would otherwise run through each arbiter's choice.
        # Fetches of a search's next line: continuing searches (0) and new ones (1).
        m.submodules.fetch_arbiter = fetch_arbiter = StreamArbiter(
            SearchState, 2, registered_grant=True)
        m.submodules.fetch = fetch = RangeStreamer(
            addr_width=self._addr_width, item_words=WORDS_PER_LINE,
            ctx_width=SearchState.size, window=slots)
        # Checks of a search's next neighbour: a line just read (0), or the same line (1).
        m.submodules.check_arbiter = check_arbiter = StreamArbiter(
            CheckItem, 2, registered_grant=True)
        m.submodules.search_lines = lines = SearchLines(slots=slots, ctx_width=CheckItem.size)
        m.submodules.status = status = WordLookup(
            addr_width=self._addr_width, ctx_width=CheckItem.size,
            outstanding=self._outstanding)
        m.submodules.found = found = StreamArbiter(Discovery, 2, registered_grant=True)
        m.submodules.left = left = StreamArbiter(LaneEntry, 2, registered_grant=True)
        wiring.connect(m, fetch.mem, wiring.flipped(self.edges_mem))
        wiring.connect(m, status.mem, wiring.flipped(self.status_mem))
        wiring.connect(m, found.o, wiring.flipped(self.discoveries))
        wiring.connect(m, left.o, wiring.flipped(self.survivors))
        m.d.comb += [status.base.eq(self.levels_base), self.edge_lines.eq(fetch.lines_read)]

        # New searches pass a register slice into the fetch arbiter: the entry's test for
        # no in-edges and the arbiter's grant would otherwise reach the slot pool.
        m.submodules.starts = starts = StreamRegisterSlice(SearchState)
        wiring.connect(m, starts.o, fetch_arbiter.i[1])
        # Entries pass a register slice on the way in, with their test for no in-edges (a
        # 32-bit compare) worked out before it: the compare and the check-direction select
        # in front of this block would otherwise reach the slot pool and the survivors'
        # arbiter (once the smallest build's deepest path).
        m.submodules.entering = entering = StreamRegisterSlice(data.StructLayout({
            "entry": LaneEntry, "no_edges": 1}))
        m.d.comb += [entering.i.valid.eq(self.entries.valid),
                     entering.i.payload.entry.eq(self.entries.payload),
                     entering.i.payload.no_edges.eq(self.entries.payload.entry.count == 0),
                     self.entries.ready.eq(entering.i.ready)]
        self._start(m, pool, entering.o, starts.i, left.i[1])
        # Fetch commands pass a register slice: the fetch reader's ready (whether its last
        # line went out to the memory) would otherwise reach back through the arbiter into
        # the status answers' route and the slot pool.
        m.submodules.fetches = fetches = StreamRegisterSlice(SearchState)
        wiring.connect(m, fetch_arbiter.o, fetches.i)
        self._fetch(m, fetches.o, fetch, check_arbiter.i[0], lines)
        # Checks pass a register slice after their arbiter: the next position's tests
        # (``last``, ``line_end``) would otherwise follow the arbiter's grant.
        m.submodules.checks = checks = StreamRegisterSlice(CheckItem)
        wiring.connect(m, check_arbiter.o, checks.i)
        self._look_up(m, checks.o, lines)
        hit_taken = self._cache_answer(m, found.i[0], status, pool.release[0])
        # The status answers pass a register slice before their four-way route: the route
        # (a compare with the level, the search's next position) and the arbiters after it
        # would otherwise hang off the lookup queue's asynchronous read.
        m.submodules.answers = answers = StreamRegisterSlice(data.StructLayout({
            "read": status.o.payload.shape(), "parent": 1}))
        parent_level = Signal(32)          # the level before, from a register
        m.d.sync += parent_level.eq(self.level - 1)
        m.d.comb += [answers.i.valid.eq(status.o.valid), status.o.ready.eq(answers.i.ready),
                     answers.i.payload.read.eq(status.o.payload),
                     answers.i.payload.parent.eq(status.o.payload.word == parent_level)]
        read_taken = self._status_answer(m, answers.o, found.i[1], left.i[0],
                                         fetch_arbiter.i[0], check_arbiter.i[1],
                                         pool.release[1])
        # The counters count a cycle late, from registers: whether a hit and a status were
        # taken hang off the routes' readies, and would otherwise run on into 32-bit adders.
        hit_counted, read_counted = Signal(), Signal()
        m.d.sync += [
            hit_counted.eq(hit_taken), read_counted.eq(read_taken),
            self.edges_checked.eq(self.edges_checked + hit_counted + read_counted),
            self.cache_hits.eq(self.cache_hits + hit_counted),
            self.status_reads.eq(self.status_reads + read_counted),
        ]
        m.d.comb += self.busy.eq(pool.busy | self.entries.valid | entering.o.valid |
                                 ~entering.i.ready | hit_counted | read_counted)
        return m
