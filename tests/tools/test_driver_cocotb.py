"""The host driver over cocotb (graphgen/driver/cocotb_bus.py, sim/tb/test_axi_driver.py):
each design's AXI top, as ``graphgen verilog --bus axi`` emits it, built with Verilator and
driven by :class:`graphgen.driver.Driver` through cocotbext-axi (its AXI4-Lite master on the
registers, its RAM on every AXI4 master port), with random back-pressure on all five channels
of every port or none; the answers equal the golden model's, twice in a row on the same
simulation (a host's second run, without ``aresetn``). A read or write answered SLVERR ends
the run with the driver's RunError and the next run is right.

Builds are cached by the Verilog's hash, so one build per design serves every run of it.
make test runs the BFS engine once with pauses (the other designs' AXI tops run in make test in
Amaranth's simulator, tests/hw/lib/test_axi_top.py;
the SLVERR test runs the BFS engine here, every other design in make soak); their runs here
and the whole crossing (every design, pauses on and off, two seeds) are in make soak.
"""

import functools
import json
import types

import pytest

from graphgen.designs import get_design
from graphgen.driver.cocotb_bus import CocotbBus, master_prefixes
from hw.lib.config import ConfigError
from sim.harness import emit_verilog, run_cocotb

TESTBENCH = "sim.tb.test_axi_driver"
MEMORY_BYTES = 1 << 22

# Small configurations, as in tests/hw/lib/test_axi_top.py: (design overrides, AXI top
# options). Graphicionado's has two memory channels, so two AXI4 ports share the memory.
CASES = {
    "graphicionado": ({"algo": "bfs", "max_vertices": "64", "edge_prefetch_lines": "8",
                       "memory_channels": "2"}, {"data_width": 128, "id_width": 3}),
    "bfs": ({}, {}),
    "depgraph": ({"algo": "sssp"}, {}),
    "dyngraph": ({}, {}),
}


@functools.cache
def axi_verilog(name) -> tuple[str, str]:
    """The top module's name and the Verilog of ``name``'s AXI top in its small
    configuration (elaborating it takes 10 to 30 s: once a session)."""
    overrides, axi = CASES[name]
    design = get_design(name)
    config = design.config(overrides)
    top = design.top(config, "axi")
    return top, emit_verilog(design.axi_top(config, **axi), top)


def run_driver(name, *, pause, seed=3, testcase="answers_equal_the_golden_model", **extra):
    overrides, _ = CASES[name]
    top, verilog = axi_verilog(name)
    run = {"design": name, "overrides": overrides, "memory_bytes": MEMORY_BYTES,
           "pause": pause, "graph": {"seed": seed, "n": 40, "m": 160}, "repeat": 2, **extra}
    result = run_cocotb(verilog, top, TESTBENCH, env={"GRAPHGEN_RUN": json.dumps(run)},
                        testcase=testcase, seed=seed)
    assert result.passed, result.summary()
    return result


# A base register each design reads early in a run: set past the memory by the error test.
FAR_BASE = {"graphicionado": "vprop_base", "bfs": "out_offsets_base",
            "depgraph": "offsets_base", "dyngraph": "present_base"}


MAKE_TEST = [pytest.param("graphicionado", None, marks=pytest.mark.soak),
             pytest.param("graphicionado", 1, marks=pytest.mark.soak),
             ("bfs", 2), pytest.param("depgraph", 3, marks=pytest.mark.soak),
             pytest.param("dyngraph", 4, marks=pytest.mark.soak)]


@pytest.mark.parametrize("name, pause", MAKE_TEST)
def test_design_through_the_driver_over_cocotb(name, pause):
    run_driver(name, pause=pause)


@pytest.mark.soak
@pytest.mark.parametrize("seed", [5, 6])
@pytest.mark.parametrize("pause", [False, True], ids=["no-pause", "pause"])
@pytest.mark.parametrize("name", list(CASES))
def test_every_design_pauses_on_and_off(name, pause, seed):
    run_driver(name, pause=seed if pause else None, seed=seed)


def test_memory_errors_end_the_run_and_the_next_is_right():
    run_driver("bfs", pause=7, testcase="errors_end_the_run_and_the_next_is_right",
               far_base=FAR_BASE["bfs"])


@pytest.mark.soak
@pytest.mark.parametrize("name", [name for name in CASES if name != "bfs"])
def test_memory_errors_on_every_design(name):
    run_driver(name, pause=8, testcase="errors_end_the_run_and_the_next_is_right",
               far_base=FAR_BASE[name])


def test_master_prefixes_and_memory_size():
    """One AXI4 port is ``m_axi``, several ``m_axi0``, ``m_axi1``, ...; a top without one,
    or a memory that is not whole lines, is refused before the simulation is touched."""
    assert master_prefixes(types.SimpleNamespace(m_axi_awvalid=1)) == ["m_axi"]
    two = types.SimpleNamespace(m_axi0_awvalid=1, m_axi1_awvalid=1, m_axi3_awvalid=1)
    assert master_prefixes(two) == ["m_axi0", "m_axi1"]
    with pytest.raises(ConfigError, match="top has no AXI4 master"):
        master_prefixes(types.SimpleNamespace(_name="top", s_axil_awvalid=1))
    with pytest.raises(ConfigError, match="positive multiple of 64, not 100"):
        CocotbBus(types.SimpleNamespace(), memory_bytes=100)
