"""The page of ``graphgen report`` for a folder holding ``bench/bench_cpu_baseline.py``'s JSON
report: per algorithm, the CPU libraries' times and each accelerator's cycles, its time at
each clock and its speed-up over the fastest library (issue 54 item 1), the machine and the
clocks' sources; and each run's energy estimate by term with its sources where the report
has one (item 6)."""

from __future__ import annotations

import json
from pathlib import Path

from .energy import sram_of
from .html_report import html_page, versions_footer
from .reports import atomic_write
from .run_page import _e, _kv_table, _table

__all__ = ["find_baseline_report", "write_baseline_page"]

CLOCKS = ("ecp5", "asic", "paper")


def find_baseline_report(folder: Path) -> Path | None:
    """The newest CPU-baseline bench report among ``folder``'s JSON files, or None."""
    found = []
    for path in Path(folder).glob("*.json"):
        try:
            report = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(report, dict) and report.get("command") == "bench" and \
                report.get("design") == "cpu-baseline" and isinstance(report.get("results"),
                                                                       dict):
            found.append((str(report.get("date")), path))
    return max(found)[1] if found else None


def _ms(seconds) -> str:
    return "—" if seconds is None else f"{seconds * 1e3:,.3f} ms"


def _algo_rows(algo: str, entry: dict) -> list[list]:
    rows = []
    teps = entry.get("teps_edges") or entry.get("operations")
    unit = "M TEPS" if entry.get("teps_edges") else "M updates/s"
    for library, run in entry["cpu"].items():
        if "seconds" not in run:
            rows.append([algo, library, "not run: " + run.get("unavailable", "")] +
                        ["—"] * (2 * len(CLOCKS)))
            continue
        rate = f" ({teps / run['seconds'] / 1e6:,.1f} {unit})" if teps else ""
        rows.append([algo, f"{library}, {run['threads']} thread(s)",
                     _ms(run["seconds"]) + rate] + ["—"] * (2 * len(CLOCKS)))
    for name, acc in entry["accelerators"].items():
        cells = [algo, name, f"{acc['cycles']:,} cycles"]
        for clock in CLOCKS:
            seconds = acc.get("seconds", {}).get(clock)
            speed = acc.get("speedup", {}).get(clock)
            cells += [_ms(seconds), "—" if speed is None else f"{speed:.2f}×"]
        rows.append(cells)
    return rows


def _mj(joules) -> str:
    return f"{joules * 1e3:,.4f} mJ"


def _energy_rows(algo: str, entry: dict) -> tuple[list[list], dict[str, str]]:
    """The energy table's rows of one algorithm and the sources its cells name."""
    rows, sources = [], {}
    work = entry.get("teps_edges") or entry.get("operations")
    for library, run in entry["cpu"].items():
        energy = run.get("energy")
        if energy:
            per = f"{energy['joules'] / work * 1e9:,.2f} nJ" if work else "—"
            rows.append([algo, library, "—", "—", "—", _mj(energy["joules"]), per])
            sources[f"{library}, CPU power"] = energy["source"]
    for name, acc in entry["accelerators"].items():
        energy = acc.get("energy") or {}
        if "terms" not in energy:
            continue
        terms = energy["terms"]
        sram, counted = sram_of(terms)
        rows.append([algo, name, _mj(terms["logic"]["joules"]),
                     _mj(sram["joules"]) + ("" if counted else " (bound)"),
                     _mj(terms["dram"]["joules"]), _mj(energy["joules"]),
                     f"{energy['joules_per_edge'] * 1e9:,.2f} nJ"])
        for label, term in (("logic", terms["logic"]),
                            ("SRAM" if counted else "SRAM bound", sram),
                            ("DRAM", terms["dram"])):
            sources[f"{name}, {label}"] = term["source"]
    return rows, sources


def _energy_section(report: dict) -> str:
    rows, sources = [], {}
    for algo, entry in report["results"].items():
        more, named = _energy_rows(algo, entry)
        rows += more
        sources.update(named)
    if not rows:
        return ("<p>No energy estimates: give the bench <code>--asic ROW=FILE</code> reports "
                "synthesized with OpenSTA's power, and <code>--cpu-watts</code>.</p>")
    return ("<h2>Energy (estimates)</h2><p>Each term an estimate, labelled with its source "
            "below: logic from OpenSTA's power report of the 0.18 µm netlist, the SRAM "
            "macros' accesses counted in the RTL run at the SRAM model's energy (marked "
            "\"bound\" where a run counted none: every port each cycle), DRAM bytes at a "
            "published energy a byte. Per edge: the run's edges (TEPS edges for BFS).</p>"
            + _table(["algorithm", "row", "logic", "SRAM", "DRAM", "total", "per edge"],
                     rows, numeric_from=2)
            + _kv_table(sorted(sources.items()), caption="Where each term comes from",
                        keys="term"))


def write_baseline_page(path: Path, output: Path) -> dict:
    """Write the page of the report at ``path`` to ``output``; returns what it holds."""
    report = json.loads(Path(path).read_text())
    columns = ["algorithm", "row", "time or cycles"]
    for clock in CLOCKS:
        columns += [f"time at the {clock} clock", "speed-up"]
    rows = [row for algo, entry in report["results"].items() for row in _algo_rows(algo, entry)]
    clocks = [(f"{row}, {kind}", f"{c['mhz']:,.1f} MHz: {c['source']}")
              for row, kinds in report["clocks"].items() for kind, c in kinds.items()]
    cpu = report["cpu"]
    body = (f"<h1>Accelerators against CPU graph libraries</h1>"
            f"<p>Graph {_e(report['graph'])}: {report['vertices']:,} vertices, "
            f"{report['edges']:,} edges. CPU: {_e(cpu['model'])}, {cpu['logical_cpus']} "
            f"logical CPUs. Each library's best time of its runs; each accelerator's cycles "
            f"in RTL simulation; every answer equal to the golden model's. The speed-up is "
            f"the fastest library's time over the accelerator's at that clock.</p>"
            + _table(columns, rows, numeric_from=2)
            + _kv_table(clocks, caption="The clocks and where they come from", keys="clock")
            + _energy_section(report))
    atomic_write(Path(output), html_page("graphgen: CPU baseline", body,
                                         versions_footer(report.get("tool_versions", {}))))
    return {"algorithms": len(report["results"]), "rows": len(rows)}
