"""hw/lib/program/params.py: a program's run-time parameters gathered into one struct port,
in name order, each field its parameter's default when undriven, and handed down to
datapaths and to components holding one."""

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.sim import Simulator

from graphgen.programs import Float32, Param, UInt, f32, fadd, fmul, sat_add
from graphgen.programs.expr import Operand
from hw.lib.arith.fp32 import float32_bits
from hw.lib.program import Datapath
from hw.lib.program.params import drive_params, params_member, params_of

SCALE = Param("scale", Float32, 0.5)
OFFSET = Param("offset", UInt(32), 7)


def test_params_are_gathered_by_name_once_each():
    a, b = Operand("a", Float32), Operand("b", UInt(32))
    found = params_of(fmul(a, SCALE), None, sat_add(b, OFFSET), fadd(fmul(a, SCALE), f32(1)))
    assert list(found) == ["offset", "scale"]
    assert params_of(fadd(a, f32(1))) == {} and params_member({}) == {}


class _Holder(wiring.Component):
    """A component holding a datapath of a parameter, as Process_Edge does."""

    def __init__(self, expr):
        self._datapath = Datapath(expr, {"a": Float32})
        members = self._datapath.signature.members
        super().__init__({"i": members["i"], "o": members["o"],
                          **params_member(params_of(expr))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.datapath = self._datapath
        drive_params(m, self.params, self._datapath)
        wiring.connect(m, wiring.flipped(self.i), self._datapath.i)
        wiring.connect(m, self._datapath.o, wiring.flipped(self.o))
        return m


def _run(holder, a: float, scale: float | None):
    """The result of one item through ``holder``, its parameter driven through a parent's
    struct (``scale``) or left undriven (None)."""
    m = Module()
    m.submodules.holder = holder
    if scale is not None:
        top = params_member(params_of(fmul(Operand("a", Float32), SCALE)))["params"]
        outer = wiring.Signature({"params": top}).create()
        m.d.comb += outer.params.scale.eq(float32_bits(scale))
        drive_params(m, outer.params, holder)
    results = []

    async def bench(ctx):
        ctx.set(holder.o.ready, 1)
        ctx.set(holder.i.payload.a, float32_bits(a))
        ctx.set(holder.i.valid, 1)
        await ctx.tick()
        ctx.set(holder.i.valid, 0)
        for _ in range(20):
            if ctx.get(holder.o.valid):
                results.append(ctx.get(holder.o.payload.result))
                return
            await ctx.tick()

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return results


def test_an_undriven_parameter_is_its_default_and_a_driven_one_its_register():
    expr = fmul(Operand("a", Float32), SCALE)
    assert _run(_Holder(expr), 3.0, None) == [float32_bits(1.5)]
    assert _run(_Holder(expr), 3.0, 4.0) == [float32_bits(12.0)]
