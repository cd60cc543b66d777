"""The symmetric-graph optimisation's on-chip VProperty and VConst (§IV.D): destination stream
1 of 2 over 4 vertex partitions (101 vertices, partitions of unequal size) loads its two
partitions of VProperty and of VConst (2-word items, word 0 kept) from a line memory that
stalls and jitters, and touches no other line; then each edge comes out a cycle after it
goes in, in order and unchanged, with ``dst_prop`` and ``dst_const`` of its destination,
under random input gaps and output backpressure (without them, one a cycle). Two loads
from different arrays: the first with VConst (``consts``), the second without, which replaces
every VProperty entry, keeps VConst's and reads none of VConst's lines."""

import numpy as np
import pytest

from hw.graphicionado.scratchpad_properties import ScratchpadProperties
from sim.amaranth_memory import LineMemoryModel, serve_ports, words_to_lines
from tests.support.stream_drivers import Bench

STREAMS, INDEX, L, CONST_WORDS = 2, 1, 4, 2
N, PART_LINES = 101, 3          # partitions of 26 or 25 vertices: 2 lines of VProperty
EDGES = 80
BASES = [(100, 200), (300, 400)]  # (vprop_base, vconst_base) of each load
OWNED = [v for v in range(N) if v % STREAMS == INDEX]


class _LoggedLines(dict):
    """The memory's lines, recording each line read."""

    def __init__(self, *args):
        super().__init__(*args)
        self.read = []

    def get(self, addr, default=None):
        self.read.append(addr)
        return super().get(addr, default)


def memory_image(rng, vprop_base, vconst_base):
    """Random VProperty and VConst of all L partitions, laid out: (lines, VProperty, VConst
    word 0, the lines the stream may read)."""
    prop = rng.integers(0, 2**32, N, dtype=np.uint32)
    const = rng.integers(0, 2**32, (N, CONST_WORDS), dtype=np.uint32)
    lines, allowed = {}, (set(), set())
    for p in range(L):
        prop_base = vprop_base + p * PART_LINES
        const_base = vconst_base + p * PART_LINES * CONST_WORDS
        lines.update(words_to_lines(prop[p::L], prop_base))
        lines.update(words_to_lines(const[p::L].reshape(-1), const_base))
        if p % STREAMS == INDEX:
            allowed[0].update(range(prop_base, prop_base + PART_LINES))
            allowed[1].update(range(const_base, const_base + PART_LINES * CONST_WORDS))
    return lines, prop, const[:, 0], allowed


def random_edges(rng, prop, const):
    """Edges in (destinations the stream's, the first and last among them) and the outputs
    they must give."""
    dst = [OWNED[0], OWNED[-1]] + [int(x) for x in rng.choice(OWNED, EDGES - 2)]
    items, want = [], []
    for d in dst:
        w = [int(x) for x in rng.integers(0, 2**32, 5)]
        item = {"edge": {"src": w[0], "dst": d, "weight": w[1], "reserved": w[2]},
                "prop": w[3], "const": w[4]}
        items.append(item)
        want.append({**item, "dst_prop": int(prop[d]), "dst_const": int(const[d])})
    return items, want


@pytest.mark.parametrize("stall, pause", [(0.0, None), (0.0, 1), (0.4, 2)])
def test_load_then_lookup(stall, pause):
    rng = np.random.default_rng(11)
    lines, rounds, allowed = _LoggedLines(), [], set()
    for r, (vprop_base, vconst_base) in enumerate(BASES):
        image, prop, const, (prop_lines, const_lines) = memory_image(rng, vprop_base,
                                                                     vconst_base)
        lines.update(image)
        allowed |= prop_lines | (const_lines if r == 0 else set())
        kept = const if r == 0 else kept            # the second load keeps VConst
        rounds.append((vprop_base, vconst_base, *random_edges(rng, prop, kept)))
    memory = LineMemoryModel(latency=9, jitter=4 if stall else 0, stall_probability=stall,
                             seed=3)
    memory.lines = lines
    dut = ScratchpadProperties(vertices=64, streams=STREAMS, index=INDEX, partitions=L,
                               const_words=CONST_WORDS, addr_width=16)
    bench = Bench(dut, f"ScratchpadProperties(stall={stall})", pause=pause)
    queue = bench.feed("i", dut.i)
    out_cycles = []
    bench.sink("o", dut.o, EDGES * len(rounds),
               on_item=lambda item: out_cycles.append(bench.cycle))
    loads = []                                  # the cycle each round's edges were queued

    async def serve(ctx):
        await serve_ports(ctx, [(memory, dut.prop_load_mem), (memory, dut.const_load_mem)])

    async def driver(ctx):
        ctx.set(dut.num_vertices, N)
        ctx.set(dut.part_lines, PART_LINES)
        for r, (vprop_base, vconst_base, items, _) in enumerate(rounds):
            while len(bench.received["o"]) < r * EDGES:     # the last round's edges out
                await ctx.tick()
            ctx.set(dut.vprop_base, vprop_base)
            ctx.set(dut.vconst_base, vconst_base)
            ctx.set(dut.consts, r == 0)
            ctx.set(dut.load, 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            for _ in range(10):
                if ctx.get(dut.loading):
                    break
                await ctx.tick()
            else:
                bench.fail("loading did not rise after load")
            start = bench.cycle
            while ctx.get(dut.loading):
                await ctx.tick()
                if bench.cycle - start > 5000:
                    bench.fail("loading did not fall")
            loads.append(bench.cycle)
            queue.extend(items)

    bench.add_process(serve)
    bench.add_process(driver)
    bench.run()
    bench.check_equal(bench.received["o"], [item for *_, want in rounds for item in want])
    assert len(loads) == len(rounds)
    if pause is None:                           # then one edge a cycle
        assert out_cycles[-1] - loads[-1] <= EDGES + 3, (out_cycles[-1], loads[-1])
    outside = sorted(set(lines.read) - allowed)
    assert not outside, f"lines read outside the stream's partitions: {outside}"
    # Every line of the stream's partitions read in each load (VConst's in the first).
    sizes = [len(range(p, N, L)) for p in range(INDEX, L, STREAMS)]
    assert len(lines.read) == sum(len(rounds) * -(-s // 16) + -(-s * CONST_WORDS // 16)
                                  for s in sizes)

