"""Parsing the tools' reports (Yosys ``stat -json``, nextpnr ``--report``, Liberty cell areas)
and printing the figures as a small table."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .tools import SynthError


__all__ = ["read_json", "yosys_stat", "nextpnr_report", "nextpnr_critical_path",
           "nextpnr_log_utilisation",
           "nextpnr_log_progress", "overflow_text", "stopped_text", "clock_name",
           "liberty_cells", "liberty_pins", "format_table"]


def read_json(path: Path, what: str) -> dict:
    """Load a JSON report, raising :class:`SynthError` if the tool did not write it."""
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise SynthError(f"no {what} written: {path} is missing") from None
    except (OSError, ValueError) as error:
        raise SynthError(f"cannot read {what} {path}: {error}") from None


def yosys_stat(path: Path, top: str) -> dict:
    """The whole-design section of a Yosys ``stat -json`` report.

    Recent Yosys gives a ``design`` section summed over the hierarchy; older ones only give
    ``modules``, of which the top is taken.
    """
    stat = read_json(path, "Yosys statistics")
    if "design" in stat:
        return stat["design"]
    modules = stat.get("modules", {})
    for name in (f"\\{top}", top):
        if name in modules:
            return modules[name]
    raise SynthError(f"{path} holds no statistics for module {top}")


def clock_name(net: str) -> str:
    """A readable clock name from nextpnr's global net name (``$glbnet$clk$TRELLIS_IO_IN``)."""
    name = re.sub(r"^\$glbnet\$", "", net)
    return re.sub(r"\$TRELLIS_IO_IN$", "", name) or net


def nextpnr_report(path: Path) -> tuple[dict[str, float], dict[str, dict[str, int]]]:
    """``(fmax, utilisation)`` from a nextpnr ``--report`` JSON file: achieved Fmax in MHz per
    clock, and ``{"used": n, "available": m}`` per bel type."""
    report = read_json(path, "nextpnr report")
    fmax = {clock_name(net): float(entry["achieved"])
            for net, entry in report.get("fmax", {}).items() if "achieved" in entry}
    utilisation = {bel: {"used": int(entry.get("used", 0)),
                         "available": int(entry.get("available", 0))}
                   for bel, entry in report.get("utilization", {}).items()}
    return fmax, utilisation


def nextpnr_critical_path(path: Path) -> dict | None:
    """The slowest of the critical paths in a nextpnr ``--report`` JSON file (one per clock
    domain), or None without one: ``start`` and ``end`` (``cell.port``), ``start_net`` and
    ``end_net`` (its first and last routed nets), ``delay_ns`` (its whole delay),
    ``logic_ns``, ``routing_ns`` and ``logic_steps``."""
    best = None
    for entry in read_json(path, "nextpnr report").get("critical_paths", []):
        steps = entry.get("path", [])
        if not steps:
            continue
        delay = sum(float(step.get("delay", 0.0)) for step in steps)
        if best is None or delay > best[0]:
            best = (delay, steps)
    if best is None:
        return None
    delay, steps = best

    def end(point: dict) -> str:
        return f"{point.get('cell')}.{point.get('port')}"

    nets = [step["net"] for step in steps if step.get("type") == "routing" and "net" in step]
    kinds = [step.get("type") for step in steps]
    return {"start": end(steps[0]["from"]), "end": end(steps[-1]["to"]),
            "start_net": nets[0] if nets else None, "end_net": nets[-1] if nets else None,
            "delay_ns": delay,
            "logic_ns": sum(float(step.get("delay", 0.0)) for step in steps
                            if step.get("type") != "routing"),
            "routing_ns": sum(float(step.get("delay", 0.0)) for step in steps
                              if step.get("type") == "routing"),
            "logic_steps": kinds.count("logic")}


_UTILISATION_ROW = re.compile(r"^Info:\s+(?P<bel>\w+):\s+(?P<used>\d+)/\s*(?P<available>\d+)\s")


