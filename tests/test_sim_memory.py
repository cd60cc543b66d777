"""SimMemoryConfig (hw/sim_memory.py): the ``--mem`` keys, the paper preset, and the plusargs
that carry the settings to the DRAM model without changing the build."""

import pytest

from hw.config import ConfigError
from hw.dram_model import DRAMTiming
from hw.sim_memory import SimMemoryConfig


def test_paper_preset_and_overrides():
    paper = SimMemoryConfig.from_overrides({"preset": "paper"})
    assert paper.preset == "paper" and paper.latency == 100 and paper.bytes_per_cycle == 8.5
    assert paper.as_dict()["preset"] == "paper"
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


@pytest.mark.parametrize("overrides, message", [
    ({"preset": "fast"}, "unknown memory preset 'fast'"),
    ({"jitter": "5"}, "jitter needs latency_dist=uniform"),
    ({"latency_dist": "normal"}, "latency_dist must be one of"),
    ({"outstanding": "300"}, "outstanding must be between 1 and 256"),
    ({"pushback": "100"}, "pushback must be between 0 and 99"),
    ({"bytes_per_cycle": "8.3"}, "multiple of 1/256"),
    ({"bytes_per_cycle": "65"}, "bytes_per_cycle must be between"),
    ({"reorder": "maybe"}, "reorder"),
])
def test_bad_memory_keys(overrides, message):
    with pytest.raises(ConfigError, match=message):
        SimMemoryConfig.from_overrides(overrides)
