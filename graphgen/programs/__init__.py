"""Vertex programs written once, for the golden model and the generated hardware.

Graphicionado (Ham et al., MICRO 2016, §3.1) maps graph algorithms onto one pipeline through
three functions: Process_Edge (per edge), Reduce (folding the updates of a destination) and
Apply (per vertex). A program here states them, with the property type, the vertex constant,
the initial values and the stop rule, as typed expressions (:mod:`.expr`) that the NumPy back
end (``golden.programs.run_program``) evaluates and that map onto the units of
``hw/lib/arith``. Widest paths from a root, for example::

    import golden
    from golden.programs import run_program
    from graphgen.programs import UInt, VertexProgram, build, maximum, minimum, select, uint

    class WidestPath(VertexProgram):
        \"\"\"Each vertex's best bottleneck capacity from the root.\"\"\"
        prop = UInt(32)                   # the vertex property: an unsigned 32-bit integer
        reduce = "max"                    # commutative and associative, as Reduce must be

        def init(self, h):                # host side: the root is "infinitely" wide
            return select(h.is_root, uint(2**32 - 1), uint(0))

        def process_edge(self, e):        # per edge u -> v
            return minimum(e.src_prop, e.weight)

        def apply(self, v):               # per vertex; it becomes active when it changed
            return maximum(v.vprop, v.temp)

    program = build(WidestPath)           # validated: types, operands, reduce, stop rule
    result = run_program(program, golden.from_spec("grid:rows=8,cols=9,weights=1:9"), root=0)

Operations are explicit functions (``sat_add``, ``fmul``, ``select``, ``dot``, ...; see
:data:`.expr.OPERATIONS`); a bare number next to an expression takes its type. Errors are
:class:`ProgramError` with one line naming the program and the reason. Built-ins are in
:data:`PROGRAMS`; :func:`load_program` takes a built-in name or ``path/to/file.py:ClassName``,
such as the programs of ``examples/programs/`` (this one among them). :func:`gas_form` gives a
program's form for DepGraph (Accum and EdgeCompute) and :func:`linearity` whether its
EdgeCompute is linear (:mod:`.gas`).
"""

from .builtins import PROGRAMS, cf_program
from .expr import (BOOL, OPERATIONS, Const, Expr, Float32, Float32Vector, Op, Operand, Param,
                   ProgramError, Random, UInt, bit_and, bit_or, bit_xor, dot, eq, f32, fadd,
                   fdiv, feq, fle, flt, fmul, fne, fsub, lane_sum, le, lt, maximum, minimum,
                   ne, reciprocal, resize, sat_add, sat_sub, scale, select, shl, shr, uint,
                   vadd, vmul, vsub)
from .gas import GasForm, Linearity, gas_form, linearity
from .load import load_program
from .program import FUNCTIONS, MODES, REDUCTIONS, Program, VertexProgram, build

__all__ = [
    "ProgramError", "UInt", "Float32", "Float32Vector", "BOOL", "Expr", "Const", "Param",
    "Operand", "Random", "Op", "OPERATIONS", "uint", "f32",
    "sat_add", "sat_sub", "minimum", "maximum", "lt", "le", "eq", "ne", "select", "shl", "shr",
    "bit_and", "bit_or", "bit_xor", "resize", "fadd", "fsub", "fmul", "fdiv", "flt", "fle",
    "feq", "fne", "reciprocal", "vadd", "vsub", "vmul", "scale", "lane_sum", "dot",
    "VertexProgram", "Program", "build", "REDUCTIONS", "MODES", "FUNCTIONS",
    "PROGRAMS", "cf_program", "load_program", "GasForm", "Linearity", "gas_form", "linearity",
]
