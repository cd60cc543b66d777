"""DepGraph's GAS algorithms as data, made from vertex programs, and the numeric linearity
check of dependency transformation.

DepGraph (Zhang et al., HPCA 2021), section II (the GAS model) and section III-A ("the
applicability of dependency transformation").  Every vertex v holds a *state* s_v and a
*delta* Δ_v (the influence received but not yet folded in).  An algorithm is

* ``Accum`` -- ``"min"`` (s ← min(s, Δ)), ``"max"`` (s ← max(s, Δ)) or ``"sum"``
  (s ← s + Δ), with its identity (0xFFFFFFFF for min, 0 for max, 0.0 for sum) to which Δ is
  reset after a fold;
* ``EdgeCompute`` -- the influence sent along an edge u→w, ``edge_compute(x, w, c, k)``:
  ``x`` is the value u propagates (its new state for min and max, the folded Δ for sum; a
  Python scalar), ``w`` the weights of a slice of u's out-edges (uint32 array, or None for
  an unweighted graph; always an array when ``uses_weights``), ``c`` u's per-vertex
  constant, ``k`` the slice length.  It returns one value per edge of the slice (dtype
  ``dtype``).  ``x`` and ``c`` may also be arrays of length k (one per edge: the
  synchronous baseline calls it once per frontier).

:func:`gas_algorithm` makes one from a vertex program through its GAS form
(:func:`graphgen.programs.gas.gas_form`: Accum from the Reduce, EdgeCompute from
Process_Edge, the initial state and delta, the per-source constant). The built-ins, and
the examples of ``examples/programs/`` (widest, labelprop, ppr):

=========  =====  ================================  ===========================================
algorithm  Accum  EdgeCompute f(x) on edge u→w      initial state / delta
=========  =====  ================================  ===========================================
pagerank   sum    x · (alpha · 1/outdeg(u))         s = 0, Δ = 1 - alpha for every vertex
sssp       min    x + weight, saturating            s = 0xFFFFFFFF; Δ_root = 0
bfs        min    x + 1, saturating                 s = 0xFFFFFFFF; Δ_root = 0
cc         min    x                                 s = 0xFFFFFFFF; Δ_v = v for every vertex
widest     max    min(x, weight)                    s = 0; Δ_root = 0xFFFFFFFF
labelprop  max    x                                 s = 0; Δ_v = v for every vertex
ppr        sum    x · (alpha · 1/outdeg(u))         s = 0, Δ_root = 1 - alpha
=========  =====  ================================  ===========================================

PageRank is the delta ("incremental") form of GraphMat's unnormalised PageRank: its fixpoint
is r = (1 - alpha) + alpha · Σ_{u→v} r_u / outdeg(u), rank of dangling vertices is not
redistributed.  Sum-type algorithms are computed in **float64** from the program's float32
parameters (alpha = float32(0.85)): the golden model is a convergence specification,
compared within a tolerance, not bit for bit.  Min and max are exact uint32 arithmetic, so
RTL and golden model agree bit for bit.

An undirected program (CC, label propagation) expects a symmetric graph (``run_depgraph``
symmetrises like ``golden.algorithms.run``).  On a directed graph min-label propagation
gives each vertex the smallest id among the vertices that can reach it.

Linearity (section III-A): a dependency can be shortcut only if EdgeCompute is linear,
f(x) = mu·x + eps, so that a chain of them composes to one linear function of the head.
The program's definition decides it (:func:`graphgen.programs.gas.linearity`);
:func:`check_linear` tests it numerically on sample points and sample edges of a graph (the
guard for an algorithm given as NumPy functions, and for weights that saturate); for
min-type algorithms it also requires mu = 1 (the (min, +) semiring, where the composed
function is the path weight), which is what makes a shortcut value an upper bound reached by
a real path.  SSSP, BFS and CC (mu = 1, eps = weight, 1, 0) and PageRank (mu = alpha/outdeg,
eps = 0) all pass, so all four get shortcuts, as in the paper's evaluation; the hub index is
built for min and sum Accum, not for max.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphgen.programs import PROGRAMS, Program, ProgramError, load_program
from graphgen.programs.expr import Float32
from graphgen.programs.gas import GasForm, gas_form

from ..algorithms import ALPHA, UNREACHED
from ..graph import Graph
from ..programs import evaluator

__all__ = ["GasAlgorithm", "PAGERANK", "SSSP", "BFS", "CC", "GAS_ALGORITHMS", "DAMPING",
           "get_algorithm", "gas_algorithm", "check_linear", "source_constants",
           "shortcut_refusal"]

_U32 = int(UNREACHED)

EdgeCompute = Callable[[Any, "np.ndarray | None", Any, int], np.ndarray]

_UFUNCS = {"min": np.minimum, "max": np.maximum, "sum": np.add}


@dataclass(frozen=True)
class GasAlgorithm:
    """One algorithm in DepGraph's GAS form (see the module docstring).

    ``accum`` is ``"min"``, ``"max"`` or ``"sum"``; ``needs_root`` marks programs that read
    ``is_root`` (BFS, SSSP, ...); ``uses_weights`` makes the weights (all ones for an
    unweighted graph) reach EdgeCompute; ``undirected`` runs on the symmetrised graph;
    ``form`` is the program's GAS form, which gives the initial values and the per-source
    constants.
    """

    name: str
    accum: str
    dtype: Any
    identity: Any
    edge_compute: EdgeCompute
    needs_root: bool = False
    uses_weights: bool = False
    undirected: bool = False
    form: GasForm | None = None

    @property
    def is_min(self) -> bool:
        return self.accum == "min"

    @property
    def selective(self) -> bool:
        """Accum keeps the better value (min or max): a fold sets s ← Δ."""
        return self.accum in ("min", "max")

    @property
    def ufunc(self):
        """Accum as a NumPy ufunc (``np.minimum``, ``np.maximum`` or ``np.add``)."""
        return _UFUNCS[self.accum]

    def worth(self, state: Any, delta: Any, tolerance: float) -> Any:
        """The work test, per vertex (arrays) or for one (scalars): min type Δ < s, max type
        Δ > s, sum type |Δ| >= tolerance."""
        if self.accum == "min":
            return delta < state
        if self.accum == "max":
            return delta > state
        return np.abs(delta) >= tolerance

    def initial(self, graph: Graph, root: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Initial (state, delta) arrays for ``graph``."""
        form = _form_of(self)
        host = _host_operands(graph, root)
        return tuple(np.array(np.broadcast_to(_host(expr, host, self.dtype),
                                              graph.num_vertices))
                     for expr in (form.state, form.delta))


