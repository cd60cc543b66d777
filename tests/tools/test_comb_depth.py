"""synth.comb_depth on small ECP5 netlists: the longest path runs through the adder chain it
should, names the blocks it crosses, and a register put in the middle of the chain shortens
it; the nets of most loads are listed (a 64-bit register's load enable, split over copies
when the design asks); a netlist that cannot be read is one error line and status 2."""

import json

from amaranth import Module, Signal
from amaranth.back import verilog
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.fanout import lane_slices, register_copies
from synth.comb_depth import longest_paths, main, wide_nets
from synth.flow import ecp5_synthesis


class Chain(wiring.Component):
    """Four 24-bit additions in a row, from registers to a register, optionally with a
    register after the second."""

    def __init__(self, *, pipelined: bool):
        self._pipelined = pipelined
        super().__init__({"a": In(24), "b": In(24), "c": In(24), "d": In(24),
                          "e": In(24), "o": Out(24)})

    def elaborate(self, platform):
        m = Module()
        held = [Signal(24, name=f"held_{k}") for k in range(5)]
        m.d.sync += [h.eq(x) for h, x in zip(held, (self.a, self.b, self.c, self.d, self.e))]
        middle = Signal(24)
        half = (held[0] * 3 + held[1]) ^ held[2]
        if self._pipelined:
            m.d.sync += middle.eq(half)
        else:
            m.d.comb += middle.eq(half)
        m.d.sync += self.o.eq(((middle + held[3]) * 5) ^ held[4])
        return m


class Top(wiring.Component):
    """The chain as a submodule (its nets named ``chain.*``), its ports the top's."""

    def __init__(self, *, pipelined: bool):
        self._chain = Chain(pipelined=pipelined)
        super().__init__(dict(self._chain.signature.members))

    def elaborate(self, platform):
        m = Module()
        m.submodules.chain = chain = self._chain
        m.d.comb += [getattr(chain, n).eq(getattr(self, n)) for n in "abcde"]
        m.d.comb += self.o.eq(chain.o)
        return m


def _netlist(tmp_path, pipelined):
    folder = tmp_path / ("pipelined" if pipelined else "flat")
    folder.mkdir()
    (folder / "top.v").write_text(verilog.convert(Top(pipelined=pipelined), name="top"))
    ecp5_synthesis(folder, "top.v", "top")
    return json.loads((folder / "top.json").read_text())


def test_register_in_the_chain_shortens_the_longest_path(tmp_path):
    flat = longest_paths(_netlist(tmp_path, False), 3)
    pipelined = longest_paths(_netlist(tmp_path, True), 3)
    assert flat and pipelined
    assert all(a.ns >= b.ns for a, b in zip(flat, flat[1:]))
    # The chain's nets are named inside it (its register's input may keep the top's name).
    assert "chain" in dict(flat[0].blocks), flat[0]
    assert flat[0].ns > 2 * 3.5     # two multiplications
    assert pipelined[0].ns < 0.8 * flat[0].ns, (flat[0].describe(), pipelined[0].describe())
    assert "ns" in flat[0].describe()


def test_unreadable_netlist_is_one_error_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "comb_depth: error" in err


class Loaded(wiring.Component):
    """A 64-bit register loaded when any bit of ``a`` is set, through ``copies`` copies of
    the registered enable, each loading its part."""

    def __init__(self, copies: int):
        self._copies = copies
        super().__init__({"a": In(4), "d": In(64), "q": Out(64)})

    def elaborate(self, platform):
        m = Module()
        enables = register_copies(m, self.a.any(), self._copies, name="load")
        for enable, part in zip(enables, lane_slices(64, self._copies)):
            with m.If(enable):
                m.d.sync += self.q[part].eq(self.d[part])
        return m


def test_wide_nets_lists_the_load_enable(tmp_path, capsys):
    widest = {}
    for copies in (1, 4):
        folder = tmp_path / f"copies{copies}"
        folder.mkdir()
        (folder / "top.v").write_text(verilog.convert(Loaded(copies), name="top"))
        ecp5_synthesis(folder, "top.v", "top")
        netlist = json.loads((folder / "top.json").read_text())
        nets = wide_nets(netlist, 3)
        assert nets and all(a.loads >= b.loads for a, b in zip(nets, nets[1:]))
        assert all(not dict(net.ports).get("TRELLIS_FF.CLK") for net in nets)
        widest[copies] = nets[0]
    assert widest[1].loads >= 64 and dict(widest[1].ports)["TRELLIS_FF.CE"] == 64
    assert widest[4].loads <= 20, widest[4].describe()
    assert main([str(tmp_path / "copies1" / "top.json"), "--paths", "1", "--fanout", "2"]) == 0
    out = capsys.readouterr().out
    assert "nets of most loads" in out and "TRELLIS_FF.CE 64" in out
