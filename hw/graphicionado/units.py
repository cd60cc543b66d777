"""The Reduce unit of a destination stream (Graphicionado §3.2 "Custom Modules", stage P8),
from the program's reduce operation."""

from hw.lib.program import Datapath
from .config import GraphicionadoConfig
from .algorithms import reduce_expression


__all__ = ["reduce_unit"]


def reduce_unit(cfg: GraphicionadoConfig, *, index_width: int):
    """A fresh Reduce unit ({a, b, tag} → {result, tag}, its tag the scratchpad address of
    ``index_width`` bits): the program's reduce of two properties compiled as a
    :class:`Datapath`, or for CF's flits a lane-wise FP32 adder."""
    if cfg.algorithm.large_property:
        from hw.lib.arith.fp32_vector import FP32Lanes
        return FP32Lanes("add", cfg.lanes, tag_width=index_width, lzc_stage=True)
    program = cfg.program
    return Datapath(reduce_expression(program), {"a": program.prop, "b": program.prop},
                    tag_width=index_width, lzc_stage=True)
