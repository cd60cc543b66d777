"""DepGraph's dependency-driven asynchronous executor: P engines, each a queue, HDTL and PE.

DepGraph (Yao et al., HPCA 2021) section III-A (dependency-driven asynchronous execution)
and III-B (circular queue, HDTL with its stack, FIFO edge buffer, DDMU).  The RTL follows
these rules; every step is deterministic.

State.  Per vertex: state s, delta Δ (:mod:`golden.depgraph.gas`), an *active* bit ("Δ may
hold work") and a *queued* bit ("the id sits in its owner's circular queue").  Engine e owns
partition [b_e, b_{e+1}) and has a circular queue of ``queue_capacity`` ids, a stack of
``stack_depth`` entries <vertex, next edge offset, end offset, x, y> (x = the value the
vertex propagated, y = the path value carried from the walk's root, used only to learn
hub-index entries) and a list of pending pseudo-edges.  The *stop bitmap* is H'' (hubs, core
and boundary vertices, :mod:`golden.depgraph.hubs`) plus, when ``walk_max_indegree`` is set,
every vertex of larger in-degree; "walkable for e" = owner(w) = e and w not in the stop bitmap.

Work test ("worth"): min type Δ_v < s_v; sum type |Δ_v| >= tolerance.

Visit u (the PE folds u; "a vertex update" when it does):
  clear active[u]; if not worth(u): nothing (a stale visit).  Else
  min: s_u ← Δ_u, x = s_u;  sum: s_u ← s_u + Δ_u, x = Δ_u;  then Δ_u ← identity.
  1. DDMU (only at the walk root, where heads are): for each entry of u in hash-table slice
     [begin, end) with flag A, z = mu·x + eps; Accum z into Δ_tail; if the tail becomes
     worth and was inactive, activate it and push it to its owner's queue.  Sum type: append
     the pseudo-edge (tail, z) to the engine's pending list.
  2. Edge batch: the edges offsets[u]..offsets[u+1] enter the FIFO edge buffer in edge-id
     order; the PE pops each edge u→w and does Δ_w ← Accum(Δ_w, EdgeCompute_e(x)).
  3. Activation: every w of the batch that is worth now and was not active becomes active
     (duplicates once, in edge order).  It is left for the ongoing walk if it is walkable for
     e and u's depth < stack_depth; otherwise it is pushed to its owner's queue.  A walkable
     w pushed only because u's depth = stack_depth counts as a *stack overflow*.
  4. Learning (DDMU): if the walk's depth-2 vertex is L of entry j of the root, u is at depth
     length_j and the batch holds the edge u→tail_j (first such edge), the observation
     (x_root, EdgeCompute_e(y_u)) goes to entry j (:mod:`golden.depgraph.hub_index`).
  5. If u's depth < stack_depth its entry is pushed on the stack (next offset = first edge).

HDTL walk (depth first).  The top entry scans its edges from its next-offset: the first edge
to a w that is active and walkable for e is taken (next-offset moves past it) and w is
visited at depth + 1 with y_w = EdgeCompute_edge(y_top).  An exhausted entry is popped; when
the root's entry is popped (or right after the root visit when stack_depth = 1) the walk
ends and the pending pseudo-edges are popped from the FIFO: Δ_tail ← Δ_tail - z, activating
(and queueing) the tail if it becomes worth.  So a shortcut value is lent to the tail for
the duration of the walk that travels the core path, and is paid back after the path's own
edges have been sent: the sum of all Δ injections is unchanged, hence the fixpoint.

Queue.  Push(v): nothing if queued[v]; otherwise append and set queued[v] (so a vertex is
queued at most once and capacity = partition size never overflows, the default).  With a
smaller capacity a push to a full queue sets the engine's *spill* flag instead (v stays
active); an engine with an empty queue, an empty stack and its spill flag set rescans its
partition for active, unqueued vertices in id order starting at its rescan pointer
(wrapping around), pushes as many as fit and moves the pointer past the last one pushed
(so every spilled vertex is eventually served).  Pop: take the head, clear queued; an
inactive id is discarded (stale; the walk took it earlier).  A queue smaller than the
partition makes vertices be visited as soon as they turn worth, without accumulating
influence, so PageRank then needs several times more updates.

Schedule.  Initially the worth vertices (the root, or every vertex for CC and PageRank) are
activated and pushed in id order.  Then rounds: engines 0..P-1 in turn each perform one
step = one folding visit (continue the walk, else pop the queue and start a walk at the
popped root, else rescan); popping stack entries, stale ids and stale visits cost no step.
The run ends after a round in which no engine visited anything.

``walk_max_indegree`` (not in the paper; :func:`golden.depgraph.run_depgraph` uses 1 for
sum-type Accum and no limit for min type).  With the paper's literal rule (descend into
every active non-H'' vertex) delta-PageRank visits a vertex as soon as one in-neighbour's
contribution lifts |Δ| over the tolerance, instead of letting it accumulate the
contributions of all its in-neighbours while it waits in the queue: on Kronecker scale 14
that made 5.7 M vertex updates against 0.72 M for the synchronous baseline (0.37 M with
the limit 1, i.e. walks only along true chains, where a vertex depends on its walk parent
alone).  For min type the literal rule is kept (the paper's); a limit of 1 is also better
there on R-MAT (see the benchmark).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .counters import Counters
from .gas import GasAlgorithm
from .hub_index import FLAG_A, HubIndex

__all__ = ["Counters", "execute"]


def execute(algo: GasAlgorithm, graph, state: np.ndarray, delta: np.ndarray,
            weights: np.ndarray | None, consts: np.ndarray, bounds: np.ndarray,
            owner: np.ndarray, stop: np.ndarray, index: HubIndex | None, stack_depth: int,
            queue_capacity: int, tolerance: float, max_rounds: int) -> tuple[Counters, bool]:
    """Run the engines to convergence, updating ``state`` and ``delta`` in place.

    ``index`` is None when shortcuts are off.  Returns the counters and whether the run
    converged within ``max_rounds`` rounds.
    """
    c = Counters()
    P, D, cap, tol = len(bounds) - 1, stack_depth, queue_capacity, tolerance
    is_min = algo.is_min
    ident = algo.identity
    edge_compute = algo.edge_compute
    s, d = state, delta
    dst = graph.dst.astype(np.int64)
    offs = graph.offsets.tolist()
    owner_l = owner.tolist()
    walk_owner = np.where(stop, -1, owner).astype(np.int32)   # owner if walkable, else -1
    unique_edges = _no_duplicate_edges(graph)
    active = np.zeros(graph.num_vertices, dtype=bool)
    queued = np.zeros(graph.num_vertices, dtype=bool)
    queues = [deque() for _ in range(P)]
    stacks: list[list[list]] = [[] for _ in range(P)]
    pending: list[list[tuple[int, float]]] = [[] for _ in range(P)]
    spilled = [False] * P
    rescan_ptr = [int(b) for b in bounds[:-1]]
    if index is not None:
        i_flag, i_tail, i_len = index.flag, index.tail.tolist(), index.length.tolist()

    def push(v: int) -> None:
        if queued[v]:
            return
        o = owner_l[v]
        q = queues[o]
        if len(q) >= cap:
            c.queue_overflows += 1
            spilled[o] = True
            return
        q.append(v)
        queued[v] = True
        c.queue_pushes += 1

    def accum_one(t: int, z) -> None:
        """Accum a scalar into Δ_t (shortcut or pseudo-edge) and activate t if worth."""
        if is_min:
            if z < d[t]:
                d[t] = z
            worth = d[t] < s[t]
        else:
            d[t] += z
            worth = abs(d[t]) >= tol
        if worth and not active[t]:
            active[t] = True
            push(t)

    def edge_scalar(x, e: int, u: int):
        w = None if weights is None else weights[e:e + 1]
        return edge_compute(x, w, consts[u], 1)[0]

    def visit(eng: int, u: int, depth: int, parent: list | None, eidx: int):
        """Fold u (module docstring); returns False (stale), None or u's new stack entry."""
        active[u] = False
        du = d[u]
        if is_min:
            if not du < s[u]:
                c.stale_visits += 1
                return False
            s[u] = du
            x = int(du)
        else:
            if not abs(du) >= tol:
                c.stale_visits += 1
                return False
            s[u] += du
            x = float(du)
        d[u] = ident
        c.vertex_updates += 1
        c.visits += 1
        if depth == 1 or index is None:
            y, track, root_x = x, -1, x
        else:
            y = edge_scalar(parent[4], eidx, parent[0])
            root_x = stacks[eng][0][3]
            track = index.entry_for(stacks[eng][0][0], u) if depth == 2 else parent[5]
        if depth == 1 and index is not None:                    # DDMU shortcuts
            begin, end = index.entries_of(u)
            for j in range(begin, end):
                if i_flag[j] == FLAG_A:
                    z = index.shortcut_value(j, x)
                    c.shortcut_uses += 1
                    accum_one(i_tail[j], z)
                    if not is_min:
                        pending[eng].append((i_tail[j], z))
        lo, hi = offs[u], offs[u + 1]
        if hi > lo:
            ws = dst[lo:hi]
            vals = edge_compute(x, None if weights is None else weights[lo:hi], consts[u], hi - lo)
            c.edges_fetched += hi - lo
            if is_min:
                if unique_edges:
                    d[ws] = np.minimum(d[ws], vals)
                else:
                    np.minimum.at(d, ws, vals)
                worth = d[ws] < s[ws]
            else:
                if unique_edges:
                    d[ws] += vals
                else:
                    np.add.at(d, ws, vals)
                worth = np.abs(d[ws]) >= tol
            newly = worth & ~active[ws]
            if np.count_nonzero(newly):
                nw = ws[newly]
                if nw.size > 1 and not unique_edges:
                    nw = nw[np.r_[True, nw[1:] != nw[:-1]]]
                active[nw] = True
                local = walk_owner[nw] == eng
                if depth >= D:
                    c.stack_overflows += int(np.count_nonzero(local))
                    out = nw
                else:
                    out = nw[~local]
                for v in out.tolist():
                    push(v)
            if track >= 0 and depth == i_len[track]:            # DDMU learning
                t = i_tail[track]
                pos = int(np.searchsorted(ws, t))
                if pos < ws.size and ws[pos] == t:
                    index.observe(track, root_x, float(edge_scalar(y, lo + pos, u)))
        if depth < D:
            return [u, lo, hi, x, y, track]
        return None

    def scan(frame: list, eng: int) -> int:
        off, end = frame[1], frame[2]
        chunk = 16
        while off < end:
            top = min(off + chunk, end)
            ws = dst[off:top]
            hit = ((walk_owner[ws] == eng) & active[ws]).nonzero()[0]
            if hit.size:
                i = off + int(hit[0])
                frame[1] = i + 1
                return i
            off = top
            chunk *= 4
        frame[1] = end
        return -1

    def end_walk(eng: int) -> None:
        for t, z in pending[eng]:
            c.pseudo_edges += 1
            accum_one(t, -z)
        pending[eng].clear()

    def step(eng: int) -> bool:
        stack = stacks[eng]
        while stack:
            top = stack[-1]
            i = scan(top, eng)
            if i < 0:
                stack.pop()
                if not stack:
                    end_walk(eng)
                continue
            frame = visit(eng, int(dst[i]), len(stack) + 1, top, i)
            if frame is False:
                continue
            if frame is not None:
                stack.append(frame)
            return True
        q = queues[eng]
        while True:
            while q:
                u = q.popleft()
                queued[u] = False
                if not active[u]:
                    c.stale_pops += 1
                    continue
                frame = visit(eng, u, 1, None, -1)
                if frame is False:
                    continue
                if frame is None:
                    end_walk(eng)
                else:
                    stack.append(frame)
                return True
            if not spilled[eng]:
                return False
            c.rescans += 1
            lo, hi = int(bounds[eng]), int(bounds[eng + 1])
            ptr = rescan_ptr[eng]
            order = np.r_[np.arange(ptr, hi), np.arange(lo, ptr)]
            cand = order[active[order] & ~queued[order]]
            room = cap - len(q)
            spilled[eng] = cand.size > room
            for v in cand[:room].tolist():
                push(v)
            if cand.size:
                last = int(cand[min(room, cand.size) - 1])
                rescan_ptr[eng] = last + 1 if last + 1 < hi else lo

    # initial activation, in id order
    if is_min:
        first = np.flatnonzero(d < s)
    else:
        first = np.flatnonzero(np.abs(d) >= tol)
    active[first] = True
    for v in first.tolist():
        push(v)
    converged = False
    while c.rounds < max_rounds:
        busy = False
        for eng in range(P):
            if step(eng):
                busy = True
        if not busy:
            converged = True
            break
        c.rounds += 1
    return c, converged


def _no_duplicate_edges(graph) -> bool:
    if graph.num_edges < 2:
        return True
    return not bool(np.any((graph.src[1:] == graph.src[:-1]) & (graph.dst[1:] == graph.dst[:-1])))
