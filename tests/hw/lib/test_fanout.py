# amaranth: UnusedElaboratable=no
"""register_copies: every copy takes the same value each cycle; graphgen's Yosys flows keep
the copies apart (one flip-flop each) where plain synthesis merges them; lane_slices cuts a
width into near-equal runs, lanes_for counts the lanes a width needs."""

import json

import pytest
from amaranth.back import verilog
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from hw.lib.config import ConfigError
from hw.lib.fanout import lane_slices, lanes_for, register_copies
from synth import steps


class _Split(wiring.Component):
    """A 64-bit register loaded under an enable that reaches it through four copies."""

    def __init__(self):
        super().__init__({"a": In(4), "en": In(1), "d": In(64), "q": Out(64)})

    def elaborate(self, platform):
        m = Module()
        enables = register_copies(m, self.a.any() & self.en, 4, name="load")
        for k, (enable, part) in enumerate(zip(enables, lane_slices(64, 4))):
            with m.If(enable):
                m.d.sync += self.q[part].eq(self.d[part])
        return m


def test_every_copy_takes_the_next_value():
    m = Module()
    value = Signal(5)
    copies = register_copies(m, value + 1, 3, name="v", shape=5, init=7)
    seen = []

    async def testbench(ctx):
        seen.append([ctx.get(c) for c in copies])
        for v in (3, 30, 0):
            ctx.set(value, v)
            await ctx.tick()
            seen.append([ctx.get(c) for c in copies])

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert seen == [[7] * 3, [4] * 3, [31] * 3, [1] * 3]


def test_copies_are_named_and_kept():
    m = Module()
    copies = register_copies(m, Signal(2), 2, name="sel")
    assert [c.name for c in copies] == ["sel_copy0", "sel_copy1"]
    assert all(c.attrs == {"keep": 1} for c in copies)


@pytest.mark.parametrize("copies", [0, -1, 1.5, True])
def test_bad_copy_counts_are_refused(copies):
    with pytest.raises(ConfigError, match="copies"):
        register_copies(Module(), Signal(), copies, name="x")


def test_lane_slices_cover_the_width():
    assert lane_slices(512, 4) == [slice(0, 128), slice(128, 256), slice(256, 384),
                                   slice(384, 512)]
    assert lane_slices(10, 3) == [slice(0, 3), slice(3, 6), slice(6, 10)]
    assert lane_slices(2, 4) == [slice(0, 1), slice(1, 2)]
    with pytest.raises(ConfigError, match="lanes"):
        lane_slices(8, 0)
    assert [lanes_for(w) for w in (1, 128, 129, 512, 600)] == [1, 1, 2, 4, 5]


def _flip_flops(tmp_path, commands):
    dut = _Split()
    (tmp_path / "split.v").write_text(verilog.convert(dut, name="split"))
    steps.yosys(tmp_path, "split.ys", [*commands, "synth_ecp5 -top split",
                                       "tee -q -o stat.json stat -json"])
    design = json.loads((tmp_path / "stat.json").read_text())["modules"]["\\split"]
    return design["num_cells_by_type"]["TRELLIS_FF"]


def test_the_flows_keep_the_copies_apart(tmp_path):
    assert _flip_flops(tmp_path, [steps.read_command("split.v")]) == 64 + 4
    # Without the flows' marking, Yosys folds the four copies into one.
    assert _flip_flops(tmp_path, ["read_verilog split.v"]) == 64 + 1
