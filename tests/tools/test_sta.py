"""OpenSTA on the ASIC target (``synth/sta.py``): the CAM's clock is plausible and its path
named, a register put in the middle of a chain raises the Fmax (flat and per unit), a broken
SDC or netlist is one error line and exit status 2, and without OpenSTA the area stands
alone."""

import json
import re

import pytest
from amaranth.back import verilog

import synth.flow
import synth.sta
from graphgen.cli import main
from graphgen.energy import energy_model_from_report
from synth import DEFAULT_LIBERTY, SynthError, format_table, synthesize
from synth.sta import BASIS, analyse, block_of, sta_version
from tests.tools.test_comb_depth import Top

needs_liberty = pytest.mark.skipif(not DEFAULT_LIBERTY.is_file(),
                                   reason=f"{DEFAULT_LIBERTY} missing: apt-get install "
                                          f"qflow-tech-osu018")
needs_sta = pytest.mark.skipif(sta_version() is None,
                               reason="OpenSTA (the sta command) not installed: apt-get "
                                      "install opensta")
ANONYMOUS = re.compile(r"^_\d+_$")


@needs_liberty
@needs_sta
def test_cam_clock_is_plausible_and_named(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["synth", "--design", "cam", "--target", "asic", "--json", "r.json"]) == 0
    printed = capsys.readouterr().out
    figures = json.loads((tmp_path / "r.json").read_text())["figures"]
    timing = figures["asic_timing"]
    assert timing["basis"] == BASIS == "pre-layout, no wire parasitics"
    assert timing["sta_version"].startswith("OpenSTA 2.")
    assert timing["clocks"] == ["clk"] and timing["period_ns"] == pytest.approx(4.0)
    # 396 MHz unbuffered by tooling.md's run; the buffered mapping is faster. A band, not
    # the figure: 0.18 um gates are some 0.1 ns, the CAM's compare a dozen deep.
    assert 250 < timing["fmax_mhz"] < 1000, timing
    assert timing["min_period_ns"] == pytest.approx(timing["arrival_ns"] + timing["setup_ns"],
                                                    abs=2e-3)
    assert timing["min_period_ns"] == pytest.approx(4.0 - timing["slack_ns"], abs=2e-3)
    assert timing["setup_ns"] > 0 and timing["met"] is True
    for end in (timing["start"], timing["end"]):
        assert end and not ANONYMOUS.match(end), timing      # a register's own name
    assert timing["start_block"] == timing["end_block"] == "(top)"   # no submodules
    assert timing["input_to_register"]["start"].split("[")[0] in _input_names(tmp_path)
    assert timing["register_to_output"]["min_period_ns"] > 0
    assert "Fmax" in printed and BASIS in printed and timing["start"] in printed
    assert figures["tool_versions"]["sta"] == timing["sta_version"]
    # The power at 250 MHz and the energy model a bench takes from this report.
    power = timing["power"]
    assert 0 < power["total_w"] < 10 and power["period_ns"] == pytest.approx(4.0)
    assert "power (estimate)" in printed
    model = energy_model_from_report(tmp_path / "r.json", "cam")
    assert model.logic_pj_per_cycle == pytest.approx(power["total_w"] * 4.0 * 1e3)


def _input_names(folder) -> set[str]:
    """The input ports of the CAM's mapped netlist, by name."""
    text = next(folder.glob("build/synth/cam-*-asic/mapped.v")).read_text()
    names = set(re.findall(r"^\s*input\s+(?:\[\S+\]\s*)?(\S+);", text, re.M))
    assert {"clk", "rst", "probe_id"} <= names
    return names - {"clk"}


def _chain(tmp_path, pipelined: bool, per_unit: bool = False) -> dict:
    folder = tmp_path / f"{pipelined}-{per_unit}"
    folder.mkdir()
    (folder / "top.v").write_text(verilog.convert(Top(pipelined=pipelined), name="top"))
    return synthesize(folder / "top.v", "top", "asic", folder / "asic", per_unit=per_unit,
                      clock_mhz=500)


@needs_liberty
@needs_sta
def test_register_in_the_chain_raises_fmax(tmp_path):
    flat = _chain(tmp_path, False)["asic_timing"]
    pipelined = _chain(tmp_path, True)["asic_timing"]
    assert pipelined["fmax_mhz"] > 1.15 * flat["fmax_mhz"], (flat, pipelined)
    # The chain's registers are named inside it (``chain.held_0[3]``): its block.
    assert flat["start_block"] == flat["end_block"] == "chain", flat
    assert flat["start"].startswith("chain.held_")
    # Per unit: the chain is a unit of its own; the top's glue has no register.
    report = _chain(tmp_path, False, per_unit=True)
    units = report["asic_timing"]
    assert units["per_unit"] and "not analysed" in units["scope"]
    assert list(units["units"]) == ["chain"] and units["part"] == "top.chain"
    assert units["fmax_mhz"] == units["units"]["chain"]["fmax_mhz"]
    assert units["fmax_mhz"] == pytest.approx(flat["fmax_mhz"], rel=0.15)
    assert units["start_block"] == "chain" and units["start"].startswith("chain.held_")
    assert report["units"]["chain"]["fmax_mhz"] == units["fmax_mhz"]
    assert "inside units" in format_table(report)
    # The parts' power summed is the flat netlist's, give or take the mapping's differences.
    assert units["power"]["total_w"] == pytest.approx(flat["power"]["total_w"], rel=0.25)


