"""Vector expressions evaluated flit by flit (Graphicionado §IV.E: a K-word property crosses
the 32-byte datapath as K / lanes flits of ``lanes`` words).

:class:`FlitSplit` cuts a ``Float32Vector(K)`` expression at its lane sum (``dot`` is
``lane_sum(vmul(a, b))``), the one place where a lane depends on other flits:

* ``reduce``: the lane sum of one flit, ``lane_sum(v)`` with ``v`` at ``lanes`` lanes;
  :class:`FlitReduce` computes it per flit and adds the flits' partial sums pairwise, which
  continues ``golden.algorithms.pairwise_sum``'s tree across the packet (K and ``lanes`` are
  powers of two);
* ``scalar``: the scalar the lane-wise part reads (``error = weight - dot``), once per
  packet, with the lane sum as operand :data:`REDUCED`;
* ``lanes``: the lane-wise part at ``lanes`` lanes, with that scalar as operand
  :data:`SCALAR`, evaluated on each flit again (the flits wait for their scalar).

An expression without a lane sum is its lane-wise part alone. Refused with one
:class:`ConfigError` line: vectors of different lengths, more than one lane sum, a lane sum
of a vector that depends on a lane sum (a dot of a dot), and two scalars of the lane sum
read by the lane-wise part.
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth.hdl import Cat, Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from graphgen.programs.expr import Expr, Float32, Float32Vector, Op, Operand, walk
from hw.lib.arith.fp32 import FP32Adder
from hw.lib.arith.fp32_vector import FP32PairSum
from hw.lib.config import ConfigError, check_int, is_power_of_two

from .datapath import Datapath, _bits, operands_of, shape_of

__all__ = ["REDUCED", "SCALAR", "FlitSplit", "FlitReduce", "swap_roles", "symmetric_in",
           "flit_operands"]

#: the operand of ``scalar`` that is the packet's lane sum
REDUCED = "lane_total"
#: the operand of ``lanes`` that is the packet's scalar
SCALAR = "packet_scalar"

_COMMUTATIVE = frozenset({"fadd", "fmul", "vadd", "vmul", "sat_add", "min", "max", "and",
                          "or", "xor", "eq", "ne", "feq", "fne"})


def _rebuilt(expr: Expr, change) -> Expr:
    """``expr`` with every node rebuilt bottom-up by ``change(node, new_args)``."""
    done: dict = {}
    for node in walk(expr):
        args = tuple(done[a] for a in node.args) if isinstance(node, Op) else ()
        done[node] = change(node, args)
    return done[expr]


def _at_lanes(expr: Expr, lanes: int, replace: dict) -> Expr:
    """``expr`` with its vectors at ``lanes`` lanes and the nodes of ``replace`` replaced."""
    vector = Float32Vector(lanes)

    def change(node, args):
        if node in replace:
            return replace[node]
        if isinstance(node, Operand) and isinstance(node.type, Float32Vector):
            return Operand(node.role, vector)
        if isinstance(node, Op):
            type_ = vector if isinstance(node.type, Float32Vector) else node.type
            return Op(node.name, args, type_, node.amount)
        return node
    return _rebuilt(expr, change)


def swap_roles(expr: Expr, a: str, b: str) -> Expr:
    """``expr`` reading operand ``b`` where it read ``a`` and ``a`` where it read ``b``."""
    roles = {a: b, b: a}

    def change(node, args):
        if isinstance(node, Operand) and node.role in roles:
            return Operand(roles[node.role], node.type)
        return Op(node.name, args, node.type, node.amount) if isinstance(node, Op) else node
    return _rebuilt(expr, change)


def _canonical(expr: Expr):
    """A form equal for expressions that differ only in the order of commutative operands
    (IEEE addition and multiplication commute bit for bit)."""
    def change(node, args):
        if not isinstance(node, Op):
            return node
        if node.name in _COMMUTATIVE:
            args = tuple(sorted(args, key=repr))
        return (node.name, args, node.type, node.amount)
    return _rebuilt(expr, change)


def symmetric_in(expr: Expr | None, a: str, b: str) -> bool:
    """``expr`` gives the same bits with operands ``a`` and ``b`` swapped."""
    return expr is None or _canonical(expr) == _canonical(swap_roles(expr, a, b))


def flit_operands(expr: Expr | None) -> dict:
    """The operands ``expr`` reads, as :func:`operands_of`; none for no expression."""
    return {} if expr is None else operands_of(expr)


@dataclass(frozen=True)
class FlitSplit:
    """A ``Float32Vector`` expression cut at its lane sum (see the module docstring).

    Attributes
    ----------
    lanes : Expr
        The lane-wise part at ``lanes`` lanes, reading :data:`SCALAR` when ``reduce`` is set.
    reduce : Expr or None
        ``lane_sum`` of one flit's vector (a Float32).
    scalar : Expr or None
        The packet's scalar from :data:`REDUCED` (None: the lane sum itself).
    """

    lanes: Expr
    reduce: Expr | None = None
    scalar: Expr | None = None

    @classmethod
    def of(cls, expr: Expr, lanes: int, what: str = "expression") -> "FlitSplit":
        if not isinstance(expr.type, Float32Vector):
            raise ConfigError(f"{what}: gives {expr.type}, not a Float32Vector")
        nodes = walk(expr)
        lengths = sorted({node.type.lanes for node in nodes
                          if isinstance(node.type, Float32Vector)})
        if len(lengths) > 1:
            raise ConfigError(f"{what}: vectors of different lengths "
                              f"({', '.join(map(str, lengths))} lanes) are not built")
        for node in nodes:
            if isinstance(node, Operand) and node.role in (REDUCED, SCALAR):
                raise ConfigError(f"{what}: operand name {node.role} is reserved")
        # equal nodes (built twice) are one value, computed once
        sums = list(dict.fromkeys(node for node in nodes
                                  if isinstance(node, Op) and node.name == "lane_sum"))
        for total in sums:
            if any(isinstance(n, Op) and n.name == "lane_sum" for n in walk(total.args[0])):
                raise ConfigError(f"{what}: a lane sum (dot) of a vector computed from "
                                  f"another lane sum is not built")
        if len(sums) > 1:
            raise ConfigError(f"{what}: {len(sums)} lane sums (dots); one per expression is "
                              f"built")
        if not sums:
            return cls(_at_lanes(expr, lanes, {}))
        total = sums[0]
        depends = {total}
        for node in nodes:
            if isinstance(node, Op) and any(a in depends for a in node.args):
                depends.add(node)
        # the scalars of the lane sum that a vector operation reads: computed once a packet
        barriers = {a for node in nodes if isinstance(node, Op) and
                    isinstance(node.type, Float32Vector)
                    for a in node.args if a in depends and not isinstance(a.type, Float32Vector)}
        if len(barriers) > 1:
            raise ConfigError(f"{what}: the lane-wise part reads {len(barriers)} scalars "
                              f"computed from the lane sum; one is built")
        barrier = barriers.pop()
        reduce = Op("lane_sum", (_at_lanes(total.args[0], lanes, {}),), Float32)
        scalar = None if barrier == total else \
            _rebuilt(barrier, lambda node, args: Operand(REDUCED, Float32) if node == total
                     else Op(node.name, args, node.type, node.amount)
                     if isinstance(node, Op) else node)
        mapped = _at_lanes(expr, lanes, {barrier: Operand(SCALAR, barrier.type)})
        return cls(mapped, reduce, scalar)

    @property
    def scalar_type(self):
        """The type of the packet's scalar (None without a lane sum)."""
        if self.reduce is None:
            return None
        return Float32 if self.scalar is None else self.scalar.type


