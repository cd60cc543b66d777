"""The schedule of an expression: the pipeline stage at which each node's value is ready.

Operands are ready at stage 0 (the input payload); constants and parameters at every stage
(wires and run-time registers, never delayed). An operation starts when its last operand is
ready and its value is ready ``latency`` stages later (ASAP scheduling): the generator, not
the program's author, balances the branches.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphgen.programs.expr import (Const, Expr, Float32Vector, Op, Operand, Param,
                                    ProgramError, Random, checked, walk)

from hw.lib.arith.fp32 import FP32Adder, FP32Divider, FP32Multiplier
from hw.lib.arith.fp32_compare import FLOAT_COMPARES
from hw.lib.arith.fp32_reciprocal import STAGES as RECIPROCAL_STAGES
from hw.lib.arith.integer import INTEGER_OPERATIONS
from hw.lib.config import ConfigError

__all__ = ["MAX_LANES", "LOGIC", "WIRING", "Schedule", "lane_sum_levels"]

#: the widest vector built in one beat: a 32-byte flit of binary32 lanes (Graphicionado §IV.E)
MAX_LANES = 8

#: operations built as combinational logic and one register
LOGIC = frozenset(INTEGER_OPERATIONS) | frozenset(FLOAT_COMPARES) | {"select"}
#: operations that are wiring only (no register)
WIRING = frozenset({"shl", "shr", "resize"})


def lane_sum_levels(lanes: int) -> int:
    """Adder levels of a lane sum: the lanes padded with +0.0 to a power of two."""
    return max(0, lanes - 1).bit_length()


def _adder_latency(lzc_stage: bool) -> int:
    """FP32Adder's latency: a stage more with ``lzc_stage``."""
    return FP32Adder.latency + (1 if lzc_stage else 0)


@dataclass(frozen=True)
class Schedule:
    """``ready[node]``: the stage at which ``node``'s value is ready (None: a constant or a
    parameter, ready at every stage); ``latency``: the stage of the result."""

    ready: dict
    latency: int

    @classmethod
    def of(cls, expr: Expr, lzc_stage: bool = False,
           registered_logic: bool = True) -> "Schedule":
        adder = _adder_latency(lzc_stage)
        logic = 1 if registered_logic else 0
        latencies = {
            "fadd": adder, "fsub": adder, "vadd": adder, "vsub": adder,
            "fmul": FP32Multiplier.latency, "vmul": FP32Multiplier.latency,
            "scale": FP32Multiplier.latency, "fdiv": FP32Divider.latency,
            "reciprocal": 1 + RECIPROCAL_STAGES,      # the rounding of d to float32 first
        }
        ready: dict = {}
        for node in walk(expr):
            if node in ready:
                continue
            if isinstance(node, (Const, Param)):
                ready[node] = None
            elif isinstance(node, Operand):
                ready[node] = 0
            elif isinstance(node, Random):
                raise ConfigError("Datapath: random values are made on the host, not in a "
                                  "datapath")
            else:
                start, cycles = _start(node, ready), _cycles(node, latencies, adder, logic)
                # a wiring-only operation of constants stays a constant wire
                ready[node] = None if start is None and cycles == 0 else (start or 0) + cycles
        result = ready[expr]
        return cls(ready, 0 if result is None else result)


def _start(node: Op, ready: dict) -> int | None:
    stages = [ready[arg] for arg in node.args if ready[arg] is not None]
    return max(stages) if stages else None


def _cycles(node: Op, latencies: dict, adder: int, logic: int) -> int:
    try:
        checked(node)
    except ProgramError as error:
        raise ConfigError(f"Datapath: {error}") from None
    for arg in (node, *node.args):
        if isinstance(arg.type, Float32Vector) and arg.type.lanes > MAX_LANES:
            raise ConfigError(
                f"Datapath: {node.name} on {arg.type}: at most {MAX_LANES} lanes are built "
                f"in one beat; wider vectors travel as flits of {MAX_LANES} lanes through "
                f"the Graphicionado pipeline, which this datapath does not build")
    if node.name in WIRING:
        return 0
    if node.name in LOGIC:
        return logic
    if node.name == "lane_sum":
        return lane_sum_levels(node.args[0].type.lanes) * adder
    return latencies[node.name]
