"""cocotb testbench of a whole run of a design configured through registers (Graphicionado,
DepGraph, the BFS engine, the dynamic graph unit) on the emitted Verilog.

The host has laid the graph into the DRAM model's image (``+dram_init_bin``); this test
writes the configuration registers through the register block's write port (what
``DEP_configure`` does), pulses ``start``, waits for ``done`` without acting on any cycle in
between, reads the status counters and has the DRAM model dump the memory. The run
description comes in ``GRAPHGEN_RUN`` (JSON): ``registers`` as [address, value] pairs,
counter names, a cycle limit, the path of the result file and, optionally, the counter that
marks an iteration's end (``iteration_counter``): the counters are then also read each time
it steps.
"""

import json
import os

import cocotb
from cocotb.triggers import RisingEdge

from sim.tb.common import apply_run_inputs, run_to_done, start_clock_and_reset


@cocotb.test()
async def run_graph(dut):
    run = json.loads(os.environ["GRAPHGEN_RUN"])
    dut.start.value = 0
    dut.dump.value = 0
    dut.reg_write.value = 0
    apply_run_inputs(dut, run)
    await start_clock_and_reset(dut)
    for address, value in run["registers"]:
        dut.reg_addr.value = address
        dut.reg_data.value = value
        dut.reg_write.value = 1
        await RisingEdge(dut.clk)
    dut.reg_write.value = 0
    await run_to_done(dut, run, lambda dut: {})
