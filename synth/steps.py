"""The steps the FPGA flows (``synth.flow``'s ECP5, ``synth.gowin``'s GW5A) share: a Yosys script
run in the build folder, its ``stat`` figures, stale outputs removed, and nextpnr placing and
routing the netlist over several seeds, with what came of it (an Fmax, a design that does not
fit, a run the time limit stopped) turned into the common figures of a report."""

from __future__ import annotations

import contextvars
import dataclasses
import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from . import tools
from .reports import (nextpnr_critical_path, nextpnr_log_progress, nextpnr_log_utilisation,
                      nextpnr_report, overflow_text, stopped_text, yosys_stat)
from .tools import SynthError, TimeLimitReached


__all__ = ["clean", "yosys", "read_command", "stat_figures", "grouped", "port_bits",
           "map_in_contexts", "overflow", "PnrRun", "place_and_route", "pnr_figures"]


def clean(build_dir: Path, *names: str) -> None:
    """Remove stale outputs so a tool that silently writes nothing cannot be misread."""
    for name in names:
        (build_dir / name).unlink(missing_ok=True)


def yosys(build_dir: Path, script_name: str, script: list[str]) -> float:
    """Run the Yosys ``script`` (written to ``script_name``) in ``build_dir``; its seconds."""
    (build_dir / script_name).write_text("\n".join(script) + "\n")
    run = tools.run_tool("yosys", ["-q", "-l", "yosys.log", "-s", script_name], build_dir,
                         "yosys.log")
    return run.seconds


# Registers the gateware copies to split a fan-out (``hw.lib.fanout``) carry ``keep`` on
# their wire only; Yosys merges registers with the same inputs unless the flip-flop cell
# itself is kept, so every flow marks the driver of each ``keep`` wire too.
KEEP_COPIES = "setattr -set keep 1 a:keep %ci1 a:keep %d"


def read_command(verilog: str) -> str:
    """The Yosys commands that read ``verilog`` and keep its register copies apart."""
    return "\n".join([f"read_verilog {'-sv ' if verilog.endswith('.sv') else ''}{verilog}",
                      "proc", KEEP_COPIES])


def stat_figures(build_dir: Path, top: str) -> tuple[dict, dict[str, int], int]:
    """Yosys's ``stat.json`` in ``build_dir``: its design section, the cell counts by type and
    the number of cells."""
    design = yosys_stat(build_dir / "stat.json", top)
    cells = {str(kind): int(count)
             for kind, count in design.get("num_cells_by_type", {}).items()}
    return design, cells, int(design.get("num_cells", sum(cells.values())))


def grouped(cells: dict[str, int], groups: dict[str, tuple[str, ...]]) -> dict[str, int]:
    """Cell counts summed per group; a kind ending in ``*`` in a group is a prefix
    (``DFF*``: every flip-flop type)."""
    def member(kind: str, kinds: tuple[str, ...]) -> bool:
        return any(kind == k or (k.endswith("*") and kind.startswith(k[:-1])) for k in kinds)
    return {group: sum(count for kind, count in cells.items() if member(kind, kinds))
            for group, kinds in groups.items()}


def port_bits(netlist: Path, top: str) -> int:
    """The number of port bits of module ``top`` in a Yosys JSON netlist."""
    module = json.loads(netlist.read_text())["modules"].get(top, {})
    return sum(len(port["bits"]) for port in module.get("ports", {}).values())


def map_in_contexts(function, items: list, jobs: int) -> list:
    """``function`` over ``items``, ``jobs`` at a time, each call in a copy of this thread's
    context (its time limit, ``synth.tools``); the results in the order of ``items``."""
    contexts = [contextvars.copy_context() for _ in items]
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(items)))) as pool:
        return list(pool.map(lambda context, item: context.run(function, item), contexts,
                             items))


