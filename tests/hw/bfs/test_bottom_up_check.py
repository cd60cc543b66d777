"""The bottom-up check with the hub cache in Amaranth's simulator against a loop-by-loop
reading of one bottom-up level (golden/bfs/traversal.py): each vertex's parent, the
survivors, and exactly the edges checked, hub-cache hits and status reads."""

import random

import numpy as np
import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring

from hw.bfs.bottom_up_check import BottomUpCheck, CheckItem
from hw.bfs.hub_cache import HubCache
from hw.bfs.layouts import UNVISITED
from sim.amaranth_memory import words_to_lines
from tests.support.stream_drivers import PAUSES, Bench, serve_memory

EDGES_BASE, LEVELS_BASE, LEVEL = 10, 400, 3


class CheckWithCache(wiring.Component):
    def __init__(self, slots, entries):
        self.check = BottomUpCheck(addr_width=16, slots=slots, outstanding=8)
        self.cache = HubCache(entries=entries, ctx_width=CheckItem.size)
        members = {name: wiring.In(getattr(self.check, name).signature.flip())
                   if name == "entries" else wiring.Out(getattr(self.check, name).signature)
                   for name in ("entries", "discoveries", "survivors", "edges_mem",
                                "status_mem")}
        members.update({"level": wiring.In(32), "insert": wiring.In(
            self.cache.insert.signature.flip()), "clear": wiring.In(1),
            "edges_checked": wiring.Out(32), "cache_hits": wiring.Out(32),
            "status_reads": wiring.Out(32), "busy": wiring.Out(1)})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.check, m.submodules.cache = check, cache = self.check, self.cache
        wiring.connect(m, check.cache_lookup, cache.lookup)
        wiring.connect(m, cache.answer, check.cache_answer)
        wiring.connect(m, wiring.flipped(self.entries), check.entries)
        wiring.connect(m, wiring.flipped(self.insert), cache.insert)
        for name in ("discoveries", "survivors", "edges_mem", "status_mem"):
            wiring.connect(m, getattr(check, name), wiring.flipped(getattr(self, name)))
        m.d.comb += [check.level.eq(self.level), cache.level.eq(self.level),
                     cache.clear.eq(self.clear), check.edges_base.eq(EDGES_BASE),
                     check.levels_base.eq(LEVELS_BASE)]
        m.d.comb += [getattr(self, n).eq(getattr(check, n))
                     for n in ("edges_checked", "cache_hits", "status_reads", "busy")]
        return m


def level_model(in_lists, levels, queue, cached):
    """One bottom-up level, one neighbour at a time."""
    found, survivors, checked, hits, reads = {}, [], 0, 0, 0
    for v in queue:
        for u in in_lists[v]:
            checked += 1
            if u in cached:
                hits += 1
                found[v] = u
                break
            reads += 1
            if levels[u] == LEVEL - 1:
                found[v] = u
                break
        else:
            survivors.append(v)
    return found, survivors, checked, hits, reads


@pytest.mark.parametrize("entries", [0, 8])
@pytest.mark.parametrize("pause", PAUSES)
def test_one_bottom_up_level(entries, pause):
    rng = random.Random(f"bu/{entries}/{pause}")
    n = 90
    in_lists = [sorted(rng.sample(range(n), rng.choice([0, 1, 2, 5, 17, 40]))) for _ in range(n)]
    levels = np.array([rng.choice([UNVISITED, UNVISITED, LEVEL - 1, LEVEL - 2])
                       for _ in range(n)], dtype=np.uint32)
    queue = [v for v in range(n) if levels[v] == UNVISITED]
    offsets = np.concatenate([[0], np.cumsum([len(x) for x in in_lists])])
    edges = np.array([u for x in in_lists for u in x], dtype=np.uint32)
    hubs = [v for v in range(n) if levels[v] == LEVEL - 1 and rng.random() < 0.5]
    table = {}
    for v in hubs:
        table[v % 8] = max(table.get(v % 8, -1), v)
    cached = set(table.values()) if entries else set()
    found, survivors, checked, hits, reads = level_model(in_lists, levels, queue, cached)

    dut = CheckWithCache(slots=6, entries=entries)
    bench = Bench(dut, "BottomUpCheck", pause=pause)
    lines = words_to_lines(edges, EDGES_BASE)
    lines.update(words_to_lines(levels, LEVELS_BASE))
    serve_memory(bench, "edges", dut.edges_mem, lines, pause)
    serve_memory(bench, "status", dut.status_mem, lines, pause)
    insert_queue = bench.feed("insert", dut.insert)
    entry_queue = bench.feed("entries", dut.entries)
    counters = {}

    async def driver(ctx):
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        await ctx.tick().repeat(10)
        ctx.set(dut.level, LEVEL - 1)
        insert_queue.extend(hubs)
        while insert_queue:
            await ctx.tick()
        await ctx.tick().repeat(3)
        ctx.set(dut.level, LEVEL)
        entry_queue.extend({"entry": {"vertex": v, "first": int(offsets[v]),
                                      "count": len(in_lists[v]), "spare": 0},
                            "cls": v % 4, "lane": v % 3} for v in queue)
        while entry_queue or len(bench.received["discoveries"]) < len(found) or \
                len(bench.received["survivors"]) < len(survivors):
            await ctx.tick()
        await ctx.tick().repeat(5)
        counters.update({n: ctx.get(getattr(dut, n))
                         for n in ("edges_checked", "cache_hits", "status_reads", "busy")})

    bench.add_process(driver)
    bench.sink("discoveries", dut.discoveries, len(found))
    bench.sink("survivors", dut.survivors, len(survivors))
    bench.until(lambda: bool(counters))
    bench.run()
    got = {d["vertex"]: d["parent"] for d in bench.received["discoveries"]}
    assert got == found
    left = bench.received["survivors"]
    assert sorted(s["entry"]["vertex"] for s in left) == sorted(survivors)
    assert all(s["cls"] == s["entry"]["vertex"] % 4 and s["lane"] == s["entry"]["vertex"] % 3
               for s in left)
    assert counters == {"edges_checked": checked, "cache_hits": hits, "status_reads": reads,
                        "busy": 0}       # every search ended, its slot given back
