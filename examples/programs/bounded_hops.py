"""Hops from the root along light edges only: the worked example of docs/programs.md.

Each vertex ends with the fewest edges on a path from the root that uses only edges of weight
at most ``max_weight``, a run-time parameter (a register of the generated design, set with
``--param max_weight=N``); a vertex no such path reaches keeps the largest UInt(32).
Process_Edge offers one hop more than the source's count over a light edge and nothing (the
largest value, which Reduce's min ignores) over a heavy one.

Run it in RTL simulation against the golden model::

    graphgen sim --design graphicionado --algo examples/programs/bounded_hops.py:BoundedHops \\
        --graph "kron:scale=8,ef=8,seed=1,weights=1:20" --root 2 --param max_weight=12
"""

from graphgen.programs import Param, UInt, VertexProgram, le, minimum, sat_add, select, uint

UNREACHED = UInt(32).max


class BoundedHops(VertexProgram):
    """Hops from the root over edges of weight at most max_weight."""

    name = "bounded_hops"
    prop = UInt(32)
    reduce = "min"

    def init(self, h):
        return select(h.is_root, uint(0), uint(UNREACHED))

    def process_edge(self, e):
        light = le(e.weight, Param("max_weight", UInt(32), 10))
        return select(light, sat_add(e.src_prop, 1), uint(UNREACHED))

    def apply(self, v):
        return minimum(v.vprop, v.temp)
