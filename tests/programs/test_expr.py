"""The expression vocabulary: type checking when a node is built, and the NumPy back end's
evaluation with the hardware's arithmetic (saturation, widths, float32 rounding)."""

import numpy as np
import pytest

from golden.algorithms import pairwise_sum
from golden.programs import evaluate
from graphgen.programs import (BOOL, Const, Float32, Float32Vector, Operand, Param, ProgramError,
                               UInt, bit_and, bit_xor, dot, eq, f32, fadd, fdiv, feq, flt, fmul,
                               fne, fsub, lane_sum, lt, maximum, minimum, reciprocal, resize,
                               sat_add, sat_sub, scale, select, shl, shr, uint, vadd)

A8 = Operand("a", UInt(8))
B8 = Operand("b", UInt(8))
X = Operand("x", Float32)
Y = Operand("y", Float32)
V4 = Operand("v", Float32Vector(4))
W4 = Operand("w", Float32Vector(4))


@pytest.mark.parametrize("build, message", [
    (lambda: sat_add(A8, Operand("c", UInt(16))), "sat_add: operands must be UInt of the same "
                                                  "width, got UInt(8) and UInt(16)"),
    (lambda: minimum(A8, X), "min: operands must be UInt of the same width, got UInt(8) and "
                             "Float32"),
    (lambda: fadd(V4, X), "fadd: operands must be Float32 scalars, got Float32Vector(4)"),
    (lambda: fmul(A8, 2), "fmul: operands must be Float32 scalars, got UInt(8) and UInt(8)"),
    (lambda: vadd(V4, Operand("u", Float32Vector(8))), "vadd: operands must be Float32Vector "
                                                       "of the same lanes"),
    (lambda: select(A8, A8, B8), "select: the condition must be UInt(1)"),
    (lambda: select(lt(A8, B8), A8, X), "select: operands must be of one type"),
    (lambda: shl(A8, 8), "shl: the shift must be a constant in 0..7, got 8"),
    (lambda: sat_add(A8, 256), "sat_add: 256 does not fit the UInt(8) operand"),
    (lambda: sat_add(A8, 1.5), "sat_add: 1.5 is not an integer for a UInt(8) operand"),
    (lambda: sat_add(1, 2), "sat_add: at least one operand must be an expression"),
    (lambda: lane_sum(X), "lane_sum: sums a Float32Vector, got Float32"),
    (lambda: scale(X, V4), "scale: operands must be a Float32Vector and a Float32"),
    (lambda: dot(V4, X), "dot: operands must be Float32Vector of the same lanes"),
    (lambda: reciprocal(X), "reciprocal: takes an unsigned integer, got Float32"),
    (lambda: UInt(33), "UInt width must be an integer in 1..32, got 33"),
    (lambda: resize(A8, 0), "resize: the width must be an integer in 1..32, got 0"),
    (lambda: Operand("x", "float"), "operand x: 'float' is not a type"),
    (lambda: Float32Vector(0), "Float32Vector lanes must be an integer in 1..1024"),
    (lambda: uint(-1), "constant: -1 is not a UInt(32) value"),
    (lambda: Param("alpha", Float32Vector(2), 0.5), "constants and parameters are scalars"),
    (lambda: Param("not a name", Float32, 0.5), "parameter name must be an identifier"),
])
def test_type_errors_name_the_operation(build, message):
    with pytest.raises(ProgramError) as error:
        build()
    assert message in str(error.value)


def test_an_expression_has_no_truth_value():
    with pytest.raises(ProgramError, match="use select"):
        if lt(A8, B8):
            pass


def test_nodes_are_immutable_hashable_and_compare_by_structure():
    assert sat_add(A8, 1) == sat_add(A8, uint(1, 8))
    assert len({sat_add(A8, 1), sat_add(A8, 1), sat_add(A8, 2)}) == 2
    assert f32(0.0) != f32(-0.0) and f32(float("nan")) == f32(float("nan"))
    assert lt(A8, B8).type == BOOL and lane_sum(V4).type == Float32
    with pytest.raises(AttributeError):
        A8.role = "b"


def ev(expr, **operands):
    return evaluate(expr, operands)


