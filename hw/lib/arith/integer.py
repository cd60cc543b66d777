"""Integer compute units with the same stream interface as the FP32 units (``hw/fp32*.py``):
operands ``a``, ``b`` and a ``tag`` in, ``result`` and the ``tag`` out, one operation per
cycle, a fixed latency of one cycle. Graphicionado's custom modules for BFS, SSSP and CC
(§3.2 "Custom Modules") are built from them.

The operations themselves are combinational functions of unsigned values of any width (both
operands of one width), which generated datapaths (:mod:`hw.lib.program`) register as they
schedule them."""

from amaranth.hdl import Module, Mux, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int


__all__ = ["binary_op_layout", "result_layout", "saturating_add", "saturating_sub", "minimum",
           "maximum", "INTEGER_OPERATIONS", "SaturatingAdd", "Minimum"]


def binary_op_layout(tag_width: int) -> data.StructLayout:
    return data.StructLayout({"a": 32, "b": 32, "tag": tag_width})


def result_layout(tag_width: int) -> data.StructLayout:
    return data.StructLayout({"result": 32, "tag": tag_width})


class _OneStageUnit(wiring.Component):
    """A registered stage: ``o`` holds the result of the operands taken the cycle before.

    Parameters
    ----------
    tag_width : int

    Members
    -------
    i : ``In(stream.Signature(binary_op_layout(tag_width)))``
    o : ``Out(stream.Signature(result_layout(tag_width)))``
    """
    latency = 1

    def __init__(self, tag_width: int = 32):
        check_int(type(self).__name__, "tag_width", tag_width, low=0)
        self._tag_width = tag_width
        super().__init__({
            "i": In(stream.Signature(binary_op_layout(tag_width))),
            "o": Out(stream.Signature(result_layout(tag_width))),
        })

    def operation(self, m, a, b):
        raise NotImplementedError

    def elaborate(self, platform):
        m = Module()
        result = self.operation(m, self.i.payload.a, self.i.payload.b)
        m.d.comb += self.i.ready.eq(~self.o.valid | self.o.ready)
        with m.If(self.i.ready):
            m.d.sync += [self.o.valid.eq(self.i.valid), self.o.payload.result.eq(result),
                         self.o.payload.tag.eq(self.i.payload.tag)]
        return m


def _width(a, b) -> int:
    return max(len(Value.cast(a)), len(Value.cast(b)))


def saturating_add(a, b):
    """``a + b`` of two unsigned values of width w (32 for uint32) as w bits, saturating at
    2**w - 1 (so "unreachable" stays unreachable): combinational."""
    width = _width(a, b)
    total = a + b                   # w + 1 bits
    return Mux(total[width], (1 << width) - 1, total[:width])


def saturating_sub(a, b):
    """``a - b`` of two unsigned values, saturating at 0: combinational."""
    width = _width(a, b)
    return Mux(a > b, (a - b)[:width], 0)


def minimum(a, b):
    """``min(a, b)`` of two unsigned values: combinational."""
    return Mux(a < b, a, b)


def maximum(a, b):
    """``max(a, b)`` of two unsigned values: combinational."""
    return Mux(a > b, a, b)


#: graphgen.programs operation name -> combinational function of unsigned operands
INTEGER_OPERATIONS = {
    "sat_add": saturating_add, "sat_sub": saturating_sub, "min": minimum, "max": maximum,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
}


class SaturatingAdd(_OneStageUnit):
    """``a + b`` as uint32, saturating at 0xFFFFFFFF (so "unreachable" stays unreachable)."""

    def operation(self, m, a, b):
        return saturating_add(a, b)


class Minimum(_OneStageUnit):
    """``min(a, b)`` as uint32."""

    def operation(self, m, a, b):
        return minimum(a, b)
