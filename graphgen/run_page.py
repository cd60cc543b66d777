"""``graphgen report RUN_DIR -o report.html`` for a folder of one accelerator run: the page
``make run`` ends with.

The folder holds one ``graphgen sim --json`` report and any number of ``graphgen synth
--json`` reports (every ``*.json`` whose ``command`` is ``sim`` or ``synth``). The page is
about that run: the design and its configuration (key/value tables), the result's check
against the golden model (vertices compared and differing, iterations), cycles by phase and
edges per cycle, cycles and edges per cycle of each iteration (from the counters the
testbench read at each iteration's end), each memory channel's utilisation, the memory
roofline (bytes per edge by kind of data against the memory's peak), the stall
counters, and, from the synthesis reports of the same configuration (the same
``config_digest``), the ASIC area by unit and the ECP5 Fmax. A synthesis report of another
design or configuration is left out (the page names it). Nothing is shown that the reports
do not record: a figure no report holds is said to be missing, with the command that
measures it. The tool versions are given once, in the footer.

Graphicionado's reports get every section; another design's simulation figures are shown as
a key/value table of what its report records, and the BFS engine's per-level and the dynamic
graph unit's per-batch figures as a table and a chart.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from .html_report import figure_html, html_page, svg_of, versions_footer
from .reports import atomic_write


__all__ = ["RunFolderError", "is_run_folder", "load_run", "write_run_page"]

# What each Graphicionado stall counter counts: cycles a stage held a valid output its
# consumer did not take (hw/graphicionado/source_stream.py, destination_stream.py), summed
# over the streams of its side.
_STALLS = {
    "stall_p1": ("source", "P1 (active vertex, source property) waiting for the edge-ID read"),
    "stall_p2": ("source", "P2 (edge-ID read) waiting for the edge read"),
    "cam_stalls": ("destination", "atomic update's CAM: an update held back by one in flight "
                                  "to the same vertex (processing phase)"),
    "stall_p3": ("destination", "P3 FIFO (edges from the crossbar) waiting for Process_Edge "
                                "or the destination property read"),
    "stall_p4": ("destination", "P4 destination property read waiting for Process_Edge"),
    "stall_p5": ("destination", "P5 FIFO (updates) waiting for the atomic update"),
    "stall_region": ("destination", "P3 (edges from the crossbar) held while the slice's "
                                    "region loads or clears (extended slicing)"),
    "stall_apply": ("destination", "Apply waiting on one of its inputs or its output "
                                   "(apply phase)"),
}


class RunFolderError(ValueError):
    """A folder the run page cannot be made from (one line)."""


def _reports(folder: Path) -> list[tuple[Path, dict]]:
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("command") in ("sim", "synth"):
            found.append((path, data))
    return found


def is_run_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a ``graphgen sim --json`` report."""
    return any(data["command"] == "sim" for _, data in _reports(folder))


def load_run(folder: Path) -> dict:
    """The run in ``folder``: ``sim`` (path, report), ``synth`` (the reports of the same
    design and configuration) and ``left_out`` ((path, reason) of the others)."""
    reports = _reports(folder)
    sims = [(p, d) for p, d in reports if d["command"] == "sim"]
    if not sims:
        raise RunFolderError(f"{folder} holds no graphgen sim --json report")
    if len(sims) > 1:
        raise RunFolderError(f"{folder} holds {len(sims)} graphgen sim reports "
                             f"({', '.join(p.name for p, _ in sims)}): the page is of one run")
    sim_path, sim = sims[0]
    synth, left_out = [], []
    for path, data in reports:
        if data["command"] != "synth":
            continue
        if data.get("design") != sim.get("design"):
            left_out.append((path, f"design {data.get('design')}, not {sim.get('design')}"))
        elif data.get("config_digest") != sim.get("config_digest"):
            left_out.append((path, f"another configuration (digest "
                                   f"{data.get('config_digest')}, the run's "
                                   f"{sim.get('config_digest')})"))
        else:
            synth.append((path, data))
    return {"sim": (sim_path, sim), "synth": synth, "left_out": left_out}


# ---------------------------------------------------------------------------------------
# Formatting

def _e(value) -> str:
    return html.escape(str(value))


