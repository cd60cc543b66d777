"""The scratchpad's users never use the data of a read made in the cycle of a write to the
same vertex: synthesis is told so (``no_rw_check``), and a block RAM gives undefined data
then. Here the scratchpad is a Python model that answers such a read with garbage, and
Atomic Update and the apply phase's reader must still give exact results."""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from hw.lib.cam import CAMConfig
from hw.lib.arith.fp32 import FP32Adder
from hw.lib.arith.fp32_vector import FP32Lanes
from hw.lib.arith.integer import SaturatingAdd
from hw.graphicionado.atomic_update import AtomicUpdate
from hw.graphicionado.scratchpad import (TEMP_READ_LATENCY, TEMP_WRITE_LATENCY,
                                         TempPropertyStream)

GARBAGE = 0x7F80_0001   # a signalling NaN: it poisons any FP32 sum it reaches


class ScratchpadModel:
    """VTempProperty with :data:`TEMP_READ_LATENCY` and :data:`TEMP_WRITE_LATENCY`: a read
    address offered in cycle r is registered and reads the words in cycle r + 1, and that read
    returns GARBAGE if a write to the same vertex is made in that cycle."""

    def __init__(self, words, garbage=GARBAGE):
        self.words = list(words)
        self.garbage = garbage
        self.address = 0                          # the read address register
        self.in_flight = [garbage] * (TEMP_READ_LATENCY - 1)
        self.writes = [None] * TEMP_WRITE_LATENCY   # (address, data) offered, not yet made
        self.collisions = 0
        self.written = []                          # the addresses written, in order

    def cycle(self, ctx, port):
        """Drive this cycle's read data, then sample the ports as the clock edge will."""
        ctx.set(port["read_data"], self.in_flight[0])
        address, self.address = self.address, ctx.get(port["read_addr"])
        offered = ((ctx.get(port["write_addr"]), ctx.get(port["write_data"]))
                   if ctx.get(port["write_en"]) else None)
        self.writes.append(offered)
        made = self.writes.pop(0)
        if made is not None and made[0] == address:
            self.collisions += 1
            value = self.garbage
        else:
            value = self.words[address]
        self.in_flight = self.in_flight[1:] + [value]
        if made is not None:
            self.words[made[0]] = made[1]
            self.written.append(made[0])


def _float_bits(values):
    return np.asarray(values, np.float32).view(np.uint32).tolist()


def _lanes_bits(words, lanes):
    """Per-lane 32-bit words as one integer, lane 0 lowest."""
    return sum(word << (32 * k) for k, word in enumerate(words[:lanes]))


