"""Vector expressions cut for flits (hw.lib.program.flits): CF's Process_Edge and Apply
split at the lane sum, the shapes refused in one line, and the symmetry test of the
symmetric-graph optimisation."""

import pytest

from graphgen.programs import (Float32, Float32Vector, Operand, Param, cf_program, dot, fadd,
                               fsub, scale, vadd)
from hw.lib.config import ConfigError
from hw.lib.program.flits import REDUCED, SCALAR, FlitSplit, symmetric_in

A, B = Operand("src_prop", Float32Vector(32)), Operand("dst_prop", Float32Vector(32))
W = Operand("weight", Float32)


def test_cf_process_edge_splits_at_its_dot():
    split = FlitSplit.of(cf_program(32).process_edge, 8)
    a8, b8 = Operand("src_prop", Float32Vector(8)), Operand("dst_prop", Float32Vector(8))
    assert split.reduce == dot(a8, b8)
    assert split.scalar == fsub(W, Operand(REDUCED, Float32))
    assert split.lanes == scale(a8, Operand(SCALAR, Float32))
    assert split.scalar_type is Float32


def test_lane_wise_expressions_have_no_barrier():
    split = FlitSplit.of(cf_program(16).apply, 4)
    assert split.reduce is None and split.scalar is None and split.scalar_type is None
    lam = Param("lam", Float32, 0.05)
    assert scale(Operand("vprop", Float32Vector(4)), lam) in _nodes(split.lanes)


def test_a_dot_read_directly_is_its_own_scalar():
    split = FlitSplit.of(scale(A, dot(A, B)), 8)
    assert split.scalar is None
    assert split.lanes == scale(Operand("src_prop", Float32Vector(8)), Operand(SCALAR, Float32))


@pytest.mark.parametrize("expr, message", [
    (scale(A, dot(scale(A, dot(A, B)), B)), r"lane sum \(dot\) of a vector computed from"),
    (scale(A, fadd(dot(A, A), dot(B, B))), "2 lane sums"),
    (vadd(scale(A, dot(A, B)), scale(B, fadd(dot(A, B), 1.0))), "reads 2 scalars"),
    (scale(A, dot(Operand("x", Float32Vector(4)), Operand("y", Float32Vector(4)))),
     "different lengths"),
    (dot(A, B), "not a Float32Vector"),
    (scale(A, Operand(SCALAR, Float32)), "reserved"),
])
def test_shapes_not_built_are_refused_in_one_line(expr, message):
    with pytest.raises(ConfigError, match=message) as error:
        FlitSplit.of(expr, 8, "test")
    assert str(error.value).startswith("test: ") and "\n" not in str(error.value)


def test_symmetry_in_two_operands():
    assert symmetric_in(dot(A, B), "src_prop", "dst_prop")
    assert symmetric_in(fsub(W, dot(B, A)), "src_prop", "dst_prop")
    assert not symmetric_in(dot(A, A), "src_prop", "dst_prop")
    assert not symmetric_in(fsub(dot(A, A), dot(B, B)), "src_prop", "dst_prop")
    assert symmetric_in(None, "src_prop", "dst_prop")


def _nodes(expr):
    from graphgen.programs.expr import walk
    return walk(expr)
