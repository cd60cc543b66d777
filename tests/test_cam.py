"""The atomic-update CAM against its cocotb testbench, on the Verilog users get."""

import shutil

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring

from graphgen.designs import get_design
from hw.atomic_update_cam import AtomicUpdateCAM, CAMConfig
from hw.config import ConfigError

DESIGN = get_design("cam")

CONFIGS = [
    CAMConfig(),                                   # the paper's 16 entries, 4 ways, 32-bit ids
    CAMConfig(entries=8, ways=2, id_width=16),
    CAMConfig(entries=16, ways=16, id_width=8),    # fully associative
    CAMConfig(entries=4, ways=1, id_width=10),     # direct mapped
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"e{c.entries}w{c.ways}i{c.id_width}")
def test_cam_verilator(config):
    result = DESIGN.run_test(config, simulator="verilator", options={"updates": 2000})
    assert result.passed, result.summary()
    assert len(result.tests) == 5


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="Icarus Verilog not installed")
def test_cam_icarus():
    result = DESIGN.run_test(CAMConfig(), simulator="icarus", options={"updates": 1000})
    assert result.passed, result.summary()


class _BrokenCAM(wiring.Component):
    """A broken CAM that takes an id even while it is in flight."""

    def __init__(self, config):
        self._inner = AtomicUpdateCAM(config)
        super().__init__(self._inner.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = inner = self._inner
        m.d.comb += [
            inner.insert.valid.eq(self.insert.valid),
            inner.insert.payload.eq(self.insert.payload),
            self.insert.ready.eq(inner.insert.ready | inner.conflict),
            inner.remove.valid.eq(self.remove.valid),
            inner.remove.payload.eq(self.remove.payload),
            self.remove.ready.eq(inner.remove.ready),
            inner.probe_id.eq(self.probe_id),
            self.probe_hit.eq(inner.probe_hit),
            self.occupancy.eq(inner.occupancy),
            self.conflict.eq(inner.conflict),
            self.set_full.eq(inner.set_full),
            self.set_has_free.eq(inner.set_has_free),
            self.remove_miss.eq(inner.remove_miss),
        ]
        return m


def test_testbench_catches_a_cam_that_ignores_conflicts():
    config = CAMConfig()
    result = DESIGN.run_test(config, options={"updates": 500}, component=_BrokenCAM(config))
    assert not result.passed
    assert any("ready=1" in test.message for test in result.failures()), result.summary()


@pytest.mark.parametrize("kwargs, message", [
    (dict(entries=16, ways=3), "ways must divide"),
    (dict(entries=24, ways=4), "power of two"),
    (dict(entries=16, ways=4, id_width=2), "id_width"),
    (dict(entries=0), "entries"),
])
def test_invalid_configs(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        CAMConfig(**kwargs)


def test_config_type_checked():
    with pytest.raises(ConfigError, match="must be int"):
        CAMConfig(entries="16")
