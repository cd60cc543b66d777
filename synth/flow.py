"""The synthesis flows: Verilog in, a dict of area and clock figures out.

* ``ecp5``: Yosys ``synth_ecp5`` (ABC9 mapping, its default), flip-flops right behind block
  RAM read ports moved into the RAMs' output registers (``synth.ecp5_outreg``), then
  nextpnr-ecp5 place and route; cell counts from Yosys ``stat`` less the flip-flops moved,
  utilisation and Fmax from nextpnr's ``--report``.
* ``gw5a-138``: Yosys ``synth_gowin -family gw5a``, then nextpnr-himbaechel-gowin on the
  Gowin GW5AST-138C, out of context (``synth.gowin``); the same figures as ``ecp5``.
* ``generic``: Yosys ``synth`` onto its internal gate library; cell counts.
* ``asic``: Yosys ``synth``, then ``dfflibmap``/``abc`` onto a Liberty standard-cell library
  (OSU 0.18 um by default); chip area, split into sequential and combinational area; with
  OpenSTA installed, the mapped netlist's clock (``synth.sta``: pre-layout, no wire
  parasitics).

Each run writes its scripts, logs and reports into the build folder; the tools run with that
folder as working directory and see only relative paths (see ``synth.tools``).
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

from .ecp5_outreg import absorb_output_registers
from .gowin import GOWIN_TARGETS, gowin
from .reports import liberty_cells
from .sram_model import SRAM_MODEL, access_energy_pj, macro_area_um2
from .sta import (ABC_DELAY_SHARE, Constraints, abc_constraints, abc_script, analyse, sta_version,
                  worst_of_parts)
from .steps import (clean as _clean, grouped, map_in_contexts as _map_in_contexts,
                    place_and_route, pnr_figures, port_bits as _port_bits,
                    read_command as _read_command, stat_figures as _stat_figures,
                    yosys as _yosys)
from .tools import (LibertyNotFound, SynthError, TimeLimitReached, run_tool, time_limit,
                    tool_versions)


__all__ = ["TARGETS", "DEFAULT_LIBERTY", "ECP5_DEVICES", "synthesize", "ecp5_unit_cells"]

TARGETS = ("ecp5", *GOWIN_TARGETS, "generic", "asic")
DEFAULT_LIBERTY = Path("/usr/share/qflow/tech/osu018/osu018_stdcells.lib")
# nextpnr-ecp5 device options (``--85k`` etc.) and the part each one selects.
ECP5_DEVICES = {
    "12k": "LFE5U-12F", "25k": "LFE5U-25F", "45k": "LFE5U-45F", "85k": "LFE5U-85F",
    "um-25k": "LFE5UM-25F", "um-45k": "LFE5UM-45F", "um-85k": "LFE5UM-85F",
    "um5g-25k": "LFE5UM5G-25F", "um5g-45k": "LFE5UM5G-45F", "um5g-85k": "LFE5UM5G-85F",
}
# ECP5 primitives counted under each figure.
_ECP5_GROUPS = {
    "lut4": ("LUT4",),
    "ff": ("TRELLIS_FF",),
    "ccu2c": ("CCU2C",),
    "ebr": ("DP16KD", "PDPW16KD"),
    "lutram": ("TRELLIS_DPR16X4",),
    "dsp": ("MULT18X18D", "MULT9X9D", "ALU54B", "ALU24B"),
}
_TOP_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
# The clock constraint when none is given: nextpnr's for ecp5, the SDC's for asic.
DEFAULT_CLOCK_MHZ = {"ecp5": 100.0, "gw5a-138": 100.0, "asic": 250.0}
NO_STA = "no OpenSTA: area only (apt-get install opensta for the clock)"
_NO_LIBERTY = ("no Liberty file found: install Debian's qflow-tech-osu018 "
               "(apt-get install qflow-tech-osu018) or pass --liberty FILE")


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def _stage(source: Path, build_dir: Path, name: str | None = None) -> str:
    """Make ``source`` visible to the tools as a file in ``build_dir``; return its name there."""
    name = _safe_name(name or source.name)
    target = build_dir / name
    if not (target.exists() and target.resolve() == source.resolve()):
        shutil.copyfile(source, target)
    return name


def _ecp5(build_dir: Path, verilog: str, top: str, device: str, package: str,
          clock_mhz: float, seeds: tuple[int, ...], jobs: int = 1) -> dict:
    netlist, textcfg = f"{top}.json", f"{top}.config"
    _clean(build_dir, textcfg, "report.json")
    yosys_seconds, cells, num_cells = ecp5_synthesis(build_dir, verilog, top)
    notes = []
    absorbed = _absorb_bram_registers(build_dir / netlist, top)
    if absorbed:
        cells["TRELLIS_FF"] = cells.get("TRELLIS_FF", 0) - absorbed
        num_cells -= absorbed
        notes.append(f"{absorbed} flip-flops behind block RAM read ports moved into the RAMs' "
                     f"output registers (REGMODE OUTREG)")
    port_bits = _port_bits(build_dir / netlist, top)
    # A core whose ports outnumber any package's pins (a 512-bit memory port, say) is placed
    # out of context, as a block inside a larger design would be.
    out_of_context = port_bits > OUT_OF_CONTEXT_PORT_BITS
    if out_of_context:
        notes.append(f"{port_bits} port bits: placed and routed out of context (no IO "
                     f"buffers, no global clock network)")
    kept = f"{top}.routed.json" if out_of_context else textcfg

    # router2: router1 (nextpnr-ecp5's default) had 20,915 of 173,347 arcs of DepGraph's ecp5
    # preset still to route after 2,606 s; router2 routed them in 127 s (issue 51).
    def arguments(suffix):
        output = f"{top}{suffix}.routed.json" if out_of_context else f"{top}{suffix}.config"
        return [f"--{device}", "--package", package, "--json", netlist, "--router", "router2",
                *(["--out-of-context", "--write", output] if out_of_context
                  else ["--textcfg", output])], output

    pnr_start = time.perf_counter()
    runs = place_and_route(build_dir, "nextpnr-ecp5", seeds, jobs, clock_mhz, arguments)
    pnr_seconds = time.perf_counter() - pnr_start
    figures = grouped(cells, _ECP5_GROUPS)
    figures.update({"device": device, "part": ECP5_DEVICES[device], "package": package})
    figures.update(pnr_figures(build_dir, runs, jobs, ECP5_DEVICES[device], kept, clock_mhz,
                               notes))
    figures.update({
        "port_bits": port_bits, "out_of_context": out_of_context,
        "cells": cells, "num_cells": num_cells, "netlist": netlist, "textcfg": textcfg,
        "step_seconds": {"yosys": yosys_seconds, "nextpnr": pnr_seconds},
    })
    return figures


OUT_OF_CONTEXT_PORT_BITS = 300


def _ecp5_units(build_dir: Path, verilog: str, top: str) -> dict:
    """Each top-level unit's ECP5 cells (a unit with everything below it), from a second
    ``synth_ecp5 -noflatten`` in ``build_dir/units``: no optimisation across module
    boundaries, so its totals differ a little from the flat run's."""
    folder = build_dir / "units"
    folder.mkdir(exist_ok=True)
    source = _stage(build_dir / verilog, folder)
    _clean(folder, "stat.json")
    seconds = _yosys(folder, "ecp5_units.ys", [
        _read_command(source), f"synth_ecp5 -top {top} -noflatten",
        "tee -q -o stat.json stat -json"])
    from .reports import read_json
    modules = {name.lstrip("\\"): body.get("num_cells_by_type", {})
               for name, body in read_json(folder / "stat.json", "Yosys statistics")
               .get("modules", {}).items()}
    totals: dict[str, dict[str, int]] = {}

    def subtree(name: str) -> dict[str, int]:
        if name not in totals:
            counts: dict[str, int] = {}
            for kind, count in modules[name].items():
                kind = kind.lstrip("\\")
                inner = subtree(kind) if kind in modules else {kind: 1}
                for cell, n in inner.items():
                    counts[cell] = counts.get(cell, 0) + n * int(count)
            totals[name] = counts
        return totals[name]

    if top not in modules:
        raise SynthError(f"{folder / 'stat.json'} holds no module {top}")

    whole = grouped(subtree(top), _ECP5_GROUPS)
    units = {}
    own = {}
    for kind, count in modules[top].items():
        kind = kind.lstrip("\\")
        if kind in modules:
            unit = units.setdefault(kind.removeprefix(f"{top}."), {g: 0 for g in whole})
            for group, n in grouped(subtree(kind), _ECP5_GROUPS).items():
                unit[group] += n * int(count)
        else:
            own[kind] = own.get(kind, 0) + int(count)
    units["(top)"] = grouped(own, _ECP5_GROUPS)
    for unit in units.values():
        unit["share_lut4"] = unit["lut4"] / whole["lut4"] if whole["lut4"] else 0.0
    return {"units": dict(sorted(units.items(), key=lambda item: -item[1]["lut4"])),
            "units_total": whole, "units_seconds": seconds}