def _num(value, digits: int = 4) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value == int(value) and abs(value) < 1e15:
            return f"{int(value):,}"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    return str(value)


def _pct(value) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _kv_table(pairs, caption: str | None = None, keys: str = "key") -> str:
    rows = "".join(f"<tr><td>{_e(k)}</td><td>{_e(_num(v) if not isinstance(v, str) else v)}"
                   f"</td></tr>" for k, v in pairs)
    head = f"<caption>{_e(caption)}</caption>" if caption else ""
    cls = ' class="kv"' if keys == "key" else ""
    return f'<table{cls}>{head}<tr><th>{_e(keys)}</th><th>value</th></tr>{rows}</table>'


def _table(columns: list[str], rows: list[list], numeric_from: int = 1) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = []
    for row in rows:
        cells = []
        for i, value in enumerate(row):
            cls = ' class="num"' if i >= numeric_from else ""
            cells.append(f"<td{cls}>{_e(value)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _scalars(prefix: str, value):
    """A nested dict's scalar leaves as (dotted key, value) pairs."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _scalars(f"{prefix}.{key}" if prefix else str(key), item)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for index, item in enumerate(value):
            yield from _scalars(f"{prefix}[{index}]", item)
    elif isinstance(value, list):
        yield prefix, ", ".join(_num(v) for v in value)
    else:
        yield prefix, value


# ---------------------------------------------------------------------------------------
# Sections

def _check_section(sim: dict) -> tuple[str, bool | None]:
    figures = sim.get("figures", {})
    matches = figures.get("matches_golden")
    if matches is None:
        matches = sim.get("first_mismatch") is None if "first_mismatch" in sim else None
    check = figures.get("check") or {}
    comparison = figures.get("comparison", "exact")
    compared = check.get("vertices_compared")
    differing = check.get("vertices_differing")
    if matches is None:
        verdict = '<span class="bad">not recorded</span>'
    elif matches:
        verdict = '<span class="ok" id="verdict">MATCHES the golden model</span>'
    else:
        verdict = '<span class="bad" id="verdict">DIFFERS from the golden model</span>'
    counts = []
    if compared is not None:
        counts.append(f"{_num(differing)} of {_num(compared)} vertices differ "
                      f"({_num(compared - differing)} equal; the values compared "
                      f"{_e(comparison)})")
    else:
        counts.append(f"the values compared {_e(comparison)}; this report does not record "
                      f"how many vertices were compared (an older graphgen sim)")
    if check.get("golden_iterations") is not None:
        counts.append(f"{_num(check['iterations'])} iterations in RTL, "
                      f"{_num(check['golden_iterations'])} in the golden model")
    bad = sim.get("first_mismatch")
    if bad:
        feature = f", feature {bad['feature']}" if "feature" in bad else ""
        counts.append(f"first difference at vertex {_e(bad['vertex'])}{feature}: RTL "
                      f"{_e(bad['rtl'])}, golden {_e(bad['golden'])}")
    body = (f"<h2>Result check</h2><p id=\"check\">{verdict}: "
            + "; ".join(counts) + ".</p>")
    return body, matches


def _configuration_section(sim: dict) -> str:
    graph = sim.get("graph", {})
    graph_pairs = [("source", graph.get("source")), ("vertices", graph.get("num_vertices")),
                   ("edges", graph.get("num_edges"))]
    graph_pairs += [(k, v) for k, v in graph.items()
                    if k not in ("source", "num_vertices", "num_edges") and v is not None]
    config = sim.get("configuration") or {}
    tables = [_kv_table(list(config.items()),
                        f"design parameters (digest {sim.get('config_digest')})")]
    if sim.get("memory"):
        tables.append(_kv_table(list(sim["memory"].items()), "simulated memory (DRAM model)"))
    tables.append(_kv_table(graph_pairs, "graph and run"))
    return ("<h2>Configuration</h2><div class=\"grid\">" + "".join(tables) + "</div>")


def _phase_chart(figures: dict, plt) -> str | None:
    phases = figures.get("phase_cycles") or {}
    if len(phases) < 2:
        return None
    figure, axes = plt.subplots(figsize=(7, 0.45 * len(phases) + 1.0))
    names = list(phases)[::-1]
    axes.barh(names, [phases[n] for n in names], color="tab:blue")
    for i, name in enumerate(names):
        axes.annotate(f"{phases[name]:,}", (phases[name], i), xytext=(3, -3),
                      textcoords="offset points", fontsize=8)
    axes.set_xlabel("cycles")
    return svg_of(figure)


def _cycles_section(sim: dict, plt) -> tuple[str, int]:
    f = sim["figures"]
    cycles = f.get("cycles")
    iterations = f.get("iterations")
    phases = f.get("phase_cycles") or {}
    rows = [["all", _num(cycles), "100.0%"]]
    for name, value in phases.items():
        rows.append([name, _num(value), _pct(value / cycles if cycles else None)])
    rates = [("cycles", cycles), ("iterations", iterations),
             ("edges traversed", f.get("edges_traversed")),
             ("edges per cycle", f.get("edges_per_cycle")),
             ("edges per processing cycle", f.get("edges_per_process_cycle")),
             ("vertices per apply cycle", f.get("vertices_per_apply_cycle")),
             ("updates (Process_Edge outputs)", f.get("updates")),
             ("vertex updates (apply)", f.get("vertex_updates"))]
    if f.get("slices", 1) > 1:
        rates.append(("graph slices", f["slices"]))
    plots = 0
    chart = _phase_chart(f, plt)
    body = ("<h2>Cycles and throughput</h2><div class=\"grid\">"
            + _table(["phase", "cycles", "share"], rows)
            + _kv_table(rates, keys="figure") + "</div>")
    if chart:
        body += figure_html(chart, f"Cycles by phase, summed over the {iterations} "
                                   f"iterations ({_num(cycles)} in all).")
        plots += 1
    per_iteration = f.get("per_iteration") or {}
    if per_iteration.get("rows"):
        part, p = _iterations_part(per_iteration, plt)
        body += part
        plots += p
    else:
        body += (f"<p class=\"note\" id=\"per-iteration\">No per-iteration breakdown: "
                 f"the report records no counters at iteration ends (a report from before "
                 f"the testbench took them); the mean is "
                 f"{_num(cycles / iterations if cycles and iterations else None)} cycles and "
                 f"{_num(f.get('edges_traversed', 0) / iterations if iterations else None)} "
                 f"edges an iteration.</p>")
    return body, plots


def _iterations_chart(rows: list[dict], unit: str, plt) -> str:
    figure, cycles_axes = plt.subplots(figsize=(7, 3.2))
    numbers = [row["iteration"] for row in rows]
    cycles_axes.bar(numbers, [row["cycles"] for row in rows], color="tab:blue")
    cycles_axes.set_xlabel(unit)
    cycles_axes.set_ylabel("cycles", color="tab:blue")
    if len(numbers) <= 30:
        cycles_axes.set_xticks(numbers)
    if any(row["edges_per_cycle"] is not None for row in rows):
        rate_axes = cycles_axes.twinx()
        rate_axes.plot(numbers, [row["edges_per_cycle"] or 0.0 for row in rows],
                       color="tab:red", marker="o")
        rate_axes.set_ylabel("edges per cycle", color="tab:red")
        rate_axes.set_ylim(bottom=0)
    return svg_of(figure)


def _iterations_part(per_iteration: dict, plt, unit: str = "iteration") -> tuple[str, int]:
    """The table of each iteration (``unit``: what the design's iteration counter counts:
    iteration, level, batch), from the counters the testbench read at each one's end, and
    its chart: cycles and, where the design counts edges, edges per cycle."""
    rows = per_iteration["rows"]
    finish = per_iteration["finish"]
    total = per_iteration.get("total_cycles")
    has_edges = any(row["edges"] is not None for row in rows)

    def cells(label, row):
        return [label, _num(row["cycles"]), _pct(row["cycles"] / total if total else None),
                *([_num(row["edges"]), _num(row["edges_per_cycle"])] if has_edges else []),
                _num(row["memory_reads"]), _num(row["memory_writes"])]

    table_rows = [cells(row["iteration"], row) for row in rows] + [cells("finish", finish)]
    every = rows + [finish]
    cycles, edges = sum(row["cycles"] for row in every), sum(row["edges"] or 0 for row in every)
    table_rows.append(cells("all", {
        "cycles": cycles, "edges": edges, "edges_per_cycle": edges / cycles if cycles else None,
        "memory_reads": sum(row["memory_reads"] for row in every),
        "memory_writes": sum(row["memory_writes"] for row in every)}))
    columns = [unit, "cycles", "share", *(["edges", "edges per cycle"] if has_edges else []),
               "line reads", "line writes"]
    body = (f"<h3>Per {_e(unit)}</h3><div id=\"per-iteration\">" + _table(columns, table_rows)
            + f"</div><p class=\"note\">From the counters the testbench read each time the "
              f"design's {_e(unit)} counter stepped (it only watches; the hardware is the "
              f"same). The first {_e(unit)} includes the start (from <code>start</code> to "
              f"its end); <i>finish</i> is what follows the last {_e(unit)}'s end until "
              f"<code>done</code>.</p>")
    caption = (f"Cycles (bars) and edges per cycle (line) of each {unit}." if has_edges
               else f"Cycles of each {unit}.")
    body += figure_html(_iterations_chart(rows, unit, plt), caption)
    return body, 1


def _memory_section(sim: dict) -> str:
    f = sim["figures"]
    memory = f.get("memory") or {}
    channels = memory.get("channels") or []
    per_channel = (sim.get("memory") or {}).get("bytes_per_cycle")
    rows = [[str(c), _num(ch.get("reads")), _num(ch.get("writes")),
             _pct(ch.get("utilisation")), _pct(ch.get("refused_share"))]
            for c, ch in enumerate(channels)]
    rows.append(["all", _num(memory.get("reads")), _num(memory.get("writes")), "", ""])
    what = (f"utilisation: lines × 64 bytes over {_num(per_channel)} bytes a cycle × "
            f"{_num(f.get('cycles'))} cycles" if per_channel else "utilisation")
    return ("<h2>Memory channels</h2>"
            + _table(["channel", "line reads", "line writes", "utilisation",
                      "cycles a request waited"], rows)
            + f"<p class=\"note\">Per channel of the simulated DRAM; {_e(what)}; the last "
              f"column is the share of cycles in which a request waited at the channel, "
              f"not taken.</p>")


def _roofline_chart(roof: dict, plt) -> str:
    """Work per cycle against work per byte, log-log: the memory's roof (its peak bytes a
    cycle times the work per byte), the bound at the run's traffic, and the run."""
    unit = roof["unit"]
    total = roof[f"bytes_per_{unit}"]["total"]
    peak = roof["peak_bytes_per_cycle"]
    intensity = 1 / total
    achieved, bound = roof[f"{unit}s_per_cycle"], roof[f"bound_{unit}s_per_cycle"]
    figure, axes = plt.subplots(figsize=(6, 3.6))
    xs = [intensity / 16, intensity * 16]
    axes.loglog(xs, [peak * x for x in xs], color="tab:gray",
                label=f"memory roof: {peak:g} bytes a cycle")
    axes.plot([intensity], [bound], marker="_", markersize=18, color="tab:red",
              label=f"bound at this traffic: {bound:.3f}")
    axes.plot([intensity], [achieved], marker="o", color="tab:blue",
              label=f"this run: {achieved:.3f}")
    axes.set_xlabel(f"{unit}s per byte of memory traffic")
    axes.set_ylabel(f"{unit}s per cycle")
    axes.legend(fontsize=8, loc="upper left")
    return svg_of(figure)


