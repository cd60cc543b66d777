"""The built-in vertex programs: Graphicionado's five algorithms (Ham et al. MICRO 2016, §2.2,
table I; the same semantics as ``golden.algorithms``) in the program API. Programs of one's own
load from a file (``load_program("path/to/file.py:ClassName")``); ``examples/programs/`` holds
some (widest paths, sparse matrix-vector product, personalized PageRank, label propagation).

=================  =======================================  ========  ========================
program            Process_Edge                             Reduce    Apply
=================  =======================================  ========  ========================
bfs                src_prop + 1 (saturating)                min       min(vprop, temp)
sssp               src_prop + weight (saturating)           min       min(vprop, temp)
cc                 src_prop (undirected)                    min       min(vprop, temp)
pagerank           src_prop * src_const (1/out-degree)      fadd      alpha * temp + (1-alpha)
cf                 (weight - dot(p_u, p_v)) * p_u           fadd      p + gamma (temp - lam p)
=================  =======================================  ========  ========================
"""

from __future__ import annotations

from .expr import (Float32, Float32Vector, Param, UInt, dot, f32, fadd, fmul, fsub, minimum,
                   reciprocal, sat_add, scale, select, uint, vadd, vsub)
from .program import Operands, Program, VertexProgram, build

__all__ = ["BFS", "SSSP", "CC", "PageRank", "CF", "cf_program", "PROGRAMS"]

INFINITY = UInt(32).max
ALPHA, ONE_MINUS_ALPHA = 0.85, 0.15        # PageRank's damping, rounded to float32


class _FromRoot(VertexProgram):
    """Unsigned distances from the root: the root 0, every other vertex unreached."""

    prop = UInt(32)
    reduce = "min"

    def init(self, h: Operands):
        return select(h.is_root, uint(0), uint(INFINITY))

    def apply(self, v: Operands):
        return minimum(v.vprop, v.temp)


class BFS(_FromRoot):
    """Breadth-first search: each vertex's level from the root."""

    name = "bfs"
    weight = None

    def process_edge(self, e: Operands):
        return sat_add(e.src_prop, 1)


class SSSP(_FromRoot):
    """Single-source shortest paths over non-negative integer weights (1 when unweighted)."""

    name = "sssp"

    def process_edge(self, e: Operands):
        return sat_add(e.src_prop, e.weight)


class CC(VertexProgram):
    """Connected components: each vertex labelled with its component's smallest vertex id."""

    name = "cc"
    prop = UInt(32)
    reduce = "min"
    weight = None
    undirected = True

    def init(self, h: Operands):
        return h.vertex_id

    def process_edge(self, e: Operands):
        return e.src_prop

    def apply(self, v: Operands):
        return minimum(v.vprop, v.temp)


class PageRank(VertexProgram):
    """PageRank, GraphMat's unnormalised form: r = (1 - alpha) + alpha * sum(r[u] / outdeg[u])."""

    name = "pagerank"
    prop = Float32
    reduce = "fadd"
    weight = None
    mode = "all"
    iterations = 10

    def vconst(self, h: Operands):
        return reciprocal(h.out_degree)

    def init(self, h: Operands):
        return f32(1.0)

    def process_edge(self, e: Operands):
        return fmul(e.src_prop, e.src_const)

    def apply(self, v: Operands):
        # Constants, as GraphMat's and the paper's: a Param would make alpha a run-time
        # register and the multiplier a full one (examples/programs/ppr.py has them so).
        return fadd(fmul(f32(ALPHA), v.temp), f32(ONE_MINUS_ALPHA))


class CF(VertexProgram):
    """Collaborative filtering: gradient-descent matrix factorisation of the ratings."""

    name = "cf"
    prop = Float32Vector(32)
    reduce = "fadd"
    weight = Float32
    mode = "all"
    iterations = 10

    def init(self, h: Operands):
        return scale(h.random(Param("seed", UInt(32), 1)), Param("init_scale", Float32, 0.5))

    def process_edge(self, e: Operands):
        error = fsub(e.weight, dot(e.src_prop, e.dst_prop))
        return scale(e.src_prop, error)

    def apply(self, v: Operands):
        decay = scale(v.vprop, Param("lam", Float32, 0.05))
        return vadd(v.vprop, scale(vsub(v.temp, decay), Param("gamma", Float32, 0.0005)))


def cf_program(K: int = 32) -> Program:
    """Collaborative filtering with ``K`` features per vertex."""
    return build(type("CF", (CF,), {"prop": Float32Vector(K), "__doc__": CF.__doc__}))


PROGRAMS: dict[str, Program] = {
    program.name: program for program in map(build, (BFS, SSSP, CC, PageRank, CF))
}
