"""Round-robin merging of several streams into one: how DepGraph's engines share the one DDMU
(Yao et al., HPCA 2021, §III-B: the DDMU serves every core's HDTL)."""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .config import ConfigError


__all__ = ["StreamArbiter"]


class StreamArbiter(wiring.Component):
    """``count`` streams of ``shape`` into one, round robin, without a register stage: the
    source granted in a cycle is the first valid one after the last source served, and an
    offer not yet taken keeps its grant (the output's payload holds until the transfer).

    Parameters
    ----------
    shape : shape-like
    count : int

    Members
    -------
    i : ``In(stream.Signature(shape)).array(count)``
    o : ``Out(stream.Signature(shape))``
    """

    def __init__(self, shape, count: int):
        if count < 1:
            raise ConfigError(f"StreamArbiter: count must be at least 1, not {count!r}")
        self._count = count
        super().__init__({
            "i": In(stream.Signature(shape)).array(count),
            "o": Out(stream.Signature(shape)),
        })

    def elaborate(self, platform):
        m = Module()
        n = self._count
        last = Signal(range(n))
        grant = Signal(n)
        wants = Cat(source.valid for source in self.i)
        with m.Switch(last):
            for served in range(n):
                with m.Case(served):
                    # Lowest priority to the source served last: later ifs override.
                    for s in reversed([(served + 1 + k) % n for k in range(n)]):
                        with m.If(wants[s]):
                            m.d.comb += grant.eq(1 << s)
        held = Signal()
        held_grant = Signal(n)
        with m.If(held):
            m.d.comb += grant.eq(held_grant)
        m.d.sync += [held.eq(self.o.valid & ~self.o.ready), held_grant.eq(grant)]
        for s, source in enumerate(self.i):
            with m.If(grant[s]):
                m.d.comb += self.o.payload.eq(source.payload)
                with m.If(self.o.ready):
                    m.d.sync += last.eq(s)
            m.d.comb += source.ready.eq(grant[s] & self.o.ready)
        m.d.comb += self.o.valid.eq((grant & wants).any())
        return m