def _roofline_section(sim: dict, plt) -> tuple[str, int]:
    """The run's memory roofline (``graphgen sim``'s ``roofline``): bytes per unit of work
    by kind, the channels' shares of the peak and the chart."""
    roof = sim.get("roofline")
    if not roof:
        return ("<h2>Memory roofline</h2><p class=\"note\">Not in this report (a report "
                "from before the DRAM model counted each client's lines): run "
                "<code>graphgen sim ... --json</code> again.</p>"), 0
    unit = roof["unit"]
    per = roof[f"bytes_per_{unit}"]
    if per["total"] is None:
        return f"<h2>Memory roofline</h2><p>No {_e(unit)}s processed.</p>", 0
    rows = [[kind, _num(value["read"]), _num(value["written"])]
            for kind, value in per["by_kind"].items()]
    rows.append(["all", _num(per["total"]), ""])
    shares = [[str(c), _num(ch["bytes"]), _pct(ch["share"])]
              for c, ch in enumerate(roof["channels"])]
    shares.append(["all", _num(sum(ch["bytes"] for ch in roof["channels"])),
                   _pct(roof["share"])])
    body = ("<h2>Memory roofline</h2><div class=\"grid\">"
            + _table(["data", f"bytes read per {unit}", f"bytes written per {unit}"], rows)
            + _table(["channel", "bytes", "share of its peak"], shares) + "</div>"
            + f"<p class=\"note\">Every request moves a 64-byte line, as the DRAM model "
              f"charges it. The bound is the {_e(unit)}s per cycle at which the busiest "
              f"channel would carry its peak with this traffic per {_e(unit)}.</p>")
    body += figure_html(_roofline_chart(roof, plt),
                        f"{_num(roof[f'{unit}s_per_cycle'])} {unit}s per cycle measured "
                        f"against a bound of {_num(roof[f'bound_{unit}s_per_cycle'])} at "
                        f"{_num(per['total'])} bytes per {unit}.")
    return body, 1


