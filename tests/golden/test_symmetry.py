"""Symmetry on load (issue 51, item 5): a file whose edges mirror themselves is read as a
symmetric graph (``golden.load_graph``), so that Graph500's edge count (TEPS) takes an
undirected edge once whether the graph was generated or read; a file that declares symmetry
is checked; ``Graph.mirror_symmetric`` compares the edge multisets with their weights."""

import numpy as np
import pytest

import golden
from golden import Graph, GraphFormatError, read_graph, write_graph
from golden.bfs import component_edges, run_bfs


def edge_file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_mirror_symmetric_compares_multisets_with_weights():
    assert Graph.from_edges(3, [0, 1, 1, 2], [1, 0, 2, 1]).mirror_symmetric()
    assert not Graph.from_edges(3, [0, 1, 1], [1, 0, 2]).mirror_symmetric()
    # a pair listed twice one way and once the other
    assert not Graph.from_edges(2, [0, 0, 1], [1, 1, 0]).mirror_symmetric()
    assert Graph.from_edges(2, [0, 0, 1, 1], [1, 1, 0, 0]).mirror_symmetric()
    # weights: equal both ways, repeated pairs in another order, or not equal
    assert Graph.from_edges(2, [0, 1], [1, 0], [3, 3]).mirror_symmetric()
    assert Graph.from_edges(2, [0, 0, 1, 1], [1, 1, 0, 0], [3, 5, 5, 3]).mirror_symmetric()
    assert not Graph.from_edges(2, [0, 1], [1, 0], [3, 5]).mirror_symmetric()
    assert Graph.from_edges(3, [1], [1]).mirror_symmetric()           # a loop is its mirror
    assert golden.grid(5, 6, weights="1:9").mirror_symmetric()
    assert not golden.kronecker(7, 8, seed=1).mirror_symmetric()


def test_a_gapbs_style_edge_list_with_both_directions_is_detected(tmp_path):
    """GAPBS's converter writes an undirected graph as a plain .el with each edge in both
    directions and no header: read as symmetric, equal to the generated graph."""
    grid = golden.grid(4, 5)
    lines = "".join(f"{u} {v}\n" for u, v in zip(grid.src.tolist(), grid.dst.tolist()))
    path = edge_file(tmp_path, "grid.el", lines)
    assert not read_graph(path).symmetric                 # read as written, no detection
    loaded = golden.load_graph(str(path))
    assert loaded.symmetric and loaded == grid
    weighted = golden.grid(4, 5, weights="1:9")
    path = tmp_path / "weighted.wel"
    write_graph(weighted.flagged(False), path)             # no '# Symmetric' header
    assert "Symmetric" not in path.read_text()
    assert golden.load_graph(str(path)) == weighted


def test_non_symmetric_files_stay_directed(tmp_path):
    directed = edge_file(tmp_path, "d.el", "0 1\n1 2\n2 0\n")
    assert not golden.load_graph(str(directed)).symmetric
    unequal = edge_file(tmp_path, "w.wel", "0 1 3\n1 0 5\n")       # weights differ by direction
    assert not golden.load_graph(str(unequal)).symmetric
    mtx = edge_file(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                       "3 3 2\n1 2\n2 3\n")
    assert not golden.load_graph(str(mtx)).symmetric
    both = edge_file(tmp_path, "s.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                        "3 3 2\n1 2\n2 1\n")
    assert golden.load_graph(str(both)).symmetric
    npz = tmp_path / "m.npz"
    write_graph(golden.grid(3, 3).flagged(False), npz)
    assert golden.load_graph(str(npz)).symmetric


def test_a_declared_symmetry_is_checked(tmp_path):
    path = edge_file(tmp_path, "lie.el", "# Symmetric\n0 1\n1 2\n2 1\n")
    with pytest.raises(GraphFormatError, match=r"lie.el: the '# Symmetric' header says the "
                                               r"graph is symmetric, but edge 0 -> 1 has no "
                                               r"1 -> 0"):
        read_graph(path)
    path = edge_file(tmp_path, "lie.wel", "# Symmetric\n0 1 3\n1 0 5\n")
    with pytest.raises(GraphFormatError, match="other weights"):
        read_graph(path)
    npz = tmp_path / "lie.npz"
    np.savez(npz, num_vertices=np.int64(3), src=np.array([0], np.uint32),
             dst=np.array([1], np.uint32), symmetric=np.bool_(True))
    with pytest.raises(GraphFormatError, match="'symmetric' array says"):
        read_graph(npz)
    mtx = edge_file(tmp_path, "s.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                       "3 3 2\n2 1\n3 2\n")
    assert read_graph(mtx).symmetric


def test_teps_count_a_symmetric_files_edges_once(tmp_path):
    """Graph500's edge count of a search on a symmetric file equals the generated
    undirected graph's: each undirected edge once, half the edges listed."""
    grid = golden.grid(6, 7)
    path = tmp_path / "grid.el"
    write_graph(grid.flagged(False), path)
    loaded = golden.load_graph(str(path))
    for graph in (grid, loaded):
        reached = run_bfs(graph, 0).parents >= 0
        assert component_edges(graph, reached) == grid.num_edges // 2
    directed = loaded.flagged(False)
    assert component_edges(directed, run_bfs(directed, 0).parents >= 0) == grid.num_edges