def ecp5_unit_cells(verilog_path: Path, top: str, build_dir: Path, *,
                    time_limit_s: float | None = None) -> dict:
    """Each top-level unit's ECP5 cells with no place and route: the ``units``,
    ``units_total`` and ``units_seconds`` of :func:`synthesize`'s ``ecp5`` per-unit figures
    (one ``synth_ecp5 -noflatten`` in ``build_dir/units``), with ``target``, ``top``,
    ``tool_versions`` and ``build_dir``. :class:`SynthError` as :func:`synthesize`."""
    if not isinstance(top, str) or not _TOP_NAME.match(top):
        raise SynthError(f"bad top module name {top!r}")
    verilog_path, build_dir = Path(verilog_path), Path(build_dir)
    if not verilog_path.is_file():
        raise SynthError(f"Verilog file {verilog_path} not found")
    build_dir.mkdir(parents=True, exist_ok=True)
    verilog = _stage(verilog_path, build_dir)
    with time_limit(time_limit_s):
        figures = _ecp5_units(build_dir, verilog, top)
    return {"target": "ecp5", "top": top, **figures,
            "tool_versions": tool_versions("yosys"), "build_dir": str(build_dir)}


def ecp5_synthesis(build_dir: Path, verilog: str, top: str) -> tuple[float, dict[str, int], int]:
    """Yosys ``synth_ecp5`` of ``verilog`` (a file name in ``build_dir``) into the netlist
    ``{top}.json``, before the output-register rewrite; returns Yosys's seconds, the cell
    counts by type and the number of cells (from ``stat``). Shared by the ECP5 flow and the
    post-synthesis netlist (``synth.postsynth``)."""
    netlist = f"{top}.json"
    _clean(build_dir, netlist, "stat.json", "stat.txt")
    yosys_seconds = _yosys(build_dir, "ecp5.ys", [
        _read_command(verilog),
        f"synth_ecp5 -top {top} -json {netlist}",
        "tee -q -o stat.txt stat",
        "tee -q -o stat.json stat -json",
    ])
    _, cells, num_cells = _stat_figures(build_dir, top)
    if not (build_dir / netlist).exists():
        raise SynthError(f"yosys wrote no netlist {build_dir / netlist} "
                         f"(see {build_dir / 'yosys.log'})")
    return yosys_seconds, cells, num_cells


