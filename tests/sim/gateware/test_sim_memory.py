"""SimMemoryConfig (sim/gateware/sim_memory.py): the ``--mem`` keys, the paper preset, and the plusargs
that carry the settings to the DRAM model without changing the build."""

import pytest

from hw.lib.config import ConfigError
from sim.gateware.dram_model import DRAMTiming
from sim.gateware.sim_memory import SimMemoryConfig


def test_paper_preset_and_overrides():
    # The paper's 68 bytes a cycle for the whole accelerator, over 4 channels.
    paper = SimMemoryConfig.from_overrides({"preset": "paper"})
    assert paper.preset == "paper" and paper.latency == 100 and paper.bytes_per_cycle == 17
    assert paper.channels == 4 and paper.total_bytes_per_cycle == 68
    assert paper.as_dict()["preset"] == "paper"
    stream = SimMemoryConfig.from_overrides({"preset": "paper_stream"})
    assert (stream.bytes_per_cycle, stream.channels, stream.latency) == (8.5, 1, 100)
    mixed = SimMemoryConfig.from_overrides({"preset": "paper", "bytes_per_cycle": "64",
                                            "reorder": "on"})
    assert mixed.bytes_per_cycle == 64.0 and mixed.latency == 100 and mixed.reorder
    assert SimMemoryConfig.from_overrides({}).preset == ""


def test_plusargs_carry_every_runtime_setting():
    memory = SimMemoryConfig.from_overrides({
        "latency": "40", "latency_dist": "tail", "jitter": "8", "tail_percent": "10",
        "tail": "400", "outstanding": "6", "pushback": "30", "reorder": "on",
        "bytes_per_cycle": "8.5"})
    assert memory.timing() == DRAMTiming(latency=40, jitter=8, outstanding=6, tail_percent=10,
                                         tail=400, pushback=30, bandwidth=2176, reorder=True)
    assert "+dram_bw=2176" in memory.plusargs() and "+dram_reorder=1" in memory.plusargs()
    uniform = SimMemoryConfig(latency_dist="uniform", jitter=8, tail_percent=10, tail=400)
    assert uniform.timing().tail_percent == 0 and uniform.timing().jitter == 8
    # Only the memory's size reaches the Verilog.
    assert memory.build_digest() == SimMemoryConfig().build_digest()
    assert memory.build_digest() != SimMemoryConfig(depth_lines=1 << 15).build_digest()
    assert SimMemoryConfig(bytes_per_cycle=8).bytes_per_cycle == 8.0
    # The channels are part of the build, and apply every timing setting each.
    assert memory.build_digest() != SimMemoryConfig(channels=2).build_digest()
    assert SimMemoryConfig(channels=2, bytes_per_cycle=8).plusargs() == \
        SimMemoryConfig(bytes_per_cycle=8).plusargs()


def test_attach_sim_dram_needs_one_port_per_channel():
    from amaranth.hdl import Fragment, Module
    from hw.lib.memory.port import mem_port_signature
    from sim.gateware.sim_memory import attach_sim_dram
    ports = [mem_port_signature(20, 3).flip().create() for _ in range(2)]
    two, one = Module(), Module()
    dram = attach_sim_dram(two, ports, SimMemoryConfig(channels=2, depth_lines=64), 20)
    assert dram.config.channels == 2 and len(dram.channel_ports) == 2
    single = attach_sim_dram(one, ports[0], SimMemoryConfig(depth_lines=64), 20)
    assert single.config.channels == 1 and single.channel_ports == [single]
    with pytest.raises(ConfigError, match="the design has 2 memory port\\(s\\) but the "
                                          "simulated memory has channels=4"):
        attach_sim_dram(one, ports, SimMemoryConfig(channels=4, depth_lines=64), 20)
    for m in (two, one):
        Fragment.get(m, None)


@pytest.mark.parametrize("overrides, message", [
    ({"preset": "fast"}, "unknown memory preset 'fast'"),
    ({"jitter": "5"}, "jitter needs latency_dist=uniform"),
    ({"latency_dist": "normal"}, "latency_dist must be one of"),
    ({"outstanding": "300"}, "outstanding must be between 1 and 256"),
    ({"pushback": "100"}, "pushback must be between 0 and 99"),
    ({"bytes_per_cycle": "8.3"}, "multiple of 1/256"),
    ({"bytes_per_cycle": "65"}, "bytes_per_cycle must be between"),
    ({"reorder": "maybe"}, "reorder"),
    ({"channels": "3"}, "channels must be a power of two from 1 to 16, not 3"),
    ({"channels": "32"}, "channels must be a power of two from 1 to 16, not 32"),
])
def test_bad_memory_keys(overrides, message):
    with pytest.raises(ConfigError, match=message):
        SimMemoryConfig.from_overrides(overrides)