def _stall_chart(rows, plt) -> str | None:
    if len(rows) < 2:
        return None
    figure, axes = plt.subplots(figsize=(7, 0.4 * len(rows) + 1.0))
    names = [r[0] for r in rows][::-1]
    shares = [100 * r[1] for r in rows][::-1]
    axes.barh(names, shares, color="tab:orange")
    axes.set_xlabel("% of the run's stream-cycles (cycles × streams of its side)")
    return svg_of(figure)


def _stalls_section(sim: dict, plt) -> tuple[str, int]:
    f = sim["figures"]
    config = sim.get("configuration") or {}
    cycles = f.get("cycles") or 0
    stalls = f.get("stalls") or {}
    streams = {"source": config.get("streams_src") or 1,
               "destination": config.get("streams_dst") or 1}
    rows, shares = [], []
    for name, value in stalls.items():
        side, what = _STALLS.get(name, ("", ""))
        n = streams.get(side, 1)
        share = value / (cycles * n) if cycles else None
        rows.append([name, what, side and f"{side} ({n})", _num(value), _pct(share)])
        if share is not None:
            shares.append((name, share))
    crossbar = f.get("crossbar") or {}
    body = ("<h2>Stalls</h2>"
            + _table(["counter", "what it counts", "streams summed", "cycles",
                      "share of stream-cycles"], rows, numeric_from=3))
    plots = 0
    chart = _stall_chart(shares, plt)
    if chart:
        body += figure_html(chart, "Each stall counter as a share of the run's cycles times "
                                   "the streams it sums over.")
        plots += 1
    extra = []
    if crossbar:
        extra += [("crossbar input stalls", crossbar.get("stalls")),
                  ("crossbar stall share (input-cycles, processing)",
                   _pct(crossbar.get("stall_share"))),
                  ("crossbar mean occupancy, words", crossbar.get("mean_occupancy"))]
    streams_figures = f.get("streams") or {}
    for key, label in (("edges_src", "edges per source stream"),
                       ("edges_dst", "edges per destination stream")):
        if streams_figures.get(key):
            extra.append((label, " / ".join(_num(v) for v in streams_figures[key])))
    if extra:
        body += _kv_table(extra, "crossbar and stream balance", keys="figure")
    return body, plots


