"""The checks of a run are proven to fire: ``graphgen sim`` exits 1 naming the first differing
vertex and both values when the result read back is wrong (one vertex changed) and when the
design is wrong (Process_Edge adds one too many), and exits 1 with its own message, naming
the stalled stage, when the design hangs (a Process_Edge that never takes an edge), not 2
("bad input").

The broken designs are built by patching a gateware class for the duration of one test: the
Verilog then differs, so they get builds of their own and never reach the cache of the
sound design."""

import re

import pytest

from graphgen.cli import main
from hw.graphicionado import process_edge
from hw.lib.arith import integer as integer_units
from sim import dram_image, dram_run

GRAPH = "kron:scale=6,ef=8,seed=2"
# The configuration of the Graphicionado RTL tests' BFS build (tests/hw/graphicionado/
# test_rtl.py, matrix_config), so the sound runs reuse it.
ARGS = ["sim", "--design", "graphicionado", "--algo", "bfs", "--graph", GRAPH, "--root", "0",
        "--set", "max_vertices=1024", "--set", "edge_prefetch_lines=16",
        "--set", "stall_injection=25", "--set", "max_slices=8",
        "--set", "streams_src=2", "--set", "streams_dst=2",
        "--mem", "latency=60", "--mem", "latency_dist=uniform", "--mem", "jitter=24",
        "--mem", "outstanding=96",
        "--mem", "depth_lines=32768"]


@pytest.fixture(autouse=True)
def fresh_emission(monkeypatch):
    """Emit the Verilog again in every test: a patched class must not reach another test's
    cached emission, nor the sound one a patched test's."""
    monkeypatch.setattr(dram_run, "_emitted", {})


# make test's budget: every timed RTL test is a sound run through the same checks, and the
# tests below build this design.
@pytest.mark.soak
def test_sound_run_passes(capsys):
    assert main(ARGS + ["--seed", "2"]) == 0
    assert "matches the golden model" in capsys.readouterr().out


def test_one_vertex_changed_is_caught(monkeypatch, capsys):
    read = dram_image.DRAMImage.read_hex_words

    def corrupted(*args, **kwargs):
        words = read(*args, **kwargs).copy()
        words[5] ^= 1
        return words

    monkeypatch.setattr(dram_image.DRAMImage, "read_hex_words", staticmethod(corrupted))
    assert main(ARGS) == 1
    error = capsys.readouterr().err
    match = re.search(r"MISMATCH with the golden model at vertex (\d+): RTL (\d+), golden (\d+)",
                      error)
    assert match, error
    vertex, rtl, gold = map(int, match.groups())
    # Word 5 of the read-back is one vertex's (which one depends on the streams' layout).
    assert 0 <= vertex < 64 and rtl == gold ^ 1


@pytest.mark.soak      # make test's budget: the other checker tests stay
def test_broken_process_edge_is_caught(monkeypatch, capsys):
    """Process_Edge computes level + 2 instead of level + 1 (BFS's only saturating add)."""
    monkeypatch.setitem(integer_units.INTEGER_OPERATIONS, "sat_add", lambda a, b: a + b + 1)
    assert main(ARGS) == 1
    error = capsys.readouterr().err
    match = re.search(r"at vertex (\d+): RTL (\d+), golden (\d+)", error)
    assert match, error
    _, rtl, gold = map(int, match.groups())
    assert rtl != gold


def test_hang_is_caught_by_the_watchdog(monkeypatch, capsys):
    """A Process_Edge that never takes an edge: the run stops at the watchdog, not at the
    cycle limit, and names Process_Edge as the stalled stage."""
    original = process_edge.ProcessEdge.elaborate

    def stuck(self, platform):
        m = original(self, platform)
        # Override the assignments made above: the edge is neither taken nor computed.
        m.d.comb += [self.i.ready.eq(0), self._datapath.i.valid.eq(0)]
        return m

    monkeypatch.setattr(process_edge.ProcessEdge, "elaborate", stuck)
    assert main(ARGS + ["--set", "watchdog=2000"]) == 1
    error = capsys.readouterr().err
    assert "RUN FAILED: the design hung: no stream link moved for 2000 cycles" in error, error
    assert re.search(r"stalled stage: (dst0\.)?process_edge", error), error
    assert re.search(r"fifo_p3->process_edge\s+valid=1 ready=0", error), error
    assert "counters: cycles" in error
