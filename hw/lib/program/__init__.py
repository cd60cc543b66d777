"""Vertex-program expressions (:mod:`graphgen.programs`) compiled to pipelined datapaths: the
hardware back end of the program API, for Graphicionado's custom computation modules
(Ham et al., MICRO 2016, §3.2 "Custom Modules": the arithmetic of Process_Edge and Apply).

:class:`Datapath` takes an expression and the types of its operands and builds a stream
component: an item of operands and a tag in, the expression's value and the tag out,
``latency`` cycles later, one item a cycle.

Pipeline
    One pipeline that moves as a whole: every register is updated when ``o.ready`` is high or
    ``o.valid`` low, and ``i.ready`` is that enable (the rule of the FP32 units,
    :mod:`hw.lib.arith.fp32`). Each node is scheduled at the stage where its last operand is
    ready (ASAP, :mod:`.schedule`); an operand needed later is delayed by registers to the
    stage of its user, so branches of different latencies meet in step without FIFOs, forks
    or joins, and only the valid bit and the tag run beside the data. A stalled result stalls
    everything; nothing is lost or repeated.

Operations (:data:`graphgen.programs.OPERATIONS`)
    Integer arithmetic, compares, ``select`` and bit operations: the combinational functions
    of :mod:`hw.lib.arith.integer` (and :mod:`hw.lib.arith.fp32_compare` for float
    compares) and one register, as :class:`~hw.lib.arith.integer.SaturatingAdd` (latency 1).
    Shifts by a constant and ``resize``: wiring (latency 0). ``fadd``/``fsub``/``fmul``/
    ``fdiv``: :class:`~hw.lib.arith.fp32.FP32Adder` (``fsub`` with b's sign flipped),
    ``FP32Multiplier``, ``FP32Divider``; ``reciprocal``: d rounded to float32 (a stage),
    then :class:`~hw.lib.arith.fp32_reciprocal.Reciprocal` of its significand. These units
    are fed every cycle and their output is taken with the enable; as no result can reach
    ``o`` before a unit is full, it then moves exactly with the rest. Constants are wires,
    parameters are the component's ``In`` members (run-time registers), neither delayed;
    :mod:`.params` gathers a program's parameters into one struct port a design drives from
    its registers.

Vectors
    ``Float32Vector(K)`` values travel in one beat, K <= 8 lanes (a 32-byte flit): lane-wise
    operations are K scalar units, ``lane_sum`` (and so ``dot``) a tree of adders in
    ``golden.algorithms.pairwise_sum``'s order (padded with +0.0 to a power of two). Wider
    vectors travel as flits: :mod:`.flits` cuts an expression at its lane sum
    (:class:`FlitSplit`), computes the packet's scalar once from the flits' partial sums
    (:class:`FlitReduce`) and leaves the lane-wise part to a :class:`Datapath` at the
    flit's lanes (Graphicionado's ``FlitProcessEdge`` and ``FlitApply``).

Exactness
    Results are ``golden.programs.evaluate``'s bit for bit, but for the FP32 units'
    documented departure: a NaN result of a float operation is the canonical quiet NaN
    ``0x7FC00000`` (NumPy keeps an operand's payload).
"""

from .datapath import Datapath, operands_of, shape_of
from .flits import FlitReduce, FlitSplit
from .params import drive_params, params_member, params_of
from .schedule import MAX_LANES, Schedule

__all__ = ["Datapath", "Schedule", "operands_of", "shape_of", "MAX_LANES", "FlitSplit",
           "FlitReduce", "params_of", "params_member", "drive_params"]
