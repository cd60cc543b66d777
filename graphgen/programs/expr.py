"""The expression vocabulary of vertex programs: typed, immutable, hashable trees.

A vertex program's functions (Graphicionado's Process_Edge and Apply, Ham et al. MICRO 2016
§3.1, table I; the initial values and the vertex constant on the host side) are written as
trees of these nodes. Each node is type-checked when it is built, and every operation maps
onto one unit of ``hw/lib/arith`` (see :data:`OPERATIONS`), so one tree becomes both a
vectorised NumPy function (``golden.programs``) and a pipelined datapath.

Types
    ``UInt(width)`` (1..32 bits; ``BOOL`` is ``UInt(1)``), ``Float32`` (IEEE binary32) and
    ``Float32Vector(lanes)`` (a vertex property of K float32 lanes, Graphicionado §IV.E).

Leaves
    :class:`Const` (``uint(5)``, ``f32(0.85)``), :class:`Param` (a run-time parameter with a
    default: a register of the generated design), :class:`Operand` (an input of the function,
    such as ``src_prop``; programs receive them from :mod:`graphgen.programs.program`) and
    :class:`Random` (host-side uniform [0, 1) initial values).

Operations are explicit functions, not Python operators: ``==`` stays structural equality
(nodes are dictionary keys) and ``+`` would hide whether an integer add saturates. Where an
operation takes two operands, a bare Python number is lifted to the other operand's type.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

__all__ = [
    "ProgramError", "UInt", "Float32", "Float32Vector", "BOOL", "Type", "Expr", "Const",
    "Param", "Operand", "Random", "Op", "OPERATIONS", "uint", "f32",
    "sat_add", "sat_sub", "minimum", "maximum", "lt", "le", "eq", "ne", "select",
    "shl", "shr", "bit_and", "bit_or", "bit_xor", "resize",
    "fadd", "fsub", "fmul", "fdiv", "flt", "fle", "feq", "fne", "reciprocal",
    "vadd", "vsub", "vmul", "scale", "lane_sum", "dot", "walk", "checked",
]


class ProgramError(ValueError):
    """A vertex program that cannot be built: a type error or a refused definition."""


# ---------------------------------------------------------------------------- types

MAX_LANES = 1024


@dataclass(frozen=True)
class UInt:
    """An unsigned integer of ``width`` bits (1..32)."""

    width: int

    def __post_init__(self) -> None:
        if isinstance(self.width, bool) or not isinstance(self.width, Integral) \
                or not 1 <= self.width <= 32:
            raise ProgramError(f"UInt width must be an integer in 1..32, got {self.width!r}")

    @property
    def max(self) -> int:
        return (1 << self.width) - 1

    def __repr__(self) -> str:
        return f"UInt({self.width})"


@dataclass(frozen=True)
class _Float32Type:
    """IEEE 754 binary32, every operation rounded to nearest even."""

    def __repr__(self) -> str:
        return "Float32"


Float32 = _Float32Type()


@dataclass(frozen=True)
class Float32Vector:
    """``lanes`` float32 values per vertex (1..1024), operated on lane by lane."""

    lanes: int

    def __post_init__(self) -> None:
        if isinstance(self.lanes, bool) or not isinstance(self.lanes, Integral) \
                or not 1 <= self.lanes <= MAX_LANES:
            raise ProgramError(f"Float32Vector lanes must be an integer in 1..{MAX_LANES}, "
                               f"got {self.lanes!r}")

    def __repr__(self) -> str:
        return f"Float32Vector({self.lanes})"


Type = UInt | _Float32Type | Float32Vector
BOOL = UInt(1)


def is_type(value: object) -> bool:
    return isinstance(value, (UInt, _Float32Type, Float32Vector))


# ---------------------------------------------------------------------------- nodes

class Expr:
    """A node of an expression tree; ``type`` is its result type."""

    type: Type

    def __bool__(self) -> bool:
        raise ProgramError("an expression has no truth value while the program is built; "
                           "use select(cond, a, b)")


def _float32(value: Real) -> float:
    with np.errstate(over="ignore"):
        return float(np.float32(value))


def _check_value(value: object, type_: Type, what: str) -> int | float:
    """``value`` as the canonical Python number of a scalar ``type_``."""
    if isinstance(type_, UInt):
        if isinstance(value, bool) or not isinstance(value, Integral) \
                or not 0 <= value <= type_.max:
            raise ProgramError(f"{what}: {value!r} is not a {type_} value (0..{type_.max})")
        return int(value)
    if isinstance(type_, _Float32Type):
        if isinstance(value, bool) or not isinstance(value, Real):
            raise ProgramError(f"{what}: {value!r} is not a number")
        return _float32(value)
    raise ProgramError(f"{what}: constants and parameters are scalars, not {type_}")


@dataclass(frozen=True, eq=True)
class Const(Expr):
    """A constant scalar (an integer, or a float rounded to float32)."""

    value: int | float
    type: Type

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _check_value(self.value, self.type, "constant"))

    def __eq__(self, other: object) -> bool:     # bit equality: +0.0 != -0.0, NaN == NaN
        return isinstance(other, Const) and self.type == other.type and \
            _bits(self.value) == _bits(other.value)

    def __hash__(self) -> int:
        return hash((self.type, _bits(self.value)))


def _bits(value: int | float) -> object:
    return ("f", int(np.float32(value).view(np.uint32))) if isinstance(value, float) else value


@dataclass(frozen=True)
class Param(Expr):
    """A run-time parameter with a default value (a register of the generated design)."""

    name: str
    type: Type
    default: int | float

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ProgramError(f"parameter name must be an identifier, got {self.name!r}")
        object.__setattr__(self, "default",
                           _check_value(self.default, self.type, f"parameter {self.name}"))


@dataclass(frozen=True)
class Operand(Expr):
    """An input of a program function, e.g. ``src_prop`` (see graphgen.programs.program)."""

    role: str
    type: Type

    def __post_init__(self) -> None:
        if not isinstance(self.role, str) or not self.role.isidentifier():
            raise ProgramError(f"operand role must be an identifier, got {self.role!r}")
        if not is_type(self.type):
            raise ProgramError(f"operand {self.role}: {self.type!r} is not a type")


@dataclass(frozen=True)
class Random(Expr):
    """Host side only: uniform [0, 1) float32 values, ``np.random.default_rng(seed)``'s
    ``random((n, lanes), dtype=float32)`` (``(n,)`` for Float32), one per vertex."""

    type: Type
    seed: Expr

    def __post_init__(self) -> None:
        if not isinstance(self.type, (_Float32Type, Float32Vector)):
            raise ProgramError(f"random: gives Float32 or Float32Vector values, not {self.type}")
        if not isinstance(self.seed, (Const, Param)) or self.seed.type != UInt(32):
            raise ProgramError("random: the seed must be a UInt(32) constant or parameter")


@dataclass(frozen=True)
class Op(Expr):
    """``name`` applied to ``args``; ``amount`` is a shift distance or a resize width."""

    name: str
    args: tuple[Expr, ...]
    type: Type
    amount: int = 0


#: every operation, the unit of hw/lib/arith (or the plain logic) a datapath builds it from
OPERATIONS: dict[str, str] = {
    "sat_add": "integer.SaturatingAdd: a + b, saturating at the largest value",
    "sat_sub": "integer subtract: a - b, saturating at 0",
    "min": "integer.Minimum",
    "max": "integer compare and multiplexer",
    "lt": "integer compare", "le": "integer compare", "eq": "integer compare",
    "ne": "integer compare",
    "select": "multiplexer",
    "shl": "wiring (shift by a constant)", "shr": "wiring (shift by a constant)",
    "and": "gates", "or": "gates", "xor": "gates", "resize": "wiring (truncate or zero-extend)",
    "fadd": "fp32.FP32Adder", "fsub": "fp32.FP32Adder, b's sign flipped",
    "fmul": "fp32.FP32Multiplier", "fdiv": "fp32.FP32Divider",
    "flt": "FP32 compare", "fle": "FP32 compare", "feq": "FP32 compare", "fne": "FP32 compare",
    "reciprocal": "fp32_reciprocal.Reciprocal: float32(1) / float32(x), 0.0 for x = 0",
    "vadd": "fp32_vector.FP32Lanes('add')", "vsub": "fp32_vector.FP32Lanes('add'), b negated",
    "vmul": "fp32_vector.FP32Lanes('mul')",
    "scale": "fp32_vector.FP32Lanes('mul'), the scalar on every lane",
    "lane_sum": "fp32_vector.FP32TreeSum then FP32PairSum (golden.algorithms.pairwise_sum)",
}


def walk(expr: Expr):
    """Every node of the tree, each distinct node once, children before parents."""
    seen: set[int] = set()
    order: list[Expr] = []
    stack: list[tuple[Expr, bool]] = [(expr, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in seen:
            continue
        if expanded:
            seen.add(id(node))
            order.append(node)
            continue
        stack.append((node, True))
        children = node.args if isinstance(node, Op) else \
            (node.seed,) if isinstance(node, Random) else ()
        stack.extend((child, False) for child in reversed(children))
    return order


# ---------------------------------------------------------------------------- constructors

def uint(value: int, width: int = 32) -> Const:
    """An unsigned constant of ``width`` bits."""
    return Const(value, UInt(width))


def f32(value: float) -> Const:
    """A float32 constant (``value`` rounded to nearest float32)."""
    return Const(value, Float32)


def _expr(op: str, value: object, like: Type | None) -> Expr:
    if isinstance(value, Expr):
        return value
    if isinstance(value, (Integral, Real)) and not isinstance(value, bool) and like is not None:
        scalar = Float32 if isinstance(like, Float32Vector) else like
        if isinstance(scalar, UInt) and not isinstance(value, Integral):
            raise ProgramError(f"{op}: {value!r} is not an integer for a {scalar} operand")
        if isinstance(scalar, UInt) and not 0 <= value <= scalar.max:
            raise ProgramError(f"{op}: {value!r} does not fit the {scalar} operand")
        return Const(value, scalar)
    raise ProgramError(f"{op}: operand {value!r} is not an expression")


def _pair(op: str, a: object, b: object) -> tuple[Expr, Expr]:
    like_a = a.type if isinstance(a, Expr) else None
    like_b = b.type if isinstance(b, Expr) else None
    if like_a is None and like_b is None:
        raise ProgramError(f"{op}: at least one operand must be an expression")
    return _expr(op, a, like_b), _expr(op, b, like_a)


def _fail(op: str, want: str, *args: Expr) -> ProgramError:
    got = " and ".join(repr(a.type) for a in args)
    return ProgramError(f"{op}: operands must be {want}, got {got}")


def _uint_pair(op: str, a: object, b: object) -> tuple[Expr, Expr]:
    a, b = _pair(op, a, b)
    if not (isinstance(a.type, UInt) and a.type == b.type):
        raise _fail(op, "UInt of the same width", a, b)
    return a, b


def _float_pair(op: str, a: object, b: object) -> tuple[Expr, Expr]:
    a, b = _pair(op, a, b)
    if not (a.type is Float32 and b.type is Float32):
        raise _fail(op, "Float32 scalars", a, b)
    return a, b


def _vector_pair(op: str, a: object, b: object) -> tuple[Expr, Expr]:
    a, b = _pair(op, a, b)
    if not (isinstance(a.type, Float32Vector) and a.type == b.type):
        raise _fail(op, "Float32Vector of the same lanes", a, b)
    return a, b


def sat_add(a, b) -> Op:
    """``a + b``, saturating at the type's largest value (so "unreachable" stays so)."""
    a, b = _uint_pair("sat_add", a, b)
    return Op("sat_add", (a, b), a.type)


