"""Top level of the DepGraph golden model: input checks, set-up, results.

:func:`run_depgraph` does the software pre-processing of DepGraph (Zhang et al., HPCA 2021,
section III-B "initialisation": partitions, hub and core vertices, the H'' bitmap, initial
active vertices), checks linearity (section III-A), builds the empty hub index and runs the
engines of :mod:`golden.depgraph.engine`.  :func:`run_sync_baseline` runs the same algorithm
bulk-synchronously (:mod:`golden.depgraph.baseline`).  Both return the final states and the
counters; for min-type algorithms the states are equal (theorem 1 of the paper), for
PageRank both are within ``n · tolerance / (1 - alpha)`` (1-norm) of the exact fixpoint.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np

from ..graph import Graph, GraphError
from .baseline import run_sync
from .counters import Counters
from .engine import execute
from .gas import GasAlgorithm, get_algorithm, shortcut_refusal, source_constants
from .hub_index import HubIndex, graph_csr_bytes
from .hubs import (CoreStructure, HubSelection, core_structure, owner_of, partition_bounds,
                   select_hubs)
from .ligra import run_ligra_o

__all__ = ["HubStats", "DepGraphResult", "SyncResult", "LigraResult", "run_depgraph",
           "run_sync_baseline", "run_ligra_baseline", "DEFAULT_TOLERANCE"]

DEFAULT_TOLERANCE = 1e-6


@dataclass(frozen=True)
class HubStats:
    """Pre-processing and hub-index figures of a run."""

    num_hubs: int
    threshold: int
    sample_size: int
    hpp_vertices: int
    core_vertices: int
    boundary_vertices: int
    core_paths: int
    index_entries: int
    index_heads: int
    entries_available: int
    observations: int
    rejected_fits: int
    index_bytes: int
    graph_bytes: int

    @property
    def index_share(self) -> float:
        """Hub-index bytes as a fraction of the graph's CSR bytes."""
        return self.index_bytes / self.graph_bytes if self.graph_bytes else 0.0


@dataclass(frozen=True)
class DepGraphResult:
    """Final states (uint32 for min type, float64 for PageRank) and run figures."""

    algo: str
    states: np.ndarray
    counters: Counters
    hub_stats: HubStats
    shortcuts: bool
    shortcut_reason: str
    converged: bool
    bounds: np.ndarray
    hpp: np.ndarray
    stop: np.ndarray
    core: CoreStructure = field(repr=False)
    index: HubIndex | None = field(repr=False, default=None)
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class SyncResult:
    """Final states and counters of the synchronous baseline (``counters.rounds`` iterations)."""

    algo: str
    states: np.ndarray
    counters: Counters
    converged: bool


@dataclass(frozen=True)
class LigraResult(SyncResult):
    """Final states and counters of Ligra-o (``counters.rounds`` iterations, ``steps``
    parallel steps of ``threads`` threads, pushes seen ``visibility`` steps later)."""

    threads: int
    steps: int
    visibility: int = 1

    @property
    def thread_utilisation(self) -> float:
        """Share of the thread-steps with a vertex to visit (:mod:`golden.depgraph.ligra`)."""
        slots = self.threads * self.steps
        return self.counters.thread_steps / slots if slots else 0.0

    @property
    def degree_weighted_utilisation(self) -> float:
        """Share of the threads' time busy when a visit takes its out-degree and a step its
        longest visit: the U of the paper's useful-update share."""
        slots = self.threads * self.counters.span
        return self.counters.thread_work / slots if slots else 0.0


# ---------------------------------------------------------------------------- checks

