"""``graphgen report DIR -o report.html``: one self-contained HTML page of a sweep (issue 20,
item 4): the table of every point, and plots (matplotlib, inlined as SVG) of the ASIC area per
unit, Fmax and utilisation per configuration, throughput (or Fmax) against area with the
Pareto front marked, and each figure against every numeric parameter swept. A plot is drawn
only when it has two configurations or more to compare: a one-point sweep gets tables (its
row, and its area by unit) and no chart. Each plot says which configurations made it; the
tool versions are given once, in the page's footer.

The page of one accelerator run (``graphgen sim`` and ``graphgen synth`` reports in a
folder, as ``make run`` writes them) is :mod:`graphgen.run_page`; it shares this module's
style, footer and check script.

A script in the page checks on load that every plot has drawn (a non-empty bounding box) and
every table has rows, and records the counts in ``<body data-rendered=...>`` (the test reads
it back from headless Chromium's DOM).
"""

from __future__ import annotations

import html
import io
import json
from pathlib import Path

from .reports import atomic_write
from .sweep import flat_row, load_points


__all__ = ["write_report", "pareto_front", "svg_of", "figure_html", "html_page",
           "versions_footer"]

_STYLE = """body{font-family:sans-serif;margin:2em;max-width:80em}
table{border-collapse:collapse;font-size:85%}td,th{border:1px solid #bbb;padding:2px 6px}
th{background:#eee}td.num{text-align:right}figure{margin:1.5em 0}
figcaption{font-size:85%;color:#333;max-width:60em}.error{color:#a00}
footer{margin-top:3em;border-top:1px solid #bbb;padding-top:.5em;font-size:80%;color:#444}
.ok{color:#060;font-weight:bold}.bad{color:#a00;font-weight:bold}
table.kv td:first-child{font-family:monospace}.note{font-size:90%;color:#333;max-width:60em}
.grid{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}"""

_CHECK = """<script>
window.addEventListener("load", function () {
  var plots = 0, tables = 0;
  document.querySelectorAll("figure svg").forEach(function (svg) {
    var box = svg.getBBox(); if (box.width > 0 && box.height > 0) plots++; });
  document.querySelectorAll("table").forEach(function (t) {
    if (t.rows.length > 1 && t.getBoundingClientRect().height > 0) tables++; });
  document.body.dataset.rendered = JSON.stringify({plots: plots, tables: tables});
});
</script>"""


def pareto_front(points: list[tuple[float, float]]) -> list[int]:
    """Indices of the points no other point beats: smaller or equal x (area) and larger or
    equal y (throughput), one of them strictly."""
    front = []
    for i, (x, y) in enumerate(points):
        beaten = any((x2 <= x and y2 >= y) and (x2 < x or y2 > y)
                     for j, (x2, y2) in enumerate(points) if j != i)
        if not beaten:
            front.append(i)
    return front


