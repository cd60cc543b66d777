"""The DDMU's shortcut value (DepGraph, Zhang et al., HPCA 2021, §III-B, "shortcut
propagation"): for a hub-index entry with flag A and the value x its head propagates,
z = mu·x + eps goes to the entry's tail as an update, and (sum type) as a pseudo-edge back to
the walk that looked the head up.

min type (bfs, sssp, cc): z = min(x + eps, 0xFFFFFFFF) as uint32 (mu unused), in the cycle
the entry is taken. Sum type (pagerank): mu, eps and x are FP32 and z = (mu · x) + eps rounded
twice, after the product and after the sum (``np.float32(mu) * np.float32(x) +
np.float32(eps)``, not a fused multiply-add), through :class:`hw.lib.arith.fp32.FP32Multiplier` and
:class:`hw.lib.arith.fp32.FP32Adder`; the update and the pseudo-edge leave together.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.arith.fp32 import FP32Adder, FP32Multiplier
from hw.lib.arith.integer import saturating_add
from hw.lib.stream.fifo import StreamFIFO
from .program import gas_of
from .layouts import MAX_WALK_SLOTS, ORIGIN_DDMU, VertexUpdate


__all__ = ["ShortcutValue", "Shortcut", "PseudoEdge", "SLOT_BITS"]

SLOT_BITS = (MAX_WALK_SLOTS - 1).bit_length()

# One A entry used: its tail, mu and eps, the head's x and the walk slot that looked it up.
Shortcut = data.StructLayout({"tail": 32, "mu": 32, "eps": 32, "x": 32,
                              "engine": SLOT_BITS})
PseudoEdge = data.StructLayout({"tail": 32, "z": 32, "engine": SLOT_BITS})

_SumTag = data.StructLayout({"tail": 32, "eps": 32, "engine": SLOT_BITS})


class ShortcutValue(wiring.Component):
    """z = mu·x + eps per shortcut used (module docstring).

    Parameters
    ----------
    algo : str
        The program (:func:`hw.depgraph.program.gas_of`): min or sum Accum.

    Members
    -------
    i : ``In(stream.Signature(Shortcut))``
    updates : ``Out(stream.Signature(VertexUpdate))``
        ``<tail, z, ORIGIN_DDMU, leave 0>`` per shortcut, through a queue of four.
    pseudo : ``Out(stream.Signature(PseudoEdge))``
        Sum type: ``<tail, z, engine>`` per shortcut, through a queue of four. Never valid
        for min type.
    busy : ``Out(1)``
        A shortcut taken has not yet left through ``updates`` and ``pseudo``.
    """

    def __init__(self, *, algo: str):
        self._is_min = gas_of(algo).selective
        super().__init__({
            "i": In(stream.Signature(Shortcut)),
            "updates": Out(stream.Signature(VertexUpdate)),
            "pseudo": Out(stream.Signature(PseudoEdge)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.update_fifo = update_fifo = StreamFIFO(VertexUpdate, 4)
        wiring.connect(m, update_fifo.o, wiring.flipped(self.updates))
        shortcut = self.i.payload
        if self._is_min:
            m.d.comb += [
                update_fifo.i.valid.eq(self.i.valid),
                update_fifo.i.payload.vertex.eq(shortcut.tail),
                update_fifo.i.payload.value.eq(saturating_add(shortcut.eps, shortcut.x)),
                update_fifo.i.payload.origin.eq(ORIGIN_DDMU),
                self.i.ready.eq(update_fifo.i.ready),
                self.busy.eq(update_fifo.level != 0),
            ]
            return m

        m.submodules.pseudo_fifo = pseudo_fifo = StreamFIFO(PseudoEdge, 4)
        wiring.connect(m, pseudo_fifo.o, wiring.flipped(self.pseudo))
        m.submodules.mul = mul = FP32Multiplier(tag_width=_SumTag.size)
        m.submodules.add = add = FP32Adder(tag_width=_SumTag.size)
        m.d.comb += [
            mul.i.valid.eq(self.i.valid),
            mul.i.payload.a.eq(shortcut.mu),
            mul.i.payload.b.eq(shortcut.x),
            mul.i.payload.tag.eq(Cat(shortcut.tail, shortcut.eps, shortcut.engine)),
            self.i.ready.eq(mul.i.ready),
        ]
        mul_tag = _SumTag(mul.o.payload.tag)
        m.d.comb += [
            add.i.valid.eq(mul.o.valid),
            mul.o.ready.eq(add.i.ready),
            add.i.payload.a.eq(mul.o.payload.result),
            add.i.payload.b.eq(mul_tag.eps),
            add.i.payload.tag.eq(mul.o.payload.tag),
        ]
        # Both queues take z together.
        add_tag = _SumTag(add.o.payload.tag)
        both_ready = update_fifo.i.ready & pseudo_fifo.i.ready
        m.d.comb += [
            add.o.ready.eq(both_ready),
            update_fifo.i.valid.eq(add.o.valid & both_ready),
            update_fifo.i.payload.vertex.eq(add_tag.tail),
            update_fifo.i.payload.value.eq(add.o.payload.result),
            update_fifo.i.payload.origin.eq(ORIGIN_DDMU),
            pseudo_fifo.i.valid.eq(add.o.valid & both_ready),
            pseudo_fifo.i.payload.tail.eq(add_tag.tail),
            pseudo_fifo.i.payload.z.eq(add.o.payload.result),
            pseudo_fifo.i.payload.engine.eq(add_tag.engine),
        ]
        # In flight: between the taking of a shortcut and its leaving the queues.
        in_flight = Signal(4)
        taken = self.i.valid & self.i.ready
        m.d.sync += in_flight.eq(in_flight + taken - (add.o.valid & both_ready))
        m.d.comb += self.busy.eq(any_busy(in_flight, update_fifo.level, pseudo_fifo.level))
        return m
