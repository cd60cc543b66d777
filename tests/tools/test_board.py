"""graphgen synth --board: the smallest design (the CAM) through Amaranth's build system for
an amaranth-boards board with the YoWASP tools, up to a bitstream, with the board's clock."""

import json
import os

from graphgen.cli import main
from synth.board import _TOOLS, BOARDS


def test_cam_bitstream_for_ulx3s(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for variable in _TOOLS:
        monkeypatch.delenv(variable, raising=False)
    report = tmp_path / "board.json"
    assert main(["synth", "--design", "cam", "--set", "entries=8", "--board", "ulx3s-85f",
                 "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "on ulx3s-85f (LFE5U-85F, BG381), clock 25 MHz" in out
    figures = json.loads(report.read_text())["figures"]
    bitstream = tmp_path / figures["bitstream"]
    # An ECP5 bitstream starts with its preamble after a comment block (0xFF 0x00 ...).
    data = bitstream.read_bytes()
    assert len(data) > 100_000 and b"LFE5U-85F" in data[:64]
    assert b"\xff\xff\xbd\xb3" in data[:4096]
    assert figures["clock_mhz"] == 25.0 and figures["fmax_mhz"] > 25.0
    assert figures["timing_met"]
    used = figures["utilisation"]
    # The shell keeps the CAM: its flip-flops are there beside the shell's own.
    shell = figures["shell"]
    assert used["TRELLIS_FF"]["used"] > shell["input_flip_flops"] + shell["lfsr_flip_flops"]
    assert used["TRELLIS_COMB"]["used"] > 100
    # The tools were given to the build script alone, not left in this process.
    assert not any(variable in os.environ for variable in _TOOLS)


def test_board_refusals(capsys):
    assert main(["synth", "--design", "cam", "--board", "nexys"]) == 2
    assert "unknown board 'nexys'" in capsys.readouterr().err
    assert main(["synth", "--design", "cam", "--board", "ulx3s-85f", "--target", "ecp5"]) == 2
    assert "one of them" in capsys.readouterr().err
    assert main(["synth", "--design", "cam", "--board", "ulx3s-85f", "--per-unit"]) == 2
    assert "--per-unit is not for --board" in capsys.readouterr().err
    assert "versa-ecp5" in BOARDS
