"""Apply (Graphicionado §3.2, stages A1–A5): combines each vertex's VProperty with its
VTempProperty, emits the new VProperty (to Sequential Vertex Write, A4) and, for frontier
programs, the vertices that become active (to the ActiveVertex list, A5): :class:`Apply`
from a scalar program's expressions, :class:`ApplyCF` hand-written for CF's flits."""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from graphgen.programs import BOOL, Program, UInt
from graphgen.programs.expr import Op, Operand
from hw.lib.config import ConfigError
from hw.lib.arith.fp32 import SIGN_BIT
from hw.lib.arith.fp32_vector import FP32Lanes, check_lanes
from hw.lib.program import Datapath, drive_params, operands_of, params_member, params_of
from .layouts import ActiveVertex
from .scratchpad import TempItem, temp_item
from .sequential_vertex_read import item_layout


__all__ = ["Apply", "ApplyCF"]


class Apply(wiring.Component):
    """A scalar program's Apply: its ``apply`` expression compiled to a pipelined datapath
    over ``vprop`` (VProperty, A1), ``temp`` (VTempProperty, A2) and ``vertex_id``.

    Frontier programs (``mode = "frontier"``) join the two streams vertex by vertex and also
    emit the vertex to the ActiveVertex list (A5) when the program's ``active`` expression
    holds, by default when the property changed (its bits differ); ``active`` reads ``new``,
    Apply's result, so it is a second datapath after the first. The two outputs are a fork:
    each is offered until taken, whatever the other's consumer does (an offer is never
    withdrawn). Programs of mode "all" stream VTempProperty alone and have no list.

    Parameters
    ----------
    program : graphgen.programs.Program
        A scalar program (32-bit property) whose Apply reads no ``vconst``.

    Members
    -------
    prop : ``In(stream.Signature(item_layout(1)))``, frontier programs
        VProperty in vertex order (A1).
    temp : ``In(stream.Signature(TempItem))``
        VTempProperty in vertex order (A2), with the vertex id.
    o_prop : ``Out(stream.Signature(32))``
    o_active : ``Out(stream.Signature(ActiveVertex))``, frontier programs
    root : ``In(32)``, programs reading ``is_root``
        The root's vertex id (a register of the run): ``is_root`` is ``vertex_id == root``.
    params : ``In(StructLayout)``, programs whose Apply or active rule reads parameters
        Their run-time values (:mod:`hw.lib.program.params`; each its default when undriven).
    busy : ``Out(1)``
        A vertex taken is not yet out on every output it goes to (it is in the datapath or
        half through the fork).

    Attributes
    ----------
    latency : int
        Cycles from a vertex's operands to its new property when nothing stalls.
    """

    def __init__(self, *, program: Program):
        if not isinstance(program, Program):
            raise ConfigError(f"Apply: program must be a graphgen.programs Program, not "
                              f"{program!r}")
        roles = {"vprop", "temp", "vertex_id", "is_root", "new"}
        for function in ("apply", "active"):
            expr = getattr(program, function)
            read = set(operands_of(expr)) if expr is not None else set()
            if read - roles:
                raise ConfigError(f"Apply: {program.name}'s {function} reads "
                                  f"{', '.join(sorted(read - roles))}; the apply phase "
                                  f"streams vprop, temp, vertex_id and is_root")
        self._frontier = program.mode == "frontier"
        if not self._frontier and "vprop" in operands_of(program.apply):
            raise ConfigError(f"Apply: {program.name} (mode 'all') reads vprop; only "
                              f"frontier programs stream VProperty into Apply")
        types = {"vprop": program.prop, "temp": program.prop, "vertex_id": UInt(32),
                 "is_root": BOOL, "new": program.prop}
        self._apply_operands = operands_of(program.apply)
        # Through the apply datapath ride the vertex id, its old property and what the
        # active rule reads besides ``new``.
        # Apply sits between FIFOs (A1, A2 and A4), so its integer logic needs no stage of
        # its own, as the FP32 units do.
        self._datapath = Datapath(program.apply, self._apply_operands, tag_width=96,
                                  lzc_stage=True, registered_logic=False)
        self._changed = _changed_rule(program.apply)
        self._active = None
        if self._frontier and program.active is not None:
            self._active_operands = operands_of(program.active)
            self._active = Datapath(program.active,
                                    {role: types[role] for role in self._active_operands},
                                    tag_width=64, lzc_stage=True, registered_logic=False)
        self._reads_root = any("is_root" in operands_of(expr) for expr in
                               (program.apply, program.active) if expr is not None)
        members = {"temp": In(stream.Signature(TempItem)), "o_prop": Out(stream.Signature(32)),
                   "busy": Out(1),
                   **params_member(params_of(program.apply,
                                             program.active if self._frontier else None))}
        if self._reads_root:
            members["root"] = In(32)
        if self._frontier:
            members.update({"prop": In(stream.Signature(item_layout(1))),
                            "o_active": Out(stream.Signature(ActiveVertex))})
        super().__init__(members)

    @property
    def latency(self) -> int:
        return self._datapath.latency + (self._active.latency if self._active else 0)

    def elaborate(self, platform):
        m = Module()
        m.submodules.datapath = datapath = self._datapath
        if hasattr(self, "params"):
            drive_params(m, self.params, datapath, *([self._active] if self._active else []))
        index, temp = self.temp.payload.index, self.temp.payload.temp
        old = self.prop.payload.data if self._frontier else Const(0, 32)
        words = {"vprop": old, "temp": temp, "vertex_id": index}
        if self._reads_root:
            words["is_root"] = index == self.root
        m.d.comb += [datapath.i.payload[role].eq(words[role]) for role in self._apply_operands]
        m.d.comb += datapath.i.payload.tag.eq(Cat(index, old, temp))
        taken = datapath.i.valid & datapath.i.ready
        if not self._frontier:
            self._count(m, taken, self.o_prop.valid & self.o_prop.ready)
            m.d.comb += [
                datapath.i.valid.eq(self.temp.valid),
                self.temp.ready.eq(datapath.i.ready),
                self.o_prop.valid.eq(datapath.o.valid),
                self.o_prop.payload.eq(datapath.o.payload.result),
                datapath.o.ready.eq(self.o_prop.ready),
            ]
            return m
        both = self.prop.valid & self.temp.valid
        m.d.comb += [
            datapath.i.valid.eq(both),
            self.prop.ready.eq(both & datapath.i.ready),
            self.temp.ready.eq(both & datapath.i.ready),
        ]
        out = datapath.o
        tag = out.payload.tag
        vertex, new = tag[:32], out.payload.result
        if self._active is None:
            result = out
            old, temp = tag[32:64], tag[64:96]
            active = {"min": temp < old, "max": old < temp}.get(self._changed, new != old)
        else:
            m.submodules.active = rule = self._active
            words = {"vprop": tag[32:64], "temp": tag[64:96], "vertex_id": vertex, "new": new}
            if self._reads_root:
                words["is_root"] = vertex == self.root
            m.d.comb += [rule.i.payload[role].eq(words[role]) for role in self._active_operands]
            m.d.comb += [rule.i.valid.eq(out.valid), rule.i.payload.tag.eq(Cat(vertex, new)),
                         out.ready.eq(rule.i.ready)]
            result = rule.o
            vertex, new = rule.o.payload.tag[:32], rule.o.payload.tag[32:]
            active = rule.o.payload.result[0]
        self._count(m, taken, self._fork(m, result, vertex, new, active))
        return m

    def _count(self, m, taken, done):
        """``busy``: vertices taken and not yet done, at most one per pipeline stage (none
        when the datapath is combinational: a vertex is taken as it is done)."""
        if self.latency == 0:
            m.d.comb += self.busy.eq(0)
            return
        inside = Signal(range(self.latency + 2))
        m.d.sync += inside.eq(inside + taken - done)
        m.d.comb += self.busy.eq(inside != 0)

    def _fork(self, m, result, vertex, new, active):
        """Each output offered until taken; ``*_sent`` marks the output already taken for
        the vertex in hand."""
        prop_sent = Signal()
        active_sent = Signal()
        prop_done = prop_sent | self.o_prop.ready
        active_done = ~active | active_sent | self.o_active.ready
        fire = result.valid & prop_done & active_done
        with m.If(fire):
            m.d.sync += [prop_sent.eq(0), active_sent.eq(0)]
        with m.Else():
            with m.If(self.o_prop.valid & self.o_prop.ready):
                m.d.sync += prop_sent.eq(1)
            with m.If(self.o_active.valid & self.o_active.ready):
                m.d.sync += active_sent.eq(1)
        m.d.comb += [
            self.o_prop.valid.eq(result.valid & ~prop_sent),
            self.o_prop.payload.eq(new),
            self.o_active.valid.eq(result.valid & active & ~active_sent),
            self.o_active.payload.id.eq(vertex),
            self.o_active.payload.prop.eq(new),
            result.ready.eq(fire),
        ]
        return fire


