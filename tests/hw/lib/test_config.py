"""DesignConfig's run settings: stall injection and the watchdog are settings of a simulation
run, so they leave the design's digest (no synthesis build is keyed by them) but stay in the
simulation build's key, where stall injection changes the Verilog."""

import pytest

from hw.bfs.config import BfsConfig
from hw.depgraph.config import DepGraphConfig
from hw.dyngraph.config import DynGraphConfig
from hw.graphicionado.config import GraphicionadoConfig
from hw.lib.cam import CAMConfig

DESIGN_CONFIGS = [GraphicionadoConfig, DepGraphConfig, BfsConfig, DynGraphConfig]


@pytest.mark.parametrize("config_class", DESIGN_CONFIGS)
def test_run_settings_leave_the_design_digest(config_class):
    base = config_class()
    run = config_class(stall_injection=20, watchdog=5000)
    assert run.digest() == base.digest()
    assert run.run_digest() != base.run_digest()
    assert run.run_settings() == {"stall_injection": 20, "watchdog": 5000}
    assert run.design_only() == base
    assert base.run_settings() == {}


@pytest.mark.parametrize("changed", [GraphicionadoConfig(streams_src=2), DepGraphConfig(engines=2),
                                     BfsConfig(lanes=2), DynGraphConfig(slots=8)],
                         ids=lambda config: type(config).__name__)
def test_design_parameters_stay_in_the_digest(changed):
    base = type(changed)()
    assert changed != base
    assert changed.digest() != base.digest()
    assert changed.design_only() == changed


def test_a_config_without_run_settings():
    config = CAMConfig(entries=16, ways=4)
    assert config.digest() == config.run_digest()
    assert config.run_settings() == {} and config.design_only() == config
