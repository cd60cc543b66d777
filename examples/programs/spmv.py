"""One sparse matrix-vector product in float32, as a vertex program.

With the graph as its weighted adjacency matrix A (A[u, v] = the weight of the edge u -> v,
rows the sources, as ``scipy.sparse.csr_matrix((weight, (src, dst)))``), one iteration computes

    y = Aᵀ x,   y[v] = sum over the edges u -> v of weight(u, v) * x[u],

that is the product of x with the matrix whose row v holds v's in-edges (the "pull" form; for
y = A x, give the graph with every edge reversed). x is drawn uniformly from [0, 1) by the
host (``random(seed)``, NumPy's ``default_rng(seed).random(n, dtype=float32)``); the weights
are the graph's, as float32 (a weight on every edge is required). Process_Edge multiplies,
Reduce adds in float32, each destination's products summed in edge-id order from +0.0 (so
one source and one destination stream give the golden model's bits exactly; several streams
add them in another order), and Apply stores the sum: after its one iteration
(``mode = "all"``, every edge once) VProperty holds y.

Run it in RTL simulation against the golden model::

    graphgen sim --design graphicionado --algo examples/programs/spmv.py:SpMV \\
        --graph "kron:scale=9,ef=8,seed=2,weights=1:50"
"""

from graphgen.programs import Float32, Param, UInt, VertexProgram, fmul


class SpMV(VertexProgram):
    """Sparse matrix-vector product y = Aᵀx in float32, A the weighted adjacency matrix."""

    name = "spmv"
    prop = Float32
    reduce = "fadd"
    weight = Float32
    mode = "all"
    iterations = 1

    def init(self, h):
        return h.random(Param("seed", UInt(32), 1))

    def process_edge(self, e):
        return fmul(e.weight, e.src_prop)

    def apply(self, v):
        return v.temp