def nextpnr_log_utilisation(path: Path) -> dict[str, dict[str, int]]:
    """``{bel: {"used": n, "available": m}}`` from the "Device utilisation" table nextpnr
    prints to its log after packing; empty if the log has none.

    nextpnr writes no ``--report`` when placement fails, so a design that does not fit the
    device is known only from this table.
    """
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return {}
    utilisation: dict[str, dict[str, int]] = {}
    inside = False
    for line in lines:
        if line.startswith("Info: Device utilisation:"):
            inside = True
            continue
        if inside:
            row = _UTILISATION_ROW.match(line)
            if row is None:
                break
            utilisation[row["bel"]] = {"used": int(row["used"]),
                                       "available": int(row["available"])}
    return utilisation


_MAX_FREQUENCY = re.compile(r"^Info: Max frequency for clock '(?P<clock>[^']+)': "
                            r"(?P<mhz>[0-9.]+) MHz")
_ROUTING_ARCS = re.compile(r"^Info: Routing (?P<arcs>\d+) arcs\.")
# router1's progress rows: iterations | rerouted with, without ripup | delta | remaining arcs |
_ROUTER1_ROW = re.compile(r"^Info:\s+\d+ \|\s+\d+\s+\d+ \|\s+\d+\s+\d+ \|\s+(?P<left>\d+)\|")
# router2's: its iteration, the wires in use and how many of them more than one net uses.
_ROUTER2_ROW = re.compile(r"^Info:\s+iter=(?P<iteration>\d+) wires=\d+ overused=(?P<overused>\d+)")


def nextpnr_log_progress(path: Path) -> dict:
    """How far a nextpnr-ecp5 run that was stopped got, from its log: ``stage`` (``packing``,
    ``placement``, ``routing``, or None without a log), ``placed_fmax_mhz`` (the timing
    estimate printed after placement, the slowest clock's; None before it), ``arcs`` (arcs to
    route) and ``arcs_left`` (router1's last count of arcs still to route), or router2's
    last ``iteration`` and its ``overused`` wires."""
    progress = {"stage": None, "placed_fmax_mhz": None, "arcs": None, "arcs_left": None}
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return progress
    placed: dict[str, float] = {}
    for line in lines:
        if line.startswith("Info: Packing") or line.startswith("Info: Device utilisation"):
            progress["stage"] = progress["stage"] or "packing"
        elif line.startswith("Info: Placed ") or "placer" in line.lower():
            if progress["stage"] != "routing":
                progress["stage"] = "placement"
        elif line.startswith("Info: Routing") or line.startswith("Info: Running router2"):
            progress["stage"] = "routing"
        frequency = _MAX_FREQUENCY.match(line)
        if frequency and progress["stage"] != "routing":
            placed[clock_name(frequency["clock"])] = float(frequency["mhz"])
        arcs = _ROUTING_ARCS.match(line)
        if arcs:
            progress["arcs"] = progress["arcs_left"] = int(arcs["arcs"])
        row = _ROUTER1_ROW.match(line)
        if row and progress["stage"] == "routing":
            progress["arcs_left"] = int(row["left"])
        row2 = _ROUTER2_ROW.match(line)
        if row2:
            progress.update(iteration=int(row2["iteration"]), overused=int(row2["overused"]))
    if placed:
        progress["placed_fmax_mhz"] = min(placed.values())
    return progress


_STAGE_WORDS = {"packing": "packing", "placement": "placing", "routing": "routing"}


def stopped_text(progress: dict) -> str:
    """A stopped nextpnr run in one line: ``"stopped at the time limit while routing
    (placement's estimate 14.9 MHz; 223,505 of 296,446 arcs left)"``."""
    doing = _STAGE_WORDS.get(progress.get("stage"), "starting")
    text = f"stopped at the time limit while {doing}"
    details = []
    if progress.get("placed_fmax_mhz") is not None:
        details.append(f"placement's estimate {progress['placed_fmax_mhz']:.1f} MHz")
    if progress.get("arcs_left") is not None and progress.get("arcs"):
        details.append(f"{progress['arcs_left']:,} of {progress['arcs']:,} arcs left")
    if progress.get("iteration") is not None:
        details.append(f"router2 iteration {progress['iteration']}, "
                       f"{progress['overused']:,} wires overused")
    return text + (f" ({'; '.join(details)})" if details else "")


def overflow_text(overflow: dict[str, dict[str, int]]) -> str:
    """What a design needs beyond the device, one line: ``"DP16KD 392 of 208"``."""
    return ", ".join(f"{bel} {entry['used']:,} of {entry['available']:,}"
                     for bel, entry in overflow.items())