def sat_sub(a, b) -> Op:
    """``a - b``, saturating at 0."""
    a, b = _uint_pair("sat_sub", a, b)
    return Op("sat_sub", (a, b), a.type)


def minimum(a, b) -> Op:
    """The smaller of two unsigned integers."""
    a, b = _uint_pair("min", a, b)
    return Op("min", (a, b), a.type)


def maximum(a, b) -> Op:
    """The larger of two unsigned integers."""
    a, b = _uint_pair("max", a, b)
    return Op("max", (a, b), a.type)


def _compare(op: str, a, b) -> Op:
    a, b = _uint_pair(op, a, b)
    return Op(op, (a, b), BOOL)


def lt(a, b) -> Op:
    """``a < b`` of unsigned integers, a ``BOOL``."""
    return _compare("lt", a, b)


def le(a, b) -> Op:
    """``a <= b`` of unsigned integers."""
    return _compare("le", a, b)


def eq(a, b) -> Op:
    """``a == b`` of unsigned integers."""
    return _compare("eq", a, b)


def ne(a, b) -> Op:
    """``a != b`` of unsigned integers."""
    return _compare("ne", a, b)


def select(cond, a, b) -> Op:
    """``a`` where ``cond`` (a ``BOOL``) is 1, else ``b``; ``a`` and ``b`` of one type."""
    cond = _expr("select", cond, BOOL)
    if cond.type != BOOL:
        raise ProgramError(f"select: the condition must be {BOOL!r} (a compare), "
                           f"got {cond.type!r}")
    a, b = _pair("select", a, b)
    if a.type != b.type:
        raise _fail("select", "of one type", a, b)
    return Op("select", (cond, a, b), a.type)


