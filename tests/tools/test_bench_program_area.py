"""Issue 50's area benchmark (``bench/bench_program_area.py``) without synthesis: the units
elaborated from the working tree and from the hand-written baseline, with the destination
stream's parameters, and the comparison of their figures."""

import json
import subprocess
import sys

import pytest

from tests.support import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))

from bench_program_area import (DEFAULT_BASELINE, baseline_tree, compare, emit,  # noqa: E402
                                emitted, ports, registered_ports, table)
from synth.tools import run_tool  # noqa: E402


def test_generated_reduce_is_elaborated_with_the_scratchpad_index_as_tag(tmp_path):
    manifest = emit(tmp_path, ["bfs"], ["reduce"])
    assert manifest["kind"] == "generated"
    entry = manifest["units"]["bfs/reduce"]
    assert (entry["class"], entry["index_width"], entry["latency"]) == ("Datapath", 16, 1)
    text = (tmp_path / entry["verilog"]).read_text()
    assert "module unit(" in text and "src =" not in text
    assert "input [79:0] i__payload;" in text          # a, b and a 16-bit tag


@pytest.mark.parametrize("algo, unit, clocked", [("bfs", "reduce", True),
                                                  ("cc", "process_edge", False)])
def test_registered_ports_put_a_flip_flop_on_every_port_but_the_clock(tmp_path, algo, unit,
                                                                      clocked):
    """Yosys reads the wrapper: one register per port of the unit, the clock aside; a
    combinational unit (CC's Process_Edge, a copy) has no clock port and gets the wrapper's."""
    manifest = emit(tmp_path, [algo], [unit])
    text = (tmp_path / manifest["units"][f"{algo}/{unit}"]["verilog"]).read_text()
    names = {name for _, name, _ in ports(text)} - {"clk"}
    assert ("clk" in {name for _, name, _ in ports(text)}) == clocked
    assert {"i__valid", "i__ready", "i__payload", "o__payload"} <= names
    wrapper = registered_ports(text)
    assert "module timed(clk, " in wrapper and "\n  input clk;\n" in wrapper
    (tmp_path / "timed.v").write_text(wrapper)
    (tmp_path / "check.ys").write_text("read_verilog timed.v\nhierarchy -top timed\nproc\n"
                                       "tee -q -o stat.json stat -json\n")
    run_tool("yosys", ["-q", "-l", "yosys.log", "-s", "check.ys"], tmp_path, "yosys.log")
    modules = json.loads((tmp_path / "stat.json").read_text())["modules"]
    cells = modules["\\timed"]["num_cells_by_type"]
    assert cells == {"$dff": len(names), "unit": 1}


def test_hand_written_apply_comes_from_the_baseline_in_a_subprocess(tmp_path):
    try:
        tree, commit = baseline_tree(DEFAULT_BASELINE, tmp_path / "work")
    except subprocess.CalledProcessError:
        pytest.skip(f"{DEFAULT_BASELINE} is not in this clone's history")
    manifest = emitted(tree, tmp_path / "verilog", ["bfs"], ["apply"])
    assert manifest["kind"] == "hand-written"
    assert manifest["hw"] == str(tree)
    assert manifest["units"]["bfs/apply"]["class"] == "ApplyMin"
    assert (tmp_path / "verilog" / "bfs-apply.v").read_text().startswith("/*")
    assert (tree / ".unpacked").read_text().strip() == commit


def figures(lut4, ff, fmax, um2):
    return {"ecp5": {"lut4": lut4, "ff": ff, "fmax_mhz": fmax}, "asic": {"area_um2": um2}}


def test_a_unit_within_ten_percent_on_every_area_figure_meets_the_goal():
    row = compare(figures(110, 50, 200.0, 1000.0), figures(100, 50, 250.0, 1000.0))
    assert row["lut4"] == {"generated": 110, "handwritten": 100, "ratio": 1.1}
    assert row["fmax_mhz"]["ratio"] == 0.8
    assert row["within_goal"]


def test_flip_flops_where_the_hand_written_unit_had_none_miss_the_goal():
    row = compare(figures(100, 3, None, 1000.0), figures(100, 0, 300.0, 1000.0))
    assert row["ff"]["ratio"] == float("inf")
    assert row["fmax_mhz"]["ratio"] is None
    assert not row["within_goal"]
    line = table([{"algo": "bfs", "unit": "apply", **row}])[-1]
    assert line == ("| bfs | apply | 100 / 100 (1.00) | 3 / 0 (inf) | - / 300.0 | "
                    "1,000 / 1,000 (1.00) | no |")
