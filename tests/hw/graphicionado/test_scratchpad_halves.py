# amaranth: UnusedElaboratable=no
"""VTempProperty in two halves (§IV.D's duplicated update path): a word written through the
whole scratchpad's port is read back through its half's path port at the half's address,
and the reverse, with both ports' read latency :data:`TEMP_READ_LATENCY`."""

import random

import pytest
from amaranth.sim import Simulator

from hw.graphicionado.scratchpad import TEMP_READ_LATENCY
from hw.graphicionado.scratchpad_halves import ScratchpadHalves


def half_address(word, flits):
    """The half and its word address of whole-scratchpad word ``word``."""
    index, flit = divmod(word, flits)
    return index & 1, (index >> 1) * flits + flit


@pytest.mark.parametrize("vertices, flits", [(12, 4), (10, 1), (6, 2)])
def test_halves_map_each_word_to_one_place(vertices, flits):
    dut = ScratchpadHalves(vertices=vertices, flits=flits, word_width=32, bank_words=4)
    words = vertices * flits
    rng = random.Random(vertices)
    values = [rng.getrandbits(32) for _ in range(words)]
    again = [rng.getrandbits(32) for _ in range(words)]
    sim = Simulator(dut)
    sim.add_clock(1e-8)

    async def bench(ctx):
        ctx.set(dut.shared, 1)
        for word, value in enumerate(values):
            ctx.set(dut.temp_write_addr, word)
            ctx.set(dut.temp_write_data, value)
            ctx.set(dut.temp_write_en, 1)
            await ctx.tick()
        ctx.set(dut.temp_write_en, 0)
        await ctx.tick()
        ctx.set(dut.shared, 0)
        for word in range(words):               # each path reads its half
            half, address = half_address(word, flits)
            ctx.set(dut.path_read_addr[half], address)
            await ctx.tick().repeat(TEMP_READ_LATENCY)
            assert ctx.get(dut.path_read_data[half]) == values[word], word
            ctx.set(dut.path_write_addr[half], address)
            ctx.set(dut.path_write_data[half], again[word])
            ctx.set(dut.path_write_en[half], 1)
            await ctx.tick()
            ctx.set(dut.path_write_en[half], 0)
        ctx.set(dut.shared, 1)
        for word in range(words):               # the whole port reads what the paths wrote
            ctx.set(dut.temp_read_addr, word)
            await ctx.tick().repeat(TEMP_READ_LATENCY)
            assert ctx.get(dut.temp_read_data) == again[word], word

    sim.add_testbench(bench)
    sim.run()
    assert dut.temp_entries >= words
