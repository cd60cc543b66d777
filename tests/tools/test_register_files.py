# amaranth: UnusedElaboratable=no
"""A design's register map as files (graphgen/register_files.py, ``graphgen verilog --bus axi
-o DIR/``): the C header compiles and places every register at its offset in the map, the
IP-XACT parses and names the registers, the Markdown names every register, and the
description written out elaborates to the same map."""

import shutil
import subprocess
import xml.etree.ElementTree as ElementTree

import pytest

from graphgen.cli import main
from graphgen.commands.verilog import is_folder
from graphgen.designs import get_design
from graphgen.register_files import REGISTER_SUFFIXES, register_files
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.top import GraphicionadoPipeline
from hw.lib.axi.rdl_map import RDLSource, compile_rdl, rdl_address_map


DESIGNS = ["graphicionado", "depgraph", "bfs", "dyngraph"]
IPXACT = "{http://www.accellera.org/XMLSchema/IPXACT/1685-2014}"


def source_of(name, config=None):
    design = get_design(name)
    return design.build(config or design.config()).register_description()


def registers(source):
    """(C member path below the top, byte offset) of every register, arrays unrolled."""
    from systemrdl.node import RegNode
    top = compile_rdl(source)
    return [(node.get_path()[len(top.inst_name) + 1:], node.absolute_address)
            for node in top.descendants(unroll=True) if isinstance(node, RegNode)]


def elements(source):
    """Every register and regfile array element as the Markdown names it (``cycles``,
    ``edge_part_[3]``, ``memory[1]``)."""
    top = compile_rdl(source)
    return {node.inst_name + "".join(f"[{i}]" for i in (node.current_idx or ()))
            for node in top.descendants(unroll=True)
            if node.__class__.__name__ in ("RegNode", "RegfileNode")}


CASES = [(name, None) for name in DESIGNS] + [
    ("graphicionado", GraphicionadoConfig(algo="pagerank", streams_src=2, streams_dst=2,
                                          memory_channels=2))]


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on this machine")
def test_the_c_headers_compile_together_with_the_maps_offsets(tmp_path):
    lines = ["#include <stddef.h>"]
    for name, config in CASES[:4]:
        files = register_files(source_of(name, config), name, f"{name}_axi")
        (tmp_path / f"{name}_regs.h").write_text(files[f"{name}_regs.h"])
        lines.append(f'#include "{name}_regs.h"')
        offsets = {entry.offset for entry in rdl_address_map(source_of(name, config))}
        placed = registers(source_of(name, config))
        assert {offset for _, offset in placed} == offsets
        lines += [f"_Static_assert(offsetof({name}_t, {path}) == {offset}, "
                  f'"{name} {path}");' for path, offset in placed]
    (tmp_path / "check.c").write_text("\n".join(lines) + "\n")
    result = subprocess.run(["cc", "-std=gnu11", "-Wall", "-Werror", "-fsyntax-only",
                             "check.c"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on this machine")
def test_a_wrong_offset_fails_to_compile(tmp_path):
    files = register_files(source_of("bfs"), "bfs", "bfs_axi")
    (tmp_path / "bfs_regs.h").write_text(files["bfs_regs.h"])
    (tmp_path / "check.c").write_text('#include <stddef.h>\n#include "bfs_regs.h"\n'
                                      '_Static_assert(offsetof(bfs_t, stat.cycles) == 0x104, '
                                      '"x");\n')
    result = subprocess.run(["cc", "-std=gnu11", "-fsyntax-only", "check.c"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode != 0


@pytest.mark.parametrize("name, config", CASES, ids=lambda x: x if isinstance(x, str) else "")
def test_ipxact_markdown_and_rdl_describe_the_map(tmp_path, name, config):
    source = source_of(name, config)
    files = register_files(source, name, f"{name}_axi", comment="a\nb")
    assert list(files) == [f"{name}_regs.{suffix}" for suffix in REGISTER_SUFFIXES]
    entries = rdl_address_map(source)

    root = ElementTree.fromstring(files[f"{name}_regs.xml"])
    assert root.tag == f"{IPXACT}component"
    assert root.find(f"{IPXACT}name").text == f"{name}_axi"
    named = {element.text for element in root.iter(f"{IPXACT}name")}
    top_level = {entry.name for entry in entries if entry.kind in ("control", "input")}
    assert top_level | {"stat", "config"} <= named
    leaves = {path.split(".")[-1].split("[")[0] for path, _ in registers(source)}
    assert leaves <= named

    markdown = files[f"{name}_regs.md"]
    rows = {cell.strip() for line in markdown.splitlines() if line.startswith("|")
            for cell in line.split("|")}
    assert elements(source) <= rows

    rdl = tmp_path / "out.rdl"
    rdl.write_text(files[f"{name}_regs.rdl"])
    assert files[f"{name}_regs.rdl"].startswith("// a\n// b\n")
    assert "`include" not in files[f"{name}_regs.rdl"]
    written = RDLSource(rdl, source.top, source.parameters)
    assert rdl_address_map(written) == entries


def test_graphicionado_array_elements_are_in_the_markdown():
    config = GraphicionadoConfig(algo="pagerank", streams_src=2, streams_dst=2,
                                 memory_channels=2)
    source = GraphicionadoPipeline(config).register_description()
    markdown = register_files(source, "g", "g_axi")["g_regs.md"]
    assert "edge_part_[2]" in markdown and "memory[1]" in markdown


def test_verilog_to_a_folder_writes_the_ip(tmp_path, capsys):
    folder = tmp_path / "ip"
    assert main(["verilog", "--design", "bfs", "--bus", "axi", "-o", f"{folder}/"]) == 0
    names = ["bfs_axi.v"] + [f"bfs_regs.{suffix}" for suffix in REGISTER_SUFFIXES]
    assert sorted(path.name for path in folder.iterdir()) == sorted(names)
    verilog = (folder / "bfs_axi.v").read_text()
    assert "module bfs_axi(" in verilog and "//   0x400 reg_out_offsets_base (rw)" in verilog
    assert '"lanes": 4' in (folder / "bfs_regs.rdl").read_text()
    assert "bfs_regs.xml" in capsys.readouterr().out


def test_a_folder_is_one_that_exists_or_ends_in_a_slash(tmp_path):
    assert is_folder(str(tmp_path)) and is_folder(f"{tmp_path}/new/")
    assert not is_folder(f"{tmp_path}/new") and not is_folder(f"{tmp_path}/x.v")