def _shift(op: str, a, amount: int) -> Op:
    a = _expr(op, a, None)
    if not isinstance(a.type, UInt):
        raise ProgramError(f"{op}: shifts an unsigned integer, got {a.type!r}")
    if isinstance(amount, bool) or not isinstance(amount, Integral) \
            or not 0 <= amount < a.type.width:
        raise ProgramError(f"{op}: the shift must be a constant in 0..{a.type.width - 1}, "
                           f"got {amount!r}")
    return Op(op, (a,), a.type, int(amount))


def shl(a, amount: int) -> Op:
    """``a << amount`` (a constant), truncated to ``a``'s width."""
    return _shift("shl", a, amount)


def shr(a, amount: int) -> Op:
    """``a >> amount`` (a constant), zeros shifted in."""
    return _shift("shr", a, amount)


def bit_and(a, b) -> Op:
    """Bitwise and (on ``BOOL`` values, logical and)."""
    a, b = _uint_pair("and", a, b)
    return Op("and", (a, b), a.type)


def bit_or(a, b) -> Op:
    """Bitwise or."""
    a, b = _uint_pair("or", a, b)
    return Op("or", (a, b), a.type)


def bit_xor(a, b) -> Op:
    """Bitwise exclusive or."""
    a, b = _uint_pair("xor", a, b)
    return Op("xor", (a, b), a.type)


