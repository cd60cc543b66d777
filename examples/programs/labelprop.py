"""Label propagation with the largest label, as a vertex program.

Every vertex starts labelled with its own id and repeatedly takes the largest label among its
neighbours', on the graph with every edge in both directions (``undirected``): Process_Edge
passes the source's label on, Reduce and Apply keep the largest. It stops when no label
changes; each vertex then holds the largest vertex id of its weakly connected component (the
built-in ``cc`` is the same with the smallest).

Run it in RTL simulation against the golden model::

    graphgen sim --design graphicionado --algo examples/programs/labelprop.py:LabelPropagation \\
        --graph "kron:scale=9,ef=2,seed=2"
"""

from graphgen.programs import UInt, VertexProgram, maximum


class LabelPropagation(VertexProgram):
    """Label propagation with the largest label: each vertex ends with its component's
    largest vertex id."""

    name = "labelprop"
    prop = UInt(32)
    reduce = "max"
    weight = None
    undirected = True

    def init(self, h):
        return h.vertex_id

    def process_edge(self, e):
        return e.src_prop

    def apply(self, v):
        return maximum(v.vprop, v.temp)
