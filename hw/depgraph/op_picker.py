"""The vertex-store bank's pick (DepGraph, Zhang et al., HPCA 2021, §III-B; stage P of
:class:`hw.depgraph.vertex_store.VertexStoreBank`): each cycle one op among the inputs' main
registers enters the bank's pipeline, round robin, if its answer queue has a credit and no op
in the pipeline writes its record.

Read-modify-write hazards are avoided by stalling, not forwarding: an op is not picked while
an op that writes (a visit or an update) of the same record is in the stages from A to the
compute stage, nor while any load is there (loads come before a run; this keeps their index
out of the compares). The compares are made a cycle ahead, between registers: for each main
register a bit per stage says whether that stage holds a writer of its record; when the main
register keeps its op the bits move one stage on (plus a compare with the op picked, which
enters A), and when it takes the head of its queue the head's index is compared with every
stage. So the pick sees registered hazard bits, and no compare lies between the arbiter and
the wide registers it enables.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.stream.round_robin import RoundRobin
from .record_update import OpKind


__all__ = ["OpPicker", "or_reduce"]

_KINDS = len(OpKind)


class OpPicker(wiring.Component):
    """The pick of a bank whose pipeline holds ``stages`` stages from A to the compute
    stage. ``kinds`` below is the number of op kinds, ``len(OpKind)``: load, visit,
    update and dump.

    Members
    -------
    valid : ``In(kinds)``; index : ``In(index_width).array(kinds)``
        Each kind's main register (loads: the head of their queue) and its record.
    head_index : ``In(index_width).array(kinds)``; move : ``In(kinds)``
        Each kind's queue head, and whether it moves to the main register this cycle
        (unused for loads).
    room : ``In(kinds)``
        The answer queue of each kind has a credit.
    stage_writes : ``In(stages)``; stage_index : ``In(index_width).array(stages)``
        Stage s (A first) holds an op that writes record ``stage_index[s]``.
    stage_loads : ``In(stages)``
        Stage s holds a load.
    grant : ``Out(kinds)``
        One-hot: the kind picked this cycle (its main register is taken).
    pick_index : ``Out(index_width)``
        Its record.
    hazard_wait : ``Out(1)``
        Nothing is picked while a visit or an update waits (with room for its answer) on a
        hazard: the cycles a read-modify-write of a hot record costs.
    """

    def __init__(self, *, index_width: int, stages: int):
        check_int("OpPicker", "index_width", index_width)
        check_int("OpPicker", "stages", stages, low=2)
        self._stages = stages
        super().__init__({
            "valid": In(_KINDS), "index": In(index_width).array(_KINDS),
            "head_index": In(index_width).array(_KINDS), "move": In(_KINDS),
            "room": In(_KINDS),
            "stage_writes": In(stages), "stage_index": In(index_width).array(stages),
            "stage_loads": In(stages),
            "grant": Out(_KINDS), "pick_index": Out(index_width),
            "hazard_wait": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        stages = self._stages
        grant = self.grant
        # matches[k]: which stages hold a writer of k's main register's record (worked out
        # the cycle before; none for loads), hazards[k] their OR, registered as well; a load
        # anywhere in the stages holds up every other op (load_barrier, registered too).
        matches = [None] + [Signal(stages, name=f"{OpKind(k).name.lower()}_matches")
                            for k in range(1, _KINDS)]
        hazards = [Const(0, 1)] + [Signal(name=f"{OpKind(k).name.lower()}_hazard")
                                   for k in range(1, _KINDS)]
        load_barrier = Signal()
        ok = Signal(_KINDS)
        for kind in range(_KINDS):
            blocked = 0 if kind == OpKind.LOAD else hazards[kind] | load_barrier
            m.d.comb += ok[kind].eq(self.valid[kind] & self.room[kind] & ~blocked)

        # As if loads (kind 0) had been picked last: visits come first after reset.
        m.submodules.turn = turn = RoundRobin(_KINDS, first=1)
        m.d.comb += [turn.requests.eq(ok), grant.eq(turn.grant), turn.served.eq(grant)]
        m.d.comb += self.pick_index.eq(
            or_reduce([Mux(grant[k], self.index[k], 0) for k in range(_KINDS)]))
        m.d.comb += self.hazard_wait.eq(~grant.any() & or_reduce(
            [self.valid[k] & self.room[k] & hazards[k] for k in (OpKind.VISIT, OpKind.UPDATE)]))

        # Next cycle's hazards: the stages then are the op picked now (entering A) and the
        # ops now in A .. the stage before the compute stage, one further.
        m.d.sync += load_barrier.eq(grant[OpKind.LOAD] | self.stage_loads[:-1].any())

        def picked_writer_of(index):
            return or_reduce([grant[j] & (self.index[j] == index)
                              for j in (OpKind.VISIT, OpKind.UPDATE)])

        for k in range(1, _KINDS):
            head_matches = Signal(stages - 1, name=f"{OpKind(k).name.lower()}_head_matches")
            m.d.comb += head_matches.eq(Cat(
                self.stage_writes[s] & (self.stage_index[s] == self.head_index[k])
                for s in range(stages - 1)))
            head_picked = Signal(name=f"{OpKind(k).name.lower()}_head_picked")
            main_picked = Signal(name=f"{OpKind(k).name.lower()}_main_picked")
            m.d.comb += [head_picked.eq(picked_writer_of(self.head_index[k])),
                         main_picked.eq(picked_writer_of(self.index[k]))]
            with m.If(self.move[k]):
                m.d.sync += [matches[k].eq(Cat(head_picked, head_matches)),
                             hazards[k].eq(head_picked | head_matches.any())]
            with m.Else():
                m.d.sync += [matches[k].eq(Cat(main_picked, matches[k][:-1])),
                             hazards[k].eq(main_picked | matches[k][:-1].any())]
        return m


def or_reduce(values):
    """The OR of ``values`` (bits or words alike)."""
    result = Const(0, 1)
    for value in values:
        result = result | value
    return result
