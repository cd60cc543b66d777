"""Dispatch to the least-occupied of several units: how Graphicionado assigns each active
vertex to a parallel Edge Read and each edge to a parallel destination-property read (Ham et
al. §V.B–C: "assigned ... by input queue occupancy, lowest first")."""

from amaranth.hdl import C, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int


__all__ = ["LowestOccupancyDispatch"]


class LowestOccupancyDispatch(wiring.Component):
    """``i`` to the one of ``count`` outputs with the lowest ``levels`` among those ready (the
    lowest index on a tie).

    Parameters
    ----------
    shape : shape-like
    count : int
        At least 2.
    level_width : int
        Bits of each occupancy.

    Members
    -------
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape)).array(count)``
        Only the chosen output is valid; its ready must not depend on its valid.
    levels : ``In(level_width).array(count)``
        Each unit's occupancy.
    """

    def __init__(self, shape, count: int, *, level_width: int):
        check_int("LowestOccupancyDispatch", "level_width", level_width)
        if count < 2:
            raise ConfigError(f"LowestOccupancyDispatch: count must be at least 2, not {count!r}")
        self._count = count
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)).array(count),
            "levels": In(level_width).array(count),
        })

    def elaborate(self, platform):
        m = Module()
        # A linear scan: the units are few. Each step's best is a signal, not an expression:
        # step k refers to step k - 1's level twice, so expressions would double at each step
        # (16 outputs made 55 MB of RTLIL).
        level, index, have = self.levels[0], C(0, range(self._count)), self.o[0].ready
        for k in range(1, self._count):
            better = self.o[k].ready & (~have | (self.levels[k] < level))
            step_level = Signal.like(self.levels[k], name=f"level{k}")
            step_index = Signal(range(self._count), name=f"index{k}")
            step_have = Signal(name=f"have{k}")
            m.d.comb += [step_level.eq(Mux(better, self.levels[k], level)),
                         step_index.eq(Mux(better, k, index)),
                         step_have.eq(have | self.o[k].ready)]
            level, index, have = step_level, step_index, step_have
        chosen = Signal(range(self._count))
        m.d.comb += [chosen.eq(index), self.i.ready.eq(have)]
        for k, out in enumerate(self.o):
            m.d.comb += [out.valid.eq(self.i.valid & have & (chosen == k)),
                         out.payload.eq(self.i.payload)]
        return m
