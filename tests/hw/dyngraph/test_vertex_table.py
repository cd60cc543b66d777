"""The vertex table's port in Amaranth's simulator: random word reads and writes of the vertex
table through one memory client; reads answered in order with their ``ctx``, each seeing every
earlier write (a Python list of words is the model), and the memory holding the last written
words at the end; with and without pauses of the requests, answers and memory."""

import random

import numpy as np
import pytest

from hw.dyngraph.vertex_table import VertexTable
from sim.amaranth_memory import lines_to_words, words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

BASE = 40
VERTICES = 100


@pytest.mark.parametrize("depth", [4, 32])
@pytest.mark.parametrize("pause", PAUSES)
def test_reads_in_order_see_earlier_writes(pause, depth):
    rng = random.Random(f"table/{pause}")
    words = [rng.randrange(1 << 32) for _ in range(VERTICES)]
    image = words_to_lines(np.array(words, dtype=np.uint32), BASE)
    model = list(words)
    requests, expected = [], []
    hot = [rng.randrange(VERTICES) for _ in range(6)]
    for k in range(400):
        vertex = rng.choice(hot + [rng.randrange(VERTICES)])
        if rng.random() < 0.35:
            word = rng.randrange(1 << 32)
            requests.append({"write": 1, "vertex": vertex, "word": word, "ctx": 0})
            model[vertex] = word
        else:
            requests.append({"write": 0, "vertex": vertex, "word": rng.randrange(1 << 32),
                             "ctx": k % 256})
            expected.append({"word": model[vertex], "ctx": k % 256})
    dut = VertexTable(addr_width=16, ctx_shape=8, depth=depth)
    bench = Bench(dut, "VertexTable", pause=pause)
    memory = serve_memory(bench, "mem", dut.mem, image, pause)

    async def hold_base(ctx):
        ctx.set(dut.base, BASE)

    bench.add_process(hold_base)
    bench.source("requests", dut.requests, requests)
    bench.sink("answers", dut.answers, len(expected))
    bench.until(lambda: bench.sent["requests"] == len(requests))
    bench.run(settle=60)
    bench.check_equal(bench.received["answers"], expected, "answers")
    final = lines_to_words(memory.lines, BASE, VERTICES).tolist()
    bench.check_equal(final, model, "table words in memory")