def _area_chart(units: dict, plt) -> str | None:
    if len(units) < 2:
        return None
    names = list(units)[::-1]
    logic = [units[n].get("area_um2", 0) / 1e6 for n in names]
    sram = [units[n].get("area_memory_um2_model", 0) / 1e6 for n in names]
    figure, axes = plt.subplots(figsize=(8, 0.35 * len(names) + 1.2))
    axes.barh(names, logic, color="tab:blue", label="standard cells (Liberty)")
    axes.barh(names, sram, left=logic, color="tab:green", label="SRAM macros (model)")
    axes.set_xlabel("mm² at 0.18 µm (OSU)")
    axes.legend(fontsize=7)
    return svg_of(figure)


def _asic_part(path: Path, report: dict, plt) -> tuple[str, int, int]:
    f = report["figures"]
    total = f.get("area_total_um2_with_model", f.get("area_um2"))
    lead = (f"<p><b>ASIC area {_num(total / 1e6 if total else None)} mm²</b> at 0.18 µm "
            f"(OSU standard cells from {_e(Path(f.get('liberty', '')).name)}): "
            f"{_num(f.get('area_um2', 0) / 1e6)} mm² of standard cells "
            f"({_num(f.get('num_cells'))} cells, {_num(f.get('area_seq_um2', 0) / 1e6)} mm² of "
            f"them flip-flops) and {_num(f.get('area_memory_um2_model', 0) / 1e6)} mm² of "
            f"SRAM macros by the model ({_num(f.get('memory_bits'))} bits); synthesis "
            f"{_num(f.get('wall_seconds'))} s of wall time (<code>{_e(path.name)}</code>).</p>")
    units = f.get("units") or {}
    tables = plots = 0
    body = lead
    if units:
        rows = [[name, _num(u.get("area_um2", 0) / 1e6),
                 _num(u.get("area_memory_um2_model", 0) / 1e6),
                 _num(u.get("area_total_um2_with_model", 0) / 1e6), _pct(u.get("share")),
                 _num(u.get("num_cells"))] for name, u in units.items()]
        body += _table(["unit", "cells mm²", "SRAM mm² (model)", "total mm²", "share",
                        "cells"], rows)
        tables += 1
        chart = _area_chart(units, plt)
        if chart:
            body += figure_html(chart, "ASIC area by top-level unit of this configuration "
                                       "(per-unit synthesis: no optimisation across units).")
            plots += 1
    else:
        body += ("<p class=\"note\">No area by unit: this synthesis ran flat (graphgen synth "
                 "--target asic --per-unit splits it).</p>")
    notes = f.get("notes") or []
    if notes:
        body += "<ul class=\"note\">" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>"
    return body, plots, tables