def svg_of(figure) -> str:
    """A matplotlib figure as inline SVG (closed after)."""
    import matplotlib.pyplot as plt
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def figure_html(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>"


def versions_footer(versions: dict, extra: str = "") -> str:
    """The page's footer: the tool versions, once for the whole page."""
    tools = ", ".join(f"{html.escape(str(k))} {html.escape(str(v))}"
                      for k, v in sorted(versions.items()) if v is not None)
    return (f"<footer><p>Tool versions: {tools or 'not recorded'}.</p>"
            f"{extra}</footer>")


def html_page(title: str, body: str, footer: str) -> str:
    """A whole self-contained page: style, body, footer and the check script."""
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8">
<title>{html.escape(title)}</title><style>{_STYLE}</style>
</head><body>{body}
{footer}
{_CHECK}</body></html>
"""


def _label(row: dict) -> str:
    return f"#{row['point']} " + " ".join(f"{k}={v}" for k, v in row["settings"].items())


def _unit_plot(rows, plt, target, key, scale, xlabel):
    """Stacked bars: each configuration's ``key`` split by its top-level units."""
    with_units = [r for r in rows if r.get("results", {}).get(target, {}).get("units")]
    if not with_units:
        return None
    names = []
    for row in with_units:
        for name in row["results"][target]["units"]:
            if name not in names:
                names.append(name)
    figure, axes = plt.subplots(figsize=(9, 0.5 * len(with_units) + 1.5))
    left = [0.0] * len(with_units)
    for name in names:
        widths = [r["results"][target]["units"].get(name, {}).get(key, 0) / scale
                  for r in with_units]
        axes.barh([_label(r) for r in with_units], widths, left=left, label=name)
        left = [a + b for a, b in zip(left, widths)]
    axes.set_xlabel(xlabel)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return svg_of(figure)


def _fmax_plot(flats, plt):
    chosen = [f for f in flats if f["fmax_mhz"] is not None]
    if not chosen:
        return None
    figure, axes = plt.subplots(1, 2, figsize=(10, 0.45 * len(chosen) + 1.5))
    labels = [f"#{f['point']}" for f in chosen]
    axes[0].barh(labels, [f["fmax_mhz"] for f in chosen], color="tab:blue")
    axes[0].set_xlabel("Fmax, MHz (ECP5-85k, nextpnr)")
    axes[1].barh(labels, [100 * (f["ecp5_lut4"] or 0) / 83640 for f in chosen],
                 color="tab:orange")
    axes[1].set_xlabel("LUT4, % of an ECP5-85k (83,640)")
    return svg_of(figure)


def _pareto_plot(flats, plt):
    area = [f for f in flats if f["asic_area_mm2"]]
    with_rate = [f for f in area if f["edges_per_second_at_fmax"]]
    with_ops = [f for f in area if f["operations_per_second_at_fmax"]]
    chosen, y_key, y_label = (with_rate, "edges_per_second_at_fmax",
                              "edges per second at the ECP5 Fmax") if with_rate else \
        (with_ops, "operations_per_second_at_fmax",
         "operations per second at the ECP5 Fmax") if with_ops else \
        ([f for f in area if f["fmax_mhz"]], "fmax_mhz", "Fmax, MHz (no simulation swept)")
    if not chosen:
        return None
    xy = [(f["asic_area_mm2"], f[y_key]) for f in chosen]
    front = set(pareto_front(xy))
    figure, axes = plt.subplots(figsize=(7, 4.5))
    axes.scatter([x for x, _ in xy], [y for _, y in xy], color="tab:gray", label="points")
    marked = sorted((xy[i] for i in front))
    axes.plot([x for x, _ in marked], [y for _, y in marked], "o-", color="tab:red",
              label="Pareto front")
    for f, (x, y) in zip(chosen, xy):
        axes.annotate(f"#{f['point']}", (x, y), fontsize=7, xytext=(3, 3),
                      textcoords="offset points")
    axes.set_xlabel("ASIC area, mm²")
    axes.set_ylabel(y_label)
    axes.legend()
    return svg_of(figure)


def _scaling_plots(flats, rows, plt):
    """Each figure against each swept parameter with numeric values (the others fixed at
    every combination: one line each)."""
    keys = sorted({k for r in rows for k in r["settings"]})
    plots = []
    for key in keys:
        try:
            values = sorted({float(r["settings"][key]) for r in rows if key in r["settings"]})
        except ValueError:
            continue
        if len(values) < 2:
            continue
        metrics = [(metric, label) for metric, label in
                   [("asic_area_mm2", "ASIC area, mm²"), ("fmax_mhz", "Fmax, MHz"),
                    ("ecp5_lut4", "ECP5 LUT4"), ("generic_cells", "Yosys generic cells"),
                    ("edges_per_cycle", "edges per cycle")]
                   if any(f[metric] is not None for f in flats)]
        if not metrics:
            continue
        figure, axes = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics), 3.5),
                                    squeeze=False)
        for ax, (metric, label) in zip(axes[0], metrics):
            groups = {}
            for f, r in zip(flats, rows):
                if f[metric] is None or key not in r["settings"]:
                    continue
                rest = tuple(sorted((k, v) for k, v in r["settings"].items() if k != key))
                groups.setdefault(rest, []).append((float(r["settings"][key]), f[metric]))
            for rest, line in groups.items():
                line.sort()
                ax.plot([x for x, _ in line], [y for _, y in line], "o-",
                        label=" ".join(f"{k}={v}" for k, v in rest) or "all")
            ax.set_xlabel(key)
            ax.set_ylabel(label)
        axes[0][0].legend(fontsize=7)
        plots.append((key, svg_of(figure), [label for _, label in metrics]))
    return plots


