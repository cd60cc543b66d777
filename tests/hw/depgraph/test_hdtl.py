"""The HDTL (hub index off) against the walk rules of ``golden.depgraph.engine``, with the
rest of its engine played in Python: the vertex-store bank (fold, probe, Accum of updates,
activation, "left for the walk" unless stop, pushes to the queue that feeds ``pop``), the
processing element (EdgeCompute of each edge task, applied after a random delay, with
``drained`` and ``left`` as ``depgraph.py`` makes them), and a second engine owning the
vertices outside the HDTL's partition (its walks are plain visits, in Python).

The stack levels keep lines of their own (``stack_lines``) at the even stack depths.
Checked on the way: a visit that is not a root's is of a vertex of the partition, not in the
stop bitmap and active; a probe is of a vertex of the partition; the edge tasks are exactly
the edges of each worth visit, in visit order, with its x and constant. At the end (the HDTL
idle, every queue empty, nothing in flight): no vertex is active and the states equal the
golden fixpoint. Streams and memories paused at random. Edges in memory of one word (the
destination; the edge tasks' weight is 1) for the programs that read no weight, and of two
(dst, weight) for SSSP and for some of the others (``edge_format`` weighted).

With the hub index (min type; the DDMU played in Python answers each lookup with up to three
learnable entries along real paths from the root, then ``done``): a lookup is sent
once per worth root visit of a vertex with the head bit, with the root's x; a walk does not
end (no next root is visited) before its lookup is answered; an observation names an entry
answered to the walk and carries the root's x, and for an entry of length 2 the y of the
path root → L → tail. PageRank: the DDMU also lends 0-2 shortcuts per lookup (the update
applied, the pseudo-edge put in the pseudo-edge buffer before ``done``); the HDTL must send
each walk's pseudo-edges, in order, after its last batch and before the next walk. (Whether every due observation is made is not checked: that needs the
walk's path.)"""

import collections
import random

import numpy as np
import pytest

import golden
from golden.depgraph import run_depgraph
from golden.depgraph.gas import get_algorithm, source_constants
from hw.depgraph.hdtl import HDTL
from hw.depgraph.layouts import ORIGIN_DDMU
from sim.amaranth_memory import words_to_lines
from sim.depgraph.run import PAGERANK_ATOL, PAGERANK_RTOL
from tests.support.stream_drivers import PAUSES, Bench, serve_memory, to_py

U32 = 0xFFFF_FFFF
ENGINE, OTHER = 1, 0
OFFSETS_BASE, EDGES_BASE = 2, 40


def memory(bench, name, port, lines, pause):
    return serve_memory(bench, name, port, lines, pause, latency=7, jitter=6)


# (algo, stack depth, hub index, offsets on chip: the fold answers them, edge words: 1 the
# destination alone, sixteen a line, as DepGraphConfig lays out a program that reads no
# weight; 2 (dst, weight), eight a line, as for SSSP or edge_format weighted)
CASES = [("bfs", 2, False, True, 1), ("sssp", 3, False, False, 2), ("cc", 1, False, True, 1),
         ("bfs", 6, False, False, 2), ("pagerank", 3, False, True, 1),
         ("sssp", 4, True, True, 2), ("cc", 3, True, False, 1), ("cc", 3, True, False, 2),
         ("pagerank", 2, True, True, 1), ("pagerank", 2, True, True, 2)]


def f32(bits):
    return np.uint32(bits).view(np.float32)


def bits(value):
    return int(np.float32(value).view(np.uint32))


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("algo, depth, hub, onchip, edge_words", CASES,
                         ids=[f"{a}-d{d}-{'hub' if h else 'nohub'}{'-onchip' if o else ''}"
                              f"-{w}w" for a, d, h, o, w in CASES])
