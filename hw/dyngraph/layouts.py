"""Payload layouts of the dynamic graph unit's streams, and its memory image.

Memory image (32-bit words, 64-byte lines of 16 words; region bases are line addresses held
by the register block):

* ``ops``: the operations of the run, 4 words each (:data:`OpWords`: kind, u, v, w; kinds as
  :class:`golden.dyngraph.OpKind`), 4 a line, in file order;
* ``vertices``: one word a vertex id (:func:`vertex_word_layout`): its first base slab in the
  low ``slab_index_bits``, its bucket count above them; 0 buckets: the vertex is absent;
* ``present``: the presence bitmap the unit loads at start, bit ``v % 32`` of word ``v // 32``;
* ``pool``: the slabs, 32 words (two lines) each (:data:`Slab`, :mod:`golden.dyngraph.slab`);
* ``stack``: the free slabs' indices; ``stack_top`` (a register, and a counter at the end)
  of them are free, the next one handed out is word ``stack_top - 1``;
* ``answers``: two words a search, in the order asked (:data:`AnswerWords`: found, weight);
* ``edges``, ``table``, ``vconst``: the compactor's output after a run that asks for it
  (``compact_vertices`` > 0), Graphicionado's layout (:mod:`sim.graphicionado.image`): four
  words an edge (src, dst, weight, 0) sorted by source, the EdgeIDTable (one entry a vertex,
  then the edge count) and PageRank's VConst (float32 1/out-degree, out-degree).
"""

from amaranth.lib import data, enum


__all__ = ["OpWords", "OP_WORDS", "OPS_PER_LINE", "ANSWER_WORDS", "Pair", "Slab",
           "SLAB_LINES", "LOCK_BITS", "EdgeOp", "OpKind", "EdgeKind", "vertex_word_layout", "EMPTY_KEY",
           "TOMBSTONE_KEY", "NULL_SLAB", "FREE_OWNER", "SLAB_PAIRS", "AUX_WORD", "NEXT_WORD",
           "HASH_MULTIPLIER", "SlabPurpose", "SlabCtx", "Outcome", "OUTCOMES", "Answer",
           "AllocRequest", "SlabWrite", "Retire", "TablePurpose", "TableCtx", "VertexOp",
           "CompactCtx", "CompactEdge"]

# The slab's sentinels and words, as golden.dyngraph.slab has them (a test checks they agree;
# the gateware does not import the golden model).
SLAB_PAIRS = 15
AUX_WORD, NEXT_WORD = 30, 31
EMPTY_KEY = 0xFFFF_FFFF
TOMBSTONE_KEY = 0xFFFF_FFFE
NULL_SLAB = 0xFFFF_FFFF
FREE_OWNER = 0xFFFF_FFFF
HASH_MULTIPLIER = 0x9E37_79B1



class OpKind(enum.Enum, shape=3):
    """An operation's kind, as :class:`golden.dyngraph.OpKind` numbers it (the word in
    memory is 32 bits; its low three bits carry the kind). The first three are edge
    operations."""
    INSERT = 0
    DELETE = 1
    SEARCH = 2
    INSERT_VERTEX = 3
    DELETE_VERTEX = 4


class EdgeKind(enum.Enum, shape=2):
    """The kind of an edge operation in flight: :class:`OpKind`'s edge kinds, in two bits."""
    INSERT = OpKind.INSERT.value
    DELETE = OpKind.DELETE.value
    SEARCH = OpKind.SEARCH.value


OpWords = data.StructLayout({"kind": 32, "u": 32, "v": 32, "w": 32})
OP_WORDS = 4
OPS_PER_LINE = 16 // OP_WORDS
ANSWER_WORDS = 2
SLAB_LINES = 2

Pair = data.StructLayout({"key": 32, "value": 32})

# A slab as it arrives from memory: 15 pairs, the owner (auxiliary word) and the next index.
Slab = data.StructLayout({"pairs": data.ArrayLayout(Pair, SLAB_PAIRS), "aux": 32,
                          "next": 32})

# The lock's key: an edge operation holds its bucket (the base slab of the bucket, unique
# among all vertices' buckets) from its first slab read to its write.
LOCK_BITS = 24

# An edge operation in flight: what it is, its answer's place (searches), its bucket (set by
# the bucket hash), the slab it reads next, and the first free cell its walk has passed.
EdgeOp = data.StructLayout({
    "kind": EdgeKind, "u": 32, "v": 32, "w": 32, "answer": 32,
    "bucket": LOCK_BITS, "slab": 32,
    "open": 1, "open_slab": 32, "open_cell": 4,
})


def vertex_word_layout(slab_index_bits: int) -> data.StructLayout:
    return data.StructLayout({"base": slab_index_bits, "buckets": 32 - slab_index_bits})



class SlabPurpose(enum.Enum, shape=2):
    """Where a slab read's answer goes: an edge operation's walk, the freeing of a deleted
    vertex's chains, or the sweep of the pool."""
    WALK = 0
    FREE = 1
    SWEEP = 2


SlabCtx = data.StructLayout({"purpose": SlabPurpose, "op": EdgeOp})


class Outcome(enum.Enum, shape=3):
    """How an operation ended, counted by the retire stage under the member's name in lower
    case (:data:`OUTCOMES`)."""
    INSERTED = 0
    REPLACED = 1
    DELETED = 2
    DELETE_MISSES = 3
    SEARCH_HITS = 4
    SEARCH_MISSES = 5
    REFUSED_INSERTS = 6
    SKIPPED = 7


OUTCOMES = tuple(outcome.name.lower() for outcome in Outcome)

# An operation's end: its slab write (with the lock's release) and a search's answer.
Answer = data.StructLayout({"index": 32, "found": 1, "weight": 32})

# A line of a slab written by its byte mask (``write``), and/or an operation's ``lock`` (its
# bucket) released (``release``) once the write is queued at the slab port; ``vertex`` (the
# slab's owner) picks the port.
SlabWrite = data.StructLayout({"write": 1, "slab": 32, "line": 1, "data": 512, "mask": 64,
                               "release": 1, "lock": LOCK_BITS, "vertex": 32})

Retire = data.StructLayout({"outcome": Outcome, "slab_write": SlabWrite, "search": 1,
                            "answer": Answer})


# A slab wanted from the allocator: for a vertex's new table (``pair`` 0), or for an edge
# insert whose chain is full: the pair goes in cell 0, the new slab is linked after ``last``
# and the insert's ``lock`` released.
AllocRequest = data.StructLayout({"vertex": 32, "pair": 1, "key": 32, "value": 32,
                                  "last": 32, "answer": 32, "lock": LOCK_BITS})




class TablePurpose(enum.Enum, shape=1):
    """Where a vertex-table read's answer goes: an edge operation's bucket hash, or back to
    the vertex operations."""
    TO_HASH = 0
    TO_VERTEX_OPS = 1


TableCtx = data.StructLayout({"purpose": TablePurpose, "op": EdgeOp})

# A vertex operation handed to the vertex-operations unit once every edge operation before it
# has ended: insert or delete, whether the vertex is present, and (deletions) whether the
# sweep follows it.
VertexOp = data.StructLayout({"insert": 1, "u": 32, "present": 1, "group_end": 1})



# The compactor (:class:`hw.dyngraph.slab_compactor.SlabCompactor`): a slab read's vertex, or
# the walk's end marker (it rides the slab port behind every slab of the walk); an edge of the
# compacted list, or that marker.
CompactCtx = data.StructLayout({"u": 32, "end": 1})
CompactEdge = data.StructLayout({"u": 32, "v": 32, "w": 32, "end": 1})
