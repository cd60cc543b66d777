"""One step of an edge operation's walk along its bucket's chain (the slab hash's search,
replace and delete, Ashkiani et al. §4; Awad et al.'s edge insertion and deletion): after
each slab the operation ends (with a write, an answer, or both), reads the next slab, or asks
the allocator for a slab to extend a full chain.

The rules are those of :mod:`golden.dyngraph.slab_graph`: the key found ends every kind; a
slab with an empty cell or no next slab ends the walk; an insert that found no key goes into
the first free cell it passed, or into a new slab.
"""

from amaranth.hdl import C, Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.stream.fifo import StreamFIFO
from .layouts import (TOMBSTONE_KEY, AllocRequest, EdgeKind, Outcome, Retire,
                      SlabCtx, SlabPurpose)
from .slab_compare import compare_out_layout
from .slab_port import slab_read_layout


__all__ = ["OpStep", "cell_write"]


def cell_write(m, write, *, slab, cell, key, value, key_too: bool | Signal,
               value_too: bool | Signal):
    """Fill ``write`` (a SlabWrite view) with the line of ``cell`` of ``slab``: the pair
    replicated over the line, the byte mask on the cell's key and/or value."""
    pair = cell[:3]
    key_too, value_too = (C(int(x), 1) if isinstance(x, bool) else x
                          for x in (key_too, value_too))
    mask = Signal(8)
    m.d.comb += mask.eq(Cat(*([key_too] * 4), *([value_too] * 4)))
    m.d.comb += [
        write.write.eq(1),
        write.slab.eq(slab),
        write.line.eq(cell[3]),
        write.data.eq(Cat(*[Cat(key[:32], value[:32])] * 8)),
        write.mask.eq((mask << (pair << 3))[:64]),
    ]


class OpStep(wiring.Component):
    """Members
    -------
    i : ``In(stream.Signature(compare_out_layout(SlabCtx)))``
        A walk's slab, compared with the operation's key.
    next : ``Out(stream.Signature(slab_read_layout(SlabCtx)))``
        The operation, to read its next slab.
    retire : ``Out(stream.Signature(Retire))``
    allocate : ``Out(stream.Signature(AllocRequest))``
    steps : ``Out(32)``
        Slabs the walks have read since reset.
    busy : ``Out(1)``
    """

    def __init__(self):
        super().__init__({
            "i": In(stream.Signature(compare_out_layout(SlabCtx))),
            "next": Out(stream.Signature(slab_read_layout(SlabCtx))),
            "retire": Out(stream.Signature(Retire)),
            "allocate": Out(stream.Signature(AllocRequest)),
            "steps": Out(32),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        queues = {}
        # Four deep (LUT RAM is 16 deep at no extra cost): the slab waits for room in all
        # three (below), and two-deep queues made that wait cost short batches some 4%.
        for name, shape in (("next", slab_read_layout(SlabCtx)), ("retire", Retire),
                            ("allocate", AllocRequest)):
            m.submodules[name] = queue = StreamFIFO(shape, 4)
            wiring.connect(m, queue.o, wiring.flipped(getattr(self, name)))
            queues[name] = queue.i
        match, op = self.i.payload.match, self.i.payload.ctx.op
        open_slab = Signal(32)
        open_cell = Signal(4)
        has_open = Signal()
        m.d.comb += [has_open.eq(op.open | match.open),
                     open_slab.eq(op.open_slab),
                     open_cell.eq(op.open_cell)]
        with m.If(~op.open):
            m.d.comb += [open_slab.eq(op.slab), open_cell.eq(match.open_cell)]
        end = match.end
        to_allocate = ~match.found & end & (op.kind == EdgeKind.INSERT) & ~has_open
        to_next = ~match.found & ~end

        retire = queues["retire"].payload
        write = retire.slab_write
        m.d.comb += [
            write.release.eq(self.i.valid),      # not a constant: see SlabAllocator
            write.vertex.eq(op.u),
            write.lock.eq(op.bucket),
            retire.search.eq(op.kind == EdgeKind.SEARCH),
            retire.answer.index.eq(op.answer),
            retire.answer.found.eq(match.found),
            retire.answer.weight.eq(match.value),
        ]
        with m.If(match.found):
            with m.Switch(op.kind):
                with m.Case(EdgeKind.INSERT):
                    m.d.comb += retire.outcome.eq(Outcome.REPLACED)
                    cell_write(m, write, slab=op.slab, cell=match.found_cell, key=op.v,
                               value=op.w, key_too=False, value_too=True)
                with m.Case(EdgeKind.DELETE):
                    m.d.comb += retire.outcome.eq(Outcome.DELETED)
                    cell_write(m, write, slab=op.slab, cell=match.found_cell,
                               key=C(TOMBSTONE_KEY, 32), value=op.w, key_too=True,
                               value_too=False)
                with m.Default():
                    m.d.comb += retire.outcome.eq(Outcome.SEARCH_HITS)
        with m.Else():
            with m.Switch(op.kind):
                with m.Case(EdgeKind.INSERT):
                    m.d.comb += retire.outcome.eq(Outcome.INSERTED)
                    cell_write(m, write, slab=open_slab, cell=open_cell, key=op.v, value=op.w,
                               key_too=True, value_too=True)
                with m.Case(EdgeKind.DELETE):
                    m.d.comb += retire.outcome.eq(Outcome.DELETE_MISSES)
                with m.Default():
                    m.d.comb += retire.outcome.eq(Outcome.SEARCH_MISSES)

        following = queues["next"].payload
        m.d.comb += [
            following.slab.eq(match.next),
            following.ctx.purpose.eq(SlabPurpose.WALK),
            following.ctx.op.eq(op),
            following.ctx.op.slab.eq(match.next),
            following.ctx.op.open.eq(has_open),
            following.ctx.op.open_slab.eq(open_slab),
            following.ctx.op.open_cell.eq(open_cell),
        ]
        request = queues["allocate"].payload
        m.d.comb += [request.vertex.eq(op.u), request.pair.eq(1), request.key.eq(op.v),
                     request.value.eq(op.w), request.last.eq(op.slab),
                     request.answer.eq(op.answer), request.lock.eq(op.bucket)]

        # Ready when all three queues have room, whichever the slab goes to: a ready that
        # depended on the slab's compare result ran back through the compare and the slab
        # port's line assembly (the routed ECP5 build's critical path).
        room = queues["next"].ready & queues["allocate"].ready & queues["retire"].ready
        m.d.comb += self.i.ready.eq(room)
        with m.If(to_next):
            m.d.comb += queues["next"].valid.eq(self.i.valid & room)
        with m.Elif(to_allocate):
            m.d.comb += queues["allocate"].valid.eq(self.i.valid & room)
        with m.Else():
            m.d.comb += queues["retire"].valid.eq(self.i.valid & room)
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += self.steps.eq(self.steps + 1)
        m.d.comb += self.busy.eq(self.next.valid | self.retire.valid | self.allocate.valid)
        return m
