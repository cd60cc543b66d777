# amaranth: UnusedElaboratable=no
"""The presence bitmap in Amaranth's simulator: loaded from the ``present`` region's lines,
then random reads of two bits and updates (set or clear a bit), against a Python set; each
read right after an update sees it; sizes of one row narrower than a line and of several
lines; a second load (after ``restart``) replaces the first. Idle cycles and the load's
``valid`` pause at random with a seed."""

import random

import pytest

from hw.dyngraph.presence_bitmap import PresenceBitmap
from hw.lib.config import ConfigError
from tests.support.stream_drivers import PAUSES, Bench


def test_sizes_are_checked():
    for bad in (8, 100, 0):
        with pytest.raises(ConfigError):
            PresenceBitmap(max_vertices=bad)


@pytest.mark.parametrize("max_vertices", [16, 2048])
@pytest.mark.parametrize("pause", PAUSES)
def test_reads_see_the_load_and_every_update(pause, max_vertices):
    rng = random.Random(f"presence/{pause}/{max_vertices}")
    width = min(512, max_vertices)
    lines = max_vertices // width
    dut = PresenceBitmap(max_vertices=max_vertices)
    bench = Bench(dut, "PresenceBitmap", pause=pause)
    load = bench.feed("load", dut.load)
    idle = bench.rng("idle")
    checked, done = [0], []

    def hot(present):
        return rng.choice([rng.randrange(max_vertices), *present[:4]] if present else
                          [rng.randrange(max_vertices)])

    async def drive(ctx):
        for _ in range(2):
            image = [rng.randrange(1 << width) for _ in range(lines)]
            present = {v for v in range(max_vertices) if image[v // width] >> v % width & 1}
            ctx.set(dut.restart, 1)
            await ctx.tick()
            ctx.set(dut.restart, 0)
            load.extend({"data": line, "index": k, "last": int(k == lines - 1), "ctx": 0}
                        for k, line in enumerate(image))
            while load:
                await ctx.tick()
            for step in range(150):
                if idle is not None and idle.random() < 0.3:
                    await ctx.tick().repeat(idle.randint(1, 3))
                if rng.random() < 0.4:
                    vertex, value = hot(sorted(present)), rng.randrange(2)
                    ctx.set(dut.update.payload, {"vertex": vertex, "set": value})
                    ctx.set(dut.update.valid, 1)
                    while True:
                        _, _, ready = await ctx.tick().sample(dut.update.ready)
                        if ready:
                            break
                    ctx.set(dut.update.valid, 0)
                    (present.add if value else present.discard)(vertex)
                u, v = hot(sorted(present)), hot(sorted(present))
                ctx.set(dut.read_en, 1)
                ctx.set(dut.read_u, u)
                ctx.set(dut.read_v, v)
                await ctx.tick()
                ctx.set(dut.read_en, 0)
                for hold in range(rng.choice([1, 1, 3])):
                    got = (ctx.get(dut.present_u), ctx.get(dut.present_v))
                    if got != (int(u in present), int(v in present)):
                        bench.fail(f"read of {u}, {v} (step {step}, {hold} cycles after): "
                                   f"got {got}, want {(int(u in present), int(v in present))}")
                    checked[0] += 1
                    await ctx.tick()
        done.append(1)

    bench.add_process(drive)
    bench.until(lambda: bool(done))
    bench.run()
    assert checked[0] >= 300