def overflow(utilisation: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The bel types a design uses more of than the device has."""
    return {bel: entry for bel, entry in utilisation.items()
            if entry["used"] > entry["available"]}


@dataclasses.dataclass
class PnrRun:
    """One seed's nextpnr run: ``output`` (its routed file) is None when it did not finish
    (``stopped`` says how far a run the time limit stopped got; otherwise the design did not
    fit and ``utilisation`` shows what overflowed)."""
    seed: int
    suffix: str
    fmax: float | None
    fmax_by_clock: dict[str, float]
    utilisation: dict[str, dict[str, int]]
    output: str | None
    stopped: dict
    critical_path: dict | None


def place_and_route(build_dir: Path, tool: str, seeds: tuple[int, ...], jobs: int,
                    clock_mhz: float,
                    arguments: Callable[[str], tuple[list[str], str]]) -> dict[int, PnrRun]:
    """nextpnr (``tool``) once per seed, ``jobs`` at a time, each seed in its own files
    (suffix ``-seed<n>`` when there are several). ``arguments(suffix)`` gives the
    target's own options and the routed file it names; the report, the clock, the seed and
    the log are added here. Placement is seeded, and a design's Fmax moves by up to some 20%
    from seed to seed: the caller keeps the best (:func:`pnr_figures`)."""
    def one(seed: int) -> PnrRun:
        suffix = f"-seed{seed}" if len(seeds) > 1 else ""
        args, output = arguments(suffix)
        log = build_dir / f"nextpnr{suffix}.log"
        clean(build_dir, f"report{suffix}.json")
        try:
            tools.run_tool(tool, [
                *args, "--report", f"report{suffix}.json", "--freq", f"{clock_mhz:g}",
                "--seed", str(seed), "--timing-allow-fail", "-l", log.name,
            ], build_dir, log.name)
        except TimeLimitReached:
            # A run the time limit stopped once nextpnr had begun is a result (Yosys's cells
            # and how far it got); one stopped before nextpnr wrote its log is not.
            progress = nextpnr_log_progress(log)
            if not progress["stage"]:
                raise
            return PnrRun(seed, suffix, None, {}, nextpnr_log_utilisation(log), None, progress,
                          None)
        except SynthError:
            # A design too big for the device is a result (its cells and what overflows), not
            # a failure of the flow; any other nextpnr error still is.
            utilisation = nextpnr_log_utilisation(log)
            if not overflow(utilisation):
                raise
            return PnrRun(seed, suffix, None, {}, utilisation, None, {}, None)
        report = build_dir / f"report{suffix}.json"
        fmax_by_clock, utilisation = nextpnr_report(report)
        fmax = min(fmax_by_clock.values()) if fmax_by_clock else None
        return PnrRun(seed, suffix, fmax, fmax_by_clock, utilisation, output, {},
                      nextpnr_critical_path(report))

    runs = map_in_contexts(one, list(seeds), jobs)
    return {run.seed: run for run in runs}


def pnr_figures(build_dir: Path, runs: dict[int, PnrRun], jobs: int, part: str,
                kept_output: str, clock_mhz: float, notes: list[str]) -> dict:
    """The common figures of the best seed's run (the highest Fmax) among ``runs``, its files
    copied to the names of a single run (``nextpnr.log``, ``report.json``, ``kept_output``),
    with a note for several seeds, a design that does not fit ``part``, or a stopped run."""
    seeds = list(runs)
    seed = max(seeds, key=lambda s: -1.0 if runs[s].fmax is None else runs[s].fmax)
    best = runs[seed]
    too_big = overflow(best.utilisation) if best.output is None and not best.stopped else {}
    at_a_time = max(1, min(jobs, len(seeds)))
    if too_big or best.stopped:
        if too_big:
            notes.append(f"does not fit {part}: {overflow_text(too_big)} "
                         f"(nextpnr stops at placement: no Fmax)")
        else:
            notes.append(f"nextpnr {stopped_text(best.stopped)}: no Fmax")
        if best.suffix:
            shutil.copyfile(build_dir / f"nextpnr{best.suffix}.log", build_dir / "nextpnr.log")
    elif best.suffix:
        for name, kept in ((f"report{best.suffix}.json", "report.json"),
                           (f"nextpnr{best.suffix}.log", "nextpnr.log"),
                           (best.output, kept_output)):
            shutil.copyfile(build_dir / name, build_dir / kept)
        notes.append(f"placed and routed with seeds {', '.join(map(str, seeds))} "
                     f"({at_a_time} at a time): the best, seed {seed}, is reported")
    if best.fmax is None and not too_big and not best.stopped:
        notes.append("no clock domain found by nextpnr (combinational design): no Fmax")
    return {
        "clock_mhz": clock_mhz, "seed": seed, "seeds": seeds,
        "fmax_by_seed": {str(s): runs[s].fmax for s in seeds},
        "fits": None if best.stopped and not best.utilisation else not too_big,
        "overflow": too_big, "stopped": best.stopped, "fmax_mhz": best.fmax,
        "fmax_by_clock": best.fmax_by_clock,
        "timing_met": None if best.fmax is None else best.fmax >= clock_mhz,
        "critical_path": best.critical_path, "utilisation": best.utilisation,
        # The table nextpnr logs after packing: what ``utilisation`` holds for a run that
        # stopped or did not fit; for a routed run the report's counts, which on the GW5A
        # differ (the table counts each LUT RAM as 8 LUT4 and 8 DFF, each ALU as a LUT4).
        "utilisation_packed": nextpnr_log_utilisation(build_dir / f"nextpnr{best.suffix}.log"),
        "reports": ["stat.json"] + ([] if too_big or best.stopped else ["report.json"]),
        "logs": ["yosys.log", "nextpnr.log"], "notes": notes,
    }

