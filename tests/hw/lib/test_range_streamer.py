"""The range streamer against NumPy slices, in Amaranth's simulator: many commands back to
back (empty ones among them), items in order with their context, with and without pauses."""

import random

import numpy as np
import pytest

from hw.lib.memory.range_streamer import RangeStreamer
from sim.amaranth_memory import words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

BASE = 5


@pytest.mark.parametrize("item_words, cmd_slice", [(1, False), (4, False), (16, False),
                                                   (1, True), (4, True)])
@pytest.mark.parametrize("pause", PAUSES)
def test_items_of_every_command_in_order(item_words, cmd_slice, pause):
    rng = random.Random(f"{item_words}/{pause}")
    items = 300
    words = np.arange(items * item_words, dtype=np.uint32) * 7 + 3
    commands, expected = [], []
    for k in range(60):
        count = rng.choice([0, 1, 1, 2, 3, 5, 16, 17, 40])
        first = rng.randrange(0, items - count + 1)
        commands.append({"base": BASE, "first": first, "count": count, "ctx": k})
        for i in range(first, first + count):
            value = int.from_bytes(words[i * item_words:(i + 1) * item_words].tobytes(),
                                   "little")
            expected.append({"data": value, "index": i, "last": int(i == first + count - 1),
                             "ctx": k})
    dut = RangeStreamer(addr_width=16, item_words=item_words, ctx_width=8, window=6,
                        cmd_slice=cmd_slice)
    bench = Bench(dut, "RangeStreamer", pause=pause)
    serve_memory(bench, "mem", dut.mem, words_to_lines(words, BASE), pause)
    bench.source("cmd", dut.cmd, commands)
    bench.sink("items", dut.items, len(expected))
    bench.run()
    bench.check_equal(bench.received["items"], expected, "items")


@pytest.mark.parametrize("cmd_slice", [False, True])
def test_a_line_a_cycle_across_short_ranges(cmd_slice):
    """Sixteen one-line ranges with a memory of latency 3 and no pauses: the lines go out
    back to back (also through the command slice, which costs one cycle in all), so the
    whole takes about 16 cycles plus the latency."""
    words = np.arange(16 * 16, dtype=np.uint32)
    commands = [{"base": BASE, "first": k, "count": 1, "ctx": k} for k in range(16)]
    dut = RangeStreamer(addr_width=16, item_words=16, ctx_width=4, window=8,
                        cmd_slice=cmd_slice)
    bench = Bench(dut, "RangeStreamer", pause=None)
    serve_memory(bench, "mem", dut.mem, words_to_lines(words, BASE), None)
    bench.source("cmd", dut.cmd, commands)
    bench.sink("items", dut.items, 16)
    cycles = bench.run(settle=1)
    assert cycles <= 16 + 10, cycles