def _absorb_bram_registers(netlist: Path, top: str, rewrite=None) -> int:
    """Rewrite Yosys's netlist for nextpnr with :func:`absorb_output_registers` (or
    ``rewrite``, a function of the same form); the cell counts of ``stat`` are from before."""
    import json
    design = json.loads(netlist.read_text())
    absorbed = (rewrite or absorb_output_registers)(design, top)
    if absorbed:
        netlist.write_text(json.dumps(design))
    return absorbed


def _generic(build_dir: Path, verilog: str, top: str) -> dict:
    _clean(build_dir, "stat.json", "stat.txt")
    seconds = _yosys(build_dir, "generic.ys", [
        _read_command(verilog),
        f"synth -top {top}",
        "tee -q -o stat.txt stat",
        "tee -q -o stat.json stat -json",
    ])
    _, cells, num_cells = _stat_figures(build_dir, top)
    return {"cells": cells, "num_cells": num_cells, "reports": ["stat.json"],
            "logs": ["yosys.log"], "step_seconds": {"yosys": seconds}, "notes": []}


# Memories deeper than this stay whole, as SRAM macros outside the standard-cell logic (a
# Liberty file has no RAM); shallower ones (the FIFOs between stages) become flip-flops.
MACRO_MIN_DEPTH = 65

