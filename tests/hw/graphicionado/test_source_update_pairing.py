# amaranth: UnusedElaboratable=no
"""Paired source updates (§IV.D with two update paths) against the rule of
``golden.graphicionado.execute_symmetric(paired_runs=True)``, written here flit by flit:
each edge's v packet passes; a source's u packets of consecutive edges are added in pairs
(float32, lane by lane), a lone one released by the next edge or by ``flush``; a self-loop
breaks a run. Runs of several lengths, self-loops and owners, with and without pauses."""

import numpy as np
import pytest

from hw.graphicionado.source_update_pairing import SourceUpdatePairing
from tests.hw.graphicionado.test_flit_process_edge import bits, random_properties
from tests.support.stream_drivers import PAUSES, Bench

LANES, FLITS, OWNER_BITS = 2, 2, 1


def edges_with_runs(rng, count):
    """(u, v, loop, x_v, x_u) per edge: runs of 1 to 6 edges of one source, some
    self-loops, x as float32 flits."""
    edges, u = [], 40
    while len(edges) < count:
        u += int(rng.integers(1, 4))
        for _ in range(int(rng.integers(1, 7))):
            loop = rng.random() < 0.12
            v = u if loop else int(rng.integers(0, u))
            x = random_properties(rng, 2, LANES * FLITS)
            edges.append((u, v, loop, x[0], x[1]))
    return edges[:count]


def flit_items(edges):
    """The edges as input pair flits (the two update packets of each)."""
    items = []
    for u, v, loop, x_v, x_u in edges:
        for f in range(FLITS):
            words = slice(f * LANES, (f + 1) * LANES)
            items.append({
                "v": {"dst": v, "flit": f, "value": bits(x_v[words]), "owner": v & 1},
                "u": {"dst": u, "flit": f, "value": bits(x_u[words]), "owner": u & 1},
                "v_valid": 1, "u_valid": int(not loop)})
    return items


def expected_flits(edges):
    """The rule, flit by flit: (v part or None, u part or None) per output flit."""
    out, held = [], None

    def packet(v_part, u_part):
        for f in range(FLITS):
            words = slice(f * LANES, (f + 1) * LANES)
            v_flit = None if v_part is None else (v_part[0], f, bits(v_part[1][words]))
            u_flit = None if u_part is None else (u_part[0], f, bits(u_part[1][words]))
            out.append((v_flit, u_flit))

    for u, v, loop, x_v, x_u in edges:
        if loop:
            released, held = held, None
        elif held is not None and held[0] == u:
            released, held = (u, np.add(held[1], x_u, dtype=np.float32)), None
        else:
            released, held = held, (u, x_u)
        packet((v, x_v), released)
    if held is not None:
        packet(None, held)
    return out


def as_flits(received):
    """The outputs compared as :func:`expected_flits` gives them."""
    out = []
    for item in received:
        v, u = item["v"], item["u"]
        v_flit = (v["dst"], v["flit"], v["value"]) if item["v_valid"] else None
        u_flit = (u["dst"], u["flit"], u["value"]) if item["u_valid"] else None
        if u_flit is not None:
            assert u["owner"] == u["dst"] & 1
        out.append((v_flit, u_flit))
    return out


@pytest.mark.parametrize("pause", PAUSES)
def test_source_updates_pair_as_the_golden_rule(pause):
    rng = np.random.default_rng(5)
    edges = edges_with_runs(rng, 36)
    items = flit_items(edges)
    want = expected_flits(edges)
    dut = SourceUpdatePairing(lanes=LANES, flits=FLITS, owner_bits=OWNER_BITS)
    bench = Bench(dut, "SourceUpdatePairing", pause=pause)
    bench.source("i", dut.i, items)
    bench.sink("o", dut.o, len(want))

    async def flush_at_end(ctx):
        while bench.sent.get("i", 0) < len(items):
            await ctx.tick()
        ctx.set(dut.flush, 1)

    bench.add_process(flush_at_end)
    bench.run()
    bench.check_equal(as_flits(bench.received["o"]), want)
    assert sum(u is not None for _, u in want) < sum(not e[2] for e in edges) * FLITS
