"""The hub-index side of a DepGraph walk (Zhang et al., HPCA 2021, §III-B, "maintaining the hub
index"): what the HDTL keeps about the root's hub-index entries while it walks.

The DDMU answers a looked-up root with its N and I entries (kept here, ``track_entries`` at
most) and then a done answer carrying how many pseudo-edges it lent (PageRank: ``owed``,
paid back by the HDTL at the walk's end). A depth-2 visit whose vertex is an answered
entry's second vertex L chooses that entry for its subtree. Every visit carries y, the value
the root's x gives along the walk's own edges; its edge-independent part yc (y, or y · const
for PageRank, one FP32 multiplication per visit) goes on the stack. When the batch of a vertex
at the tracked entry's depth holds an edge to its tail, the observation <entry, root's x,
EdgeCompute(yc, weight)> goes to the learner before the walk goes on (``batch_finished``).
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.arith.fp32 import FP32Multiplier
from .program import edge_value, gas_of
from .ddmu import LookupAnswer
from .hub_index_learner import ObserveRequest


__all__ = ["HubTracker"]


# An answered entry of the root.
_Candidate = data.StructLayout({"entry": 32, "second": 32, "length": 16, "tail": 32})


class HubTracker(wiring.Component):
    """The root's answered entries, the entry tracked below the depth-2 vertex, the path
    value y and the observations of one walk.

    Parameters
    ----------
    algo : str
        The program (:func:`hw.depgraph.program.gas_of`): min or sum Accum.
    track_entries : int
        Answered entries kept per walk.
    depth_bits : int
        Width of ``depth``.

    Members
    -------
    answers : ``In(stream.Signature(LookupAnswer))``
        From the DDMU; always taken.
    new_walk : ``In(1)``
        A root was popped: forget the previous walk's answers.
    looked_up : ``In(1)``
        The root's lookup went to the DDMU.
    answered : ``Out(1)``
        The DDMU has answered the root (or it was not looked up).
    folded : ``In(1)``; fold_x, fold_const : ``In(32)``
        A visit folded, with the bank's answer (x and PageRank's constant).
    vertex : ``In(32)``; depth : ``In(depth_bits)``
        The vertex being visited and its depth.
    choose : ``In(1)``
        A depth-2 vertex picks the entry its subtree tracks (``answered`` high).
    descend : ``In(1)``; descend_y : ``In(32)``
        The walk descends; y of the vertex below.
    batch_start : ``In(1)``; batch_edge : ``In(1)``; batch_dst, batch_weight : ``In(32)``
        A batch begins; one of its edges enters the FIFO edge buffer.
    yc : ``Out(32)``
        The visit's edge-independent path value, for its stack entry.
    batch_finished : ``Out(1)``
        yc is ready and the batch's observation (if any) has been sent.
    observe : ``Out(stream.Signature(ObserveRequest))``
        To the hub-index learner.
    owed : ``Out(32)``; paid : ``In(1)``
        PageRank: pseudo-edges the DDMU lent for the root and not yet paid back; one paid.
    observations : ``Out(32)``
        Counter: observations sent.
    """

    def __init__(self, *, algo: str, track_entries: int = 8, depth_bits: int = 5):
        self._gas = gas_of(algo)
        if track_entries < 1 or depth_bits < 1:
            raise ConfigError("HubTracker: track_entries and depth_bits must be at least 1, "
                              f"not {track_entries!r} and {depth_bits!r}")
        self._algo = algo
        self._track_entries = track_entries
        super().__init__({
            "answers": In(stream.Signature(LookupAnswer)),
            "new_walk": In(1), "looked_up": In(1), "answered": Out(1),
            "folded": In(1), "fold_x": In(32), "fold_const": In(32),
            "vertex": In(32), "depth": In(depth_bits),
            "choose": In(1), "descend": In(1), "descend_y": In(32),
            "batch_start": In(1), "batch_edge": In(1),
            "batch_dst": In(32), "batch_weight": In(32),
            "yc": Out(32), "batch_finished": Out(1),
            "observe": Out(stream.Signature(ObserveRequest)),
            "owed": Out(32), "paid": In(1),
            "observations": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        is_sum = not self._gas.selective
        k = self._track_entries

        # The root's answered entries.
        was_looked_up = Signal()
        done = Signal()
        table = Signal(data.ArrayLayout(_Candidate, k))
        held = Signal(range(k + 1))
        answer = self.answers.payload
        m.d.comb += [self.answers.ready.eq(1), self.answered.eq(~was_looked_up | done)]
        with m.If(self.looked_up):
            m.d.sync += was_looked_up.eq(1)
        with m.If(self.answers.valid):
            with m.If(answer.done):
                m.d.sync += done.eq(1)
                if is_sum:
                    m.d.sync += self.owed.eq(answer.entry)
            with m.Elif(held < k):
                m.d.sync += [table[held].entry.eq(answer.entry),
                             table[held].second.eq(answer.second),
                             table[held].length.eq(answer.length),
                             table[held].tail.eq(answer.tail),
                             held.eq(held + 1)]
        if is_sum:
            with m.If(self.paid):
                m.d.sync += self.owed.eq(self.owed - 1)
        with m.If(self.new_walk):
            m.d.sync += [was_looked_up.eq(0), done.eq(0), held.eq(0)]

        # The entry tracked below the current depth-2 vertex.
        tracking = Signal()
        tracked = Signal(_Candidate)
        root_x = Signal(32)
        with m.If(self.choose):
            m.d.sync += tracking.eq(0)
            for i in reversed(range(k)):
                with m.If((i < held) & (table[i].second == self.vertex)):
                    m.d.sync += [tracking.eq(1), tracked.eq(table[i])]

        # y: x at the root, EdgeCompute of the parent's y along the edge taken below it.
        y = Signal(32)
        yc_ready = Signal()
        with m.If(self.descend):
            m.d.sync += y.eq(self.descend_y)
        with m.If(self.folded & (self.depth == 1)):
            m.d.sync += [y.eq(self.fold_x), root_x.eq(self.fold_x), tracking.eq(0)]
        y_now = Mux(self.depth == 1, self.fold_x, y)
        if is_sum:
            m.submodules.path_multiplier = multiplier = FP32Multiplier(tag_width=1)
            to_multiply = Signal()
            m.d.comb += [multiplier.i.valid.eq(to_multiply), multiplier.o.ready.eq(1)]
            with m.If(multiplier.i.ready):
                m.d.sync += to_multiply.eq(0)
            with m.If(self.folded):
                m.d.sync += [to_multiply.eq(1), yc_ready.eq(0),
                             multiplier.i.payload.a.eq(y_now),
                             multiplier.i.payload.b.eq(self.fold_const)]
            with m.If(multiplier.o.valid):
                m.d.sync += [self.yc.eq(multiplier.o.payload.result), yc_ready.eq(1)]
        else:
            with m.If(self.folded):
                m.d.sync += [self.yc.eq(y_now), yc_ready.eq(1)]

        # An edge of the batch to the tracked tail, from the tracked depth.
        hit = Signal()
        hit_weight = Signal(32)
        with m.If(self.batch_start):
            m.d.sync += hit.eq(0)
        with m.If(self.batch_edge & tracking & ~hit & (self.depth == tracked.length) &
                  (self.batch_dst == tracked.tail)):
            m.d.sync += [hit.eq(1), hit_weight.eq(self.batch_weight)]

        # After the batch: the observation (if any) is sent before the walk goes on.
        observed = Signal()
        m.d.comb += [
            self.observe.valid.eq(hit & ~observed & yc_ready),
            self.observe.payload.entry.eq(tracked.entry),
            self.observe.payload.x.eq(root_x),
            self.observe.payload.y.eq(edge_value(self._gas, self.yc, hit_weight)),
            self.batch_finished.eq(yc_ready & (~hit | observed)),
        ]
        with m.If(self.observe.valid & self.observe.ready):
            m.d.sync += [observed.eq(1), self.observations.eq(self.observations + 1)]
        with m.If(self.folded):
            m.d.sync += [observed.eq(0), hit.eq(0)]
        return m
