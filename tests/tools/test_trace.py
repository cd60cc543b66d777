"""``--trace FILE.fst``: the run's waveform, with the paper's block names in its hierarchy."""

import pytest
import pywellen

from graphgen.cli import main


def _scope_names(path) -> set[str]:
    names = set()
    pending = list(pywellen.Waveform(str(path)).all_scopes())
    while pending:
        scope = pending.pop()
        names.add(scope.name)
        pending += list(scope.scopes())
    return names


@pytest.mark.soak      # a build of its own with tracing: make test's budget
def test_sim_trace_has_the_pipeline_blocks(tmp_path):
    trace = tmp_path / "bfs.fst"
    assert main(["sim", "--design", "graphicionado", "--algo", "bfs",
                 "--graph", "grid:rows=4,cols=6", "--root", "0",
                 "--set", "max_vertices=64", "--mem", "latency=20",
                 "--mem", "depth_lines=4096", "--trace", str(trace)]) == 0
    names = _scope_names(trace)
    for block in ("pipeline", "src0", "edge_read", "crossbar", "dst0", "process_edge",
                  "atomic_update", "apply", "pad", "interconnect", "watchdog", "dram"):
        assert block in names, sorted(names)
    assert not list(tmp_path.glob("*.partial"))


def test_trace_needs_an_fst_file(tmp_path, capsys):
    assert main(["sim", "--design", "graphicionado", "--algo", "bfs", "--graph",
                 "grid:rows=2,cols=2", "--trace", str(tmp_path / "x.vcd")]) == 2
    assert "FILE.fst" in capsys.readouterr().err
    assert not (tmp_path / "x.vcd").exists()
