"""Shared test set-up.

The test suite's Verilator builds compile their C++ without much optimisation: its runs are
short, so compile time is most of a test's time (see ``sim.harness.VERILATOR_BUILDS``).

RTL tests take their stall and DRAM seeds from ``--stall-seed`` (default 1) plus an offset
of their own, so a failure names the seed and the one command that reruns it, and a run with
another base seed crosses every test with new stall patterns.
"""

import os
from fnmatch import fnmatch

import pytest

os.environ.setdefault("GRAPHGEN_VERILATOR_BUILD", "quick")


# Modules whose tests take 30-120 s each (Yosys runs, whole designs in Verilator): they run
# first, so that pytest-xdist's two workers are not left one busy with them at the end while
# the other has nothing (make test on a fresh clone: the last five minutes on one core).
LONG_FIRST = ("tests/tools/test_synth_designs.py", "tests/hw/*/test_rtl.py",
              "tests/tools/test_driver_cocotb.py", "tests/sim/test_checker_fires.py")


def pytest_collection_modifyitems(config, items):
    """The tests of ``tests.budget.MOVED_TO_SOAK`` marked ``soak``; the long tests' modules
    first (``LONG_FIRST``), every module's own order kept."""
    from tests.budget import moved_to_soak
    for item in items:
        if moved_to_soak(item.nodeid):
            item.add_marker(pytest.mark.soak)
    def long(item):
        path = item.nodeid.split("::")[0]
        return any(fnmatch(path, pattern) for pattern in LONG_FIRST)
    items.sort(key=lambda item: not long(item))


def pytest_addoption(parser):
    parser.addoption("--stall-seed", type=int, default=1,
                     help="base seed of the RTL tests' stall throttles and DRAM randomness")


class RunSeeds:
    """Seeds for one test: ``seeds.get(offset)`` is the base seed plus ``offset``;
    ``seeds.hint(seed)`` says how to rerun the test with it."""

    def __init__(self, request):
        self.base = request.config.getoption("--stall-seed")
        self._nodeid = request.node.nodeid

    def get(self, offset: int = 0) -> int:
        return self.base + offset

    def hint(self, seed: int) -> str:
        return (f"stall/DRAM seed {seed}; rerun: .venv/bin/pytest '{self._nodeid}' "
                f"--stall-seed={self.base}")


@pytest.fixture
def run_seeds(request) -> RunSeeds:
    return RunSeeds(request)
