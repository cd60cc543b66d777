"""DepGraph's GAS form of a vertex program, and the linearity of its EdgeCompute.

DepGraph (Zhang et al., HPCA 2021, §II, the GAS model) keeps a state s and a delta Δ per
vertex: a visit folds Δ into s with ``Accum`` and sends ``EdgeCompute(x)`` along each
out-edge, x being the value the vertex propagates, Accum'd into the destination's Δ. Its hub
index (§III-A) shortcuts a chain of edges only when EdgeCompute is linear, f(x) = mu·x + eps,
so that the chain composes to one such function of its head's value.

:func:`gas_form` derives that form from a :class:`~graphgen.programs.Program`. Two shapes of
program have one; any other is refused with a :class:`ProgramError` of one line:

Selective (``reduce = "min"`` or ``"max"``, Apply ``min(vprop, temp)`` or ``max(vprop,
temp)`` with the default "changed" activation)
    Accum is the Reduce (s ← Δ when Δ is better), EdgeCompute is Process_Edge with
    ``src_prop`` replaced by x (the new state), the initial Δ is ``init`` and the initial
    state the Reduce's identity, so that every vertex whose ``init`` is not the identity
    starts active. DepGraph runs it to its fixpoint, whatever its ``mode`` and
    ``iterations``. BFS, SSSP, CC, widest paths and label propagation.
Affine (``reduce = "fadd"`` on Float32, Apply ``a·temp + b`` with ``a`` a constant or
parameter and ``b`` reading only the vertex id and ``is_root``, Process_Edge linear in
``src_prop`` with no constant term)
    The delta ("incremental") form of r = b + a·Σ Process_Edge(r_u): Accum is a sum
    (s ← s + Δ, x = Δ), EdgeCompute is a·Process_Edge(x), the initial state 0 and the initial
    Δ b. The fixpoint is the program's and does not depend on its ``init``; DepGraph runs it
    until every |Δ| is below its tolerance, not for ``iterations``. When Process_Edge is
    ``src_prop · src_const``, a is folded into the per-source constant (one multiplication
    an edge, DepGraph's ``alpha / outdeg(u)``). PageRank and personalized PageRank.

In both, EdgeCompute reads ``x`` (the property type), ``weight`` (UInt(32)) and
``src_const`` (the per-source constant :attr:`GasForm.const`, a host expression); it may not
read ``dst_prop`` (DepGraph's edge sees only its source). The state is one 32-bit word:
``prop`` is UInt(32) or Float32.

:func:`linearity` decides linearity from the expression: ``x`` is (1, 0), ``sat_add(f, c)``
(1·f, eps + c), ``fmul(f, c)`` (mu·c, eps·c), ``fadd``/``fsub``/``fdiv`` by a term without x
likewise; any other operation on x (``min(x, weight)``, a compare, a shift) is not linear.
Saturation at the largest value is taken as the (min, +) semiring's infinity. A selective
Accum also needs mu = 1, where the composed function is a path's weight and a shortcut
value is reached by a real path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .expr import (Const, Expr, Float32, Op, Operand, ProgramError, UInt, f32, fadd, fdiv,
                   fmul, fsub, sat_add, uint, walk)
from .program import HOST_OPERANDS, Program

__all__ = ["GasForm", "Linearity", "gas_form", "linearity", "EDGE_OPERANDS", "ACCUMS"]

#: the operands of a GAS EdgeCompute
EDGE_OPERANDS = ("x", "weight", "src_const")
#: Accum of each GAS shape: the Reduce it comes from
ACCUMS = {"min": "min", "max": "max", "fadd": "sum"}

_IDENTITY = {"min": UInt(32).max, "max": 0, "sum": 0.0}


@dataclass(frozen=True)
class Linearity:
    """EdgeCompute as f(x) = mu·x + eps (``mu`` and ``eps`` expressions of ``weight`` and
    ``src_const``), or not linear with the ``reason``."""

    mu: Expr | None
    eps: Expr | None
    reason: str = ""

    @property
    def linear(self) -> bool:
        return not self.reason


@dataclass(frozen=True)
class GasForm:
    """A program in DepGraph's GAS form (see the module docstring).

    ``accum``: ``"min"``, ``"max"`` or ``"sum"``. ``edge_compute``: an expression of
    :data:`EDGE_OPERANDS`. ``const``: the per-source constant ``src_const`` stands for, a
    host expression (None when EdgeCompute does not read it). ``state`` and ``delta``: the
    initial values, host expressions (``vertex_id``, ``out_degree``, ``in_degree``,
    ``num_vertices``, ``is_root``).
    """

    program: Program
    accum: str
    edge_compute: Expr
    const: Expr | None
    state: Expr
    delta: Expr

    @property
    def name(self) -> str:
        return self.program.name

    @property
    def selective(self) -> bool:
        """Accum keeps the better of two values (min or max): s ← Δ at a fold."""
        return self.accum != "sum"

    @property
    def identity(self) -> int | float:
        """Δ after a fold: the Accum identity."""
        return _IDENTITY[self.accum]

    @property
    def uses_weight(self) -> bool:
        return _reads(self.edge_compute, "weight")

    @property
    def uses_root(self) -> bool:
        return self.program.uses_root

    @property
    def linearity(self) -> Linearity:
        return linearity(self)


def _reads(expr: Expr, role: str) -> bool:
    return any(isinstance(node, Operand) and node.role == role for node in walk(expr))


def _substitute(expr: Expr, mapping: dict[str, Expr]) -> Expr:
    """``expr`` with each operand whose role is in ``mapping`` replaced."""
    built: dict[int, Expr] = {}
    for node in walk(expr):
        if isinstance(node, Operand) and node.role in mapping:
            built[id(node)] = mapping[node.role]
        elif isinstance(node, Op):
            built[id(node)] = Op(node.name, tuple(built[id(a)] for a in node.args), node.type,
                                 node.amount)
        else:
            built[id(node)] = node
    return built[id(expr)]


def gas_form(program: Program) -> GasForm:
    """``program``'s GAS form; a program of neither shape is refused (module docstring)."""
    def refuse(reason: str) -> ProgramError:
        return ProgramError(f"program {program.name} has no DepGraph GAS form: {reason}")

    if program.reduce not in ACCUMS:
        raise refuse(f"its Reduce {program.reduce} is not min, max or fadd")
    if program.prop not in (UInt(32), Float32):
        raise refuse(f"the state is one 32-bit word, not {program.prop!r}")
    if program.weight not in (None, UInt(32)):
        raise refuse(f"the edges carry UInt(32) weights, not {program.weight!r}")
    if program.uses_dst_prop:
        raise refuse("Process_Edge reads dst_prop, but an edge's EdgeCompute sees only its "
                     "source")
    if program.active is not None:
        raise refuse("it sets its own activation rule; DepGraph activates a vertex whose "
                     "delta improves it")
    accum = ACCUMS[program.reduce]
    x = Operand("x", program.prop)
    edge = _substitute(program.process_edge, {"src_prop": x})
    if accum != "sum":
        v = program.apply
        if not (isinstance(v, Op) and v.name == program.reduce
                and {getattr(a, "role", None) for a in v.args} == {"vprop", "temp"}):
            raise refuse(f"Apply must be {program.reduce}(vprop, temp)")
        return GasForm(program, accum, edge, program.vconst if _reads(edge, "src_const")
                       else None, uint(_IDENTITY[accum]), program.init)
    a, b = _affine_apply(program, refuse)
    homogeneous = _affine(edge, "x")
    if homogeneous.reason or not _is_zero(homogeneous.eps):
        raise refuse("the delta form needs Process_Edge linear in src_prop with no constant "
                     "term" + (f" ({homogeneous.reason})" if homogeneous.reason else ""))
    const = program.vconst
    if not _is_one(a):
        if const is not None and isinstance(edge, Op) and edge.name == "fmul" and \
                set(edge.args) == {x, Operand("src_const", const.type)}:
            const = fmul(a, const)
        else:
            edge = fmul(a, edge)
    return GasForm(program, accum, edge, const if _reads(edge, "src_const") else None,
                   f32(0.0), b)


