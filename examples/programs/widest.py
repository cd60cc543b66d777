"""Single-source widest paths (maximum bottleneck paths) as a vertex program.

Each vertex ends with the largest capacity of a path from the root to it, a path's capacity
being its narrowest edge (the smallest weight on it): Process_Edge passes on
min(capacity so far, weight), Reduce keeps the widest offer, Apply keeps the wider of the old
and the offered capacity. The root starts "infinitely" wide (the largest UInt(32)), every
other vertex at 0 (unreached); only vertices whose capacity grew are active in the next
iteration. Weights are the graph's non-negative integer weights (1 on an unweighted graph).

Run it in RTL simulation against the golden model::

    graphgen sim --design graphicionado --algo examples/programs/widest.py:WidestPath \\
        --graph "kron:scale=9,ef=8,seed=2,weights=1:50"
"""

from graphgen.programs import UInt, VertexProgram, maximum, minimum, select, uint

UNREACHED, UNBOUNDED = 0, UInt(32).max


class WidestPath(VertexProgram):
    """Single-source widest paths: each vertex's best bottleneck capacity from the root."""

    name = "widest"
    prop = UInt(32)
    reduce = "max"
    weight = UInt(32)

    def init(self, h):
        return select(h.is_root, uint(UNBOUNDED), uint(UNREACHED))

    def process_edge(self, e):
        return minimum(e.src_prop, e.weight)

    def apply(self, v):
        return maximum(v.vprop, v.temp)
