"""The HDTL's range reader against NumPy slices, in Amaranth's simulator: items in order,
commands back to back, aborts that drop the lines still on their way."""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from hw.lib.config import ConfigError
from hw.lib.memory.range_reader import RangeReader
from sim.amaranth_memory import LineMemoryModel, words_to_lines


BASE_LINE = 3


def run_reader(commands, words, item_words, *, backpressure, seed, buffered=False):
    # ``buffered`` also spends the flags cycle on each command (the vertex loader's readers).
    """``commands``: (first, count, abort_after or None). Returns the items handed out per
    command as (index, words) tuples. The memory fails the run if a response is refused
    (the reader reserves room for every line it requests)."""
    dut = RangeReader(addr_width=16, item_words=item_words, window=4, buffered_lines=buffered,
                      flags_cycle=buffered)
    memory_model = LineMemoryModel(words_to_lines(words, BASE_LINE), latency=7,
                                   jitter=5 if backpressure else 0,
                                   stall_probability=0.3 if backpressure else 0.0, seed=seed)
    rng = random.Random(seed)
    results = []

    async def memory_process(ctx):
        await memory_model.serve(ctx, dut.mem)

    async def never_refused(ctx):
        async for _, _, valid, ready in ctx.tick().sample(dut.mem.resp.valid,
                                                          dut.mem.resp.ready):
            assert ready or not valid, "the reader refused a line it had asked for"

    async def driver(ctx):
        for first, count, abort_after in commands:
            ctx.set(dut.cmd.valid, 1)
            ctx.set(dut.cmd.payload, {"base": BASE_LINE, "first": first, "count": count})
            assert ctx.get(dut.cmd.ready)      # idle: the previous command has finished
            await ctx.tick()
            ctx.set(dut.cmd.valid, 0)
            got = []
            while len(got) < count:
                if abort_after is not None and len(got) == abort_after:
                    ctx.set(dut.items.ready, 0)
                    ctx.set(dut.abort, 1)
                    await ctx.tick()
                    ctx.set(dut.abort, 0)
                    break
                ready = not backpressure or rng.random() < 0.6
                ctx.set(dut.items.ready, ready)
                valid = ctx.get(dut.items.valid)
                payload = ctx.get(dut.items.payload)
                await ctx.tick()
                if ready and valid:
                    data = int(payload.data)
                    got.append((int(payload.index),
                                [(data >> (32 * k)) & 0xFFFF_FFFF for k in range(item_words)],
                                int(payload.last)))
            ctx.set(dut.items.ready, 0)
            results.append(got)
            while ctx.get(dut.busy):
                assert not ctx.get(dut.items.valid)
                await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(never_refused, background=True)
    sim.add_testbench(driver)
    sim.run()
    return results


@pytest.mark.parametrize("item_words, buffered", [(1, False), (2, False), (1, True)])
@pytest.mark.parametrize("backpressure", [False, True])
def test_range_reader(item_words, backpressure, buffered):
    rng = np.random.default_rng(item_words * 10 + backpressure)
    words = rng.integers(0, 2**32, 600, dtype=np.uint64).astype(np.uint32)
    items = len(words) // item_words
    commands = []
    for _ in range(25):
        first = int(rng.integers(0, items - 1))
        count = int(rng.integers(1, min(70, items - first) + 1))
        abort_after = int(rng.integers(0, count)) if rng.random() < 0.3 else None
        commands.append((first, count, abort_after))
    results = run_reader(commands, words, item_words, backpressure=backpressure,
                         seed=item_words + 7 * backpressure, buffered=buffered)
    for (first, count, abort_after), got in zip(commands, results):
        expected_count = count if abort_after is None else abort_after
        assert len(got) == expected_count
        for k, (index, item, last) in enumerate(got):
            assert index == first + k
            assert item == [int(w) for w in words[item_words * index:item_words * (index + 1)]]
            assert last == (k == count - 1)


def test_buffered_lines_need_a_window_of_three():
    with pytest.raises(ConfigError, match="window of at least 3"):
        RangeReader(addr_width=16, item_words=1, window=2, buffered_lines=True)
