"""Payload layouts of DepGraph's streams (Zhang et al., HPCA 2021, §III-B).

Values are 32-bit words: uint32 levels, distances and labels for the min-type algorithms,
IEEE-754 single-precision deltas for PageRank. Vertex ids are global (0 .. n - 1); a
vertex-store bank subtracts its partition's first id.

Memory image (32-bit words, 64-byte lines of 16 words; region bases are line addresses held
by the register block):

* ``offsets``: n + 1 CSR offsets (edge ids);
* ``edges``: m edges in CSR order, ``DepGraphConfig.edge_words`` words each
  (:func:`edge_layout`): with ``edge_format`` csr (the default) and a program that reads no
  weight (BFS, CC, PageRank), the destination id alone, 4 bytes, sixteen per line; with a
  program that reads the weight (SSSP), or with ``edge_format`` weighted, two words
  (dst, weight), 8 bytes, eight per line (weight 1 when the graph has none). A one-word edge's
  weight is the constant 1 inside the engine (what the two-word image held for a graph
  without weights), so the datapath is the same for both;
* ``state``, ``delta``, ``const``: n words each (``const`` = alpha / outdeg as FP32 for
  PageRank, else 0), loaded into the vertex store before the run; ``state`` is written back
  after it;
* ``stop``: four bits per vertex, bits 4·(v % 8) to 4·(v % 8) + 3 of word v // 8: the stop
  bitmap H'' (plus the vertices of too large an in-degree, see golden.depgraph.engine),
  whether v heads hub-index entries, whether v is a leaf (no out-neighbour in its own
  partition outside the stop bitmap; ``sim.depgraph.image.leaves``), and a spare bit;
* ``queue<e>``: engine e's circular queue, ``queue_lines`` lines of vertex ids.
"""

from amaranth.hdl import Const
from amaranth.lib import data

from hw.lib.config import ConfigError


__all__ = ["ORIGIN_BITS", "ORIGIN_DDMU", "MAX_ENGINES", "WALK_BITS", "MAX_WALK_SLOTS",
           "EDGE_LAYOUT_WORDS", "check_edge_words", "edges_per_line", "edge_layout",
           "edge_fields", "STOP_WORD_FIELDS", "STOP_BITS_PER_VERTEX",
           "VERTICES_PER_STOP_WORD", "EdgeTask", "VertexUpdate", "VisitRequest", "VisitResult",
           "ProbeResult", "LoadRecord"]

# An engine runs up to 2 ** WALK_BITS walks at once (its walk contexts, each an HDTL); walk k
# of engine e is walk slot e * walks + k.
MAX_ENGINES = 8
WALK_BITS = 4
MAX_WALK_SLOTS = MAX_ENGINES << WALK_BITS

# Who sent an update: a walk slot (the engine's walk whose batch it belongs to), or the DDMU.
ORIGIN_BITS = 8
ORIGIN_DDMU = (1 << ORIGIN_BITS) - 1

# Words of an edge in memory: the destination id alone, or (dst, weight).
EDGE_LAYOUT_WORDS = (1, 2)


def check_edge_words(owner: str, edge_words) -> int:
    """``edge_words`` when it is one of :data:`EDGE_LAYOUT_WORDS`, else ConfigError naming
    ``owner``."""
    if edge_words not in EDGE_LAYOUT_WORDS or isinstance(edge_words, bool):
        raise ConfigError(f"{owner}: edge_words must be one of {EDGE_LAYOUT_WORDS}, "
                          f"not {edge_words!r}")
    return edge_words


def edges_per_line(edge_words: int) -> int:
    """Edges of a 64-byte line (16 words): 16 of one word, 8 of two."""
    return 16 // edge_words


def edge_layout(edge_words: int) -> data.StructLayout:
    """An edge as it is in memory: ``dst``, and ``weight`` with two words."""
    if edge_words == 1:
        return data.StructLayout({"dst": 32})
    return data.StructLayout({"dst": 32, "weight": 32})


def edge_fields(edge) -> tuple:
    """(dst, weight) of an edge of :func:`edge_layout`'s (a view): a one-word edge's weight
    is the constant 1."""
    weight = edge.weight if "weight" in edge.shape().members else Const(1, 32)
    return edge.dst, weight


# The ``stop`` array's bits of a vertex, from bit STOP_BITS_PER_VERTEX·(v % 8) of word v // 8
# up (the loader picks them out, ``sim.depgraph.image`` packs them).
STOP_WORD_FIELDS = ("stop", "head", "leaf", "spare")
STOP_BITS_PER_VERTEX = len(STOP_WORD_FIELDS)
VERTICES_PER_STOP_WORD = 32 // STOP_BITS_PER_VERTEX

# An entry of the FIFO edge buffer (DEP_FETCH_EDGE): the edge u→dst with the value x that u
# propagates and u's constant; ``leave`` = u's depth is below the stack depth (a walkable
# destination activated by it is left for the walk); ``pseudo`` = the compensating
# pseudo-edge <-1, tail, NULL, z> of sum-type Accum: the PE sends -x to dst unchanged by
# EdgeCompute; ``walk`` = which of the engine's walks sent it (its updates' origin).
EdgeTask = data.StructLayout({"dst": 32, "weight": 32, "x": 32, "const": 32,
                              "leave": 1, "pseudo": 1, "walk": WALK_BITS})

# What a processing element (or the DDMU) sends to the bank owning ``vertex``: Accum
# ``value`` into its delta.
VertexUpdate = data.StructLayout({"vertex": 32, "value": 32, "origin": ORIGIN_BITS,
                                  "leave": 1})

# The HDTL asks its bank to fold a vertex; ``root`` = popped from the queue (clears queued).
VisitRequest = data.StructLayout({"vertex": 32, "root": 1})

# The fold's answer: whether it was worth (else a stale visit, nothing changed but active),
# the value x the vertex propagates, its constant, whether it heads hub-index entries (only
# those roots are looked up in the DDMU), whether it is a leaf (no out-neighbour in its own
# partition outside the stop bitmap: the walk cannot descend from it, so its HDTL need not
# wait for its batch's updates) and, when the bank keeps them (``offsets_on_chip``),
# the vertex's CSR offsets: its edges are lo .. hi - 1 (else 0).
VisitResult = data.StructLayout({"worth": 1, "x": 32, "const": 32, "head": 1, "leaf": 1,
                                 "lo": 32, "hi": 32})

# The HDTL's scan asks whether a vertex of its partition is active and not in the stop
# bitmap, i.e. one the walk may descend into.
ProbeResult = data.StructLayout({"walkable": 1})

# One vertex's record as loaded from memory before the run (lo, hi: its CSR offsets, read
# only when the banks keep them; leaf as in VisitResult).
LoadRecord = data.StructLayout({"vertex": 32, "state": 32, "delta": 32, "const": 32,
                                "stop": 1, "head": 1, "leaf": 1, "lo": 32, "hi": 32})
