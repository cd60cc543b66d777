"""Graphicionado's payload layouts against the memory image and the paper's packet format:
an :data:`Edge` read from a line of the edge list (four words an edge: srcid, dstid, weight,
reserved, as :func:`sim.amaranth_memory.words_to_lines` packs the image's words) gives those
words by name; an ActiveVertex entry is (id, prop); the flit helpers' index widths and fields
(§IV.E)."""

import numpy as np
from amaranth.lib import data

from hw.graphicionado.layouts import (EDGE_WORDS, ActiveVertex, DestinedEdge, Edge, SourcedEdge,
                                      Update, edge_flit, flit_index_width, update_flit)
from sim.amaranth_memory import words_to_lines


def test_edge_is_four_words_of_the_edge_list_line():
    rng = np.random.default_rng(4)
    src, dst, weight = (rng.integers(0, 1 << 32, 8, dtype=np.uint64).astype(np.uint32)
                        for _ in range(3))
    words = np.stack([src, dst, weight, np.zeros_like(src)], axis=1).reshape(-1)
    lines = words_to_lines(words)
    assert Edge.size == 32 * EDGE_WORDS and 512 % Edge.size == 0
    per_line = 512 // Edge.size
    for e in range(8):
        bits = lines[e // per_line] >> Edge.size * (e % per_line) & ((1 << Edge.size) - 1)
        edge = data.Const(Edge, bits)
        assert (edge.src, edge.dst, edge.weight, edge.reserved) == \
            (src[e], dst[e], weight[e], 0)


def test_entry_and_stage_layouts():
    entry = data.Const(ActiveVertex, 7 | 99 << 32)
    assert (entry.id, entry.prop) == (7, 99)
    assert SourcedEdge.size == Edge.size + 64
    assert DestinedEdge.size == SourcedEdge.size + 32
    assert [name for name, _ in Update] == ["dst", "value"]


def test_flit_layouts():
    assert [flit_index_width(f) for f in (1, 2, 3, 4, 5, 8, 9)] == [1, 1, 2, 2, 3, 3, 4]
    flit = edge_flit(8, 4)
    assert [name for name, _ in flit] == ["edge", "flit", "src_prop", "dst_prop"]
    assert flit.size == Edge.size + 2 + 2 * 8 * 32
    assert "dst_prop" not in dict(edge_flit(8, 4, dst_prop=False))
    update = update_flit(4, 2)
    assert update.size == 32 + 1 + 4 * 32 and "owner" not in dict(update)
    assert dict(update_flit(4, 2, owner_bits=3))["owner"].width == 3
