# amaranth: UnusedElaboratable=no
"""The update scheduler in front of a DepGraph vertex-store bank (``hw/depgraph/
update_scheduler.py``), in Amaranth's simulator: cycle for cycle against a Python model of
its rule, with and without idle inputs and back-pressure, and the properties the bank relies
on (every update out once, one record's updates in order, ``spacing`` cycles apart)."""

import random

import pytest
from amaranth.sim import Simulator

from hw.lib.config import ConfigError
from hw.depgraph.update_scheduler import UpdateScheduler


INDEX_WIDTH = 6


class Model:
    """The scheduler's rule one cycle at a time: the oldest update of the window whose record
    was not sent in the last ``spacing - 1`` cycles and has no older update of its record in
    the window goes into the output register, if that is free."""

    def __init__(self, window, spacing):
        self.window, self.spacing = window, spacing
        self.entries = []             # [update, cycle it may go from], oldest first
        self.last_sent = {}           # record -> cycle sent
        self.out = None

    def key(self, update):
        return update["vertex"] & ((1 << INDEX_WIDTH) - 1)

    def cycle(self, now, offered, ready):
        """One clock edge; returns (update taken in, update handed out)."""
        handed = self.out if self.out is not None and ready else None
        out_free = self.out is None or ready
        taken = offered if offered is not None and len(self.entries) < self.window else None
        picked = None
        if out_free:
            seen = set()
            for position, (update, ready_at) in enumerate(self.entries):
                k = self.key(update)
                recent = k in self.last_sent and now - self.last_sent[k] < self.spacing
                if ready_at <= now and k not in seen and not recent:
                    picked = self.entries.pop(position)[0]
                    self.last_sent[self.key(picked)] = now
                    break
                seen.add(k)
            self.out = picked
        if taken is not None:
            self.entries.append([taken, now + 1])
        return taken, handed


def _updates(count, records, rng):
    return [{"vertex": rng.randrange(records) + (rng.randrange(4) << INDEX_WIDTH),
             "value": rng.getrandbits(32), "origin": rng.randrange(256),
             "leave": rng.randrange(2)} for _ in range(count)]


def _run(updates, *, window, spacing, idle, backpressure, seed):
    dut = UpdateScheduler(window=window, spacing=spacing, index_width=INDEX_WIDTH)
    model = Model(window, spacing)
    rng = random.Random(seed)
    out = []
    appeared = []                      # the cycle each output first showed
    passed = []

    async def testbench(ctx):
        pending = list(updates)
        now = 0
        shown = False
        while len(out) < len(updates):
            assert now < 40 * len(updates) + 200, "the scheduler stopped sending"
            offer = pending[0] if pending and rng.random() >= idle else None
            ready = rng.random() >= backpressure
            ctx.set(dut.i.valid, offer is not None)
            if offer is not None:
                ctx.set(dut.i.payload, offer)
            ctx.set(dut.o.ready, ready)
            in_ready = ctx.get(dut.i.ready)
            valid = ctx.get(dut.o.valid)
            if valid and not shown:
                appeared.append(now)
                shown = True
            taken, handed = model.cycle(now, offer, ready)
            assert (taken is not None) == bool(offer is not None and in_ready), now
            assert (handed is not None) == bool(valid and ready), now
            if handed is not None:
                got = ctx.get(dut.o.payload)
                got = {name: int(getattr(got, name)) for name in handed}
                assert got == handed, f"cycle {now}: out {got}, model {handed}"
                out.append(got)
                shown = False
            if taken is not None:
                pending.pop(0)
            await ctx.tick()
            now += 1
        assert not ctx.get(dut.busy)
        passed.append(ctx.get(dut.passed))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    return out, appeared, passed[0]


@pytest.mark.parametrize("idle,backpressure", [(0, 0), (0.3, 0), (0, 0.4), (0.3, 0.4)],
                         ids=["flat", "idle", "backpressure", "both"])
@pytest.mark.parametrize("window,spacing", [(4, 11), (4, 5), (2, 3), (8, 1)])
def test_scheduler_against_model(window, spacing, idle, backpressure):
    rng = random.Random(window * 100 + spacing)
    # Hot records: a few take most of the updates, as a power-law graph's hubs do.
    updates = [u if rng.random() < 0.5 else dict(u, vertex=u["vertex"] % 3)
               for u in _updates(400, 40, rng)]
    out, appeared, passed = _run(updates, window=window, spacing=spacing, idle=idle,
                                 backpressure=backpressure, seed=window + spacing)
    key = lambda u: u["vertex"] % (1 << INDEX_WIDTH)
    assert sorted(map(repr, out)) == sorted(map(repr, updates))
    for record in {key(u) for u in updates}:
        assert [u for u in out if key(u) == record] == [u for u in updates if key(u) == record]
    last = {}
    for update, cycle in zip(out, appeared):
        if key(update) in last:
            assert cycle - last[key(update)] >= spacing, (update, cycle, last[key(update)])
        last[key(update)] = cycle
    if spacing > 1:
        assert passed > 0


def test_scheduler_fills_the_gaps_of_a_hot_record():
    """One hot record every other update: with the window, a send every cycle but for the
    hot record's spacing; the same stream one record at a time would wait 10 of 11 cycles."""
    rng = random.Random(3)
    updates = []
    for n, update in enumerate(_updates(200, 60, rng)):
        updates.append(dict(update, vertex=61 if n % 11 == 0 else 1 + n % 60))
    out, appeared, passed = _run(updates, window=4, spacing=11, idle=0, backpressure=0,
                                 seed=1)
    assert appeared[-1] - appeared[0] == len(updates) - 1


def test_scheduler_refuses_bad_parameters():
    with pytest.raises(ConfigError, match="window"):
        UpdateScheduler(window=1, spacing=5, index_width=8)
    with pytest.raises(ConfigError, match="spacing"):
        UpdateScheduler(window=4, spacing=0, index_width=8)
