"""The layout rule of the tree (docs/architecture.md), checked on the import graph.

- Nothing under ``hw/`` imports simulation-only gateware (``sim/``), the tools (``graphgen/``,
  ``synth/``), the golden models or the tests: a design's synthesizable top reaches only
  ``hw/`` and the vertex programs' expression vocabulary (``graphgen.programs``, which
  imports nothing of the project outside itself: the datapaths are compiled from it). The
  import graph is read from the source (every ``import``, at any depth of a
  module), so an import inside a function counts too.
- ``hw/lib/`` is shared: no module of it imports a design folder.
- ``golden/`` never imports ``hw/``: the specification does not depend on the hardware.
- Every design's ``elaborate`` is short enough to hold (warned above 100 lines, refused
  above 150).
"""

import ast
import warnings

import pytest

from tests.support import REPO_ROOT
from tests.support.imports import imports_of, modules_under, reachable

ROOT = REPO_ROOT
DESIGNS = ("bfs", "depgraph", "dyngraph", "graphicionado")
HW_MAY_IMPORT = ("hw.", "graphgen.programs.")


def _outside_hw(name: str) -> bool:
    return not name.startswith(HW_MAY_IMPORT) and name != "graphgen.programs"
ELABORATE_WARN, ELABORATE_LIMIT = 100, 150


def test_the_import_graph_sees_imports():
    """The walker itself: the BFS top reaches the shared stream FIFO and its config, and
    the Graphicionado simulation top reaches the simulation-only DRAM model."""
    assert {"hw.lib.stream.fifo", "hw.bfs.config"} <= reachable("hw.bfs.top")
    assert "sim.gateware.dram_model" in reachable("sim.graphicionado.top")


@pytest.mark.parametrize("design", DESIGNS)
def test_synthesizable_top_reaches_only_hw(design):
    outside = sorted(name for name in reachable(f"hw.{design}.top") if _outside_hw(name))
    assert not outside, f"hw.{design}.top reaches {outside}"


def test_hw_imports_nothing_outside_hw():
    offenders = {name: sorted(target for target in imports_of(name) if _outside_hw(target))
                 for name in modules_under("hw")}
    offenders = {name: targets for name, targets in offenders.items() if targets}
    assert not offenders, offenders


def test_program_vocabulary_imports_only_itself():
    offenders = {name: sorted(target for target in imports_of(name)
                              if not target.startswith("graphgen.programs"))
                 for name in modules_under("graphgen/programs")}
    offenders = {name: targets for name, targets in offenders.items() if targets}
    assert not offenders, offenders


def test_shared_library_imports_no_design():
    offenders = {name: sorted(target for target in imports_of(name)
                              if target.split(".")[:2] not in (["hw", "lib"],
                                                               ["graphgen", "programs"]))
                 for name in modules_under("hw/lib")}
    offenders = {name: targets for name, targets in offenders.items() if targets}
    assert not offenders, offenders


def test_golden_models_do_not_import_hardware():
    offenders = sorted(name for name in modules_under("golden")
                       if any(target.startswith("hw") for target in imports_of(name)))
    assert not offenders, offenders


def elaborate_lengths() -> dict[str, int]:
    lengths = {}
    for path in sorted((ROOT / "hw").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name == "elaborate":
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                lengths[where] = node.end_lineno - node.lineno + 1
    return lengths


def test_elaborate_methods_are_short():
    lengths = elaborate_lengths()
    assert lengths, "no elaborate found under hw/"
    long = {where: n for where, n in lengths.items() if n > ELABORATE_WARN}
    if long:
        warnings.warn(f"elaborate over {ELABORATE_WARN} lines (a block hides in it): {long}")
    too_long = {where: n for where, n in long.items() if n > ELABORATE_LIMIT}
    assert not too_long, f"elaborate over {ELABORATE_LIMIT} lines: {too_long}"
