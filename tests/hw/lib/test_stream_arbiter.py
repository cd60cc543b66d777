"""StreamArbiter against a round-robin model: every item of every source comes out once, each
source's items in order, and in each transfer the source served is the first valid one after
the source served last (so none waits more than ``count - 1`` transfers of others), unless an
offer on ``o`` was left waiting: it keeps its grant until taken (stream rule 2, checked by the
second test). With a registered grant (``registered_grant``), against the same model one cycle
ahead: the grant moves to the first other source offering after it, unless an offer waits."""

import random

import pytest
from amaranth.lib import data

from hw.lib.config import ConfigError
from hw.lib.stream.arbiter import StreamArbiter
from tests.support.stream_drivers import PAUSES, Bench

Item = data.StructLayout({"source": 3, "seq": 10, "data": 11})


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("count", [1, 3, 4])
def test_stream_arbiter(count, pause):
    run(count, pause, check_protocol=False)


@pytest.mark.parametrize("pause", [1, 2])
@pytest.mark.parametrize("count", [3, 4])
def test_stream_arbiter_holds_its_offer(count, pause):
    run(count, pause, check_protocol=True)


def arbiter_bench(dut, count, seed, pause, check_protocol):
    """A bench with random items on each of the ``count`` sources and a sink for all of
    them; returns it with the items and their total."""
    rng = random.Random(seed)
    items = [[{"source": s, "seq": k, "data": rng.randrange(1 << 11)}
              for k in range(rng.randrange(60, 160))] for s in range(count)]
    bench = Bench(dut, f"StreamArbiter(count={count})", pause=pause,
                  check_protocol=check_protocol)
    for s in range(count):
        bench.source(f"i[{s}]", dut.i[s], items[s])
    total = sum(map(len, items))
    bench.sink("o", dut.o, total)
    return bench, items, total


def check_items(bench, items, total, cycles, pause):
    """Each source's items out in order, and near a transfer a cycle without pauses."""
    got = bench.received["o"]
    for s, sent in enumerate(items):
        bench.check_equal([item for item in got if item["source"] == s], sent,
                          f"source {s}'s items")
    if pause is None and cycles > total + 30:
        bench.fail(f"{cycles} cycles for {total} items without pauses")


def run(count, pause, *, check_protocol):
    dut = StreamArbiter(Item, count)
    bench, items, total = arbiter_bench(dut, count, f"items/{count}", pause, check_protocol)
    waits = [0] * count

    async def round_robin_model(ctx):
        last = 0
        offered = None          # the source whose offer on o waits since the last cycle
        signals = [dut.o.valid, dut.o.ready, dut.o.payload.as_value()]
        for source in dut.i:
            signals += [source.valid, source.ready, source.payload.as_value()]
        async for _, _, ov, ordy, opay, *ins in ctx.tick().sample(*signals):
            valid = [ins[3 * s] for s in range(count)]
            ready = [ins[3 * s + 1] for s in range(count)]
            if ov != any(valid):
                bench.fail(f"o.valid={ov} with sources valid {valid} (cycle {bench.cycle})")
            if ov:
                want = offered if offered is not None else \
                    next(s % count for s in range(last + 1, last + 1 + count)
                         if valid[s % count])
            if not (ov and ordy):
                if any(ready[s] and valid[s] for s in range(count)):
                    bench.fail(f"a source's item taken with no output transfer "
                               f"(cycle {bench.cycle})")
                offered = want if ov else None
                continue
            offered = None
            taken = [s for s in range(count) if valid[s] and ready[s]]
            if taken != [want]:
                bench.fail(f"sources {taken} taken, round robin after {last} with valid "
                           f"{valid} grants {want} (cycle {bench.cycle})")
            if opay != ins[3 * want + 2]:
                bench.fail(f"output payload {opay:#x} is not source {want}'s "
                           f"{ins[3 * want + 2]:#x} (cycle {bench.cycle})")
            for s in range(count):
                waits[s] = waits[s] + 1 if valid[s] and s != want else 0
                if waits[s] >= count:
                    bench.fail(f"source {s} waited {waits[s]} transfers")
            last = want

    bench.add_process(round_robin_model)
    check_items(bench, items, total, bench.run(), pause)


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("count", [1, 2, 3])
def test_stream_arbiter_registered_grant(count, pause):
    dut = StreamArbiter(Item, count, registered_grant=True)
    bench, items, total = arbiter_bench(dut, count, f"registered/{count}", pause, True)
    waits = [0] * count

    async def registered_model(ctx):
        grant = 1 % count
        signals = [dut.o.valid, dut.o.ready]
        for source in dut.i:
            signals += [source.valid, source.ready]
        async for _, _, ov, ordy, *ins in ctx.tick().sample(*signals):
            valid = ins[0::2]
            ready = ins[1::2]
            if ov != valid[grant]:
                bench.fail(f"o.valid={ov}, source {grant} granted with valid {valid} "
                           f"(cycle {bench.cycle})")
            if list(ready) != [int(s == grant and ordy) for s in range(count)]:
                bench.fail(f"readies {ready} with source {grant} granted, o.ready={ordy} "
                           f"(cycle {bench.cycle})")
            if ov and ordy:
                for s in range(count):
                    waits[s] = waits[s] + 1 if valid[s] and s != grant else 0
                    if waits[s] >= count:
                        bench.fail(f"source {s} waited {waits[s]} transfers")
            if ov and not ordy:
                continue
            others = [s % count for s in range(grant + 1, grant + count) if valid[s % count]]
            if others:
                grant = others[0]

    bench.add_process(registered_model)
    check_items(bench, items, total, bench.run(), pause)


def test_registered_grant_is_not_for_packets():
    with pytest.raises(ConfigError, match="registered_grant"):
        StreamArbiter(Item, 2, last=lambda payload: payload.seq[0], registered_grant=True)
