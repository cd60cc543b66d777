"""The custom compute modules of an algorithm (Graphicionado §3.2 "Custom Modules")."""

from hw.lib.arith.integer import Minimum, SaturatingAdd
from .config import GraphicionadoConfig


__all__ = ["compute_units"]


def compute_units(cfg: GraphicionadoConfig, *, index_width: int) -> dict:
    """Fresh units for one destination stream: ``process`` (P5), ``reduce`` (P8, its tag the
    scratchpad address of ``index_width`` bits) and, for PageRank, Apply's multiplier and
    adder."""
    if cfg.algorithm.large_property:
        # CF: Process_Edge and Apply build their own vector units; Reduce adds flits.
        from hw.lib.arith.fp32_vector import FP32Lanes
        return {"reduce": FP32Lanes("add", cfg.lanes, tag_width=index_width, lzc_stage=True)}
    if cfg.algorithm.floating_point:
        from hw.lib.arith.fp32 import FP32Adder, FP32Multiplier
        return {"process": FP32Multiplier(tag_width=32),
                "reduce": FP32Adder(tag_width=index_width, lzc_stage=True),
                "apply_multiplier": FP32Multiplier(tag_width=1),
                "apply_adder": FP32Adder(tag_width=1, lzc_stage=True)}
    return {"process": SaturatingAdd(tag_width=32), "reduce": Minimum(tag_width=index_width)}