class FlitReduce(wiring.Component):
    """A packet's scalar from its flits: ``split.reduce`` on each flit, the flits' partial
    sums added two by two (:class:`FP32PairSum`, log2(``flits``) levels), then
    ``split.scalar``; one result a packet, with the tag of its last flit.

    Parameters
    ----------
    split : FlitSplit
        With a lane sum.
    flits : int
        Flits of a packet, a power of two.
    tag_width : int
    lzc_stage : bool
        As :class:`Datapath`'s.

    Members
    -------
    i : ``In(stream.Signature({<operand>: shape, ..., tag}))``
        A flit: each operand ``reduce`` and ``scalar`` read (vectors at the flit's lanes;
        scalars are taken from the packet's last flit).
    o : ``Out(stream.Signature({result: shape_of(split.scalar_type), tag}))``
    <param> : ``In(shape)``
        Each parameter of the two expressions.

    Attributes
    ----------
    latency : int
        Cycles from a packet's last flit to its scalar, nothing stalled.
    """

    def __init__(self, split: FlitSplit, flits: int, tag_width: int = 0, *,
                 lzc_stage: bool = False):
        if not isinstance(split, FlitSplit) or split.reduce is None:
            raise ConfigError("FlitReduce: needs a FlitSplit with a lane sum")
        check_int("FlitReduce", "flits", flits, low=1)
        if not is_power_of_two(flits):
            raise ConfigError(f"FlitReduce: flits must be a power of two, not {flits}")
        reads = {**flit_operands(split.reduce), **flit_operands(split.scalar)}
        reads.pop(REDUCED, None)
        self._reads = reads
        self._carried = {role: type_ for role, type_ in flit_operands(split.scalar).items()
                         if role != REDUCED}
        carried_width = sum(shape_of(type_) for type_ in self._carried.values())
        self._partial = Datapath(split.reduce, flit_operands(split.reduce),
                                 tag_width=carried_width + tag_width, lzc_stage=lzc_stage)
        self._scalar = None if split.scalar is None else Datapath(
            split.scalar, flit_operands(split.scalar), tag_width=tag_width,
            lzc_stage=lzc_stage)
        self._levels = flits.bit_length() - 1
        self._tag_width = tag_width
        self._split = split
        self._params = {**self._partial.params,
                        **(self._scalar.params if self._scalar else {})}
        fields = {role: shape_of(type_) for role, type_ in self._reads.items()}
        members = {
            "i": In(stream.Signature(data.StructLayout({**fields, "tag": tag_width}))),
            "o": Out(stream.Signature(data.StructLayout({
                "result": shape_of(split.scalar_type), "tag": tag_width}))),
        }
        for name, param in self._params.items():
            members[name] = In(shape_of(param.type), init=_bits(param.default, param.type))
        super().__init__(members)

    @property
    def latency(self) -> int:
        return (self._partial.latency + self._levels * FP32Adder.latency +
                (self._scalar.latency if self._scalar else 0))

    def elaborate(self, platform):
        m = Module()
        m.submodules.partial = partial = self._partial
        for name in partial.params:
            m.d.comb += getattr(partial, name).eq(getattr(self, name))
        carried = Cat(*(self.i.payload[role] for role in self._carried))
        m.d.comb += [partial.i.payload[role].eq(self.i.payload[role])
                     for role in flit_operands(self._split.reduce)]
        m.d.comb += [
            partial.i.valid.eq(self.i.valid),
            partial.i.payload.tag.eq(Cat(self.i.payload.tag, carried)),
            self.i.ready.eq(partial.i.ready),
        ]
        total = partial.o
        tag_width = len(partial.o.payload.tag)
        for level in range(self._levels):
            pair = FP32PairSum(tag_width)
            m.submodules[f"pair_sum{level}"] = pair
            m.d.comb += [
                pair.i.valid.eq(total.valid),
                pair.i.payload.value.eq(total.payload.result),
                pair.i.payload.tag.eq(total.payload.tag),
                total.ready.eq(pair.i.ready),
            ]
            total = pair.o
        if self._scalar is None:
            m.d.comb += [
                self.o.valid.eq(total.valid),
                self.o.payload.result.eq(total.payload.result),
                self.o.payload.tag.eq(total.payload.tag[:self._tag_width]),
                total.ready.eq(self.o.ready),
            ]
            return m
        m.submodules.scalar = scalar = self._scalar
        for name in scalar.params:
            m.d.comb += getattr(scalar, name).eq(getattr(self, name))
        at = self._tag_width
        for role, type_ in self._carried.items():
            width = shape_of(type_)
            m.d.comb += scalar.i.payload[role].eq(total.payload.tag[at:at + width])
            at += width
        m.d.comb += [
            scalar.i.valid.eq(total.valid),
            scalar.i.payload[REDUCED].eq(total.payload.result),
            scalar.i.payload.tag.eq(total.payload.tag[:self._tag_width]),
            total.ready.eq(scalar.i.ready),
        ]
        wiring.connect(m, scalar.o, wiring.flipped(self.o))
        return m
