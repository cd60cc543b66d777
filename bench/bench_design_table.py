"""Issue 20's design table: every design's default configuration on ECP5-85k (LUT4, FF, EBR,
Fmax: Yosys and nextpnr, seed 1, out of context, 100 MHz asked), on the Gowin GW5AST-138C
(LUT4, FF, BSRAM, DSP, Fmax: ``synth_gowin`` and nextpnr-himbaechel-gowin, likewise) and at
0.18 um (OSU 0.18 standard cells per unit, memories from the SRAM model; scaled to 28 nm by
lambda squared), next to what the papers give. A default too big for a chip keeps Yosys's
counts and names what nextpnr found overflowing, in place of an Fmax; one that nextpnr did not
finish in the time limit keeps them too, with how far it got.

Beside the ECP5 figures, each design that ``graphgen sim`` runs gets its throughput at its
measured Fmax, and at the GW5A's and the 0.18 um netlist's (OpenSTA, pre-layout, inside
units) where they were measured: one RTL simulation of the same default configuration (the
same Verilog, joined by its hash) on one named graph (:data:`SIM_RUNS`: data/kron11.mtx, BFS
for the engines that take an algorithm, a fixed mix of updates for the dynamic graph unit), its
work per cycle
times the Fmax (``graphgen.throughput.per_second``): edges per second (TEPS for the BFS
engine, Graph500's count) or operations per second. A design without a simulation, or
without an Fmax, says so in the cell.

Each (design, target) is one point of a sweep (``graphgen.sweep``: a local Dask cluster,
results cached in ``build/bench/design-table/cache`` by the Verilog's hash, so a rerun does
only what is missing or changed). A run stopped at ``--time-limit`` is reported as such, not as
a figure. Prints a Markdown table and writes the JSON report (the rows and the paper figures).
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphgen.designs import get_design  # noqa: E402
from graphgen.reports import atomic_write, base_report, write_json  # noqa: E402
from graphgen.sweep import run_sweep  # noqa: E402
from graphgen.throughput import per_second  # noqa: E402
from synth.flow import ASIC_NODE_NM  # noqa: E402
from synth.sram_model import scale_area  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "build" / "bench" / "design-table.json"
DESIGNS = ("cam", "graphicionado", "graphicionado-cf", "depgraph", "bfs", "dyngraph")
TARGETS = ("ecp5", "gw5a-138", "asic")
SCALED_NM = 28.0
KRON11 = ROOT / "data" / "kron11.mtx"
# The one run per design whose work per cycle, times the design's ECP5 Fmax, is its
# throughput in the table (the default configuration's algorithm: the synthesized Verilog's).
SIM_RUNS = {
    "graphicionado": {"algo": "bfs", "graph": str(KRON11), "root": 0},
    "depgraph": {"algo": "bfs", "graph": str(KRON11), "root": 0},
    "bfs": {"algo": "bfs", "graph": str(KRON11), "root": 0},
    "dyngraph": {"graph": str(KRON11),
                 "updates": "mix:ops=4096,insert=50,delete=25,search=25,seed=1"},
}
# What each design's work is, as the table's cell names it.
WORK_NAMES = {"bfs": "TEPS", "depgraph": "edges fetched/s", "graphicionado": "edges/s",
              "dyngraph": "operations/s"}

# What the source documents (../shared/papers) give for each design's hardware cost.
PAPERS = {
    "cam": "Graphicionado P6: 4-way set-associative, 16 entries of 4 bytes; no area given",
    "graphicionado": "the source text here (004_*.txt) gives no area or power figure",
    "graphicionado-cf": "as graphicionado (CF: 128-byte properties, 32-byte flits)",
    "depgraph": "DepGraph-H: 0.6% of the chip's area; per core a 6.1 Kbit stack and a "
                "4.8 Kbit FIFO edge buffer",
    "bfs": "Enterprise and Luo et al. are GPU software: no hardware area",
    "dyngraph": "GPU software (slab hash): no hardware area; 500-1,015 M edges/s on a GPU",
}


def depgraph_core_bits(settings: dict) -> dict:
    """A DepGraph core's stack and FIFO edge buffer in bits, as the blocks give them
    (``HDTL.stack_bits`` for each of the core's walks, ``FIFOEdgeBuffer.bits``), for the
    comparison with the paper's 6.1 and 4.8 Kbit."""
    from hw.depgraph.fifo_edge_buffer import FIFOEdgeBuffer
    from hw.depgraph.hdtl import HDTL
    cfg = get_design("depgraph").config(settings)
    hdtl = HDTL(addr_width=cfg.addr_width, stack_depth=cfg.stack_depth, algo=cfg.algo,
                hub_index=cfg.hub_index, kept_lines=cfg.kept_lines,
                stack_lines=cfg.stack_lines, edge_words=cfg.edge_words)
    fifo = FIFOEdgeBuffer(depth=cfg.edge_fifo_depth)
    return {"stack_bits": cfg.walks * hdtl.stack_bits,
            "stack_entry_bits": hdtl.stack_bits // cfg.stack_depth,
            "stack_entries": cfg.walks * cfg.stack_depth,
            "fifo_bits": fifo.bits, "fifo_entry_bits": fifo.bits // fifo.depth,
            "fifo_entries": fifo.depth}


# The sweep table's columns (``graphgen.sweep.flat_row``) each target's entry keeps.
COLUMNS = {"ecp5": ("ecp5_lut4", "ecp5_ff", "ecp5_ebr", "ecp5_dsp", "ecp5_lutram",
                    "ecp5_overflow", "ecp5_stopped", "fmax_mhz", "seconds"),
           "gw5a-138": ("gw5a_lut4", "gw5a_ff", "gw5a_bsram", "gw5a_dsp", "gw5a_overflow",
                        "gw5a_stopped", "gw5a_fmax_mhz", "seconds"),
           "asic": ("asic_area_mm2", "asic_logic_mm2", "asic_memory_mm2_model", "asic_fmax_mhz",
                    "seconds")}
SCALED = f"asic_area_mm2_at_{SCALED_NM:g}nm"
# The clocks besides the ECP5's that the throughput is given at: (label, target, its column).
OTHER_CLOCKS = (("GW5A", "gw5a-138", "gw5a_fmax_mhz"), ("0.18 um", "asic", "asic_fmax_mhz"))


def _figures(row: dict, target: str) -> dict:
    if row.get("error"):
        return {"error": row["error"]}
    figures = {key: row[key] for key in COLUMNS[target]}
    if target == "asic":
        figures[SCALED] = scale_area(row["asic_area_mm2"], ASIC_NODE_NM, SCALED_NM)
    return figures


def _cell(figures: dict, keys, fmt) -> str:
    if "error" in figures:
        if figures["error"] == "not asked":
            return "-"
        return "stopped at the time limit" if "time limit" in figures["error"] else "failed"
    return " / ".join(fmt.format(figures[k]) if figures.get(k) is not None else "-"
                      for k in keys)


def _fmax_cell(figures: dict, prefix: str = "ecp5", fmax: str = "fmax_mhz") -> str:
    """An FPGA target's Fmax cell: the Fmax, or what overflowed, or how far nextpnr got;
    ``prefix`` names the target's columns (``ecp5_overflow``, ...), ``fmax`` its Fmax's."""
    if figures.get(f"{prefix}_overflow"):
        return f"does not fit: {figures[f'{prefix}_overflow']}"
    if figures.get(f"{prefix}_stopped"):
        return f"no Fmax: nextpnr {figures[f'{prefix}_stopped']}"
    return _cell(figures, (fmax,), "{:.1f}")


def sim_point(index: int, name: str) -> dict | None:
    """The sweep point of ``name``'s throughput run (no synthesis), or None without one."""
    if name not in SIM_RUNS:
        return None
    return {"index": index, "design": name, "settings": {}, "targets": [], **SIM_RUNS[name]}


def throughput_entry(sim_row: dict | None, ecp5: dict, name: str,
                     others: dict[str, dict] | None = None) -> dict:
    """A design's throughput at its ECP5 Fmax: the sim row (``graphgen.sweep.flat_row``) of
    the same Verilog as the synthesis (``ecp5``: its row), its work per cycle and per second;
    or why there is none (``missing``). ``others``: the other targets' rows by label, each
    with its ``fmax_mhz``; the work per second at each of their clocks is under ``at``."""
    if sim_row is None:
        return {"missing": "no simulation of this design"}
    if sim_row.get("error"):
        return {"missing": f"simulation failed: {sim_row['error']}"}
    edges = sim_row.get("edges_per_cycle") is not None
    per_cycle = sim_row["edges_per_cycle"] if edges else sim_row.get("operations_per_cycle")
    entry = {"run": {k: v for k, v in SIM_RUNS[name].items()},
             "unit": "edges" if edges else "operations", "cycles": sim_row.get("cycles"),
             "per_cycle": per_cycle, "graph_symmetric": sim_row.get("graph_symmetric"),
             "verilog_sha256": sim_row.get("verilog_sha256")}
    fmax = ecp5.get("fmax_mhz")
    if ecp5.get("verilog_sha256") and ecp5["verilog_sha256"] != sim_row.get("verilog_sha256"):
        entry["missing"] = "the simulated Verilog is not the synthesized one"
    elif not fmax:
        entry["missing"] = "no ECP5 Fmax"
    else:
        entry.update(fmax_mhz=fmax, per_second=per_second(per_cycle, fmax))
    entry["at"] = {label: {"fmax_mhz": row["fmax_mhz"],
                           "per_second": per_second(per_cycle, row["fmax_mhz"])}
                   for label, row in (others or {}).items()
                   if row.get("fmax_mhz") and per_cycle is not None
                   and row.get("verilog_sha256") in (None, sim_row.get("verilog_sha256"))}
    return entry


def throughput_cell(entry: dict | None, name: str) -> str:
    if not entry:
        return "-"
    if entry.get("per_cycle") is None:
        return entry.get("missing", "-")
    unit = "edges" if entry["unit"] == "edges" else "ops"
    work = WORK_NAMES.get(name, unit + "/s")
    text = f"{entry['per_cycle']:.3f} {unit}/cycle"
    if entry.get("per_second") is None:
        text = f"{text}; {entry.get('missing', 'no ECP5 Fmax')}"
    else:
        text = f"{text}, {entry['per_second'] / 1e6:.1f} M {work}"
    for label, at in entry.get("at", {}).items():
        text += f"; {at['per_second'] / 1e6:.1f} M {work} at {label}'s {at['fmax_mhz']:.1f} MHz"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", default=",".join(DESIGNS))
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--time-limit", type=float, default=3600.0, metavar="SECONDS",
                        help="for each design's synthesis for each target")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--no-sim", action="store_true",
                        help="leave out the throughput runs (RTL simulations)")
    args = parser.parse_args()
    designs = [d.strip() for d in args.designs.split(",") if d.strip()]
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    for name in designs:
        get_design(name)
    points = [{"index": index, "design": name, "settings": {}, "targets": [target],
               "time_limit": args.time_limit}
              for index, (name, target) in enumerate((n, t) for n in designs for t in targets)]
    sims = {}
    if not args.no_sim:
        for name in designs:
            point = sim_point(len(points), name)
            if point is not None:
                points.append(point)
                sims[name] = point["index"]
    folder = ROOT / "build" / "bench" / "design-table"
    report = base_report("bench", "design-table", None)
    rows, complete = run_sweep(points, folder, workers=args.workers, meta=report)
    by_point = {row["point"]: row for row in rows}
    table = []
    for point in points:
        if not point["targets"]:
            continue
        row = by_point.get(point["index"], {"error": "not run"})
        target = point["targets"][0]
        entry = next((e for e in table if e["design"] == point["design"]), None)
        if entry is None:
            entry = {"design": point["design"],
                     "configuration": get_design(point["design"]).config({}).as_dict(),
                     "paper": PAPERS.get(point["design"], "")}
            table.append(entry)
        entry[target] = _figures(row, target)
        entry.setdefault("rows", {})[target] = row
    for entry in table:
        rows = entry.pop("rows")
        if not args.no_sim:
            sim_row = by_point.get(sims[entry["design"]], {"error": "not run"}) \
                if entry["design"] in sims else None
            others = {label: {"fmax_mhz": rows.get(target, {}).get(key),
                              "verilog_sha256": rows.get(target, {}).get("verilog_sha256")}
                      for label, target, key in OTHER_CLOCKS}
            entry["throughput"] = throughput_entry(sim_row, rows.get("ecp5", {}),
                                                   entry["design"], others)
    lines = ["| design | ECP5-85k LUT4 / FF / EBR | Fmax MHz | throughput at the Fmax "
             "(kron11; ECP5, then the others' clocks) | GW5AST-138C LUT4 / FF / BSRAM / DSP | "
             "Fmax MHz | 0.18 um mm2 (logic + SRAM model) | 0.18 um Fmax MHz (OpenSTA, "
             f"pre-layout) | {SCALED_NM:g} nm mm2 | the paper |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for entry in table:
        ecp5 = entry.get("ecp5", {"error": "not asked"})
        gw5a = entry.get("gw5a-138", {"error": "not asked"})
        asic = entry.get("asic", {"error": "not asked"})
        lines.append(f"| {entry['design']} | "
                     f"{_cell(ecp5, ('ecp5_lut4', 'ecp5_ff', 'ecp5_ebr'), '{:,}')} | "
                     f"{_fmax_cell(ecp5)} | "
                     f"{throughput_cell(entry.get('throughput'), entry['design'])} | "
                     f"{_cell(gw5a, ('gw5a_lut4', 'gw5a_ff', 'gw5a_bsram', 'gw5a_dsp'), '{:,}')}"
                     f" | {_fmax_cell(gw5a, 'gw5a', 'gw5a_fmax_mhz')} | "
                     f"{_cell(asic, ('asic_area_mm2',), '{:.2f}')} | "
                     f"{_cell(asic, ('asic_fmax_mhz',), '{:.1f}')} | "
                     f"{_cell(asic, (SCALED,), '{:.3f}')} | {entry['paper']} |")
    bits = {}
    if "depgraph" in designs:
        bits = depgraph_core_bits({})
        lines.append("")
        lines.append(f"DepGraph per core (default configuration): stack {bits['stack_entries']} x "
                     f"{bits['stack_entry_bits']} bits = {bits['stack_bits'] / 1000:.2f} Kbit "
                     f"(the paper: 6.1 Kbit), FIFO edge buffer {bits['fifo_entries']} x "
                     f"{bits['fifo_entry_bits']} bits = {bits['fifo_bits'] / 1000:.2f} Kbit "
                     f"(the paper: 4.8 Kbit)")
    text = "\n".join(lines) + "\n"
    print(text)
    atomic_write(folder / "table.md", text)
    report.update({"time_limit_s": args.time_limit, "complete": complete, "designs": table,
                   "depgraph_core_bits": bits,
                   "scaled_nm": SCALED_NM, "asic_node_nm": ASIC_NODE_NM})
    write_json(args.json, report)
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
