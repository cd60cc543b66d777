"""Post-synthesis simulation: the ECP5 netlist that ``graphgen synth --target ecp5`` places
and routes (Yosys ``synth_ecp5`` and the output-register rewrite of ``synth.ecp5_outreg``),
written back as Verilog and simulated with the ECP5 cell models (``synth.postsynth``), under
the same testbenches and golden-model checks as the RTL. The CAM and the small RAMs run in
Verilator; the Graphicionado pipeline's netlist (some 30,000 cells) runs in Icarus, which
builds it in well under a minute where Verilator spent minutes verilating it and more than
ten compiling its C++. Configurations are small (a 256-vertex scratchpad, a 32-vertex graph,
a small DRAM with a short latency); the netlists and the builds are cached."""

import shutil

import pytest

import golden
from hw.lib.cam import CAMConfig
from hw.graphicionado.config import GraphicionadoConfig
from sim.gateware.sim_memory import SimMemoryConfig
from sim.dram_run import RunFailure
from sim.postsynth import cam_netlist_test, outreg_ram_test, simulate_graphicionado_netlist
from sim.run_settings import RunSettings
from synth.ecp5_outreg import absorb_output_registers

GRAPH = "kron:scale=5,ef=8,seed=2"
MEMORY = SimMemoryConfig(latency=20, depth_lines=4096)
PIPELINE_SIMULATOR = "icarus"
needs_icarus = pytest.mark.skipif(shutil.which("iverilog") is None,
                                  reason="Icarus Verilog not installed")


@pytest.mark.soak      # gate-level simulation: make test's budget (the RAM rewrite's tests stay)
def test_cam_netlist():
    result, netlist = cam_netlist_test(CAMConfig(entries=8, ways=2, id_width=16),
                                       options={"updates": 1000})
    assert result.passed, result.summary()
    assert len(result.tests) == 5
    assert netlist.cells.get("TRELLIS_FF", 0) > 0 and netlist.cells.get("LUT4", 0) > 0


# Both in make soak, for make test's 20-minute budget: the whole pipeline's ECP5 synthesis
# and gate-level run take two minutes for BFS, more for PageRank (its FP32 units at gate
# level). make test keeps the CAM's netlist and the block-RAM rewrite's tests below.
@needs_icarus
@pytest.mark.soak
@pytest.mark.parametrize("algo", ["bfs", "pagerank"])
def test_graphicionado_netlist(algo, run_seeds):
    config = GraphicionadoConfig(algo=algo, max_vertices=256)
    seed = run_seeds.get(0)
    report, netlist = simulate_graphicionado_netlist(
        golden.from_spec(GRAPH), config, MEMORY,
        RunSettings(root=0, iters=2 if algo == "pagerank" else None, seed=seed,
                    simulator=PIPELINE_SIMULATOR))
    assert report.matches, (report.first_mismatch, run_seeds.hint(seed))
    assert report.counters["edges"] > 0
    # The netlist holds block RAMs whose output registers took flip-flops over: the rewrite
    # is what is being simulated.
    assert netlist.cells.get("DP16KD", 0) > 0 and netlist.absorbed > 0


def _rewrite_dropping_the_register(netlist: dict, top: str) -> int:
    """A broken output-register rewrite: the flip-flops are removed and their loads moved to
    the RAM's output as the real rewrite does, but the RAM is left in REGMODE NOREG, so a
    register stage is lost (the data arrives one cycle early)."""
    moved = absorb_output_registers(netlist, top)
    for cell in netlist["modules"][top]["cells"].values():
        if cell["type"] == "DP16KD":
            for side in ("A", "B"):
                if str(cell["parameters"].get(f"REGMODE_{side}", "")).strip() == "OUTREG":
                    cell["parameters"][f"REGMODE_{side}"] = "NOREG"
    return moved


# (width, flip-flops moved): at 36 bits (the pseudo-dual-port mode, read data on DOA and
# DOB) the rewrite moves the DOB half only.
RAMS = [(16, 16), (36, 18)]


@pytest.mark.parametrize("width,moved", RAMS)
def test_outreg_ram_netlist(width, moved):
    """A RAM with a register behind its read port: the rewrite moves the register into the
    DP16KD (REGMODE OUTREG) and the netlist still reads on the second edge."""
    result, netlist = outreg_ram_test(512, width)
    assert netlist.absorbed == moved
    assert result.passed, result.summary()


@pytest.mark.parametrize("width,moved", RAMS)
def test_outreg_ram_broken_rewrite_is_caught(width, moved):
    result, netlist = outreg_ram_test(512, width, rewrite=_rewrite_dropping_the_register)
    assert netlist.absorbed == moved
    assert not result.passed
    assert "read data" in result.failures()[0].message


# The whole pipeline's broken netlist: minutes in Icarus at gate level, so left to make soak;
# make test catches the same broken rewrite on a RAM alone (just above).
@pytest.mark.soak
@needs_icarus
def test_broken_rewrite_is_caught(run_seeds):
    config = GraphicionadoConfig(algo="bfs", max_vertices=256)
    try:
        report, netlist = simulate_graphicionado_netlist(
            golden.from_spec(GRAPH), config, MEMORY,
            RunSettings(root=0, seed=run_seeds.get(0), max_cycles=5_000_000,
                        simulator=PIPELINE_SIMULATOR),
            rewrite=_rewrite_dropping_the_register)
    except RunFailure:
        return   # hung or raised its error flag: caught
    assert netlist.absorbed > 0
    assert not report.matches, "a netlist missing a register stage matched the golden model"
