"""DepGraph's GAS algorithms as data, and the linearity check of dependency transformation.

DepGraph (Zhang et al., HPCA 2021), section II (the GAS model) and section III-A ("the
applicability of dependency transformation").  Every vertex v holds a *state* s_v and a
*delta* Δ_v (the influence received but not yet folded in).  An algorithm is

* ``Accum`` -- ``"min"`` (s ← min(s, Δ)) or ``"sum"`` (s ← s + Δ), with its identity
  (UNREACHED = 0xFFFFFFFF for min, 0.0 for sum) to which Δ is reset after a fold;
* ``EdgeCompute`` -- the influence sent along an edge u→w, ``edge_compute(x, w, c)``: ``x``
  is the value u propagates (its new state for min, the folded Δ for sum; a Python scalar),
  ``w`` the weights of a slice of u's out-edges (uint32 array, or None for an unweighted
  graph; always an array when ``uses_weights``), ``c`` u's per-vertex constant
  (``alpha / outdeg(u)`` for PageRank, else 0), ``k`` the slice length.  It returns one
  value per edge of the slice (dtype ``dtype``).  ``x`` and ``c`` may also be arrays of
  length k (one per edge: the synchronous baseline calls it once per frontier).

The four algorithms (values as in :mod:`golden.algorithms` where the definitions match):

=========  =====  ================================  ===========================================
algorithm  Accum  EdgeCompute f(x) on edge u→w      initial state / delta
=========  =====  ================================  ===========================================
pagerank   sum    alpha · x / outdeg(u)  (float64)  s = 0, Δ = 1 - alpha for every vertex
sssp       min    x + weight, saturating at         s = UNREACHED; Δ_root = 0
                  UNREACHED (uint32)
bfs        min    x + 1, saturating (uint32)        s = UNREACHED; Δ_root = 0
cc         min    x (uint32)                        s = UNREACHED; Δ_v = v for every vertex
=========  =====  ================================  ===========================================

PageRank is the delta ("incremental") form of GraphMat's unnormalised PageRank used by
:mod:`golden.algorithms`: its fixpoint is r = (1 - alpha) + alpha · Σ_{u→v} r_u / outdeg(u),
rank of dangling vertices is not redistributed.  It is computed in **float64** with
alpha = 0.85 exactly (not the float32 ALPHA of the Graphicionado model): the golden model is
a convergence specification, compared within a tolerance, not bit for bit.  The min-type
algorithms are exact uint32 arithmetic, so RTL and golden model agree bit for bit.

CC expects a symmetric graph (``run_depgraph`` symmetrises like ``golden.algorithms.run``).
On a directed graph min-label propagation gives each vertex the smallest id among the
vertices that can reach it, which is not the weakly connected component.

Linearity (section III-A): a dependency can be shortcut only if EdgeCompute is linear,
f(x) = mu·x + eps, so that a chain of them composes to one linear function of the head.
:func:`check_linear` tests this numerically on sample points and sample edges; for min-type
algorithms it also requires mu = 1 (the (min, +) semiring, where the composed function is the
path weight), which is what makes a shortcut value an upper bound reached by a real path.
SSSP, BFS and CC (mu = 1, eps = weight, 1, 0) and PageRank (mu = alpha/outdeg, eps = 0) all
pass, so all four get shortcuts, as in the paper's evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..algorithms import UNREACHED
from ..graph import Graph

__all__ = ["GasAlgorithm", "PAGERANK", "SSSP", "BFS", "CC", "GAS_ALGORITHMS", "DAMPING",
           "get_algorithm", "check_linear", "source_constants"]

DAMPING = 0.85                  # alpha of PageRank (float64)
_U32 = int(UNREACHED)

EdgeCompute = Callable[[Any, "np.ndarray | None", Any, int], np.ndarray]


@dataclass(frozen=True)
class GasAlgorithm:
    """One algorithm in DepGraph's GAS form (see the module docstring).

    ``accum`` is ``"min"`` or ``"sum"``; ``needs_root`` marks BFS/SSSP (Δ_root = 0);
    ``all_active`` marks algorithms whose every vertex starts with a delta (CC, PageRank);
    ``uses_weights`` makes the weights (all ones for an unweighted graph) reach EdgeCompute;
    ``damping`` is PageRank's alpha (the per-source constant is damping / outdeg).
    """

    name: str
    accum: str
    dtype: Any
    identity: Any
    edge_compute: EdgeCompute
    needs_root: bool = False
    all_active: bool = False
    uses_weights: bool = False
    damping: float = 0.0

    @property
    def is_min(self) -> bool:
        return self.accum == "min"

    def worth(self, state: Any, delta: Any, tolerance: float) -> Any:
        """The work test, per vertex (arrays) or for one (scalars): min type Δ < s, sum type
        |Δ| >= tolerance."""
        if self.accum == "min":
            return delta < state
        return np.abs(delta) >= tolerance

    def initial(self, graph: Graph, root: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Initial (state, delta) arrays for ``graph``."""
        n = graph.num_vertices
        if self.accum == "sum":
            state = np.zeros(n, dtype=self.dtype)
            delta = np.full(n, 1.0 - self.damping if self.damping else 1.0, dtype=self.dtype)
            return state, delta
        state = np.full(n, self.identity, dtype=self.dtype)
        if self.all_active:
            delta = np.arange(n, dtype=self.dtype)
        else:
            delta = np.full(n, self.identity, dtype=self.dtype)
            delta[root] = 0
        return state, delta


# ---------------------------------------------------------------------------- EdgeComputes

def _pagerank_edge(x: Any, w: np.ndarray | None, c: Any, k: int) -> np.ndarray:
    return np.zeros(k, dtype=np.float64) + np.multiply(x, c)