# The macros' area is a model, not a measurement (synth.sram_model: its constants and their
# published sources), at the Liberty file's node.
ASIC_NODE_NM = 180.0


def _asic(build_dir: Path, verilog: str, top: str, liberty: Path,
          blackboxes: str | None = None, constraints: Constraints = Constraints(),
          sta: bool = False, prefix: str = "") -> dict:
    """ASIC synthesis of ``top``; ``blackboxes`` names a Verilog file in ``build_dir`` whose
    modules are read as black boxes (no area), as the per-unit flow's glue parts need.

    ABC maps for delay at ``constraints.period_ns`` (``synth.sta.abc_script``) and buffers
    and sizes the cells for the load (``abc -D -constr``): without it a net of a thousand
    loads (a wide FIFO's write enable) is driven by one NOR2X1, hundreds of ns. With
    ``sta``, the mapped netlist (less the SRAM macros and black boxes, which have no timing)
    is written to ``mapped.v`` and timed by OpenSTA (``synth.sta``; ``prefix``: the
    hierarchical name of ``top`` in the design, for the names reported) as
    ``asic_timing``."""
    lib = _stage(liberty, build_dir)
    _clean(build_dir, "stat.json", "stat.txt", "memories.txt", "mapped.v")
    (build_dir / "abc.constr").write_text(abc_constraints(build_dir / lib, constraints))
    keep = f"t:$mem_v2 r:SIZE>={MACRO_MIN_DEPTH} %i"
    seconds = _yosys(build_dir, "asic.ys", [
        *([f"read_verilog -lib {blackboxes}"] if blackboxes else []),
        _read_command(verilog),
        f"synth -top {top} -flatten -run begin:fine",
        f"tee -q -o memories.txt dump {keep}",
        # A cell type no map knows survives techmap and the mapping to the library.
        f"chtype -set $__graphgen_sram_macro {keep}",
        "opt -fast -full",
        "memory_map",
        "techmap",
        "opt -fast",
        f"dfflibmap -liberty {lib}",
        f"abc -D {round(constraints.period_ns * 1e3)} -constr abc.constr -liberty {lib} "
        f"-script {abc_script(constraints)}",
        "opt_clean",
        f"tee -q -o stat.txt stat -liberty {lib}",
        f"tee -q -o stat.json stat -liberty {lib} -json",
        *([] if not sta else [
            # What has no timing model goes (after the area is counted): the SRAM macros,
            # the black boxes, the hierarchy notes flatten left. OpenSTA's Verilog reader
            # takes no concatenation left of an assign (-simple-lhs).
            "delete t:$__graphgen_sram_macro t:$scopeinfo =A:blackbox %C",
            "write_verilog -noattr -simple-lhs mapped.v"]),
    ])
    design, cells, num_cells = _stat_figures(build_dir, top)
    library = liberty_cells(build_dir / lib)
    boxed = _module_names(build_dir / blackboxes) if blackboxes else set()
    for kind in [kind for kind in cells if kind.lstrip("\\") in boxed]:
        num_cells -= cells.pop(kind)
    unmapped = sorted(kind for kind in cells
                      if kind not in library and kind.lstrip("\\") not in boxed
                      and kind not in ("$__graphgen_sram_macro", "$scopeinfo"))
    macros = _memory_macros(build_dir / "memories.txt")
    own_area = sum(count * library[kind]["area"] for kind, count in cells.items()
                   if kind in library)
    own_seq = sum(count * library[kind]["area"] for kind, count in cells.items()
                  if kind in library and library[kind]["sequential"])
    area = float(design["area"]) if "area" in design else own_area
    area_seq = float(design["sequential_area"]) if "sequential_area" in design else own_seq
    notes = []
    if unmapped:
        notes.append(f"cells not in the Liberty file, counted with no area: {', '.join(unmapped)}")
    zero = sorted(kind for kind in cells if kind in library and library[kind]["area"] == 0)
    if zero:
        notes.append(f"cells with area 0 in the Liberty file: {', '.join(zero)}")
    macro_area = sum(macro["area_um2_model"] for macro in macros)
    if macros:
        notes.append(f"{len(macros)} memories of {MACRO_MIN_DEPTH}+ words kept as SRAM macros: "
                     f"their area is a model (synth/sram_model.py at {ASIC_NODE_NM:g} nm), "
                     f"the logic area is from the Liberty file")
    figures = {}
    if sta:
        figures["asic_timing"] = analyse(build_dir, "mapped.v", top, lib, constraints, prefix)
    return {**figures, "area_um2": area, "area_seq_um2": area_seq,
            "area_comb_um2": area - area_seq,
            "area_logic_um2": area,
            "memories": macros, "memory_bits": sum(macro["bits"] for macro in macros),
            "area_memory_um2_model": macro_area, "sram_model": dict(SRAM_MODEL),
            "area_total_um2_with_model": area + macro_area,
            "num_cells": num_cells,
            "num_seq_cells": sum(count for kind, count in cells.items()
                                 if kind in library and library[kind]["sequential"]),
            "cells": cells, "unmapped_cells": unmapped, "liberty": str(liberty),
            "reports": ["stat.json"],
            "logs": ["yosys.log"] + (["sta.log"] if sta else []),
            "step_seconds": {"yosys": seconds} | (
                {"sta": figures["asic_timing"]["seconds"]} if sta else {}),
            "notes": notes}


