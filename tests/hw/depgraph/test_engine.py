"""DepGraph engines in Amaranth's simulator, one or two, against the golden model's final
states (``golden.depgraph.run_depgraph``, hub index off): exact for BFS, SSSP, CC, widest
paths (a max Accum) and a program written in this file, within ``sim.depgraph.run``'s
tolerance for PageRank.

The engines' surroundings are played by the test as ``depgraph.py`` describes them: the
records of each partition are loaded (``load``), the HDTLs are enabled once every bank is
idle, the updates each engine sends are routed in Python to the engine owning their vertex
(``incoming``), ``drained`` is "every edge this walk sent has been acked by some bank" and
``left`` "a bank acked an update of this engine that left a vertex for its walk" (the small
wrapper below, as in ``depgraph.py``); the run is over when every engine is idle and
drained and no update is on its way for two cycles in a row (the top's quiet check), after
which nothing may move for 200 cycles; then the states are read back through ``dump``.
Offsets, edges and queue memories answer after a jittering latency and stall their request
channels; every stream is paused at random. Edges are laid out as ``DepGraphConfig`` says
(the destination alone for a program that reads no weight), and once as two words for BFS
(``edge_format`` weighted)."""

import bisect

import numpy as np
import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring

import golden
from golden.depgraph import get_algorithm, run_depgraph
from hw.depgraph.config import DepGraphConfig
from hw.depgraph.top import track_walks
from hw.depgraph.engine import Engine
from hw.depgraph.program import stored
from sim.amaranth_memory import LineMemoryModel
from sim.depgraph.image import build_depgraph_image
from sim.depgraph.run import PAGERANK_ATOL, PAGERANK_RTOL
from tests.support.stream_drivers import PAUSES, Bench
from tests.support.examples import spec_of


class Engines(wiring.Component):
    """``engines`` engines with their drained/left bookkeeping (as ``depgraph.py``)."""

    def __init__(self, config):
        self.engines = [Engine(config, e) for e in range(config.engines)]
        super().__init__({})

    def elaborate(self, platform):
        m = Module()
        for e, engine in enumerate(self.engines):
            m.submodules[f"engine{e}"] = engine
        track_walks(m, self.engines, len(self.engines[0].drained))
        return m


class WalkOrder:
    """The walk rules one HDTL's visits must follow, whatever the other walks do: a root
    visit starts a walk; any other visit is of the destination of an edge of a vertex on the
    walk's path (the deepest that has one), at an offset beyond that entry's last descent,
    which pops the entries above it; a worth visit below the stack depth may become an entry
    (whether it was pushed, which depends on what its batch left, is not seen here)."""

    def __init__(self, graph, depth, name):
        self.offsets, self.dst = graph.offsets, graph.dst
        self.depth, self.name = depth, name
        self.path = []          # [vertex, next offset] per entry
        self.pending = None     # (vertex, depth) of the visit awaiting its fold
        self.descents = 0

    def visit(self, vertex, root):
        if root:
            self.path, self.pending = [], (vertex, 1)
            return None
        for i in reversed(range(len(self.path))):
            u, nxt = self.path[i]
            hits = np.flatnonzero(self.dst[nxt:self.offsets[u + 1]] == vertex)
            if hits.size:
                del self.path[i + 1:]
                self.path[i][1] = nxt + int(hits[0]) + 1
                self.pending = (vertex, i + 2)
                self.descents += 1
                return None if i + 2 <= self.depth else \
                    f"{self.name}: visit of {vertex} at depth {i + 2} > {self.depth}"
        return f"{self.name}: visit of {vertex} is no out-neighbour ahead on the path " \
               f"{[(u, n) for u, n in self.path]}"

    def folded(self, worth):
        vertex, depth = self.pending
        if worth and depth < self.depth:
            self.path = self.path[:depth - 1] + [[vertex, int(self.offsets[vertex])]]


def watch_walk_order(bench, hdtl, model):
    async def process(ctx):
        signals = (hdtl.visit.valid, hdtl.visit.ready, hdtl.visit.payload.vertex,
                   hdtl.visit.payload.root, hdtl.visited.valid, hdtl.visited.ready,
                   hdtl.visited.payload.worth)
        async for _, _, vv, vr, vertex, root, dv, dr, worth in ctx.tick().sample(*signals):
            if dv and dr:
                model.folded(worth)
            if vv and vr:
                error = model.visit(vertex, root)
                if error:
                    bench.fail(error)
    bench.add_process(process)


