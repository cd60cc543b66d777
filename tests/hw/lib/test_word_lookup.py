"""The word lookup against NumPy indexing, in Amaranth's simulator, with and without pauses."""

import random

import numpy as np
import pytest

from hw.lib.memory.word_lookup import WordLookup
from sim.amaranth_memory import words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

BASE = 9


@pytest.mark.parametrize("pause", PAUSES)
def test_words_in_request_order(pause):
    rng = random.Random(f"lookup/{pause}")
    words = np.array([rng.randrange(1 << 32) for _ in range(500)], dtype=np.uint32)
    requests = [{"index": rng.randrange(500), "ctx": k % 64} for k in range(300)]
    expected = [{"word": int(words[r["index"]]), **r} for r in requests]
    dut = WordLookup(addr_width=16, ctx_width=6, outstanding=8)
    m = dut
    bench = Bench(dut, "WordLookup", pause=pause)
    serve_memory(bench, "mem", dut.mem, words_to_lines(words, BASE), pause)

    async def hold_base(ctx):
        ctx.set(m.base, BASE)

    bench.add_process(hold_base)
    bench.source("i", dut.i, requests)
    bench.sink("o", dut.o, len(expected))
    bench.run()
    bench.check_equal(bench.received["o"], expected, "answers")
