"""Dispatch of the frontier to the expand lanes. Top-down it is degree-classified (Enterprise
§4.2): each class gets the granularity that fits its degree.

* Small (fewer than ``middle_degree`` out-edges): the whole vertex to one lane, which checks
  one edge a cycle (Enterprise: a thread per vertex).
* Middle and Large: a line of edges (16, the first up to its line's end) to each lane in
  turn, so a vertex's lines are checked side by side (a warp, a CTA).
* Extreme: the edges cut into one piece per lane (ceil(count / lanes) rounded up to whole
  lines of edges), every lane on the one vertex (the whole grid).

``classified=False`` is the baseline Enterprise improves on: every vertex whole to one lane,
whatever its degree, so a high-degree vertex holds its lane while the others run dry. It is
also how bottom-up vertices are dealt: a search stops at its first parent, so it cannot be
cut.

A piece goes to the first lane with room at or after the one after the lane served last
(round robin), one piece a cycle; each lane has a small queue of pieces.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, is_power_of_two, check_int
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.round_robin import RoundRobin
from .layouts import DegreeClass, LaneEntry


__all__ = ["ExpandDispatch"]

LINE_EDGES = 16


class ExpandDispatch(wiring.Component):
    """Parameters
    ----------
    lanes : int
        Expand lanes (a power of two, 1..16).
    classified : bool
        Split by class as above, or every vertex whole to one lane.
    queue_depth : int
        Pieces queued per lane.

    Members
    -------
    entries : ``In(stream.Signature(LaneEntry))``
        The frontier with each vertex's edge range and class.
    work : ``Out(stream.Signature(LaneEntry)).array(lanes)``
        The pieces: the vertex with a part of its edge range.
    busy : ``Out(1)``
    """

    def __init__(self, *, lanes: int, classified: bool = True, queue_depth: int = 4):
        check_int("ExpandDispatch", "queue_depth", queue_depth)
        if not (is_power_of_two(lanes) and 1 <= lanes <= 16):
            raise ConfigError(f"ExpandDispatch: lanes must be a power of two from 1 to 16, "
                              f"not {lanes!r}")
        self._lanes = lanes
        self._classified = classified
        self._queue_depth = queue_depth
        super().__init__({
            "entries": In(stream.Signature(LaneEntry)),
            "work": Out(stream.Signature(LaneEntry)).array(lanes),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        lanes = self._lanes
        queues = []
        for lane in range(lanes):
            queue = StreamFIFO(LaneEntry, self._queue_depth)
            m.submodules[f"queue{lane}"] = queue
            wiring.connect(m, queue.o, wiring.flipped(self.work[lane]))
            queues.append(queue)

        # The vertex being cut: its entry with the edges not yet sent, and its piece size.
        current = Signal(LaneEntry)
        have = Signal()
        extreme_piece = Signal(32)
        entry = self.entries.payload
        if self._classified:
            shift = (lanes.bit_length() - 1) + 4
            first_line_left = LINE_EDGES - current.entry.first[:4]
            size = Signal(32)
            with m.Switch(current.cls):
                with m.Case(DegreeClass.SMALL):
                    m.d.comb += size.eq(current.entry.count)
                with m.Case(DegreeClass.EXTREME):
                    m.d.comb += size.eq(extreme_piece)
                with m.Default():
                    m.d.comb += size.eq(first_line_left)
            piece = Mux(size < current.entry.count, size, current.entry.count)
        else:
            piece = current.entry.count

        # The first lane with room at or after the one after the lane served last.
        m.submodules.turn = turn = RoundRobin(lanes)
        room = Cat(queue.i.ready for queue in queues)
        send = have & room.any()
        last = piece == current.entry.count
        m.d.comb += [turn.requests.eq(room),
                     turn.served.eq(turn.grant & send.replicate(lanes))]
        for lane, queue in enumerate(queues):
            m.d.comb += [queue.i.valid.eq(send & turn.grant[lane]),
                         queue.i.payload.eq(current),
                         queue.i.payload.entry.count.eq(piece)]
        with m.If(send):
            m.d.sync += [current.entry.first.eq(current.entry.first + piece),
                         current.entry.count.eq(current.entry.count - piece)]

        # The next vertex is taken as the last piece leaves. A vertex without edges goes on
        # as one empty piece: bottom-up, it is a survivor.
        m.d.comb += self.entries.ready.eq(~have | (send & last))
        with m.If(send & last):
            m.d.sync += have.eq(0)
        with m.If(self.entries.valid & self.entries.ready):
            m.d.sync += [current.eq(entry), have.eq(1)]
            if self._classified:
                # ceil(count / lanes), rounded up to whole lines.
                m.d.sync += extreme_piece.eq(
                    ((entry.entry.count + (lanes * LINE_EDGES - 1)) >> shift) << 4)
        m.d.comb += self.busy.eq(any_busy(have, (q.o.valid for q in queues)))
        return m
