"""The BFS engine's hub blocks in Amaranth's simulator: the offsets lines paired into edge
ranges, the hub count and bitmap it fills, and claims that find each hub once."""

import random

import numpy as np
import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring

from hw.bfs.hub_bitmap import HubBitmap
from hw.bfs.hub_pass import HubPass
from hw.bfs.offset_lines import OffsetLines
from sim.amaranth_memory import words_to_lines
from tests.support.stream_drivers import PAUSES, Bench


def random_offsets(rng, n):
    degrees = [rng.choice([0, 1, 3, 9, 40, 300]) for _ in range(n)]
    return np.concatenate([[0], np.cumsum(degrees)]).astype(np.uint32)


@pytest.mark.parametrize("n", [1, 10, 16, 17, 47, 64])
@pytest.mark.parametrize("pause", PAUSES)
def test_offset_lines_pair_every_vertex(n, pause):
    rng = random.Random(f"{n}/{pause}")
    offsets = random_offsets(rng, n)
    lines = [{"data": line, "index": k, "last": 0, "ctx": 0}
             for k, line in enumerate(words_to_lines(offsets).values())]
    dut = OffsetLines()
    bench = Bench(dut, "OffsetLines", pause=pause)

    async def setup(ctx):
        ctx.set(dut.num_vertices, n)
        ctx.set(dut.start, 1)            # the pulse before the pass
        await ctx.tick()
        ctx.set(dut.start, 0)

    bench.add_process(setup)
    bench.source("lines", dut.lines, lines)
    count = -(-n // 16)
    bench.sink("pairs", dut.pairs, count)
    bench.run()
    for k, got in enumerate(bench.received["pairs"]):
        assert got["line"] == k
        for i in range(16):
            v = 16 * k + i
            if v < n:
                assert (got["lo"][i], got["hi"][i]) == (offsets[v], offsets[v + 1]), (k, i)


class HubsUnderTest(wiring.Component):
    """The hub pass filling the bitmap, and the bitmap's claim port."""

    def __init__(self, tau, max_vertices):
        self.hub_pass = HubPass(tau=tau)
        self.bitmap = HubBitmap(max_vertices=max_vertices)
        super().__init__({"pairs": wiring.In(self.hub_pass.pairs.signature.flip()),
                          "claim": wiring.In(self.bitmap.claim.signature.flip()),
                          "claimed": wiring.Out(self.bitmap.claimed.signature),
                          "num_vertices": wiring.In(32), "hubs": wiring.Out(32)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.hub_pass, m.submodules.bitmap = self.hub_pass, self.bitmap
        wiring.connect(m, wiring.flipped(self.pairs), self.hub_pass.pairs)
        wiring.connect(m, self.hub_pass.fill, self.bitmap.fill)
        wiring.connect(m, wiring.flipped(self.claim), self.bitmap.claim)
        wiring.connect(m, self.bitmap.claimed, wiring.flipped(self.claimed))
        m.d.comb += [self.hub_pass.num_vertices.eq(self.num_vertices),
                     self.hubs.eq(self.hub_pass.hubs)]
        return m


@pytest.mark.parametrize("pause", PAUSES)
def test_hub_count_and_claims_find_each_hub_once(pause):
    rng = random.Random(f"hubs/{pause}")
    n, tau = 100, 8
    offsets = random_offsets(rng, n)
    degree = np.diff(offsets)
    pairs = []
    for k in range(-(-n // 16)):
        lo = [int(offsets[min(16 * k + i, n)]) for i in range(16)]
        hi = [int(offsets[min(16 * k + i + 1, n)]) for i in range(16)]
        pairs.append({"line": k, "lo": lo, "hi": hi})
    # Claims after the fill: repeats (top-down finds a vertex twice), neighbours in one word
    # back to back.
    claims = [{"vertex": v, "parent": p} for p, v in enumerate(
        [rng.randrange(n) for _ in range(150)] + [32, 33, 33, 34, 32])]
    expected_hubs = int((degree > tau).sum())

    async def setup(ctx):
        ctx.set(dut.num_vertices, n)

    # The claims go in once every pair has (the engine claims only after the hub pass).
    dut = HubsUnderTest(tau, 128)
    bench = Bench(dut, "HubPass+HubBitmap", pause=pause)
    bench.add_process(setup)
    bench.source("pairs", dut.pairs, pairs)
    queue = bench.feed("claim", dut.claim)

    async def claims_after_fill(ctx):
        while bench.sent["pairs"] < len(pairs):
            await ctx.tick()
        await ctx.tick().repeat(3)
        queue.extend(claims)

    hubs_seen = {}

    async def read_count(ctx):
        while True:
            hubs_seen["count"] = ctx.get(dut.hubs)
            await ctx.tick()

    bench.add_process(claims_after_fill)
    bench.add_process(read_count)
    bench.sink("claimed", dut.claimed, len(claims))
    bench.run()
    assert hubs_seen["count"] == expected_hubs
    found = set()
    for got in bench.received["claimed"]:
        v = got["discovery"]["vertex"]
        first = degree[v] > tau and v not in found
        assert got["hub"] == int(first), v
        if got["hub"]:
            found.add(v)
