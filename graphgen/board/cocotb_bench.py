"""cocotb bench of the board SoC in simulation (:class:`graphgen.board.sim_soc.SimSoC`): the
host's side of ``graphgen run --board`` unchanged (the SDRAM's initialisation, a
:class:`~graphgen.driver.bus.LiteXBus`, the Driver, the check against the golden model), its
LiteX client a Wishbone master at the SoC's ``host_*`` ports instead of the UART bridge, and
its waits clock cycles instead of sleeps.

The run comes in ``GRAPHGEN_BOARD_RUN`` (JSON: the design, its parameters, the graph file,
the root and iterations, the board's map and SDRAM initialisation, the poll and timeout in
cycles, the result file); the result file gets the check, the counters, the host's steps'
wall times and the simulated cycles.
"""

import json
import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.simtime import get_sim_time
from cocotb.task import bridge, resume
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from graphgen.driver.bus import LiteXBus


class WishboneClient:
    """LiteX's client interface (``read(addr, length=None)``, ``write(addr, value)``: 32-bit
    words at byte addresses) on the SoC's host Wishbone master, for blocking code in a
    cocotb bridge thread."""

    def __init__(self, dut):
        self.dut = dut
        self.accesses = 0

    async def _access(self, addr: int, value: int | None) -> int:
        dut = self.dut
        dut.host_adr.value = addr >> 2
        dut.host_we.value = int(value is not None)
        dut.host_dat_w.value = value or 0
        dut.host_sel.value = 0xF
        dut.host_cyc.value = 1
        dut.host_stb.value = 1
        while True:
            await ReadOnly()
            if dut.host_ack.value or dut.host_err.value:
                error, data = int(dut.host_err.value), int(dut.host_dat_r.value)
                break
            await RisingEdge(dut.sys_clk)
        await RisingEdge(dut.sys_clk)
        dut.host_cyc.value = 0
        dut.host_stb.value = 0
        dut.host_we.value = 0
        self.accesses += 1
        if error:
            raise OSError(f"the SoC bus answered an error at {addr:#x}")
        return data

    def read(self, addr, length=None):
        words = [resume(self._access)(addr + 4 * k, None) for k in range(length or 1)]
        return words if length is not None else words[0]

    def write(self, addr, value):
        for k, word in enumerate(value if isinstance(value, list) else [value]):
            resume(self._access)(addr + 4 * k, int(word))


class SimulatedLiteXBus(LiteXBus):
    """A LiteXBus whose waits are clock cycles of the simulation."""

    def __init__(self, client, dut, **kwargs):
        super().__init__(client, **kwargs)
        self._dut = dut

    def wait(self, cycles):
        resume(self._cycles)(cycles)

    async def _cycles(self, cycles):
        await ClockCycles(self._dut.sys_clk, cycles)


def _host_run(run: dict, dut, client) -> dict:
    import golden
    from graphgen.board.host import board_driver, init_sdram, run_graph
    from graphgen.designs import get_design
    design = get_design(run["design"])
    config = design.config(run["set"]).design_only()
    board = run["board"]
    start = time.perf_counter()
    init_writes = init_sdram(client, board)
    bus = SimulatedLiteXBus(client, dut, registers_base=board["registers_base"],
                            memory_base=board["memory_base"], clock_hz=board["clock_hz"])
    driver = board_driver(design, config, bus)
    result = run_graph(driver, design.name, config, golden.read_graph(run["graph"]),
                       root=run["root"], iters=run["iters"], timeout=run["timeout"],
                       poll=run["poll"])
    check = result.check
    return {"passed": check.passed, "mismatches": check.mismatches,
            "vertices": check.vertices, "first": check.first,
            "comparison": check.comparison, "counters": result.counters,
            "seconds": result.seconds, "host_seconds": round(time.perf_counter() - start, 3),
            "sdram_init_writes": init_writes}


@cocotb.test()
async def board_run(dut):
    run = json.loads(os.environ["GRAPHGEN_BOARD_RUN"])
    for name in ("host_cyc", "host_stb", "host_we", "host_adr", "host_dat_w", "host_sel"):
        getattr(dut, name).value = 0
    # A whole, even number of picoseconds (the simulator's precision; two half periods).
    period_ps = 2 * round(1e12 / run["board"]["clock_hz"] / 2)
    Clock(dut.sys_clk, period_ps, unit="ps").start()
    dut.sys_rst.value = 1
    await ClockCycles(dut.sys_clk, 16)
    dut.sys_rst.value = 0
    await ClockCycles(dut.sys_clk, 16)
    client = WishboneClient(dut)
    start = time.perf_counter()
    outcome = await bridge(_host_run)(run, dut, client)
    outcome["wall_seconds"] = round(time.perf_counter() - start, 3)
    outcome["bus_accesses"] = client.accesses
    outcome["sim_ns"] = float(get_sim_time("ns"))
    with open(run["result"], "w") as file:
        json.dump(outcome, file, indent=1)
    assert outcome["passed"], f"{outcome['mismatches']} vertices differ from the golden model"
