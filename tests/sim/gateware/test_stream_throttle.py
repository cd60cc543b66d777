# amaranth: UnusedElaboratable=no
"""StreamThrottle (verification only) against what it promises: every word comes out once
and in order, an offer once made is held until taken (the sink checks stream rule 2),
``busy`` says exactly whether a word is inside, and the throttle really stalls: with no
pause on either side the input is refused and the output idle in about the set share of
cycles, on patterns that differ from seed to seed and from link to link (salt)."""

import random

import pytest

from hw.lib.config import ConfigError
from sim.gateware.stream_throttle import StreamThrottle
from tests.support.stream_drivers import PAUSES, Bench


def run(percent, pause, *, seed=7, salt=0x1234):
    dut = StreamThrottle(16, percent=percent, salt=salt)
    rng = random.Random(f"throttle/{percent}")
    items = [rng.randrange(1 << 16) for _ in range(400)]
    bench = Bench(dut, f"StreamThrottle(percent={percent})", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(items))
    pattern = []

    async def model(ctx):
        ctx.set(dut.seed, seed)
        held = 0
        async for _, _, iv, ir, ov, or_, busy in ctx.tick().sample(
                dut.i.valid, dut.i.ready, dut.o.valid, dut.o.ready, dut.busy):
            if busy != (held != 0):
                bench.fail(f"busy={busy} with {held} words inside (cycle {bench.cycle})")
            pattern.append((ir, ov))
            held += (iv and ir) - (ov and or_)

    bench.add_process(model)
    cycles = bench.run()
    bench.check_equal(bench.received["o"], items)
    return cycles, pattern


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("percent", [1, 30, 90])
def test_stream_throttle_passes_every_word_in_order(percent, pause):
    run(percent, pause)


def test_stream_throttle_stalls_at_its_rate_on_its_own_pattern():
    cycles, pattern = run(50, None)
    # About half the cycles blocked on each side: 400 words take roughly three times as long
    # as unthrottled.
    assert 2 * 400 < cycles < 6 * 400, cycles
    _, other_seed = run(50, None, seed=8)
    _, other_salt = run(50, None, salt=0x4321)
    assert pattern[:200] != other_seed[:200] and pattern[:200] != other_salt[:200]


def test_stream_throttle_refuses_bad_rates():
    for percent in (0, 100):
        with pytest.raises(ConfigError, match="1 to 99"):
            StreamThrottle(8, percent=percent, salt=1)
