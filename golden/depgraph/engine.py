"""DepGraph's dependency-driven asynchronous executor: P engines, each a queue, HDTL and PE.

DepGraph (Zhang et al., HPCA 2021) section III-A (dependency-driven asynchronous execution)
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
     e, u's depth < stack_depth and u has at most ``leave_max_edges`` out-edges (when that
     is set); otherwise it is pushed to its owner's queue.  A walkable w pushed only for
     u's depth or degree counts as a *stack overflow*.
  4. Learning (DDMU): if the walk's depth-2 vertex is L of entry j of the root, u is at depth
     length_j and the batch holds the edge u→tail_j (first such edge), the observation
     (x_root, EdgeCompute_e(y_u)) goes to entry j (:mod:`golden.depgraph.hub_index`).
  5. If u's depth < stack_depth (and u has at most ``leave_max_edges`` out-edges) its entry
     is pushed on the stack (next offset = first edge).

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

Several walks in flight (``walks`` contexts per engine, each with its own stack, root and
pending pseudo-edges): a step goes to the contexts round robin, starting after the one that
made the last visit; a context whose walk has ended starts the next root from the queue.
With one context this is the single walk above.  Measured on 4 engines (Kronecker scale 12,
edge factor 4, before the hub sample had its floor; 64 x 64 grid): 2-16 contexts change
vertex updates by -26%..+1%, never the fixpoint.

Alternatives measured and left (2026-11): a walk decided by the graph alone (descend into
every walkable out-neighbour, which would let the HDTL fetch ahead without waiting for the
PE) equals the rule above with ``walk_max_indegree=1`` (a vertex of in-degree 1 is always
activated by its parent), but on a grid every vertex has in-degree >= 2 and SSSP then makes
30,156 updates against 9,956; without the in-degree limit PageRank made 2.1 M against 168 k.
Descending only into the vertices a batch newly activated (in batch order, last first) made
37,322-56,433 SSSP updates on the grid: the scan's taking of any *active* neighbour, however
it was activated, is what makes walks pay there.

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

__all__ = ["Counters", "EngineState", "execute"]


class EngineState:
    """The engines' state and the operations their walks use: the vertices' active and
    queued bits, the circular queues with their spill and rescan, the Accum of a batch or a
    single value, the DDMU's shortcuts and learning, and the pseudo-edges of a walk (module
    docstring)."""

    def __init__(self, algo: GasAlgorithm, graph, state: np.ndarray, delta: np.ndarray,
                 weights: np.ndarray | None, consts: np.ndarray, bounds: np.ndarray,
                 owner: np.ndarray, stop: np.ndarray, index: HubIndex | None,
                 queue_capacity: int, tolerance: float):
        self.c = Counters()
        self.algo, self.is_min, self.ident = algo, algo.is_min, algo.identity
        self.selective = algo.selective
        self.s, self.d, self.weights, self.consts = state, delta, weights, consts
        self.tol, self.cap, self.index = tolerance, queue_capacity, index
        self.bounds = bounds
        self.engines = len(bounds) - 1
        self.dst = graph.dst.astype(np.int64)
        self.offs = graph.offsets.tolist()
        self.owner = owner.tolist()
        self.walk_owner = np.where(stop, -1, owner).astype(np.int32)  # owner if walkable
        self.unique_edges = _no_duplicate_edges(graph)
        n = graph.num_vertices
        self.active = np.zeros(n, dtype=bool)
        self.queued = np.zeros(n, dtype=bool)
        self.queues = [deque() for _ in range(self.engines)]
        self.spilled = [False] * self.engines
        self.rescan_ptr = [int(b) for b in bounds[:-1]]
        if index is not None:
            self.i_flag, self.i_tail = index.flag, index.tail.tolist()
            self.i_len = index.length.tolist()

    # -------------------------------------------------------------- queues

    def push(self, v: int) -> None:
        if self.queued[v]:
            return
        o = self.owner[v]
        q = self.queues[o]
        if len(q) >= self.cap:
            self.c.queue_overflows += 1
            self.spilled[o] = True
            return
        q.append(v)
        self.queued[v] = True
        self.c.queue_pushes += 1

    def activate_initial(self) -> None:
        """The worth vertices, activated and pushed in id order."""
        first = np.flatnonzero(self.algo.worth(self.s, self.d, self.tol))
        self.active[first] = True
        for v in first.tolist():
            self.push(v)

    def pop_root(self, eng: int) -> int:
        """The next active id of the engine's queue (rescanning after a spill), or -1."""
        q = self.queues[eng]
        while True:
            while q:
                u = q.popleft()
                self.queued[u] = False
                if not self.active[u]:
                    self.c.stale_pops += 1
                    continue
                return u
            if not self.spilled[eng]:
                return -1
            self._rescan(eng)

    def _rescan(self, eng: int) -> None:
        self.c.rescans += 1
        q = self.queues[eng]
        lo, hi = int(self.bounds[eng]), int(self.bounds[eng + 1])
        ptr = self.rescan_ptr[eng]
        order = np.r_[np.arange(ptr, hi), np.arange(lo, ptr)]
        cand = order[self.active[order] & ~self.queued[order]]
        room = self.cap - len(q)
        self.spilled[eng] = cand.size > room
        for v in cand[:room].tolist():
            self.push(v)
        if cand.size:
            last = int(cand[min(room, cand.size) - 1])
            self.rescan_ptr[eng] = last + 1 if last + 1 < hi else lo

    # -------------------------------------------------------------- folds and batches

    def worth(self, u: int) -> bool:
        return bool(self.algo.worth(self.s[u], self.d[u], self.tol))

    def fold(self, u: int):
        """Clear active[u] and fold Δ_u; the value u propagates, or None (a stale visit)."""
        self.active[u] = False
        if not self.worth(u):
            self.c.stale_visits += 1
            return None
        du = self.d[u]
        if self.selective:
            self.s[u] = du
            x = int(du)
        else:
            self.s[u] += du
            x = float(du)
        self.d[u] = self.ident
        self.c.vertex_updates += 1
        self.c.visits += 1
        return x

    def accum_one(self, t: int, z) -> None:
        """Accum a scalar into Δ_t (shortcut or pseudo-edge) and activate t if worth."""
        if self.selective:
            self.d[t] = self.algo.ufunc(self.d[t], z)
        else:
            self.d[t] += z
        if self.worth(t) and not self.active[t]:
            self.active[t] = True
            self.push(t)

    def edge_scalar(self, x, e: int, u: int):
        w = None if self.weights is None else self.weights[e:e + 1]
        return self.algo.edge_compute(x, w, self.consts[u], 1)[0]

    def apply_batch(self, u: int, x) -> np.ndarray:
        """Send u's edges with x through the PE; the newly activated destinations, distinct,
        in edge order (the caller decides which are left for the walk)."""
        lo, hi = self.offs[u], self.offs[u + 1]
        if hi == lo:
            return np.zeros(0, dtype=np.int64)
        d, s = self.d, self.s
        ws = self.dst[lo:hi]
        vals = self.algo.edge_compute(x, None if self.weights is None else self.weights[lo:hi],
                                      self.consts[u], hi - lo)
        self.c.edges_fetched += hi - lo
        if self.selective:
            if self.unique_edges:
                d[ws] = self.algo.ufunc(d[ws], vals)
            else:
                self.algo.ufunc.at(d, ws, vals)
        else:
            if self.unique_edges:
                d[ws] += vals
            else:
                np.add.at(d, ws, vals)
        newly = self.algo.worth(s[ws], d[ws], self.tol) & ~self.active[ws]
        if not np.count_nonzero(newly):
            return np.zeros(0, dtype=np.int64)
        nw = ws[newly]
        if nw.size > 1 and not self.unique_edges:
            nw = nw[np.r_[True, nw[1:] != nw[:-1]]]
        self.active[nw] = True
        return nw

    # -------------------------------------------------------------- the DDMU

    def lend_shortcuts(self, u: int, x, pending: list) -> None:
        """At a root visit: Accum the shortcut of every A entry of u into its tail; for sum
        type the loan joins the walk's pending pseudo-edges."""
        if self.index is None:
            return
        begin, end = self.index.entries_of(u)
        for j in range(begin, end):
            if self.i_flag[j] == FLAG_A:
                z = self.index.shortcut_value(j, x)
                self.c.shortcut_uses += 1
                self.accum_one(self.i_tail[j], z)
                if not self.is_min:
                    pending.append((self.i_tail[j], z))

    def observe_tail(self, track: int, depth: int, u: int, y, root_x) -> None:
        """If u sits at the tracked entry's length and has an edge to its tail, the learner
        gets (root's x, y carried over that edge)."""
        if track < 0 or depth != self.i_len[track]:
            return
        lo, hi = self.offs[u], self.offs[u + 1]
        ws = self.dst[lo:hi]
        t = self.i_tail[track]
        pos = int(np.searchsorted(ws, t))
        if pos < ws.size and ws[pos] == t:
            self.index.observe(track, root_x, float(self.edge_scalar(y, lo + pos, u)))

    def pay_back(self, pending: list) -> None:
        for t, z in pending:
            self.c.pseudo_edges += 1
            self.accum_one(t, -z)
        pending.clear()


