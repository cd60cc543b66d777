"""DepGraph's run control (``hw/depgraph/run_control.py``) against a cycle model, under random
``loader_done``, ``store_idle``, ``quiet`` and ``written`` and random starts, several runs
after one reset: ``busy``, ``done``, ``enable``, ``write_start`` and the cycle counts every
cycle."""

import random

import pytest
from amaranth.sim import Simulator

from hw.depgraph.run_control import RunControl


class Model:
    """The phases as the module docstring states them, one call a cycle."""

    def __init__(self):
        self.state = "IDLE"
        self.done = self.enable = self.settled = 0
        self.quiet = self.quiet_before = self.loaded = self.loaded_before = 0
        self.counts = dict.fromkeys(("cycles", "load_cycles", "run_cycles", "write_cycles"), 0)

    def outputs(self, start):
        busy = int(bool(start) or self.state != "IDLE")
        write_start = int(self.state == "RUN" and self.quiet and self.quiet_before
                          and self.settled)
        return {"busy": busy, "done": self.done, "enable": self.enable,
                "write_start": write_start, **self.counts}

    def step(self, start, loader_done, store_idle, quiet, written):
        out = self.outputs(start)
        c = dict(self.counts)
        state, settled = self.state, self.settled
        if self.state == "IDLE":
            if start:
                self.done = self.enable = settled = 0
                c.update(load_cycles=0, run_cycles=0, write_cycles=0)
                state = "LOAD"
        elif self.state == "LOAD":
            c["load_cycles"] += 1
            if loader_done and self.loaded and self.loaded_before:
                self.enable, state = 1, "RUN"
        elif self.state == "RUN":
            c["run_cycles"] += 1
            if self.counts["run_cycles"] == 4:
                settled = 1
            if out["write_start"]:
                self.enable, state = 0, "WRITE"
        elif self.state == "WRITE":
            c["write_cycles"] += 1
            if written:
                self.done, state = 1, "IDLE"
        if start and self.state == "IDLE":
            c["cycles"] = 1
        elif out["busy"]:
            c["cycles"] += 1
        self.quiet_before, self.quiet = self.quiet, quiet
        self.loaded_before, self.loaded = self.loaded, store_idle
        self.state, self.settled, self.counts = state, settled, c
        return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_run_control(seed):
    rng = random.Random(seed)
    dut = RunControl()
    model = Model()

    async def bench(ctx):
        runs = 0
        for cycle in range(3000):
            inputs = {"start": int(model.state == "IDLE" and rng.random() < 0.05 or
                                   rng.random() < 0.002),
                      "loader_done": int(rng.random() < 0.5),
                      "store_idle": int(rng.random() < 0.7),
                      "quiet": int(rng.random() < 0.6),
                      "written": int(rng.random() < 0.3)}
            for name, value in inputs.items():
                ctx.set(getattr(dut, name), value)
            want = model.step(**inputs)
            got = {name: ctx.get(getattr(dut, name)) for name in want}
            assert got == want, (cycle, inputs, got, want)
            runs += want["done"] and not got["busy"]
            await ctx.tick()
        assert runs

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
