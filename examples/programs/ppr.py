"""Personalized PageRank from a root, as a vertex program.

PageRank (GraphMat's unnormalised form, as the built-in ``pagerank``) whose random jumps all
land on the root: r_{t+1}[v] = alpha * sum over edges u -> v of r_t[u] / outdeg[u], plus
1 - alpha at the root. The rank starts at 1.0 on the root and 0.0 elsewhere; every vertex runs
every iteration (``mode = "all"``, Graphicionado's full edge access) for ``iterations``
iterations. The vertex constant is 1 / out-degree (0.0 for a vertex without out-edges, whose
rank then leaks away, as in ``pagerank``). All arithmetic is float32, each destination's
contributions summed in edge-id order.

Run it in RTL simulation against the golden model (``--root`` picks the root)::

    graphgen sim --design graphicionado --algo examples/programs/ppr.py:PersonalizedPageRank \\
        --graph "kron:scale=9,ef=8,seed=2" --root 5 --iters 10
"""

from graphgen.programs import (Float32, Param, VertexProgram, f32, fadd, fmul, reciprocal,
                               select)

ALPHA = Param("alpha", Float32, 0.85)
TELEPORT = Param("one_minus_alpha", Float32, 0.15)


class PersonalizedPageRank(VertexProgram):
    """Personalized PageRank: PageRank whose random jumps all land on the root."""

    name = "ppr"
    prop = Float32
    reduce = "fadd"
    weight = None
    mode = "all"
    iterations = 10

    def vconst(self, h):
        return reciprocal(h.out_degree)

    def init(self, h):
        return select(h.is_root, f32(1.0), f32(0.0))

    def process_edge(self, e):
        return fmul(e.src_prop, e.src_const)

    def apply(self, v):
        return fadd(fmul(ALPHA, v.temp), select(v.is_root, TELEPORT, f32(0.0)))
