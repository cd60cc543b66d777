"""golden.io: round trips in every format, Matrix Market details, faults with file and line."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


import golden
from golden import Graph, GraphError, GraphFormatError, read_graph, write_graph

FORMATS = ("mtx", "npz", "txt")

SAMPLES = {
    "unweighted": Graph.from_edges(6, [0, 0, 1, 3, 3, 3], [1, 2, 2, 3, 3, 0]),  # loop, duplicate
    "uint32": Graph.from_edges(4, [0, 1, 2, 3], [1, 2, 3, 0], weight=[0, 7, 2**32 - 1, 12]),
    "float32": Graph.from_edges(3, [0, 1, 2], [1, 2, 0],
                                weight=np.array([0.1, 3.0, 1e-30], dtype=np.float32)),
    "symmetric": golden.grid(4, 5, weights="1:9"),
    "bipartite": golden.bipartite(6, 4, 2),
    "empty": Graph.from_edges(3, [], []),
    "isolated tail": Graph.from_edges(10, [0], [1]),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("sample", SAMPLES)
def test_round_trip(tmp_path, fmt, sample):
    graph = SAMPLES[sample]
    path = tmp_path / f"graph.{fmt}"
    write_graph(graph, path)
    back = read_graph(path)
    assert back == graph
    if graph.weight is not None:
        assert back.weight.dtype == graph.weight.dtype
    assert sorted(os.listdir(tmp_path)) == [path.name]        # no temporary files left


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
           st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                                max_size=30))),
       st.sampled_from(["none", "int", "float"]), st.sampled_from(FORMATS))
def test_round_trip_random(tmp_path, case, kind, fmt):
    n, edges = case
    rng = np.random.default_rng(len(edges))
    weight = {"none": None,
              "int": rng.integers(0, 2**32, len(edges)),
              "float": rng.random(len(edges)).astype(np.float32) * np.float32(1000)}[kind]
    graph = Graph.from_edges(n, [e[0] for e in edges], [e[1] for e in edges], weight=weight)
    path = tmp_path / f"random.{fmt}"
    write_graph(graph, path)
    assert read_graph(path) == graph


def test_symmetric_matrix_market_is_expanded(tmp_path):
    path = tmp_path / "s.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real symmetric\n% comment\n\n"
                    "3 3 3\n2 1 0.5\n3 3 2\n3 1 1.5\n")
    g = read_graph(path)
    assert g.symmetric and g.weight.dtype == np.float32
    assert list(zip(g.src.tolist(), g.dst.tolist(), g.weight.tolist())) == [
        (0, 1, 0.5), (0, 2, 1.5), (1, 0, 0.5), (2, 0, 1.5), (2, 2, 2.0)]
    write_graph(g, tmp_path / "again.mtx")
    text = (tmp_path / "again.mtx").read_text().splitlines()
    assert text[0].endswith("real symmetric") and text[2] == "3 3 3"


def test_matrix_market_variants(tmp_path):
    path = tmp_path / "p.mtx"
    path.write_text("%%MatrixMarket MATRIX Coordinate Pattern General\n2 4 2\n1 4\n2 1\n")
    g = read_graph(path)
    assert g.num_vertices == 4 and g.weight is None and not g.symmetric
    assert g.src.tolist() == [0, 1] and g.dst.tolist() == [3, 0]
    path.write_text("%%MatrixMarket matrix coordinate integer general\r\n2 2 1\r\n1 2 7\r\n")
    assert read_graph(path).weight.tolist() == [7]


def test_edge_list_comments_header_and_blank_lines(tmp_path):
    path = tmp_path / "g.edges"
    path.write_text("# Directed graph\n# Nodes: 8 Edges: 3\n\n0 1\n% note\n  5\t2  \n1 0 # tail\n")
    g = read_graph(path)
    assert g.num_vertices == 8 and not g.symmetric
    assert g.src.tolist() == [0, 1, 5] and g.dst.tolist() == [1, 0, 2]
    path.write_text("# Symmetric\n0 1\n1 0\n")
    assert read_graph(path).symmetric


def fault(path):
    with pytest.raises(GraphFormatError) as info:
        read_graph(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path))
    return message


MTX = "%%MatrixMarket matrix coordinate integer general\n"
REAL = "%%MatrixMarket matrix coordinate real general\n"
PATTERN = "%%MatrixMarket matrix coordinate pattern general\n"


@pytest.mark.parametrize("text, where", [
    ("3 3 1\n1 2 1\n", ":1: missing the '%%MatrixMarket' banner"),
    ("%%MatrixMarket matrix array real general\n2 2\n", ":1: format 'array' is not supported"),
    ("%%MatrixMarket matrix coordinate complex general\n", ":1: field 'complex'"),
    ("%%MatrixMarket matrix coordinate real hermitian\n", ":1: symmetry 'hermitian'"),
    ("%%MatrixMarket matrix coordinate real\n", ":1: banner must read"),
    (MTX + "% only a comment\n", ":2: missing the size line"),
    (MTX + "% c\n3 3\n", ":3: size line must be three non-negative integers"),
    (MTX + "3 x 1\n", ":2: size line must be three"),
    ("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", ":2: a symmetric matrix must be square"),
    (MTX + "3 3 3\n1 2 1\n2 3 1\n", ":4: the size line promises 3 entries but the file ends after 2"),
    (MTX + "3 3 1\n1 2 1\n2 3 1\n", ":4: more entries than the 1 the size line promises"),
    (MTX + "3 3 2\n1 2 1\n4 3 1\n", ":4: row 4 is out of range 1..3"),
    (MTX + "3 3 2\n1 2 1\n0 3 1\n", ":4: row 0 is not a vertex id"),
    (MTX + "3 3 2\n1 2 1\n1 x 1\n", ":4: not a number: 'x'"),
    (MTX + "3 3 2\n1 2 1\n\n1 2\n", ":5: expected 3 values as on line 3, found 2"),
    (MTX + "3 3 2\n1 2 1\n1 2 -4\n", ":4: weight -4 is negative"),
    (MTX + "3 3 2\n1 2 1\n1 2 2.5\n", ":4: value 2.5 is not an integer"),
    (MTX + "3 3 2\n1 2 1\n1 2 99999999999\n", ":4: weight 99999999999 does not fit in 32 bits"),
    (REAL + "3 3 2\n1 2 1\n1 2 nan\n", ":4: weight nan is not a number"),
    (PATTERN + "3 3 2\n1 2\n1 2 3\n", ":4: expected 2 values as on line 3, found 3"),
    (PATTERN + "3 3 1\n1 2.5\n", ":3: column 2.5 is not a vertex id"),
])
def test_matrix_market_faults(tmp_path, text, where):
    path = tmp_path / "bad.mtx"
    path.write_text(text)
    assert fault(path) == f"{path}{where}" or fault(path).startswith(f"{path}{where}")


@pytest.mark.parametrize("text, where", [
    ("0 1\n1 x\n", ":2: not a number: 'x'"),
    ("# c\n0 1\n\n1\n", ":4: expected 2 values as on line 2, found 1"),
    ("0 1 2 3\n", ":1: expected 2 or 3 values (src dst [weight]), found 4"),
    ("0 1\n0 1 5\n", ":2: expected 2 values as on line 1, found 3"),
    ("0 1\n-1 2\n", ":2: source -1 is not a vertex id"),
    ("0 1\n1 2.5\n", ":2: destination 2.5 is not a vertex id"),
    ("0 1 1.5\n1 2 nan\n", ":2: weight nan is not a number"),
    ("0 1 3\n1 2 -3\n", ":2: weight -3 is negative"),
    ("# Nodes: 3\n0 1\n% c\n1 3\n", ":4: destination 3 is out of range 0..2"),
    ("0 1\n1 2e\n", ":2: not a number: '2e'"),
    ("0 1\n1 1-2\n", ":2: not a number: '1-2'"),
    ("0 1\n \t \n1 x\n", ":3: not a number: 'x'"),                 # whitespace-only line
    ("0 1\n   \n1 2\n-1 0\n", ":4: source -1 is not a vertex id"),
    ("# h\n0 1\n1 2\n2 3 4\n", ":4: expected 2 values as on line 2, found 3"),
    ("# h\n0 1\n1 2\n2 y\n", ":4: not a number: 'y'"),
])
def test_edge_list_faults(tmp_path, text, where):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    assert fault(path).startswith(f"{path}{where}")


def test_empty_edge_list(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("# nothing\n\n")
    assert "no edges" in fault(path)
    path.write_text("# Nodes: 4\n")
    assert read_graph(path) == Graph.from_edges(4, [], [])


def test_npz_faults(tmp_path):
    path = tmp_path / "g.npz"
    np.savez(path, src=np.array([0]), dst=np.array([1]))
    assert fault(path) == f"{path}: missing array 'num_vertices' (found dst, src)"
    np.savez(path, num_vertices=np.int64(2), src=np.array([0]), dst=np.array([5]))
    assert fault(path) == (f"{path}: edge 0: destination vertex 5 is out of range 0..1 "
                           "(num_vertices is 2)")
    path.write_bytes(b"not a zip at all")
    assert "not a readable .npz archive" in fault(path)


def test_missing_file():
    with pytest.raises(GraphError, match="nosuch.mtx: no such file"):
        read_graph("nosuch.mtx")


def test_atomic_write_leaves_nothing_on_failure(tmp_path, monkeypatch):
    graph = SAMPLES["uint32"]
    target = tmp_path / "keep.txt"
    target.write_text("old contents\n")

    def broken(_graph):
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(golden.io, "_edge_list_bytes", broken)
    with pytest.raises(RuntimeError):
        write_graph(graph, target)
    assert target.read_text() == "old contents\n"
    assert os.listdir(tmp_path) == ["keep.txt"]
    with pytest.raises(GraphError, match="cannot write"):
        write_graph(graph, tmp_path / "no" / "such" / "folder.mtx")


def test_large_edge_list_is_fast(tmp_path):
    import time
    graph = golden.uniform(1 << 17, 1 << 20, seed=9, weights="1:1000")
    path = tmp_path / "big.txt"
    start = time.perf_counter()
    write_graph(graph, path)
    back = read_graph(path)
    assert back == graph
    assert time.perf_counter() - start < 10