def _ecp5_part(path: Path, report: dict) -> str:
    f = report["figures"]
    fmax = f.get("fmax_mhz")
    counts = (f"{_num(f.get('lut4'))} LUT4, {_num(f.get('ff'))} FF, {_num(f.get('ebr'))} EBR, "
              f"{_num(f.get('dsp'))} DSP on an {_e(f.get('part', 'ECP5'))}")
    if fmax is not None:
        met = "met" if f.get("timing_met") else "not met"
        text = (f"<b>Fmax {fmax:.1f} MHz</b> (nextpnr, seed {_e(f.get('seed'))}; the "
                f"{_num(f.get('clock_mhz'))} MHz constraint {met}); {counts}")
    elif f.get("stopped"):
        from synth.reports import stopped_text
        text = f"no Fmax: nextpnr {_e(stopped_text(f['stopped']))}; {counts}"
    elif f.get("overflow"):
        from synth.reports import overflow_text
        text = f"no Fmax: does not fit ({_e(overflow_text(f['overflow']))}); {counts}"
    else:
        text = f"no Fmax recorded; {counts}"
    return (f"<p id=\"fmax\">ECP5: {text}; place and route "
            f"{_num(f.get('wall_seconds'))} s of wall time (<code>{_e(path.name)}</code>).</p>")


def _synth_section(run: dict, plt) -> tuple[str, int, int]:
    synth = run["synth"]
    asic = [(p, d) for p, d in synth if d["figures"].get("target") == "asic"]
    ecp5 = [(p, d) for p, d in synth if d["figures"].get("target") == "ecp5"]
    body = "<h2>Area and clock of this configuration</h2>"
    plots = tables = 0
    if asic:
        for path, report in asic:
            part, p, t = _asic_part(path, report, plt)
            body += part
            plots += p
            tables += t
    else:
        body += ("<p class=\"note\">No ASIC area: no graphgen synth --target asic report of "
                 "this configuration in the folder.</p>")
    if ecp5:
        body += "".join(_ecp5_part(path, report) for path, report in ecp5)
    else:
        command = _synth_command(run["sim"][1], "ecp5")
        body += ("<p class=\"note\" id=\"fmax\">No Fmax: this folder holds no ECP5 place "
                 "and route of this configuration (<code>make run</code> leaves it out: on a "
                 "shared two-core machine it takes longer than the rest of the run). The "
                 "Fmax of this configuration comes from <code>" + _e(command) + "</code> "
                 "(Yosys and nextpnr); its report in this folder joins this page at the "
                 "next <code>graphgen report</code>. <code>make bench</code> measures the "
                 "ECP5 Fmax of other configurations (for Graphicionado, PageRank with 2 × 2 "
                 "streams and the 64K-vertex scratchpad), not this one.</p>")
    if run["left_out"]:
        body += ("<p class=\"note\">Left out (not this run's configuration): "
                 + "; ".join(f"<code>{_e(p.name)}</code>: {_e(why)}"
                             for p, why in run["left_out"]) + ".</p>")
    return body, plots, tables