def _changed_rule(apply) -> str | None:
    """"min" or "max" when ``apply`` is that of ``vprop`` and ``temp``: the property then
    changes exactly when ``temp`` is below (above) it, the comparison the apply itself makes."""
    if isinstance(apply, Op) and apply.name in ("min", "max") and \
            all(isinstance(arg, Operand) for arg in apply.args) and \
            sorted(arg.role for arg in apply.args) == ["temp", "vprop"]:
        return apply.name
    return None


class ApplyCF(wiring.Component):
    """Collaborative filtering, a flit of ``lanes`` features at a time (§IV.E):
    ``p = p + gamma * (temp - lam * p)`` lane by lane in FP32, each operation rounded, in
    ``golden.algorithms.cf_program``'s order (``temp - x`` as ``temp + (-x)``, which IEEE
    defines as the same). Four vector units in a row; the operands still needed ride in
    the tags. Every vertex stays active.

    Parameters
    ----------
    lanes : int

    Members
    -------
    gamma, lam : ``In(32)``
        binary32 bit patterns of the step and the regularisation (registers of a run).
    prop : ``In(stream.Signature(item_layout(lanes)))``
        VProperty flits in order (A1).
    temp : ``In(stream.Signature(temp_item(32 * lanes)))``
        VTempProperty flits in the same order (A2).
    o_prop : ``Out(stream.Signature(32 * lanes))``
    """

    def __init__(self, *, lanes: int):
        check_lanes("ApplyCF", lanes, power_of_two=True)
        self._lanes = lanes
        width = 32 * lanes
        self._scaled = FP32Lanes("mul", lanes, 2 * width)        # lam * p       | p, temp
        self._difference = FP32Lanes("add", lanes, width)        # temp - lam*p  | p
        self._step = FP32Lanes("mul", lanes, width)              # gamma * ...   | p
        self._sum = FP32Lanes("add", lanes)                      # p + step
        super().__init__({
            "gamma": In(32), "lam": In(32),
            "prop": In(stream.Signature(item_layout(lanes))),
            "temp": In(stream.Signature(temp_item(width))),
            "o_prop": Out(stream.Signature(width)),
        })

    def elaborate(self, platform):
        m = Module()
        lanes, width = self._lanes, 32 * self._lanes
        m.submodules.scaled = scaled = self._scaled
        m.submodules.difference = difference = self._difference
        m.submodules.step = step = self._step
        m.submodules.sum = total = self._sum
        both = self.prop.valid & self.temp.valid
        p = self.prop.payload.data
        m.d.comb += [
            scaled.i.valid.eq(both),
            scaled.i.payload.b.eq(p),
            scaled.i.payload.tag.eq(Cat(p, self.temp.payload.temp)),
            self.prop.ready.eq(both & scaled.i.ready),
            self.temp.ready.eq(both & scaled.i.ready),

            difference.i.valid.eq(scaled.o.valid),
            difference.i.payload.a.eq(scaled.o.payload.tag[width:]),
            difference.i.payload.tag.eq(scaled.o.payload.tag[:width]),
            scaled.o.ready.eq(difference.i.ready),

            step.i.valid.eq(difference.o.valid),
            step.i.payload.b.eq(difference.o.payload.result),
            step.i.payload.tag.eq(difference.o.payload.tag),
            difference.o.ready.eq(step.i.ready),

            total.i.valid.eq(step.o.valid),
            total.i.payload.a.eq(step.o.payload.tag),
            total.i.payload.b.eq(step.o.payload.result),
            step.o.ready.eq(total.i.ready),

            self.o_prop.valid.eq(total.o.valid),
            self.o_prop.payload.eq(total.o.payload.result),
            total.o.ready.eq(self.o_prop.ready),
        ]
        for k in range(lanes):
            m.d.comb += [
                scaled.i.payload.a[k].eq(self.lam),
                difference.i.payload.b[k].eq(scaled.o.payload.result[k] ^ SIGN_BIT),
                step.i.payload.a[k].eq(self.gamma),
            ]
        return m
