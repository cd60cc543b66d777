"""cocotb testbench of a Graphicionado run on the emitted Verilog.

The host has already laid the graph into the DRAM model's image file (``+dram_init``); this
test only sets the configuration registers, pulses ``start``, waits for ``done`` without
acting on any cycle in between (so Verilator runs at full speed), reads the status counters,
and asks the DRAM model to dump the memory (``+dram_dump``) for the host to check against
the golden model. The run description comes in ``GRAPHGEN_RUN`` (JSON): registers, counter
names, a cycle limit and the path of the result file.
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
    for name, value in run["registers"].items():
        getattr(dut, name).value = value
    dut.start.value = 0
    dut.dump.value = 0
    await start_clock_and_reset(dut)
    await RisingEdge(dut.clk)
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
        "iterations": int(dut.iterations.value),
        "active_count": int(dut.active_count_out.value),
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
    assert not result["error"], "the pipeline flagged a malformed graph image"