def _table(flats, rows) -> str:
    keys = sorted({k for r in rows for k in r["settings"]})
    columns = [("point", "#"), *((f"set.{k}", k) for k in keys),
               ("ecp5_lut4", "LUT4"), ("ecp5_ff", "FF"), ("ecp5_ebr", "EBR"),
               ("ecp5_dsp", "DSP"), ("fmax_mhz", "Fmax MHz"), ("asic_area_mm2", "mm²"),
               ("cycles", "cycles"), ("edges_per_cycle", "edges/cycle"),
               ("bound_edges_per_cycle", "bound edges/cycle"),
               ("bytes_per_edge", "bytes/edge"), ("bandwidth_share", "share of peak"),
               ("edges_per_second_at_fmax", "edges/s at Fmax"),
               ("edges_per_second_per_mm2", "edges/s per mm²"),
               ("operations_per_cycle", "ops/cycle"),
               ("bound_operations_per_cycle", "bound ops/cycle"),
               ("bytes_per_operation", "bytes/op"),
               ("operations_per_second_at_fmax", "ops/s at Fmax"), ("cached", "cached"),
               ("error", "error")]
    head = "".join(f"<th>{html.escape(title)}</th>" for _, title in columns)
    body = []
    for f in flats:
        cells = []
        for key, _ in columns:
            value = f.get(key)
            if isinstance(value, float):
                text, cls = (f"{value:.4g}" if abs(value) < 1e5 else f"{value:.3e}"), "num"
            elif isinstance(value, int) and not isinstance(value, bool):
                text, cls = f"{value:,}", "num"
            else:
                text, cls = ("" if value is None else str(value)), \
                    ("error" if key == "error" else "")
            cells.append(f'<td class="{cls}">{html.escape(text)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _versions(rows) -> dict:
    versions = {}
    for row in rows:
        for result in row.get("results", {}).values():
            versions.update(result.get("tool_versions", {}) if isinstance(result, dict)
                            else {})
    return versions


def _unit_table(row, target, key, scale, unit_label):
    """A table of one configuration's ``key`` by top-level unit, with each unit's share."""
    units = row.get("results", {}).get(target, {}).get("units")
    if not units:
        return None
    total = sum(entry.get(key, 0) for entry in units.values())
    body = "".join(
        f"<tr><td>{html.escape(name)}</td>"
        f'<td class="num">{entry.get(key, 0) / scale:,.4g}</td>'
        f'<td class="num">{100 * entry.get(key, 0) / total if total else 0:.1f}%</td></tr>'
        for name, entry in sorted(units.items(), key=lambda item: -item[1].get(key, 0)))
    return (f"<table><tr><th>unit</th><th>{html.escape(unit_label)}</th><th>share</th></tr>"
            f"{body}<tr><th>all</th><th class=\"num\">{total / scale:,.4g}</th><th></th></tr>"
            f"</table>")


def write_report(folder: Path, output: Path) -> dict:
    """The page for the sweep in ``folder``; returns counts of points, plots and tables.
    Plots compare configurations: with fewer than two points to a plot it is left out (the
    table of points has the figures; the area by unit becomes a table)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    meta = json.loads((folder / "sweep.json").read_text())
    rows = load_points(folder)
    flats = [flat_row(r) for r in rows]
    versions = {**meta.get("tool_versions", {}), **_versions(rows)}
    context = (f"design {meta.get('design')}, grid {meta.get('grid')}, targets "
               f"{', '.join(meta.get('targets') or [])}")
    if meta.get("algo"):
        context += f"; simulated: {meta['algo']} on {meta['graph']}"
    sections = []
    plots = tables = 0
    units = [("ASIC area by unit", "asic", "area_total_um2_with_model", 1e6,
              "ASIC area, mm² (OSU 0.18 µm; SRAM macros by the model)", "mm²",
              "area split by its top-level units (per-unit synthesis)."),
             ("ECP5 LUT4 by unit", "ecp5", "lut4", 1, "LUT4 (synth_ecp5 -noflatten)", "LUT4",
              "LUT4 split by its top-level units (no optimisation across units).")]
    for title, target, key, scale, xlabel, label, what in units:
        with_units = [r for r in rows if r.get("results", {}).get(target, {}).get("units")]
        if len(with_units) == 1:
            sections.append(f"<h2>{html.escape(title)}</h2>"
                            f"<p class=\"note\">Point #{with_units[0]['point']}'s {what}</p>"
                            + _unit_table(with_units[0], target, key, scale, label))
            tables += 1
        elif with_units:
            sections.append(f"<h2>{html.escape(title)}</h2>" + figure_html(
                _unit_plot(rows, plt, target, key, scale, xlabel),
                f"Each configuration's {what} {context}."))
            plots += 1
    for title, count, draw, what in [
            ("Fmax and utilisation", sum(f["fmax_mhz"] is not None for f in flats),
             lambda: _fmax_plot(flats, plt),
             "ECP5-85k place and route per configuration (point numbers as in the table)."),
            ("Throughput against area",
             sum(1 for f in flats if f["asic_area_mm2"] and
                 (f["edges_per_second_at_fmax"] or f["operations_per_second_at_fmax"]
                  or f["fmax_mhz"])),
             lambda: _pareto_plot(flats, plt),
             "Each point; the red line joins the points no other beats on both.")]:
        svg = draw() if count >= 2 else None
        if svg is None:
            continue
        sections.append(f"<h2>{html.escape(title)}</h2>" + figure_html(svg, f"{what} {context}."))
        plots += 1
    for key, svg, labels in _scaling_plots(flats, rows, plt):
        sections.append(f"<h2>Scaling with {html.escape(key)}</h2>" +
                        figure_html(svg, f"{', '.join(labels)} against {key}, one line per "
                                     f"setting of the other parameters; {context}."))
        plots += 1
    failed = sum(1 for f in flats if f["error"])
    single = ("" if len(flats) != 1 else
              " One point: no chart (nothing to compare it with); its figures are in the "
              "tables.")
    design = html.escape(str(meta.get("design")))
    body = f"""<h1>Sweep of {design}</h1>
<p>{len(flats)} point{'' if len(flats) == 1 else 's'} ({failed} failed); {html.escape(context)}; scheduler
{html.escape(str(meta.get('scheduler')))}. Every figure was measured by the run this page
reports; the table is also in <code>table.csv</code> and <code>table.parquet</code>.{single}</p>
<h2>Points</h2>{_table(flats, rows)}
{''.join(sections)}"""
    where = [f"machine {json.dumps(meta['machine'])}"] if meta.get("machine") else []
    where += [f"sweep of {meta['date']}"] if meta.get("date") else []
    footer = versions_footer(versions, f"<p>{html.escape('; '.join(where))}</p>"
                             if where else "")
    atomic_write(output, html_page(f"graphgen sweep: {meta.get('design')}", body, footer))
    return {"points": len(flats), "plots": plots, "tables": 1 + tables}
