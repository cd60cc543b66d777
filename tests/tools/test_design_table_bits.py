"""The design table: DepGraph's buffer sizes from the hardware's own layouts and the
configuration (the FIFO edge buffer's default is sized to the paper's 4.8 Kbit); the Fmax
cell of a default that does not fit the device."""

import sys
from pathlib import Path

from tests.support import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))

from bench_design_table import _fmax_cell, depgraph_core_bits  # noqa: E402


def test_default_fifo_is_the_papers_size():
    bits = depgraph_core_bits({})
    assert abs(bits["fifo_bits"] - 4800) / 4800 < 0.05, bits
    assert bits["fifo_bits"] == bits["fifo_entries"] * bits["fifo_entry_bits"]


# One walk with the stack's three words an entry: the paper's HDTL without its lines.
BARE = {"walks": "1", "stack_lines": "off", "kept_lines": "1"}


def test_stack_grows_with_walks_depth_and_the_hub_index():
    one = depgraph_core_bits(BARE)
    assert one["stack_bits"] == 10 * one["stack_entry_bits"]
    four = depgraph_core_bits({**BARE, "walks": "4", "stack_depth": "20"})
    assert four["stack_bits"] == 4 * 20 * one["stack_entry_bits"]
    hub = depgraph_core_bits({**BARE, "hub_index": "on"})
    assert hub["stack_entry_bits"] == one["stack_entry_bits"] + 32


def test_stack_with_its_lines_is_the_papers_size():
    """With ``stack_lines`` each entry keeps a 64-byte line of edges beside its three words:
    6.08 Kbit at depth 10, the paper's 6.1."""
    one = depgraph_core_bits(BARE)
    lines = depgraph_core_bits({**BARE, "stack_lines": "on"})
    assert lines["stack_entry_bits"] == one["stack_entry_bits"] + 512
    assert abs(lines["stack_bits"] - 6100) / 6100 < 0.01, lines
    default = depgraph_core_bits({})
    assert default["stack_entry_bits"] == one["stack_entry_bits"] + 4 * 512
    assert default["stack_bits"] == 16 * default["stack_entry_bits"] * 10


def test_a_default_that_does_not_fit_says_what_overflows():
    assert _fmax_cell({"ecp5_overflow": "DP16KD 392 of 208", "fmax_mhz": None}) == \
        "does not fit: DP16KD 392 of 208"
    assert _fmax_cell({"ecp5_overflow": None, "fmax_mhz": 93.21}) == "93.2"


def test_a_default_that_nextpnr_did_not_finish_says_how_far_it_got():
    stopped = ("stopped at the time limit while routing (placement's estimate 14.9 MHz; "
               "223,505 of 296,446 arcs left)")
    assert _fmax_cell({"ecp5_overflow": None, "ecp5_stopped": stopped, "fmax_mhz": None}) == \
        f"no Fmax: nextpnr {stopped}"


def test_throughput_at_the_fmax_joins_the_same_verilog():
    """The table's throughput: the simulation's work per cycle times the ECP5 Fmax of the
    same Verilog (by its hash), exactly; another Verilog, no Fmax or no simulation say so."""
    from bench_design_table import SIM_RUNS, throughput_cell, throughput_entry
    sim = {"edges_per_cycle": 0.37, "operations_per_cycle": None, "cycles": 12345,
           "verilog_sha256": "abc", "graph_symmetric": False, "error": None}
    entry = throughput_entry(sim, {"fmax_mhz": 41.2, "verilog_sha256": "abc"}, "bfs")
    assert entry["per_second"] == 0.37 * 41.2 * 1e6 and entry["run"] == SIM_RUNS["bfs"]
    assert throughput_cell(entry, "bfs") == "0.370 edges/cycle, 15.2 M TEPS"
    other = throughput_entry(sim, {"fmax_mhz": 41.2, "verilog_sha256": "def"}, "bfs")
    assert "per_second" not in other and "not the synthesized one" in throughput_cell(other,
                                                                                      "bfs")
    ops = throughput_entry({**sim, "edges_per_cycle": None, "operations_per_cycle": 0.5},
                           {"fmax_mhz": None, "verilog_sha256": "abc"}, "dyngraph")
    assert throughput_cell(ops, "dyngraph") == "0.500 ops/cycle; no ECP5 Fmax"
    assert throughput_cell(throughput_entry(None, {}, "cam"), "cam") == \
        "no simulation of this design"
    failed = throughput_entry({"error": "worker: lost"}, {"fmax_mhz": 40.0}, "depgraph")
    assert throughput_cell(failed, "depgraph") == "simulation failed: worker: lost"
    clocks = throughput_entry(sim, {"fmax_mhz": None, "verilog_sha256": "abc"}, "bfs",
                              {"GW5A": {"fmax_mhz": None}, "0.18 um": {"fmax_mhz": 252.1}})
    assert clocks["at"] == {"0.18 um": {"fmax_mhz": 252.1, "per_second": 0.37 * 252.1e6}}
    assert throughput_cell(clocks, "bfs") == \
        "0.370 edges/cycle; no ECP5 Fmax; 93.3 M TEPS at 0.18 um's 252.1 MHz"


def test_the_gw5a_fmax_cell_reads_its_own_columns():
    figures = {"gw5a_overflow": None, "gw5a_stopped": None, "gw5a_fmax_mhz": 113.11,
               "fmax_mhz": 50.0}
    assert _fmax_cell(figures, "gw5a", "gw5a_fmax_mhz") == "113.1"
    assert _fmax_cell({**figures, "gw5a_overflow": "BSRAM 384 of 340"}, "gw5a",
                      "gw5a_fmax_mhz") == "does not fit: BSRAM 384 of 340"