def _module_names(path: Path) -> set[str]:
    from .units import split_modules
    return set(split_modules(path.read_text())[1])


def _asic_per_unit(build_dir: Path, verilog: str, top: str, liberty: Path, jobs: int,
                   constraints: Constraints = Constraints(), sta: bool = False) -> dict:
    """ASIC synthesis unit by unit (``synth.units``): each part in its own Yosys run, ``jobs``
    at a time, in ``build_dir/units/<part>``; the figures are their sums, with ``units``
    giving each top-level unit's area and share. With ``sta``, each part is timed apart
    by OpenSTA and ``asic_timing`` gives the worst part's path (``synth.sta.worst_of_parts``):
    paths between parts are not analysed."""
    from .units import MAX_UNIT_BYTES, plan_parts
    parts = plan_parts((build_dir / verilog).read_text(), top)

    def run(part):
        folder = build_dir / "units" / _safe_name(part.name)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "part.v").write_text(part.verilog)
        boxes = None
        if part.blackboxes:
            (folder / "blackboxes.v").write_text(part.blackboxes)
            boxes = "blackboxes.v"
        return _asic(folder, "part.v", part.top, liberty, boxes, constraints, sta,
                     part.name.removeprefix(top).removeprefix("."))

    results = _map_in_contexts(run, parts, jobs)
    summed = ("area_um2", "area_seq_um2", "area_comb_um2", "area_logic_um2",
              "area_memory_um2_model", "area_total_um2_with_model", "memory_bits",
              "num_cells", "num_seq_cells")
    figures = {key: sum(result[key] for result in results) for key in summed}
    cells: dict[str, int] = {}
    units: dict[str, dict] = {}
    memories, unmapped = [], set()
    for part, result in zip(parts, results):
        for kind, count in result["cells"].items():
            cells[kind] = cells.get(kind, 0) + count
        unit = units.setdefault(part.unit, {key: 0 for key in summed} | {"parts": []})
        for key in summed:
            unit[key] += result[key]
        unit["parts"].append(part.name)
        memories += [dict(memory, name=f"{part.name}:{memory['name']}")
                     for memory in result["memories"]]
        unmapped.update(result["unmapped_cells"])
    total = figures["area_total_um2_with_model"]
    for unit in units.values():
        unit["share"] = unit["area_total_um2_with_model"] / total if total else 0.0
    notes = [f"per-unit synthesis: {len(parts)} Yosys runs (each submodule of {top} with "
             f"all below it, a unit over {MAX_UNIT_BYTES / 1e6:g} MB of Verilog cut again; "
             f"each module's own logic with its submodules as black boxes); no optimisation "
             f"across unit boundaries, the area is the sum"]
    if unmapped:
        notes.append(f"cells not in the Liberty file, counted with no area: "
                     f"{', '.join(sorted(unmapped))}")
    if memories:
        notes.append(f"{len(memories)} memories of {MACRO_MIN_DEPTH}+ words kept as SRAM "
                     f"macros: their area is a model (synth/sram_model.py at "
                     f"{ASIC_NODE_NM:g} nm), the logic area is from the Liberty file")
    if sta:
        clock = worst_of_parts({part.name: result["asic_timing"]
                                for part, result in zip(parts, results)},
                               {part.name: part.unit for part in parts})
        figures["asic_timing"] = clock
        for unit, entry in clock["units"].items():
            units[unit]["fmax_mhz"] = entry["fmax_mhz"]
        if memories:
            clock["notes"].append(f"paths into and out of the {len(memories)} SRAM macros "
                                  f"are not timed (no timing model)")
    return {**figures, "cells": cells, "units": dict(sorted(
                units.items(), key=lambda item: -item[1]["area_total_um2_with_model"])),
            "memories": memories, "sram_model": dict(SRAM_MODEL),
            "unmapped_cells": sorted(unmapped), "liberty": str(liberty), "per_unit": True,
            "reports": [f"units/{_safe_name(part.name)}/stat.json" for part in parts],
            "logs": [f"units/{_safe_name(part.name)}/{log}" for part in parts
                     for log in ("yosys.log", "sta.log")[:2 if sta else 1]],
            "step_seconds": {step: sum(r["step_seconds"][step] for r in results)
                             for step in ("yosys", "sta")[:2 if sta else 1]},
            "notes": notes}


