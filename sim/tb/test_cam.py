"""cocotb testbench of :class:`hw.lib.cam.AtomicUpdateCAM`.

A stream of destination ids, drawn from a small pool so that ids collide and sets fill up, is
offered on ``insert``; each accepted id stays "in flight" for a random number of cycles and
then leaves through ``remove``, as it would at write-back. Every cycle the outputs are checked
against a Python model of the held set:

* ``insert.ready`` is high exactly when the id is not held and its set had a free way, or the
  id is the one being removed this cycle, so no id is ever held twice and no update is
  stalled without cause;
* ``conflict``, ``set_full``, ``set_has_free``, ``probe_hit``, ``occupancy`` and ``remove_miss`` agree;
* at the end every offered update was accepted exactly once, in order, and all were removed.
"""

import collections
import random

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from sim.tb.common import config_from_env, pause_generator, start_clock_and_reset, test_options


class CAMModel:
    def __init__(self, sets: int, ways: int):
        self.sets, self.ways = sets, ways
        self.held = set()

    def set_of(self, vertex_id: int) -> int:
        return vertex_id % self.sets

    def set_count(self, set_index: int, held) -> int:
        return sum(1 for held_id in held if self.set_of(held_id) == set_index)


class CAMTB:
    """Owns the drivers of the CAM's ports and the model they are checked against."""

    def __init__(self, dut, seed: int, idle: float, removal_delay: tuple[int, int]):
        cfg = config_from_env()
        self.dut = dut
        self.entries, self.ways, self.id_width = cfg["entries"], cfg["ways"], cfg["id_width"]
        self.sets = self.entries // self.ways
        self.model = CAMModel(self.sets, self.ways)
        self.rng = random.Random(seed)
        self.insert_pause = pause_generator(self.rng, idle)
        self.removal_delay = removal_delay
        self.cycle = 0
        self.stats = collections.Counter()

    def id_pool(self, size: int) -> list[int]:
        # Few sets and few tags per set: conflicts and full sets are both frequent.
        hot_sets = self.rng.sample(range(self.sets), k=min(self.sets, 2))
        limit = (1 << self.id_width) - 1
        pool = set()
        while len(pool) < size:
            set_index = self.rng.choice(hot_sets) if self.rng.random() < 0.7 \
                else self.rng.randrange(self.sets)
            tag = self.rng.randrange(min(limit // self.sets + 1, self.ways * 3))
            pool.add((tag * self.sets + set_index) & limit)
        return sorted(pool)

    async def run(self, updates: list[int]):
        dut, model = self.dut, self.model
        pending = collections.deque(updates)
        accepted = []
        in_flight = []  # (due cycle, id)
        dut.insert__valid.value = 0
        dut.remove__valid.value = 0
        await start_clock_and_reset(dut)
        offered = None
        while pending or in_flight or offered is not None:
            await RisingEdge(dut.clk)
            self.cycle += 1
            if self.cycle > 200 * len(updates) + 1000:
                raise AssertionError(f"deadlock: {len(pending)} updates never accepted")
            # Hold an offered id until it is taken (stream rule), else maybe start a new one.
            if offered is None and pending and not next(self.insert_pause):
                offered = pending.popleft()
            dut.insert__valid.value = offered is not None
            dut.insert__payload.value = offered if offered is not None else 0
            due = [entry for entry in in_flight if entry[0] <= self.cycle]
            removing = min(due)[1] if due else None
            dut.remove__valid.value = removing is not None
            dut.remove__payload.value = removing if removing is not None else 0
            probe = self.rng.choice(list(model.held) + [self.rng.randrange(1 << self.id_width)])
            dut.probe_id.value = probe

            await ReadOnly()
            self.check_cycle(offered, removing, probe)
            if removing is not None:
                in_flight.remove(min(due))
                model.held.discard(removing)
                self.stats["removed"] += 1
            if offered is not None and int(dut.insert__ready.value):
                model.held.add(offered)
                accepted.append(offered)
                low, high = self.removal_delay
                in_flight.append((self.cycle + self.rng.randint(low, high), offered))
                offered = None
        await RisingEdge(dut.clk)
        await ReadOnly()
        assert int(dut.occupancy.value) == 0, "ids left in the CAM after every removal"
        assert accepted == updates, "an update was lost, duplicated or reordered"
        return accepted

    def check_cycle(self, offered, removing, probe):
        dut, model = self.dut, self.model
        where = f"cycle {self.cycle}"
        held = model.held
        assert int(dut.occupancy.value) == len(held), \
            f"{where}: occupancy {int(dut.occupancy.value)}, model holds {len(held)}"
        assert int(dut.probe_hit.value) == (probe in held), \
            f"{where}: probe of {probe} gave {int(dut.probe_hit.value)}"
        assert int(dut.remove__ready.value) == 1, f"{where}: remove not ready"
        assert int(dut.remove_miss.value) == (removing is not None and removing not in held), \
            f"{where}: remove_miss wrong for {removing}"
        if offered is None:
            assert not int(dut.conflict.value) and not int(dut.set_full.value), \
                f"{where}: stall flagged with nothing offered"
            return
        hit = offered in held
        has_free = model.set_count(model.set_of(offered), held) < self.ways
        assert int(dut.set_has_free.value) == has_free, f"{where}: set_has_free wrong"
        rejoin = hit and removing == offered
        conflict = hit and not rejoin
        full = not hit and model.set_count(model.set_of(offered), held) >= self.ways
        ready = int(dut.insert__ready.value)
        assert ready == (rejoin or (not hit and not full)), \
            f"{where}: insert of {offered} ready={ready}, model conflict={conflict} full={full}"
        assert int(dut.conflict.value) == conflict, f"{where}: conflict flag wrong"
        assert int(dut.set_full.value) == full, f"{where}: set_full flag wrong"
        self.stats["conflict"] += conflict
        self.stats["set_full"] += full


def _options():
    options = {"updates": 3000, "seed": 1}
    options.update(test_options())
    return options


@cocotb.test()
@cocotb.parametrize(idle=[0.0, 0.3], removal=["short", "jittered"])
async def random_updates(dut, idle, removal):
    """Random id streams with and without idle cycles and with removal latency jitter."""
    options = _options()
    delay = (1, 3) if removal == "short" else (1, 40)
    tb = CAMTB(dut, seed=options["seed"] + int(idle * 10) + len(removal), idle=idle,
               removal_delay=delay)
    pool = tb.id_pool(size=tb.entries * 3)
    updates = [tb.rng.choice(pool) for _ in range(options["updates"])]
    await tb.run(updates)
    dut._log.info("%d cycles, %d updates, stalls: %d conflict, %d set full",
                  tb.cycle, len(updates), tb.stats["conflict"], tb.stats["set_full"])
    assert tb.stats["conflict"] > 0, "the id stream never produced a conflict"
    if removal == "jittered":
        assert tb.stats["set_full"] > 0, "the id stream never filled a set"


@cocotb.test()
async def back_to_back_same_id(dut):
    """An id removed in the same cycle it is offered again is taken without a stall."""
    tb = CAMTB(dut, seed=7, idle=0.0, removal_delay=(1, 1))
    updates = [5 % (1 << tb.id_width)] * 50
    await tb.run(updates)
    # Each update is held one cycle, then removed while the next is offered.
    assert tb.cycle <= len(updates) + 8, f"took {tb.cycle} cycles for {len(updates)} updates"