def count_waits(bench, engine, tally):
    """The engine's occupancy counters, counted here from its HDTLs' ``pop.ready`` and the
    levels of its queue and root buffer while it is enabled (``start`` clears them)."""
    async def process(ctx):
        signals = [engine.start, engine.enable, engine.queue.level,
                   engine.root_buffer.level] + [h.pop.ready for h in engine.hdtls]
        async for _, _, start, enable, level, buffered, *ready in ctx.tick().sample(*signals):
            if start:
                tally.update(walk_idle_cycles=0, queue_empty_cycles=0)
            elif enable:
                tally["walk_idle_cycles"] += sum(ready)
                tally["queue_empty_cycles"] += level == 0 and buffered == 0
    bench.add_process(process)


def serve(model, port):
    async def process(ctx):
        await model.serve(ctx, port)
    return process


def lines_of(dram):
    table = dram.to_lines()
    return {a: int.from_bytes(table[a].astype("<u4").tobytes(), "little")
            for a in range(len(table))}


# (algo, engines, stack depth, walks per engine, offsets on chip, edge format: csr, the
# destination alone for a program that reads no weight; weighted, always (dst, weight))
CASES = [("bfs", 1, 3, 1, False, "csr"), ("sssp", 2, 2, 2, True, "csr"),
         ("cc", 2, 4, 1, True, "csr"), ("pagerank", 1, 3, 4, True, "csr"),
         ("bfs", 1, 4, 4, False, "weighted"), ("widest", 1, 3, 1, False, "csr"),
         ("widest", 2, 3, 2, True, "csr")]


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("algo, engines, depth, walks, onchip, edge_format", CASES,
                         ids=[f"{a}-e{e}-d{d}-w{w}{'-onchip' if o else ''}-{f}"
                              for a, e, d, w, o, f in CASES])
def test_engines_reach_the_golden_fixpoint(algo, engines, depth, walks, onchip, edge_format,
                                           pause):
    check_engines(algo, engines, depth, walks, onchip, pause, edge_format)


HOP_COSTS = '''
from graphgen.programs import UInt, VertexProgram, minimum, sat_add, select, uint


class HopCosts(VertexProgram):
    """Shortest paths where an edge costs twice its weight plus three."""
    prop = UInt(32)
    reduce = "min"

    def init(self, h):
        return select(h.is_root, uint(0), uint(2**32 - 1))

    def process_edge(self, e):
        return sat_add(sat_add(e.src_prop, e.weight), sat_add(e.weight, 3))

    def apply(self, v):
        return minimum(v.vprop, v.temp)
'''


@pytest.mark.parametrize("engines", [1, 2])
def test_a_program_written_here(tmp_path, engines):
    """A program new to everything, from its file, through the engines (hub index off)."""
    path = tmp_path / "hop_costs.py"
    path.write_text(HOP_COSTS)
    check_engines(f"{path}:HopCosts", engines, 3, engines, engines == 2, None)


