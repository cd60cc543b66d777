"""The vertex store's rules for one record (DepGraph, Zhang et al., HPCA 2021, §III-B; the
rules of ``golden.depgraph.engine``): what a load, a visit (the fold) or an update (Accum)
writes back, and what it reports, given the record as read and the worth tests already
made. The compute stage of :class:`hw.depgraph.vertex_store.VertexStoreBank`, without a
clock: it only chooses among values its pipeline worked out.

* load: the record as given; active = queued = worth; a worth record is pushed.
* visit: active <- 0 (queued <- 0 too for a root); if worth, state <- the folded value and
  delta <- the identity.
* update: delta <- the accumulated value; a record now worth and not active becomes active
  and is pushed, unless it is left for the walk of its origin (the update's ``leave``, an
  origin of this bank's engine, not stop) or queued already.
"""

from amaranth.hdl import Cat, Const, Module
from amaranth.lib import data, enum, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from .layouts import ORIGIN_BITS


__all__ = ["RecordUpdate", "RecordOp", "RecordWrite", "OpKind", "RecordFlag"]


class OpKind(enum.IntEnum, shape=2):
    """The op kinds of a bank, in the order of its arbiter (probes are answered beside its
    pipeline, by :mod:`.probe_port`); an op's ``kind`` is one-hot, bit ``OpKind.X`` for X."""
    LOAD = 0
    VISIT = 1
    UPDATE = 2
    DUMP = 3


class RecordFlag(enum.IntEnum, shape=3):
    """The bits of a record's flags: ``flags[RecordFlag.X]``. The flags from the host (stop,
    head, leaf, and any added after them) come last."""
    ACTIVE = 0
    QUEUED = 1
    STOP = 2
    HEAD = 3
    LEAF = 4

RecordOp = data.StructLayout({
    "kind": len(OpKind),
    "flags": len(RecordFlag),       # as read
    "origin": ORIGIN_BITS, "leave": 1, "root": 1,
    "load_worth": 1, "load_stop": 1, "load_head": 1, "load_leaf": 1,
    "visit_worth": 1,               # the delta read is worth folding
    "update_worth": 1,              # the accumulated delta is worth (a change to apply)
    "load_state": 32, "load_delta": 32,
    "new_state": 32,                # a visit's folded state
    "new_delta": 32,                # an update's accumulated delta
})

RecordWrite = data.StructLayout({
    "worth": 1,
    "flags": len(RecordFlag), "flags_en": 1,
    "state": 32, "state_en": 1,
    "delta": 32, "delta_en": 1,
    "pushes": 1,                    # the record's id goes to the queue
    "activates": 1,                 # active set
    "left": 1,                      # activated and left for its origin's walk
    "overflows": 1,                 # activated, walkable, of this engine, but queued: its
                                    # batch was at the stack's depth
})


class RecordUpdate(wiring.Component):
    """The rules above for one op of a bank (combinational).

    Parameters
    ----------
    engine : int
        The bank's engine.
    walk_bits : int
        Bits of a walk's number within its engine (the low bits of an origin).
    identity : int
        Accum's identity, the delta a fold leaves.

    Members
    -------
    op : ``In(RecordOp)``
    write : ``Out(RecordWrite)``
    """

    def __init__(self, *, engine: int, walk_bits: int, identity: int):
        check_int("RecordUpdate", "walk_bits", walk_bits, low=0, high=ORIGIN_BITS - 1)
        check_int("RecordUpdate", "engine", engine, low=0,
                  high=(1 << (ORIGIN_BITS - walk_bits)) - 1)
        check_int("RecordUpdate", "identity", identity, low=0, high=2**32 - 1)
        self._engine = engine
        self._walk_bits = walk_bits
        self._identity = identity
        super().__init__({"op": In(RecordOp), "write": Out(RecordWrite)})

    def elaborate(self, platform):
        m = Module()
        op, out = self.op, self.write
        kind, flags = op.kind, op.flags
        load, visit, update = kind[OpKind.LOAD], kind[OpKind.VISIT], kind[OpKind.UPDATE]
        active, queued, stop = (flags[RecordFlag.ACTIVE], flags[RecordFlag.QUEUED],
                                flags[RecordFlag.STOP])
        # The flags from the host (stop, head, leaf, and any added after them) only a load
        # writes; a visit and an update carry them as read.
        carried = flags[RecordFlag.STOP:]
        own_walk = op.origin[self._walk_bits:] == self._engine
        newly = op.update_worth & ~active
        left_for_walk = op.leave & own_walk & ~stop
        push_update = newly & ~left_for_walk & ~queued
        m.d.comb += [
            out.worth.eq((load & op.load_worth) | (visit & op.visit_worth) |
                         (update & op.update_worth)),
            out.flags_en.eq(load | visit | update),
            out.pushes.eq((load & op.load_worth) | (update & push_update)),
            out.activates.eq((load & op.load_worth) | (update & newly)),
            out.left.eq(update & newly & left_for_walk),
            out.overflows.eq(update & newly & own_walk & ~stop & ~op.leave),
        ]
        with m.If(load):
            m.d.comb += [
                out.flags.eq(Cat(op.load_worth, op.load_worth, op.load_stop, op.load_head,
                                 op.load_leaf)),
                out.state_en.eq(1), out.state.eq(op.load_state),
                out.delta_en.eq(1), out.delta.eq(op.load_delta),
            ]
        with m.Elif(visit):
            m.d.comb += [
                out.flags.eq(Cat(Const(0, 1), queued & ~op.root, carried)),
                out.state_en.eq(op.visit_worth), out.state.eq(op.new_state),
                out.delta_en.eq(op.visit_worth), out.delta.eq(self._identity),
            ]
        with m.Else():
            m.d.comb += [
                out.flags.eq(Cat(active | newly, queued | push_update, carried)),
                out.delta_en.eq(update), out.delta.eq(op.new_delta),
            ]
        return m