def execute(algo: GasAlgorithm, graph, state: np.ndarray, delta: np.ndarray,
            weights: np.ndarray | None, consts: np.ndarray, bounds: np.ndarray,
            owner: np.ndarray, stop: np.ndarray, index: HubIndex | None, stack_depth: int,
            queue_capacity: int, tolerance: float, max_rounds: int,
            walks: int = 1, leave_max_edges: int | None = None) -> tuple[Counters, bool]:
    """Run the engines to convergence, updating ``state`` and ``delta`` in place.

    ``index`` is None when shortcuts are off; ``walks`` walk contexts per engine take turns;
    a vertex of more than ``leave_max_edges`` out-edges (None: no limit) leaves nothing for the
    walk and is not pushed on the stack.
    Returns the counters and whether the run converged within ``max_rounds`` rounds.
    """
    st = EngineState(algo, graph, state, delta, weights, consts, bounds, owner, stop, index,
                     queue_capacity, tolerance)
    c, P, D = st.c, st.engines, stack_depth
    dst, walk_owner, active = st.dst, st.walk_owner, st.active
    stacks: list[list[list[list]]] = [[[] for _ in range(walks)] for _ in range(P)]
    pending: list[list[list]] = [[[] for _ in range(walks)] for _ in range(P)]
    turn = [0] * P

    def visit(eng: int, k: int, u: int, depth: int, parent: list | None, eidx: int):
        """Fold u (module docstring); returns False (stale), None or u's new stack entry."""
        x = st.fold(u)
        if x is None:
            return False
        if depth == 1 or index is None:
            y, track, root_x = x, -1, x
        else:
            root = stacks[eng][k][0]
            y = st.edge_scalar(parent[4], eidx, parent[0])
            root_x = root[3]
            track = index.entry_for(root[0], u) if depth == 2 else parent[5]
        if depth == 1:
            st.lend_shortcuts(u, x, pending[eng][k])
        nw = st.apply_batch(u, x)
        pushed = depth < D and (leave_max_edges is None or
                                st.offs[u + 1] - st.offs[u] <= leave_max_edges)
        if nw.size:
            local = walk_owner[nw] == eng
            if not pushed:
                c.stack_overflows += int(np.count_nonzero(local))
                out = nw
            else:
                out = nw[~local]
            for v in out.tolist():
                st.push(v)
        if index is not None:
            st.observe_tail(track, depth, u, y, root_x)
        if pushed:
            return [u, st.offs[u], st.offs[u + 1], x, y, track]
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

    def walk_on(eng: int, k: int) -> bool:
        """Continue context k's walk to its next folding visit; False once it has ended."""
        stack = stacks[eng][k]
        while stack:
            top = stack[-1]
            i = scan(top, eng)
            if i < 0:
                stack.pop()
                if not stack:
                    st.pay_back(pending[eng][k])
                continue
            frame = visit(eng, k, int(dst[i]), len(stack) + 1, top, i)
            if frame is False:
                continue
            if frame is not None:
                stack.append(frame)
            return True
        return False

    def start_walk(eng: int, k: int) -> bool:
        """Pop roots until one folds and start context k's walk there; False if none."""
        while True:
            u = st.pop_root(eng)
            if u < 0:
                return False
            frame = visit(eng, k, u, 1, None, -1)
            if frame is False:
                continue
            if frame is None:
                st.pay_back(pending[eng][k])
            else:
                stacks[eng][k].append(frame)
            return True

    def step(eng: int) -> bool:
        """One folding visit by the next context with work, round robin."""
        for j in range(walks):
            k = (turn[eng] + j) % walks
            if walk_on(eng, k) or start_walk(eng, k):
                turn[eng] = (k + 1) % walks
                return True
        return False

    st.activate_initial()
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