def check_engines(algo, engines, depth, walks, onchip, pause, edge_format="csr"):
    # PageRank runs to a tolerance, and its FP32 adds take the Python simulator a while: a
    # smaller graph and a coarser tolerance for a sum Accum.
    algo = spec_of(algo)
    gas = get_algorithm(algo)
    scale, tolerance = (3, 1e-4) if gas.accum == "sum" else (5, 1e-6)
    graph = golden.from_spec(f"kron:scale={scale},ef=3,seed=4,weights=1:20")
    root = int(np.argmax(graph.out_degree)) if gas.needs_root else None
    ref = run_depgraph(algo, graph, root=root, engines=engines, stack_depth=depth,
                       hub_index=False, tolerance=tolerance)
    g = graph.symmetrized() if gas.undirected else graph
    config = DepGraphConfig(algo=algo, engines=engines, stack_depth=depth, walks=walks,
                            hub_index=False, bank_vertices=32, edge_fifo_depth=4,
                            addr_width=16, offsets_on_chip=onchip, edge_format=edge_format)
    image = build_depgraph_image(g, algo=algo, config=config, bounds=ref.bounds,
                                 stop=ref.stop, root=root, tolerance=tolerance)
    regs, n = image.registers, image.num_vertices
    lines = lines_of(image.dram)
    words = image.dram.to_lines().reshape(-1)
    arrays = {name: words[16 * regs[f"{name}_base"]:][:n]
              for name in ("state", "delta", "const")}
    stop_words = words[16 * regs["stop_base"]:]
    bounds = [int(b) for b in ref.bounds]

    top = Engines(config)
    bench = Bench(top, f"DepGraph engines ({algo}, {engines} engines, depth {depth}, "
                       f"{walks} walks, {config.edge_words}-word edges)",
                  pause=pause, p_pause=0.25)
    orders = []
    for e, engine in enumerate(top.engines):
        for k, hdtl in enumerate(engine.hdtls):
            orders.append(WalkOrder(g, depth, f"engine {e} walk {k}"))
            watch_walk_order(bench, hdtl, orders[-1])
    incoming, loads, dumps = [], [], []
    tallies = [{"walk_idle_cycles": 0, "queue_empty_cycles": 0} for _ in top.engines]
    for e, engine in enumerate(top.engines):
        count_waits(bench, engine, tallies[e])
        for port in (f"{name}_mem" for name in engine.memory_ports):
            model = LineMemoryModel(lines, latency=4 if pause is None else 8,
                                    jitter=0 if pause is None else 6,
                                    stall_probability=0 if pause is None else 0.25,
                                    seed=f"{pause}/{e}/{port}")
            mem = getattr(engine, port)
            bench.watch(f"engine{e}.{port}.req", mem.req, progress=False)
            bench.watch(f"engine{e}.{port}.resp", mem.resp, progress=False)
            bench.add_process(serve(model, mem))
        incoming.append(bench.feed(f"engine{e}.incoming", engine.incoming))
        loads.append(bench.feed(f"engine{e}.load", engine.load))
        dumps.append(bench.feed(f"engine{e}.dump", engine.dump))
        bench.sink(f"engine{e}.dumped", engine.dumped)
    for e, engine in enumerate(top.engines):
        def route(update):
            owner = bisect.bisect_right(bounds, update["vertex"]) - 1
            incoming[owner].append(update)
        bench.sink(f"engine{e}.updates", engine.updates, on_item=route)
    states = {}

    async def control(ctx):
        for e, engine in enumerate(top.engines):
            for name in [f"{port}_base" for port in engine.memory_ports] + ["tolerance"]:
                ctx.set(getattr(engine, name), regs[name])
            ctx.set(engine.first, bounds[e])
            ctx.set(engine.last, bounds[e + 1])
            ctx.set(engine.start, 1)
        await ctx.tick()
        for engine in top.engines:
            ctx.set(engine.start, 0)
        for v in range(n):
            e = bisect.bisect_right(bounds, v) - 1
            bits = int(stop_words[v // 8]) >> (4 * (v % 8))
            loads[e].append({"vertex": v, "state": int(arrays["state"][v]),
                             "delta": int(arrays["delta"][v]),
                             "const": int(arrays["const"][v]),
                             "stop": bits & 1, "head": bits >> 1 & 1, "leaf": bits >> 2 & 1,
                             "lo": int(g.offsets[v]), "hi": int(g.offsets[v + 1])})
        idle = 0
        while idle < 2:
            await ctx.tick()
            done = not any(loads) and not any(ctx.get(e.store_busy) for e in top.engines)
            idle = idle + 1 if done else 0
        for engine in top.engines:
            ctx.set(engine.enable, 1)
        quiet = 0
        while quiet < 2:
            await ctx.tick()
            now = (not any(incoming) and
                   not any(ctx.get(e.busy) for e in top.engines) and
                   all(ctx.get(e.drained) == (1 << walks) - 1 for e in top.engines))
            quiet = quiet + 1 if now else 0
        moved = dict(bench.sent), {k: len(v) for k, v in bench.received.items()}
        await ctx.tick().repeat(200)
        if moved != (dict(bench.sent), {k: len(v) for k, v in bench.received.items()}):
            bench.fail("the engines moved again after the quiet check")
        for engine in top.engines:
            ctx.set(engine.enable, 0)
        for v in range(n):
            dumps[bisect.bisect_right(bounds, v) - 1].append(v)
        while any(len(bench.received[f"engine{e}.dumped"]) < bounds[e + 1] - bounds[e]
                  for e in range(engines)):
            await ctx.tick()
        states["rtl"] = [s for e in range(engines) for s in bench.received[f"engine{e}.dumped"]]
        states["counters"] = [{name: ctx.get(getattr(engine, name)) for name in tally}
                              for engine, tally in zip(top.engines, tallies)]

    bench.add_process(control)
    bench.until(lambda: "rtl" in states)
    bench.run(max_cycles=60_000)
    assert sum(order.descents for order in orders) > 0
    bench.check_equal(states["counters"], tallies, "walk_idle_cycles, queue_empty_cycles")
    assert all(t["walk_idle_cycles"] > 0 for t in tallies)
    got = np.array(states["rtl"], dtype=np.uint32)
    if gas.accum == "sum":
        want = np.asarray(ref.states, dtype=np.float64)
        got = got.view(np.float32).astype(np.float64)
        bad = np.flatnonzero(np.abs(got - want) > PAGERANK_ATOL + PAGERANK_RTOL * np.abs(want))
        if bad.size:
            bench.fail(f"vertex {bad[0]}: {got[bad[0]]} against golden {want[bad[0]]} "
                       f"({bad.size} vertices off)")
    else:
        bench.check_equal(stored(gas.form, got).tolist(),
                          np.asarray(ref.states, dtype=np.uint32).tolist(), "final states")
