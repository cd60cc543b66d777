"""The host's side of a graph run on a board (``graphgen run --board``): the client of the
board's bus (LiteX's UART bridge opened directly, or a running ``litex_server``), the SDRAM's
initialisation through it (there is no CPU to run LiteX's BIOS), the design's host adapter,
and the check of the answer against the golden model.

The Driver (:mod:`graphgen.driver`) is the same one the simulations use: only the bus differs.
"""

import dataclasses
import time

import numpy as np

from hw.lib.config import ConfigError


__all__ = ["RUN_DESIGNS", "check_board_program", "BoardCheck", "BoardRun", "host_for",
           "check_answer", "open_client", "init_sdram", "litex_bus", "board_driver",
           "run_graph"]

# The designs a board run takes, and the program each runs without --algo (DynGraph's runs
# are batches of updates, not a graph and an algorithm: not offered here).
RUN_DESIGNS = {"graphicionado": "bfs", "bfs": "bfs", "depgraph": "bfs"}
# DepGraph's answer is checked as unsigned words.
_DEPGRAPH_PROGRAMS = ("bfs", "sssp", "cc")


def check_board_program(design_name: str, algo: str) -> None:
    """Refuse, with ConfigError, a program (``--algo``) the board run of ``design_name`` does
    not check: Graphicionado runs any program its pipeline builds with one-word properties
    (CF's features in flits are not offered), the BFS engine bfs, DepGraph bfs, sssp, cc."""
    if design_name == "graphicionado":
        from hw.graphicionado.algorithms import algorithm_of
        if algorithm_of(algo).large_property:
            raise ConfigError(f"program {algorithm_of(algo).name}: graphicionado on a board "
                              f"runs programs of one-word properties, not vectors")
        return
    runs = {"bfs": ("bfs",), "depgraph": _DEPGRAPH_PROGRAMS}.get(design_name)
    if runs is None:
        raise ConfigError(f"a board run takes {', '.join(RUN_DESIGNS)}, not {design_name}")
    if algo not in runs:
        raise ConfigError(f"--algo {algo}: {design_name} on a board runs {', '.join(runs)}")


@dataclasses.dataclass
class BoardCheck:
    """The answer against the golden model: ``mismatches`` vertices differ (the first one
    ``first``), compared as ``comparison`` says."""
    vertices: int
    mismatches: int
    comparison: str
    first: int | None = None

    @property
    def passed(self) -> bool:
        return self.mismatches == 0


def host_for(design_name: str, config):
    """The design's host adapter (:mod:`graphgen.driver`) for ``config``."""
    if design_name == "graphicionado":
        from graphgen.driver.graphicionado import GraphicionadoHost
        return GraphicionadoHost(config)
    if design_name == "bfs":
        from graphgen.driver.bfs import BfsHost
        return BfsHost(config)
    if design_name == "depgraph":
        from graphgen.driver.depgraph import DepGraphHost
        return DepGraphHost(config)
    raise ConfigError(f"a board run takes {', '.join(RUN_DESIGNS)}, not {design_name}")


def _compare(values, wanted, comparison: str, relative: float = 0.0) -> BoardCheck:
    values, wanted = np.asarray(values), np.asarray(wanted)
    if relative:
        wrong = ~(np.abs(values - wanted) <= relative * np.abs(wanted))
    else:
        wrong = values != wanted
    where = np.flatnonzero(wrong)
    return BoardCheck(len(wanted), int(len(where)), comparison,
                      int(where[0]) if len(where) else None)


def check_answer(design_name: str, config, graph, values, counters, *, root: int = 0,
                 iters: int | None = None) -> BoardCheck:
    """``values`` (the adapter's answer) against the golden model."""
    if design_name == "graphicionado":
        from sim.graphicionado.check import expected_values
        from sim.graphicionado.run import check_graph
        algo, program = config.algo, config.program
        if iters is None:
            iters = program.iterations
        slice_vertices = check_graph(graph, algo, config)
        reference = expected_values(graph, algo, root=root if program.uses_root else None,
                                    iters=iters, streams_src=config.streams_src,
                                    streams_dst=config.streams_dst,
                                    partition_vertices=slice_vertices)
        wanted = np.asarray(reference.values).astype(
            np.float32 if config.algorithm.floating_point else np.uint32)
        return _compare(values, wanted, reference.comparison, reference.relative_bound)
    if design_name == "bfs":
        from golden.bfs import run_bfs, validate_parents
        reference = run_bfs(graph, root, **config.golden_options())
        check = _compare(values["level"], np.asarray(reference.levels).astype(np.uint32),
                         "levels exact, parents by Graph500's validation")
        if check.passed:
            validate_parents(graph, root, values["parent"], values["level"])
        return check
    if design_name == "depgraph":
        from golden.depgraph import run_depgraph
        algo = config.algo
        reference = run_depgraph(algo, graph, root=root if algo in ("bfs", "sssp") else None,
                                 engines=config.engines, stack_depth=config.stack_depth,
                                 walks=config.walks, hub_index=config.hub_index)
        return _compare(values, np.asarray(reference.states).astype(np.uint32), "exact")
    raise ConfigError(f"a board run takes {', '.join(RUN_DESIGNS)}, not {design_name}")


