"""Throughput at the clock (issue 51, item 5): ``graphgen sim``'s clock (stated, from a
synthesis report, none) and the per-second figures it gives (work per cycle times the clock,
exactly); the sweep's and the run page's columns; ``--undirected``/``--directed`` and how
the report words the graph's symmetry; bad clocks and reports refused on one line, exit
status 2, before any simulation."""

import dataclasses
import json

import pytest

import golden
from graphgen.cli import main
from graphgen.common import UsageError
from graphgen.designs import DESIGNS, get_design
from graphgen.graph_option import load_graph, symmetry_line
from graphgen.reports import base_report, write_json
from graphgen.run_page import write_run_page
from graphgen.simulation import SimRun
from graphgen.sweep import flat_row
from graphgen.throughput import (Clock, NO_CLOCK, clock_from_report, resolve_clock,
                                 throughput_lines)


def synth_report(tmp_path, design="bfs", settings=None, **figures):
    config = get_design(design).config(settings or {})
    report = base_report("synth", design, config.design_only())
    report["figures"] = {"target": "ecp5", "part": "LFE5U-85F", **figures}
    path = tmp_path / f"synth-{design}.json"
    write_json(path, report)
    return path, config


def a_run(work, cycles):
    return SimRun(heading="", matches=True, cycles=cycles, work=work, verdict="", mismatch="",
                  reports=[], json={})


def test_per_second_is_the_work_per_cycle_times_the_fmax(tmp_path):
    path, config = synth_report(tmp_path, fmax_mhz=22.3)
    clock = clock_from_report(path, "bfs", config)
    assert clock == Clock(22.3, f"LFE5U-85F Fmax from {path}")
    block = a_run({"edges": 7771}, 10007).throughput(clock)
    assert block["per_cycle"] == 7771 / 10007
    assert block["per_second"] == block["per_cycle"] * 22.3 * 1e6
    assert (block["clock_mhz"], block["clock_source"]) == (22.3, clock.source)
    ops = a_run({"operations": 4096}, 3000).throughput(Clock(100.0, "stated (--clock-mhz)"))
    assert ops["unit"] == "operations" and ops["per_second"] == 4096 / 3000 * 100.0 * 1e6
    line, = throughput_lines(ops)
    assert line.endswith("1.3653 operations per cycle; 136.5 M operations/s at 100 MHz "
                         "(stated (--clock-mhz))"), line
    # a run of a configuration that differs only in run settings is the same hardware
    run_config = get_design("graphicionado").config({"stall_injection": "5"})
    path, _ = synth_report(tmp_path, "graphicionado", fmax_mhz=40.0)
    assert clock_from_report(path, "graphicionado", run_config).mhz == 40.0


def test_an_asic_report_gives_opensta_s_clock(tmp_path):
    timing = {"fmax_mhz": 252.1, "basis": "pre-layout, no wire parasitics", "per_unit": True}
    path, config = synth_report(tmp_path, target="asic", area_um2=1.0, asic_timing=timing,
                                liberty="/usr/share/qflow/tech/osu018/osu018_stdcells.lib")
    clock = clock_from_report(path, "bfs", config)
    assert clock.mhz == 252.1
    assert clock.source == (f"osu018_stdcells.lib (OpenSTA, pre-layout, no wire parasitics, "
                            f"inside units) Fmax from {path}")
    assert a_run({"edges": 10}, 20).throughput(clock)["per_second"] == 0.5 * 252.1e6


