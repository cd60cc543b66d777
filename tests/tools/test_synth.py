"""Tests of the synthesis flow (``synth/``) on a small Amaranth design: a 16-bit counter with an
enable beside a simple dual-port memory (512 x 16 for ECP5, so a DP16KD block RAM is used;
16 x 16 for the generic and ASIC flows, which turn memories into flip-flops)."""

import json
from pathlib import Path

import pytest
from amaranth import Module, Signal
from amaranth.back import verilog
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

import synth
from synth import (DEFAULT_LIBERTY, TARGETS, LibertyNotFound, SynthError, format_table,
                   liberty_cells, synthesize)
from synth.reports import liberty_pins
from synth.tools import TimeLimitReached


class CounterMemory(wiring.Component):
    """A counter with an enable, and a memory with one write and one synchronous read port."""

    def __init__(self, depth: int):
        self.depth = depth
        abits = max(1, (depth - 1).bit_length())
        super().__init__({
            "en": In(1), "count": Out(16),
            "we": In(1), "waddr": In(abits), "wdata": In(16),
            "raddr": In(abits), "rdata": Out(16),
        })

    def elaborate(self, platform):
        m = Module()
        counter = Signal(16)
        with m.If(self.en):
            m.d.sync += counter.eq(counter + 1)
        m.d.comb += self.count.eq(counter)
        m.submodules.mem = mem = memory.Memory(shape=16, depth=self.depth, init=[])
        write, read = mem.write_port(), mem.read_port()
        m.d.comb += [write.addr.eq(self.waddr), write.data.eq(self.wdata), write.en.eq(self.we),
                     read.addr.eq(self.raddr), self.rdata.eq(read.data)]
        return m


def _write_design(folder: Path, depth: int) -> Path:
    path = folder / f"counter_mem{depth}.v"
    path.write_text(verilog.convert(CounterMemory(depth), name="top"))
    return path


@pytest.fixture(scope="module")
def big_design(tmp_path_factory) -> Path:
    return _write_design(tmp_path_factory.mktemp("design"), 512)


@pytest.fixture(scope="module")
def small_design(tmp_path_factory) -> Path:
    return _write_design(tmp_path_factory.mktemp("design"), 16)


@pytest.fixture(scope="module")
def ecp5_report(big_design, tmp_path_factory) -> tuple[dict, Path]:
    build = tmp_path_factory.mktemp("ecp5")
    return synthesize(big_design, "top", "ecp5", build), build


def _common(report: dict, build: Path, target: str):
    assert report["target"] == target and report["top"] == "top"
    assert report["wall_seconds"] > 0
    assert report["tool_versions"]["yosys"].startswith("Yosys ")
    assert report["logs"] and all((build / log).is_file() for log in report["logs"])
    json.dumps(report)  # JSON-serialisable
    table = format_table(report)
    assert target in table and "wall time" in table
    assert format_table({"figures": report}) == table  # a whole CLI report is accepted too


def test_ecp5(ecp5_report):
    report, build = ecp5_report
    _common(report, build, "ecp5")
    assert report["lut4"] > 0
    assert report["ff"] >= 16
    assert report["ebr"] == 1  # the 512 x 16 memory fits one DP16KD
    assert report["dsp"] == 0
    assert report["ccu2c"] > 0  # the counter's carry chain
    assert report["fmax_mhz"] > 0
    assert report["fmax_by_clock"] == {"clk": report["fmax_mhz"]}
    assert report["device"] == "85k"
    assert report["utilisation"]["TRELLIS_FF"]["used"] == report["ff"]
    assert report["utilisation"]["DP16KD"] == {"used": 1, "available": 208}
    assert "nextpnr" in report["tool_versions"]["nextpnr-ecp5"]
    assert (build / "top.config").is_file() and (build / "report.json").is_file()
    assert "Fmax" in format_table(report)
    path = report["critical_path"]       # from nextpnr's report, shared with gw5a-138
    assert path["delay_ns"] > 0 and path["start"] and path["end"]
    assert "critical path" in format_table(report)


def test_ecp5_combinational_has_no_fmax(tmp_path):
    source = tmp_path / "comb.v"
    source.write_text("module top(input [3:0] a, input [3:0] b, output [3:0] y);\n"
                      "  assign y = a ^ b;\nendmodule\n")
    report = synthesize(source, "top", "ecp5", tmp_path / "build", ecp5_device="25k",
                        ecp5_package="CABGA256")
    assert report["fmax_mhz"] is None and report["timing_met"] is None
    assert report["notes"] and "no Fmax" in report["notes"][0]
    assert report["lut4"] > 0
    assert "no clock" in format_table(report)


