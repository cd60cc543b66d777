"""The synchronous baseline DepGraph is compared with: bulk-synchronous, frontier-based push.

DepGraph (Zhang et al., HPCA 2021) section IV compares with Ligra-o; this is the same delta
GAS algorithm run the Ligra way, one global barrier per iteration:

    frontier F = { v : worth(v) }            (min: Δ_v < s_v;  sum: |Δ_v| >= tolerance)
    for every u in F (all at once):  fold Δ_u into s_u (min: s_u ← Δ_u; sum: s_u += Δ_u),
                                     x_u = the propagated value, Δ_u ← identity
    for every out-edge u→w of F:     Δ_w ← Accum(Δ_w, EdgeCompute(x_u))
    stop when F is empty.

Counters: every frontier vertex is one vertex update and one frontier insertion (the
``queue_pushes`` counter), every out-edge of the frontier one edge fetched; ``rounds`` is
the number of iterations.  The sum-type reduction is ``np.bincount`` (float64; the order of
additions differs from edge order only in rounding).
"""

from __future__ import annotations

import numpy as np

from .counters import Counters
from .gas import GasAlgorithm

__all__ = ["run_sync", "fold_and_push", "fold_and_send", "accumulate"]


def _gather(offsets: np.ndarray, frontier: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edge ids of the frontier's out-edges (in frontier then edge order) and their counts."""
    starts, ends = offsets[frontier], offsets[frontier + 1]
    counts = ends - starts
    total = int(counts.sum())
    idx = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(total)
    return idx, counts


def fold_and_push(algo: GasAlgorithm, offsets: np.ndarray, dst: np.ndarray, s: np.ndarray,
                  d: np.ndarray, weights: np.ndarray | None, consts: np.ndarray,
                  us: np.ndarray, c: Counters, dense: bool) -> np.ndarray:
    """Fold the deltas of the vertices ``us`` at once (they must be worth), then push their
    out-edges: Δ_w <- Accum(Δ_w, EdgeCompute(x_u)). Returns the destinations (with repeats).
    ``dense``: the sum-type reduction is one ``np.bincount`` over all vertices (cheap for a
    whole frontier), else ``np.add.at`` (cheap for a few vertices)."""
    ws, vals = fold_and_send(algo, offsets, dst, s, d, weights, consts, us, c)
    accumulate(algo, d, ws, vals, dense)
    return ws


def fold_and_send(algo: GasAlgorithm, offsets: np.ndarray, dst: np.ndarray, s: np.ndarray,
                  d: np.ndarray, weights: np.ndarray | None, consts: np.ndarray,
                  us: np.ndarray, c: Counters) -> tuple[np.ndarray, np.ndarray]:
    """Fold the deltas of the vertices ``us`` at once (they must be worth); the influences
    their out-edges send, not yet accumulated: destinations (with repeats) and values."""
    c.vertex_updates += int(us.size)
    c.visits += int(us.size)
    x = d[us].copy()
    if algo.selective:
        s[us] = x
    else:
        s[us] += x
    d[us] = algo.identity
    idx, counts = _gather(offsets, us)
    c.edges_fetched += int(idx.size)
    ws = dst[idx]
    if idx.size == 0:
        return ws, np.zeros(0, dtype=d.dtype)
    w = None if weights is None else weights[idx]
    vals = algo.edge_compute(np.repeat(x, counts), w, np.repeat(consts[us], counts),
                             int(idx.size))
    return ws, vals


def accumulate(algo: GasAlgorithm, d: np.ndarray, ws: np.ndarray, vals: np.ndarray,
               dense: bool) -> None:
    """Δ_w <- Accum(Δ_w, value) for every (w, value) pair, in place."""
    if ws.size == 0:
        return
    if algo.selective:
        algo.ufunc.at(d, ws, vals.astype(d.dtype))
    elif dense:
        d += np.bincount(ws, weights=vals, minlength=d.size)
    else:
        np.add.at(d, ws, vals)


def run_sync(algo: GasAlgorithm, graph, state: np.ndarray, delta: np.ndarray,
             weights: np.ndarray | None, consts: np.ndarray, tolerance: float,
             max_iters: int) -> tuple[Counters, bool]:
    """Iterate to convergence (or ``max_iters``), updating ``state``/``delta`` in place."""
    c = Counters()
    s, d = state, delta
    offsets, dst = graph.offsets, graph.dst.astype(np.int64)
    while c.rounds < max_iters:
        frontier = np.flatnonzero(algo.worth(s, d, tolerance))
        if frontier.size == 0:
            return c, True
        c.rounds += 1
        c.queue_pushes += int(frontier.size)
        fold_and_push(algo, offsets, dst, s, d, weights, consts, frontier, c, dense=True)
    return c, False
