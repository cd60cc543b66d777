"""``graphgen synth --bus axi``: the AXI top synthesized, its per-unit figures naming the AXI4
masters, the AXI4-Lite register slave and the design (issue 52's area benchmark,
``bench/bench_axi_area.py``)."""

import json
import sys
from pathlib import Path

import pytest

from graphgen.cli import main
from graphgen.commands.synth import synthesized_source
from graphgen.designs import get_design
from synth import DEFAULT_LIBERTY
from synth.units import plan_parts

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_axi_area import split, unit_kind  # noqa: E402

# dyngraph's smallest configuration (tests/tools/test_synth_designs.py) and a small master.
SMALLEST = {"slots": "2", "lock_ways": "2", "max_vertices": "16", "memory_outstanding": "4",
            "read_window": "2"}
SMALL_AXI = {"write_buffer": 1, "read_outstanding": 1, "write_outstanding": 1,
             "data_width": 512, "max_burst_beats": 1}


def test_axi_top_is_cut_into_masters_register_slave_and_design():
    """Two memory channels: a master each (one channel's is ``master``, the soak test)."""
    masters = ["master0", "master1"]
    design = get_design("dyngraph")
    config = design.config({**SMALLEST, "memory_channels": "2"})
    top, text = synthesized_source(design, config, "axi", SMALL_AXI)
    assert top == "dyngraph_axi"
    units = {part.unit for part in plan_parts(text, top)}
    assert units == {"design", "regs", "(top)", *masters}
    kinds = {unit: unit_kind(unit) for unit in units}
    assert kinds["design"] == "design" and kinds["regs"] == "register_slave"
    assert {kinds[name] for name in masters} == {"masters"}


def test_adapter_share_adds_up():
    units = {"design": {"lut4": 900}, "master": {"lut4": 60}, "regs": {"lut4": 30},
             "(top)": {"lut4": 10}}
    parts = split(units, ("lut4",))
    assert parts["adapters"] == {"lut4": 100} and parts["total"] == {"lut4": 1000}
    assert parts["adapter_share"] == {"lut4": 0.1}
    with pytest.raises(ValueError, match="unexpected unit"):
        split({"dst0": {"lut4": 1}}, ("lut4",))


@pytest.mark.soak
def test_synth_bus_axi_per_unit_names_the_adapters(tmp_path, monkeypatch):
    """End to end (some 6 minutes here, the design's unit most of it)."""
    if not DEFAULT_LIBERTY.is_file():
        pytest.skip(f"{DEFAULT_LIBERTY} missing: apt-get install qflow-tech-osu018")
    monkeypatch.chdir(tmp_path)
    report_path = tmp_path / "report.json"
    argv = ["synth", "--design", "dyngraph", "--bus", "axi", "--target", "asic", "--per-unit",
            "--json", str(report_path)]
    argv += [arg for key, value in SMALLEST.items() for arg in ("--set", f"{key}={value}")]
    argv += [arg for key, value in SMALL_AXI.items() for arg in ("--axi", f"{key}={value}")]
    assert main(argv) == 0
    report = json.loads(report_path.read_text())
    assert report["bus"] == "axi" and report["axi"] == SMALL_AXI
    units = report["figures"]["units"]
    assert set(units) == {"design", "master", "regs", "(top)"}
    assert all(units[name]["area_logic_um2"] > 0 for name in ("design", "master", "regs"))
    assert report["figures"]["top"] == "dyngraph_axi"
