"""The board SoC simulated end to end (``graphgen run --board B --sim``): the SoC of
:mod:`graphgen.board.sim_soc` (the design's AXI top on LiteDRAM with its SDRAM model) built
with Verilator through the project's harness (:func:`sim.harness.run_cocotb`), driven by
:mod:`graphgen.board.cocotb_bench`: the host's side of a board run, unchanged but for its
client (Wishbone pokes instead of the UART bridge)."""

import json
import tempfile
import time
from pathlib import Path

from . import BOARD_MASTER, CLOCK_MHZ, MAIN_RAM_BASE, REGISTERS_BASE, SDRAM_BYTES
from .build import design_ports, quiet_litex, sdram_csrs, sdram_init_sequence


__all__ = ["simulate_board_run"]


def simulate_board_run(design, overrides: dict, graph_file: Path, *, root: int = 0,
                       iters: int | None = None, data_width: int = 64,
                       clock_mhz: float = CLOCK_MHZ, poll: int = 256,
                       timeout: int = 20_000_000, keep: bool = False) -> dict:
    """Simulate ``design`` (with ``overrides``) in the board SoC on ``graph_file``; the bench's
    result (the check, counters, the host's step times, simulated ns) with the build's and
    the run's wall times."""
    from litex.soc.integration.export import get_csr_csv
    from sim.harness import SimulationError, run_cocotb
    from .sim_soc import SIM_TOP, SimSoC
    config = design.config(overrides).design_only()
    component = design.axi_top(config, data_width=data_width, memory_bytes=SDRAM_BYTES,
                                 **BOARD_MASTER)
    module = design.top(config, "axi")
    ports = design_ports(component)
    prefix = component.master_prefixes[0]
    with quiet_litex():
        soc = SimSoC(module, ports, list(component.master_prefixes), data_width=data_width,
                     id_width=ports[f"{prefix}_arid"][1],
                     addr_width=ports[f"{prefix}_araddr"][1],
                     sys_clk_freq=clock_mhz * 1e6)
        text = soc.verilog()
        csv = get_csr_csv(csr_regions=soc.csr_regions, constants=soc.constants,
                          mem_regions=soc.mem_regions)
    board = {"registers_base": REGISTERS_BASE, "memory_base": MAIN_RAM_BASE,
             "clock_hz": clock_mhz * 1e6, "sdram_csr": sdram_csrs(csv),
             "sdram_init": sdram_init_sequence(soc)}
    with tempfile.TemporaryDirectory(prefix="graphgen-board-sim-") as folder:
        source = Path(folder) / f"{module}.v"
        source.write_text(design.verilog(config, component, bus="axi"))
        result_file = Path(folder) / "result.json"
        run = {"design": design.name, "set": {k: str(v) for k, v in overrides.items()},
               "graph": str(Path(graph_file).resolve()), "root": root, "iters": iters,
               "board": board, "poll": poll, "timeout": timeout, "result": str(result_file)}
        start = time.perf_counter()
        sim = run_cocotb(text, SIM_TOP, "graphgen.board.cocotb_bench",
                         extra_sources=[source], env={"GRAPHGEN_BOARD_RUN": json.dumps(run)},
                         keep=keep)
        wall = time.perf_counter() - start
        if not result_file.exists():
            failures = [test.message for test in sim.tests if not test.passed]
            raise SimulationError(f"the board simulation wrote no result: "
                                  f"{(failures or ['no message'])[0]}")
        outcome = json.loads(result_file.read_text())
    outcome.update({"build_seconds": round(sim.build_seconds, 1), "cached": sim.cached,
                    "run_seconds": round(sim.run_seconds, 1), "wall_seconds": round(wall, 1),
                    "tests": [str(test) for test in sim.tests]})
    return outcome