def _synth_command(sim: dict, target: str) -> str:
    """The ``graphgen synth`` command of the run's configuration: its design parameters that
    differ from the design's defaults (the algorithm always), as ``--set``."""
    design = sim.get("design") or "?"
    config = sim.get("configuration") or {}
    try:
        from .designs import DESIGNS
        defaults = DESIGNS[design].config_class()
        base, skip = defaults.as_dict(), set(defaults.RUN_SETTINGS)
    except (ImportError, KeyError):
        base, skip = {}, set()
    sets = [f"--set {key}={_setting(value)}" for key, value in config.items()
            if key not in skip and (key == "algo" or base.get(key, object()) != value)]
    return " ".join([f"graphgen synth --design {design}", *sets, f"--target {target}",
                     f"--json synth-{target}.json"])


def _setting(value) -> str:
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


def _throughput_section(run: dict) -> str:
    """The work per cycle and per second: at the run's own clock (stated or measured, as
    ``graphgen sim`` recorded it), or else at the ECP5 Fmax of a synthesis report of this
    configuration in the folder; with neither, how to get one."""
    from .throughput import NO_CLOCK, per_second
    sim = run["sim"][1]
    block = sim.get("throughput")
    symmetry = (sim.get("graph") or {}).get("symmetry")
    counted = ""
    if symmetry is not None:
        kind = "symmetric" if sim["graph"].get("symmetric") else "directed"
        counted = (f" The graph is {kind} ({symmetry})"
                   + ("; an undirected edge counts once." if kind == "symmetric" else "."))
    if not block:
        return ("<h2>Throughput</h2><p class=\"note\" id=\"throughput\">This report records no "
                "throughput block (a graphgen sim from before it).</p>")
    unit = block["unit"]
    pairs = [(f"{unit} per cycle", block["per_cycle"]), ("cycles", block["cycles"])]
    rate, clock, source = block.get("per_second"), block.get("clock_mhz"), \
        block.get("clock_source")
    if rate is None:
        fmaxes = [(p, d["figures"]["fmax_mhz"]) for p, d in run["synth"]
                  if d["figures"].get("target") == "ecp5" and d["figures"].get("fmax_mhz")]
        if fmaxes:
            path, clock = fmaxes[0]
            rate = per_second(block["per_cycle"], clock)
            source = f"ECP5 Fmax of {path.name}"
    if rate is None:
        note = f"No per-second figure: {NO_CLOCK}."
    else:
        pairs += [("clock, MHz", clock), ("clock from", source),
                  (f"{unit} per second", rate)]
        note = (f"{block.get('per_second_is', unit)} per second = {unit} per cycle × the clock "
                f"({source}).")
    return ("<h2>Throughput</h2>" + _kv_table(pairs, keys="figure")
            + f"<p class=\"note\" id=\"throughput\">{_e(note + counted)}</p>")


def _simulation_section(sim: dict) -> str:
    f = sim["figures"]
    wall = f.get("wall_seconds") or {}
    pairs = [("simulated cycles per second", f.get("simulated_cycles_per_second")),
             ("Verilator build", "cached" if f.get("build_cached")
              else f"{_num(wall.get('build'))} s")]
    pairs += [(f"{k} seconds", v) for k, v in wall.items() if k != "build"]
    if f.get("simulator"):
        pairs.insert(0, ("simulator", f["simulator"]))
    return "<h2>Simulation</h2>" + _kv_table(pairs, keys="figure")