def resize(a, width: int) -> Op:
    """``a`` as ``UInt(width)``: zero-extended, or truncated to its low bits."""
    a = _expr("resize", a, None)
    if not isinstance(a.type, UInt):
        raise ProgramError(f"resize: resizes an unsigned integer, got {a.type!r}")
    if isinstance(width, bool) or not isinstance(width, Integral) or not 1 <= width <= 32:
        raise ProgramError(f"resize: the width must be an integer in 1..32, got {width!r}")
    return Op("resize", (a,), UInt(width), int(width))


def fadd(a, b) -> Op:
    """``a + b`` in float32."""
    a, b = _float_pair("fadd", a, b)
    return Op("fadd", (a, b), Float32)


def fsub(a, b) -> Op:
    """``a - b`` in float32 (IEEE: the same as ``a + (-b)``)."""
    a, b = _float_pair("fsub", a, b)
    return Op("fsub", (a, b), Float32)


def fmul(a, b) -> Op:
    """``a * b`` in float32."""
    a, b = _float_pair("fmul", a, b)
    return Op("fmul", (a, b), Float32)


def fdiv(a, b) -> Op:
    """``a / b`` in float32."""
    a, b = _float_pair("fdiv", a, b)
    return Op("fdiv", (a, b), Float32)


def _fcompare(op: str, a, b) -> Op:
    a, b = _float_pair(op, a, b)
    return Op(op, (a, b), BOOL)