def _sssp_edge(x: Any, w: np.ndarray | None, c: Any, k: int) -> np.ndarray:
    total = np.asarray(x, dtype=np.uint64) + w.astype(np.uint64)
    return np.minimum(total, np.uint64(_U32)).astype(np.uint32)


def _bfs_edge(x: Any, w: np.ndarray | None, c: Any, k: int) -> np.ndarray:
    one = np.minimum(np.asarray(x, dtype=np.uint64) + np.uint64(1), np.uint64(_U32))
    return (np.zeros(k, dtype=np.uint64) + one).astype(np.uint32)


def _cc_edge(x: Any, w: np.ndarray | None, c: Any, k: int) -> np.ndarray:
    return np.zeros(k, dtype=np.uint32) + np.asarray(x, dtype=np.uint32)


PAGERANK = GasAlgorithm("pagerank", "sum", np.float64, 0.0, _pagerank_edge,
                        all_active=True, damping=DAMPING)
SSSP = GasAlgorithm("sssp", "min", np.uint32, UNREACHED, _sssp_edge, needs_root=True,
                    uses_weights=True)
BFS = GasAlgorithm("bfs", "min", np.uint32, UNREACHED, _bfs_edge, needs_root=True)
CC = GasAlgorithm("cc", "min", np.uint32, UNREACHED, _cc_edge, all_active=True)

GAS_ALGORITHMS = {"pagerank": PAGERANK, "sssp": SSSP, "bfs": BFS, "cc": CC}


def get_algorithm(algo: str | GasAlgorithm) -> GasAlgorithm:
    """The :class:`GasAlgorithm` named ``algo`` (or ``algo`` itself when it is one)."""
    if isinstance(algo, GasAlgorithm):
        if algo.accum not in ("min", "sum"):
            raise ValueError(f"accum must be 'min' or 'sum', got {algo.accum!r}")
        return algo
    key = str(algo).lower()
    if key not in GAS_ALGORITHMS:
        raise ValueError(f"unknown algorithm {algo!r} (algorithms: {', '.join(GAS_ALGORITHMS)})")
    return GAS_ALGORITHMS[key]


def source_constants(algo: GasAlgorithm, graph: Graph) -> np.ndarray:
    """Per-source constant c of EdgeCompute: damping / outdeg (0 without out-edges), else 0."""
    c = np.zeros(graph.num_vertices, dtype=np.float64)
    if algo.damping:
        deg = graph.out_degree
        np.divide(algo.damping, deg, out=c, where=deg > 0)
    return c


# ---------------------------------------------------------------------------- linearity

_MIN_POINTS = (0, 1, 2, 3, 1000, 65535)
_SUM_POINTS = (0.0, 0.5, 1.0, 2.0, 3.75, -1.25)


def check_linear(algo: GasAlgorithm, graph: Graph, weights: np.ndarray | None = None,
                 samples: int = 64) -> tuple[bool, str]:
    """Whether ``algo``'s EdgeCompute is linear, f(x) = mu·x + eps, on every sampled edge.

    Evaluates EdgeCompute at a few points x on up to ``samples`` edges spread over the edge
    list (the highest-weight edge included, where saturation would show).  mu and eps are
    fitted from the first two points and the rest must lie on the line (exactly for integer
    types, to 1e-9 relative for floats).  Min-type algorithms must also have mu = 1.
    Returns ``(True, "")`` or ``(False, reason)``.
    """
    m = graph.num_edges
    if m == 0:
        return True, ""
    pick = np.unique(np.linspace(0, m - 1, num=min(samples, m)).astype(np.int64))
    if weights is not None and weights.size:
        pick = np.unique(np.append(pick, int(np.argmax(weights))))
    consts = source_constants(algo, graph)[graph.src[pick]]
    w = None if weights is None else weights[pick]
    points = _MIN_POINTS if algo.is_min else _SUM_POINTS
    rows = []
    with np.errstate(over="ignore", invalid="ignore"):
        for x in points:
            xv = algo.dtype(x) if algo.is_min else float(x)
            vals = np.empty(pick.size, dtype=np.float64)
            for i in range(pick.size):      # one edge at a time, as the engine calls it
                one = None if w is None else w[i:i + 1]
                vals[i] = float(np.asarray(algo.edge_compute(xv, one, float(consts[i]), 1))[0])
            rows.append(vals)
    y = np.array(rows)                          # points x edges
    xs = np.array(points, dtype=np.float64)
    mu = (y[1] - y[0]) / (xs[1] - xs[0])
    eps = y[0] - mu * xs[0]
    fit = mu[None, :] * xs[:, None] + eps[None, :]
    if algo.is_min:
        bad = np.flatnonzero(np.any(fit != y, axis=0))
    else:
        scale = np.maximum(np.abs(y), 1.0)
        bad = np.flatnonzero(np.any(~np.isfinite(y) | (np.abs(fit - y) > 1e-9 * scale), axis=0))
    if bad.size:
        e = int(pick[bad[0]])
        j = int(np.flatnonzero(fit[:, bad[0]] != y[:, bad[0]])[0]) if algo.is_min else None
        where = f" at x={points[j]}" if j is not None else ""
        return False, (f"EdgeCompute of {algo.name} is not linear (f(x) = mu*x + eps fails on "
                       f"edge {e}{where}); dependency transformation switched off")
    if algo.is_min and np.any(mu != 1.0):
        e = int(pick[np.flatnonzero(mu != 1.0)[0]])
        return False, (f"EdgeCompute of min-type {algo.name} is linear but mu != 1 on edge {e}; "
                       f"shortcuts need the (min, +) form; dependency transformation "
                       f"switched off")
    return True, ""