_LIBERTY_TOKEN = re.compile(
    r"(?P<group>\w+)\s*\((?P<arg>[^)]*)\)\s*\{"      # group header:  cell (NAME) {
    r"|(?P<close>\})"                                 # group end
    r'|(?P<attr>\w+)\s*:\s*(?P<value>"[^"]*"|[^;{}]*);')  # simple attribute: area : 96;
_SEQUENTIAL_GROUPS = {"ff", "latch", "ff_bank", "latch_bank", "statetable"}


def liberty_cells(path: Path) -> dict[str, dict]:
    """Cells of a Liberty file: ``{name: {"area": float, "sequential": bool}}``.

    A cell is sequential when it holds an ``ff``, ``latch`` (or ``*_bank``, ``statetable``)
    group. Only what area figures need is read; complex attributes are skipped.
    """
    text = _liberty_text(path)
    cells: dict[str, dict] = {}
    stack: list[str] = []
    cell: str | None = None
    cell_depth = 0
    for match in _LIBERTY_TOKEN.finditer(text):
        if match["group"]:
            stack.append(match["group"])
            if match["group"] == "cell" and cell is None:
                cell = match["arg"].strip().strip('"')
                cell_depth = len(stack)
                cells[cell] = {"area": 0.0, "sequential": False}
            elif cell is not None and match["group"] in _SEQUENTIAL_GROUPS:
                cells[cell]["sequential"] = True
        elif match["close"]:
            if stack:
                stack.pop()
            if cell is not None and len(stack) < cell_depth:
                cell = None
        elif cell is not None and match["attr"] == "area" and len(stack) == cell_depth:
            try:
                cells[cell]["area"] = float(match["value"].strip().strip('"'))
            except ValueError:
                pass
    return cells


def _liberty_text(path: Path) -> str:
    try:
        text = Path(path).read_text(errors="replace")
    except OSError as error:
        raise SynthError(f"cannot read Liberty file {path}: {error}") from None
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.DOTALL).replace("\\\n", " ")


def liberty_pins(path: Path) -> dict[str, dict[str, dict]]:
    """The pins of each cell of a Liberty file: ``{cell: {pin: {"direction": "input" |
    "output" | ..., "clock": bool}}}`` (``clock : true`` marks a flip-flop's or latch's clock
    pin)."""
    cells: dict[str, dict[str, dict]] = {}
    stack: list[str] = []
    cell: str | None = None
    pin: str | None = None
    for match in _LIBERTY_TOKEN.finditer(_liberty_text(path)):
        if match["group"]:
            stack.append(match["group"])
            name = match["arg"].strip().strip('"')
            if match["group"] == "cell" and len(stack) == 2:
                cell = name
                cells[cell] = {}
            elif match["group"] == "pin" and cell is not None and len(stack) == 3:
                pin = name
                cells[cell][pin] = {"direction": None, "clock": False}
        elif match["close"]:
            if stack:
                stack.pop()
            if len(stack) < 3:
                pin = None
            if len(stack) < 2:
                cell = None
        elif pin is not None and len(stack) == 3:
            value = match["value"].strip().strip('"')
            if match["attr"] == "direction":
                cells[cell][pin]["direction"] = value
            elif match["attr"] == "clock":
                cells[cell][pin]["clock"] = value == "true"
    return cells


def _number(value: float | int | None, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}"


def _top_cells(cells: dict[str, int], limit: int = 8) -> str:
    ranked = sorted(cells.items(), key=lambda item: (-item[1], item[0]))
    text = ", ".join(f"{name} {count}" for name, count in ranked[:limit])
    return text + (f", ... ({len(ranked) - limit} more types)" if len(ranked) > limit else "")


