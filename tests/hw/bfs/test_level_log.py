"""The BFS level log in Amaranth's simulator: records of random levels (out of order, one
level written twice) each written as one whole line at ``log_base + level``, its words in
:data:`hw.bfs.layouts.LOG_WORDS` order; the memory compared with a Python dict of lines;
with and without pauses."""

import random

import pytest

from hw.bfs.layouts import LOG_WORDS
from hw.bfs.level_log import LevelLog
from sim.amaranth_memory import lines_to_words
from tests.support.stream_drivers import PAUSES, Bench

LOG_BASE = 50


@pytest.mark.parametrize("pause", PAUSES)
def test_each_record_is_its_levels_line(pause):
    rng = random.Random(f"log/{pause}")
    levels = list(range(20))
    rng.shuffle(levels)
    levels.append(levels[3])
    records = [{name: (level if name == "level" else rng.randrange(1 << 32))
                for name in LOG_WORDS} for level in levels]
    background = {LOG_BASE + k: rng.randrange(1 << 512) for k in range(-2, 24)}
    model = dict(background)
    for record in records:
        model[LOG_BASE + record["level"]] = sum(record[name] << 32 * k
                                                for k, name in enumerate(LOG_WORDS))
    dut = LevelLog(addr_width=16)
    bench = Bench(dut, "LevelLog", pause=pause)
    # The memory as a sink of write requests, taken at the clock edge (the block's request
    # is its input's combinationally, so a model acting between edges would race the source).
    bench.sink("mem.req", dut.mem.req, len(records))

    async def hold_base(ctx):
        ctx.set(dut.log_base, LOG_BASE)

    bench.add_process(hold_base)
    bench.source("records", dut.records, records)
    bench.run()
    memory = dict(background)
    for request in bench.received["mem.req"]:
        assert request["write"] == 1 and request["wmask"] == (1 << 64) - 1, request
        memory[request["addr"]] = request["wdata"]
    bench.check_equal(memory, model, "log lines")
    assert len(LOG_WORDS) == 16
    words = lines_to_words(memory, LOG_BASE + levels[0], 16)
    assert words[LOG_WORDS.index("level")] == levels[0]
