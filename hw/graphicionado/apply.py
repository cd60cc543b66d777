"""Apply (Graphicionado §3.2, stages A1–A5): combines each vertex's VProperty with its
VTempProperty, emits the new VProperty (to Sequential Vertex Write, A4) and, for frontier
programs, the vertices that become active (to the ActiveVertex list, A5): :class:`Apply`
from a scalar program's expressions, :class:`FlitApply` from a ``Float32Vector`` program's
on flits (§IV.E)."""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from graphgen.programs import BOOL, Program, UInt
from graphgen.programs.expr import Op, Operand
from hw.lib.config import ConfigError
from hw.lib.arith.fp32_vector import check_lanes
from hw.lib.program import (Datapath, drive_params, operands_of, params_member, params_of,
                            shape_of)
from hw.lib.program.flits import FlitSplit
from hw.lib.memory.line_writer import changed_item_layout
from hw.lib.stream.register_slice import StreamRegisterSlice
from .layouts import ActiveVertex
from .scratchpad import TempItem, temp_item
from .sequential_vertex_read import item_layout


__all__ = ["Apply", "FlitApply", "apply_flits"]

# A frontier vertex's result, between Apply's datapath and its two outputs.
OUT_LAYOUT = data.StructLayout({"id": 32, "prop": 32, "active": 1, "changed": 1})