# 32 registered 18 x 18 multipliers: one MULT18X18D each, four more than a 25k has.
_MULTIPLIERS = """module top(input clk, input [17:0] d, output [35:0] y);
  reg [17:0] x;
  always @(posedge clk) x <= d;
  wire [35:0] acc [0:32];
  assign acc[0] = 36'd0;
  genvar i;
  generate for (i = 0; i < 32; i = i + 1) begin : lane
    reg [35:0] p;
    always @(posedge clk) p <= x * (x ^ (i * 4099));
    assign acc[i + 1] = acc[i] ^ p;
  end endgenerate
  assign y = acc[32];
endmodule
"""


def test_ecp5_design_too_big_is_reported_not_failed(tmp_path):
    source = tmp_path / "multipliers.v"
    source.write_text(_MULTIPLIERS)
    report = synthesize(source, "top", "ecp5", tmp_path / "build", ecp5_device="25k",
                        ecp5_package="CABGA256", seeds=2, jobs=2)
    assert report["dsp"] == 32  # Yosys's count stands
    assert report["fits"] is False
    assert report["overflow"] == {"MULT18X18D": {"used": 32, "available": 28}}
    assert report["utilisation"]["MULT18X18D"] == {"used": 32, "available": 28}
    assert report["fmax_mhz"] is None and report["timing_met"] is None
    assert report["fmax_by_seed"] == {"1": None, "2": None}
    assert any("does not fit LFE5U-25F: MULT18X18D 32 of 28" in n for n in report["notes"])
    assert not any("no clock" in n for n in report["notes"])
    assert all((tmp_path / "build" / log).is_file() for log in report["logs"])
    assert "does not fit the device: MULT18X18D 32 of 28" in format_table(report)


def test_ecp5_design_that_fits_says_so(ecp5_report):
    report, _ = ecp5_report
    assert report["fits"] is True and report["overflow"] == {}


def test_generic(small_design, tmp_path):
    report = synthesize(small_design, "top", "generic", tmp_path)
    _common(report, tmp_path, "generic")
    assert report["cells"] and report["num_cells"] == sum(report["cells"].values())
    flops = sum(count for kind, count in report["cells"].items() if "DFF" in kind)
    assert flops >= 16 + 16 * 16  # counter + memory bits (+ read register)


def test_asic(small_design, tmp_path):
    if not DEFAULT_LIBERTY.is_file():
        pytest.skip(f"{DEFAULT_LIBERTY} missing: apt-get install qflow-tech-osu018")
    report = synthesize(small_design, "top", "asic", tmp_path)
    _common(report, tmp_path, "asic")
    assert report["area_um2"] > 0
    assert report["area_seq_um2"] > 0 and report["area_comb_um2"] > 0
    assert report["area_seq_um2"] + report["area_comb_um2"] == pytest.approx(report["area_um2"])
    assert report["liberty"] == str(DEFAULT_LIBERTY)
    assert report["unmapped_cells"] == []
    # Cross-check Yosys's area with the Liberty file's cell areas.
    cells = liberty_cells(DEFAULT_LIBERTY)
    assert sum(count * cells[kind]["area"] for kind, count in report["cells"].items()) \
        == pytest.approx(report["area_um2"])
    assert report["area_seq_um2"] == pytest.approx(
        sum(count * cells[kind]["area"] for kind, count in report["cells"].items()
            if cells[kind]["sequential"]))


def test_time_limit_stops_the_tools(small_design, tmp_path):
    """A limit already spent stops the flow at its first tool, with an error saying so."""
    with pytest.raises(SynthError, match="time limit"):
        synthesize(small_design, "top", "generic", tmp_path, time_limit_s=1e-9)
    report = synthesize(small_design, "top", "generic", tmp_path / "ok", time_limit_s=600)
    assert report["num_cells"] > 0
    if DEFAULT_LIBERTY.is_file():      # the limit reaches the per-unit runs' threads
        with pytest.raises(SynthError, match="time limit"):
            synthesize(small_design, "top", "asic", tmp_path / "units", per_unit=True,
                       jobs=2, time_limit_s=1e-9)


