# amaranth: UnusedElaboratable=no
"""AXI4LiteRegisterSlave (hw/lib/axi/lite_slave.py) and the address map it decodes
(hw/lib/axi/address_map.py), in Amaranth's simulator, driven by an AXI4-Lite master model
(sim/axil_master.py) with random delays on AW, W and AR and random drops of
bready and rready, or none.

Random writes with random byte strobes reach the design's register port as the merged word
and read back; counters and status inputs read at their offsets; START pulses
``control.start`` for one cycle, and only when byte 0 is enabled and bit 0 set; BUSY, DONE
and ERROR read back; an unmapped address, and a write to a read-only register, answer
SLVERR and change nothing.
"""

import random

import pytest
from amaranth.hdl import ResetInserter, Signal
from amaranth.sim import Simulator

from hw.lib.axi.address_map import (COUNTER_BASE, REGISTER_BASE, MapEntry, check_address_map,
                                    design_address_map)
from hw.lib.axi.lite_slave import AXI4LiteRegisterSlave
from hw.lib.axi.signature import AXIResp
from hw.lib.config import ConfigError
from sim.axil_master import AXI4LiteMasterModel

REGISTERS = ["base_a", "base_b", "count", "root", "flags"]
COUNTERS = ["cycles", "memory_reads", "memory_writes"]
PAUSES = [pytest.param(None, id="nopause"), pytest.param(1, id="pause1"),
          pytest.param(2, id="pause2")]
OKAY, SLVERR = AXIResp.OKAY, AXIResp.SLVERR


def run_slave(host, *, pause, limit=20_000, beside=None):
    """Run ``host(ctx, dut, master, log)`` against a slave of the test map (and
    ``beside(ctx, dut, master)`` at the same time, if given); ``log`` gets every register
    write (``"regs"``) and the cycle of every start pulse (``"starts"``), and holds the
    slave's reset (``"reset"``)."""
    dut = AXI4LiteRegisterSlave(design_address_map(REGISTERS, COUNTERS))
    master = AXI4LiteMasterModel(dut.axil, pause=pause)
    log = {"regs": [], "starts": [], "cycle": 0, "reset": Signal()}

    async def monitor(ctx):
        async for _, _, write, addr, data, start in ctx.tick().sample(
                dut.regs.write, dut.regs.addr, dut.regs.data, dut.control.start):
            if write:
                log["regs"].append((addr, data))
            if start:
                log["starts"].append(log["cycle"])
            log["cycle"] += 1
            if log["cycle"] > limit:
                raise AssertionError(f"no end after {limit} cycles")

    async def testbench(ctx):
        await host(ctx, dut, master, log)

    async def other(ctx):
        await beside(ctx, dut, master)

    sim = Simulator(ResetInserter(log["reset"])(dut))
    sim.add_clock(1e-8)
    sim.add_process(monitor)
    if beside is not None:
        sim.add_testbench(other, background=True)
    sim.add_testbench(testbench)
    sim.run()
    return log


def merge(old, data, strb):
    mask = sum(0xFF << (8 * b) for b in range(4) if strb >> b & 1)
    return old & ~mask | data & mask


@pytest.mark.parametrize("pause", PAUSES)
def test_writes_with_strobes_reach_the_registers_and_read_back(pause):
    rng = random.Random(f"regs/{pause}")
    shadow = [0] * len(REGISTERS)
    expected = []

    async def host(ctx, dut, master, log):
        for _ in range(60):
            k = rng.randrange(len(REGISTERS))
            if rng.random() < 0.6:
                data = rng.randrange(1 << 32)
                strb = rng.choice([0xF, 0xF, rng.randrange(16)])
                # The low address bits are ignored.
                resp = await master.write(ctx, REGISTER_BASE + 4 * k + rng.randrange(4),
                                          data, strb)
                assert resp == OKAY
                if strb:
                    shadow[k] = merge(shadow[k], data, strb)
                    expected.append((k, shadow[k]))
            else:
                assert await master.read(ctx, REGISTER_BASE + 4 * k) == (shadow[k], OKAY)
        for k in range(len(REGISTERS)):
            assert await master.read(ctx, REGISTER_BASE + 4 * k) == (shadow[k], OKAY)

    log = run_slave(host, pause=pause)
    assert log["regs"] == expected
    assert not log["starts"]


