"""The NumPy back end of :mod:`graphgen.programs`: a vertex program's expression trees
evaluated over whole arrays with the hardware's arithmetic, run by
:func:`golden.vertex_program.execute` (Graphicionado's processing and apply phases, §3.1).

Semantics, as the units of ``hw/lib/arith``: unsigned integers are held as uint32 and kept
within their width (``sat_add`` saturates at the type's largest value, ``sat_sub`` at 0,
``shl`` and ``resize`` truncate); float32 operations are NumPy float32 operations, each one
rounded to nearest even, none fused; IEEE special values propagate without warnings.
``lane_sum`` adds a vector's lanes in :func:`golden.algorithms.pairwise_sum`'s order.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from graphgen.programs.expr import (Const, Expr, Float32, Float32Vector, Op, Operand, Param,
                                    ProgramError, Random, Type, UInt, walk)
from graphgen.programs.program import Program

from .graph import Graph, GraphError
from .vertex_program import Result, Setup, VertexProgram, execute

__all__ = ["evaluate", "evaluator", "param_values", "golden_program", "run_program"]


def _dtype(type_: Type) -> type:
    return np.uint32 if isinstance(type_, UInt) else np.float32


def _lanes(scalar: Any) -> Any:
    """A per-row scalar made to broadcast against rows of lanes."""
    scalar = np.asarray(scalar)
    return scalar[..., None] if scalar.ndim else scalar


def _sat_add(a, b, type_: UInt):
    total = np.asarray(a, np.uint64) + np.asarray(b, np.uint64)
    return np.minimum(total, np.uint64(type_.max)).astype(np.uint32)


def _sat_sub(a, b):
    a, b = np.asarray(a, np.uint32), np.asarray(b, np.uint32)
    return np.where(a > b, a - b, np.uint32(0)).astype(np.uint32)


def _mask(value, width: int):
    return (np.asarray(value, np.uint64) & np.uint64((1 << width) - 1)).astype(np.uint32)


def _select(cond, a, b, type_: Type, float_dtype=np.float32):
    cond = np.asarray(cond) != 0
    if isinstance(type_, Float32Vector):
        cond = _lanes(cond)
    return np.where(cond, a, b).astype(np.uint32 if isinstance(type_, UInt) else float_dtype)


def _reciprocal(a, float_dtype=np.float32):
    a = np.asarray(a, np.uint32)
    divisor = a.astype(float_dtype)
    return np.where(a == 0, float_dtype(0.0), float_dtype(1.0) / np.where(a == 0, 1, divisor)
                    ).astype(float_dtype)


def _lane_sum(x):
    x = np.asarray(x, np.float32)
    width = 1 << max(0, x.shape[-1] - 1).bit_length()
    if width != x.shape[-1]:
        pad = np.zeros((*x.shape[:-1], width - x.shape[-1]), np.float32)
        x = np.concatenate([x, pad], axis=-1)
    while x.shape[-1] > 1:
        x = x[..., 0::2] + x[..., 1::2]
    return x[..., 0]


def _bool(value):
    return np.asarray(value).astype(np.uint32)


_BINARY = {
    "min": np.minimum, "max": np.maximum,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "lt": lambda a, b: _bool(a < b), "le": lambda a, b: _bool(a <= b),
    "eq": lambda a, b: _bool(a == b), "ne": lambda a, b: _bool(a != b),
    "fadd": np.add, "fsub": np.subtract, "fmul": np.multiply, "fdiv": np.divide,
    "flt": lambda a, b: _bool(a < b), "fle": lambda a, b: _bool(a <= b),
    "feq": lambda a, b: _bool(a == b), "fne": lambda a, b: _bool(a != b),
    "vadd": np.add, "vsub": np.subtract, "vmul": np.multiply,
    "scale": lambda v, s: _lanes(s) * v,
}


def _operation(node: Op, args: list[Any], float_dtype=np.float32) -> Any:
    name, type_ = node.name, node.type
    if name in _BINARY:
        return _BINARY[name](*args)
    if name == "sat_add":
        return _sat_add(*args, type_)
    if name == "sat_sub":
        return _sat_sub(*args)
    if name == "select":
        return _select(*args, type_, float_dtype)
    if name == "shl":
        return _mask(np.asarray(args[0], np.uint64) << np.uint64(node.amount), type_.width)
    if name == "shr":
        return np.asarray(args[0], np.uint32) >> np.uint32(node.amount)
    if name == "resize":
        return _mask(args[0], type_.width)
    if name == "reciprocal":
        return _reciprocal(args[0], float_dtype)
    if name == "lane_sum":
        return _lane_sum(args[0])
    raise ProgramError(f"the NumPy back end has no operation {name!r}")


def _scalar(value: int | float, type_: Type, float_dtype=np.float32) -> Any:
    return np.uint32(value) if isinstance(type_, UInt) else float_dtype(value)


def evaluate(expr: Expr, operands: dict[str, Any], params: dict[str, Any] | None = None,
             rows: int | None = None) -> Any:
    """The value of ``expr``: ``operands`` maps each operand role to an array (one row per
    edge or vertex) or a scalar, ``params`` each parameter name to its value (default: the
    parameter's default). ``rows`` is needed by ``random`` (how many vertices). Results keep
    the leaves' shapes; a tree of constants gives a scalar."""
    return evaluator(expr, params)(operands, rows)


def evaluator(expr: Expr, params: dict[str, Any] | None = None, float_dtype=np.float32):
    """:func:`evaluate` of ``expr`` with ``params`` as a function ``(operands, rows=None)``,
    the tree walked once: for an expression evaluated many times. ``float_dtype=np.float64``
    computes the float operations in float64 instead (constants and parameters keep their
    float32 values): the golden model of DepGraph's sum-type convergence."""
    params = params or {}
    nodes = walk(expr)
    constants = {id(node): _scalar(node.value, node.type, float_dtype) for node in nodes
                 if isinstance(node, Const)}
    constants.update({id(node): _scalar(params.get(node.name, node.default), node.type,
                                        float_dtype)
                      for node in nodes if isinstance(node, Param)})

    def run(operands: dict[str, Any], rows: int | None = None) -> Any:
        values: dict[int, Any] = dict(constants)
        with np.errstate(all="ignore"):
            for node in nodes:
                if isinstance(node, (Const, Param)):
                    continue
                if isinstance(node, Operand):
                    if node.role not in operands:
                        raise ProgramError(f"no value for operand {node.role}")
                    value = operands[node.role]
                elif isinstance(node, Random):
                    if rows is None:
                        raise ProgramError("random needs the number of vertices")
                    shape = (rows, node.type.lanes) if isinstance(node.type, Float32Vector) \
                        else (rows,)
                    seed = int(values[id(node.seed)])
                    value = np.random.default_rng(seed).random(shape, dtype=np.float32)
                else:
                    value = _operation(node, [values[id(arg)] for arg in node.args],
                                       float_dtype)
                values[id(node)] = value
        return values[id(expr)]

    return run


def param_values(program: Program, overrides: dict[str, Any]) -> dict[str, Any]:
    """Each parameter's value: its default, or the override given, checked against its type."""
    unknown = sorted(set(overrides) - set(program.params))
    if unknown:
        known = ", ".join(program.params) or "none"
        raise GraphError(f"{program.name} has no parameter {unknown[0]!r} (parameters: {known})")
    values = {}
    for name, param in program.params.items():
        value = overrides.get(name, param.default)
        try:
            values[name] = Const(value, param.type).value
        except ProgramError as error:
            raise GraphError(f"{program.name}: parameter {name}: {error}") from None
    return values


class _SaturatingAdd:
    """Saturating add as a Reduce: the unsaturated sum per destination, then the clamp to the
    type's largest value (adding one by one gives the same: a saturated value stays so)."""

    def __init__(self, type_: UInt):
        self._max = np.uint64(type_.max)

    def at(self, temp: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
        total = temp.astype(np.uint64)
        np.add.at(total, index, np.asarray(values, np.uint64))
        temp[...] = np.minimum(total, self._max).astype(temp.dtype)


_REDUCE = {"min": np.minimum, "max": np.maximum, "fadd": np.add}


def golden_program(program: Program, graph: Graph, root: int | None = None,
                   params: dict[str, Any] | None = None) -> tuple[VertexProgram, Setup]:
    """``program`` as :class:`golden.vertex_program.VertexProgram` and its :class:`Setup` on
    ``graph`` (already symmetrized for an undirected program)."""
    values = param_values(program, params or {})
    n = graph.num_vertices
    dtype = _dtype(program.prop)
    shape = (n, program.prop.lanes) if isinstance(program.prop, Float32Vector) else (n,)
    vertex_id = np.arange(n, dtype=np.uint32)
    is_root = np.zeros(n, dtype=np.uint32)
    if root is not None:
        is_root[root] = 1
    host = {"vertex_id": vertex_id, "out_degree": graph.out_degree.astype(np.uint32),
            "in_degree": graph.in_degree.astype(np.uint32), "num_vertices": np.uint32(n),
            "is_root": is_root}

    def per_vertex(expr: Expr, operands: dict[str, Any], type_: Type) -> np.ndarray:
        rows = (n, type_.lanes) if isinstance(type_, Float32Vector) else (n,)
        value = evaluate(expr, operands, values, rows=n)
        return np.broadcast_to(np.asarray(value, _dtype(type_)), rows).copy()

    vconst = None if program.vconst is None else \
        per_vertex(program.vconst, host, program.vconst.type)
    vprop = per_vertex(program.init, host, program.prop)
    weight = _weights(program, graph) if program.uses_weight else None
    vertex = {"vertex_id": vertex_id, "is_root": is_root}

    def process_edge(w, src_prop, src_const, dst_prop):
        result = evaluate(program.process_edge, {"weight": w, "src_prop": src_prop,
                                                 "src_const": src_const, "dst_prop": dst_prop},
                          values)
        return np.broadcast_to(np.asarray(result, dtype), src_prop.shape)

    def apply(vprop, temp, vconst):
        result = evaluate(program.apply, {**vertex, "vprop": vprop, "temp": temp,
                                          "vconst": vconst}, values)
        return np.broadcast_to(np.asarray(result, dtype), shape)

    active = None
    if program.active is not None:
        def active(vprop, temp, vconst, new):
            result = evaluate(program.active, {**vertex, "vprop": vprop, "temp": temp,
                                               "vconst": vconst, "new": new}, values)
            return np.broadcast_to(np.asarray(result) != 0, (n,))

    reduce = _SaturatingAdd(program.prop) if program.reduce == "sat_add" \
        else _REDUCE[program.reduce]
    frontier = program.mode == "frontier"
    first_active = is_root.astype(bool) if frontier and program.uses_root \
        else np.ones(n, dtype=bool)
    setup = Setup(vprop, vconst, first_active, weight)
    golden = VertexProgram(
        name=program.name, dtype=dtype, identity=dtype(program.identity), reduce=reduce,
        process_edge=process_edge, apply=apply, init=lambda graph, root=None: setup,
        all_active=not frontier, uses_dst_property=program.uses_dst_prop,
        property_shape=shape[1:], active=active)
    return golden, setup


def _weights(program: Program, graph: Graph) -> np.ndarray:
    if program.weight == Float32:
        if graph.weight is None:
            raise GraphError(f"{program.name} needs a float32 weight on every edge")
        return graph.weight.astype(np.float32)
    return graph.require_nonnegative_integer_weights()


def run_program(program: Program, graph: Graph, root: int | None = None,
                iters: int | None = None, **params: Any) -> Result:
    """Run ``program`` on ``graph`` (symmetrized first when the program is undirected).

    ``root`` (default 0) is taken by programs that read ``is_root`` and refused by the
    others; ``iters`` overrides the program's ``iterations``; ``params`` its parameters.
    """
    if not isinstance(program, Program):
        raise GraphError(f"run_program needs a graphgen.programs Program, got {program!r}")
    if program.uses_root:
        root = 0 if root is None else root
        if isinstance(root, bool) or not isinstance(root, Integral) \
                or not 0 <= root < graph.num_vertices:
            raise GraphError(f"root must be a vertex id in 0..{graph.num_vertices - 1}, "
                             f"got {root!r}")
        root = int(root)
    elif root is not None:
        raise GraphError(f"{program.name} takes no root (got root {root!r})")
    if iters is not None and (isinstance(iters, bool) or not isinstance(iters, Integral)
                              or iters < 0):
        raise GraphError(f"iters must be an integer >= 0, got {iters!r}")
    if program.undirected:
        graph = graph.symmetrized()
    golden, setup = golden_program(program, graph, root, params)
    cap = program.iterations if iters is None else int(iters)
    tolerance = None if program.tolerance is None else float(np.float32(program.tolerance))
    return execute(golden, graph, setup, cap, tolerance)
