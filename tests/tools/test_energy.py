"""Energy estimates beside time (graphgen.energy, issue 54 item 6): each term from its source
(a synthesis report's power and SRAM macros, DRAM bytes at the cited figure), the refusals of
reports without power, and the CPU baseline page's energy table."""

import json
import shutil
import subprocess
import sys

import pytest

from graphgen.cli import main
from graphgen.common import UsageError
from graphgen.energy import (DRAM_PJ_PER_BYTE, EnergyModel, cpu_energy,
                             energy_model_from_report, estimate)
from synth.flow import ASIC_NODE_NM
from synth.sram_model import access_energy_pj
from tests.tools.test_baseline_page import FIXTURE

POWER = {"internal_w": 0.4, "switching_w": 0.1, "leakage_w": 1e-6, "total_w": 0.5,
         "period_ns": 4.0, "energy_per_cycle_pj": 2000.0, "activity": "default 0.1"}
MEMORIES = [{"name": "pad", "depth": 512, "width": 32, "read_ports": 1, "write_ports": 1,
             "access_energy_pj_model": 30.0},
            {"name": "queue", "depth": 128, "width": 64, "read_ports": 1, "write_ports": 0,
             "access_energy_pj_model": 40.0}]


def _synth_report(tmp_path, design="bfs", power=POWER, target="asic"):
    path = tmp_path / f"{design}-{target}.json"
    path.write_text(json.dumps({
        "command": "synth", "design": design, "config_digest": "abc",
        "figures": {"target": target, "memories": MEMORIES,
                    "asic_timing": {"fmax_mhz": 250.0, "power": power}}}))
    return path


def test_the_model_takes_the_power_and_every_macro_port(tmp_path):
    model = energy_model_from_report(_synth_report(tmp_path), "bfs")
    assert model.logic_pj_per_cycle == 2000.0
    assert model.sram_pj_per_cycle_bound == 30.0 * 2 + 40.0 * 1
    assert "abc" in model.source and model.activity == "default 0.1"


def test_each_term_is_its_source_times_the_run():
    model = EnergyModel(2000.0, 100.0, "default", "r.json")
    energy = estimate(model, cycles=1000, dram_bytes=6400, edges=50)
    terms = energy["terms"]
    assert terms["logic"]["joules"] == pytest.approx(2000e-12 * 1000)
    assert terms["sram_bound"]["joules"] == pytest.approx(100e-12 * 1000)
    assert terms["dram"]["joules"] == pytest.approx(DRAM_PJ_PER_BYTE * 1e-12 * 6400)
    assert energy["joules"] == pytest.approx(sum(t["joules"] for t in terms.values()))
    assert energy["joules_per_edge"] == pytest.approx(energy["joules"] / 50)
    assert energy["estimate"] is True and "Horowitz" in terms["dram"]["source"]
    assert "upper bound" in terms["sram_bound"]["source"]
    assert estimate(model, 10, 0, 0)["joules_per_edge"] is None
    assert cpu_energy(0.5, None, "x") is None
    assert cpu_energy(0.5, 20.0, "stated")["joules"] == pytest.approx(10.0)


COUNTED = [{"name": "pipeline.dst0.pad.temp0", "depth": 16384, "width": 32, "read_ports": 1,
            "write_ports": 1, "asynchronous_read_ports": 0, "reads": 1000, "writes": 300},
           {"name": "pipeline.queue", "depth": 128, "width": 64, "read_ports": 1,
            "write_ports": 1, "asynchronous_read_ports": 1, "reads": 1000, "writes": 20}]


def test_counted_accesses_replace_the_bound():
    """A run that counted its SRAM accesses gets their energy at each memory's own shape,
    not the bound; the source says how many accesses and which ports count every cycle."""
    model = EnergyModel(2000.0, 1e6, "default", "r.json")
    energy = estimate(model, cycles=1000, dram_bytes=0, edges=10, sram=COUNTED)
    terms = energy["terms"]
    assert "sram_bound" not in terms
    want = (1300 * access_energy_pj(16384, 32, node_nm=ASIC_NODE_NM)
            + 1020 * access_energy_pj(128, 64, node_nm=ASIC_NODE_NM)) * 1e-12
    assert terms["sram"]["joules"] == pytest.approx(want)
    assert terms["sram"]["accesses"] == 2320 and terms["sram"]["memories"] == 2
    assert "2,320 reads and writes counted" in terms["sram"]["source"]
    assert "1 asynchronous read port(s) counted every cycle" in terms["sram"]["source"]
    assert energy["joules"] == pytest.approx(2000e-12 * 1000 + want)
    # No counts (a netlist or an AXI top in the design's place): the bound.
    assert "sram_bound" in estimate(model, 1000, 0, 10, sram=None)["terms"]
    # Counted, and none of SRAM depth in the run's configuration: no SRAM energy.
    none = estimate(model, 1000, 0, 10, sram=[])["terms"]
    assert "sram_bound" not in none and none["sram"]["joules"] == 0
    assert "no memory of SRAM depth" in none["sram"]["source"]