def _pnr_rows(figures: dict) -> list[tuple[str, str]]:
    """The place-and-route rows of an FPGA target's table: Fmax (or why there is none), the
    critical path, and the bel utilisation."""
    rows: list[tuple[str, str]] = []
    fmax = figures.get("fmax_mhz")
    constraint = figures.get("clock_mhz")
    if figures.get("stopped"):
        rows.append(("Fmax", f"- ({stopped_text(figures['stopped'])})"))
    elif figures.get("fits") is False:
        rows.append(("Fmax", f"- (does not fit the device: "
                             f"{overflow_text(figures.get('overflow', {}))})"))
    elif fmax is None:
        rows.append(("Fmax", "- (no clock)"))
    else:
        verdict = "met" if figures.get("timing_met") else "NOT met"
        rows.append(("Fmax", f"{fmax:.1f} MHz (constraint {constraint:g} MHz: {verdict})"))
        by_seed = figures.get("fmax_by_seed", {})
        if len(by_seed) > 1:
            rows.append(("  by placement seed", ", ".join(
                f"{seed}: {'-' if value is None else f'{value:.1f}'}"
                for seed, value in by_seed.items()) + " MHz"))
        by_clock = figures.get("fmax_by_clock", {})
        if len(by_clock) > 1:
            for clock, value in sorted(by_clock.items()):
                rows.append((f"  clock {clock}", f"{value:.1f} MHz"))
    path = figures.get("critical_path")
    if path and figures.get("fmax_mhz") is not None:
        rows.append(("  critical path", f"{path['start']} -> {path['end']} "
                                        f"({path['delay_ns']:.2f} ns: logic "
                                        f"{path['logic_ns']:.2f}, routing "
                                        f"{path['routing_ns']:.2f})"))
    for bel, entry in sorted(figures.get("utilisation", {}).items()):
        if entry.get("used"):
            share = 100 * entry["used"] / entry["available"] if entry.get("available") else 0
            rows.append((f"  {bel}",
                         f"{entry['used']:,} / {entry['available']:,} ({share:.1f}%)"))
    return rows


def _path_text(path: dict) -> str:
    return (f"{path['start']} ({path['start_block']}) -> {path['end']} "
            f"({path['end_block']})")


def _asic_timing_rows(timing: dict) -> list[tuple[str, str]]:
    """The rows of ``synth.sta``'s figures: the register-to-register minimum period and
    Fmax, its path, the port paths apart."""
    inside = " inside units" if timing.get("per_unit") else ""
    rows = [("clock (OpenSTA)", f"{timing['basis']}, ideal clock; "
                                f"{timing.get('sta_version') or 'OpenSTA'}")]
    if timing.get("fmax_mhz") is None:
        rows.append((f"  register to register{inside}",
                     f"no path ({timing.get('registers', 0):,} flip-flops)"))
    else:
        verdict = "met" if timing["met"] else "NOT met"
        rows.append((f"  register to register{inside}",
                     f"min period {timing['min_period_ns']:.3f} ns: Fmax "
                     f"{timing['fmax_mhz']:.1f} MHz (at {1e3 / timing['period_ns']:g} MHz: "
                     f"{verdict}, slack {timing['slack_ns']:.3f} ns)"))
        rows.append(("    worst path", _path_text(timing)
                     + (f" in part {timing['part']}" if timing.get("part") else "")))
    for key, label in (("input_to_register", "input to register"),
                       ("register_to_output", "register to output")):
        path = timing.get(key)
        if path:
            rows.append((f"  {label}", f"{path['min_period_ns']:.3f} ns: {_path_text(path)}"))
    power = timing.get("power")
    if power:
        rows.append(("  power (estimate)",
                     f"{power['total_w']:.4g} W at {1e3 / power['period_ns']:g} MHz (internal "
                     f"{power['internal_w']:.4g}, switching {power['switching_w']:.4g}, leakage "
                     f"{power['leakage_w']:.3g}): {power['energy_per_cycle_pj']:,.0f} pJ a "
                     f"cycle; activity {power['activity']}"))
        if power.get("cells_unknown"):
            rows.append(("  power note", f"{power['cells_unknown']:,} of {power['cells']:,} "
                                         f"cells left out: OpenSTA gave their power as NaN"))
    if timing.get("scope"):
        rows.append(("  scope", timing["scope"]))
    for note in timing.get("notes", []):
        rows.append(("  timing note", note))
    return rows


