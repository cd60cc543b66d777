"""Ligra-o, the baseline DepGraph is measured against: frontier push, run asynchronously.

DepGraph (Zhang et al., HPCA 2021) sections II-B and IV compare with Ligra-o, Ligra made to
see updates as soon as they are made; its single-thread run is the paper's "serial
execution" (the updates a run needs, u_s), and its wasted updates grow with the thread
count (figure 4), which a bulk-synchronous run's could not.  This model runs the delta GAS
algorithm of :mod:`golden.depgraph.gas` that way with T threads:

    frontier F = { v : worth(v) } in id order, cut into T contiguous chunks (Ligra's
    parallel_for); in step k each thread takes the k-th vertex of its chunk.  The step's
    vertices fold their deltas at once (each reads the Δ left by the steps before it, so
    within a round updates are visible immediately), then all their out-edges are pushed:
    Δ_w <- Accum(Δ_w, EdgeCompute(x_u)).  A vertex that becomes worth joins the next
    frontier unless it is still to come in this round's F (its turn will pick the new Δ
    up); a vertex of F whose turn finds no work is skipped (a stale visit).
    Stop when F is empty.

The paper's Ligra-o runs on 64 cores that see each other's writes late (its figure 4: only
14.6-21.9% of the updates are useful). ``visibility`` V models that: the influences pushed
in step k are accumulated, and their destinations may join the next frontier, only at the
start of step k + V, for the pushing thread as for the others; the round's end is a barrier
that makes every push visible. V = 1 is the model above (every push seen by the next step).

Two utilisations of the T threads follow (the paper's useful-update share is u_s / u_d times
the cores' utilisation U): ``thread_steps`` / (T · steps), a step a vertex; and, with a
vertex's visit taking its out-degree in time units (a stale visit one) and a step lasting as
long as its longest visit, ``thread_work`` / (T · ``span``).

T = 1 is the serial execution; T >= |F| makes every round one step, the bulk-synchronous
baseline of :mod:`golden.depgraph.baseline`.  Counters: ``vertex_updates`` (folds),
``edges_fetched``, ``queue_pushes`` (frontier insertions), ``stale_visits``, ``rounds``
(iterations) and ``steps`` (parallel steps: the run's time with one vertex per thread per
step).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .baseline import accumulate, fold_and_send
from .counters import Counters
from .gas import GasAlgorithm

__all__ = ["run_ligra_o"]


def run_ligra_o(algo: GasAlgorithm, graph, state: np.ndarray, delta: np.ndarray,
                weights: np.ndarray | None, consts: np.ndarray, tolerance: float,
                threads: int, max_iters: int,
                visibility: int = 1) -> tuple[Counters, int, bool]:
    """Iterate to convergence, updating ``state``/``delta`` in place.

    Returns the counters, the number of parallel steps and whether it converged within
    ``max_iters`` rounds.
    """
    c = Counters()
    s, d = state, delta
    dst = graph.dst.astype(np.int64)
    offsets = graph.offsets
    steps = 0
    frontier = np.flatnonzero(algo.worth(s, d, tolerance))
    to_come = np.zeros(graph.num_vertices, dtype=bool)      # in F, turn not yet taken
    following = np.zeros(graph.num_vertices, dtype=bool)    # joined the next frontier
    pending: deque = deque()            # (step it is seen from, destinations, values)

    def publish(step: int | None) -> None:
        """Accumulate the pushes seen from ``step`` on (None: all, the round's barrier)."""
        due = []
        while pending and (step is None or pending[0][0] <= step):
            due.append(pending.popleft())
        if not due:
            return
        ws = np.concatenate([item[1] for item in due])
        accumulate(algo, d, ws, np.concatenate([item[2] for item in due]), dense=False)
        ws = np.unique(ws)
        join = ws[algo.worth(s[ws], d[ws], tolerance) & ~to_come[ws] & ~following[ws]]
        following[join] = True

    while frontier.size:
        if c.rounds >= max_iters:
            return c, steps, False
        c.rounds += 1
        c.queue_pushes += int(frontier.size)
        to_come[frontier] = True
        chunk = -(-frontier.size // threads)
        starts = np.arange(0, frontier.size, chunk)
        ends = np.minimum(starts + chunk, frontier.size)
        for k in range(chunk):
            take = starts + k < ends
            us = frontier[starts[take] + k]
            steps += 1
            publish(steps)
            to_come[us] = False
            c.thread_steps += int(us.size)
            work = np.maximum(offsets[us + 1] - offsets[us], 1)
            c.thread_work += int(work.sum())
            c.span += int(work.max())
            live = algo.worth(s[us], d[us], tolerance)
            c.stale_visits += int(us.size - np.count_nonzero(live))
            us = us[live]
            if us.size:
                ws, vals = fold_and_send(algo, offsets, dst, s, d, weights, consts, us, c)
                pending.append((steps + visibility, ws, vals))
        publish(None)
        frontier = np.flatnonzero(following)
        following[frontier] = False
    return c, steps, True
