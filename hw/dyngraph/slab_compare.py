"""The slab compare: all 15 keys of a slab against one key, a slab a cycle, the hardware form of
the slab hash's warp-cooperative search (Ashkiani et al.: each of 32 threads reads a word of
the slab, a ballot finds the lanes that hold the key or an empty cell; Awad et al. use it for
every edge operation).
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from .layouts import EMPTY_KEY, NULL_SLAB, SLAB_PAIRS, TOMBSTONE_KEY
from .slab_port import slab_out_layout


__all__ = ["SlabCompare", "SlabMatch", "compare_out_layout"]

# What a slab says about a key: where it is (and its value), the first free cell (empty or
# tombstone), whether any cell is empty (nothing lies beyond this slab), the next slab and
# the owner; ``end``: a walk ends at this slab (an empty cell, or no next slab).
SlabMatch = data.StructLayout({
    "found": 1, "found_cell": 4, "value": 32,
    "open": 1, "open_cell": 4, "has_empty": 1,
    "next": 32, "aux": 32, "end": 1,
})


def compare_out_layout(ctx_shape) -> data.StructLayout:
    return data.StructLayout({"match": SlabMatch, "ctx": ctx_shape})


def _first(m, bits, name):
    """The index of the lowest set bit of ``bits`` (0 when none)."""
    index = Signal(4, name=name)
    for cell in reversed(range(SLAB_PAIRS)):
        with m.If(bits[cell]):
            m.d.comb += index.eq(cell)
    return index


class SlabCompare(wiring.Component):
    """One slab a cycle, in two register stages: the 15 compares, then the cells they pick
    (the first hit's value, the first open cell), each stage a register.

    Parameters
    ----------
    ctx_shape : shape-like
        Carried from input to output.
    key_of : callable
        The key to look for, from the slab's ``ctx``.

    Members
    -------
    i : ``In(stream.Signature(slab_out_layout(ctx_shape)))``
        A slab as :class:`hw.dyngraph.slab_port.SlabPort` gives it.
    o : ``Out(stream.Signature(compare_out_layout(ctx_shape)))``
    busy : ``Out(1)``
    """

    def __init__(self, *, ctx_shape, key_of):
        if not callable(key_of):
            raise ConfigError(f"SlabCompare: key_of must be a callable from ctx to key, "
                              f"not {key_of!r}")
        self._key_of = key_of
        self._ctx_shape = ctx_shape
        super().__init__({
            "i": In(stream.Signature(slab_out_layout(ctx_shape))),
            "o": Out(stream.Signature(compare_out_layout(ctx_shape))),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        slab, key = self.i.payload.slab, self._key_of(self.i.payload.ctx)
        keys = [slab.pairs[cell].key for cell in range(SLAB_PAIRS)]
        # Stage 1: the compares, with what stage 2 picks from.
        compared = Signal(data.StructLayout({
            "hits": SLAB_PAIRS, "empty": SLAB_PAIRS, "opens": SLAB_PAIRS,
            "values": data.ArrayLayout(32, SLAB_PAIRS), "next": 32, "aux": 32,
            "ctx": self._ctx_shape}))
        compared_valid = Signal()
        advance = ~self.o.valid | self.o.ready
        m.d.comb += self.i.ready.eq(~compared_valid | advance)
        with m.If(self.i.ready):
            m.d.sync += [
                compared_valid.eq(self.i.valid),
                compared.hits.eq(Cat(k == key for k in keys)),
                compared.empty.eq(Cat(k == EMPTY_KEY for k in keys)),
                compared.opens.eq(Cat((k == EMPTY_KEY) | (k == TOMBSTONE_KEY) for k in keys)),
                compared.values.eq(Cat(slab.pairs[cell].value for cell in range(SLAB_PAIRS))),
                compared.next.eq(slab.next),
                compared.aux.eq(slab.aux),
                compared.ctx.eq(self.i.payload.ctx),
            ]
        # Stage 2: the first hit's cell and value, the first open cell.
        hits = compared.hits
        found_cell = _first(m, hits, "found_cell")
        open_cell = _first(m, compared.opens, "open_cell")
        first_hit = Cat(hits[cell] & ~hits[:cell].any() if cell else hits[0]
                        for cell in range(SLAB_PAIRS))
        value = 0
        for cell in range(SLAB_PAIRS):
            value = value | (compared.values[cell] & first_hit[cell].replicate(32))
        with m.If(advance):
            out = self.o.payload.match
            m.d.sync += [
                self.o.valid.eq(compared_valid),
                self.o.payload.ctx.eq(compared.ctx),
                out.found.eq(hits.any()),
                out.found_cell.eq(found_cell),
                out.value.eq(value),
                out.open.eq(compared.opens.any()),
                out.open_cell.eq(open_cell),
                out.has_empty.eq(compared.empty.any()),
                out.next.eq(compared.next),
                out.aux.eq(compared.aux),
                out.end.eq(compared.empty.any() | (compared.next == NULL_SLAB)),
            ]
        m.d.comb += self.busy.eq(compared_valid | self.o.valid)
        return m
