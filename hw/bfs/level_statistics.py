"""The per-level figures of the BFS engine's level log (Enterprise §4, figure 2): the blocks
count since reset, and a level's figures are the differences from a snapshot taken as the
level begins, so no block needs to know where levels start.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["LevelStatistics"]


class LevelStatistics(wiring.Component):
    """A snapshot of free-running 32-bit counters, and each counter's increase since it.

    Parameters
    ----------
    counters : tuple of str
        The counters' names (fields of ``totals`` and ``level``).

    Members
    -------
    totals : ``In(data.StructLayout({name: 32 for name in counters}))``
        The counters, each counting since reset (wrapping).
    begin : ``In(1)``
        A level begins: ``totals`` now is its zero (taken at the clock edge).
    level : ``Out(data.StructLayout({name: 32 for name in counters}))``
        Each counter's increase since the last ``begin``, modulo 2**32.
    """

    def __init__(self, *, counters: tuple):
        if not counters or len(set(counters)) != len(counters):
            raise ConfigError(f"LevelStatistics: counters must be distinct names, at least "
                              f"one, not {counters!r}")
        self._counters = tuple(counters)
        layout = data.StructLayout({name: 32 for name in self._counters})
        super().__init__({"totals": In(layout), "begin": In(1), "level": Out(layout)})

    def elaborate(self, platform):
        m = Module()
        snapshot = Signal(self.totals.shape())
        with m.If(self.begin):
            m.d.sync += snapshot.eq(self.totals)
        m.d.comb += [self.level[name].eq(self.totals[name] - snapshot[name])
                     for name in self._counters]
        return m
