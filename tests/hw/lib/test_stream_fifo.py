"""StreamFIFO against a Python deque: every item comes out once and in order, ``level`` is the
number held and never above ``depth``, under pauses on both sides and without them; the same
with the payload kept in several lanes."""

import random

import pytest
from amaranth.lib import data

from hw.lib.stream.fifo import StreamFIFO
from tests.support.stream_drivers import PAUSES, Bench

Item = data.StructLayout({"a": 13, "b": 7})


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("depth, buffered, lanes", [(1, False, 1), (2, True, 1), (4, False, 1),
                                                    (5, True, 1), (2, False, 3), (3, True, 2)])
def test_stream_fifo(depth, buffered, lanes, pause):
    dut = StreamFIFO(Item, depth, buffered=buffered, lanes=lanes)
    rng = random.Random(f"items/{depth}/{buffered}")
    items = [{"a": rng.randrange(1 << 13), "b": rng.randrange(1 << 7)} for _ in range(300)]
    bench = Bench(dut, f"StreamFIFO(depth={depth}, buffered={buffered})", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(items))
    peak = 0

    async def level_model(ctx):
        nonlocal peak
        held = 0
        async for _, _, iv, ir, ov, or_, level in ctx.tick().sample(
                dut.i.valid, dut.i.ready, dut.o.valid, dut.o.ready, dut.level):
            if level != held:
                bench.fail(f"level {level}, the queue holds {held} (cycle {bench.cycle})")
            if ov and not held:
                bench.fail(f"o.valid with nothing held (cycle {bench.cycle})")
            peak = max(peak, held)
            held += (iv and ir) - (ov and or_)
            if held > depth:
                bench.fail(f"took item {held} into a queue of {depth}")

    bench.add_process(level_model)
    cycles = bench.run()
    bench.check_equal(bench.received["o"], items)
    if pause is None:
        # Without pauses a fall-through queue passes an item a cycle (depth 1 every other
        # cycle: it cannot take and give in the same cycle when full), a buffered one as
        # fast once primed.
        per_item = 2 if depth == 1 or (buffered and depth < 3) else 1
        if cycles > per_item * len(items) + 30:
            bench.fail(f"{cycles} cycles for {len(items)} items without pauses")
    elif peak != depth:
        bench.fail(f"the queue never filled (peak {peak} of {depth}) under pauses")