def test_integer_semantics_at_the_width():
    a = np.array([0, 1, 200, 255], np.uint32)
    b = np.array([0, 3, 100, 255], np.uint32)
    assert ev(sat_add(A8, B8), a=a, b=b).tolist() == [0, 4, 255, 255]
    assert ev(sat_sub(A8, B8), a=a, b=b).tolist() == [0, 0, 100, 0]
    assert ev(shl(A8, 1), a=a).tolist() == [0, 2, 144, 254]
    assert ev(shr(A8, 2), a=a).tolist() == [0, 0, 50, 63]
    assert ev(resize(A8, 4), a=a).tolist() == [0, 1, 8, 15]
    assert ev(maximum(A8, B8), a=a, b=b).tolist() == [0, 3, 200, 255]
    assert ev(bit_xor(A8, B8), a=a, b=b).tolist() == [0, 2, 172, 0]
    both = bit_and(lt(A8, B8), eq(B8, 3))
    assert ev(select(both, A8, B8), a=a, b=b).tolist() == [0, 1, 100, 255]
    full = Operand("c", UInt(32))
    assert ev(sat_add(full, 1), c=np.array([2**32 - 2, 2**32 - 1], np.uint32)).tolist() == \
        [2**32 - 1, 2**32 - 1]


def test_float32_semantics():
    x = np.array([1.0, 0.0, np.inf, -0.0, 1e38], np.float32)
    y = np.array([3.0, 0.0, np.inf, 0.0, 10.0], np.float32)
    quotient = ev(fdiv(X, Y), x=x, y=y)
    assert quotient.dtype == np.float32 and quotient[0] == np.float32(1) / np.float32(3)
    assert np.isnan(quotient[1]) and np.isnan(quotient[2])
    assert ev(fmul(X, Y), x=x, y=y)[4] == np.inf
    assert ev(fsub(X, Y), x=x, y=y)[3].tobytes() == np.float32(-0.0).tobytes()
    assert ev(feq(X, Y), x=x, y=y).tolist() == [0, 1, 1, 1, 0]
    assert ev(fne(X, X), x=np.array([np.nan], np.float32)).tolist() == [1]
    assert ev(flt(X, Y), x=x, y=y).tolist() == [1, 0, 0, 0, 0]
    # no fused multiply-add: the product is rounded before the add
    a = np.array([1 + 2**-12], np.float32)           # a * a = 1 + 2**-11 + 2**-24 exactly
    assert ev(fadd(fmul(X, Y), -1.0), x=a, y=a)[0] == 2**-11
    degree = np.array([0, 1, 3, 2**24 + 1], np.uint32)
    inverse = ev(reciprocal(Operand("d", UInt(32))), d=degree)
    assert inverse.tolist() == [0.0, 1.0, float(np.float32(1) / np.float32(3)),
                                float(np.float32(1) / np.float32(2**24 + 1))]


@pytest.mark.parametrize("lanes", [1, 3, 4, 8, 13])
def test_lane_sum_and_dot_in_pairwise_order(lanes):
    rng = np.random.default_rng(lanes)
    v = rng.standard_normal((50, lanes)).astype(np.float32) * 1e3
    w = rng.standard_normal((50, lanes)).astype(np.float32)
    V, W = Operand("v", Float32Vector(lanes)), Operand("w", Float32Vector(lanes))
    assert ev(lane_sum(V), v=v).view(np.uint32).tolist() == \
        pairwise_sum(v).view(np.uint32).tolist()
    assert ev(dot(V, W), v=v, w=w).view(np.uint32).tolist() == \
        pairwise_sum(v * w).view(np.uint32).tolist()
    s = rng.standard_normal(50).astype(np.float32)
    assert np.array_equal(ev(scale(V, X), v=v, x=s), v * s[:, None])


def test_params_take_their_default_or_the_value_given():
    expr = fmul(X, Param("alpha", Float32, 0.85))
    x = np.array([2.0], np.float32)
    assert ev(expr, x=x)[0] == np.float32(2) * np.float32(0.85)
    assert evaluate(expr, {"x": x}, {"alpha": 0.5})[0] == 1.0
    assert isinstance(Const(3, UInt(2)).value, int)
