# amaranth: UnusedElaboratable=no
"""A design top's stream links in Amaranth's simulator: two links made by
:class:`hw.lib.stream.links.StreamLinks` (one through a register slice), directly or through
the simulation throttle; every item arrives, in order, on each; each link is recorded as a
probe named ``prefix + name``; ``busy`` is clear once the links are empty; stall injection
without a seed or a throttle is refused. With and without pauses."""

import random

import pytest
from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.stream.links import StreamLinks
from sim.gateware.stream_throttle import StreamThrottle
from tests.support.stream_drivers import PAUSES, Bench


class LinkBench(wiring.Component):
    def __init__(self, percent):
        self._percent = percent
        self.probes = None
        super().__init__({"a": In(stream.Signature(16)), "b": Out(stream.Signature(16)),
                          "c": In(stream.Signature(16)), "d": Out(stream.Signature(16)),
                          "seed": In(32), "busy": Out(1)})

    def elaborate(self, platform):
        m = Module()
        links = StreamLinks(m, percent=self._percent,
                            throttle=StreamThrottle if self._percent else None,
                            seed=self.seed, prefix="blk.")
        links(wiring.flipped(self.a), wiring.flipped(self.b), "a->b", register=True)
        links(wiring.flipped(self.c), wiring.flipped(self.d), "c->d")
        m.d.comb += self.busy.eq(links.busy)
        self.probes = links.probes
        return m


def test_stall_injection_needs_seed_and_throttle():
    m = Module()
    with pytest.raises(ConfigError):
        StreamLinks(m, percent=10, throttle=StreamThrottle)
    with pytest.raises(ConfigError):
        StreamLinks(m, percent=10, seed=Signal(32))


@pytest.mark.parametrize("percent", [0, 40])
@pytest.mark.parametrize("pause", PAUSES)
def test_links_pass_every_item_in_order(pause, percent):
    rng = random.Random(f"links/{pause}")
    first = [rng.randrange(1 << 16) for _ in range(150)]
    second = [rng.randrange(1 << 16) for _ in range(90)]
    dut = LinkBench(percent)
    bench = Bench(dut, "StreamLinks", pause=pause)

    async def hold_seed(ctx):
        ctx.set(dut.seed, 12345)

    bench.add_process(hold_seed)
    bench.source("a", dut.a, first)
    bench.source("c", dut.c, second)
    bench.sink("b", dut.b, len(first))
    bench.sink("d", dut.d, len(second))
    idle = []
    bench.at_end(lambda ctx: idle.append(ctx.get(dut.busy)))
    bench.run()
    bench.check_equal(bench.received["b"], first, "link a->b")
    bench.check_equal(bench.received["d"], second, "link c->d")
    assert [p.name for p in dut.probes] == ["blk.a->b", "blk.c->d"]
    assert idle == [0]