def flt(a, b) -> Op:
    """``a < b`` of float32 values (false when either is NaN)."""
    return _fcompare("flt", a, b)


def fle(a, b) -> Op:
    """``a <= b`` of float32 values (false when either is NaN)."""
    return _fcompare("fle", a, b)


def feq(a, b) -> Op:
    """``a == b`` of float32 values (+0.0 equals -0.0; NaN equals nothing)."""
    return _fcompare("feq", a, b)


def fne(a, b) -> Op:
    """``a != b`` of float32 values (true when either is NaN)."""
    return _fcompare("fne", a, b)


def reciprocal(a) -> Op:
    """``float32(1) / float32(a)`` of an unsigned integer, 0.0 where ``a`` is 0 (PageRank's
    1 / out-degree)."""
    a = _expr("reciprocal", a, None)
    if not isinstance(a.type, UInt):
        raise ProgramError(f"reciprocal: takes an unsigned integer, got {a.type!r}")
    return Op("reciprocal", (a,), Float32)


def vadd(a, b) -> Op:
    """Lane-wise float32 ``a + b``."""
    a, b = _vector_pair("vadd", a, b)
    return Op("vadd", (a, b), a.type)


def vsub(a, b) -> Op:
    """Lane-wise float32 ``a - b``."""
    a, b = _vector_pair("vsub", a, b)
    return Op("vsub", (a, b), a.type)


def vmul(a, b) -> Op:
    """Lane-wise float32 ``a * b``."""
    a, b = _vector_pair("vmul", a, b)
    return Op("vmul", (a, b), a.type)


def scale(vector, scalar) -> Op:
    """Every lane of ``vector`` times the float32 ``scalar``."""
    vector = _expr("scale", vector, None)
    scalar = _expr("scale", scalar, Float32)
    if not isinstance(vector.type, Float32Vector) or scalar.type is not Float32:
        raise _fail("scale", "a Float32Vector and a Float32", vector, scalar)
    return Op("scale", (vector, scalar), vector.type)


def lane_sum(vector) -> Op:
    """The float32 sum of the lanes in ``golden.algorithms.pairwise_sum``'s order: padded with
    +0.0 to a power of two, neighbours added level by level."""
    vector = _expr("lane_sum", vector, None)
    if not isinstance(vector.type, Float32Vector):
        raise ProgramError(f"lane_sum: sums a Float32Vector, got {vector.type!r}")
    return Op("lane_sum", (vector,), Float32)


def dot(a, b) -> Op:
    """The dot product: ``lane_sum(vmul(a, b))``."""
    a, b = _vector_pair("dot", a, b)
    return lane_sum(vmul(a, b))


_CONSTRUCTORS = {"min": minimum, "max": maximum, "and": bit_and, "or": bit_or, "xor": bit_xor}


def checked(node: Op) -> Op:
    """``node`` if its constructor function builds it from its operands; raises the
    constructor's error for a node built directly with the wrong types."""
    if node.name not in OPERATIONS:
        raise ProgramError(f"{node.name!r} is an operation the hardware cannot build "
                           f"(operations: {', '.join(OPERATIONS)})")
    constructor = _CONSTRUCTORS.get(node.name) or globals()[node.name]
    shaped = node.name in ("shl", "shr", "resize")
    again = constructor(node.args[0], node.amount) if shaped else constructor(*node.args)
    if again != node:
        raise ProgramError(f"{node.name}: built with type {node.type!r}, its operands give "
                           f"{again.type!r}")
    return node
