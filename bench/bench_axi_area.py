"""Issue 52's area benchmark: the AXI adapters and the AXI4-Lite register slave of each
design's AXI top, on ECP5 (LUT4 / FF from Yosys ``synth_ecp5 -noflatten``, no place and
route) and at 0.18 um (OSU 0.18 standard cells, ``graphgen synth --target asic --per-unit``'s
flow; memories of 65+ words from the SRAM model), and their share of the whole top.

The AXI top (``graphgen synth --bus axi``, default AXI parameters) is cut at its submodules:
``design`` (the design itself), ``master`` or ``master0``, ``master1``, ... (an AXI4 master per
memory channel), ``regs`` (the AXI4-Lite register slave) and ``(top)`` (the top's own logic:
run control, error cause, base checks). The adapters are the masters, the register slave and
the top's own logic; the share is theirs of the top's total.

The designs run at the configurations the project's other benches synthesize (the defaults
of all but Graphicionado take an hour or more on ECP5): see ``CONFIGS``, or with ``--configs
smallest`` each design's smallest (``SMALLEST``). Each (design, target)'s figures are kept in
``build/bench/axi-area/<design>-<digest>/<target>.json`` (the digest covers the
configuration) and reused by a later run unless ``--rerun``: two runs with ``--targets ecp5``
and ``--targets asic`` side by side, then one with both, give the whole table. Prints a
Markdown table and writes the JSON report.
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphgen.designs import get_design  # noqa: E402
from graphgen.reports import atomic_write, base_report, write_json  # noqa: E402
from synth.flow import ecp5_unit_cells, synthesize  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "build" / "bench" / "axi-area.json"
TARGETS = ("ecp5", "asic")

# Each design's configuration (``--configs bench``): Graphicionado's default; DepGraph's two
# engines of the Makefile's ECP5 run; the BFS engine and the dynamic graph unit as
# docs/results.md synthesizes them on ECP5. Yosys takes some tens of minutes on each here.
CONFIGS = {
    "graphicionado": {},
    "depgraph": {"engines": "2", "bank_vertices": "4096", "algo": "sssp"},
    "bfs": {"lanes": "2", "bu_slots": "32", "read_window": "16", "scan_window": "16",
            "memory_outstanding": "64"},
    "dyngraph": {"slots": "4", "memory_outstanding": "8"},
}
# ``--configs smallest``: each design's smallest configuration (tests/tools/
# test_synth_designs.py): 3 to 14 minutes per design at 0.18 um and 10 to 28 on ECP5 here (two
# loaded cores); the adapters are the same, the designs far smaller than any real run's, so
# their share is an upper bound.
SMALLEST = {
    "graphicionado": {"max_vertices": "256", "memory_outstanding": "16",
                      "edge_prefetch_lines": "8", "edge_jobs": "4"},
    "depgraph": {"engines": "1", "bank_vertices": "256", "memory_outstanding": "16"},
    "bfs": {"lanes": "1", "max_vertices": "256", "hub_cache_entries": "16", "bu_slots": "4",
            "read_window": "4", "memory_outstanding": "16"},
    "dyngraph": {"slots": "2", "lock_ways": "2", "max_vertices": "16",
                 "memory_outstanding": "4", "read_window": "2"},
}


def unit_kind(unit: str) -> str:
    """Which part of the AXI top a per-unit name is."""
    if unit == "design":
        return "design"
    if unit == "regs":
        return "register_slave"
    if unit == "(top)":
        return "top_logic"
    if unit.startswith("master"):
        return "masters"
    raise ValueError(f"unexpected unit {unit!r} in an AXI top")


def split(units: dict, keys: tuple) -> dict:
    """``units`` (unit name → figures) summed by :func:`unit_kind` over ``keys``; ``adapters``
    is the masters, the register slave and the top's own logic together."""
    parts = {kind: {key: 0 for key in keys}
             for kind in ("design", "masters", "register_slave", "top_logic")}
    names = {kind: [] for kind in parts}
    for unit, figures in units.items():
        kind = unit_kind(unit)
        names[kind].append(unit)
        for key in keys:
            parts[kind][key] += figures[key]
    parts["adapters"] = {key: sum(parts[kind][key] for kind in
                                  ("masters", "register_slave", "top_logic")) for key in keys}
    total = {key: parts["adapters"][key] + parts["design"][key] for key in keys}
    parts["total"] = total
    parts["adapter_share"] = {key: parts["adapters"][key] / total[key] if total[key] else 0.0
                              for key in keys}
    parts["units"] = names
    return parts


