"""BFS, SSSP, connected components, PageRank and collaborative filtering as vertex programs.

These are Graphicionado's algorithms (Ham et al., MICRO 2016, section 2.2 and table I),
written for the executor in :mod:`golden.vertex_program`.  They are the specification the
RTL compute modules must match bit for bit; vertex ids are 0-based.

BFS (frontier; uint32)
    VProperty = level: root 0, everything else 4294967295 (unreachable).  Active: the root.
    Process_Edge = level[u] + 1 (saturating at 4294967295; active vertices are always
    reached, so it never saturates);  Reduce = min;  Apply = min(old, temp).
    Active next: the vertices whose level changed.

SSSP (frontier; uint32)
    Weights must be non-negative integers below 2**32 (an unweighted graph has weight 1).
    VProperty = distance: root 0, others 4294967295.  Active: the root.
    Process_Edge = dist[u] + w, saturating at 4294967295;  Reduce = min;  Apply = min.

CC (frontier; uint32)
    Labels every vertex with the smallest vertex id of its weakly connected component.
    Runs on ``graph.symmetrized()`` (so a directed graph's edges count both ways).
    VProperty = label, initially the vertex's own id; all vertices active in the first
    iteration.  Process_Edge = label[u];  Reduce = min;  Apply = min(old, temp).

PageRank (all active; float32; GraphMat's unnormalised form; ``iters`` default 10)
    VConst = inv_outdeg = float32(1) / float32(outdeg)  (0.0 where outdeg is 0);
    VProperty r starts at 1.0.  Per iteration, in exactly this order, every operation
    rounding to float32 (no fused multiply-add)::

        res  = r[u] * inv_outdeg[u]                       # Process_Edge, one fp32 multiply
        temp[v] = +0.0, then temp[v] = temp[v] + res      # Reduce, once per edge into v,
                                                          # in edge-id order
        r[v] = (ALPHA * temp[v]) + ONE_MINUS_ALPHA        # Apply: fp32 multiply, fp32 add

    with ALPHA = float32(0.85) and ONE_MINUS_ALPHA = float32(0.15).  Rank of dangling
    vertices is not redistributed.  An RTL pipeline that reduces each destination in
    edge-id order reproduces these values bit for bit.

CF (all active; float32 vectors of K elements; ``iters`` default 10)
    Gradient-descent matrix factorisation on a bipartite rating graph whose edge weights
    are the ratings (both directions present, as :func:`golden.generators.bipartite`
    builds it).  VProperty p[v] starts as ``init_scale * U[0, 1)`` from
    ``np.random.default_rng(seed)`` (float32, shape (n, K)).  Per edge (u, v, rating),
    every operation rounding to float32::

        x[k] = p[u][k] * p[v][k]                 # K products
        dot  = pairwise_sum(x)                   # a tree of adds, below
        err  = rating - dot
        res[k] = err * p[u][k]                                          # Process_Edge
        temp[v][k] = temp[v][k] + res[k]        # Reduce: from +0.0, in edge-id order

    and per vertex ``p[v][k] = p[v][k] + (gamma * (temp[v][k] - (lam * p[v][k])))``
    (Apply), with gamma and lam rounded to float32 first.  ``pairwise_sum`` pads x with
    +0.0 to a power of two and adds neighbours level by level: (x0 + x1), (x2 + x3), ...,
    then ((x0 + x1) + (x2 + x3)), ... .  That is the order of the RTL's dot product
    (:class:`hw.graphicionado.flit_process_edge.FlitProcessEdge`), which sums each 8-lane flit
    with a tree of adders and then the flits' sums pairwise, so the RTL can match this
    model bit for bit at one flit per cycle; a sequential sum would chain K dependent adds
    per edge.  Full gradient descent diverges when gamma times the largest degree
    approaches 1; the default gamma (0.0005) suits degrees up to a few hundred.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np

from .graph import MAX_UINT32, Graph, GraphError
from .vertex_program import Result, Setup, VertexProgram, execute

__all__ = ["ALGORITHMS", "ALPHA", "ONE_MINUS_ALPHA", "UNREACHED", "PROGRAMS", "run",
           "cf_program", "cf_rmse", "pairwise_sum", "pagerank_inv_outdeg"]

ALGORITHMS = ("bfs", "sssp", "pagerank", "cc", "cf")
ALPHA = np.float32(0.85)
ONE_MINUS_ALPHA = np.float32(0.15)
UNREACHED = np.uint32(MAX_UINT32)

CF_DEFAULTS = {"K": 32, "gamma": 0.0005, "lam": 0.05, "seed": 1, "init_scale": 0.5}


# ---------------------------------------------------------------------------- min programs

def _from_root(graph: Graph, root: int) -> Setup:
    prop = np.full(graph.num_vertices, UNREACHED, dtype=np.uint32)
    prop[root] = 0
    active = np.zeros(graph.num_vertices, dtype=bool)
    active[root] = True
    return Setup(prop, None, active)


def _min_apply(vprop: np.ndarray, temp: np.ndarray, vconst: Any) -> np.ndarray:
    return np.minimum(vprop, temp)


def _sssp_edge(weight: np.ndarray, src_prop: np.ndarray, *_: Any) -> np.ndarray:
    total = src_prop.astype(np.uint64) + weight.astype(np.uint64)
    return np.minimum(total, np.uint64(MAX_UINT32)).astype(np.uint32)


def _sssp_init(graph: Graph, root: int) -> Setup:
    setup = _from_root(graph, root)
    return Setup(setup.vprop, None, setup.active, graph.require_nonnegative_integer_weights())


def _cc_init(graph: Graph, root: None = None) -> Setup:
    n = graph.num_vertices
    return Setup(np.arange(n, dtype=np.uint32), None, np.ones(n, dtype=bool))


BFS = VertexProgram(
    name="bfs", dtype=np.uint32, identity=UNREACHED, reduce=np.minimum,
    process_edge=lambda weight, src_prop, src_const, dst_prop: (
        np.minimum(src_prop, UNREACHED - np.uint32(1)) + np.uint32(1)),   # saturating
    apply=_min_apply, init=_from_root)

SSSP = VertexProgram(
    name="sssp", dtype=np.uint32, identity=UNREACHED, reduce=np.minimum,
    process_edge=_sssp_edge, apply=_min_apply, init=_sssp_init)

CC = VertexProgram(
    name="cc", dtype=np.uint32, identity=UNREACHED, reduce=np.minimum,
    process_edge=lambda weight, src_prop, src_const, dst_prop: src_prop,
    apply=_min_apply, init=_cc_init)


# ---------------------------------------------------------------------------- PageRank

def pagerank_inv_outdeg(graph: Graph) -> np.ndarray:
    """VConst of PageRank: float32(1) / float32(outdeg), 0.0 for vertices without out-edges."""
    degree = graph.out_degree.astype(np.float32)
    inv = np.zeros(graph.num_vertices, dtype=np.float32)
    np.divide(np.float32(1.0), degree, out=inv, where=degree > 0)
    return inv


def _pagerank_init(graph: Graph, root: None = None) -> Setup:
    n = graph.num_vertices
    return Setup(np.ones(n, dtype=np.float32), pagerank_inv_outdeg(graph),
                 np.ones(n, dtype=bool))


PAGERANK = VertexProgram(
    name="pagerank", dtype=np.float32, identity=np.float32(0.0), reduce=np.add,
    process_edge=lambda weight, src_prop, src_const, dst_prop: src_prop * src_const,
    apply=lambda vprop, temp, vconst: ALPHA * temp + ONE_MINUS_ALPHA,
    init=_pagerank_init, all_active=True)


# ---------------------------------------------------------------------------- CF

def cf_program(K: int = 32, gamma: float = CF_DEFAULTS["gamma"],
               lam: float = CF_DEFAULTS["lam"], seed: int = 1,
               init_scale: float = CF_DEFAULTS["init_scale"]) -> VertexProgram:
    """The collaborative-filtering vertex program for the given constants."""
    g32, l32, s32 = np.float32(gamma), np.float32(lam), np.float32(init_scale)

    def process_edge(rating: np.ndarray, p_u: np.ndarray, _: Any, p_v: np.ndarray
                     ) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):   # IEEE results, as the RTL
            err = rating - pairwise_sum(p_u * p_v)
            return err[:, None] * p_u

    def apply(p: np.ndarray, temp: np.ndarray, _: Any) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            return p + g32 * (temp - l32 * p)

    def init(graph: Graph, root: None = None) -> Setup:
        if graph.weight is None:
            raise GraphError("cf needs a rating (weight) on every edge, e.g. a graph from "
                             "bipartite:users=...,items=...,ratings=...")
        rng = np.random.default_rng(seed)
        n = graph.num_vertices
        p = rng.random((n, K), dtype=np.float32) * s32
        return Setup(p, None, np.ones(n, dtype=bool), graph.weight.astype(np.float32))

    return VertexProgram(name="cf", dtype=np.float32, identity=np.float32(0.0), reduce=np.add,
                         process_edge=process_edge, apply=apply, init=init, all_active=True,
                         uses_dst_property=True, property_shape=(K,))


def pairwise_sum(x: np.ndarray) -> np.ndarray:
    """Sum the rows of float32 ``x`` (shape (n, K)) as CF's dot product does: padded with
    +0.0 to a power-of-two width, neighbours added level by level."""
    x = np.asarray(x, dtype=np.float32)
    width = 1 << max(0, x.shape[1] - 1).bit_length()
    if width != x.shape[1]:
        x = np.concatenate([x, np.zeros((x.shape[0], width - x.shape[1]), np.float32)], axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        while x.shape[1] > 1:
            x = x[:, 0::2] + x[:, 1::2]
    return x[:, 0]


def cf_rmse(graph: Graph, values: np.ndarray) -> float:
    """Root-mean-square error of the predicted ratings dot(p_u, p_v) over all edges."""
    if graph.weight is None:
        raise GraphError("cf_rmse needs a rating (weight) on every edge")
    p = np.asarray(values, dtype=np.float64)
    predicted = np.einsum("ek,ek->e", p[graph.src], p[graph.dst])
    return float(np.sqrt(np.mean((graph.weight - predicted) ** 2))) if graph.num_edges else 0.0


PROGRAMS = {"bfs": BFS, "sssp": SSSP, "cc": CC, "pagerank": PAGERANK}


# ---------------------------------------------------------------------------- run

def _check_int(value: Any, what: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < low:
        raise GraphError(f"{what} must be an integer >= {low}, got {value!r}")
    return int(value)


def _cf_params(params: dict[str, Any]) -> dict[str, Any]:
    aliases = {"k": "K", "lambda": "lam", "lambda_": "lam"}
    out = dict(CF_DEFAULTS)
    for key, value in params.items():
        name = aliases.get(key, key)
        if name not in CF_DEFAULTS:
            raise GraphError(f"cf has no parameter {key!r} (parameters: "
                             f"{', '.join(CF_DEFAULTS)})")
        out[name] = value
    out["K"] = _check_int(out["K"], "K", 1)
    out["seed"] = _check_int(out["seed"], "seed", 0)
    for name in ("gamma", "lam", "init_scale"):
        value = out[name]
        if isinstance(value, bool) or not isinstance(value, Real) or not np.isfinite(value):
            raise GraphError(f"{name} must be a finite number, got {value!r}")
        out[name] = float(value)
    return out


def run(algo: str, graph: Graph, root: int | None = None, iters: int | None = None,
        **params: Any) -> Result:
    """Run one of :data:`ALGORITHMS` on ``graph`` (see the module docstring).

    ``root`` is the start vertex of bfs and sssp (vertex 0 when not given) and must be
    None for the others.  ``iters`` caps the iterations (bfs, sssp and cc run to
    convergence when it is None; pagerank and cf run exactly ``iters``, default 10).
    ``params`` are cf's K, gamma, lam, seed and init_scale; other algorithms take none.
    """
    if not isinstance(graph, Graph):
        raise GraphError(f"run needs a Graph, got {type(graph).__name__}")
    key = str(algo).lower()
    if key not in ALGORITHMS:
        raise GraphError(f"unknown algorithm {algo!r} (algorithms: {', '.join(ALGORITHMS)})")
    if iters is not None:
        iters = _check_int(iters, "iters", 0)
    if key in ("bfs", "sssp"):
        root = 0 if root is None else root
        if isinstance(root, bool) or not isinstance(root, Integral):
            raise GraphError(f"root must be a vertex id, got {root!r}")
        if not 0 <= root < graph.num_vertices:
            raise GraphError(f"root {root} is out of range 0..{graph.num_vertices - 1} "
                             f"({graph.num_vertices} vertices)")
        root = int(root)
    elif root is not None:
        raise GraphError(f"{key} takes no root (got root {root!r})")
    if key == "cf":
        program = cf_program(**_cf_params(params))
    else:
        if params:
            raise GraphError(f"{key} takes no parameters (got {', '.join(params)})")
        program = PROGRAMS[key]
    if key in ("pagerank", "cf") and iters is None:
        iters = 10
    if key == "cc":
        graph = graph.symmetrized()
    setup = program.init(graph, root) if root is not None else program.init(graph)
    return execute(program, graph, setup, iters)