COUNTER = """module top(input clk, input [2:0] step, output reg [31:0] count);
  always @(posedge clk) count <= count + step;
endmodule
"""


@needs_liberty
@needs_sta
def test_a_counter_maps_to_a_shallow_adder(tmp_path):
    # Yosys's own ABC script made this a carry chain 18 cells deep whatever the clock asked
    # (3.9 ns at 0.18 um, synth.sta.abc_script); ABC's map makes its carry a prefix tree
    # as deep as the clock needs.
    (tmp_path / "top.v").write_text(COUNTER)
    periods = {}
    for mhz in (250, 500):
        report = synthesize(tmp_path / "top.v", "top", "asic", tmp_path / f"{mhz}",
                            clock_mhz=mhz)
        periods[mhz] = report["asic_timing"]["min_period_ns"]
    assert periods[250] < 3.5 and periods[500] < 2.6, periods
    script = (tmp_path / "500" / "asic.ys").read_text().replace(",", " ")
    assert "map -D 1500" in script
    # Dynamic energy is per transition, so twice the clock is about twice the power and the
    # same energy a cycle (the 500 MHz mapping's larger cells make it somewhat more).
    power = {mhz: synth.sta.parse_power(
        (tmp_path / f"{mhz}" / "sta.log").read_text().split("graphgen-sta: power")[1],
        1e3 / mhz) for mhz in (250, 500)}
    for figures in power.values():
        assert figures["cells_unknown"] == 0 and figures["cells"] > 30
        assert figures["total_w"] == pytest.approx(
            figures["internal_w"] + figures["switching_w"] + figures["leakage_w"], rel=1e-3)
        assert figures["leakage_w"] < 0.01 * figures["total_w"]
    assert 1.6 < power[500]["total_w"] / power[250]["total_w"] < 3.0, power
    assert power[500]["energy_per_cycle_pj"] == pytest.approx(
        power[250]["energy_per_cycle_pj"], rel=0.5)


POWER_REPORT = """graphgen-sta: power
graphgen-power: 0.478 0.055 2.28e-06 0.533002 1200 3
graphgen-sta: end
"""


def test_power_report_parses_to_energy_a_cycle():
    power = synth.sta.parse_power(POWER_REPORT, 4.0)
    assert power["total_w"] == 0.533002 and power["internal_w"] == 0.478
    assert power["cells"] == 1200 and power["cells_unknown"] == 3
    assert power["energy_per_cycle_pj"] == pytest.approx(0.533002 * 4.0 * 1e3)
    assert "0.1 transitions" in power["activity"]
    with pytest.raises(SynthError, match="power of its cells"):
        synth.sta.parse_power("no report", 4.0)


@needs_liberty
@needs_sta
def test_broken_sdc_is_one_line_and_status_2(tmp_path, monkeypatch, capsys):
    written = synth.sta.write_sdc

    def broken(path, *args, **kwargs):
        written(path, *args, **kwargs)
        with open(path, "a") as sdc:
            sdc.write("set_input_delay 0.1 -clock clk [get_ports no_such_port]\n")

    monkeypatch.setattr(synth.sta, "write_sdc", broken)
    monkeypatch.chdir(tmp_path)
    assert main(["synth", "--design", "cam", "--set", "id_width=8", "--target", "asic"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "OpenSTA failed" in err and "sta.sdc" in err and "no_such_port" in err


@needs_liberty
@needs_sta
def test_broken_netlist_is_an_error_naming_the_line(tmp_path):
    synthesize(_small_verilog(tmp_path), "top", "asic", tmp_path / "asic")
    folder = tmp_path / "asic"
    text = (folder / "mapped.v").read_text()
    (folder / "broken.v").write_text(text.replace("endmodule", "  NAND2X1 u (\nendmodule"))
    with pytest.raises(SynthError, match=r"OpenSTA failed: Error: broken.v, line \d+"):
        analyse(folder, "broken.v", "top", DEFAULT_LIBERTY.name)
    with pytest.raises(SynthError, match="OpenSTA failed: .*no_such_top"):
        analyse(folder, "mapped.v", "no_such_top", DEFAULT_LIBERTY.name)


def _small_verilog(tmp_path):
    path = tmp_path / "top.v"
    path.write_text(verilog.convert(Top(pipelined=True), name="top"))
    return path


@needs_liberty
def test_without_opensta_the_area_stands_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(synth.flow, "sta_version", lambda: None)
    report = synthesize(_small_verilog(tmp_path), "top", "asic", tmp_path / "asic")
    assert report["asic_timing"] is None and report["area_um2"] > 0
    assert "no OpenSTA: area only (apt-get install opensta for the clock)" in report["notes"]
    assert "sta" not in report["tool_versions"] and "sta" not in report["step_seconds"]
    assert not (tmp_path / "asic" / "mapped.v").exists()
    assert "no OpenSTA: area only" in format_table(report)


def test_block_names():
    assert block_of("engine.fifo.level[3]") == "engine"
    assert block_of("occupancy[0]") == "(top)"
    assert block_of("tag[1.5]") == "(top)"