def measure(name: str, settings: dict, targets, time_limit: float | None,
            rerun: bool = False) -> dict:
    design = get_design(name)
    config = design.config(settings).design_only()
    component = design.axi_top(config)
    top = design.top(config, "axi")
    folder = ROOT / "build" / "bench" / "axi-area" / f"{name}-{config.digest()}"
    folder.mkdir(parents=True, exist_ok=True)
    verilog = folder / f"{top}.v"
    atomic_write(verilog, design.verilog(config, component, bus="axi"))
    entry = {"design": name, "settings": settings, "configuration": config.as_dict(),
             "top": top, "masters": len(component.master_prefixes)}
    for target in targets:
        kept = folder / f"{target}.json"
        if kept.is_file() and not rerun:
            entry[target] = json.loads(kept.read_text())
            continue
        start = time.perf_counter()
        if target == "ecp5":
            figures = ecp5_unit_cells(verilog, top, folder / "ecp5", time_limit_s=time_limit)
            entry[target] = {**split(figures["units"], ("lut4", "ff")),
                             "per_unit": figures["units"]}
        else:
            figures = synthesize(verilog, top, "asic", folder / "asic", per_unit=True,
                                 time_limit_s=time_limit)
            entry[target] = {**split(figures["units"], ("area_total_um2_with_model",
                                                        "area_logic_um2")),
                             "per_unit": {unit: {key: value for key, value
                                                 in unit_figures.items() if key != "parts"}
                                          for unit, unit_figures in figures["units"].items()},
                             "notes": figures["notes"]}
        entry[target]["seconds"] = time.perf_counter() - start
        entry[target]["tool_versions"] = figures["tool_versions"]
        atomic_write(kept, json.dumps(entry[target], indent=1))
    return entry


def table(entries) -> list[str]:
    lines = ["| design | adapters LUT4 / FF | design LUT4 / FF | share LUT4 / FF | "
             "masters + regs + top µm² | design µm² | share of µm² |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for entry in entries:
        cells = [entry["design"]]
        ecp5 = entry.get("ecp5")
        if ecp5:
            a, d, s = ecp5["adapters"], ecp5["design"], ecp5["adapter_share"]
            cells += [f"{a['lut4']:,} / {a['ff']:,}", f"{d['lut4']:,} / {d['ff']:,}",
                      f"{s['lut4']:.1%} / {s['ff']:.1%}"]
        else:
            cells += ["-"] * 3
        asic = entry.get("asic")
        if asic:
            key = "area_total_um2_with_model"
            m, r, t = (asic[kind][key] for kind in ("masters", "register_slave", "top_logic"))
            cells += [f"{m:,.0f} + {r:,.0f} + {t:,.0f}", f"{asic['design'][key]:,.0f}",
                      f"{asic['adapter_share'][key]:.1%}"]
        else:
            cells += ["-"] * 3
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", default=",".join(CONFIGS))
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--time-limit", type=float, default=3600.0, metavar="SECONDS",
                        help="for each design's synthesis for each target")
    parser.add_argument("--configs", choices=("bench", "smallest"), default="bench",
                        help="the designs' configurations: bench (CONFIGS) or smallest")
    parser.add_argument("--rerun", action="store_true",
                        help="synthesize again what an earlier run kept")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    configs = CONFIGS if args.configs == "bench" else SMALLEST
    designs = [d.strip() for d in args.designs.split(",") if d.strip()]
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    for name in designs:
        if name not in CONFIGS:
            parser.error(f"unknown design {name!r}: one of {', '.join(CONFIGS)}")
    for target in targets:
        if target not in TARGETS:
            parser.error(f"unknown target {target!r}: one of {', '.join(TARGETS)}")
    report = base_report("bench", "axi-area", None)
    report["configs"] = args.configs
    entries = []
    for name in designs:
        entries.append(measure(name, configs[name], targets, args.time_limit, args.rerun))
        # Written after each design: a long run's finished designs are kept.
        report["entries"] = entries
        report["table"] = table(entries)
        write_json(args.json, report)
        print(report["table"][-1], flush=True)
    print("\n".join(report["table"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
