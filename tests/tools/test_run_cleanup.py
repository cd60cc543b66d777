"""RTL runs delete their folders (the cocotb run's, and graphgen sim's with its memory
images) unless asked to keep them: ``graphgen test --keep``, ``graphgen sim --keep``."""

import shutil
import tempfile
from pathlib import Path

import pytest

from graphgen.cli import main


@pytest.fixture
def made_dirs(monkeypatch):
    """Every folder the run creates through ``tempfile.mkdtemp``."""
    made = []
    real = tempfile.mkdtemp

    def recording(*args, **kwargs):
        path = real(*args, **kwargs)
        made.append(Path(path))
        return path

    monkeypatch.setattr(tempfile, "mkdtemp", recording)
    return made


def kept_folder(stdout: str) -> Path:
    lines = [line for line in stdout.splitlines() if line.startswith("kept ")]
    assert len(lines) == 1, stdout
    return Path(lines[0].removeprefix("kept "))


def test_graphgen_test_removes_its_run_folder_unless_kept(made_dirs, capsys):
    assert main(["test", "--design", "cam"]) == 0
    assert "kept" not in capsys.readouterr().out
    assert [path.name[:4] for path in made_dirs] == ["run-"]
    assert not made_dirs[0].exists()

    assert main(["test", "--design", "cam", "--keep"]) == 0
    kept = kept_folder(capsys.readouterr().out)
    try:
        assert kept == made_dirs[1] and (kept / "sim.log").is_file()
    finally:
        shutil.rmtree(kept, ignore_errors=True)


# The configuration and memory of tests/hw/graphicionado/test_rtl.py's BFS runs: the same build.
SIM = ["sim", "--design", "graphicionado", "--algo", "bfs", "--graph", "grid:rows=4,cols=5",
       "--root", "0", "--set", "max_vertices=1024", "--set", "edge_prefetch_lines=16",
       "--set", "stall_injection=25", "--set", "max_slices=8", "--set", "streams_src=2",
       "--set", "streams_dst=2", "--mem", "latency=60",
       "--mem", "latency_dist=uniform", "--mem", "jitter=24",
       "--mem", "outstanding=96", "--mem", f"depth_lines={1 << 15}"]


# make test's budget: the cam test above checks the cocotb run's folder the same way.
@pytest.mark.soak
def test_graphgen_sim_removes_its_run_folders_unless_kept(made_dirs, capsys):
    assert main(SIM) == 0
    assert "kept" not in capsys.readouterr().out
    assert len(made_dirs) == 2          # the run's folder and the cocotb run's inside it
    assert made_dirs[1].parent == made_dirs[0]
    assert not made_dirs[0].exists()

    assert main([*SIM, "--keep"]) == 0
    kept = kept_folder(capsys.readouterr().out)
    try:
        assert kept == made_dirs[2]
        assert (kept / "dram_dump.bin").is_file() and (kept / "dram_init.bin").is_file()
        assert [path.name for path in kept.glob("run-*/sim.log")] == ["sim.log"]
    finally:
        shutil.rmtree(kept, ignore_errors=True)
