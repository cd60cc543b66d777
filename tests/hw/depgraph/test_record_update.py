"""RecordUpdate (the vertex store's compute stage) against the rules written out in Python:
every combination of op kind, flags, worth tests, leave, root and origin (own engine, own
engine's other walk, another engine, the DDMU), with random values."""

import itertools
import random

from amaranth.sim import Simulator

from hw.depgraph.layouts import ORIGIN_DDMU
from hw.depgraph.record_update import RecordUpdate

ENGINE, WALK_BITS, IDENTITY = 2, 2, 0xFFFF_FFFF


def rules(op):
    """What the op writes and reports (golden.depgraph.engine's rules for one record)."""
    kind = op["kind"]
    active, queued, stop, head, leaf = ((op["flags"] >> b) & 1 for b in range(5))
    own = op["origin"] >> WALK_BITS == ENGINE
    out = {"left": 0, "overflows": 0}
    if kind == "load":
        w = op["load_worth"]
        out.update(worth=w, flags=w | w << 1 | op["load_stop"] << 2 | op["load_head"] << 3 |
                   op["load_leaf"] << 4,
                   state_en=1, state=op["load_state"], delta_en=1, delta=op["load_delta"],
                   pushes=w, activates=w)
    elif kind == "visit":
        w = op["visit_worth"]
        out.update(worth=w, flags=(queued and not op["root"]) << 1 | stop << 2 | head << 3 |
                   leaf << 4,
                   state_en=w, delta_en=w, pushes=0, activates=0)
        if w:
            out.update(state=op["new_state"], delta=IDENTITY)
    elif kind == "update":
        w = op["update_worth"]
        newly = w and not active
        left = op["leave"] and own and not stop
        push = newly and not left and not queued
        out.update(worth=w, flags=(active or newly) | (queued or push) << 1 | stop << 2 |
                   head << 3 | leaf << 4, state_en=0, delta_en=1, delta=op["new_delta"],
                   pushes=int(push), activates=int(newly), left=int(newly and left),
                   overflows=int(newly and own and not stop and not op["leave"]))
    else:                       # dump: nothing written
        out.update(worth=0, state_en=0, delta_en=0, pushes=0, activates=0)
    out["flags_en"] = int(kind in ("load", "visit", "update"))
    return out


def test_record_update_follows_the_rules():
    dut = RecordUpdate(engine=ENGINE, walk_bits=WALK_BITS, identity=IDENTITY)
    rng = random.Random(5)
    kinds = ("load", "visit", "update", "dump")
    origins = (ENGINE << WALK_BITS, ENGINE << WALK_BITS | 3, (ENGINE + 1) << WALK_BITS,
               ORIGIN_DDMU)
    cases = []
    for kind, flags, bits, origin in itertools.product(kinds, range(32), range(16), origins):
        cases.append({
            "kind": kind, "flags": flags, "origin": origin,
            "leave": bits & 1, "root": bits >> 1 & 1,
            "visit_worth": bits >> 2 & 1, "update_worth": bits >> 3 & 1,
            "load_worth": rng.randrange(2), "load_stop": rng.randrange(2),
            "load_head": rng.randrange(2), "load_leaf": rng.randrange(2),
            **{name: rng.randrange(1 << 32) for name in ("load_state", "load_delta",
                                                          "new_state", "new_delta")},
        })

    async def bench(ctx):
        for case in cases:
            ctx.set(dut.op, {**case, "kind": 1 << kinds.index(case["kind"])})
            want = rules(case)
            # (values not written are not compared: the rules leave them open)
            got = {name: ctx.get(getattr(dut.write, name)) for name in want}
            assert got == want, case

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    assert len(cases) == len(kinds) * 32 * 16 * 4