@pytest.mark.parametrize("pause", PAUSES)
def test_counters_inputs_and_status_read_while_writes_go_on(pause):
    """A reader and a writer at once: counters and the error-cause inputs read their values
    at their offsets, the control register its status bits."""
    rng = random.Random(f"reads/{pause}")
    done = {"writer": False}

    async def writer(ctx, dut, master):
        for k in range(40):
            assert await master.write(ctx, REGISTER_BASE + 4 * (k % len(REGISTERS)), k) == OKAY
        done["writer"] = True

    async def host(ctx, dut, master, log):
        ctx.set(dut.control.busy, 0)
        for _ in range(50):
            values = {name: rng.randrange(1 << 32) for name in
                      COUNTERS + ["error_cause", "error_addr_lo", "error_addr_hi"]}
            status = {name: rng.randrange(2) for name in ("busy", "done", "error")}
            for name in COUNTERS:
                ctx.set(getattr(dut.counters, name), values[name])
            for name in ("error_cause", "error_addr_lo", "error_addr_hi"):
                ctx.set(getattr(dut, name), values[name])
            for name, value in status.items():
                ctx.set(getattr(dut.control, name), value)
            k = rng.randrange(len(COUNTERS))
            assert await master.read(ctx, COUNTER_BASE + 4 * k) == (values[COUNTERS[k]], OKAY)
            name = rng.choice(["error_cause", "error_addr_lo", "error_addr_hi"])
            offset = {"error_cause": 4, "error_addr_lo": 8, "error_addr_hi": 12}[name]
            assert await master.read(ctx, offset) == (values[name], OKAY)
            word = status["busy"] << 1 | status["done"] << 2 | status["error"] << 3
            assert await master.read(ctx, 0) == (word, OKAY)
        while not done["writer"]:
            await ctx.tick()

    log = run_slave(host, pause=pause, beside=writer)
    assert done["writer"]
    assert log["regs"] == [(k % len(REGISTERS), k) for k in range(40)]


@pytest.mark.parametrize("pause", PAUSES)
def test_start_pulses_once_per_write_of_bit_zero(pause):
    async def host(ctx, dut, master, log):
        for data, strb in [(1, 0xF), (0, 0xF), (1, 0xE), (0xFFFFFFFE, 0xF), (1, 0x1),
                           (0xF, 0x1)]:
            before = len(log["starts"])
            assert await master.write(ctx, 0, data, strb) == OKAY
            for _ in range(3):
                await ctx.tick()
            assert len(log["starts"]) - before == int(strb & 1 and data & 1), (data, strb)
        # START reads 0: the control register holds no state of its own.
        assert await master.read(ctx, 0) == (0, OKAY)

    log = run_slave(host, pause=pause)
    assert len(log["starts"]) == 3
    assert not log["regs"]


@pytest.mark.parametrize("pause", PAUSES)
def test_unmapped_and_read_only_answer_slverr(pause):
    unmapped = [0x010, 0x0FC, COUNTER_BASE + 4 * len(COUNTERS), REGISTER_BASE - 4,
                REGISTER_BASE + 4 * len(REGISTERS), 0x800, 0xFFC]
    read_only = [4, 8, 12, COUNTER_BASE, COUNTER_BASE + 8]

    async def host(ctx, dut, master, log):
        assert await master.write(ctx, REGISTER_BASE, 0x1234) == OKAY
        for addr in unmapped:
            assert await master.read(ctx, addr) == (0, SLVERR), hex(addr)
            assert await master.write(ctx, addr, 0xFFFFFFFF) == SLVERR, hex(addr)
        for addr in read_only:
            assert await master.write(ctx, addr, 0xFFFFFFFF) == SLVERR, hex(addr)
        assert await master.read(ctx, REGISTER_BASE) == (0x1234, OKAY)

    log = run_slave(host, pause=pause)
    assert log["regs"] == [(0, 0x1234)]
    assert not log["starts"]