def test_liberty_parser(tmp_path):
    lib = tmp_path / "tiny.lib"
    lib.write_text("""library(tiny) { /* a comment with cell (FAKE) { */
      time_unit : "1ns";
      cell (INV) { area : 16; pin(A) { direction : input; }
        pin(Y) { direction : output; function : "(!A)"; } }
      cell ("DFF") { area : 96.5;
        ff (IQ, IQN) { next_state : "D"; clocked_on : "CLK"; }
        pin(Q) { function : "IQ"; } }
    }""")
    assert liberty_cells(lib) == {"INV": {"area": 16.0, "sequential": False},
                                  "DFF": {"area": 96.5, "sequential": True}}
    # The pins OpenSTA's flow needs (synth.sta): directions and the clock pin.
    lib.write_text(lib.read_text().replace(
        'pin(Q) {', 'pin(CLK) { direction : input; clock : true; internal_power() { '
        'direction : output; } }\n        pin(Q) { direction : output;'))
    assert liberty_pins(lib) == {
        "INV": {"A": {"direction": "input", "clock": False},
                "Y": {"direction": "output", "clock": False}},
        "DFF": {"CLK": {"direction": "input", "clock": True},
                "Q": {"direction": "output", "clock": False}}}


def test_liberty_missing(small_design, tmp_path, monkeypatch):
    with pytest.raises(LibertyNotFound, match="no such"):
        synthesize(small_design, "top", "asic", tmp_path, liberty=tmp_path / "no such.lib")
    monkeypatch.setattr(synth.flow, "DEFAULT_LIBERTY", tmp_path / "absent.lib")
    with pytest.raises(LibertyNotFound) as error:
        synthesize(small_design, "top", "asic", tmp_path)
    assert str(error.value) == ("no Liberty file found: install Debian's qflow-tech-osu018 "
                                "(apt-get install qflow-tech-osu018) or pass --liberty FILE")
    assert isinstance(error.value, SynthError)


def test_bad_target(small_design, tmp_path):
    assert TARGETS == ("ecp5", "gw5a-138", "generic", "asic")
    with pytest.raises(SynthError, match="unknown synthesis target 'vivado'"):
        synthesize(small_design, "top", "vivado", tmp_path)


def test_bad_device(small_design, tmp_path):
    with pytest.raises(SynthError, match="unknown ECP5 device"):
        synthesize(small_design, "top", "ecp5", tmp_path, ecp5_device="99k")


def test_missing_file(tmp_path):
    with pytest.raises(SynthError, match="not found"):
        synthesize(tmp_path / "nothing.v", "top", "generic", tmp_path)


def test_yosys_error(tmp_path):
    source = tmp_path / "bad.v"
    source.write_text("module top(input a, output y);\n  assign y = a &;\nendmodule\n")
    with pytest.raises(SynthError) as error:
        synthesize(source, "top", "generic", tmp_path / "build")
    message = str(error.value)
    assert "\n" not in message
    assert "ERROR: syntax error" in message and "yosys.log" in message


def test_webassembly_abort_names_the_memory_limit():
    from synth.tools import _wasm_hint
    assert "4 GB" in _wasm_hint("Caused by: thrown Wasm exception")
    assert _wasm_hint("ERROR: syntax error") == ""


def test_missing_top(small_design, tmp_path):
    with pytest.raises(SynthError, match="ERROR: Module `nosuch' not found"):
        synthesize(small_design, "nosuch", "generic", tmp_path)


_STOPPED_LOG = """\
Info: Logic utilisation before packing:
Info: Packing IOs..
Info: Device utilisation:
Info: \t          TRELLIS_IO:       0/    365     0%
Info: \t              DP16KD:      49/    208    23%
Info: \t        TRELLIS_COMB:   59955/  83640    71%

Info: Placed 0 cells based on constraints.
Info: Running simulated annealing placer for refinement.
Info: SA placement time 1647.73s

Info: Max frequency for clock '$glbnet$clk': 14.91 MHz (FAIL at 100.00 MHz)
Info: Max frequency for clock 'slow': 12.50 MHz (FAIL at 100.00 MHz)

Info: Routing globals...
Info: Routing..
Info: Setting up routing queue.
Info: Routing 296446 arcs.
Info:            |   (re-)routed arcs  |   delta    | remaining|       time spent     |
Info:    IterCnt |  w/ripup   wo/ripup |  w/r  wo/r |      arcs| batch(sec) total(sec)|
Info:       1000 |      221        778 |  221   778 |    295875|      15.20      15.20|
Info:     295000 |    54354     240645 |  144   856 |    223505|       5.04    1617.42|
"""


