"""The shared register file against a dict, with DepGraph's registers: a host write of
``data`` to ``addr`` sets the register named at that address from the next cycle on and no
other; a write to an address outside the map, or ``data`` without ``write``, changes nothing.
(No streams here: a plain write port.)"""

import random

import pytest
from amaranth.sim import Simulator

from hw.depgraph.top import GLOBAL_REGISTERS, registers
from hw.lib.config import ConfigError
from hw.lib.registers.file import RegisterFile
from tests.support.stream_drivers import rerun_command


def test_depgraph_register_layout():
    regs = RegisterFile(registers(3)).map
    assert list(regs)[:len(GLOBAL_REGISTERS)] == list(GLOBAL_REGISTERS)
    assert [regs[f"first{e}"] for e in range(4)] == \
        list(range(len(GLOBAL_REGISTERS), len(GLOBAL_REGISTERS) + 4))
    assert sorted(regs.values()) == list(range(len(regs)))


@pytest.mark.parametrize("names", [(), ("a", "a"), tuple(f"r{k}" for k in range(257))])
def test_bad_names_are_refused(names):
    with pytest.raises(ConfigError):
        RegisterFile(names)


@pytest.mark.parametrize("engines, seed", [(1, 1), (4, 2), (8, 3)])
def test_register_file(engines, seed):
    dut = RegisterFile(registers(engines))
    regs = dut.map
    by_address = {a: n for n, a in regs.items()}
    rng = random.Random(seed)
    model = dict.fromkeys(regs, 0)

    async def bench(ctx):
        for cycle in range(600):
            write = rng.random() < 0.7
            addr = rng.choice([rng.randrange(len(regs)), rng.randrange(256)])
            value = rng.randrange(1 << 32)
            ctx.set(dut.write, write)
            ctx.set(dut.addr, addr)
            ctx.set(dut.data, value)
            await ctx.tick()
            if write and addr in by_address:
                model[by_address[addr]] = value
            got = {name: ctx.get(getattr(dut, name)) for name in regs}
            assert got == model, (
                f"after {'a write of' if write else 'no write,'} {value:#x} to {addr} "
                f"(cycle {cycle}, seed {seed}): "
                f"{ {n: (got[n], model[n]) for n in regs if got[n] != model[n]} }"
                f"\nrerun: {rerun_command()}")

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