@pytest.mark.parametrize("change, message", [
    ({"design": "depgraph"}, "a synthesis of depgraph, not of bfs"),
    ({"target": "ecp5"}, "not a graphgen synth --target asic"),
    ({"power": None}, "no power report"),
])
def test_reports_it_cannot_use_are_one_line(tmp_path, change, message):
    path = _synth_report(tmp_path, design=change.get("design", "bfs"),
                         power=change.get("power", POWER),
                         target=change.get("target", "asic"))
    with pytest.raises(UsageError, match=message):
        energy_model_from_report(path, "bfs")
    with pytest.raises(UsageError, match="no such file"):
        energy_model_from_report(tmp_path / "missing.json", "bfs")


@pytest.mark.parametrize("counted", [False, True])
def test_the_baseline_page_shows_each_term_and_its_source(tmp_path, counted):
    report = json.loads(FIXTURE.read_text())
    model = EnergyModel(2000.0, 100.0, "OpenSTA's default", "bfs-asic.json (configuration c)")
    for entry in report["results"].values():
        for run in entry["cpu"].values():
            if "seconds" in run:
                run["energy"] = cpu_energy(run["seconds"], 25.0, "stated with --cpu-watts")
        for acc in entry["accelerators"].values():
            acc["energy"] = estimate(model, acc["cycles"], 64 * acc["cycles"], acc["edges"],
                                     sram=COUNTED if counted else None)
    folder = tmp_path / "bench"
    folder.mkdir()
    (folder / "cpu-baseline.json").write_text(json.dumps(report))
    page = tmp_path / "page.html"
    assert main(["report", str(folder), "-o", str(page)]) == 0
    text = page.read_text()
    assert "Energy (estimates)" in text
    assert ("reads and writes counted" in text) == counted
    assert ("(bound)" in text and "SRAM bound" in text) == (not counted)
    bfs = report["results"]["bfs"]["accelerators"]["bfs"]["energy"]
    assert f"{bfs['joules'] * 1e3:,.4f} mJ" in text
    assert "bfs-asic.json (configuration c)" in text and "stated with --cpu-watts" in text


def test_without_estimates_the_page_says_how_to_get_them(tmp_path):
    folder = tmp_path / "bench"
    folder.mkdir()
    shutil.copy(FIXTURE, folder / "cpu-baseline.json")
    assert main(["report", str(folder), "-o", str(tmp_path / "page.html")]) == 0
    assert "No energy estimates" in (tmp_path / "page.html").read_text()


BENCH = FIXTURE.parents[3] / "bench" / "bench_cpu_baseline.py"


def test_the_bench_reprices_an_earlier_run_without_running_it(tmp_path):
    """``--reprice``: the measured cycles, bytes and CPU times of an earlier report, priced
    again with this call's power report and CPU watts; its source named in the report."""
    out, earlier_path = tmp_path / "repriced.json", tmp_path / "earlier.json"
    earlier = json.loads(FIXTURE.read_text())
    earlier["results"]["bfs"]["accelerators"]["bfs"]["dram_bytes"] = 64_000
    earlier_path.write_text(json.dumps(earlier))
    done = subprocess.run(
        [sys.executable, str(BENCH), "--reprice", str(earlier_path), "--cpu-watts", "11",
         "--asic", f"bfs={_synth_report(tmp_path)}", "--json", str(out)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["repriced_from"] == {"report": str(earlier_path), "date": earlier["date"]}
    bfs, before = (entry["results"]["bfs"]["accelerators"]["bfs"] for entry in (report, earlier))
    assert bfs["cycles"] == before["cycles"]
    assert bfs["energy"]["terms"]["logic"]["joules"] == pytest.approx(
        POWER["energy_per_cycle_pj"] * bfs["cycles"] * 1e-12)
    assert bfs["energy"]["terms"]["dram"]["bytes"] == 64_000
    rows = report["results"]["bfs"]["accelerators"]
    assert rows["depgraph"]["energy"] == {"unavailable": "no --asic report for this row"}
    assert report["results"]["bfs"]["cpu"]["graphblas"]["energy"]["watts"] == 11


def test_the_bench_refuses_a_report_not_its_own(tmp_path):
    other = _synth_report(tmp_path)
    done = subprocess.run([sys.executable, str(BENCH), "--reprice", str(other), "--json",
                           str(tmp_path / "x.json")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2
    assert "not a report of bench/bench_cpu_baseline.py" in done.stderr.splitlines()[-1]
    assert not (tmp_path / "x.json").exists()