def _affine_apply(program: Program, refuse) -> tuple[Expr, Expr]:
    """(a, b) of an Apply ``a·temp + b``; refused when it has another shape."""
    temp = Operand("temp", Float32)
    shape = "Apply must be a·temp + b (a a constant or parameter, b reading only vertex_id " \
            "and is_root)"
    v = program.apply
    a: Expr = f32(1.0)
    b: Expr = f32(0.0)
    if isinstance(v, Op) and v.name == "fadd":
        terms = [t for t in v.args if temp in walk(t)]
        if len(terms) != 1:
            raise refuse(shape)
        v, b = terms[0], next(t for t in v.args if t is not terms[0])
    if isinstance(v, Op) and v.name == "fmul" and temp in v.args:
        a = v.args[1] if v.args[0] == temp else v.args[0]
    elif v != temp:
        raise refuse(shape)
    if any(isinstance(node, Operand) for node in walk(a)) or any(
            isinstance(node, Operand) and node.role not in HOST_OPERANDS for node in walk(b)):
        raise refuse(shape)
    return a, b


# ---------------------------------------------------------------------------- linearity

def _is_zero(e: Expr | None) -> bool:
    return isinstance(e, Const) and e.value == 0


def _is_one(e: Expr | None) -> bool:
    return isinstance(e, Const) and e.value == 1


