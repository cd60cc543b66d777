"""Static timing analysis of a mapped ASIC netlist with OpenSTA: the clock the standard cells
allow, before layout.

The ASIC flow (``synth.flow``) writes the netlist Yosys mapped onto the Liberty cells
(``write_verilog -noattr``); :func:`analyse` writes an SDC for it (:func:`write_sdc`: a clock
on each input port that clocks a flip-flop, the period asked, input and output delays, a load
on the outputs) and a Tcl script, runs ``sta`` in batch, and parses its reports:

* the worst register-to-register path at the period asked: its slack gives the minimum period
  (data arrival plus the capturing flip-flop's setup time, the clock ideal) and so the Fmax;
* the worst input-to-register and register-to-output paths, apart (the SDC's external
  delays: the logic beyond the ports is the rest of a chip, not known here);
* the power at the period asked (each cell's internal, switching and leakage power from the
  Liberty file's tables, summed) and so the energy a clock cycle. The activity is OpenSTA's default
  (:data:`POWER_ACTIVITY`): 2.0.17 reads no VCD or SAIF, so a run's own switching activity
  cannot be given to it.

Each path's ends are named by the registers' output nets (the names Yosys keeps from the
design, hierarchical after ``flatten``: ``engine.fifo.level``) and the top-level block they
are in (``engine``; ``(top)`` for the top's own logic), as ``synth.comb_depth`` names its
blocks.

The figures are pre-layout with no wire parasitics: OpenSTA times the cells' NLDM tables with
the pins' capacitance as each net's only load (the OSU 0.18 um library has no wire-load
model), and the clock is ideal (no tree, no skew). ABC buffers and sizes the cells for the
clock when it maps them (:func:`abc_constraints`, ``synth.flow``); a placer's buffering
would differ. OpenSTA (Debian's ``opensta``, 2.0.17 here) prints an error and goes on,
exiting 0: the log is searched for its ``Error`` lines.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import time
from pathlib import Path

from .reports import liberty_pins
from .tools import SynthError, run_tool, tool_versions


__all__ = ["BASIS", "DEFAULT_PERIOD_NS", "Constraints", "sta_version", "write_sdc",
           "abc_constraints", "abc_script", "ABC_DELAY_SHARE",
           "analyse", "parse_report", "parse_power", "block_of", "worst_of_parts",
           "POWER_ACTIVITY"]

BASIS = "pre-layout, no wire parasitics"
DEFAULT_PERIOD_NS = 4.0           # 250 MHz: issue 51's goal for every design at 0.18 um
# Register-to-register, input-to-register and register-to-output: the reports run, in order.
PATH_KINDS = ("register_to_register", "input_to_register", "register_to_output")
_MARK = "graphgen-sta:"
POWER_ACTIVITY = ("OpenSTA's default: every input port 0.1 transitions a clock cycle, duty "
                  "0.5, propagated through the cells' functions; the clock at the SDC period")


@dataclasses.dataclass(frozen=True)
class Constraints:
    """What the SDC asks: the clock period, the delay outside each input and output port
    (relative to the clock edge) and the load on each output (pF, the Liberty's unit here)."""
    period_ns: float = DEFAULT_PERIOD_NS
    input_delay_ns: float = 0.0
    output_delay_ns: float = 0.0
    output_load_pf: float = 0.01        # about one flip-flop D input of OSU 0.18 um (0.009)

    def __post_init__(self):
        for name in ("period_ns", "input_delay_ns", "output_delay_ns", "output_load_pf"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or value != value or value < 0 \
                    or value == float("inf"):
                raise SynthError(f"STA constraint {name} must be a finite number >= 0, "
                                 f"got {value!r}")
        if not self.period_ns > 0:
            raise SynthError(f"STA clock period must be positive, got {self.period_ns!r}")


@functools.cache
def sta_version() -> str | None:
    """``"OpenSTA 2.0.17"``, or None when no ``sta`` on ``PATH`` answers ``-version`` with a
    version number (Debian's unrelated statistics tool is also called ``sta``)."""
    try:
        return tool_versions("sta")["sta"]
    except SynthError:
        return None


def block_of(name: str) -> str:
    """The top-level block of a flattened name: ``engine`` for ``engine.fifo.level[3]``,
    ``(top)`` for a name with no hierarchy."""
    return name.split(".")[0] if "." in name.split("[")[0] else "(top)"


def _plain(name: str) -> str:
    """A Verilog net or instance name as the design spells it: ``\\engine.x [3]`` and
    OpenSTA's ``engine\\.x[3]`` both give ``engine.x[3]``."""
    name = name.strip()
    if name.startswith("\\"):
        name = name[1:]
    return re.sub(r"\s+\[", "[", name.replace("\\", ""))


_PORT = re.compile(r"^\s*(input|output|inout)\s+(?:\[[^\]]*\]\s*)?(\\\S+|[A-Za-z_][\w$]*)\s*;",
                   re.M)


def _ports(text: str) -> dict[str, list[str]]:
    ports: dict[str, list[str]] = {"input": [], "output": [], "inout": []}
    for direction, name in _PORT.findall(text.split("endmodule", 1)[0]):
        ports[direction].append(_plain(name))
    return ports


def _instance_outputs(text: str, instance: str, pins: dict[str, dict]) -> str | None:
    """The net on an output pin of ``instance`` (a sequential cell) in the netlist."""
    escaped = "\\" + instance + " " if not re.fullmatch(r"[A-Za-z_][\w$]*", instance) \
        else instance
    match = re.search(rf"^\s*(\S+)\s+{re.escape(escaped)}\s*\((.*?)\);", text, re.M | re.S)
    if match is None or match[1] not in pins:
        return None
    for pin, net in re.findall(r"\.(\w+)\(\s*([^()]*?)\s*\)", match[2]):
        if pins[match[1]].get(pin, {}).get("direction") == "output" and net:
            return _plain(net)
    return None


def _clock_ports(text: str, pins: dict[str, dict[str, dict]],
                 inputs: list[str]) -> tuple[list[str], list[str], int]:
    """The input ports that drive a clock pin of a cell, the other nets that do, and the
    number of clock pins connected (the flip-flops and latches)."""
    clock_pins = sorted({pin for cell in pins.values() for pin, info in cell.items()
                         if info["clock"]})
    if not clock_pins:
        return [], [], 0
    found = re.findall(
        rf"\.(?:{'|'.join(map(re.escape, clock_pins))})\(\s*([^()]*?)\s*\)", text)
    nets = {_plain(net) for net in found} - {""}
    ports = [name for name in inputs if name in nets]
    return ports, sorted(nets - set(ports)), len(found)


def _sdc_name(name: str) -> str:
    return "{" + name + "}"


def write_sdc(path: Path, clocks: list[str], inputs: list[str], outputs: list[str],
              constraints: Constraints) -> None:
    """The SDC of :mod:`synth.sta`: a clock of ``constraints.period_ns`` on each of
    ``clocks`` (input ports), the input delay on the other inputs and the output delay on
    the outputs (relative to the first clock), and the load on the outputs."""
    lines = [f"# graphgen synth --target asic: OpenSTA constraints ({BASIS})"]
    for clock in clocks:
        lines.append(f"create_clock -name {_sdc_name(clock)} -period "
                     f"{constraints.period_ns:.4f} [get_ports {_sdc_name(clock)}]")
    data_inputs = [name for name in inputs if name not in clocks]
    if clocks and data_inputs:
        lines.append(f"set_input_delay {constraints.input_delay_ns:.4f} -clock "
                     f"{_sdc_name(clocks[0])} [get_ports {{{' '.join(data_inputs)}}}]")
    if clocks and outputs:
        lines.append(f"set_output_delay {constraints.output_delay_ns:.4f} -clock "
                     f"{_sdc_name(clocks[0])} [all_outputs]")
    if outputs:
        lines.append(f"set_load {constraints.output_load_pf:.4f} [all_outputs]")
    Path(path).write_text("\n".join(lines) + "\n")


def abc_constraints(liberty: Path, constraints: Constraints) -> str:
    """The constraints file of Yosys's ``abc -constr``, which has ABC buffer and size the
    mapped cells: the load of the SDC, and as the inputs' driver the library's smallest
    one-input, one-output combinational cell (an inverter; a flip-flop, which drives most
    nets, is no cell ABC knows); none if it has none."""
    from .reports import liberty_cells
    areas = liberty_cells(liberty)
    single = [name for name, cell in liberty_pins(liberty).items()
              if name in areas and not areas[name]["sequential"]
              and sorted(info["direction"] for info in cell.values()) == ["input", "output"]]
    lines = [f"set_load {constraints.output_load_pf:g}"]
    if single:
        lines.insert(0, f"set_driving_cell {min(single, key=lambda n: (areas[n]['area'], n))}")
    return "\n".join(lines) + "\n"


# ABC's delay model reads the Liberty tables at its own load and slew and comes out faster
# than OpenSTA's for the same netlist; mapped for the whole period, a 32-bit incrementer
# timed at 3.9 ns of OpenSTA's 4 ns. Three quarters of it left 1.0 ns of slack on the BFS
# engine's frontier generator (its hits counter), at 0.3% less area.
ABC_DELAY_SHARE = 0.75


def abc_script(constraints: Constraints) -> str:
    """The ABC script of the ASIC mapping (Yosys ``abc -script +...``): structural choices
    (``dch``), then ``map``, the delay-oriented standard-cell mapper, for
    :data:`ABC_DELAY_SHARE` of the period, then buffering and sizing for the load (after
    ``topo``: ``buffer`` straight after ``map`` left no output on a DepGraph engine).

    Yosys's own script for ``-liberty -D`` runs ``dc2`` and ``&nf``, which rewrite a
    prefix adder's carry into a chain (an incrementer of 32 bits: 18 cells deep, where
    Yosys's Brent-Kung adder hands ABC 12) and do not restore it for the delay asked: counters
    and adders then ended most worst paths at 0.18 um."""
    delay = round(constraints.period_ns * ABC_DELAY_SHARE * 1e3)
    steps = ["strash", "dch -f", f"map -D {delay}", "topo", "buffer", f"upsize -D {delay}",
             f"dnsize -D {delay}"]
    return "+" + ";".join(step.replace(" ", ",") for step in steps)


# report_power's own Tcl fails on a NaN (a few cells of a large netlist, 14 of 224,226 in
# Graphicionado's, get NaN internal power from OpenSTA 2.0.17): the cells are summed here and
# those left out counted.
_POWER_TCL = [
    "set graphgen_corner [sta::cmd_corner]",
    "set graphgen_sum {0.0 0.0 0.0 0.0}",
    "set graphgen_cells 0",
    "set graphgen_unknown 0",
    "foreach graphgen_cell [get_cells *] {",
    "  set graphgen_p [sta::instance_power $graphgen_cell $graphgen_corner]",
    "  incr graphgen_cells",
    '  if {[string match -nocase "*nan*" $graphgen_p] || '
    '[string match -nocase "*inf*" $graphgen_p]} { incr graphgen_unknown; continue }',
    "  set graphgen_sum [lmap a $graphgen_sum b $graphgen_p {expr {$a + $b}}]",
    "}",
    'puts "graphgen-power: $graphgen_sum $graphgen_cells $graphgen_unknown"',
]


def _script(liberty: str, netlist: str, top: str, sdc: str) -> str:
    checks = {
        "register_to_register": "-from [all_registers -clock_pins] "
                                "-to [all_registers -data_pins]",
        "input_to_register": "-from [all_inputs] -to [all_registers -data_pins]",
        "register_to_output": "-from [all_registers -clock_pins] -to [all_outputs]",
    }
    lines = ["log_begin sta.log", f"read_liberty {liberty}", f"read_verilog {netlist}",
             f"link_design {{{top}}}", f"read_sdc {sdc}",
             "set graphgen_registers [llength [all_registers]]"]
    for kind in PATH_KINDS:
        lines.append(f'puts "{_MARK} {kind}"')
        # -from or -to an empty list is an error: no registers, no outputs means no path.
        guard = {"register_to_register": "$graphgen_registers",
                 "input_to_register": "$graphgen_registers && [llength [all_inputs]]",
                 "register_to_output": "$graphgen_registers && [llength [all_outputs]]"}[kind]
        lines.append(f"if {{{guard}}} {{ report_checks {checks[kind]} -path_delay max "
                     f"-digits 3 -fields {{net fanout}} }} else {{ puts \"No paths found.\" }}")
    lines += [f'puts "{_MARK} power"', *_POWER_TCL, f'puts "{_MARK} end"', "log_end"]
    return "\n".join(lines) + "\n"


_NUMBER = r"(-?\d+(?:\.\d+)?)"


def parse_report(text: str) -> dict | None:
    """One ``report_checks`` path (``-format full``): ``start``, ``end`` (as OpenSTA names
    them), ``start_kind``/``end_kind`` (its words in brackets), ``arrival_ns``, ``setup_ns``
    (the library setup time at a register; 0 at an output), ``required_ns``, ``slack_ns``;
    None for "No paths found"."""
    if "No paths found" in text or "Startpoint:" not in text:
        return None
    fields = {}
    for key, pattern in (("start", r"^Startpoint: (\S+) \((.*)\)$"),
                         ("end", r"^Endpoint: (\S+) \((.*)\)$")):
        match = re.search(pattern, text, re.M)
        if match is None:
            raise SynthError(f"OpenSTA report without a {key}point line")
        fields[key], fields[f"{key}_kind"] = match[1], match[2]
    numbers = {}
    for key, pattern in (("arrival_ns", rf"^\s+{_NUMBER}\s+data arrival time$"),
                         ("required_ns", rf"^\s+{_NUMBER}\s+data required time$"),
                         ("slack_ns", rf"^\s+{_NUMBER}\s+slack \((?:MET|VIOLATED)\)$")):
        match = re.search(pattern, text, re.M)
        if match is None:
            raise SynthError(f"OpenSTA report without a {key.removesuffix('_ns')} figure")
        numbers[key] = float(match[1])
    setup = re.search(rf"^\s+{_NUMBER}\s+{_NUMBER}\s+library setup time$", text, re.M)
    numbers["setup_ns"] = -float(setup[1]) if setup else 0.0
    return fields | numbers


def parse_power(text: str, period_ns: float) -> dict:
    """The power section of the STA log (:data:`_POWER_TCL`): ``internal_w``,
    ``switching_w``, ``leakage_w``, ``total_w`` (W, every cell's summed), ``cells`` and
    ``cells_unknown`` (left out: OpenSTA gave NaN), ``energy_per_cycle_pj`` (the total
    power times ``period_ns``) and the ``activity``."""
    number = r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    match = re.search(rf"^graphgen-power: {number} {number} {number} {number} (\d+) (\d+)$",
                      text, re.M)
    if match is None:
        raise SynthError("OpenSTA's log without the power of its cells")
    return _power(*(float(match[i]) for i in range(1, 5)), int(match[5]), int(match[6]),
                  period_ns)


def _errors(sdc: str, *paths: Path) -> tuple[str, Path] | None:
    """The first ``Error`` line of the logs, or a warning about the SDC (which names only
    what the netlist has: a warning there means a broken netlist or SDC)."""
    for path in paths:
        try:
            lines = path.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            if line.startswith("Error") or line.startswith(f"Warning: {sdc},"):
                return line.strip(), path
    return None


def analyse(build_dir: Path, netlist: str, top: str, liberty: str,
            constraints: Constraints = Constraints(), prefix: str = "") -> dict:
    """OpenSTA on the mapped ``netlist`` (a file in ``build_dir``, module ``top``) with the
    ``liberty`` file (also in ``build_dir``); writes ``sta.sdc``, ``sta.tcl`` and ``sta.log``
    there. ``prefix``: the hierarchical name of ``top`` in the whole design, put before the
    names reported (a part of the per-unit flow).

    Returns ``min_period_ns`` and ``fmax_mhz`` (None with no register-to-register path),
    ``registers`` (the flip-flops and latches),
    ``slack_ns`` and ``met`` at ``period_ns``, ``start``, ``end`` (the registers' names),
    ``start_block``, ``end_block``, ``arrival_ns``, ``setup_ns``; ``input_to_register`` and
    ``register_to_output`` (each ``min_period_ns``, ``start``, ``end``, blocks; or None);
    ``power`` (:func:`parse_power`); ``clocks``; ``basis``; ``sta_version``; ``notes``;
    ``seconds``. Raises :class:`SynthError` (one line) when OpenSTA reports an error.
    """
    build_dir = Path(build_dir)
    start = time.perf_counter()
    text = (build_dir / netlist).read_text(errors="replace")
    pins = liberty_pins(build_dir / liberty)
    ports = _ports(text)
    clocks, internal, registers = _clock_ports(text, pins, ports["input"])
    notes = []
    if internal:
        notes.append(f"flip-flops clocked by internal nets ({', '.join(internal[:3])}"
                     f"{', ...' if len(internal) > 3 else ''}): not timed")
    write_sdc(build_dir / "sta.sdc", clocks, ports["input"], ports["output"], constraints)
    (build_dir / "sta.tcl").write_text(_script(liberty, netlist, top, "sta.sdc"))
    for name in ("sta.log", "sta.console.txt"):
        (build_dir / name).unlink(missing_ok=True)
    run_tool("sta", ["-no_init", "-no_splash", "-exit", "sta.tcl"], build_dir, "sta.log")
    log = build_dir / "sta.log"
    error = _errors("sta.sdc", log, build_dir / "sta.console.txt")
    if error:
        raise SynthError(f"OpenSTA failed: {error[0]} (see {error[1]})")
    report = log.read_text(errors="replace") if log.is_file() else ""
    sections = dict(re.findall(rf"^{_MARK} (\w+)\n(.*?)(?=^{_MARK} )", report, re.M | re.S))
    if f"{_MARK} end" not in report or set(PATH_KINDS) - set(sections) \
            or "power" not in sections:
        raise SynthError(f"OpenSTA stopped before its reports were written (see {log})")

    def named(instance_or_port: str, kind: str) -> str:
        name = _plain(instance_or_port)
        if "port" not in kind:
            name = _instance_outputs(text, name, pins) or name
        return f"{prefix}.{name}" if prefix else name

    paths = {}
    for kind in PATH_KINDS:
        path = parse_report(sections[kind])
        if path is not None:
            begin, end = named(path["start"], path["start_kind"]), \
                named(path["end"], path["end_kind"])
            path = {"min_period_ns": round(constraints.period_ns - path["slack_ns"], 3),
                    "start": begin, "end": end, "start_block": block_of(begin),
                    "end_block": block_of(end), "arrival_ns": path["arrival_ns"],
                    "setup_ns": path["setup_ns"], "slack_ns": path["slack_ns"]}
        paths[kind] = path
    worst = paths["register_to_register"]
    figures = {
        "basis": BASIS, "sta_version": sta_version(), "period_ns": constraints.period_ns,
        "constraints": dataclasses.asdict(constraints), "clocks": clocks,
        "registers": registers,
        "min_period_ns": worst["min_period_ns"] if worst else None,
        "fmax_mhz": round(1e3 / worst["min_period_ns"], 1) if worst else None,
        "slack_ns": worst["slack_ns"] if worst else None,
        "met": worst["slack_ns"] >= 0 if worst else None,
        **{key: worst[key] if worst else None
           for key in ("start", "end", "start_block", "end_block", "arrival_ns", "setup_ns")},
        "input_to_register": paths["input_to_register"],
        "register_to_output": paths["register_to_output"],
        "power": parse_power(sections["power"], constraints.period_ns),
        "sdc": "sta.sdc", "log": "sta.log", "notes": notes,
        "seconds": time.perf_counter() - start,
    }
    return figures


def _power(internal: float, switching: float, leakage: float, total: float, cells: int,
           unknown: int, period_ns: float) -> dict:
    return {"internal_w": internal, "switching_w": switching, "leakage_w": leakage,
            "total_w": total, "cells": cells, "cells_unknown": unknown,
            "period_ns": period_ns, "energy_per_cycle_pj": total * period_ns * 1e3,
            "activity": POWER_ACTIVITY}


def _summed_power(parts: list[dict], period_ns: float) -> dict:
    """The parts' power (:func:`parse_power`) summed: the design's, per unit."""
    sums = [sum(part[key] for part in parts)
            for key in ("internal_w", "switching_w", "leakage_w", "total_w", "cells",
                        "cells_unknown")]
    return _power(*sums, period_ns) | {"scope": "the parts' reports summed"}


def worst_of_parts(parts: dict[str, dict], units: dict[str, str]) -> dict:
    """The per-unit flow's timing: each part's :func:`analyse` figures (``parts``, by part
    name; ``units`` gives each part's top-level unit), summed up as the worst part's
    register-to-register path (the design's Fmax: the lowest of the parts'), each unit's
    Fmax (its parts' lowest) and the worst port paths."""
    timed = {name: figures for name, figures in parts.items() if figures["fmax_mhz"]}
    first = next(iter(parts.values()))
    worst_name = min(timed, key=lambda name: timed[name]["fmax_mhz"]) if timed else None
    worst = timed.get(worst_name, {})
    by_unit: dict[str, dict] = {}
    for name, figures in timed.items():
        unit = units[name]
        if unit not in by_unit or figures["fmax_mhz"] < by_unit[unit]["fmax_mhz"]:
            by_unit[unit] = {key: figures[key] for key in
                             ("fmax_mhz", "min_period_ns", "start", "end")} | {"part": name}

    def worst_port_path(kind):
        found = [figures[kind] for figures in parts.values() if figures[kind]]
        return max(found, key=lambda path: path["min_period_ns"]) if found else None

    return {
        "basis": BASIS, "sta_version": first["sta_version"], "period_ns": first["period_ns"],
        "constraints": first["constraints"], "per_unit": True,
        "clocks": sorted({clock for figures in parts.values() for clock in figures["clocks"]}),
        "registers": sum(figures["registers"] for figures in parts.values()),
        "scope": "register-to-register paths inside each part synthesized apart; paths "
                 "between units are not analysed",
        "min_period_ns": worst.get("min_period_ns"), "fmax_mhz": worst.get("fmax_mhz"),
        "slack_ns": worst.get("slack_ns"),
        "met": worst["slack_ns"] >= 0 if worst else None, "part": worst_name,
        **{key: worst.get(key) for key in ("start", "end", "start_block", "end_block",
                                           "arrival_ns", "setup_ns")},
        "input_to_register": worst_port_path("input_to_register"),
        "register_to_output": worst_port_path("register_to_output"),
        "units": dict(sorted(by_unit.items(), key=lambda item: item[1]["fmax_mhz"])),
        "power": _summed_power([figures["power"] for figures in parts.values()],
                               first["period_ns"]),
        "notes": sorted({note for figures in parts.values() for note in figures["notes"]}),
        "seconds": sum(figures["seconds"] for figures in parts.values()),
    }
