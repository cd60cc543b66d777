"""The software the accelerators should beat: BFS, SSSP, CC and PageRank in CPU graph libraries,
timed on this machine and checked against the golden models (issue 54 item 1).

* SuiteSparse:GraphBLAS through python-graphblas, the algebraic successor of GraphMat's
  approach (Graphicionado's baseline): each algorithm a loop of masked vector-matrix
  products over a semiring, multi-threaded by the library.
* The dynamic graph unit's edge inserts against GraphBLAS's: the batch, as a matrix (the last
  insert of a pair wins), merged into the graph's, a pair already there taking the batch's
  weight, as the slab hash does (:func:`run_cpu_inserts`).
* NetworKit (BFS, Dijkstra, connected components; its PageRank normalises the ranks and
  redistributes the dangling vertices', another function than GraphMat's, so it is not run).

Each run returns the result in the golden model's encoding (uint32 levels and distances with
``UNREACHED``, CC labels as the smallest id of the component, float32 ranks), its best wall
time of ``repeats`` after a warm-up, and the threads the library used.
"""

from __future__ import annotations

import importlib
import os
import platform
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from golden import ALPHA, ONE_MINUS_ALPHA, UNREACHED, Graph, pagerank_inv_outdeg

__all__ = ["LIBRARIES", "CpuRun", "BaselineUnavailable", "run_cpu", "check_against_golden",
           "run_cpu_inserts", "cpu_description", "PAGERANK_RELATIVE_BOUND"]

# The libraries' float32 sums take the edges in another order than the golden model's edge-id
# order; this bounds the difference it makes, relative to the rank.
PAGERANK_RELATIVE_BOUND = 1e-4


class BaselineUnavailable(RuntimeError):
    """The library is not installed, or does not run this algorithm."""


@dataclass(frozen=True)
class CpuRun:
    """One algorithm in one library: the result, the best wall time and the threads."""

    library: str
    algo: str
    values: np.ndarray
    seconds: float
    threads: int
    iterations: int


def cpu_description() -> dict:
    """The processor the runs took place on: model, logical CPUs, the machine's kind."""
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            model = next((line.split(":", 1)[1].strip() for line in info
                          if line.startswith("model name")), model)
    except OSError:
        pass
    return {"model": model, "logical_cpus": os.cpu_count(), "machine": platform.machine()}


