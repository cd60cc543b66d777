"""OpPicker (the vertex-store bank's pick) against a Python model of the pipeline behind it:
random ops of every kind (load, visit, update, dump) on few records arrive at the inputs'
queues (head, then main register, as the bank's inputs move them); each cycle the picker
must grant, round robin after the kind granted last, the first kind whose main register is
valid, whose answer queue has room, and (but for loads) whose record no visit or update in
the pipeline's stages writes and with no load in them. Picked ops enter stage A and move one stage a cycle.
``hazard_wait`` must be high exactly when nothing is granted while a visit or an update with
room waits on such a write."""

import random

import pytest
from amaranth.sim import Simulator

from hw.depgraph.op_picker import OpPicker
from hw.depgraph.record_update import OpKind
from tests.support.stream_drivers import rerun_command

KINDS = len(OpKind)
LOAD, VISIT, UPDATE = OpKind.LOAD, OpKind.VISIT, OpKind.UPDATE


@pytest.mark.parametrize("stages, seed", [(4, 1), (10, 2)])
def test_op_picker(stages, seed):
    dut = OpPicker(index_width=3, stages=stages)
    rng = random.Random(seed)
    grants = [0] * KINDS
    blocked_cycles = [0]       # a kind held up by a hazard or a load: the stimulus covers them

    async def bench(ctx):
        main = [None] * KINDS           # index of each kind's main register, or None
        head = [None] * KINDS
        pipeline = [None] * stages      # (kind, index) per stage, A first
        last = 0
        loads_left = 30                 # loads come first, then the rest
        for cycle in range(4000):
            for k in range(KINDS):
                arriving = loads_left > 0 if k == LOAD else loads_left == 0
                if head[k] is None and arriving and rng.random() < 0.6:
                    head[k] = rng.randrange(8)
                    if k == LOAD:
                        loads_left -= 1
                if main[k] is None and head[k] is not None and k == LOAD:
                    main[k], head[k] = head[k], None
            room = [rng.random() < 0.85 for _ in range(KINDS)]

            def blocked(k):
                if k == LOAD:
                    return False
                return any(op is not None and (op[0] == LOAD or (
                    op[0] in (VISIT, UPDATE) and op[1] == main[k])) for op in pipeline)
            ok = [main[k] is not None and room[k] and not blocked(k) for k in range(KINDS)]
            want = next(((last + 1 + i) % KINDS for i in range(KINDS)
                         if ok[(last + 1 + i) % KINDS]), None)
            blocked_cycles[0] += any(main[k] is not None and room[k] and blocked(k)
                                   for k in range(KINDS))
            move = [k != LOAD and head[k] is not None and (main[k] is None or k == want)
                    for k in range(KINDS)]
            for k in range(KINDS):
                ctx.set(dut.valid[k], main[k] is not None)
                ctx.set(dut.index[k], main[k] or 0)
                ctx.set(dut.head_index[k], head[k] or 0)
                ctx.set(dut.move[k], move[k])
                ctx.set(dut.room[k], room[k])
            for s, op in enumerate(pipeline):
                ctx.set(dut.stage_writes[s], op is not None and op[0] in (VISIT, UPDATE))
                ctx.set(dut.stage_index[s], op[1] if op else 0)
                ctx.set(dut.stage_loads[s], op is not None and op[0] == LOAD)
            grant = ctx.get(dut.grant)
            where = f"cycle {cycle}, seed {seed}\nrerun: {rerun_command()}"
            waits = want is None and any(
                main[k] is not None and room[k] and any(
                    op is not None and op[0] in (VISIT, UPDATE) and op[1] == main[k]
                    for op in pipeline) for k in (VISIT, UPDATE))
            assert ctx.get(dut.hazard_wait) == waits, f"hazard_wait; {where}"
            assert grant == (0 if want is None else 1 << want), \
                f"granted {grant:0{KINDS}b}, want kind {want} (ok {ok}); {where}"
            if want is not None:
                assert ctx.get(dut.pick_index) == main[want], where
                grants[want] += 1
            pipeline = [(want, main[want]) if want is not None else None] + pipeline[:-1]
            if want is not None:
                last = want
                main[want] = None
            for k in range(KINDS):
                if move[k]:
                    main[k], head[k] = head[k], None
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert all(grants) and blocked_cycles[0] > 100
