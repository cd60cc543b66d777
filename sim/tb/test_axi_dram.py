"""cocotb testbench of the AXI slave adapter in front of the DRAM model
(:class:`sim.gateware.axi_dram.AXIDRAMAdapter` on one :class:`SimDRAM` channel), driven by
cocotbext-axi's ``AxiMaster`` on the top's ``s_axi_*`` ports.

``GRAPHGEN_TEST_OPTIONS`` (JSON): ``latency`` (the DRAM's, as its plusarg), ``lines`` (the
lines written then read back). Tests: ``round_trip`` (bursts of 1 to 8 lines with random
byte strobes written and read back under random IDs, many at once, each read equal to what
was written; with ``+dram_reorder=1`` and jitter some read issued later completes before
one issued earlier under another ID), ``throughput`` (single-line reads and writes issued
back to back: a line a cycle, the reads' latency paid once), and ``protocol_error`` low
throughout.
"""

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiBus, AxiMaster

from sim.tb.common import CLOCK_PERIOD_NS, sim_cycle, test_options

LINE = 64


async def _setup(dut):
    cocotb.start_soon(Clock(dut.clk, CLOCK_PERIOD_NS, unit="ns").start())
    master = AxiMaster(AxiBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 4)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 2)
    return master


@cocotb.test()
async def round_trip(dut):
    options = test_options()
    master = await _setup(dut)
    rng = random.Random(5)
    ids = 1 << len(dut.s_axi_arid)
    image = bytearray(options["lines"] * LINE)
    bursts, line = [], 0
    while line < options["lines"]:
        count = min(rng.randint(1, 8), options["lines"] - line)
        bursts.append((line, count))
        line += count
    writes = []
    for first, count in bursts:
        data = bytes(rng.getrandbits(8) for _ in range(count * LINE))
        image[first * LINE:(first + count) * LINE] = data
        writes.append(master.init_write(first * LINE, data, awid=rng.randrange(ids)))
    for event in writes:
        await event.wait()
        assert event.data.resp == 0, event.data
    order = []

    async def read(index, first, count):
        result = await master.read(first * LINE, count * LINE, arid=index % ids)
        assert result.resp == 0
        assert bytes(result.data) == bytes(image[first * LINE:(first + count) * LINE]), \
            f"lines {first}..{first + count - 1}"
        order.append(index)

    tasks = [cocotb.start_soon(read(i, first, count)) for i, (first, count) in enumerate(bursts)]
    for task in tasks:
        await task
    if options.get("expect_overtaking"):
        assert order != sorted(order), "no read overtook another"
    assert not int(dut.protocol_error.value)


@cocotb.test()
async def throughput(dut):
    options = test_options()
    master = await _setup(dut)
    ids = 1 << len(dut.s_axi_arid)
    count = options["lines"]
    start = sim_cycle()
    writes = [master.init_write(i * LINE, bytes([i % 251]) * LINE, awid=i % ids)
              for i in range(count)]
    for event in writes:
        await event.wait()
    write_cycles = sim_cycle() - start
    start = sim_cycle()
    reads = [master.init_read(i * LINE, LINE, arid=i % ids) for i in range(count)]
    for event in reads:
        await event.wait()
    read_cycles = sim_cycle() - start
    beats = 512 // len(dut.s_axi_wdata)
    slack = 16
    assert write_cycles <= count * beats + slack, write_cycles
    assert read_cycles <= options["latency"] + count * beats + slack, read_cycles
    for i, event in enumerate(reads):
        assert bytes(event.data.data) == bytes([i % 251]) * LINE
    assert not int(dut.protocol_error.value)
    dut._log.info(f"{count} lines: writes {write_cycles} cycles, reads {read_cycles} cycles")
    await RisingEdge(dut.clk)