def _other_per_iteration(sim: dict) -> tuple[dict | None, str]:
    """Another design's per-iteration figures and what its iteration is: the BFS engine's
    levels (a run from one root), the dynamic graph unit's batches."""
    design = sim.get("design")
    if design == "bfs" and len(sim.get("runs") or []) == 1:
        return sim["runs"][0].get("figures", {}).get("per_iteration"), "level"
    if design == "dyngraph":
        return sim.get("figures", {}).get("per_batch"), "batch"
    return None, ""


def _other_figures_section(sim: dict, plt) -> tuple[str, int]:
    """The report's figures as a key/value table, and the per-iteration ones as a table and
    a chart."""
    figures = {k: v for k, v in sim.get("figures", {}).items() if k != "per_batch"}
    body = "<h2>Figures of the run</h2>" + _kv_table(list(_scalars("", figures)))
    per_iteration, unit = _other_per_iteration(sim)
    if per_iteration and per_iteration.get("rows"):
        part, plots = _iterations_part(per_iteration, plt, unit)
        return body + part, plots
    return body, 0


def _versions(reports: list[dict]) -> dict:
    merged: dict[str, str] = {}
    for report in reports:
        for source in (report.get("tool_versions") or {},
                       (report.get("figures") or {}).get("tool_versions") or {}):
            for key, value in source.items():
                if value is None:
                    continue
                if key in merged and merged[key] != value and value not in merged[key]:
                    merged[key] = f"{merged[key]} / {value}"
                else:
                    merged.setdefault(key, value)
    return merged


def write_run_page(folder: Path, output: Path) -> dict:
    """The page of the run in ``folder`` (see the module's doc); returns counts of the
    reports, plots and tables and whether the result matched."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    run = load_run(Path(folder))
    sim_path, sim = run["sim"]
    design = sim.get("design") or "?"
    graph = sim.get("graph") or {}
    algo = (sim.get("configuration") or {}).get("algo", "")
    try:
        from .designs import DESIGNS
        summary = DESIGNS[design].summary
    except (ImportError, KeyError):
        summary = ""
    check, matches = _check_section(sim)
    plots = 0
    sections = [check, _configuration_section(sim)]
    if design == "graphicionado":
        body, p = _cycles_section(sim, plt)
        sections.append(body)
        plots += p
        sections.append(_memory_section(sim))
        body, p = _stalls_section(sim, plt)
        sections.append(body)
        plots += p
    else:
        body, p = _other_figures_section(sim, plt)
        sections.append(body)
        plots += p
    body, p = _roofline_section(sim, plt)
    sections.append(body)
    plots += p
    sections.append(_throughput_section(run))
    body, p, _ = _synth_section(run, plt)
    sections.append(body)
    plots += p
    sections.append(_simulation_section(sim))
    # a built-in's name in capitals, a user's path/to/file.py:ClassName as given
    shown = algo if ":" in algo else algo.upper()
    title = f"{design}: {shown} on {graph.get('source')}".strip()
    lead = (f"<h1>{_e(title)}</h1><p>{_e(summary)}. RTL simulation of "
            f"<code>{_e(sim_path.name)}</code>: {_num(graph.get('num_vertices'))} vertices, "
            f"{_num(graph.get('num_edges'))} edges"
            + (f", root {_e(graph['root'])}" if graph.get("root") is not None else "")
            + f"; {_num((sim.get('figures') or {}).get('cycles'))} cycles. Every figure on "
              f"this page is from the reports in this folder.</p>")
    page_body = lead + "".join(sections)
    all_reports = [sim] + [d for _, d in run["synth"]]
    dates = "; ".join(f"<code>{_e(p.name)}</code> {_e(d.get('date'))}"
                      for p, d in [run["sim"], *run["synth"]])
    machine = sim.get("machine") or {}
    where = ", ".join(str(machine[k]) for k in ("platform", "processor") if machine.get(k))
    if machine.get("cpus"):
        where += f", {machine['cpus']} CPUs"
    footer = versions_footer(_versions(all_reports),
                             f"<p>Reports: {dates}. Machine: {_e(where or 'not recorded')}."
                             f"</p>")
    text = html_page(f"graphgen run: {title}", page_body, footer)
    atomic_write(Path(output), text)
    return {"reports": len(all_reports), "plots": plots, "tables": text.count("<table"),
            "matches": matches, "design": design}