def format_table(report: dict) -> str:
    """A small human-readable table of the figures returned by ``synthesize`` (a whole
    ``graphgen synth --json`` report, with its ``figures`` section, is accepted too)."""
    figures = report.get("figures", report)
    target = figures.get("target")
    rows: list[tuple[str, str]] = [("target", f"{target} (top {figures.get('top')})")]
    if target == "ecp5":
        rows.append(("device", f"{figures.get('device')} {figures.get('package', '')}".strip()))
        rows += [("LUT4", _number(figures.get("lut4"))),
                 ("flip-flops (TRELLIS_FF)", _number(figures.get("ff"))),
                 ("carry (CCU2C)", _number(figures.get("ccu2c"))),
                 ("block RAM (DP16KD)", _number(figures.get("ebr"))),
                 ("LUT RAM (DPR16X4)", _number(figures.get("lutram"))),
                 ("DSP (MULT18X18D...)", _number(figures.get("dsp")))]
        rows += _pnr_rows(figures)
        for unit, entry in figures.get("units", {}).items():
            rows.append((f"unit {unit}",
                         f"LUT4 {entry['lut4']:,} ({100 * entry['share_lut4']:.1f}%), FF "
                         f"{entry['ff']:,}, EBR {entry['ebr']}, DSP {entry['dsp']}, "
                         f"LUT RAM {entry['lutram']}"))
    elif figures.get("bsram") is not None:
        rows.append(("device", f"{figures.get('part')} ({figures.get('device')})"))
        rows += [("LUT4 (LUT1-LUT4)", _number(figures.get("lut4"))),
                 ("flip-flops (DFF*)", _number(figures.get("ff"))),
                 ("carry (ALU)", _number(figures.get("alu"))),
                 ("wide muxes (MUX2_LUT5-8)", _number(figures.get("widemux"))),
                 ("block RAM (BSRAM)", _number(figures.get("bsram"))),
                 ("LUT RAM (RAM16SDP*)", _number(figures.get("lutram"))),
                 ("DSP (MULT*)", _number(figures.get("dsp")))]
        rows += _pnr_rows(figures)
    elif target == "asic":
        rows += [("total with memories (model)",
                  f"{_number(figures.get('area_total_um2_with_model'))} um^2"),
                 ("logic area (Liberty)", f"{_number(figures.get('area_um2'))} um^2"),
                 ("  sequential (flip-flops, latches)",
                  f"{_number(figures.get('area_seq_um2'))} um^2"),
                 ("  combinational", f"{_number(figures.get('area_comb_um2'))} um^2"),
                 ("cells", _number(figures.get("num_cells"))),
                 ("  by type", _top_cells(figures.get("cells", {}))),
                 ("Liberty", str(figures.get("liberty")))]
        if figures.get("unmapped_cells"):
            rows.append(("  unmapped (no area)", ", ".join(figures["unmapped_cells"])))
        if figures.get("asic_timing"):
            rows += _asic_timing_rows(figures["asic_timing"])
        memories = figures.get("memories", [])
        # A whole design's hundreds of memories are summed by unit above; a block's few are
        # listed.
        for memory in memories if len(memories) <= 16 else []:
            rows.append((f"memory {memory['name']}",
                         f"{memory['depth']:,} x {memory['width']} bits, "
                         f"{memory['read_ports']}R{memory['write_ports']}W: "
                         f"{_number(memory['area_um2_model'])} um^2 (model)"))
        for unit, entry in figures.get("units", {}).items():
            rows.append((f"unit {unit}",
                         f"{_number(entry['area_um2'])} um^2 logic + "
                         f"{_number(entry['area_memory_um2_model'])} um^2 memories (model), "
                         f"{100 * entry['share']:.1f}% of the total"
                         + (f", Fmax {entry['fmax_mhz']:.1f} MHz" if entry.get("fmax_mhz")
                            else "")))
        if figures.get("memories"):
            rows.append(("memories (model)",
                         f"{_number(figures['area_memory_um2_model'])} um^2 for "
                         f"{figures['memory_bits']:,} bits"))
    else:
        rows += [("cells", _number(figures.get("num_cells"))),
                 ("  by type", _top_cells(figures.get("cells", {})))]
    steps = figures.get("step_seconds", {})
    timing = ", ".join(f"{step} {seconds:.1f} s" for step, seconds in steps.items())
    rows.append(("wall time", f"{figures.get('wall_seconds', 0):.1f} s"
                 + (f" ({timing})" if timing else "")))
    for note in figures.get("notes", []):
        rows.append(("note", note))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)
