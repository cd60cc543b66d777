"""Payload layouts of the BFS engine's streams, and its memory image.

Memory image (32-bit words, 64-byte lines of 16 words; region bases are line addresses held
by the register block; ``n`` vertices, ``m`` edges):

* ``out_offsets``, ``in_offsets``: n + 1 CSR offsets of the out-edges and of the in-edges;
* ``out_edges``: m destination ids in CSR order; ``in_edges``: m source ids, the in-edges of
  each vertex in ascending order (the CSC);
* ``levels``: the status array, n words, 4294967295 for unvisited (the output levels);
* ``parents``: n words, 4294967295 for unreached;
* ``queues``: two buffers of 4 classes x ``lanes`` bins of ``bin_lines`` lines each; a bin
  holds :data:`QueueEntry` items of 4 words, 4 a line; bin (buffer b, class c, lane l)
  starts at line ``((b * 4 + c) * lanes + l) * bin_lines``;
* ``level_log``: a line per level (:data:`LOG_WORDS`).
"""

from amaranth.lib import data, enum


__all__ = ["UNVISITED", "CLASS_BITS", "ENTRY_WORDS", "ENTRIES_PER_LINE", "QueueEntry",
           "LaneEntry", "LaneGroup", "Discovery", "LOG_WORDS", "DegreeClass", "Direction"]

UNVISITED = 0xFFFF_FFFF
CLASS_BITS = 2
ENTRY_WORDS = 4
ENTRIES_PER_LINE = 16 // ENTRY_WORDS

# A frontier vertex with its edge range (out-edges top-down, in-edges bottom-up): what a bin
# holds (word 3 is unused), so the next level needs no offsets read.
QueueEntry = data.StructLayout({"vertex": 32, "first": 32, "count": 32, "spare": 32})



class DegreeClass(enum.IntEnum, shape=CLASS_BITS):
    """A frontier vertex's degree class (Luo et al.'s small, middle and large queues,
    Enterprise's extreme one): an ordinal, so the bins are indexed by it."""
    SMALL = 0
    MIDDLE = 1
    LARGE = 2
    EXTREME = 3


class Direction(enum.Enum, shape=1):
    """A level's direction: top-down expansion of the frontier, or the bottom-up check of the
    unvisited (Beamer's direction-optimising BFS, Enterprise §4.3)."""
    TOP_DOWN = 0
    BOTTOM_UP = 1


# A frontier-queue entry on its way through the engine with its bin: degree class and lane.
LaneEntry = data.StructLayout({"entry": QueueEntry, "cls": DegreeClass, "lane": 4})

# Up to a bin line of entries of one class, from one quad of a status line (words 4q .. 4q+3),
# on their way to one lane's bins: ``valid`` says which of the quad's words are hits; the
# frontier generator hands out a group a cycle, the bin writer takes one a cycle.
LaneGroup = data.StructLayout({"entries": data.ArrayLayout(QueueEntry, ENTRIES_PER_LINE),
                               "valid": ENTRIES_PER_LINE, "cls": DegreeClass, "lane": 4})

# A vertex found at the current level and the parent it was found from.
Discovery = data.StructLayout({"vertex": 32, "parent": 32})


# The words of a level's log line.
LOG_WORDS = ("level", "direction", "frontier", "small", "middle", "large", "extreme",
             "scanned", "edges_checked", "status_reads", "hub_cache_hits", "visited",
             "hubs_visited", "reads_issued", "expand_cycles", "generate_cycles")
