"""The Gowin GW5A flow (``--target gw5a-138``): Yosys ``synth_gowin -family gw5a``, then
nextpnr-himbaechel-gowin place and route on the GW5AST-138C (138,240 LUT4, 340 BSRAM, 298
MULTALU27X18), both from the YoWASP wheels.

The core is placed and routed out of context, as a block inside a larger design would be,
whatever its number of ports: nextpnr-himbaechel-gowin has no ``--out-of-context`` mode and
wants every top-level port on a package pin (``Unconstrained IO`` otherwise), and with the ports
on pins (a generated CST file) this nextpnr placed the CAM but failed to route its clock from
the pin to the global network. So Yosys maps no IO buffers (``-noiopads``) and, after mapping,
takes the port flag off the top's wires (``delete -port``): no optimisation runs after it, so
every cell stays; nextpnr sees nets with no driver (the inputs) or no load (the outputs), and
times the paths between flip-flops, block RAMs and DSPs, with the clock net unrouted (no
global clock network, no IO timing).

Yosys 0.70's ``synth_gowin`` maps multipliers onto DSP blocks for the GW1N and GW2A families
only: for GW5A they become LUTs and carry chains, so the DSP count is 0 unless the design
instantiates DSP cells itself.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from .reports import yosys_stat
from .steps import (clean, grouped, place_and_route, pnr_figures, read_command,
                    stat_figures, yosys)
from .tools import SynthError


__all__ = ["GOWIN_TARGETS", "GOWIN_GROUPS", "gowin", "gowin_synthesis"]

# Target name: the Yosys family, the nextpnr device (part number with package and speed
# grade) and the chip database's family.
GOWIN_TARGETS = {
    "gw5a-138": {"yosys_family": "gw5a", "device": "GW5AST-LV138PG484AC1/I0",
                 "family": "GW5AST-138C"},
}
# Gowin primitives counted under each figure (a name ending in * is a prefix).
GOWIN_GROUPS = {
    "lut4": ("LUT1", "LUT2", "LUT3", "LUT4"),
    "ff": ("DFF*",),
    "alu": ("ALU",),
    "widemux": ("MUX2_LUT5", "MUX2_LUT6", "MUX2_LUT7", "MUX2_LUT8"),
    "bsram": ("SP", "SPX9", "SDP", "SDPX9", "SDPB", "SDPX9B", "DP", "DPX9", "DPB", "DPX9B",
              "pROM", "pROMX9"),
    "lutram": ("RAM16S1", "RAM16S2", "RAM16S4", "RAM16SDP1", "RAM16SDP2", "RAM16SDP4"),
    "dsp": ("MULT*", "PADD9", "PADD18", "ALU54D"),
}


def gowin_synthesis(build_dir: Path, verilog: str, top: str,
                    family: str) -> tuple[float, dict[str, int], int, int]:
    """Yosys ``synth_gowin -family FAMILY -noiopads`` of ``verilog`` (a file name in
    ``build_dir``), the top's ports then made internal, into the netlist ``{top}.json``;
    returns Yosys's seconds, the cell counts by type, the number of cells and the number of
    port bits the top had."""
    netlist = f"{top}.json"
    clean(build_dir, netlist, "stat.json", "stat.txt", "multipliers.txt")
    seconds = yosys(build_dir, "gowin.ys", [
        read_command(verilog),
        # The multipliers before mapping (synth_gowin runs proc again, to no effect).
        "proc",
        "tee -q -o multipliers.txt select -count t:$mul",
        f"synth_gowin -top {top} -family {family} -noiopads",
        "tee -q -o stat.txt stat",
        "tee -q -o stat.json stat -json",
        f"delete -port {top}/x:*",
        f"write_json {netlist}",
    ])
    _, cells, num_cells = stat_figures(build_dir, top)
    if not (build_dir / netlist).exists():
        raise SynthError(f"yosys wrote no netlist {build_dir / netlist} "
                         f"(see {build_dir / 'yosys.log'})")
    return seconds, cells, num_cells, _port_bits(build_dir / "stat.json", top)


def _port_bits(stat: Path, top: str) -> int:
    design = yosys_stat(stat, top)
    return int(design.get("num_port_bits", 0))


def gowin(build_dir: Path, verilog: str, top: str, target: str, clock_mhz: float,
          seeds: tuple[int, ...], jobs: int = 1) -> dict:
    """The ``gw5a-138`` figures of :func:`synth.flow.synthesize`."""
    chip = GOWIN_TARGETS[target]
    netlist, routed = f"{top}.json", f"{top}.routed.json"
    clean(build_dir, routed, "report.json")
    yosys_seconds, cells, num_cells, port_bits = gowin_synthesis(
        build_dir, verilog, top, chip["yosys_family"])
    notes = [f"{port_bits} port bits: placed and routed out of context (ports made internal "
             f"after mapping: no IO buffers, no global clock network, no IO timing)"]
    if not any(kind.startswith("MULT") for kind in cells) and _has_multiplier(build_dir):
        notes.append("synth_gowin maps no multiplier onto GW5A DSP blocks: the design's "
                     "multipliers are LUTs and ALUs")

    def arguments(suffix):
        output = f"{top}{suffix}.routed.json"
        return ["--device", chip["device"], "--vopt", f"family={chip['family']}",
                "--json", netlist, "--write", output], output

    start = time.perf_counter()
    runs = place_and_route(build_dir, "nextpnr-himbaechel-gowin", seeds, jobs, clock_mhz,
                           arguments)
    pnr_seconds = time.perf_counter() - start
    figures = grouped(cells, GOWIN_GROUPS)
    figures.update({"device": chip["device"], "part": chip["family"]})
    figures.update(pnr_figures(build_dir, runs, jobs, chip["family"], routed, clock_mhz,
                               notes))
    if figures["lutram"]:
        notes.append(f"nextpnr's table after packing (utilisation_packed; utilisation too when "
                     f"nextpnr did not finish) counts each of the {figures['lutram']:,} LUT "
                     f"RAMs as 8 LUT4 and 8 DFF, and each ALU as a LUT4")
    figures.update({
        "port_bits": port_bits, "out_of_context": True, "cells": cells,
        "num_cells": num_cells, "netlist": netlist,
        "step_seconds": {"yosys": yosys_seconds, "nextpnr": pnr_seconds},
    })
    return figures


def _has_multiplier(build_dir: Path) -> bool:
    """Whether the design had a ``$mul`` cell before mapping (Yosys's ``select -count``)."""
    try:
        text = (build_dir / "multipliers.txt").read_text(errors="replace")
    except OSError:
        return False
    count = re.search(r"(\d+) objects", text)
    return bool(count and int(count[1]) > 0)