def _form_of(algo: GasAlgorithm) -> GasForm:
    if algo.form is None:
        raise ValueError(f"{algo.name} has no GAS form: its initial values and constants "
                         f"come from a program")
    return algo.form


def _host_operands(graph: Graph, root: int | None) -> dict[str, Any]:
    n = graph.num_vertices
    is_root = np.zeros(n, dtype=np.uint32)
    if root is not None:
        is_root[root] = 1
    return {"vertex_id": np.arange(n, dtype=np.uint32),
            "out_degree": graph.out_degree.astype(np.uint32),
            "in_degree": graph.in_degree.astype(np.uint32), "num_vertices": np.uint32(n),
            "is_root": is_root}


def _host(expr, host: dict[str, Any], dtype) -> np.ndarray:
    float_dtype = np.float64 if dtype == np.float64 else np.float32
    return np.asarray(evaluator(expr, float_dtype=float_dtype)(host), dtype)


def gas_algorithm(program: Program) -> GasAlgorithm:
    """``program`` as a :class:`GasAlgorithm`, through its GAS form (a program without one is
    refused with :class:`graphgen.programs.ProgramError`)."""
    form = gas_form(program)
    dtype = np.uint32 if form.selective else np.float64
    compute = evaluator(form.edge_compute, float_dtype=np.float64 if dtype == np.float64
                        else np.float32)
    const_dtype = np.float64 if form.const is None or form.const.type == Float32 \
        else np.uint32

    def edge_compute(x: Any, w: np.ndarray | None, c: Any, k: int) -> np.ndarray:
        value = compute({"x": np.asarray(x, dtype), "weight": w,
                         "src_const": np.asarray(c, const_dtype)})
        value = np.asarray(value, dtype)
        return np.full(k, value, dtype) if value.ndim == 0 else \
            np.array(np.broadcast_to(value, (k,)))

    identity = np.float64(form.identity) if dtype == np.float64 else np.uint32(form.identity)
    return GasAlgorithm(program.name, form.accum, dtype, identity, edge_compute,
                        needs_root=form.uses_root, uses_weights=form.uses_weight,
                        undirected=program.undirected, form=form)


def _built_ins() -> dict[str, GasAlgorithm]:
    algorithms = {}
    for name, program in PROGRAMS.items():
        try:
            algorithms[name] = gas_algorithm(program)
        except ProgramError:
            continue
    return algorithms


GAS_ALGORITHMS = _built_ins()
PAGERANK, SSSP, BFS, CC = (GAS_ALGORITHMS[name] for name in ("pagerank", "sssp", "bfs", "cc"))
DAMPING = float(ALPHA)      # alpha of PageRank, the program's float32 constant