def _int(value: Any, what: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < low:
        raise ValueError(f"{what} must be an integer >= {low}, got {value!r}")
    return int(value)


def _fraction(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value <= 1:
        raise ValueError(f"{what} must be a number in (0, 1], got {value!r}")
    return float(value)


def _iteration_cap(graph: Graph, max_iters: Any) -> int:
    """The baselines' guard on rounds: ``max_iters``, by default 100000 + 10·n."""
    if max_iters is None:
        return 100000 + 10 * graph.num_vertices
    return _int(max_iters, "max_iters", 1)


def _hub_ids(hubs: Any, n: int) -> np.ndarray:
    ids = np.asarray(hubs)
    if ids.ndim != 1 or (ids.size and (ids.dtype == np.bool_ or ids.dtype.kind not in "iu")):
        raise ValueError("hubs must be a 1-D sequence of vertex ids")
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise ValueError(f"hub ids must be in 0..{n - 1}")
    return np.unique(ids.astype(np.int64))


def _prepare(algo: str | GasAlgorithm, graph: Graph, root: Any, tolerance: Any,
             symmetrize: bool):
    algo = get_algorithm(algo)
    if not isinstance(graph, Graph):
        raise GraphError(f"graph must be a golden.graph.Graph, got {type(graph).__name__}")
    if isinstance(tolerance, bool) or not isinstance(tolerance, Real) or not (
            math.isfinite(tolerance) and tolerance > 0):
        raise GraphError(f"tolerance must be a finite number > 0, got {tolerance!r}")
    if algo.needs_root:
        root = 0 if root is None else root
        if isinstance(root, bool) or not isinstance(root, Integral):
            raise GraphError(f"root must be a vertex id, got {root!r}")
        if not 0 <= root < graph.num_vertices:
            raise GraphError(f"root {root} is out of range 0..{graph.num_vertices - 1}")
        root = int(root)
    elif root is not None:
        raise GraphError(f"{algo.name} takes no root (got root {root!r})")
    if algo.undirected and symmetrize:
        graph = graph.symmetrized()
    weights = graph.require_nonnegative_integer_weights() if algo.uses_weights else None
    state, delta = algo.initial(graph, root)
    return algo, graph, root, weights, state, delta


# ---------------------------------------------------------------------------- runs

def run_depgraph(algo: str | GasAlgorithm, graph: Graph, *, root: int | None = None,
                 engines: int = 4, stack_depth: int = 10, hub_index: bool = True,
                 lam: float = 0.005, beta: float = 0.001,
                 tolerance: float = DEFAULT_TOLERANCE, seed: int = 0,
                 queue_capacity: int | None = None, max_path_len: int | None = None,
                 max_rounds: int | None = None, symmetrize: bool = True,
                 walk_max_indegree: int | None | str = "auto",
                 hubs: Any = None, walks: int = 1,
                 hub_sample_min: int = 1024,
                 leave_max_edges: int | None = None) -> DepGraphResult:
    """Run ``algo`` (``"pagerank"``, ``"sssp"``, ``"bfs"``, ``"cc"`` or a GasAlgorithm) on
    DepGraph's engines.

    ``root``: start of bfs/sssp (default 0; must be None for the others).  ``engines``:
    partitions/engines P.  ``stack_depth``: HDTL stack entries (>= 1; 1 = no descent).
    ``hub_index``: use the DDMU shortcuts.  ``lam``, ``beta``, ``seed``: hub selection.
    ``tolerance``: PageRank stops when every |Δ| < tolerance.  ``queue_capacity``: per-engine
    circular queue (default: the largest partition, which never overflows).
    ``max_path_len``: longest hub path considered (default ``max(stack_depth, 2)``).
    ``max_rounds``: scheduler-round guard (default 10000·n).  ``symmetrize``: CC runs on
    ``graph.symmetrized()`` (as :func:`golden.algorithms.run`).  ``walk_max_indegree``:
    the walk descends only into vertices of at most this in-degree (None: no limit, the
    paper's literal rule; "auto": 1 for sum-type Accum, None for min type; see
    :mod:`golden.depgraph.engine`).  ``hubs``: explicit hub ids instead of the sampling
    (``lam``, ``beta`` and ``seed`` are then unused).  ``walks``: walk contexts per engine,
    taking turns visit by visit (several walks in flight).  ``hub_sample_min``: the hub
    sample's floor (:func:`golden.depgraph.select_hubs`).  ``leave_max_edges``: a vertex of
    more out-edges leaves nothing for its walk (its activations are queued, for every walk
    of the engine to take) and is not pushed (None: no limit).
    """
    algo, graph, root, weights, state, delta = _prepare(algo, graph, root, tolerance, symmetrize)
    n = graph.num_vertices
    engines = _int(engines, "engines", 1)
    if engines > n:
        raise ValueError(f"engines ({engines}) must not exceed the number of vertices ({n})")
    stack_depth = _int(stack_depth, "stack_depth", 1)
    lam, beta = _fraction(lam, "lam"), _fraction(beta, "beta")
    seed = _int(seed, "seed", 0)
    max_path_len = max(stack_depth, 2) if max_path_len is None else _int(
        max_path_len, "max_path_len", 2)
    max_rounds = 10000 * n if max_rounds is None else _int(max_rounds, "max_rounds", 1)
    walks = _int(walks, "walks", 1)
    if leave_max_edges is not None:
        leave_max_edges = _int(leave_max_edges, "leave_max_edges", 0)
    hub_sample_min = _int(hub_sample_min, "hub_sample_min", 1)
    if walk_max_indegree == "auto":
        walk_max_indegree = None if algo.selective else 1
    elif walk_max_indegree is not None:
        walk_max_indegree = _int(walk_max_indegree, "walk_max_indegree", 0)
    if not isinstance(hub_index, bool):
        raise ValueError(f"hub_index must be True or False, got {hub_index!r}")
    bounds = partition_bounds(graph, engines)
    capacity = int(np.diff(bounds).max()) if queue_capacity is None else _int(
        queue_capacity, "queue_capacity", 1)
    owner = owner_of(bounds, n)
    if hubs is None:
        selection = select_hubs(graph, lam, beta, seed, hub_sample_min)
    else:
        selection = HubSelection(np.zeros(0, dtype=np.int64), -1, _hub_ids(hubs, n), 0)
    core = core_structure(graph, selection.hubs, bounds, max_path_len)
    reason = ""
    if not hub_index:
        reason = "hub index disabled (hub_index=False)"
    else:
        reason = shortcut_refusal(algo, graph, weights)
    stop = core.hpp.copy()
    if walk_max_indegree is not None:
        stop |= graph.in_degree > walk_max_indegree
    index = HubIndex.from_core(core, algo.is_min, ~stop) if not reason else None
    consts = source_constants(algo, graph)
    counters, converged = execute(algo, graph, state, delta, weights, consts, bounds, owner,
                                  stop, index, stack_depth, capacity, float(tolerance),
                                  max_rounds, walks, leave_max_edges)
    icounts = index.counts() if index is not None else {}
    stats = HubStats(
        num_hubs=int(selection.hubs.size), threshold=selection.threshold,
        sample_size=int(selection.sample.size),
        hpp_vertices=int(core.hpp.sum()), core_vertices=int(core.core.sum()),
        boundary_vertices=int(core.boundary.sum()), core_paths=core.num_paths,
        index_entries=icounts.get("entries", 0), index_heads=icounts.get("heads", 0),
        entries_available=icounts.get("available", 0),
        observations=icounts.get("observations", 0),
        rejected_fits=icounts.get("rejected_fits", 0),
        index_bytes=index.memory_bytes if index is not None else 0,
        graph_bytes=graph_csr_bytes(graph))
    params = {"root": root, "engines": engines, "stack_depth": stack_depth,
              "hub_index": hub_index, "lam": lam, "beta": beta, "tolerance": float(tolerance),
              "seed": seed, "queue_capacity": capacity, "max_path_len": max_path_len,
              "walk_max_indegree": walk_max_indegree, "walks": walks,
              "hub_sample_min": hub_sample_min, "leave_max_edges": leave_max_edges}
    return DepGraphResult(algo.name, state, counters, stats, index is not None, reason,
                          converged, bounds, core.hpp, stop, core, index, params)


def run_sync_baseline(algo: str | GasAlgorithm, graph: Graph, *, root: int | None = None,
                      tolerance: float = DEFAULT_TOLERANCE, max_iters: int | None = None,
                      symmetrize: bool = True) -> SyncResult:
    """The same algorithm, bulk-synchronous and frontier-based (Ligra-style push)."""
    algo, graph, root, weights, state, delta = _prepare(algo, graph, root, tolerance, symmetrize)
    max_iters = _iteration_cap(graph, max_iters)
    consts = source_constants(algo, graph)
    counters, converged = run_sync(algo, graph, state, delta, weights, consts, float(tolerance),
                                   max_iters)
    return SyncResult(algo.name, state, counters, converged)


def run_ligra_baseline(algo: str | GasAlgorithm, graph: Graph, *, root: int | None = None,
                       threads: int = 64, visibility: int = 1,
                       tolerance: float = DEFAULT_TOLERANCE, max_iters: int | None = None,
                       symmetrize: bool = True) -> LigraResult:
    """The same algorithm as the paper's baseline Ligra-o: frontier push with ``threads``
    threads whose pushes are seen ``visibility`` steps later (:mod:`golden.depgraph.ligra`;
    1 thread = the serial execution, visibility 1 = seen by the next step)."""
    algo, graph, root, weights, state, delta = _prepare(algo, graph, root, tolerance, symmetrize)
    threads = _int(threads, "threads", 1)
    visibility = _int(visibility, "visibility", 1)
    max_iters = _iteration_cap(graph, max_iters)
    consts = source_constants(algo, graph)
    counters, steps, converged = run_ligra_o(algo, graph, state, delta, weights, consts,
                                             float(tolerance), threads, max_iters, visibility)
    return LigraResult(algo.name, state, counters, converged, threads, steps, visibility)
