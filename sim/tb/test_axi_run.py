"""cocotb testbench of a whole run of a design through its AXI top
(:class:`sim.gateware.axi_sim_top.AXISimTop`): the host reaches it only over AXI4-Lite.

The host has laid the graph into the DRAM model's image (``+dram_init_bin``); this test
writes the configuration registers at their byte offsets in the AXI top's register map
(cocotbext-axi's ``AxiLiteMaster``), writes START, waits for the top's ``attention`` (the
design's done or error), the watchdog's ``hang`` or the cycle limit without acting on any
cycle in between, then reads the control register until DONE (the masters' last writes
answered), reads the counters over AXI4-Lite and has the DRAM model dump the memory.

``GRAPHGEN_RUN`` (JSON): ``registers`` as [byte offset, value] pairs, ``counters`` as
[name, byte offset] pairs, ``control`` the control register's offset, ``max_cycles``,
``watchdog``, ``stall_seed``, ``link_names`` and ``result_path``; the result file has the
keys of :func:`sim.tb.common.run_to_done`'s.
"""

import json
import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, First, ReadOnly, RisingEdge
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

from sim.tb.common import CLOCK_PERIOD_NS, dump_and_record, link_states, sim_cycle


START, DONE, ERROR = 1 << 0, 1 << 2, 1 << 3
# Control reads after ``attention`` until DONE: the masters' last writes drain meanwhile.
DRAIN_POLLS = 10_000


@cocotb.test()
async def run_graph(dut):
    run = json.loads(os.environ["GRAPHGEN_RUN"])
    dut.dump.value = 0
    dut.watchdog_limit.value = run.get("watchdog", 0)
    if hasattr(dut, "stall_seed"):
        dut.stall_seed.value = run.get("stall_seed", 1) & 0xFFFF_FFFF
    host = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
    cocotb.start_soon(Clock(dut.clk, CLOCK_PERIOD_NS, unit="ns").start())
    dut.rst.value = 1
    await ClockCycles(dut.clk, 4)
    dut.rst.value = 0
    for offset, value in run["registers"]:
        await host.write_dword(offset, value)
    control = run["control"]
    await host.write_dword(control, START)
    began = time.perf_counter()
    await First(RisingEdge(dut.attention), RisingEdge(dut.hang),
                ClockCycles(dut.clk, run["max_cycles"]))
    await ReadOnly()
    hang = bool(int(dut.hang.value))
    attention = bool(int(dut.attention.value))
    status = 0
    if attention and not hang:
        await RisingEdge(dut.clk)
        for _ in range(DRAIN_POLLS):
            status = await host.read_dword(control)
            if status & (DONE | ERROR):
                break
    seconds = time.perf_counter() - began
    finished = bool(status & DONE)
    await ReadOnly()
    quiet, links = int(dut.quiet_cycles.value), \
        link_states(dut, run.get("link_names", [])) if not finished else []
    sim_error = bool(int(dut.sim_error.value))
    cycles = sim_cycle()
    await RisingEdge(dut.clk)
    counters = {name: await host.read_dword(offset) for name, offset in run["counters"]}
    result = {
        "finished": finished,
        "hang": hang and not finished,
        "error": bool(status & ERROR) or sim_error,
        "memory_protocol_error": sim_error,
        "counters": counters,
        "run_wall_seconds": seconds,
        "sim_cycles": cycles,
        "quiet_cycles": quiet,
        "links": links,
    }
    await dump_and_record(dut, run, result, finished)