class Apply(wiring.Component):
    """A scalar program's Apply: its ``apply`` expression compiled to a pipelined datapath
    over ``vprop`` (VProperty, A1), ``temp`` (VTempProperty, A2) and ``vertex_id``.

    Frontier programs (``mode = "frontier"``) join the two streams vertex by vertex and also
    emit the vertex to the ActiveVertex list (A5) when the program's ``active`` expression
    holds, by default when the property changed (its bits differ); their new VProperty says
    whether it changed, so A4 writes back only the lines that did; ``active`` reads ``new``,
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
        (``Out(stream.Signature(changed_item_layout(1)))`` for frontier programs: the new
        property and whether its bits differ from VProperty's.)
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
        # A register after each integer operation too (``registered_logic``): between the
        # A1 and A2 queues' read data and the active decision, a combinational min and a
        # compare were the smallest BFS pipeline's longest path.
        self._datapath = Datapath(program.apply, self._apply_operands, tag_width=96,
                                  lzc_stage=True, registered_logic=True)
        self._changed = _changed_rule(program.apply)
        self._active = None
        if self._frontier and program.active is not None:
            self._active_operands = operands_of(program.active)
            self._active = Datapath(program.active,
                                    {role: types[role] for role in self._active_operands},
                                    tag_width=65, lzc_stage=True, registered_logic=True)
        self._reads_root = any("is_root" in operands_of(expr) for expr in
                               (program.apply, program.active) if expr is not None)
        prop_out = changed_item_layout(1) if self._frontier else 32
        members = {"temp": In(stream.Signature(TempItem)),
                   "o_prop": Out(stream.Signature(prop_out)), "busy": Out(1),
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
        """Cycles from a vertex taken to its outputs offered (frontier programs: one more,
        the output slice)."""
        return self._datapath.latency + (self._active.latency if self._active else 0) + \
            int(self._frontier)

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
            changed = active
        else:
            m.submodules.active = rule = self._active
            words = {"vprop": tag[32:64], "temp": tag[64:96], "vertex_id": vertex, "new": new}
            if self._reads_root:
                words["is_root"] = vertex == self.root
            m.d.comb += [rule.i.payload[role].eq(words[role]) for role in self._active_operands]
            m.d.comb += [rule.i.valid.eq(out.valid),
                         rule.i.payload.tag.eq(Cat(vertex, new, new != tag[32:64])),
                         out.ready.eq(rule.i.ready)]
            result = rule.o
            vertex, new = rule.o.payload.tag[:32], rule.o.payload.tag[32:64]
            changed = rule.o.payload.tag[64]
            active = rule.o.payload.result[0]
        # A register slice before the fork: the active decision (a compare) and the two
        # outputs' ready reach flip-flops, not the A1 and A2 queues' read side through the
        # datapath's enable (once the smallest BFS pipeline's longest path).
        m.submodules.out_slice = out = StreamRegisterSlice(OUT_LAYOUT)
        m.d.comb += [out.i.valid.eq(result.valid), result.ready.eq(out.i.ready),
                     out.i.payload.id.eq(vertex), out.i.payload.prop.eq(new),
                     out.i.payload.active.eq(active), out.i.payload.changed.eq(changed)]
        self._count(m, taken, self._fork(m, out.o))
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

    def _fork(self, m, result):
        """Each output offered until taken; ``*_sent`` marks the output already taken for
        the vertex in hand."""
        vertex, new, active = result.payload.id, result.payload.prop, result.payload.active
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
            self.o_prop.payload.data.eq(new),
            self.o_prop.payload.changed.eq(result.payload.changed),
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


def apply_flits(program: Program, lanes: int, owner: str = "") -> FlitSplit:
    """``program``'s ``apply`` at ``lanes`` lanes; refused with :class:`ConfigError` (its
    message starting with ``owner``) when not built: a shape :class:`FlitSplit` refuses, a
    lane sum, or an operand the apply phase does not stream."""
    what = f"{owner}{program.name}'s apply"
    split = FlitSplit.of(program.apply, lanes, what)
    if split.reduce is not None:
        raise ConfigError(f"{what}: a lane sum (dot) in Apply is not built; Apply is "
                          f"lane-wise")
    unknown = set(operands_of(split.lanes)) - {"vprop", "temp"}
    if unknown:
        raise ConfigError(f"{what} reads {', '.join(sorted(unknown))}; the apply phase "
                          f"streams vprop and temp flits")
    return split


class FlitApply(wiring.Component):
    """A ``Float32Vector`` program's Apply, a flit of ``lanes`` features at a time (§IV.E):
    its ``apply`` expression, lane-wise, compiled at ``lanes`` lanes to one pipelined
    datapath over the VProperty and VTempProperty flits (for CF ``p + gamma * (temp - lam *
    p)``, each operation rounded, in ``golden.algorithms.cf_program``'s order). Every vertex
    stays active. A lane sum in Apply (a flit depending on the others) is not built.

    Parameters
    ----------
    program : graphgen.programs.Program
        A ``Float32Vector`` program whose Apply reads ``vprop`` and ``temp`` only.
    lanes : int

    Members
    -------
    <param> : ``In(shape, init=default)``
        Each parameter of Apply (CF: ``gamma``, ``lam``, binary32 bit patterns).
    prop : ``In(stream.Signature(item_layout(lanes)))``
        VProperty flits in order (A1).
    temp : ``In(stream.Signature(temp_item(32 * lanes)))``
        VTempProperty flits in the same order (A2).
    o_prop : ``Out(stream.Signature(32 * lanes))``
    """

    def __init__(self, *, program: Program, lanes: int):
        if not isinstance(program, Program):
            raise ConfigError(f"FlitApply: program must be a graphgen.programs Program, not "
                              f"{program!r}")
        check_lanes("FlitApply", lanes, power_of_two=True)
        split = apply_flits(program, lanes, "FlitApply: ")
        self._operands = operands_of(split.lanes)
        self._datapath = Datapath(split.lanes, self._operands)
        width = 32 * lanes
        members = {
            "prop": In(stream.Signature(item_layout(lanes))),
            "temp": In(stream.Signature(temp_item(width))),
            "o_prop": Out(stream.Signature(width)),
        }
        for name, param in self._datapath.params.items():
            members[name] = In(shape_of(param.type), init=getattr(self._datapath, name).init)
        super().__init__(members)

    @property
    def params(self) -> dict:
        """Apply's parameters (:attr:`hw.lib.program.Datapath.params`)."""
        return self._datapath.params

    @property
    def latency(self) -> int:
        return self._datapath.latency

    def elaborate(self, platform):
        m = Module()
        m.submodules.datapath = datapath = self._datapath
        for name in datapath.params:
            m.d.comb += getattr(datapath, name).eq(getattr(self, name))
        words = {"vprop": self.prop.payload.data, "temp": self.temp.payload.temp}
        both = self.prop.valid & self.temp.valid
        m.d.comb += [datapath.i.payload[role].eq(words[role]) for role in self._operands]
        m.d.comb += [
            datapath.i.valid.eq(both),
            self.prop.ready.eq(both & datapath.i.ready),
            self.temp.ready.eq(both & datapath.i.ready),
            self.o_prop.valid.eq(datapath.o.valid),
            self.o_prop.payload.eq(datapath.o.payload.result),
            datapath.o.ready.eq(self.o_prop.ready),
        ]
        return m