def test_nextpnr_log_progress(tmp_path):
    from synth.reports import nextpnr_log_progress, stopped_text
    log = tmp_path / "nextpnr.log"
    log.write_text(_STOPPED_LOG)
    progress = nextpnr_log_progress(log)
    assert progress == {"stage": "routing", "placed_fmax_mhz": 12.5, "arcs": 296446,
                        "arcs_left": 223505}
    assert stopped_text(progress) == ("stopped at the time limit while routing (placement's "
                                      "estimate 12.5 MHz; 223,505 of 296,446 arcs left)")
    log.write_text(_STOPPED_LOG.split("Info: SA placement")[0])
    placing = nextpnr_log_progress(log)
    assert placing == {"stage": "placement", "placed_fmax_mhz": None, "arcs": None,
                       "arcs_left": None}
    assert stopped_text(placing) == "stopped at the time limit while placing"
    assert nextpnr_log_progress(tmp_path / "absent.log")["stage"] is None
    # router2 (the flow's router) counts overused wires per iteration, not arcs.
    log.write_text(_STOPPED_LOG.split("Info: Routing globals")[0] + """\
Info: Routing globals...
Info: Running router2...
Info: Setting up routing resources...
Info: Running main router loop...
Info:     iter=1 wires=603183 overused=32251 overuse=37628 archfail=NA
Info:     iter=2 wires=615296 overused=19095 overuse=20446 archfail=NA
""")
    routing = nextpnr_log_progress(log)
    assert routing == {"stage": "routing", "placed_fmax_mhz": 12.5, "arcs": None,
                       "arcs_left": None, "iteration": 2, "overused": 19095}
    assert stopped_text(routing) == ("stopped at the time limit while routing (placement's "
                                     "estimate 12.5 MHz; router2 iteration 2, 19,095 wires "
                                     "overused)")


def test_ecp5_stopped_while_routing_is_reported_with_yosys_counts(big_design, tmp_path,
                                                                  monkeypatch):
    """nextpnr stopped by the time limit (here a stand-in that writes a routing log and
    raises as ``run_tool`` does) leaves Yosys's counts and how far it got, not an error."""
    real_run_tool = synth.tools.run_tool

    def stopped_nextpnr(tool, args, build_dir, log_name, timeout=None):
        if tool != "nextpnr-ecp5":
            return real_run_tool(tool, args, build_dir, log_name, timeout)
        (build_dir / log_name).write_text(_STOPPED_LOG)
        raise TimeLimitReached(f"{tool} stopped at the time limit (see {build_dir / log_name})")

    monkeypatch.setattr(synth.tools, "run_tool", stopped_nextpnr)
    report = synthesize(big_design, "top", "ecp5", tmp_path / "build", seeds=2, jobs=1,
                        per_unit=True)
    assert report["lut4"] > 0 and report["ebr"] == 1
    assert "units" not in report and \
        "per unit: not run (the time limit stopped nextpnr)" in report["notes"]
    assert report["stopped"]["stage"] == "routing" and report["stopped"]["arcs_left"] == 223505
    assert report["fmax_mhz"] is None and report["timing_met"] is None
    assert report["fits"] is True and report["utilisation"]["DP16KD"]["used"] == 49
    assert report["reports"] == ["stat.json"]
    assert (tmp_path / "build" / "nextpnr.log").read_text() == _STOPPED_LOG
    assert any("nextpnr stopped at the time limit while routing" in n for n in report["notes"])
    assert not any("no clock" in n for n in report["notes"])
    assert "- (stopped at the time limit while routing (placement's estimate 12.5 MHz" in \
        format_table(report)

    def failing_nextpnr(tool, args, build_dir, log_name, timeout=None):
        if tool != "nextpnr-ecp5":
            return real_run_tool(tool, args, build_dir, log_name, timeout)
        raise TimeLimitReached(f"{tool} stopped at the time limit (see {build_dir / log_name})")

    # Stopped before nextpnr wrote a log: still the time limit's error.
    monkeypatch.setattr(synth.tools, "run_tool", failing_nextpnr)
    with pytest.raises(SynthError, match="time limit"):
        synthesize(big_design, "top", "ecp5", tmp_path / "early")


def test_nextpnr_error(small_design, tmp_path):
    with pytest.raises(SynthError) as error:
        synthesize(small_design, "top", "ecp5", tmp_path, ecp5_package="NOPACKAGE")
    assert "nextpnr-ecp5 failed" in str(error.value)
    assert "Unsupported package 'NOPACKAGE'" in str(error.value)
    assert "nextpnr.log" in str(error.value)