@pytest.mark.parametrize("window", [1, 2])
@pytest.mark.parametrize("reduce", ["fp32_add", "saturating_add", "fp32_lanes"])
def test_atomic_update_never_uses_a_colliding_read(reduce, window):
    # The FP32 adder (latency 5) lets one earlier write-back of a vertex be forwarded; the
    # one-cycle integer adder lets several be in the window at once, of which the newest
    # counts. Three lanes of FP32 adders reduce a flit of a large property (§IV.E) as one
    # word. The FP32 sums are of values whose sum depends on the order: with a window of
    # two, updates pass others but each vertex's are reduced in the order they came.
    rng = random.Random(3)
    vertices, index_width = 16, 4
    value_width, garbage = 32, GARBAGE
    # Few destinations, so the same vertex comes back while its previous update is in flight.
    if reduce == "fp32_lanes":
        lanes = 3
        value_width = 32 * lanes
        unit = FP32Lanes("add", lanes, tag_width=index_width, lzc_stage=True)
        lane_values = [[rng.choice([0, 1, 2, 5, 9]),
                        _float_bits([rng.randint(1, 8) for _ in range(lanes)])]
                       for _ in range(400)]
        updates = [(dst, _lanes_bits(words, lanes)) for dst, words in lane_values]
        initial = [0] * vertices
        garbage = _lanes_bits([GARBAGE] * lanes, lanes)
    elif reduce == "fp32_add":
        unit = FP32Adder(tag_width=index_width)
        updates = [(rng.choice([0, 1, 2, 5, 9]),
                    _float_bits([rng.uniform(0, 1) * 10.0 ** rng.randint(-3, 4)])[0])
                   for _ in range(400)]
        initial = _float_bits([0.0] * vertices)
    else:
        unit = SaturatingAdd(tag_width=index_width)
        updates = [(rng.choice([0, 1, 2, 5]), rng.randint(1, 1000)) for _ in range(400)]
        initial = [0] * vertices
    dut = AtomicUpdate(reduce_unit=unit,
                       cam=CAMConfig(entries=16, ways=4, id_width=index_width),
                       index_width=index_width, value_width=value_width, window=window)
    pad = ScratchpadModel(initial, garbage)
    port = {"read_addr": dut.temp_read_addr, "read_data": dut.temp_read_data,
            "write_addr": dut.temp_write_addr, "write_data": dut.temp_write_data,
            "write_en": dut.temp_write_en}

    async def testbench(ctx):
        pending = list(updates)
        for _ in range(20_000):
            offer = bool(pending) and rng.random() < 0.8
            ctx.set(dut.i.valid, offer)
            if offer:
                ctx.set(dut.i.payload, {"dst": pending[0][0], "value": pending[0][1]})
            pad.cycle(ctx, port)
            taken = offer and ctx.get(dut.i.ready)
            await ctx.tick()
            if taken:
                pending.pop(0)
            if not pending and not ctx.get(dut.busy):
                break
        else:
            raise AssertionError("Atomic Update did not drain")

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    if reduce == "fp32_lanes":
        sums = np.zeros((vertices, lanes), np.float32)
        for dst, words in lane_values:
            sums[dst] += np.array(words, np.uint32).view(np.float32)
        expected = [_lanes_bits(row.view(np.uint32).tolist(), lanes) for row in sums]
    elif reduce == "fp32_add":
        expected = np.zeros(vertices, np.float32)
        for dst, value in updates:
            expected[dst] += np.array([value], np.uint32).view(np.float32)[0]
        expected = expected.view(np.uint32).tolist()
    else:
        expected = list(initial)
        for dst, value in updates:
            expected[dst] += value
    assert pad.words == expected
    assert pad.collisions > 0   # the garbage was there to be misused
    in_order = pad.written == [dst for dst, _ in updates]
    assert in_order == (window == 1)   # with two, some update passed a waiting one


@pytest.mark.parametrize("flits, lanes", [(1, 1), (4, 2)])
def test_apply_reader_never_uses_a_colliding_read(flits, lanes):
    """A2 over ``count`` vertices; with large properties each vertex's ``flits`` words (of
    ``lanes`` lanes) in turn, at consecutive addresses, each reset to the identity in every
    lane."""
    rng = random.Random(4)
    count, identity = 37, 0xFFFF_FFFF
    words = 64 * flits
    initial = [rng.getrandbits(32 * lanes) for _ in range(words)]
    dut = TempPropertyStream(index_width=(words - 1).bit_length(), flits=flits,
                             word_width=32 * lanes)
    pad = ScratchpadModel(initial, _lanes_bits([GARBAGE] * lanes, lanes))
    port = {"read_addr": dut.read_addr, "read_data": dut.read_data,
            "write_addr": dut.write_addr, "write_data": dut.write_data,
            "write_en": dut.write_en}
    items = []

    async def testbench(ctx):
        ctx.set(dut.count, count)
        ctx.set(dut.identity, identity)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        for _ in range(4_000):
            ready = rng.random() < 0.6
            ctx.set(dut.o.ready, ready)
            pad.cycle(ctx, port)
            if ready and ctx.get(dut.o.valid):
                payload = ctx.get(dut.o.payload)
                items.append((payload.index, payload.temp))
            await ctx.tick()
            if not ctx.get(dut.busy):
                break
        else:
            raise AssertionError("the reader did not finish")

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    read = count * flits
    assert items == [(index, initial[index]) for index in range(read)]
    all_ones = _lanes_bits([identity] * lanes, lanes)
    assert pad.words == [all_ones] * read + initial[read:]
