"""cocotb testbench of :class:`sim.postsynth.RegisteredReadRAM` (a block RAM with a register
behind its read port, the shape ``synth.ecp5_outreg`` rewrites): random writes and reads,
each read's data checked on the second clock edge after its address is set against a Python model."""

import json
import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from sim.tb.common import start_clock_and_reset


@cocotb.test()
async def random_access(dut):
    options = json.loads(os.environ.get("GRAPHGEN_TEST_OPTIONS", "{}"))
    rng = random.Random(options.get("seed", 1))
    depth, width = int(options["depth"]), int(options["width"])
    model = [0] * depth
    dut.we.value = 0
    dut.waddr.value = 0
    dut.wdata.value = 0
    dut.raddr.value = 0
    await start_clock_and_reset(dut)
    for address in range(depth):            # fill every word first
        dut.we.value, dut.waddr.value = 1, address
        dut.wdata.value = model[address] = rng.getrandbits(width)
        await RisingEdge(dut.clk)
    dut.we.value = 0
    pending = []                             # expected read data, oldest first
    checked = 0
    for cycle in range(int(options.get("cycles", 2000))):
        await FallingEdge(dut.clk)
        address = rng.randrange(depth)
        dut.raddr.value = address
        write = rng.random() < 0.3
        waddr = rng.randrange(depth)
        data = rng.getrandbits(width)
        # A write to the address being read lands after the read (read-first is not relied
        # upon: a read of an address written in the same cycle is not checked).
        pending.append(None if write and waddr == address else model[address])
        dut.we.value, dut.waddr.value, dut.wdata.value = int(write), waddr, data
        await RisingEdge(dut.clk)
        if write:
            model[waddr] = data
        await ReadOnly()
        if len(pending) >= 2:                # the address set before the previous edge
            expected = pending.pop(0)
            if expected is not None:
                got = int(dut.rdata.value)
                assert got == expected, (f"cycle {cycle}: read data {got:#x}, expected "
                                         f"{expected:#x}")
                checked += 1
    assert checked > 100