def test_without_a_clock_no_per_second_figure(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                   # no build/synth here
    config = get_design("bfs").config({})
    assert resolve_clock(None, None, "bfs", config) is None
    block = a_run({"edges": 10}, 20).throughput(None)
    assert block["per_second"] is None and block["per_cycle"] == 0.5
    assert throughput_lines(block)[1].strip() == NO_CLOCK
    assert resolve_clock(50.0, None, "bfs", config) == Clock(50.0, "stated (--clock-mhz)")


@pytest.mark.parametrize("case, message", [
    ("no fmax", "holds no Fmax (nextpnr gave none"),
    ("asic", "holds no Fmax (an ASIC synthesis without OpenSTA has no clock)"),
    ("other design", "a synthesis of graphicionado, not of bfs"),
    ("other configuration", "a synthesis of another configuration"),
    ("not a report", "not a graphgen synth --json report"),
    ("not json", "not a JSON report"),
    ("missing", "no such file"),
    ("negative clock", "--clock-mhz must be a positive number of MHz, not -5"),
    ("both", "give --clock-mhz or --fmax-from, not both"),
])
def test_bad_clocks_are_refused_before_the_run(tmp_path, capsys, monkeypatch, case, message):
    def no_run(*args, **kwargs):
        raise AssertionError("simulated despite a bad clock")
    design = get_design("bfs")
    monkeypatch.setitem(DESIGNS, "bfs", dataclasses.replace(
        design, simulation=dataclasses.replace(design.simulation, simulate=no_run)))
    path, option = tmp_path / "synth.json", None
    if case == "no fmax":
        path, _ = synth_report(tmp_path, fmax_mhz=None, overflow={"TRELLIS_SLICE": 1})
    elif case == "asic":
        path, _ = synth_report(tmp_path, target="asic", area_um2=1.0, asic_timing=None)
    elif case == "other design":
        path, _ = synth_report(tmp_path, "graphicionado", fmax_mhz=40.0)
    elif case == "other configuration":
        path, _ = synth_report(tmp_path, settings={"lanes": "2"}, fmax_mhz=40.0)
    elif case == "not a report":
        path.write_text(json.dumps({"command": "sim"}))
    elif case == "not json":
        path.write_text("Fmax 40 MHz\n")
    elif case == "negative clock":
        option = ["--clock-mhz", "-5"]
    elif case == "both":
        path, _ = synth_report(tmp_path, fmax_mhz=40.0)
        option = ["--clock-mhz", "40", "--fmax-from", str(path)]
    elif case == "missing":
        path = tmp_path / "no.json"
    json_out = tmp_path / "sim.json"
    status = main(["sim", "--design", "bfs", "--algo", "bfs", "--graph", "grid:rows=3,cols=3",
                   *(option or ["--fmax-from", str(path)]), "--json", str(json_out)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err, err
    assert not json_out.exists()


def test_undirected_and_directed(tmp_path):
    path = tmp_path / "once.el"
    path.write_text("0 1\n1 2\n2 0\n")                       # a triangle, each edge once
    graph, symmetry = load_graph(str(path))
    assert not graph.symmetric and symmetry["symmetry"].startswith("directed")
    graph, symmetry = load_graph(str(path), undirected=True)
    assert graph.symmetric and graph.num_edges == 6
    assert symmetry["symmetry"].startswith("stated (--undirected): symmetrized, 3 edges")
    assert symmetry_line(symmetry).startswith("graph: symmetric, stated (--undirected)")
    graph, symmetry = load_graph("grid:rows=3,cols=3", directed=True)
    assert not graph.symmetric and symmetry["symmetry"] == "directed (--directed)"
    assert load_graph("grid:rows=3,cols=3")[1]["symmetry"] == "generated undirected"
    both = tmp_path / "both.el"
    both.write_text("0 1\n1 0\n")
    assert load_graph(str(both))[1]["symmetry"].startswith("detected on load")
    assert load_graph(str(both), undirected=True)[1]["symmetry"].startswith(
        "stated (--undirected); the edges already")
    weighted = tmp_path / "w.wel"
    weighted.write_text("0 1 3\n1 0 5\n")
    with pytest.raises(UsageError, match="the pair 0, 1 carries weights 3 and 5"):
        load_graph(str(weighted), undirected=True)
    mtx = tmp_path / "s.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n")
    assert load_graph(str(mtx))[1]["symmetry"] == "stated by the file (MatrixMarket 'symmetric')"


def test_golden_reports_the_symmetry(tmp_path, capsys):
    grid = golden.grid(3, 4)
    path = tmp_path / "grid.el"
    golden.write_graph(grid.flagged(False), path)
    out = tmp_path / "golden.json"
    assert main(["golden", "--algo", "bfs", "--graph", str(path), "--json", str(out)]) == 0
    assert "graph: symmetric, detected on load" in capsys.readouterr().out
    configuration = json.loads(out.read_text())["configuration"]
    assert configuration["symmetric"] is True
    assert configuration["symmetry"].startswith("detected on load")


def test_the_sweep_and_the_run_page_give_the_rates(tmp_path):
    row = {"point": 0, "design": "dyngraph", "settings": {}, "cached": True,
           "results": {"ecp5": {"fmax_mhz": 31.7},
                       "sim": {"cycles": 3000, "operations": 4096,
                               "operations_per_cycle": 4096 / 3000, "graph_symmetric": False}}}
    flat = flat_row(row)
    assert flat["operations_per_second_at_fmax"] == 4096 / 3000 * 31.7 * 1e6
    assert flat["edges_per_second_at_fmax"] is None and flat["graph_symmetric"] is False
    row["results"]["sim"] = {"cycles": 500, "edges": 250, "edges_per_cycle": 0.5}
    assert flat_row(row)["edges_per_second_at_fmax"] == 0.5 * 31.7 * 1e6
    # the run page: the sim report's own clock, else an ECP5 report's Fmax in the folder
    config = get_design("bfs").config({})
    sim = base_report("sim", "bfs", config)
    sim.update(graph={"source": "g.el", "num_vertices": 9, "num_edges": 24,
                      "symmetric": True, "symmetry": "detected on load"},
               figures={"cycles": 1000},
               throughput=a_run({"edges": 12}, 1000).throughput(None))
    folder = tmp_path / "run"
    folder.mkdir()
    write_json(folder / "sim.json", sim)
    write_run_page(folder, tmp_path / "page.html")
    page = (tmp_path / "page.html").read_text()
    assert "No per-second figure" in page and "an undirected edge counts once" in page
    synth_report(folder, fmax_mhz=25.0)
    write_run_page(folder, tmp_path / "page.html")
    page = (tmp_path / "page.html").read_text()
    assert "ECP5 Fmax of synth-bfs.json" in page and "300,000" in page   # 0.012 × 25 MHz