def test_hdtl_walks_to_the_fixpoint(algo, depth, hub, onchip, edge_words, pause):
    is_sum = algo == "pagerank"
    # PageRank runs to a tolerance: a smaller graph, so the simulation stays short.
    graph = golden.from_spec(f"kron:scale={4 if is_sum else 5},ef=3,seed=7,weights=1:20")
    root = int(np.argmax(graph.out_degree)) if algo in ("bfs", "sssp") else None
    tolerance = 1e-4
    ref = run_depgraph(algo, graph, root=root, engines=1, hub_index=False,
                       tolerance=tolerance).states
    g = graph.symmetrized() if algo == "cc" else graph
    gas = get_algorithm(algo)
    n = g.num_vertices
    offsets = g.offsets.astype(np.int64).tolist()
    dst = g.dst.tolist()
    weight = (g.require_nonnegative_integer_weights() if algo == "sssp"
              else np.ones(g.num_edges, dtype=np.uint32)).tolist()
    rng = random.Random(f"hdtl/{algo}/{depth}")
    first, last = 3, n - 5                      # the HDTL's partition; the rest is OTHER's
    stop = [rng.random() < 0.15 for _ in range(n)]
    if is_sum:       # FP32 bit patterns, as the bank holds them
        s, d = ([bits(v) for v in a] for a in gas.initial(g, root))
        const = [bits(c) for c in source_constants(gas, g)]
        tol = np.float32(tolerance)
    else:
        s, d = (list(map(int, a)) for a in gas.initial(g, root))
        const = [rng.randrange(1 << 32) for _ in range(n)]   # carried along, unused
    mine = lambda v: first <= v < last

    def worth(v):
        return abs(f32(d[v])) >= tol if is_sum else d[v] < s[v]

    active = [worth(v) for v in range(n)]
    queued = list(active)

    head = [hub and mine(v) and rng.random() < 0.8 for v in range(n)]
    # A leaf (sim.depgraph.image.leaves): no out-neighbour the walk could descend into.
    leaf = [mine(v) and not any(mine(u) and not stop[u] for u in dst[offsets[v]:offsets[v + 1]])
            for v in range(n)]
    lines = depth % 2 == 0
    # The deep BFS case: a vertex of more than two edges leaves nothing for its walk.
    leave_max = 2 if (algo, depth) == ("bfs", 6) else 0
    dut = HDTL(addr_width=16, stack_depth=depth, edge_window=2, algo=algo, engine=ENGINE,
               hub_index=hub, track_entries=3, offsets_on_chip=onchip, stack_lines=lines,
               edge_words=edge_words, leave_max_edges=leave_max)
    bench = Bench(dut, f"HDTL({algo}, stack depth {depth}, hub index {hub}, offsets on chip "
                  f"{onchip}, stack lines {lines}, edge words {edge_words})", pause=pause,
                  p_pause=0.3)
    lines = words_to_lines(offsets, OFFSETS_BASE)
    edge_memory = dst if edge_words == 1 else [w for pair in zip(dst, weight) for w in pair]
    lines.update(words_to_lines(edge_memory, EDGES_BASE))
    if not onchip:
        memory(bench, "offsets_mem", dut.offsets_mem, lines, pause)
    memory(bench, "edges_mem", dut.edges_mem, lines, pause)
    pops = bench.feed("pop", dut.pop)
    visited = bench.feed("visited", dut.visited)
    probed = bench.feed("probed", dut.probed)
    pops.extend(v for v in range(n) if active[v] and mine(v))
    other_queue = collections.deque(v for v in range(n) if active[v] and not mine(v))
    for name in ("visit", "probe", "edges") + (("lookup", "observe") if hub else ()):
        bench.watch(name, getattr(dut, name))
    if hub:
        answers = bench.feed("answers", dut.answers)
        # The pseudo-edges lent may reach the buffer after ``done``, which says how many.
        pending = bench.feed("pending", dut.pending)
    walk = {"root": None, "x": None, "entries": {}, "asked": False, "answered": True,
            "loans": collections.deque()}
    next_entry = iter(range(1000, 10**6))
    want_edges = collections.deque()
    log = {"visits": 0, "worth": 0, "edges": 0, "observations": 0, "pseudo": 0,
           "leaf_batches": 0}
    idle = []

    def edge_compute(x, w, c=0, pseudo=0):
        """The PE's EdgeCompute (PageRank: x · const, a pseudo-edge -x)."""
        if is_sum:
            return x ^ 0x8000_0000 if pseudo else bits(f32(x) * f32(c))
        return min(x + {"bfs": 1, "sssp": w, "cc": 0}[algo], U32)

    def update(v, value, origin, leave):
        """The bank's Accum; True if it left v for the HDTL's walk."""
        d[v] = bits(f32(d[v]) + f32(value)) if is_sum else min(d[v], value)
        if worth(v) and not active[v]:
            active[v] = True
            if leave and origin == ENGINE and mine(v) and not stop[v]:
                return True
            if not queued[v]:
                queued[v] = True
                (pops if mine(v) else other_queue).append(v)
        return False

    def fold(v, is_root):
        active[v] = False
        if is_root:
            queued[v] = False
        if not worth(v):
            return False, 0
        if is_sum:
            x = d[v]
            s[v], d[v] = bits(f32(s[v]) + f32(d[v])), 0
            return True, x
        s[v], d[v] = d[v], U32
        return True, s[v]

    async def environment(ctx):
        ctx.set(dut.first, first)
        ctx.set(dut.last, last)
        if not onchip:
            ctx.set(dut.offsets_base, OFFSETS_BASE)
        ctx.set(dut.edges_base, EDGES_BASE)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        r = bench.rng("environment") or random.Random(0)
        p = 0.0 if bench.pause is None else 0.3
        in_flight = []                 # (due cycle, update)
        cycle = quiet = 0
        names = ("visit", "probe", "edges") + (("lookup", "observe") if hub else ())
        while True:
            readies = {name: r.random() >= p for name in names}
            for name, ready in readies.items():
                ctx.set(getattr(dut, name).ready, ready)
            drained_before = not in_flight
            hub_signals = (dut.lookup.valid, dut.lookup.payload, dut.observe.valid,
                           dut.observe.payload) if hub else ()
            _, _, *sampled = await ctx.tick().sample(
                dut.visit.valid, dut.visit.payload, dut.probe.valid, dut.probe.payload,
                dut.edges.valid, dut.edges.payload, dut.busy, *hub_signals)
            cycle += 1
            v_valid, v_pay, p_valid, p_pay, e_valid, e_pay, busy = sampled[:7]
            if hub:
                l_valid, l_pay, o_valid, o_pay = sampled[7:]
                if walk["asked"] and not walk["answered"] and not answers:
                    walk["answered"] = True     # the feed has handed out ``done``
                if l_valid and readies["lookup"]:
                    req = to_py(l_pay)
                    if walk["asked"] or req != {"root": walk["root"], "x": walk["x"],
                                                "engine": ENGINE} or not head[walk["root"]]:
                        bench.fail(f"lookup {req} in the walk of {walk}")
                    walk["asked"], walk["answered"] = True, False
                    # Up to three entries the walk may learn, along real paths: L an
                    # out-neighbour of the root, the tail an out-neighbour of L (length 2)
                    # or of one of L's (length 3); then done.
                    u = walk["root"]
                    neighbours = sorted(set(dst[offsets[u]:offsets[u + 1]]))
                    for second in r.sample(neighbours, min(len(neighbours), r.randint(1, 3))):
                        length, end = 2, second
                        if r.random() < 0.3 and offsets[second + 1] > offsets[second]:
                            length = 3
                            end = dst[r.randrange(offsets[second], offsets[second + 1])]
                        tail = dst[r.randrange(offsets[end], offsets[end + 1])] \
                            if offsets[end + 1] > offsets[end] else r.randrange(n)
                        entry = {"engine": ENGINE, "done": 0, "entry": next(next_entry),
                                 "second": second, "length": length, "tail": tail}
                        walk["entries"][entry["entry"]] = entry
                        answers.append(entry)
                    lent = r.randrange(3) if is_sum else 0
                    if is_sum:
                        # Shortcuts lent: the update now, the pseudo-edge into the buffer.
                        for _ in range(lent):
                            tail, z = r.randrange(n), bits(r.uniform(1e-3, 1e-2))
                            update(tail, z, ORIGIN_DDMU, 0)
                            pending.append({"tail": tail, "z": z, "engine": ENGINE})
                            walk["loans"].append({"dst": tail, "x": z, "pseudo": 1})
                    answers.append({"engine": ENGINE, "done": 1, "entry": lent, "second": 0,
                                    "length": 0, "tail": 0})
                if o_valid and readies["observe"]:
                    obs = to_py(o_pay)
                    if obs["entry"] not in walk["entries"] or obs["x"] != walk["x"]:
                        bench.fail(f"observation {obs} in the walk of {walk}")
                    entry = walk["entries"][obs["entry"]]
                    if entry["length"] == 2:
                        # y: the root's x along root → L (some such edge), then along L's
                        # first edge to the tail.
                        u, second, tail = walk["root"], entry["second"], entry["tail"]
                        w2 = next(weight[k] for k in range(offsets[second], offsets[second + 1])
                                  if dst[k] == tail)
                        ys = {edge_compute(edge_compute(walk["x"], weight[k], const[u]), w2,
                                           const[second])
                              for k in range(offsets[u], offsets[u + 1]) if dst[k] == second}
                        if obs["y"] not in ys:
                            bench.fail(f"observation {obs} of entry {entry}: y not in {ys}")
                    log["observations"] += 1
            if v_valid and readies["visit"]:
                v, is_root = int(v_pay.vertex), bool(v_pay.root)
                if not mine(v) or (not is_root and (stop[v] or not active[v])):
                    bench.fail(f"visit of vertex {v} (root={is_root}): in partition "
                               f"{mine(v)}, stop {stop[v]}, active {active[v]}")
                if is_root and hub and not walk["answered"]:
                    bench.fail(f"root {v} visited before the lookup of {walk} was answered")
                if is_root and walk["loans"]:
                    bench.fail(f"root {v} visited before the pseudo-edges of {walk} were sent")
                ok, x = fold(v, is_root)
                if is_root:
                    walk.update(root=v, x=x, entries={}, asked=False, answered=True)
                log["visits"] += 1
                # (The bank answers the offsets only when it keeps them.)
                visited.append({"worth": ok, "x": x, "const": const[v], "head": head[v],
                                "leaf": leaf[v],
                                "lo": offsets[v] if onchip else 0,
                                "hi": offsets[v + 1] if onchip else 0})
                if ok:
                    log["worth"] += 1
                    log["leaf_batches"] += leaf[v] and offsets[v + 1] > offsets[v]
                    big = leave_max and offsets[v + 1] - offsets[v] > leave_max
                    want_edges.extend({"dst": dst[k], "weight": weight[k], "x": x,
                                       "const": const[v], **({"leave": 0} if big else {})}
                                      for k in range(offsets[v], offsets[v + 1]))
            if p_valid and readies["probe"]:
                v = int(p_pay)
                if not mine(v):
                    bench.fail(f"probe of vertex {v}, outside the partition")
                probed.append({"walkable": active[v] and not stop[v]})
            if e_valid and readies["edges"]:
                task = to_py(e_pay)
                if task["pseudo"]:
                    log["pseudo"] += 1
                    want = walk["loans"].popleft() if walk["loans"] else None
                    if want is None or want_edges or not walk["answered"]:
                        bench.fail(f"pseudo-edge {task}: loans {want} and "
                                   f"{list(walk['loans'])}, {len(want_edges)} batch edges "
                                   f"still to send, lookup answered {walk['answered']}")
                else:
                    if not want_edges:
                        bench.fail(f"edge task {task} after every batch was sent")
                    want = want_edges.popleft()
                got = {k: task[k] for k in want}
                if got != want:
                    bench.fail(f"edge task {task}, the next one due is {want}")
                log["edges"] += 1
                in_flight.append((cycle + r.randint(1, 8) * (p > 0) + 1, task))
            # Updates applied when due, in order: the left pulse in the cycle of the ack,
            # drained the cycle after (the counter of depgraph.py).
            left = False
            while in_flight and in_flight[0][0] <= cycle:
                task = in_flight.pop(0)[1]
                left |= update(task["dst"], edge_compute(task["x"], task["weight"],
                                                         task["const"], task["pseudo"]),
                               ENGINE, task["leave"])
            ctx.set(dut.left, left)
            ctx.set(dut.drained, drained_before and not in_flight)
            # The other engine: a visit now and then, its batch applied at once.
            if other_queue and r.random() < 0.2:
                u = other_queue.popleft()
                ok, x = fold(u, True)
                if ok:
                    for k in range(offsets[u], offsets[u + 1]):
                        update(dst[k], edge_compute(x, weight[k], const[u]), OTHER, 0)
            done = (not busy and not pops and not other_queue and not in_flight and
                    not visited and not probed and not want_edges and
                    (not hub or not answers and not pending and walk["answered"] and
                     not walk["loans"]))
            quiet = quiet + 1 if done else 0
            if quiet >= 30:
                idle.append(cycle)
                return

    bench.add_process(environment)
    bench.until(lambda: bool(idle))
    bench.run(max_cycles=100_000)
    still = [v for v in range(n) if active[v]]
    if still:
        bench.fail(f"vertices {still} are still active at the end")
    if is_sum:
        got = np.array(s, dtype=np.uint32).view(np.float32).astype(np.float64)
        want = np.asarray(ref, dtype=np.float64)
        bad = np.flatnonzero(np.abs(got - want) > PAGERANK_ATOL + PAGERANK_RTOL * np.abs(want))
        if bad.size:
            bench.fail(f"vertex {bad[0]}: rank {got[bad[0]]}, golden {want[bad[0]]}")
    else:
        bench.check_equal(s, [int(v) for v in ref], "final states")
    if hub and is_sum and not log["pseudo"]:
        bench.fail("no pseudo-edge was lent: the test does not exercise them")
    if not log["leaf_batches"]:
        bench.fail("no batch of a leaf: its skipped wait is not exercised")
    if log["worth"] < 5:
        bench.fail(f"only {log['worth']} worth visits: the test walks too little")