def _memory_macros(path: Path) -> list[dict]:
    """The memories listed by ``dump`` in ``path``, with their modelled area."""
    macros = []
    if not path.is_file():
        return macros
    for block in path.read_text().split("cell $mem_v2 ")[1:]:
        params = dict(re.findall(r"parameter \\(\w+) (\S+)", block))
        depth, width = int(params["SIZE"]), int(params["WIDTH"])
        # A read and a write port share one read/write port of a macro.
        ports = max(int(params["RD_PORTS"]), int(params["WR_PORTS"]))
        macros.append({"name": block.split()[0], "depth": depth, "width": width,
                       "read_ports": int(params["RD_PORTS"]),
                       "write_ports": int(params["WR_PORTS"]), "bits": depth * width,
                       "area_um2_model": macro_area_um2(depth, width, ports=ports,
                                                        node_nm=ASIC_NODE_NM),
                       "access_energy_pj_model": access_energy_pj(depth, width,
                                                                  node_nm=ASIC_NODE_NM)})
    return macros


def _find_liberty(liberty: Path | None) -> Path:
    if liberty is None:
        if not DEFAULT_LIBERTY.is_file():
            raise LibertyNotFound(_NO_LIBERTY)
        return DEFAULT_LIBERTY
    liberty = Path(liberty)
    if not liberty.is_file():
        raise LibertyNotFound(f"Liberty file {liberty} not found: pass an existing file with "
                              f"--liberty, or install Debian's qflow-tech-osu018 "
                              f"(apt-get install qflow-tech-osu018) for the default")
    return liberty