def test_address_map_layout():
    entries = design_address_map(REGISTERS, COUNTERS)
    table = {entry.name: (entry.offset, entry.access) for entry in entries}
    assert table["control"] == (0, "rw")
    assert table["error_cause"] == (4, "ro")
    assert table["stat_memory_reads"] == (COUNTER_BASE + 4, "ro")
    assert table["reg_root"] == (REGISTER_BASE + 12, "rw")
    assert [entry.offset for entry in entries] == sorted(entry.offset for entry in entries)
    assert all(entry.description for entry in entries)


def test_bad_maps_and_parameters():
    entries = design_address_map(REGISTERS, COUNTERS)
    control = entries[0]
    cases = [
        (entries + [entries[-1]._replace(name="again")], "repeated"),
        (entries + [MapEntry("odd", 0x7F2, "ro", "", "input", "odd")], "multiple of 4"),
        (entries + [MapEntry("rwc", 0x7F0, "rw", "", "counter", "x")], "cannot be rw"),
        (entries + [MapEntry("axil", 0x7F0, "ro", "", "input", "axil")], "input 'axil'"),
        (entries + [MapEntry("cfg", 0x7F0, "rw", "", "config", "cfg", 256)], "register 256"),
        (entries + [MapEntry("x", 0x7F0, "wo", "", "input", "x")], "access 'wo'"),
        (entries[1:], "one control"),
        (entries + [control._replace(name="control2", offset=0x7F0)], "one control"),
        ([tuple(control)], "MapEntry"),
    ]
    for bad, message in cases:
        with pytest.raises(ConfigError, match=message):
            check_address_map(bad)
        with pytest.raises(ConfigError, match=message):
            AXI4LiteRegisterSlave(bad)
    with pytest.raises(ConfigError, match="1 to 256 registers"):
        design_address_map([], COUNTERS)
    with pytest.raises(ConfigError, match="192 counters at most"):
        design_address_map(REGISTERS, [f"c{k}" for k in range(193)])
    with pytest.raises(ConfigError, match="addr_width"):
        AXI4LiteRegisterSlave(entries, addr_width=11)
    far = entries + [MapEntry("far", 0x1000, "ro", "", "input", "far")]
    with pytest.raises(ConfigError, match="past a 12-bit address"):
        AXI4LiteRegisterSlave(far)
    AXI4LiteRegisterSlave(far, addr_width=13)


def test_reset_clears_the_shadow():
    """After a reset the configuration registers read 0, as the design's register file
    holds after its reset."""
    async def host(ctx, dut, master, log):
        for k in range(len(REGISTERS)):
            assert await master.write(ctx, REGISTER_BASE + 4 * k, 0xA0 + k) == OKAY
        assert await master.read(ctx, REGISTER_BASE + 4) == (0xA1, OKAY)
        ctx.set(log["reset"], 1)
        await ctx.tick()
        ctx.set(log["reset"], 0)
        for k in range(len(REGISTERS)):
            assert await master.read(ctx, REGISTER_BASE + 4 * k) == (0, OKAY)

    run_slave(host, pause=1)


@pytest.mark.parametrize("pause", PAUSES)
def test_replay_writes_every_shadow_register_again(pause):
    """A pulse on ``replay`` sends every register's shadow to the register port, one a
    cycle in address order, with ``replaying`` high meanwhile; a write offered during the
    replay waits for it and lands after it."""
    values = [0x1111_0000 + k for k in range(len(REGISTERS))]

    async def host(ctx, dut, master, log):
        for k, value in enumerate(values):
            assert await master.write(ctx, REGISTER_BASE + 4 * k, value) == OKAY
        log["regs"].clear()
        ctx.set(dut.replay, 1)
        await ctx.tick()
        ctx.set(dut.replay, 0)
        assert ctx.get(dut.replaying)
        assert await master.write(ctx, REGISTER_BASE + 8, 0xABCD) == OKAY
        assert not ctx.get(dut.replaying)
        await ctx.tick().repeat(3)

    log = run_slave(host, pause=pause)
    assert log["regs"] == [*enumerate(values), (2, 0xABCD)]
