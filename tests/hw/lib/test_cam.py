"""The atomic-update CAM against its cocotb testbench, on the Verilog users get."""

import shutil

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring

from graphgen.designs import get_design
from hw.lib.cam import AtomicUpdateCAM, CAMConfig
from hw.lib.config import ConfigError

DESIGN = get_design("cam")

CONFIGS = [
    CAMConfig(),                                   # the paper's 16 entries, 4 ways, 32-bit ids
    CAMConfig(entries=8, ways=2, id_width=16),
    CAMConfig(entries=16, ways=16, id_width=8),    # fully associative
    CAMConfig(entries=4, ways=1, id_width=10),     # direct mapped
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"e{c.entries}w{c.ways}i{c.id_width}")
def test_cam_verilator(config):
    result = DESIGN.run_test(config, simulator="verilator", options={"updates": 2000})
    assert result.passed, result.summary()
    assert len(result.tests) == 5


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="Icarus Verilog not installed")
def test_cam_icarus():
    result = DESIGN.run_test(CAMConfig(), simulator="icarus", options={"updates": 1000})
    assert result.passed, result.summary()


class _BrokenCAM(wiring.Component):
    """A broken CAM that takes an id even while it is in flight."""

    def __init__(self, config):
        self._inner = AtomicUpdateCAM(config)
        super().__init__(self._inner.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = inner = self._inner
        m.d.comb += [
            inner.insert.valid.eq(self.insert.valid),
            inner.insert.payload.eq(self.insert.payload),
            self.insert.ready.eq(inner.insert.ready | inner.conflict),
            inner.remove.valid.eq(self.remove.valid),
            inner.remove.payload.eq(self.remove.payload),
            self.remove.ready.eq(inner.remove.ready),
            inner.probe_id.eq(self.probe_id),
            self.probe_hit.eq(inner.probe_hit),
            self.occupancy.eq(inner.occupancy),
            self.conflict.eq(inner.conflict),
            self.set_full.eq(inner.set_full),
            self.set_has_free.eq(inner.set_has_free),
            self.remove_miss.eq(inner.remove_miss),
        ]
        return m


def test_testbench_catches_a_cam_that_ignores_conflicts():
    config = CAMConfig()
    result = DESIGN.run_test(config, options={"updates": 500}, component=_BrokenCAM(config))
    assert not result.passed
    assert any("ready=1" in test.message for test in result.failures()), result.summary()


@pytest.mark.parametrize("kwargs, message", [
    (dict(entries=16, ways=3), "ways must divide"),
    (dict(entries=24, ways=4), "power of two"),
    (dict(entries=16, ways=4, id_width=2), "id_width"),
    (dict(entries=0), "entries"),
])
def test_invalid_configs(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        CAMConfig(**kwargs)


def test_config_type_checked():
    with pytest.raises(ConfigError, match="must be int"):
        CAMConfig(entries="16")


@pytest.mark.parametrize("config", CONFIGS[:2], ids=lambda c: f"e{c.entries}w{c.ways}i{c.id_width}")
def test_unchecked_insert_matches_checked(config):
    """With ``insert_checked=False`` the CAM behaves as the checked one for a user that
    offers only ids not held and not being removed (Atomic Update): both CAMs get the same
    random inserts and removes, and must agree on every output in every cycle. So do both
    with ``free_registers`` (the sets' free flags kept in registers)."""
    import random
    from amaranth.sim import Simulator

    m = Module()
    m.submodules.checked = checked = AtomicUpdateCAM(config)
    m.submodules.unchecked = unchecked = AtomicUpdateCAM(config, insert_checked=False)
    m.submodules.checked_free = AtomicUpdateCAM(config, free_registers=True)
    m.submodules.unchecked_free = AtomicUpdateCAM(config, insert_checked=False,
                                                  free_registers=True)
    cams = (checked, unchecked, m.submodules.checked_free, m.submodules.unchecked_free)
    rng = random.Random(7)
    # Ids of few sets, so sets fill up and inserts wait for a free way.
    pool = [rng.randrange(1 << config.id_width) & ~1 for _ in range(3 * config.entries)]

    async def bench(ctx):
        held = []
        agreed = 0
        for _ in range(3000):
            remove = rng.choice(held) if held and rng.random() < 0.4 else None
            free = [i for i in pool if i not in held and i != remove]
            insert = rng.choice(free) if free and rng.random() < 0.7 else None
            probe = rng.choice(pool)
            for cam in cams:
                ctx.set(cam.remove.valid, remove is not None)
                ctx.set(cam.remove.payload, remove or 0)
                ctx.set(cam.insert.valid, insert is not None)
                ctx.set(cam.insert.payload, insert or 0)
                ctx.set(cam.probe_id, probe)
            outputs = [(ctx.get(cam.insert.ready), ctx.get(cam.set_full),
                        ctx.get(cam.probe_hit), ctx.get(cam.occupancy),
                        ctx.get(cam.remove_miss), ctx.get(cam.set_has_free)) for cam in cams]
            assert all(output == outputs[0] for output in outputs), (insert, remove, outputs)
            assert not ctx.get(checked.conflict)
            if remove is not None:
                held.remove(remove)
            if insert is not None and outputs[0][0]:
                held.append(insert)
                agreed += 1
            await ctx.tick()
        assert agreed > 500 and outputs[0][3] == len(held)

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
