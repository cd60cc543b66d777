"""A vertex program: Graphicionado's Process_Edge / Reduce / Apply (Ham et al. MICRO 2016,
§3.1, table I) with its initial values, vertex constant and stop rule, written once as
expression trees (:mod:`graphgen.programs.expr`).

A user subclasses :class:`VertexProgram`, setting class attributes and writing methods that
return expressions; :func:`build` calls them with the operands each function may read and
returns the validated, immutable :class:`Program` the back ends consume.

Reduce
    One of :data:`REDUCTIONS`, the commutative and associative reductions the hardware builds
    (``min``, ``max``, ``sat_add`` on unsigned integers; ``fadd`` on float32 and, lane by lane,
    on float32 vectors). VTempProperty starts at the reduction's identity (:attr:`Program.
    identity`). Float addition is not associative, so a float Reduce is applied to each
    destination in edge-id order, the order of the hardware pipeline: results are bit-exact.

Operands
    ``init`` and ``vconst`` (host side, per vertex): ``vertex_id``, ``out_degree``,
    ``in_degree``, ``num_vertices``, ``is_root`` and ``random(seed)``.
    ``process_edge`` (per edge u -> v): ``weight``, ``src_prop``, ``src_const``, ``dst_prop``
    (reading ``dst_prop`` adds pipeline stage P4).
    ``apply`` (per vertex): ``vprop``, ``temp``, ``vconst``, ``vertex_id``, ``is_root``;
    ``active`` reads the same and ``new``, the property ``apply`` computed.
    Any function may use constants and :class:`~graphgen.programs.expr.Param` values.

Running
    ``mode = "frontier"``: only the active vertices' edges are processed; the first active
    set is the root (a program reading ``is_root``) or every vertex. ``mode = "all"``: every
    vertex every iteration. A vertex becomes active when ``active`` says so, by default when
    its property changed. The run stops when no vertex is active (frontier mode), after
    ``iterations`` iterations, or after an iteration whose largest change ``|new - old|``
    (float32) is at most ``tolerance``; ``mode = "all"`` needs one of the last two.
    ``undirected = True`` runs on the graph with every edge in both directions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import ClassVar

from .expr import (BOOL, Expr, Float32, Float32Vector, Op, Operand, Param,
                   ProgramError, Random, Type, UInt, checked, is_type, uint, walk)

__all__ = ["VertexProgram", "Program", "build", "REDUCTIONS", "MODES", "FUNCTIONS"]

#: reduce name -> the property types it is built for
REDUCTIONS: dict[str, str] = {
    "min": "UInt", "max": "UInt", "sat_add": "UInt", "fadd": "Float32 or Float32Vector",
}
MODES = ("frontier", "all")

HOST_OPERANDS = ("vertex_id", "out_degree", "in_degree", "num_vertices", "is_root")
EDGE_OPERANDS = ("weight", "src_prop", "src_const", "dst_prop")
VERTEX_OPERANDS = ("vprop", "temp", "vconst", "vertex_id", "is_root")

#: each function and the operands it may read
FUNCTIONS: dict[str, tuple[str, ...]] = {
    "vconst": HOST_OPERANDS, "init": HOST_OPERANDS, "process_edge": EDGE_OPERANDS,
    "apply": VERTEX_OPERANDS, "active": (*VERTEX_OPERANDS, "new"),
}

_HOST_TYPES: dict[str, Type] = {"vertex_id": UInt(32), "out_degree": UInt(32),
                                "in_degree": UInt(32), "num_vertices": UInt(32),
                                "is_root": BOOL}


def _reduce_fits(reduce: str, prop: Type) -> bool:
    if reduce in ("min", "max", "sat_add"):
        return isinstance(prop, UInt)
    return reduce == "fadd" and (prop is Float32 or isinstance(prop, Float32Vector))


def _operand_types(prop: Type, vconst: Type | None, weight: Type | None) -> dict[str, Type]:
    types = {**_HOST_TYPES, "src_prop": prop, "dst_prop": prop, "vprop": prop, "temp": prop,
             "new": prop}
    if vconst is not None:
        types["src_const"] = types["vconst"] = vconst
    if weight is not None:
        types["weight"] = weight
    return types


@dataclass(frozen=True)
class Program:
    """A validated vertex program (see the module docstring); build it with :func:`build`.

    ``weight`` is the type of the edge weight operand (UInt(32): integer weights, all 1 on an
    unweighted graph; Float32: the graph's weights as float32, required) or None.
    """

    name: str
    prop: Type
    reduce: str
    init: Expr
    process_edge: Expr
    apply: Expr
    vconst: Expr | None = None
    active: Expr | None = None
    weight: Type | None = UInt(32)
    mode: str = "frontier"
    undirected: bool = False
    iterations: int | None = None
    tolerance: float | None = None
    description: str = ""
    params: dict[str, Param] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        name = self.name
        if not isinstance(name, str) or not name:
            raise ProgramError(f"a program needs a name, got {name!r}")

        def refuse(reason: str) -> ProgramError:
            return ProgramError(f"program {name}: {reason}")

        if not is_type(self.prop):
            raise refuse(f"prop must be UInt(width), Float32 or Float32Vector(lanes), "
                         f"got {self.prop!r}")
        if not isinstance(self.reduce, str) or self.reduce not in REDUCTIONS:
            raise refuse(f"reduce {self.reduce!r}: Reduce must be commutative and associative, "
                         f"one of the reductions the hardware builds ({', '.join(REDUCTIONS)})")
        if not _reduce_fits(self.reduce, self.prop):
            raise refuse(f"reduce {self.reduce} works on {REDUCTIONS[self.reduce]}, "
                         f"not on the property type {self.prop!r}")
        if self.weight not in (None, UInt(32), Float32):
            raise refuse(f"weight must be UInt(32), Float32 or None, got {self.weight!r}")
        if self.mode not in MODES:
            raise refuse(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.iterations is not None and (isinstance(self.iterations, bool) or not
                                            isinstance(self.iterations, Integral)
                                            or self.iterations < 0):
            raise refuse(f"iterations must be an integer >= 0 or None, got {self.iterations!r}")
        if self.tolerance is not None:
            if isinstance(self.tolerance, bool) or not isinstance(self.tolerance, Real) \
                    or not math.isfinite(self.tolerance) or self.tolerance < 0:
                raise refuse(f"tolerance must be a finite number >= 0, got {self.tolerance!r}")
            if isinstance(self.prop, UInt):
                raise refuse("a tolerance needs a Float32 or Float32Vector property")
        if self.mode == "all" and self.iterations is None and self.tolerance is None:
            raise refuse("mode 'all' runs every vertex every iteration, so it needs "
                         "iterations or a tolerance to stop")
        vconst_type = None if self.vconst is None else self._typed("vconst", self.vconst).type
        types = _operand_types(self.prop, vconst_type, self.weight)
        params: dict[str, Param] = {}
        for function, expected in (("vconst", None), ("init", self.prop),
                                   ("process_edge", self.prop), ("apply", self.prop),
                                   ("active", BOOL)):
            expr = getattr(self, function)
            if expr is None and function in ("vconst", "active"):       # optional
                continue
            self._typed(function, expr, expected)
            for node in walk(expr):
                self._check_node(function, node, types, params)
        object.__setattr__(self, "params", params)

    def _typed(self, function: str, expr: object, expected: Type | None = None) -> Expr:
        if not isinstance(expr, Expr):
            raise ProgramError(f"program {self.name}: {function} must return an expression, "
                               f"got {expr!r}")
        if expected is not None and expr.type != expected:
            what = "the property type" if expected != BOOL else "a BOOL"
            raise ProgramError(f"program {self.name}: {function} gives {expr.type!r}, "
                               f"expected {what} {expected!r}")
        return expr

    def _check_node(self, function: str, node: Expr, types: dict[str, Type],
                    params: dict[str, Param]) -> None:
        refuse = f"program {self.name}: {function}"
        if isinstance(node, Operand):
            allowed = FUNCTIONS[function]
            if node.role not in allowed:
                owners = [f for f, roles in FUNCTIONS.items() if node.role in roles]
                where = f"only {' and '.join(owners)} can" if owners else "no function can"
                raise ProgramError(f"{refuse} reads {node.role}, which {where} "
                                   f"({function} reads {', '.join(allowed)})")
            if node.role not in types:
                raise ProgramError(f"{refuse} reads {node.role}, but the program has no "
                                   f"{'vertex constant' if 'const' in node.role else 'weight'}")
            if node.type != types[node.role]:
                raise ProgramError(f"{refuse}: {node.role} is {types[node.role]!r}, "
                                   f"not {node.type!r}")
        elif isinstance(node, Op):
            try:
                checked(node)
            except (ProgramError, TypeError) as error:
                raise ProgramError(f"{refuse}: {error}") from None
        elif isinstance(node, Random):
            if function != "init":
                raise ProgramError(f"{refuse} uses random, which only init can")
            if node.type != self.prop:
                raise ProgramError(f"{refuse}: random gives {node.type!r}, the property is "
                                   f"{self.prop!r}")
        elif isinstance(node, Param):
            known = params.setdefault(node.name, node)
            if known != node:
                raise ProgramError(f"{refuse}: parameter {node.name} is declared twice, as "
                                   f"{known.type!r} = {known.default!r} and {node.type!r} = "
                                   f"{node.default!r}")

    # -- derived facts ----------------------------------------------------------------

    def _reads(self, role: str, *functions: str) -> bool:
        return any(isinstance(node, Operand) and node.role == role
                   for function in functions if getattr(self, function) is not None
                   for node in walk(getattr(self, function)))

    @property
    def identity(self) -> int | float:
        """The Reduce identity VTempProperty is reset to (per lane for vectors)."""
        return self.prop.max if self.reduce == "min" else 0.0 if self.reduce == "fadd" else 0

    @property
    def uses_dst_prop(self) -> bool:
        """Process_Edge reads the destination's property (pipeline stage P4)."""
        return self._reads("dst_prop", "process_edge")

    @property
    def uses_weight(self) -> bool:
        return self._reads("weight", "process_edge")

    @property
    def uses_root(self) -> bool:
        """The program depends on the root vertex (it reads ``is_root``)."""
        return self._reads("is_root", *FUNCTIONS)


# ---------------------------------------------------------------------------- user form

class Operands:
    """The inputs one function may read, as attributes (``e.src_prop``); reading another
    is refused naming the function."""

    def __init__(self, program: str, function: str, types: dict[str, Type],
                 random: Callable[..., Random] | None = None):
        self._program, self._function = program, function
        self._operands = {role: Operand(role, types[role])
                          for role in FUNCTIONS[function] if role in types}
        self._random = random

    def __getattr__(self, role: str) -> Expr:
        if role.startswith("_"):
            raise AttributeError(role)
        if role in self._operands:
            return self._operands[role]
        if role in FUNCTIONS[self._function]:
            missing = "vertex constant (define vconst)" if "const" in role else "weight"
            raise ProgramError(f"program {self._program}: {self._function} reads {role}, but "
                               f"the program has no {missing}")
        raise ProgramError(f"program {self._program}: {self._function} cannot read {role} (it "
                           f"reads {', '.join(FUNCTIONS[self._function])})")

    def random(self, seed: int | Expr = 1) -> Random:
        """Uniform [0, 1) float32 initial values of the property's type (host side)."""
        if self._random is None:
            raise ProgramError(f"program {self._program}: {self._function} cannot use random "
                               f"(only init can)")
        return self._random(seed)


class VertexProgram:
    """Subclass this to define a program; ``build(MyProgram)`` validates it.

    Class attributes: ``name`` (default: the class name in lower case), ``prop`` (the
    property type), ``reduce`` (one of :data:`REDUCTIONS`), ``weight`` (the weight operand's
    type: UInt(32) by default, Float32, or None), ``mode`` ("frontier" or "all"),
    ``undirected``, ``iterations``, ``tolerance``. Methods, each returning an expression:
    ``init(h)``, ``process_edge(e)``, ``apply(v)`` and optionally ``vconst(h)`` and
    ``active(v)`` (default: the property changed). The class docstring's first line is the
    program's description.
    """

    name: ClassVar[str] = ""
    prop: ClassVar[Type]
    reduce: ClassVar[str]
    weight: ClassVar[Type | None] = UInt(32)
    mode: ClassVar[str] = "frontier"
    undirected: ClassVar[bool] = False
    iterations: ClassVar[int | None] = None
    tolerance: ClassVar[float | None] = None

    def vconst(self, h: Operands) -> Expr | None:
        return None

    def init(self, h: Operands) -> Expr:
        raise ProgramError(f"program {self.name or type(self).__name__.lower()}: init is not "
                           f"defined")

    def process_edge(self, e: Operands) -> Expr:
        raise ProgramError(f"program {self.name or type(self).__name__.lower()}: process_edge "
                           f"is not defined")

    def apply(self, v: Operands) -> Expr:
        raise ProgramError(f"program {self.name or type(self).__name__.lower()}: apply is not "
                           f"defined")

    def active(self, v: Operands) -> Expr | None:
        return None


def build(definition: type[VertexProgram] | VertexProgram) -> Program:
    """The validated :class:`Program` of a :class:`VertexProgram` subclass (or instance)."""
    user = definition() if isinstance(definition, type) else definition
    if not isinstance(user, VertexProgram):
        raise ProgramError(f"{definition!r} is not a VertexProgram subclass")
    cls = type(user)
    name = cls.name or cls.__name__.lower()
    for attribute in ("prop", "reduce"):
        if not hasattr(cls, attribute):
            raise ProgramError(f"program {name}: the class sets no {attribute}")
    if not is_type(cls.prop):
        raise ProgramError(f"program {name}: prop must be UInt(width), Float32 or "
                           f"Float32Vector(lanes), got {cls.prop!r}")

    def call(function: str, types: dict[str, Type], random=None):
        try:
            return getattr(user, function)(Operands(name, function, types, random))
        except ProgramError as error:
            text = str(error)
            raise ProgramError(text if text.startswith(f"program {name}:")
                               else f"program {name}: {function}: {text}") from None
        except (Exception, SystemExit) as error:     # the user's code: any failure, one line
            text = (str(error).strip().splitlines() or [""])[0]
            raise ProgramError(f"program {name}: {function} raises {type(error).__name__}"
                               f"{': ' + text if text else ''}") from None

    def random(seed: int | Expr) -> Random:
        return Random(cls.prop, uint(seed) if isinstance(seed, int) else seed)

    types = _operand_types(cls.prop, None, cls.weight)
    vconst = call("vconst", types)
    if vconst is not None and isinstance(vconst, Expr):
        types = _operand_types(cls.prop, vconst.type, cls.weight)
    doc = (cls.__doc__ or "").strip().splitlines()
    return Program(
        name=name, prop=cls.prop, reduce=cls.reduce, weight=cls.weight, mode=cls.mode,
        undirected=bool(cls.undirected), iterations=cls.iterations, tolerance=cls.tolerance,
        vconst=vconst, init=call("init", types, random),
        process_edge=call("process_edge", types), apply=call("apply", types),
        active=call("active", types), description=doc[0] if doc else "")