# LiteDRAM's software-control flags (litedram.init's DFII_CONTROL_*, DFII_COMMAND_*).
DFII_FLAGS = {"DFII_CONTROL_SEL": 0x01, "DFII_CONTROL_CKE": 0x02, "DFII_CONTROL_ODT": 0x04,
              "DFII_CONTROL_RESET_N": 0x08, "DFII_COMMAND_CS": 0x01,
              "DFII_COMMAND_WE": 0x02, "DFII_COMMAND_CAS": 0x04, "DFII_COMMAND_RAS": 0x08,
              "DFII_COMMAND_WRDATA": 0x10, "DFII_COMMAND_RDDATA": 0x20}


def open_client(port: str | None, baudrate: int, server: tuple[str, int] | None):
    """LiteX's client of the board's bus (``read(addr, length)``, ``write(addr, value)``, 32-bit
    words at byte addresses): the UART bridge opened here, or a running ``litex_server``."""
    if server is not None:
        from graphgen.driver.bus import remote_client
        return remote_client(*server)
    from litex.tools.remote.comm_uart import CommUART
    comm = CommUART(port, baudrate=baudrate)
    comm.open()
    return comm


def init_sdram(client, board: dict) -> int:
    """Initialise the SDRAM as LiteX's BIOS does on a CPU, through ``client``: software
    control on, LiteDRAM's sequence (``board["sdram_init"]``, written by ``graphgen board``),
    then the controller in charge. Returns the register writes made."""
    csr = board["sdram_csr"]
    writes = 0

    def write(name, value):
        nonlocal writes
        client.write(csr[name], value)
        writes += 1

    def flags(text):
        return sum(DFII_FLAGS[name.strip()] for name in text.split("|") if name.strip())
    write("control", flags("DFII_CONTROL_CKE|DFII_CONTROL_ODT|DFII_CONTROL_RESET_N"))
    for _comment, address, bank, command, _delay in board["sdram_init"]:
        # A step waits its delay in cycles; one access over the bridge takes far longer.
        write("pi0_address", address)
        write("pi0_baddress", bank)
        if command.startswith("DFII_CONTROL_"):
            write("control", flags(command))
        else:
            write("pi0_command", flags(command))
            write("pi0_command_issue", 1)
    write("control", DFII_FLAGS["DFII_CONTROL_SEL"])
    return writes


def litex_bus(client, board: dict):
    """A :class:`~graphgen.driver.bus.LiteXBus` on ``client`` at the build's map."""
    from graphgen.driver.bus import LiteXBus
    return LiteXBus(client, registers_base=board["registers_base"],
                    memory_base=board["memory_base"], clock_hz=board["clock_hz"])


def board_driver(design, config, bus):
    """The :class:`~graphgen.driver.Driver` of ``design`` at ``config`` on a board SoC over
    ``bus`` (the register map of the AXI top the board was built with, the SDRAM's size)."""
    from graphgen.driver import Driver
    from hw.lib.axi.top import design_map
    from . import SDRAM_BYTES
    built = design.build(config)
    built._MustUse__silence = True      # built for its register map only
    return Driver(bus, design_map(built), memory_bytes=SDRAM_BYTES)


@dataclasses.dataclass
class BoardRun:
    """One run: the answer, the counters, the check, and the wall time of each step (the
    image laid out, loaded, run, read back)."""
    values: np.ndarray
    counters: dict
    check: BoardCheck
    seconds: dict


def run_graph(driver, design_name: str, config, graph, *, root: int = 0,
              iters: int | None = None, timeout: int = 10**9, poll: int = 4096) -> BoardRun:
    """``graph`` through ``driver`` step by step (timed), then checked against the golden
    model; ``timeout`` and ``poll`` in design cycles (:meth:`Driver.wait_done`)."""
    host = host_for(design_name, config)
    options = {"root": root}
    if design_name == "graphicionado":
        options["iters"] = iters
    marks = [time.perf_counter()]
    image = host.image(graph, **options)
    marks.append(time.perf_counter())
    driver.load(image)
    marks.append(time.perf_counter())
    driver.start()
    driver.wait_done(image=image, timeout=timeout, poll=poll)
    marks.append(time.perf_counter())
    counters = driver.counters()
    values = host.result(image, counters, driver.read_words)
    marks.append(time.perf_counter())
    check = check_answer(design_name, config, graph, values, counters, root=root, iters=iters)
    seconds = {step: round(marks[k + 1] - marks[k], 3)
               for k, step in enumerate(("image", "load", "run", "read"))}
    return BoardRun(values, counters, check, seconds)
