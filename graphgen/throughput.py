"""Throughput at a clock: a simulation's work per cycle, and per second at a clock that was
stated or measured, never assumed (issue 51, item 5).

The clock (:class:`Clock`) is ``--clock-mhz F`` (stated by the user), or the Fmax of a
``graphgen synth --json`` report of the same design and configuration (``--fmax-from FILE``:
the measured figure, its device named; for ``--target asic``, OpenSTA's pre-layout Fmax, so
labelled), or else the Fmax that ``graphgen synth --target ecp5`` of this configuration left
in ``build/synth`` (its nextpnr report). With none, the per-second figures are left out and
the report says how to get them.

The rate is the work per cycle times the clock: ``per_cycle * mhz * 1e6`` (:func:`per_second`),
the work being the design's: traversed edges for the BFS engine (Graph500's: the root's
component's edges, an undirected edge once: TEPS), edges for Graphicionado, edges fetched for
DepGraph, operations for the dynamic graph unit.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

from .common import UsageError


__all__ = ["Clock", "stated_clock", "read_synth_report", "clock_from_report", "built_fmax", "resolve_clock",
           "per_second", "throughput", "throughput_lines", "NO_CLOCK"]

NO_CLOCK = ("no clock, so no per-second figures: give --clock-mhz F, or --fmax-from "
            "synth.json (graphgen synth --target ecp5 --json synth.json with this "
            "configuration), for them")


@dataclasses.dataclass(frozen=True)
class Clock:
    """A clock in MHz and where it comes from (``source``, as the report prints it)."""
    mhz: float
    source: str

    def as_dict(self) -> dict:
        return {"clock_mhz": self.mhz, "clock_source": self.source}


def stated_clock(mhz: float) -> Clock:
    if not (math.isfinite(mhz) and mhz > 0):
        raise UsageError(f"--clock-mhz must be a positive number of MHz, not {mhz:g}")
    return Clock(float(mhz), "stated (--clock-mhz)")


def read_synth_report(path: Path, design: str, option: str) -> dict:
    """The ``graphgen synth --json`` report at ``path``, of ``design``; one line
    (UsageError, naming ``option``) when the file is missing or no such report."""
    try:
        report = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise UsageError(f"{option} {path}: no such file") from None
    except (OSError, ValueError) as error:
        raise UsageError(f"{option} {path}: not a JSON report "
                         f"({str(error).splitlines()[0]})") from None
    if not isinstance(report, dict) or report.get("command") != "synth" or \
            not isinstance(report.get("figures"), dict):
        raise UsageError(f"{option} {path}: not a graphgen synth --json report")
    if report.get("design") != design:
        raise UsageError(f"{option} {path}: a synthesis of {report.get('design')}, not "
                         f"of {design}")
    return report


def clock_from_report(path: Path, design: str, config=None) -> Clock:
    """The Fmax of a ``graphgen synth --json`` report of ``design`` in ``config`` (None: in any
    configuration, which the clock's source then names by its digest); one line (UsageError)
    when the file is not such a report or holds no Fmax."""
    report = read_synth_report(path, design, "--fmax-from")
    if config is not None and report.get("config_digest") != config.digest():
        raise UsageError(f"--fmax-from {path}: a synthesis of another configuration (digest "
                         f"{report.get('config_digest')}, this run's {config.digest()}); "
                         f"synthesize this one, or give --clock-mhz")
    figures = report["figures"]
    path = path if config is not None else f"{path} (configuration {report.get('config_digest')})"
    fmax, target = figures.get("fmax_mhz"), figures.get("target")
    timing = figures.get("asic_timing") if target == "asic" else None
    if isinstance(timing, dict):
        fmax = timing.get("fmax_mhz")
    if not isinstance(fmax, (int, float)) or isinstance(fmax, bool) or not fmax > 0:
        why = {"asic": "an ASIC synthesis without OpenSTA has no clock", "generic": "a "
               "generic synthesis has no timing"}.get(target, "nextpnr gave none (the design "
                                                      "did not fit, or was stopped)"
                                                      if target == "ecp5" else "")
        raise UsageError(f"--fmax-from {path}: holds no Fmax"
                         + (f" ({why})" if why else "") + "; give an ECP5 or ASIC synthesis's "
                         "report (graphgen synth --target ecp5|asic --json FILE)")
    if isinstance(timing, dict):
        scope = ", inside units" if timing.get("per_unit") else ""
        cells = Path(figures.get("liberty") or "standard cells").name
        return Clock(float(fmax), f"{cells} (OpenSTA, {timing.get('basis')}"
                                  f"{scope}) Fmax from {path}")
    device = figures.get("part") or figures.get("device") or target or "the target"
    if target == "board":
        device = f"{figures.get('device')} on {figures.get('board')}"
    bus = " (its AXI top)" if report.get("bus") == "axi" else ""
    return Clock(float(fmax), f"{device} Fmax{bus} from {path}")


def built_fmax(design: str, config) -> Clock | None:
    """The ECP5 Fmax ``graphgen synth --design DESIGN --target ecp5`` measured for this
    configuration, from its nextpnr report in ``build/synth``, or None."""
    from synth.reports import nextpnr_report
    report = Path("build") / "synth" / f"{design}-{config.digest()}-ecp5" / "report.json"
    if not report.is_file():
        return None
    fmax_by_clock, _ = nextpnr_report(report)
    values = [v for v in fmax_by_clock.values() if v]
    return Clock(min(values), f"ECP5 Fmax from {report}") if values else None


def resolve_clock(clock_mhz: float | None, fmax_from: str | None, design: str,
                  config) -> Clock | None:
    """The run's clock: stated, from a synthesis report, from the build folder, or None."""
    if clock_mhz is not None and fmax_from is not None:
        raise UsageError("give --clock-mhz or --fmax-from, not both")
    if clock_mhz is not None:
        return stated_clock(clock_mhz)
    if fmax_from is not None:
        return clock_from_report(Path(fmax_from), design, config)
    return built_fmax(design, config)


def per_second(per_cycle: float, mhz: float) -> float:
    """Work per second at ``mhz``: the work per cycle times the clock."""
    return per_cycle * mhz * 1e6


def throughput(work: dict[str, int], cycles: int, clock: Clock | None,
               unit: str | None = None) -> dict:
    """The report's ``throughput``: the work (``{"edges": n}`` or ``{"operations": n}``),
    its cycles, per cycle and, with a clock, per second."""
    (name, count), = work.items()
    rate = count / cycles if cycles else 0.0
    return {"unit": unit or name, "count": count, "cycles": cycles, "per_cycle": rate,
            "clock_mhz": clock.mhz if clock else None,
            "clock_source": clock.source if clock else None,
            "per_second": per_second(rate, clock.mhz) if clock else None}


def _si(value: float) -> str:
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.4g} {prefix}"
    return f"{value:.4g}"


def throughput_lines(block: dict) -> list[str]:
    """``block`` (:func:`throughput`) as the report's lines."""
    unit = block["unit"]
    line = f"throughput  {block['per_cycle']:.4f} {unit} per cycle"
    if block["per_second"] is None:
        return [line, f"            {NO_CLOCK}"]
    return [line + f"; {_si(block['per_second'])} {unit}/s at {block['clock_mhz']:g} MHz "
                   f"({block['clock_source']})"]
