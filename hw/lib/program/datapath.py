"""A vertex program's expression as a pipelined stream component (see the package docstring)."""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal, Value
from amaranth.hdl import Const as HDLConst
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from graphgen.programs.expr import Const, Expr, Float32Vector, Operand, Param, UInt, is_type, walk

from hw.lib.arith.fp32 import SIGN_BIT, FP32Adder, FP32Divider, FP32Multiplier, float32_bits
from hw.lib.arith.fp32_compare import FLOAT_COMPARES
from hw.lib.arith.fp32_reciprocal import Reciprocal, float32_significand
from hw.lib.arith.integer import INTEGER_OPERATIONS
from hw.lib.config import ConfigError, check_int

from .schedule import MAX_LANES, Schedule, lane_sum_levels

__all__ = ["Datapath", "shape_of", "operands_of"]

_RESERVED = frozenset({"i", "o", "tag", "result", "latency"})


def shape_of(type_):
    """The bits of a value of ``type_``: ``UInt(w)`` w bits, ``Float32`` a binary32 pattern,
    ``Float32Vector(K)`` K of them (lane 0 in the low bits)."""
    if isinstance(type_, UInt):
        return type_.width
    if isinstance(type_, Float32Vector):
        return data.ArrayLayout(32, type_.lanes)
    return 32


def operands_of(expr: Expr) -> dict:
    """Each operand role ``expr`` reads and its type, in the order first read."""
    return {node.role: node.type for node in walk(expr) if isinstance(node, Operand)}


def _bits(value: int | float, type_) -> int:
    return value if isinstance(type_, UInt) else float32_bits(value)


def _lanes(type_) -> int:
    return type_.lanes if isinstance(type_, Float32Vector) else 1


class Datapath(wiring.Component):
    """``expr`` computed on each input item, the result offered ``latency`` cycles later with
    the item's tag; one item a cycle; the whole pipeline stalls while the result waits.

    Parameters
    ----------
    expr : graphgen.programs.Expr
        The expression (a program's ``process_edge`` or ``apply``, or any other).
    operands : dict[str, Type]
        Each operand role the input carries and its type; every operand of ``expr`` must be
        among them, with its type.
    tag_width : int
        Bits carried from an item to its result (a destination id, say).
    registered_logic : bool
        A register after each integer operation, compare and ``select`` (latency 1 each);
        without, they are combinational (latency 0), for a datapath between FIFOs.
    lzc_stage : bool
        FP32 adders with their leading-zero count in a stage of its own
        (:class:`hw.lib.arith.fp32.FP32Adder`).

    Members
    -------
    i : ``In(stream.Signature(StructLayout({<operand>: shape, ..., "tag": tag_width})))``
    o : ``Out(stream.Signature(StructLayout({"result": shape, "tag": tag_width})))``
    <param> : ``In(shape, init=default)``
        Each :class:`~graphgen.programs.Param` of ``expr``: a run-time register, read by the
        items in the pipeline as they pass (change it only while the pipeline is empty).

    Attributes
    ----------
    latency : int
        Cycles from taking an item to offering its result when ``o`` is not stalled.
    """

    def __init__(self, expr: Expr, operands: dict, tag_width: int = 0, *,
                 lzc_stage: bool = False, registered_logic: bool = True):
        if not isinstance(expr, Expr):
            raise ConfigError(f"Datapath: expr must be a graphgen.programs expression, got "
                              f"{expr!r}")
        check_int("Datapath", "tag_width", tag_width, low=0)
        self._expr = expr
        self._operands = self._checked_operands(operands)
        self._params = self._checked_params(expr)
        self._lzc_stage = bool(lzc_stage)
        self._registered_logic = bool(registered_logic)
        self._schedule = Schedule.of(expr, self._lzc_stage, self._registered_logic)
        self._tag_width = tag_width
        fields = {name: shape_of(type_) for name, type_ in self._operands.items()}
        members = {
            "i": In(stream.Signature(data.StructLayout({**fields, "tag": tag_width}))),
            "o": Out(stream.Signature(data.StructLayout({"result": shape_of(expr.type),
                                                         "tag": tag_width}))),
        }
        for name, param in self._params.items():
            members[name] = In(shape_of(param.type), init=_bits(param.default, param.type))
        super().__init__(members)

    def _checked_operands(self, operands) -> dict:
        if not isinstance(operands, dict):
            raise ConfigError(f"Datapath: operands must be a dict of name to type, got "
                              f"{operands!r}")
        for name, type_ in operands.items():
            if not isinstance(name, str) or not name.isidentifier() or name in _RESERVED:
                raise ConfigError(f"Datapath: operand name {name!r} is not an identifier or "
                                  f"is reserved ({', '.join(sorted(_RESERVED))})")
            if not is_type(type_):
                raise ConfigError(f"Datapath: operand {name}: {type_!r} is not a type")
            if _lanes(type_) > MAX_LANES:
                raise ConfigError(f"Datapath: operand {name}: {type_} has more than "
                                  f"{MAX_LANES} lanes, more than one beat (wider vectors "
                                  f"need flits)")
        for node in walk(self._expr):
            if isinstance(node, Operand) and operands.get(node.role) != node.type:
                given = operands.get(node.role, "nothing")
                raise ConfigError(f"Datapath: the expression reads operand {node.role} of "
                                  f"type {node.type}, the operands give {given}")
        return dict(operands)

    def _checked_params(self, expr: Expr) -> dict:
        params: dict[str, Param] = {}
        for node in walk(expr):
            if not isinstance(node, Param):
                continue
            if node.name in _RESERVED or hasattr(Datapath, node.name) or \
                    node.name in self._operands:
                raise ConfigError(f"Datapath: parameter name {node.name!r} is reserved or "
                                  f"an operand's")
            if params.setdefault(node.name, node) != node:
                raise ConfigError(f"Datapath: parameter {node.name} is used with two types "
                                  f"or defaults")
        return params

    @property
    def latency(self) -> int:
        return self._schedule.latency

    @property
    def params(self) -> dict:
        """Each parameter's name and its :class:`~graphgen.programs.Param` (type, default)."""
        return dict(self._params)

    def elaborate(self, platform):
        return _Builder(self).module


