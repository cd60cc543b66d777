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

import cocotb
from cocotb.triggers import RisingEdge

from sim.tb.common import apply_run_inputs, run_to_done, start_clock_and_reset


@cocotb.test()
async def run_graph(dut):
    run = json.loads(os.environ["GRAPHGEN_RUN"])
    for name, value in run["registers"].items():
        getattr(dut, name).value = value
    dut.start.value = 0
    dut.dump.value = 0
    apply_run_inputs(dut, run)
    await start_clock_and_reset(dut)
    await RisingEdge(dut.clk)
    await run_to_done(dut, run, lambda dut: {"iterations": int(dut.iterations.value),
                                             "active_count": int(dut.active_count_out.value)})
