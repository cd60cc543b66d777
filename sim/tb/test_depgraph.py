"""cocotb testbench of a DepGraph run on the emitted Verilog.

The host has laid the graph into the DRAM model's image (``+dram_init_bin``); this test
writes the configuration registers through the register block's write port (what
``DEP_configure`` does), pulses ``start``, waits for ``done`` without acting on any cycle in
between, reads the status counters and has the DRAM model dump the memory. The run
description comes in ``GRAPHGEN_RUN`` (JSON): ``registers`` as [address, value] pairs,
counter names, a cycle limit and the path of the result file.
"""

import json
import os
import time

import cocotb
from cocotb.simtime import get_sim_time
from cocotb.triggers import ClockCycles, First, ReadOnly, RisingEdge

from sim.tb.common import CLOCK_PERIOD_NS, start_clock_and_reset


@cocotb.test()
async def run_graph(dut):
    run = json.loads(os.environ["GRAPHGEN_RUN"])
    dut.start.value = 0
    dut.dump.value = 0
    dut.reg_write.value = 0
    await start_clock_and_reset(dut)
    for address, value in run["registers"]:
        dut.reg_addr.value = address
        dut.reg_data.value = value
        dut.reg_write.value = 1
        await RisingEdge(dut.clk)
    dut.reg_write.value = 0
    dut.start.value = 1
    await RisingEdge(dut.clk)
    dut.start.value = 0
    began = time.perf_counter()
    await First(RisingEdge(dut.done), ClockCycles(dut.clk, run["max_cycles"]))
    seconds = time.perf_counter() - began
    await ReadOnly()
    finished = bool(int(dut.done.value))
    result = {
        "finished": finished,
        "error": bool(int(dut.error.value)),
        "counters": {name: int(getattr(dut, f"stat_{name}").value) for name in run["counters"]},
        "run_wall_seconds": seconds,
        "sim_cycles": int(get_sim_time("ns") // CLOCK_PERIOD_NS),
    }
    if finished:
        await RisingEdge(dut.clk)
        dut.dump.value = 1
        await RisingEdge(dut.clk)
        dut.dump.value = 0
        await First(RisingEdge(dut.dump_done), ClockCycles(dut.clk, 10))
    with open(run["result_path"], "w") as file:
        json.dump(result, file)
    assert finished, f"no result after {run['max_cycles']} cycles"
    assert not result["error"], "a circular queue overflowed"