def _zero(type_) -> Const:
    return uint(0, type_.width) if isinstance(type_, UInt) else f32(0.0)


def _one(type_) -> Const:
    return uint(1, type_.width) if isinstance(type_, UInt) else f32(1.0)


def _plus(a: Expr, b: Expr) -> Expr:
    if _is_zero(a):
        return b
    if _is_zero(b):
        return a
    if isinstance(a, Const) and isinstance(b, Const):
        if isinstance(a.type, UInt):
            return Const(min(a.value + b.value, a.type.max), a.type)
        return f32(np.float32(a.value) + np.float32(b.value))
    return sat_add(a, b) if isinstance(a.type, UInt) else fadd(a, b)


def _times(a: Expr, b: Expr) -> Expr:
    if _is_one(a):
        return b
    if _is_one(b):
        return a
    if _is_zero(a) or _is_zero(b):
        return _zero(a.type)
    return fmul(a, b)


class _NotLinear(Exception):
    pass


def _affine(expr: Expr, role: str) -> Linearity:
    """``expr`` as mu·<role> + eps, or the reason it is not."""
    try:
        mu, eps = _split(expr, role)
    except _NotLinear as error:
        return Linearity(None, None, str(error))
    return Linearity(mu, eps)


def _split(node: Expr, role: str) -> tuple[Expr, Expr]:
    if not _reads(node, role):
        return _zero(node.type), node
    if isinstance(node, Operand):
        return _one(node.type), _zero(node.type)
    name, args = node.name, node.args
    if name in ("sat_add", "fadd"):
        (mu_a, eps_a), (mu_b, eps_b) = _split(args[0], role), _split(args[1], role)
        if name == "sat_add" and not (_is_zero(mu_a) or _is_zero(mu_b)):
            raise _NotLinear(f"{_show(node)} adds the propagated value to itself")
        return _plus(mu_a, mu_b), _plus(eps_a, eps_b)
    if name == "fsub" and not _reads(args[1], role):
        mu, eps = _split(args[0], role)
        return mu, fsub(eps, args[1])
    if name in ("fmul", "fdiv"):
        free = [a for a in args if not _reads(a, role)]
        if not free or (name == "fdiv" and free[0] is not args[1]):
            raise _NotLinear(f"{_show(node)} is not of the form mu*x + eps")
        mu, eps = _split(args[0] if free[0] is args[1] else args[1], role)
        if name == "fmul":
            return _times(mu, free[0]), _times(eps, free[0])
        return fdiv(mu, free[0]), eps if _is_zero(eps) else fdiv(eps, free[0])
    raise _NotLinear(f"{_show(node)} is not of the form mu*x + eps")


def _show(node: Expr) -> str:
    if isinstance(node, Operand):
        return node.role
    if isinstance(node, Const):
        return repr(node.value)
    if isinstance(node, Op):
        return f"{node.name}({', '.join(_show(a) for a in node.args)})"
    return getattr(node, "name", type(node).__name__)


def linearity(form: GasForm) -> Linearity:
    """Whether ``form``'s EdgeCompute is f(x) = mu·x + eps (module docstring); a selective
    Accum also needs mu = 1."""
    result = _affine(form.edge_compute, "x")
    if result.reason:
        return Linearity(None, None, f"EdgeCompute of {form.name}: {result.reason}")
    if form.selective and not _is_one(result.mu):
        return Linearity(result.mu, result.eps,
                         f"EdgeCompute of {form.name} is linear but mu = {_show(result.mu)}, "
                         f"not 1: a {form.accum} Accum needs the ({form.accum}, +) form")
    return result
