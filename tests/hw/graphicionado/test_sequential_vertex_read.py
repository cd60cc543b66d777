"""Sequential Vertex Read against a line memory model, in Amaranth's simulator."""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from hw.graphicionado.sequential_vertex_read import SequentialVertexRead
from sim.amaranth_memory import LineMemoryModel, words_to_lines


@pytest.mark.parametrize("item_words", [1, 2, 4])
@pytest.mark.parametrize("count", [1, 15, 16, 17, 100])
@pytest.mark.parametrize("backpressure", [False, True])
def test_sequential_vertex_read(item_words, count, backpressure):
    rng = np.random.default_rng(count * 7 + item_words)
    words = rng.integers(0, 2**32, size=count * item_words, dtype=np.uint32)
    base = 5
    memory = LineMemoryModel(words_to_lines(words, base), latency=7, jitter=3 if backpressure else 0,
                             stall_probability=0.3 if backpressure else 0.0)
    dut = SequentialVertexRead(item_words=item_words, addr_width=16, prefetch_lines=4)
    received = []
    pause = random.Random(3)

    async def memory_process(ctx):
        await memory.serve(ctx, dut.mem)

    async def testbench(ctx):
        ctx.set(dut.base, base)
        ctx.set(dut.count, count)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        cycles = 0
        while len(received) < count:
            ready = not backpressure or pause.random() < 0.7
            ctx.set(dut.o.ready, ready)
            if ready and ctx.get(dut.o.valid):
                item = ctx.get(dut.o.payload)
                received.append((item.index, item.data))
            await ctx.tick()
            cycles += 1
            assert cycles < 50 * count + 200
        for _ in range(20):
            assert not ctx.get(dut.o.valid)
            await ctx.tick()
        assert not ctx.get(dut.busy)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(testbench)
    sim.run_until(1e-8 * (60 * count + 400))
    assert [index for index, _ in received] == list(range(count))
    expect = [int.from_bytes(words[i * item_words:(i + 1) * item_words].tobytes(), "little")
              for i in range(count)]
    assert [value for _, value in received] == expect
    assert memory.reads == -(-count // (16 // item_words))


def test_prefetch_hides_latency():
    count = 16 * 64
    memory = LineMemoryModel(words_to_lines(np.arange(count, dtype=np.uint32)), latency=20)
    dut = SequentialVertexRead(item_words=1, addr_width=16, prefetch_lines=4)
    finished = []

    async def memory_process(ctx):
        await memory.serve(ctx, dut.mem)

    async def testbench(ctx):
        ctx.set(dut.count, count)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        ctx.set(dut.o.ready, 1)
        cycles = 0
        while ctx.get(dut.busy):
            await ctx.tick()
            cycles += 1
        finished.append(cycles)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(memory_process, background=True)
    sim.add_testbench(testbench)
    sim.run_until(1e-8 * 5000)
    # 4 lines of 16 items cover 20 cycles of latency: close to one item per cycle.
    assert finished and finished[0] < count * 1.1 + 40, finished
