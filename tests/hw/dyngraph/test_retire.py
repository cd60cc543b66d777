"""The retire stage in Amaranth's simulator: random operation ends; slab writes and releases
passed on in order (records with neither give none), each search's answer written to its two
words of the answer region (a NumPy array of words is the model; other words keep their
contents), and each outcome counted; with and without pauses."""

import collections
import random

import numpy as np
import pytest

from hw.dyngraph.layouts import OUTCOMES, Outcome
from hw.dyngraph.retire import Retire
from sim.amaranth_memory import lines_to_words, words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

ANSWERS_BASE = 20
ANSWERS = 64


@pytest.mark.parametrize("pause", PAUSES)
def test_writes_answers_and_counts(pause):
    rng = random.Random(f"retire/{pause}")
    words = np.array([rng.randrange(1 << 32) for _ in range(2 * ANSWERS + 16)], dtype=np.uint32)
    model = words.copy()
    records, writes, counts = [], [], collections.Counter()
    for k in range(300):
        outcome = rng.choice(list(Outcome))
        write = {"write": rng.randrange(2), "slab": rng.randrange(1 << 32),
                 "line": rng.randrange(2), "data": rng.randrange(1 << 512),
                 "mask": rng.randrange(1 << 64), "release": rng.randrange(2),
                 "lock": rng.randrange(1 << 24), "vertex": rng.randrange(1 << 32)}
        search = rng.random() < 0.4
        answer = {"index": rng.randrange(ANSWERS), "found": rng.randrange(2),
                  "weight": rng.randrange(1 << 32)}
        records.append({"outcome": outcome.value, "slab_write": write, "search": int(search),
                        "answer": answer})
        counts[outcome.name.lower()] += 1
        if write["write"] or write["release"]:
            writes.append(write)
        if search:
            model[2 * answer["index"]] = answer["found"]
            model[2 * answer["index"] + 1] = answer["weight"]
    dut = Retire(addr_width=16)
    bench = Bench(dut, "Retire", pause=pause)
    memory = serve_memory(bench, "mem", dut.mem, words_to_lines(words, ANSWERS_BASE), pause)
    bench.source("i", dut.i, records)
    bench.sink("writes", dut.writes, len(writes))
    counters = {}

    async def drive(ctx):
        ctx.set(dut.answers_base, ANSWERS_BASE)
        while bench.sent["i"] < len(records) or ctx.get(dut.busy):
            await ctx.tick()
        await ctx.tick().repeat(20)
        counters.update({name: ctx.get(getattr(dut, name)) for name in OUTCOMES})

    bench.add_process(drive)
    bench.until(lambda: bool(counters))
    bench.run()
    bench.check_equal(bench.received["writes"], writes, "slab writes")
    got = lines_to_words(memory.lines, ANSWERS_BASE, len(words))
    bench.check_equal(got.tolist(), model.tolist(), "answer region")
    assert counters == {name: counts[name] for name in OUTCOMES}
