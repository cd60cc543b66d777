"""Splitting an emitted design into units synthesized apart: the per-unit ASIC flow.

Amaranth names every submodule's Verilog module after its place in the hierarchy
(``top.dst0``, ``top.dst0.process_edge``, ...). A *unit* is one submodule with everything
below it; the *glue* of a module is its own logic, with its direct submodules as black boxes.
A design is cut at the top's submodules, and a unit whose Verilog is still larger than
``max_unit_bytes`` is cut again at its own submodules, so that no Yosys run holds more than a
bounded part of the design: the WebAssembly Yosys stops at 4 GB, which a flat synthesis of
8 x 8 Graphicionado streams reached.

Synthesizing parts apart gives up optimisation across their boundaries (a constant input is
not propagated into a unit, an unused output's logic is not removed), so the sum is an upper
bound of a flat synthesis; ``tests/tools/test_synth_units.py`` measures the difference on a design
small enough for both.
"""

from __future__ import annotations

import dataclasses
import re

from .tools import SynthError


__all__ = ["MAX_UNIT_BYTES", "Part", "split_modules", "plan_parts"]

# A unit with more Verilog than this is cut again at its submodules.
MAX_UNIT_BYTES = 3_000_000

_MODULE = re.compile(r"^module\s+(\\\S+|[A-Za-z_][A-Za-z0-9_$]*)")


@dataclasses.dataclass(frozen=True)
class Part:
    """One Yosys run of the per-unit flow.

    Members
    -------
    name : str
        The hierarchical name of the module synthesized (``graphicionado.dst0``).
    unit : str
        The top-level unit it is counted under (``dst0``; ``(top)`` for the top's own logic).
    top : str
        The module name given to Yosys.
    verilog : str
        The modules synthesized: the part's module and, unless it is glue, all below it.
    blackboxes : str
        The direct submodules left out of a glue part, read as black boxes (``read_verilog
        -lib``); empty for a whole unit.
    """
    name: str
    unit: str
    top: str
    verilog: str
    blackboxes: str = ""


def split_modules(text: str) -> tuple[str, dict[str, str]]:
    """``(preamble, {module name: its text})`` of a Verilog file written by Amaranth, each
    module's text with the attribute lines before it; names without their leading backslash."""
    preamble: list[str] = []
    modules: dict[str, str] = {}
    pending: list[str] = []
    current: list[str] | None = None
    name = ""
    for line in text.splitlines(keepends=True):
        if current is not None:
            current.append(line)
            if line.startswith("endmodule"):
                modules[name] = "".join(current)
                current = None
            continue
        match = _MODULE.match(line)
        if match:
            name = match.group(1).lstrip("\\")
            if name in modules:
                raise SynthError(f"module {name} is defined twice in the Verilog")
            current = pending + [line]
            pending = []
        elif line.startswith("(*"):
            pending.append(line)
        else:
            preamble.extend(pending)
            pending = []
            preamble.append(line)
    if current is not None:
        raise SynthError(f"module {name} has no endmodule")
    return "".join(preamble + pending), modules


def _children(name: str, names: list[str]) -> list[str]:
    depth = name.count(".") + 1
    return [other for other in names
            if other.startswith(name + ".") and other.count(".") == depth]


def _subtree(name: str, modules: dict[str, str]) -> list[str]:
    return [other for other in modules if other == name or other.startswith(name + ".")]


def plan_parts(text: str, top: str, max_unit_bytes: int = MAX_UNIT_BYTES) -> list[Part]:
    """The Yosys runs that together synthesize module ``top`` of ``text`` once: the top's glue
    and one part per unit, a unit larger than ``max_unit_bytes`` of Verilog being replaced by
    its own glue and its submodules' parts, recursively. Largest first.

    Raises :class:`SynthError` if ``top`` is missing or a module is not below ``top`` by
    name (the split relies on Amaranth's hierarchical module names)."""
    preamble, modules = split_modules(text)
    if top not in modules:
        raise SynthError(f"module {top} not found in the Verilog")
    stray = [name for name in modules if name != top and not name.startswith(top + ".")]
    if stray:
        raise SynthError(f"cannot split the design by unit: module {stray[0]} is not named "
                         f"below {top}")
    names = list(modules)
    parts: list[Part] = []

    def glue(name: str, unit: str) -> None:
        stubs = "".join(modules[child] for child in _children(name, names))
        parts.append(Part(name, unit, name, preamble + modules[name], stubs))

    def place(name: str, unit: str) -> None:
        below = _subtree(name, modules)
        size = sum(len(modules[other]) for other in below)
        if size > max_unit_bytes and len(below) > 1:
            glue(name, unit)
            for child in _children(name, names):
                place(child, unit)
        else:
            parts.append(Part(name, unit, name,
                              preamble + "".join(modules[other] for other in below)))

    glue(top, "(top)")
    for child in _children(top, names):
        place(child, child[len(top) + 1:])
    return sorted(parts, key=lambda part: -len(part.verilog))