class _Builder:
    """Builds a :class:`Datapath`: every node at its scheduled stage, each operand delayed by
    registers to the stage of its user, all registers moving with one enable."""

    def __init__(self, datapath: Datapath):
        self.m = m = Module()
        self.dp = datapath
        self.enable = Signal()
        m.d.comb += [self.enable.eq(~datapath.o.valid | datapath.o.ready),
                     datapath.i.ready.eq(self.enable)]
        self.ready = datapath._schedule.ready
        self.values: dict = {}       # node -> its value at its ready stage
        self.delayed: dict = {}      # node -> [value at ready, at ready + 1, ...]
        self.count = 0
        for node in walk(datapath._expr):
            if node not in self.values:
                self.values[node] = self._build(node)
        latency = datapath.latency
        valid, tag = datapath.i.valid, datapath.i.payload.tag
        for stage in range(1, latency + 1):
            valid = self._register(valid, f"valid{stage}", reset=True)
            tag = self._register(tag, f"tag{stage}")
        m.d.comb += [datapath.o.valid.eq(valid), datapath.o.payload.tag.eq(tag),
                     Value.cast(datapath.o.payload.result).eq(self._at(datapath._expr, latency))]
        self.module = m

    def _register(self, value, name, *, reset=False):
        value = Value.cast(value)
        register = Signal(len(value), name=name, reset_less=not reset)
        with self.m.If(self.enable):
            self.m.d.sync += register.eq(value)
        return register

    def _at(self, node, stage):
        """``node``'s value at ``stage`` (at or after its ready stage)."""
        ready = self.ready[node]
        if ready is None:
            return self.values[node]
        chain = self.delayed.setdefault(node, [self.values[node]])
        while ready + len(chain) - 1 < stage:
            chain.append(self._register(chain[-1], self._name("delay")))
        return chain[stage - ready]

    def _name(self, what):
        self.count += 1
        return f"{what}{self.count}"

    def _build(self, node):
        dp = self.dp
        if isinstance(node, Operand):
            return Value.cast(dp.i.payload[node.role])
        if isinstance(node, Param):
            return getattr(dp, node.name)
        if isinstance(node, Const):
            return HDLConst(_bits(node.value, node.type), shape_of(node.type))
        start = max((self.ready[a] for a in node.args if self.ready[a] is not None),
                    default=0)
        args = [self._at(a, start) for a in node.args]
        name = node.name
        if name == "shl":
            return (args[0] << node.amount)[:node.type.width]
        if name == "shr":
            return args[0] >> node.amount
        if name == "resize":
            a = args[0]
            return a[:node.type.width] if len(a) >= node.type.width else \
                Cat(a, HDLConst(0, node.type.width - len(a)))
        if name == "select":
            return self._logic(Mux(args[0], args[1], args[2]), "select")
        if name in INTEGER_OPERATIONS:
            return self._logic(INTEGER_OPERATIONS[name](*args), name)
        if name in FLOAT_COMPARES:
            return self._logic(FLOAT_COMPARES[name](*args), name)
        if name == "reciprocal":
            return self._reciprocal(args[0])
        if name == "lane_sum":
            return self._lane_sum(args[0], node.args[0].type.lanes)
        return self._float(name, args, _lanes(node.type))

    def _logic(self, value, name):
        if not self.dp._registered_logic:
            return Value.cast(value)
        return self._register(value, self._name(name))

    def _unit(self, cls, a, b, **options):
        """One FP32 unit, fed every cycle and moving with the enable."""
        unit = cls(tag_width=0, **options)
        self.m.submodules[self._name(cls.__name__)] = unit
        # Its input is always valid, so it is full after its first ``latency`` cycles, none
        # of them stalled (no result can reach ``o`` before): from then on its output is
        # always valid and it advances exactly when ``o.ready`` (the enable) lets it.
        self.m.d.comb += [unit.i.valid.eq(1), unit.i.payload.a.eq(a),
                          unit.i.payload.b.eq(b), unit.o.ready.eq(self.enable)]
        return unit.o.payload.result

    def _adder(self, a, b):
        return self._unit(FP32Adder, a, b, lzc_stage=self.dp._lzc_stage)

    def _float(self, name, args, lanes):
        a, b = args
        if name == "scale":
            b = Cat(*([b] * lanes))
        if name in ("fsub", "vsub"):
            b = b ^ HDLConst(sum(SIGN_BIT << (32 * k) for k in range(lanes)), 32 * lanes)
        results = []
        for k in range(lanes):
            x, y = a[32 * k:32 * k + 32], b[32 * k:32 * k + 32]
            if name in ("fadd", "fsub", "vadd", "vsub"):
                results.append(self._adder(x, y))
            elif name in ("fmul", "vmul", "scale"):
                results.append(self._unit(FP32Multiplier, x, y))
            else:
                results.append(self._unit(FP32Divider, x, y))
        return Cat(*results)

    def _lane_sum(self, vector, lanes):
        # golden.algorithms.pairwise_sum's order: padded with +0.0 to a power of two, then
        # neighbours added level by level
        values = [vector[32 * k:32 * k + 32] for k in range(lanes)]
        values += [HDLConst(0, 32)] * ((1 << lane_sum_levels(lanes)) - lanes)
        while len(values) > 1:
            values = [self._adder(values[k], values[k + 1]) for k in range(0, len(values), 2)]
        return values[0]

    def _reciprocal(self, value):
        # 1 / float32(d): d rounded to float32 (a register stage), the reciprocal of its
        # significand, then its exponent lowered by the shift, which rides as the side value
        significand, shift = float32_significand(value)
        significand = self._register(significand, self._name("significand"))
        shift = self._register(shift, self._name("shift"))
        unit = Reciprocal(side_shape=4)
        self.m.submodules[self._name("reciprocal")] = unit
        # Always fed, as the FP32 units (see _unit).
        self.m.d.comb += [unit.i.valid.eq(1), unit.i.payload.value.eq(significand),
                          unit.i.payload.side.eq(shift), unit.o.ready.eq(self.enable)]
        bits, side = unit.o.payload.bits, unit.o.payload.side
        # 1 / float32(d) >= 2**-32: the lowered exponent stays normal
        return Cat(bits[:23], (bits[23:31] - side)[:8], bits[31])