def synthesize(verilog_path: Path, top: str, target: str, build_dir: Path, *,
               liberty: Path | None = None, ecp5_device: str = "85k",
               ecp5_package: str = "CABGA381", clock_mhz: float | None = None,
               seed: int = 1, seeds: int = 1, per_unit: bool = False,
               jobs: int | None = None, time_limit_s: float | None = None,
               sta: bool = True) -> dict:
    """Synthesize module ``top`` of ``verilog_path`` for ``target`` (one of :data:`TARGETS`).

    All scripts, logs and reports go into ``build_dir`` (created if needed). Returns a
    JSON-serialisable dict of figures with the common keys ``target``, ``top``,
    ``tool_versions``, ``logs`` (relative to ``build_dir``), ``build_dir``, ``wall_seconds``,
    ``step_seconds`` and ``notes``, plus per target:

    * ``ecp5``: ``lut4``, ``ff``, ``ccu2c``, ``ebr``, ``lutram``, ``dsp``, ``cells``,
      ``utilisation`` (``{bel: {"used", "available"}}``; ``utilisation_packed``: the table
      nextpnr logs after packing), ``fmax_mhz`` (lowest achieved Fmax
      over the clock domains, ``None`` without a clock), ``fmax_by_clock``, ``timing_met``,
      ``device``, ``part``, ``package``, ``clock_mhz``, ``seed`` (the placement seed
      reported: the best of ``seed`` .. ``seed + seeds - 1``, placed and routed ``jobs`` at a
      time, by default one per core), ``seeds``, ``fmax_by_seed``; ``fits`` (False when the
      design needs more of a bel type than the device has: ``overflow`` names them from
      nextpnr's utilisation table, and there is no Fmax); ``stopped`` (when ``time_limit_s``
      stopped nextpnr: how far it got, :func:`synth.reports.nextpnr_log_progress`, and there
      is no Fmax; empty otherwise); ``critical_path`` (the slowest clock's critical path:
      ``start``, ``end``, ``delay_ns``, ..., :func:`synth.reports.nextpnr_critical_path`);
    * ``gw5a-138`` (``synth.gowin``): as ``ecp5`` (``seeds``, ``fits``, ``stopped``,
      ``critical_path``, ...), with the Gowin counts ``lut4`` (LUT1-LUT4), ``ff`` (DFF*),
      ``alu``, ``widemux`` (MUX2_LUT5-8), ``bsram``, ``lutram``, ``dsp``; always placed out of
      context;
    * ``generic``: ``cells`` (type → count), ``num_cells``;
    * ``asic``: ``area_um2``, ``area_seq_um2`` (flip-flops and latches), ``area_comb_um2``,
      ``num_cells``, ``cells``, ``liberty`` (the file used; :data:`DEFAULT_LIBERTY` when
      ``liberty`` is None, :class:`LibertyNotFound` if absent); with ``per_unit``, the
      design is synthesized unit by unit (``synth.units``, ``jobs`` Yosys runs at a time, by
      default one per core) and ``units`` gives each top-level unit's figures and share;
      ``asic_timing``: with ``sta`` and OpenSTA installed, the mapped netlist's timing
      (:func:`synth.sta.analyse`: ``min_period_ns``, ``fmax_mhz``, the worst
      register-to-register path's ``start``, ``end``, ``start_block``, ``end_block``, the
      worst port paths, ``basis`` "pre-layout, no wire parasitics", ``sta_version``) with
      the clock at ``clock_mhz``; per unit, each part is timed apart and the worst part is
      reported (:func:`synth.sta.worst_of_parts`), each unit's Fmax in ``units``. Without
      OpenSTA, ``asic_timing`` is None and a note says so.

    ``clock_mhz``: the clock constraint, nextpnr's for ``ecp5`` and the SDC's for ``asic``
    (default :data:`DEFAULT_CLOCK_MHZ` for the target).

    ``time_limit_s``: the tool runs stop after that many seconds in all (a
    :class:`SynthError` saying so).

    Raises :class:`SynthError` (one line) for an unknown target or device, a missing Verilog
    file, or a failing tool (naming the log's first ERROR line and the log's path).
    """
    start = time.perf_counter()
    if target not in TARGETS:
        raise SynthError(f"unknown synthesis target {target!r}: expected one of "
                         f"{', '.join(TARGETS)}")
    if not isinstance(top, str) or not _TOP_NAME.match(top):
        raise SynthError(f"bad top module name {top!r}")
    verilog_path = Path(verilog_path)
    if not verilog_path.is_file():
        raise SynthError(f"Verilog file {verilog_path} not found")
    device = str(ecp5_device).lower().removeprefix("--")
    if clock_mhz is None:
        clock_mhz = DEFAULT_CLOCK_MHZ.get(target, DEFAULT_CLOCK_MHZ["ecp5"])
    if (target in ("ecp5", "asic") or target in GOWIN_TARGETS) and \
            not (isinstance(clock_mhz, (int, float)) and 0 < clock_mhz < float("inf")):
        raise SynthError(f"clock_mhz must be positive, got {clock_mhz}")
    if target == "ecp5" and device not in ECP5_DEVICES:
        raise SynthError(f"unknown ECP5 device {ecp5_device!r}: expected one of "
                         f"{', '.join(ECP5_DEVICES)}")
    if target == "ecp5" or target in GOWIN_TARGETS:
        if not (isinstance(seeds, int) and seeds >= 1):
            raise SynthError(f"seeds must be a positive number of placement seeds, got {seeds!r}")
    if per_unit and target not in ("asic", "ecp5"):
        raise SynthError(f"per-unit synthesis is built for the asic and ecp5 targets, not "
                         f"{target}")
    library = _find_liberty(liberty) if target == "asic" else None
    build_dir = Path(build_dir)
    try:
        build_dir.mkdir(parents=True, exist_ok=True)
        verilog = _stage(verilog_path, build_dir)
    except OSError as error:
        raise SynthError(f"cannot prepare build folder {build_dir}: {error}") from None

    with time_limit(time_limit_s):
        figures, tools = _run_target(target, build_dir, verilog, top, library, device,
                                     ecp5_package, clock_mhz, seed, seeds, per_unit, jobs,
                                     sta)
    return {"target": target, "top": top, **figures,
            "tool_versions": tool_versions(*tools), "build_dir": str(build_dir),
            "wall_seconds": time.perf_counter() - start}


