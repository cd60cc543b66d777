"""The AXI slave adapter in front of the DRAM model (sim/gateware/axi_dram.py) under
cocotbext-axi's AxiMaster in Verilator: writes and reads of 1 to 8 lines with random
strobes and IDs equal what was written, reads of different IDs overtake each other when the
model reorders, and single-line bursts go at a line a cycle (the adapter is no bottleneck);
at 512 and 128 bits."""

import json

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from hw.lib.axi.flat import flat_members
from hw.lib.axi.signature import AXI4Signature
from sim.gateware.axi_dram import DRAM_TAG_WIDTH, AXIDRAMAdapter
from sim.gateware.dram_model import DRAMConfig, DRAMTiming, SimDRAM
from sim.harness import emit_verilog, run_cocotb

TOP = "axi_dram_top"
LATENCY = 40


class AXIDRAMBench(wiring.Component):
    """An adapter on a one-channel SimDRAM, its AXI4 slave ports flat (``s_axi_*``)."""

    def __init__(self, data_width):
        self._axi = AXI4Signature(addr_width=16, data_width=data_width, id_width=4)
        members = flat_members(self._axi, "s_axi", flipped=True)
        members["protocol_error"] = Out(1)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.adapter = adapter = AXIDRAMAdapter(self._axi, addr_width=10)
        m.submodules.dram = dram = SimDRAM(DRAMConfig(depth_lines=1024, addr_width=10,
                                                      tag_width=DRAM_TAG_WIDTH,
                                                      outstanding=128))
        for name, member in self._axi.members.items():
            port, inner = getattr(self, f"s_axi_{name}"), getattr(adapter.axi, name)
            m.d.comb += inner.eq(port) if member.flow == Out else port.eq(inner)
        wiring.connect(m, adapter.mem.req, dram.req)
        wiring.connect(m, dram.resp, adapter.mem.resp)
        m.d.comb += self.protocol_error.eq(adapter.protocol_error)
        return m


@pytest.mark.parametrize("data_width", [512, 128])
def test_adapter_under_axi_master(data_width):
    timing = DRAMTiming(latency=LATENCY, jitter=30, reorder=True, outstanding=128)
    result = run_cocotb(emit_verilog(AXIDRAMBench(data_width), TOP), TOP, "sim.tb.test_axi_dram",
                        extra_sources=[SimDRAM.VERILOG_SOURCE],
                        env={"GRAPHGEN_TEST_OPTIONS": json.dumps(
                            {"lines": 200, "latency": LATENCY, "expect_overtaking": True})},
                        plusargs=timing.plusargs() + ["+dram_seed=3"], testcase="round_trip")
    assert result.passed, result.summary()
    fixed = DRAMTiming(latency=LATENCY, outstanding=128)
    result = run_cocotb(emit_verilog(AXIDRAMBench(data_width), TOP), TOP, "sim.tb.test_axi_dram",
                        extra_sources=[SimDRAM.VERILOG_SOURCE],
                        env={"GRAPHGEN_TEST_OPTIONS": json.dumps(
                            {"lines": 64, "latency": LATENCY})},
                        plusargs=fixed.plusargs(), testcase="throughput")
    assert result.passed, result.summary()
