"""Top-down expand and check (Enterprise §2.1: "from each frontier vertex v, check whether
each neighbour w is visited for the first time; if so, v becomes its parent"): every
out-edge of every frontier vertex is read and the status of its destination looked up; an
unvisited destination is a discovery with the frontier vertex as its parent.

Two edges in flight may find one vertex unvisited: both are discoveries and both write the
same level, and one of the parents stays, which is as right as the other. The next queue is
made by scanning the status array, so no vertex is queued twice (no atomics, §4.1).
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.memory.range_streamer import RangeStreamer
from hw.lib.memory.word_lookup import WordLookup
from hw.lib.stream.register_slice import StreamRegisterSlice
from .layouts import UNVISITED, Discovery, LaneEntry


__all__ = ["TopDownCheck"]


class TopDownCheck(wiring.Component):
    """Parameters
    ----------
    addr_width : int
    window : int
        Edge lines requested ahead.
    outstanding : int
        Status reads in flight.

    Members
    -------
    edges_base : ``In(addr_width)``; levels_base : ``In(addr_width)``
    entries : ``In(stream.Signature(LaneEntry))``
        The frontier, each vertex with its out-edge range.
    discoveries : ``Out(stream.Signature(Discovery))``
    edges_checked : ``Out(32)``
        Edges whose destination's status came back (each is one status read).
    busy : ``Out(1)``
    edges_mem, status_mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int, window: int = 32, outstanding: int = 128):
        check_int("TopDownCheck", "addr_width", addr_width, high=32)
        check_int("TopDownCheck", "window", window)
        check_int("TopDownCheck", "outstanding", outstanding)
        self._addr_width = addr_width
        self._window = window
        self._outstanding = outstanding
        super().__init__({
            "edges_base": In(addr_width),
            "levels_base": In(addr_width),
            "entries": In(stream.Signature(LaneEntry)),
            "discoveries": Out(stream.Signature(Discovery)),
            "edges_checked": Out(32),
            "busy": Out(1),
            "edges_mem": Out(MemoryPortSignature(addr_width)),
            "status_mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.edges = edges = RangeStreamer(addr_width=self._addr_width, item_words=1,
                                                   ctx_width=32, window=self._window,
                                                   cmd_slice=True)
        m.submodules.status = status = WordLookup(addr_width=self._addr_width, ctx_width=32,
                                                  outstanding=self._outstanding)
        m.submodules.edge = edge = StreamRegisterSlice(edges.items.payload.shape())
        wiring.connect(m, edges.items, edge.i)
        wiring.connect(m, edges.mem, wiring.flipped(self.edges_mem))
        wiring.connect(m, status.mem, wiring.flipped(self.status_mem))
        entry = self.entries.payload.entry
        m.d.comb += [
            status.base.eq(self.levels_base),
            edges.cmd.valid.eq(self.entries.valid),
            edges.cmd.payload.base.eq(self.edges_base),
            edges.cmd.payload.first.eq(entry.first),
            edges.cmd.payload.count.eq(entry.count),
            edges.cmd.payload.ctx.eq(entry.vertex),
            self.entries.ready.eq(edges.cmd.ready),
            # An edge's destination goes to the status lookup with its source as context,
            # through a register slice: the edge reader's choice of a word in its line and the
            # lookup's address adder would otherwise be one path.
            status.i.valid.eq(edge.o.valid),
            status.i.payload.index.eq(edge.o.payload.data),
            status.i.payload.ctx.eq(edge.o.payload.ctx),
            edge.o.ready.eq(status.i.ready),
        ]
        answer = status.o.payload
        unvisited = answer.word == UNVISITED
        m.d.comb += [
            self.discoveries.valid.eq(status.o.valid & unvisited),
            self.discoveries.payload.vertex.eq(answer.index),
            self.discoveries.payload.parent.eq(answer.ctx),
            status.o.ready.eq(self.discoveries.ready | ~unvisited),
        ]
        # Counted a cycle late, from a register: the status taken hangs off the discoveries'
        # ready, and would otherwise run on into a 32-bit adder.
        counted = Signal()
        m.d.sync += counted.eq(status.o.valid & status.o.ready)
        with m.If(counted):
            m.d.sync += self.edges_checked.eq(self.edges_checked + 1)
        m.d.comb += self.busy.eq(edges.busy | edge.o.valid | ~edge.i.ready | status.busy |
                                 self.entries.valid | counted)
        return m
