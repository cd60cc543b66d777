"""make test's budget (``tests/budget.py``): every test moved to make soak is one pytest
collects, so a renamed test does not slip back into make test unnoticed."""

import subprocess
import sys

from tests.budget import MOVED_TO_SOAK, moved_to_soak


def test_every_moved_test_exists():
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "-p", "no:cacheprovider", *MOVED_TO_SOAK],
                         capture_output=True, text=True, check=True).stdout
    collected = {line for line in out.splitlines() if "::" in line}
    listed = {f"{module}::{name}" for module, names in MOVED_TO_SOAK.items() for name in names}
    assert listed - collected == set()


def test_moved_tests_are_marked_soak():
    assert moved_to_soak("tests/hw/bfs/test_rtl.py::test_the_checks_fire")
    assert not moved_to_soak("tests/hw/bfs/test_rtl.py::test_bad_input_is_refused")
