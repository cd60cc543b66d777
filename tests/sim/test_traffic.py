"""The memory roofline (:mod:`sim.traffic`): the DRAM model's lines per tag read back, added
over runs and turned into bytes per edge by kind, bandwidth shares and the bound."""

import pytest

from sim.dram_run import _traffic
from sim.traffic import (MemoryTraffic, client_kind, read_traffic, roofline, roofline_lines,
                         sum_lines)

KINDS = {"src.edge_read": "edges", "dst.vprop_write": "write-back", "bins": "frontier"}


def test_read_traffic(tmp_path):
    path = tmp_path / "traffic.txt"
    path.write_text("0 0 10 0\n1 0 6 0\n1 2 0 4\n")
    traffic = read_traffic(path, ("src0.edge_read", "bins3", "dst0.vprop_write"), 2)
    assert traffic.per_client() == {"src0.edge_read": (16, 0), "dst0.vprop_write": (0, 4)}
    assert traffic.per_channel() == [(10, 0), (6, 4)]
    assert traffic.client_name(7) == "tag7"


def test_axi_tags_count_as_one_client(tmp_path):
    path = tmp_path / "traffic.txt"
    path.write_text("0 3 5 1\n0 131 2 0\n")
    traffic = _traffic(path, None, 2)
    assert traffic.per_client() == {"bus": (7, 1)}
    assert traffic.per_channel() == [(7, 1), (0, 0)]


def test_sum_lines():
    assert sum_lines([("a", (1, 0)), ("b", (0, 2)), ("a", (3, 4))]) == {"a": (4, 4), "b": (0, 2)}
    assert sum_lines([]) == {}


def test_client_kind():
    assert client_kind("src3.edge_read", KINDS) == "edges"
    assert client_kind("bins12", KINDS) == "frontier"
    assert client_kind("stack", KINDS) == "other"


def test_runs_add():
    a = MemoryTraffic(("x",), 1, {(0, 0): (3, 1)})
    b = MemoryTraffic(("x",), 1, {(0, 0): (2, 0), (0, 1): (1, 1)})
    assert (a + b).lines == {(0, 0): (5, 1), (0, 1): (1, 1)}
    with pytest.raises(ValueError):
        a + MemoryTraffic(("y",), 1, {})


def test_roofline_figures():
    # Two channels of 8 bytes a cycle; 100 edges in 400 cycles; channel 0 moved 30 lines,
    # channel 1 10: 2,560 bytes, 25.6 a edge; the busiest channel's 1,920 bytes bound the
    # rate at 8 x 100 / 1,920 edges a cycle.
    traffic = MemoryTraffic(("src0.edge_read", "dst0.vprop_write"), 2,
                            {(0, 0): (30, 0), (1, 0): (8, 0), (1, 1): (0, 2)})
    figures = roofline(traffic, KINDS, 100, 400, 8.0)
    assert figures["bytes_per_edge"]["total"] == pytest.approx(25.6)
    assert figures["bytes_per_edge"]["by_kind"] == {
        "edges": {"read": pytest.approx(24.32), "written": 0.0},
        "write-back": {"read": 0.0, "written": pytest.approx(1.28)}}
    assert [c["share"] for c in figures["channels"]] == [pytest.approx(1920 / 3200),
                                                         pytest.approx(640 / 3200)]
    assert figures["share"] == pytest.approx(2560 / 6400)
    assert figures["edges_per_cycle"] == 0.25
    assert figures["bound_edges_per_cycle"] == pytest.approx(800 / 1920)
    text = "\n".join(roofline_lines(figures))
    assert "25.6 bytes per edge: read edges 24.3; written write-back 1.3" in text
    assert "0.250 edges per cycle against a bound of 0.417" in text


def test_roofline_without_work():
    figures = roofline(MemoryTraffic(("op_reader",), 1, {}), {}, 0, 10, 64.0,
                       unit="operation")
    assert figures["bytes_per_operation"]["total"] is None
    assert roofline_lines(figures) == ["roofline    no operations processed"]