def get_algorithm(algo: str | Program | GasAlgorithm) -> GasAlgorithm:
    """The :class:`GasAlgorithm` of ``algo``: one itself, a program, a built-in program's
    name or ``path/to/file.py:ClassName``."""
    if isinstance(algo, GasAlgorithm):
        if algo.accum not in _UFUNCS:
            raise ValueError(f"accum must be 'min', 'max' or 'sum', got {algo.accum!r}")
        return algo
    if isinstance(algo, Program):
        return gas_algorithm(algo)
    key = str(algo).strip()
    if key.lower() in GAS_ALGORITHMS:
        return GAS_ALGORITHMS[key.lower()]
    if key.lower() in PROGRAMS:                 # a built-in without a GAS form: say why
        return gas_algorithm(PROGRAMS[key.lower()])
    if ".py:" not in key:
        raise ValueError(f"unknown algorithm {algo!r} (algorithms: {', '.join(GAS_ALGORITHMS)}"
                         f" or path/to/file.py:ClassName)")
    return gas_algorithm(load_program(key))


def source_constants(algo: GasAlgorithm, graph: Graph) -> np.ndarray:
    """Per-source constant c of EdgeCompute (PageRank: alpha / outdeg, 0 without out-edges),
    from the GAS form; zeros when EdgeCompute reads none."""
    form = _form_of(algo)
    if form.const is None:
        return np.zeros(graph.num_vertices, dtype=np.float64)
    dtype = np.float64 if form.const.type == Float32 else np.uint32
    return np.array(np.broadcast_to(_host(form.const, _host_operands(graph, None), dtype),
                                    graph.num_vertices))


def shortcut_refusal(algo: GasAlgorithm, graph: Graph,
                     weights: np.ndarray | None = None) -> str:
    """Why dependency transformation is off for ``algo`` on ``graph`` ("" when it is on): the
    program's definition first (its EdgeCompute is not linear, or its Accum is max), then
    :func:`check_linear` on the graph's edges."""
    if algo.form is not None:
        symbolic = algo.form.linearity
        if not symbolic.linear:
            return f"{symbolic.reason}; dependency transformation switched off"
    if algo.accum == "max":
        return (f"{algo.name} accumulates with max; the hub index is built for min and sum "
                f"Accum; dependency transformation switched off")
    return check_linear(algo, graph, weights)[1]


# ---------------------------------------------------------------------------- linearity

_MIN_POINTS = (0, 1, 2, 3, 1000, 65535)
_SUM_POINTS = (0.0, 0.5, 1.0, 2.0, 3.75, -1.25)


def check_linear(algo: GasAlgorithm, graph: Graph, weights: np.ndarray | None = None,
                 samples: int = 64) -> tuple[bool, str]:
    """Whether ``algo``'s EdgeCompute is linear, f(x) = mu·x + eps, on every sampled edge.

    Evaluates EdgeCompute at a few points x on up to ``samples`` edges spread over the edge
    list (the highest-weight edge included, where saturation would show).  mu and eps are
    fitted from the first two points and the rest must lie on the line (exactly for integer
    types, to 1e-9 relative for floats).  Min- and max-type algorithms must also have mu = 1.
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
    points = _MIN_POINTS if algo.selective else _SUM_POINTS
    rows = []
    with np.errstate(over="ignore", invalid="ignore"):
        for x in points:
            xv = algo.dtype(x) if algo.selective else float(x)
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
    if algo.selective:
        bad = np.flatnonzero(np.any(fit != y, axis=0))
    else:
        scale = np.maximum(np.abs(y), 1.0)
        bad = np.flatnonzero(np.any(~np.isfinite(y) | (np.abs(fit - y) > 1e-9 * scale), axis=0))
    if bad.size:
        e = int(pick[bad[0]])
        j = int(np.flatnonzero(fit[:, bad[0]] != y[:, bad[0]])[0]) if algo.selective else None
        where = f" at x={points[j]}" if j is not None else ""
        return False, (f"EdgeCompute of {algo.name} is not linear (f(x) = mu*x + eps fails on "
                       f"edge {e}{where}); dependency transformation switched off")
    if algo.selective and np.any(mu != 1.0):
        e = int(pick[np.flatnonzero(mu != 1.0)[0]])
        return False, (f"EdgeCompute of {algo.accum}-type {algo.name} is linear but mu != 1 "
                       f"on edge {e}; shortcuts need the (min, +) form; dependency "
                       f"transformation switched off")
    return True, ""