class RegisteredRead(wiring.Component):
    """A 1024 x 8 memory whose read data goes through a register: plain, with a reset, with
    an enable, or with the RAM's data used by something else too."""

    def __init__(self, kind: str = "plain"):
        self.kind = kind
        super().__init__({"we": In(1), "waddr": In(10), "wdata": In(8), "raddr": In(10),
                          "en": In(1), "rdata": Out(8), "raw": Out(8)})

    def elaborate(self, platform):
        m = Module()
        # Without no_rw_check Yosys puts a collision bypass between the RAM and the register.
        m.submodules.mem = mem = memory.Memory(shape=8, depth=1024, init=[],
                                               attrs={"no_rw_check": 1})
        write, read = mem.write_port(), mem.read_port()
        m.d.comb += [write.addr.eq(self.waddr), write.data.eq(self.wdata), write.en.eq(self.we),
                     read.addr.eq(self.raddr)]
        register = Signal(8, reset_less=self.kind != "reset")
        with m.If(self.en if self.kind == "enable" else 1):
            m.d.sync += register.eq(read.data)
        # A second register stage gives nextpnr a path from the RAM's output to time.
        result = Signal(8)
        m.d.sync += result.eq(register ^ self.wdata)
        m.d.comb += self.rdata.eq(result)
        if self.kind == "shared":
            m.d.comb += self.raw.eq(read.data)
        return m


def _ecp5_netlist(tmp_path, kind):
    from synth.tools import run_tool
    (tmp_path / "top.v").write_text(verilog.convert(RegisteredRead(kind), name="top"))
    run_tool("yosys", ["-q", "-l", "yosys.log", "-p",
                       "read_verilog top.v; synth_ecp5 -top top -json top.json"],
             tmp_path, "yosys.log")
    return json.loads((tmp_path / "top.json").read_text())


def _kinds(cells):
    return [cell["type"] for cell in cells.values()]


def test_bram_output_register_absorbed(tmp_path):
    from synth.ecp5_outreg import absorb_output_registers
    netlist = _ecp5_netlist(tmp_path, "plain")
    cells = netlist["modules"]["top"]["cells"]
    flip_flops = _kinds(cells).count("TRELLIS_FF")
    assert absorb_output_registers(netlist, "top") == 8
    assert _kinds(cells).count("TRELLIS_FF") == flip_flops - 8
    (ram,) = [cell for cell in cells.values() if cell["type"] == "DP16KD"]
    assert ram["parameters"]["REGMODE_B"] == "OUTREG"
    assert ram["parameters"]["REGMODE_A"] == "NOREG"
    # The RAM's outputs now drive what the flip-flops' outputs drove.
    outputs = {bit for port, bits in ram["connections"].items() if port.startswith("DOB")
               for bit in bits}
    xors = [bit for cell in cells.values() if cell["type"] == "LUT4"
            for bit in sum(cell["connections"].values(), [])]
    assert len(outputs & set(xors)) == 8
    assert absorb_output_registers(netlist, "top") == 0


@pytest.mark.parametrize("kind", ["reset", "enable", "shared"])
def test_bram_output_register_kept(tmp_path, kind):
    from synth.ecp5_outreg import absorb_output_registers
    netlist = _ecp5_netlist(tmp_path, kind)
    before = json.dumps(netlist, sort_keys=True)
    assert absorb_output_registers(netlist, "top") == 0
    assert json.dumps(netlist, sort_keys=True) == before


def test_ecp5_flow_absorbs_bram_register(tmp_path):
    source = tmp_path / "registered.v"
    source.write_text(verilog.convert(RegisteredRead("plain"), name="top"))
    report = synthesize(source, "top", "ecp5", tmp_path / "build")
    assert report["ebr"] == 1
    assert report["ff"] == 8   # the result register; the read register is in the RAM
    assert report["utilisation"]["TRELLIS_FF"]["used"] == report["ff"]
    assert any("output registers" in note for note in report["notes"])



# DepGraph's paper units synthesized alone (``graphgen synth --design depgraph-hdtl`` and
# ``depgraph-ddmu``): elaboration of each for both kinds of Accum, one generic synthesis of the
# smallest (a few seconds); their ECP5 and ASIC figures are in docs/results.md.

def _depgraph_unit(name: str, **overrides):
    from graphgen.designs import get_design
    design = get_design(name)
    return design, design.config({key: str(value) for key, value in overrides.items()})


