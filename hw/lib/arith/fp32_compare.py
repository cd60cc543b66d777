"""IEEE 754 binary32 comparisons, combinational: the float compares of vertex programs
(``flt``, ``fle``, ``feq``, ``fne`` of :mod:`graphgen.programs`), with IEEE's (and NumPy's)
answers: +0 equals -0, and a NaN is unordered, so it is neither less than, equal to, nor
greater than anything (``fne`` is true for it).

Operands are binary32 bit patterns; results are one bit."""

from amaranth.hdl import Value

__all__ = ["is_nan", "float_lt", "float_le", "float_eq", "float_ne", "FLOAT_COMPARES"]


def is_nan(x):
    x = Value.cast(x)
    return (x[23:31] == 0xFF) & (x[0:23] != 0)


def _both_zero(a, b):
    return (a[0:31] == 0) & (b[0:31] == 0)


def _less_ordered(a, b):
    """``a < b`` for two numbers that are not NaN: sign and magnitude order."""
    a_negative, b_negative = a[31], b[31]
    magnitude_a, magnitude_b = a[0:31], b[0:31]
    by_sign = a_negative & ~b_negative
    both_positive = ~a_negative & ~b_negative & (magnitude_a < magnitude_b)
    both_negative = a_negative & b_negative & (magnitude_a > magnitude_b)
    return (by_sign | both_positive | both_negative) & ~_both_zero(a, b)


def float_eq(a, b):
    """``a == b``: the same bits, or both zeros; never for a NaN."""
    a, b = Value.cast(a), Value.cast(b)
    return ~is_nan(a) & ~is_nan(b) & ((a == b) | _both_zero(a, b))


def float_lt(a, b):
    """``a < b``; false when either is NaN."""
    a, b = Value.cast(a), Value.cast(b)
    return ~is_nan(a) & ~is_nan(b) & _less_ordered(a, b)


def float_le(a, b):
    """``a <= b``; false when either is NaN."""
    return float_lt(a, b) | float_eq(a, b)


def float_ne(a, b):
    """``a != b``; true when either is NaN."""
    return ~float_eq(a, b)


#: graphgen.programs operation name -> combinational compare of two binary32 patterns
FLOAT_COMPARES = {"flt": float_lt, "fle": float_le, "feq": float_eq, "fne": float_ne}
