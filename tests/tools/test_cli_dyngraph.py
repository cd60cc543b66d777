"""``graphgen golden --updates``: the dynamic graph's outputs and its refusals."""

import json

import pytest

from graphgen.cli import main

OPS = """# insert, replace, search, delete; a vertex in and out
+ 0 1 5
+ 0 1 6
? 0 1
- 0 1
? 0 1
+v 9
+ 9 2 3
? 9 2
-v 2
? 9 2
"""


def test_updates_write_the_final_graph_answers_and_report(tmp_path, capsys):
    graph = tmp_path / "g.txt"
    graph.write_text("0 2 7\n1 2 8\n2 0 9\n")
    ops = tmp_path / "ops.txt"
    ops.write_text(OPS)
    final, answers, report = tmp_path / "final.txt", tmp_path / "a.txt", tmp_path / "r.json"
    assert main(["golden", "--graph", str(graph), "--updates", str(ops), "--batch", "3",
                 "--set", "max_vertices=16", "-o", str(final), "--answers", str(answers),
                 "--json", str(report), "--algo", "bfs", "--root", "0"]) == 0
    # 2 deleted with its in-edges (0 -> 2, 1 -> 2, 9 -> 2) and out-edge (2 -> 0).
    assert final.read_text() == ""
    assert answers.read_text().splitlines() == ["6", "-", "3", "-"]
    data = json.loads(report.read_text())
    figures = data["figures"]
    assert figures["batches"] == 4 and figures["replaced"] == 1
    assert figures["in_edges_removed"] == 3 and figures["vertices_deleted"] == 1
    assert data["configuration"]["max_vertices"] == 16
    assert figures["analytics"]["reached"] == 1
    assert "memory efficiency" in capsys.readouterr().out


def test_generated_updates_and_sorted_edge_list(tmp_path):
    final = tmp_path / "final.txt"
    assert main(["golden", "--graph", "uniform:n=30,m=100,seed=2", "--updates",
                 "mix:ops=500,insert=60,delete=20,search=20,seed=4", "-o", str(final)]) == 0
    rows = [tuple(map(int, line.split())) for line in final.read_text().splitlines()]
    assert rows == sorted(rows) and len({(u, v) for u, v, _ in rows}) == len(rows)


@pytest.mark.parametrize("ops, extra, fragment", [
    ("+ 0 1\n", [], "line 1: + takes 3 values, got 2"),
    ("? 0 1\n-v 40\n", [], "line 2: vertex 40 is not below max_vertices (3)"),
    ("+ 0 1 2\n", ["--algo", "sssp"], "not sssp"),
    ("+ 0 1 2\n", ["--set", "colour=1"], "not a parameter of the slab-hash graph"),
    ("+ 0 1 2\n", ["--set", "pool_slabs=2"], "needs 3 slabs, more than pool_slabs (2)"),
    ("+ 0 1 2\n", ["--batch", "0"], "--batch must be at least 1"),
    (None, [], "no such update file or generator spec"),
])
def test_bad_updates_are_one_line_and_write_nothing(tmp_path, capsys, ops, extra, fragment):
    graph = tmp_path / "g.txt"
    graph.write_text("0 1\n1 2\n")
    updates = tmp_path / "ops.txt"
    if ops is not None:
        updates.write_text(ops)
    final, answers = tmp_path / "final.txt", tmp_path / "a.txt"
    assert main(["golden", "--graph", str(graph), "--updates", str(updates), "-o", str(final),
                 "--answers", str(answers), *extra]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("graphgen: error:")
    assert fragment in lines[0]
    assert not final.exists() and not answers.exists()


@pytest.mark.parametrize("argv, fragment", [
    (["sim", "--design", "dyngraph", "--graph", "kron:scale=4"], "needs --updates"),
    (["sim", "--design", "dyngraph", "--graph", "kron:scale=4", "--updates", "mix:ops=4",
      "--algo", "cc"], "run bfs, sssp, pagerank, not cc"),
    (["sim", "--design", "dyngraph", "--graph", "kron:scale=4", "--updates", "mix:ops=4",
      "--algo", "bfs", "--root", "99"], "--root 99 is not a vertex of the updated graph"),
    (["sim", "--design", "dyngraph", "--graph", "kron:scale=4", "--updates", "mix:ops=4",
      "--iters", "3"], "--iters does not apply"),
    (["sim", "--design", "dyngraph", "--graph", "kron:scale=4", "--updates", "mix:ops=4",
      "--root", "1"], "--root does not apply"),
    (["sim", "--design", "dyngraph", "--graph", "kron:scale=4", "--updates", "mix:ops=4",
      "--set", "memory_channels=2", "--mem", "channels=4"], "contradicts"),
    (["sim", "--design", "dyngraph", "--graph", "kron:scale=4", "--updates", "mix:ops=4",
      "--set", "slab_ports=3"], "slab_ports must be 1, 2 or 4"),
    (["sim", "--design", "graphicionado", "--algo", "bfs", "--graph", "kron:scale=4",
      "--updates", "x.txt"], "--updates, --batch and --answers are for --design dyngraph"),
    (["sim", "--design", "bfs", "--graph", "kron:scale=4"], "--design bfs needs --algo"),
    (["golden", "--graph", "kron:scale=4"], "golden needs --algo (or --updates"),
])
def test_sim_refusals(tmp_path, capsys, argv, fragment):
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], lines


@pytest.mark.soak
def test_sim_runs_pagerank_on_the_compacted_graph(tmp_path, capsys):
    report = tmp_path / "run.json"
    assert main(["sim", "--design", "dyngraph", "--graph", "kron:scale=6,ef=4,seed=1",
                 "--updates", "mix:ops=120,insert=60,delete=20,search=20,seed=2",
                 "--set", "max_vertices=64", "--set", "slots=4", "--algo", "pagerank",
                 "--iters", "3", "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "matches the golden walk" in out and "matches the golden model (exact)" in out
    analytics = json.loads(report.read_text())["analytics"]
    assert analytics["matches"] and analytics["figures"]["iterations"] == 3