@pytest.mark.parametrize("name, algo, hub", [
    ("depgraph-hdtl", "sssp", True), ("depgraph-hdtl", "pagerank", True),
    ("depgraph-hdtl", "bfs", False),
    ("depgraph-ddmu", "sssp", True), ("depgraph-ddmu", "pagerank", True)])
def test_depgraph_units_elaborate(name, algo, hub):
    design, config = _depgraph_unit(name, algo=algo, hub_index=hub, stack_depth=3)
    top = name.replace("-", "_")
    assert design.top(config) == top
    unit = design.build(config)
    if name == "depgraph-hdtl":   # <vertex, next, end>, with the hub index y, and its lines
        lines = config.kept_lines * 512 if config.stack_lines else 0
        assert config.stack_lines and config.kept_lines == 4      # the defaults
        assert unit.stack_bits == 3 * ((128 if hub else 96) + lines)
    text = design.verilog(config, unit)
    assert f"module {top}(" in text
    assert ("lookup__valid" in text) == hub and ("observe__valid" in text) == hub


def test_depgraph_units_have_no_testbench():
    from hw.lib.config import ConfigError
    design, config = _depgraph_unit("depgraph-hdtl")
    with pytest.raises(ConfigError, match="no testbench of its own"):
        design.run_test(config)


def test_depgraph_ddmu_generic(tmp_path):
    design, config = _depgraph_unit("depgraph-ddmu", algo="bfs")
    source = tmp_path / "ddmu.v"
    source.write_text(design.verilog(config))
    report = synthesize(source, "depgraph_ddmu", "generic", tmp_path)
    assert report["top"] == "depgraph_ddmu" and report["num_cells"] > 0
    assert sum(count for kind, count in report["cells"].items() if "DFF" in kind) > 100


def test_ecp5_seed_sweep_reports_the_best_seed(tmp_path):
    source = tmp_path / "registered.v"
    source.write_text(verilog.convert(RegisteredRead("plain"), name="top"))
    report = synthesize(source, "top", "ecp5", tmp_path / "build", seeds=2, jobs=2)
    assert report["seeds"] == [1, 2] and set(report["fmax_by_seed"]) == {"1", "2"}
    # The seeds placed side by side give what they give one after another.
    apart = synthesize(source, "top", "ecp5", tmp_path / "apart", seeds=2, jobs=1)
    assert apart["fmax_by_seed"] == report["fmax_by_seed"]
    assert "(2 at a time)" in " ".join(report["notes"])
    assert report["fmax_mhz"] == max(report["fmax_by_seed"].values())
    assert report["fmax_by_seed"][str(report["seed"])] == report["fmax_mhz"]
    assert "by placement seed" in format_table(report)
    with pytest.raises(SynthError):
        synthesize(source, "top", "ecp5", tmp_path / "build", seeds=0)


class TwoUnits(wiring.Component):
    """Two counter-memories side by side, the top's own logic an XOR of their outputs."""

    def __init__(self):
        super().__init__({"en": In(1), "we": In(1), "addr": In(9), "wdata": In(16),
                          "out": Out(16)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.big = big = CounterMemory(512)
        m.submodules.small = small = CounterMemory(16)
        for unit in (big, small):
            m.d.comb += [unit.en.eq(self.en), unit.we.eq(self.we),
                         unit.waddr.eq(self.addr), unit.raddr.eq(self.addr),
                         unit.wdata.eq(self.wdata)]
        m.d.comb += self.out.eq(big.rdata ^ small.rdata ^ big.count ^ small.count)
        return m


def test_ecp5_per_unit_breakdown_adds_up(tmp_path):
    path = tmp_path / "two.v"
    path.write_text(verilog.convert(TwoUnits(), name="top"))
    report = synthesize(path, "top", "ecp5", tmp_path / "build", per_unit=True)
    units = report["units"]
    assert set(units) == {"big", "small", "(top)"}
    assert units["big"]["ebr"] == 1 and units["small"]["ebr"] == 0    # 512 x 16: one DP16KD
    assert units["big"]["ff"] >= 16 and units["small"]["ff"] >= 16   # each its counter
    for group in ("lut4", "ff", "ebr", "dsp", "lutram", "ccu2c"):
        assert sum(unit[group] for unit in units.values()) == report["units_total"][group]
    assert sum(unit["share_lut4"] for unit in units.values()) == pytest.approx(1.0)
    assert "unit big" in format_table(report)
