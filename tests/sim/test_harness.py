"""The simulation harness's Verilator set-up (``sim.harness.setup_verilator``)."""

import os
import re
import subprocess
from pathlib import Path

from sim.harness import CCACHE_DIR, setup_verilator


def test_verilator_builds_compile_through_ccache(monkeypatch):
    """Every Verilator build's C++ goes through the pinned ccache, so the run-time files all
    builds share are compiled once (about 8 s of CPU a build): make is given ``OBJCACHE``,
    which the wheel's verilated.mk puts in front of every compile, and the cache is
    build/ccache unless the user names another."""
    monkeypatch.delenv("MAKEFLAGS", raising=False)
    monkeypatch.delenv("CCACHE_DIR", raising=False)
    root = setup_verilator()
    flags = os.environ["MAKEFLAGS"]
    ccache = re.search(r"OBJCACHE=(\S+)", flags)
    assert ccache, flags
    version = subprocess.run([ccache[1], "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("ccache version")
    assert os.environ["CCACHE_DIR"] == str(CCACHE_DIR)
    rules = (Path(root) / "include" / "verilated.mk").read_text()
    assert "$(OBJCACHE) $(CXX)" in rules
    # A user's own OBJCACHE (empty: no cache) is left as given.
    monkeypatch.setenv("MAKEFLAGS", "OBJCACHE=")
    setup_verilator()
    assert "OBJCACHE=" == os.environ["MAKEFLAGS"].split()[0] and \
        os.environ["MAKEFLAGS"].count("OBJCACHE") == 1
