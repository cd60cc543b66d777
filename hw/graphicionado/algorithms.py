"""What the Graphicionado pipeline builds from a vertex program (Graphicionado §2.2 and §3.2,
the custom computation modules): the program (:mod:`graphgen.programs`) named by the
configuration's ``algo``, and the facts of it the pipeline's structure follows.

=================  ==============================================================
program            pipeline
=================  ==============================================================
mode "frontier"    ActiveVertex lists, EdgeIDTable walks (bfs, sssp, cc; the examples
                   widest and labelprop)
mode "all"         full edge access (§IV.B): every vertex active, edges in order
                   (pagerank; the examples ppr and spmv)
Float32Vector      properties in flits (§IV.E), mode "all", Reduce ``fadd``
=================  ==============================================================

Process_Edge, Reduce and Apply of a scalar program (UInt(32) or Float32 property) are its
expressions compiled by :class:`hw.lib.program.Datapath`; of a Float32Vector program, flit
by flit (:mod:`hw.lib.program.flits`: a lane sum such as CF's dot product is a barrier, its
scalar computed once a packet). :func:`check_buildable` refuses, with one line, what the
pipeline has no data path for.
"""

import dataclasses
import functools

from graphgen.programs import (Float32, Float32Vector, Operand, Program, ProgramError, UInt,
                               fadd, load_program, maximum, minimum, sat_add)
from graphgen.programs.expr import walk
from hw.lib.arith.fp32 import float32_bits
from hw.lib.config import ConfigError
from hw.lib.program.params import params_of


__all__ = ["Algorithm", "algorithm_of", "check_buildable", "reduce_expression"]

_REDUCE_OPERATIONS = {"min": minimum, "max": maximum, "sat_add": sat_add, "fadd": fadd}


@dataclasses.dataclass(frozen=True)
class Algorithm:
    """A program as the pipeline sees it."""

    program: Program

    @property
    def name(self) -> str:
        return self.program.name

    @property
    def reduce_identity(self) -> int:
        """The VTempProperty word before any Reduce (each lane's, for vectors)."""
        identity = self.program.identity
        return float32_bits(identity) if self.floating_point else int(identity)

    @property
    def full_edge_access(self) -> bool:
        """All vertices active every iteration, edges streamed in order (§IV.B)."""
        return self.program.mode == "all"

    @property
    def floating_point(self) -> bool:
        return not isinstance(self.program.prop, UInt)

    @property
    def large_property(self) -> bool:
        """Vectors of features, in flits (§IV.E)."""
        return isinstance(self.program.prop, Float32Vector)

    @property
    def frontier(self) -> bool:
        return self.program.mode == "frontier"

    @property
    def params(self) -> dict:
        """The run-time parameters the pipeline's datapaths read (Process_Edge, Apply and
        the active rule), by name in name order: a register each (``param_<k>``, k their
        place in this order). CF's gamma and lambda are registers of their own."""
        if self.large_property:
            return {}
        program = self.program
        return params_of(program.process_edge, program.apply,
                         program.active if self.frontier else None)

    @property
    def apply_reads_root(self) -> bool:
        """Apply (or the active rule) reads ``is_root``: the root is a register of the run."""
        return bool(_reads(self.program.apply, ("is_root",)) |
                    _reads(self.program.active, ("is_root",)))


@functools.lru_cache(maxsize=None)
def algorithm_of(algo: str) -> Algorithm:
    """The :class:`Algorithm` of ``algo``: a built-in program's name or
    ``path/to/file.py:ClassName``; refused with :class:`ConfigError` when unknown or not
    buildable."""
    if not isinstance(algo, str):
        raise ConfigError(f"algo must be a program name or 'file.py:Class', not {algo!r}")
    try:
        program = load_program(algo)
    except ProgramError as error:
        raise ConfigError(f"algo: {error}") from None
    check_buildable(program)
    return Algorithm(program)


def _reads(expr, roles) -> set:
    if expr is None:
        return set()
    return {node.role for node in walk(expr) if isinstance(node, Operand)} & set(roles)


def check_buildable(program: Program) -> None:
    """Refuse a program the pipeline has no data path for."""
    name = program.name

    def refuse(reason):
        return ConfigError(f"program {name}: {reason}")

    if isinstance(program.prop, Float32Vector):
        _check_flits(program, refuse)
        return
    if program.prop not in (UInt(32), Float32):
        raise refuse(f"the pipeline carries 32-bit properties (UInt(32) or Float32), not "
                     f"{program.prop!r}")
    if program.tolerance is not None:
        raise refuse("the pipeline stops after a number of iterations or an empty frontier; "
                      "a tolerance is not built")
    if program.mode == "frontier" and _reads(program.process_edge, ("src_const",)):
        raise refuse("VConst (src_const) is read by the full-edge-access pipeline only "
                     "(mode 'all')")
    if program.mode == "all" and _reads(program.process_edge, ("dst_prop",)):
        raise refuse("dst_prop (stage P4) is read by the frontier pipeline only")
    if _reads(program.apply, ("vconst",)) | _reads(program.active, ("vconst",)):
        raise refuse("Apply reads vconst, which the apply phase does not have (it streams "
                     "vprop, temp and vertex_id, and compares the id with the root)")
    if program.mode == "all" and _reads(program.apply, ("vprop",)):
        raise refuse("in mode 'all' Apply streams VTempProperty alone; an Apply reading "
                     "vprop is built for frontier programs only")


def _check_flits(program: Program, refuse) -> None:
    """Refuse a Float32Vector program the flit pipeline (§IV.E) does not build."""
    from .apply import apply_flits
    from .flit_process_edge import process_edge_flits
    if program.mode != "all":
        raise refuse("Float32Vector properties run with full edge access (mode 'all')")
    if program.tolerance is not None:
        raise refuse("the pipeline stops after a number of iterations; a tolerance is not "
                     "built")
    if program.vconst is not None:
        raise refuse("edge flits carry no VConst; a Float32Vector program's vconst is not "
                     "built")
    if program.active is not None:
        raise refuse("every vertex of a Float32Vector program stays active; an active rule "
                      "is not built")
    # Every vector of a program has its property's lanes, so one lane checks the shapes.
    process_edge_flits(program, 1)
    apply_flits(program, 1)


def reduce_expression(program: Program):
    """Reduce as an expression of two operands ``a`` (VTempProperty) and ``b`` (the
    update), for :class:`hw.lib.program.Datapath`."""
    prop = program.prop
    return _REDUCE_OPERATIONS[program.reduce](Operand("a", prop), Operand("b", prop))