def _run_target(target, build_dir, verilog, top, library, device, ecp5_package, clock_mhz,
                seed, seeds, per_unit, jobs, sta):
    jobs = jobs or os.cpu_count() or 1
    if target == "ecp5":
        figures = _ecp5(build_dir, verilog, top, device, ecp5_package, float(clock_mhz),
                        tuple(range(seed, seed + seeds)), jobs)
        if per_unit and figures["stopped"]:
            # The time limit is spent: a second Yosys run would only be stopped too.
            figures["notes"].append("per unit: not run (the time limit stopped nextpnr)")
        elif per_unit:
            figures.update(_ecp5_units(build_dir, verilog, top))
            figures["notes"].append("per unit: a second synth_ecp5 -noflatten, each top-level "
                                    "unit with everything below it; no optimisation across "
                                    "units, so its totals (units_total) differ a little from "
                                    "the flat run's")
        tools = ("yosys", "nextpnr-ecp5")
    elif target in GOWIN_TARGETS:
        figures = gowin(build_dir, verilog, top, target, float(clock_mhz),
                        tuple(range(seed, seed + seeds)), jobs)
        tools = ("yosys", "nextpnr-himbaechel-gowin")
    elif target == "generic":
        figures = _generic(build_dir, verilog, top)
        tools = ("yosys",)
    else:
        assert library is not None
        constraints = Constraints(period_ns=1e3 / clock_mhz)
        timed = bool(sta and sta_version())
        if per_unit:
            figures = _asic_per_unit(build_dir, verilog, top, library, jobs, constraints,
                                     timed)
        else:
            figures = _asic(build_dir, verilog, top, library, constraints=constraints,
                            sta=timed)
            if timed and figures["memories"]:
                figures["asic_timing"]["notes"].append(
                    f"paths into and out of the {len(figures['memories'])} SRAM macros are "
                    f"not timed (no timing model)")
        figures["clock_mhz"] = clock_mhz
        figures["notes"].append(f"ABC mapped for a {constraints.period_ns:g} ns clock "
                                f"({clock_mhz:g} MHz), buffering and sizing cells for the load "
                                f"(abc -D -constr, ABC's map for {ABC_DELAY_SHARE:g} of the "
                                f"period)")
        if not timed:
            figures["asic_timing"] = None
            if sta:
                figures["notes"].append(NO_STA)
        tools = ("yosys", "sta") if timed else ("yosys",)
    return figures, tools
