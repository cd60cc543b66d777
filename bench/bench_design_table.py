"""Issue 20's design table: every design's default configuration on ECP5-85k (LUT4, FF, EBR,
Fmax: Yosys and nextpnr, seed 1, out of context, 100 MHz asked), on the Gowin GW5AST-138C
(LUT4, FF, BSRAM, DSP, Fmax: ``synth_gowin`` and nextpnr-himbaechel-gowin, likewise) and at
0.18 um (OSU 0.18 standard cells per unit, memories from the SRAM model; scaled to 28 nm by
lambda squared), next to what the papers give. A default too big for a chip keeps Yosys's
counts and names what nextpnr found overflowing, in place of an Fmax; one that nextpnr did not
finish in the time limit keeps them too, with how far it got.

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
from synth.flow import ASIC_NODE_NM  # noqa: E402
from synth.sram_model import scale_area  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "build" / "bench" / "design-table.json"
DESIGNS = ("cam", "graphicionado", "graphicionado-cf", "depgraph", "bfs", "dyngraph")
TARGETS = ("ecp5", "gw5a-138", "asic")
SCALED_NM = 28.0

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
                stack_lines=cfg.stack_lines)
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
           "asic": ("asic_area_mm2", "asic_logic_mm2", "asic_memory_mm2_model", "seconds")}
SCALED = f"asic_area_mm2_at_{SCALED_NM:g}nm"


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", default=",".join(DESIGNS))
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--time-limit", type=float, default=3600.0, metavar="SECONDS",
                        help="for each design's synthesis for each target")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    designs = [d.strip() for d in args.designs.split(",") if d.strip()]
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    for name in designs:
        get_design(name)
    points = [{"index": index, "design": name, "settings": {}, "targets": [target],
               "time_limit": args.time_limit}
              for index, (name, target) in enumerate((n, t) for n in designs for t in targets)]
    folder = ROOT / "build" / "bench" / "design-table"
    report = base_report("bench", "design-table", None)
    rows, complete = run_sweep(points, folder, workers=args.workers, meta=report)
    by_point = {row["point"]: row for row in rows}
    table = []
    for point in points:
        row = by_point.get(point["index"], {"error": "not run"})
        target = point["targets"][0]
        entry = next((e for e in table if e["design"] == point["design"]), None)
        if entry is None:
            entry = {"design": point["design"],
                     "configuration": get_design(point["design"]).config({}).as_dict(),
                     "paper": PAPERS.get(point["design"], "")}
            table.append(entry)
        entry[target] = _figures(row, target)
    lines = ["| design | ECP5-85k LUT4 / FF / EBR | Fmax MHz | GW5AST-138C LUT4 / FF / BSRAM / "
             "DSP | Fmax MHz | 0.18 um mm2 (logic + SRAM "
             f"model) | {SCALED_NM:g} nm mm2 | the paper |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for entry in table:
        ecp5 = entry.get("ecp5", {"error": "not asked"})
        gw5a = entry.get("gw5a-138", {"error": "not asked"})
        asic = entry.get("asic", {"error": "not asked"})
        lines.append(f"| {entry['design']} | "
                     f"{_cell(ecp5, ('ecp5_lut4', 'ecp5_ff', 'ecp5_ebr'), '{:,}')} | "
                     f"{_fmax_cell(ecp5)} | "
                     f"{_cell(gw5a, ('gw5a_lut4', 'gw5a_ff', 'gw5a_bsram', 'gw5a_dsp'), '{:,}')}"
                     f" | {_fmax_cell(gw5a, 'gw5a', 'gw5a_fmax_mhz')} | "
                     f"{_cell(asic, ('asic_area_mm2',), '{:.2f}')} | "
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
