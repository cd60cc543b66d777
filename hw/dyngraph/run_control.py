"""A run of the dynamic graph unit: the presence bitmap loaded, then the operations issued
until every one has ended and the memory is quiet (the host's batch launch on the GPU), then,
if asked, the compaction of the updated graph into an edge list."""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.range_streamer import range_cmd_layout


__all__ = ["RunControl"]


class RunControl(wiring.Component):
    """Members
    -------
    start : ``In(1)``; busy, done : ``Out(1)``
    restart : ``Out(1)``
        The cycle of ``start`` (before the first run or after one): the allocator, the
        bitmap and the unit's other blocks take their initial state.
    present_base : ``In(addr_width)``; present_lines : ``In(32)``
    load_cmd : ``Out(stream.Signature(range_cmd_layout(addr_width, 1)))``
    ops_base : ``In(addr_width)``; ops_count : ``In(32)``
    ops_cmd : ``Out(stream.Signature(range_cmd_layout(addr_width, 1)))``
        The operations' reader, started with the load.
    line_loaded : ``In(1)``
    go : ``Out(1)``
        Operations may issue.
    finished : ``In(1)``; quiet : ``In(1)``
        Every operation ended; nothing left in any block or the memory.
    compact_vertices : ``In(32)``
        Vertices the compactor walks after the operations (0: no compaction).
    compact_start : ``Out(1)``; compact_done : ``In(1)``
    cycles, load_cycles, compact_cycles : ``Out(32)``
    """

    def __init__(self, *, addr_width: int):
        check_int("RunControl", "addr_width", addr_width, high=32)
        super().__init__({
            "start": In(1), "busy": Out(1), "done": Out(1), "restart": Out(1),
            "present_base": In(addr_width), "present_lines": In(32),
            "load_cmd": Out(stream.Signature(range_cmd_layout(addr_width, 1))),
            "ops_base": In(addr_width), "ops_count": In(32),
            "ops_cmd": Out(stream.Signature(range_cmd_layout(addr_width, 1))),
            "line_loaded": In(1),
            "go": Out(1),
            "finished": In(1), "quiet": In(1),
            "compact_vertices": In(32), "compact_start": Out(1), "compact_done": In(1),
            "cycles": Out(32), "load_cycles": Out(32), "compact_cycles": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        lines = self.present_lines
        count = Signal(32)
        m.d.comb += [self.load_cmd.payload.base.eq(self.present_base),
                     self.load_cmd.payload.first.eq(0),
                     self.load_cmd.payload.count.eq(lines),
                     self.ops_cmd.payload.base.eq(self.ops_base),
                     self.ops_cmd.payload.first.eq(0),
                     self.ops_cmd.payload.count.eq(self.ops_count)]
        with m.If(self.line_loaded):
            m.d.sync += count.eq(count + 1)

        def begin():
            with m.If(self.start):
                m.d.comb += self.restart.eq(1)
                m.d.sync += [count.eq(0), self.cycles.eq(0), self.load_cycles.eq(0),
                             self.compact_cycles.eq(0)]
                m.next = "COMMAND"

        with m.FSM():
            with m.State("IDLE"):
                begin()
            with m.State("COMMAND"):
                m.d.comb += [self.busy.eq(1), self.load_cmd.valid.eq(1)]
                m.d.sync += [self.cycles.eq(self.cycles + 1),
                             self.load_cycles.eq(self.load_cycles + 1)]
                with m.If(self.load_cmd.ready):
                    m.next = "OPS_COMMAND"
            with m.State("OPS_COMMAND"):
                m.d.comb += [self.busy.eq(1), self.ops_cmd.valid.eq(1)]
                m.d.sync += [self.cycles.eq(self.cycles + 1),
                             self.load_cycles.eq(self.load_cycles + 1)]
                with m.If(self.ops_cmd.ready):
                    m.next = "LOAD"
            with m.State("LOAD"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += [self.cycles.eq(self.cycles + 1),
                             self.load_cycles.eq(self.load_cycles + 1)]
                with m.If(count == lines):
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += [self.busy.eq(1), self.go.eq(1)]
                m.d.sync += self.cycles.eq(self.cycles + 1)
                with m.If(self.finished & self.quiet):
                    m.next = "DONE"
                    with m.If(self.compact_vertices != 0):
                        m.next = "COMPACT_START"
            with m.State("COMPACT_START"):
                m.d.comb += [self.busy.eq(1), self.compact_start.eq(1)]
                m.d.sync += [self.cycles.eq(self.cycles + 1),
                             self.compact_cycles.eq(self.compact_cycles + 1)]
                m.next = "COMPACT"
            with m.State("COMPACT"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += [self.cycles.eq(self.cycles + 1),
                             self.compact_cycles.eq(self.compact_cycles + 1)]
                with m.If(self.compact_done & self.quiet):
                    m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                begin()
        return m
