"""The test suite's Verilator builds compile their C++ without optimisation: its runs are
short, so compile time is most of a test's time (see ``sim.harness.VERILATOR_BUILDS``)."""

import os

os.environ.setdefault("GRAPHGEN_VERILATOR_BUILD", "quick")