def _library(module: str, package: str):
    """The library's module, or BaselineUnavailable naming the package to install."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise BaselineUnavailable(f"{package} is not installed ({error}); make installs it "
                                  f"(the baseline extra)") from None


# ---------------------------------------------------------------------------- GraphBLAS

def _gb():
    return _library("graphblas", "python-graphblas")


def _gb_matrix(src, dst, n: int, values, dtype, dup_op: str | None = None):
    """An n x n matrix of the edges (src, dst); a scalar ``values`` makes a pattern, in which
    a repeated edge is one, else ``dup_op`` (a GraphBLAS binary's name) merges repeats."""
    gb = _gb()
    dup = None if np.isscalar(values) else getattr(gb.binary, dup_op)
    return gb.Matrix.from_coo(src, dst, values, nrows=n, ncols=n, dtype=dtype, dup_op=dup)


def _best_time(work: Callable, repeats: int):
    """The best wall time of ``repeats`` calls of ``work`` after a warm-up, and what the last
    call returned."""
    best, result = float("inf"), None
    for attempt in range(repeats + 1):
        start = time.perf_counter()
        result = work()
        if attempt:
            best = min(best, time.perf_counter() - start)
    return best, result


def _gb_dense(vector, fill, dtype) -> np.ndarray:
    out = np.full(vector.size, fill, dtype=dtype)
    index, values = vector.to_coo()
    out[index] = values
    return out


def _gb_prepare(graph: Graph, algo: str):
    """The adjacency matrix the algorithm multiplies by (and PageRank's 1 / out-degree)."""
    ends = (graph.src, graph.dst, graph.num_vertices)
    if algo == "bfs":
        return _gb_matrix(*ends, True, "BOOL")
    if algo == "sssp":
        weight = graph.require_nonnegative_integer_weights().astype(np.int64)
        return _gb_matrix(*ends, weight, "INT64", "min")
    if algo == "cc":
        both = graph.symmetrized()
        return _gb_matrix(both.src, both.dst, both.num_vertices, 1, "INT64")
    # A repeated edge carries its share twice, as in the golden model.
    ones = np.ones(graph.num_edges, dtype=np.float32)
    return (_gb_matrix(*ends, ones, "FP32", "plus"),
            _gb().Vector.from_dense(pagerank_inv_outdeg(graph)))


def _gb_bfs(matrix, root: int, _iters):
    gb = _gb()
    levels = gb.Vector("INT64", matrix.nrows)
    frontier = gb.Vector("BOOL", matrix.nrows)
    levels[root] << 0
    frontier[root] << True
    depth = 0
    while frontier.nvals:
        depth += 1
        frontier(~levels.S, replace=True) << frontier.vxm(matrix, gb.semiring.any_pair)
        levels(frontier.S) << depth
    return (lambda: _gb_dense(levels, UNREACHED, np.uint32)), depth


def _relax(gb, values, matrix, semiring):
    """Label correcting from every vertex of ``values`` at once: each round offers the changed
    vertices' values to their out-neighbours, keeps the smaller; returns the rounds."""
    frontier = values.dup()
    rounds = 0
    while frontier.nvals:
        rounds += 1
        offer = frontier.vxm(matrix, semiring).new()
        better = offer.ewise_mult(values, gb.binary.lt).new()
        frontier = gb.Vector(values.dtype, values.size)
        frontier(~values.S) << offer
        frontier(better.V) << offer
        values(frontier.S) << frontier
    return rounds


def _gb_sssp(matrix, root: int, _iters):
    gb = _gb()
    distance = gb.Vector("INT64", matrix.nrows)
    distance[root] << 0
    rounds = _relax(gb, distance, matrix, gb.semiring.min_plus)
    return (lambda: np.minimum(_gb_dense(distance, UNREACHED, np.int64),
                               int(UNREACHED)).astype(np.uint32)), rounds


def _gb_cc(matrix, _root, _iters):
    gb = _gb()
    n = matrix.nrows
    labels = gb.Vector.from_coo(np.arange(n), np.arange(n, dtype=np.int64), size=n)
    rounds = _relax(gb, labels, matrix, gb.semiring.min_first)
    return (lambda: _gb_dense(labels, UNREACHED, np.int64).astype(np.uint32)), rounds


def _gb_pagerank(prepared, _root, iters: int):
    gb = _gb()
    matrix, inv = prepared
    n = matrix.nrows
    rank = gb.Vector.from_dense(np.ones(n, dtype=np.float32))
    share, total = gb.Vector("FP32", n), gb.Vector("FP32", n)
    for _ in range(iters):
        share << rank.ewise_mult(inv, gb.binary.times)
        total << share.vxm(matrix, gb.semiring.plus_times)
        rank[:] << ONE_MINUS_ALPHA
        rank(accum=gb.binary.plus) << total.apply(gb.binary.times, left=ALPHA)
    return (lambda: _gb_dense(rank, 0, np.float32)), iters


def _gb_threads() -> int:
    return int(_gb().ss.config["nthreads"])


# ---------------------------------------------------------------------------- NetworKit

def _nk():
    return _library("networkit", "networkit")


def _nk_graph(graph: Graph, weights: bool):
    nk = _nk()
    built = nk.Graph(graph.num_vertices, weighted=weights, directed=True)
    ends = (graph.src.astype(np.uint64), graph.dst.astype(np.uint64))
    if weights:
        built.addEdges((graph.require_nonnegative_integer_weights().astype(np.float64), ends))
    else:
        built.addEdges((np.ones(graph.num_edges), ends))
    return built


def _nk_distances(values) -> np.ndarray:
    distance = np.asarray(values)
    out = np.full(distance.size, UNREACHED, dtype=np.uint32)
    reached = distance < float(UNREACHED)
    out[reached] = distance[reached].astype(np.uint32)
    return out


def _nk_prepare(graph: Graph, algo: str):
    """NetworKit's graph: weighted for SSSP, undirected (each edge once) for CC."""
    if algo != "cc":
        return _nk_graph(graph, algo == "sssp")
    undirected = graph.symmetrized()
    keep = undirected.src < undirected.dst
    built = _nk().Graph(graph.num_vertices, weighted=False, directed=False)
    built.addEdges((np.ones(int(keep.sum())), (undirected.src[keep].astype(np.uint64),
                                               undirected.dst[keep].astype(np.uint64))))
    return built


def _nk_bfs(built, root: int, _iters):
    search = _nk().distance.BFS(built, root, storePaths=False)
    search.run()
    return (lambda: _nk_distances(search.getDistances())), None


def _nk_sssp(built, root: int, _iters):
    search = _nk().distance.Dijkstra(built, root, storePaths=False)
    search.run()
    return (lambda: _nk_distances(search.getDistances())), None


def _nk_cc(built, _root, _iters):
    components = _nk().components.ConnectedComponents(built)
    components.run()

    def labels():
        n = built.numberOfNodes()
        component = np.asarray(components.getPartition().getVector(), dtype=np.int64)
        smallest = np.full(component.max() + 1, n, dtype=np.int64)
        np.minimum.at(smallest, component, np.arange(n))
        return smallest[component].astype(np.uint32)
    return labels, None


# ---------------------------------------------------------------------------- runs

LIBRARIES: dict[str, dict[str, Callable]] = {
    "graphblas": {"bfs": _gb_bfs, "sssp": _gb_sssp, "cc": _gb_cc, "pagerank": _gb_pagerank},
    "networkit": {"bfs": _nk_bfs, "sssp": _nk_sssp, "cc": _nk_cc},
}
_PREPARE = {"graphblas": _gb_prepare, "networkit": _nk_prepare}
_THREADS = {"graphblas": _gb_threads, "networkit": lambda: 1}


def run_cpu(library: str, algo: str, graph: Graph, root: int | None = None,
            iters: int | None = None, repeats: int = 3) -> CpuRun:
    """Run ``algo`` in ``library`` ``repeats`` times after a warm-up run; the best time counts
    the algorithm, not building the library's graph from ours (the accelerator's run starts
    from its graph in memory too). ``iters``: PageRank's iterations. NetworKit's algorithms
    here are sequential (1 thread); GraphBLAS uses the threads it is configured with."""
    if library not in LIBRARIES:
        raise ValueError(f"library {library!r}: one of {', '.join(LIBRARIES)}")
    runner = LIBRARIES[library].get(algo)
    if runner is None:
        raise BaselineUnavailable(f"{library} does not run {algo} here")
    if algo in ("bfs", "sssp") and root is None:
        raise ValueError(f"{algo} needs a root")
    prepared = _PREPARE[library](graph, algo)
    best, (finish, rounds) = _best_time(lambda: runner(prepared, root, iters), repeats)
    return CpuRun(library, algo, finish(), best, _THREADS[library](), rounds or 0)


def check_against_golden(run: CpuRun, expected: np.ndarray) -> str | None:
    """None when the library's answer is the golden model's (PageRank: within
    :data:`PAGERANK_RELATIVE_BOUND` of each rank), else what differs."""
    if run.values.shape != expected.shape:
        return f"{run.values.size} values, the golden model has {expected.size}"
    if run.algo == "pagerank":
        scale = np.maximum(np.abs(expected), np.float32(1e-30))
        worst = float(np.max(np.abs(run.values - expected) / scale)) if expected.size else 0.0
        return None if worst <= PAGERANK_RELATIVE_BOUND else \
            f"a rank {worst:.2e} away from the golden model's (bound {PAGERANK_RELATIVE_BOUND})"
    differ = np.flatnonzero(run.values != expected)
    if differ.size == 0:
        return None
    v = int(differ[0])
    return (f"{differ.size} vertices differ, first {v}: {int(run.values[v])} against the "
            f"golden model's {int(expected[v])}")


def run_cpu_inserts(graph: Graph, u: np.ndarray, v: np.ndarray, w: np.ndarray,
                    repeats: int = 3) -> tuple[CpuRun, tuple[np.ndarray, ...]]:
    """Edge inserts (insert, or replace the weight) into ``graph`` in GraphBLAS: the batch's
    matrix merged into the graph's, the best time of ``repeats`` after a warm-up (the graph's
    and the batch's matrices built beforehand, as the unit's slab hash is). Returns the run
    (its ``values``: the number of edges after) and the edges after, (src, dst, weight)
    sorted by src then dst, for the golden model's :meth:`SlabGraph.edges`."""
    gb = _gb()
    n = graph.num_vertices
    weight = np.ones(graph.num_edges, np.uint32) if graph.weight is None else \
        graph.weight.astype(np.uint32)
    before = _gb_matrix(graph.src, graph.dst, n, weight, "UINT32", "second")
    batch = _gb_matrix(u, v, n, w.astype(np.uint32), "UINT32", "second")

    def merge():
        merged = before.ewise_add(batch, gb.binary.second).new()
        merged.wait()
        return merged
    best, after = _best_time(merge, repeats)
    src, dst, values = after.to_coo()
    edges = (src.astype(np.uint32), dst.astype(np.uint32), values.astype(np.uint32))
    return CpuRun("graphblas", "inserts", np.array([after.nvals]), best, _gb_threads(),
                  1), edges
