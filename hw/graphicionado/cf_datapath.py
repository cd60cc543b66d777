"""The custom compute modules of collaborative filtering for one destination stream
(Graphicionado §II.B, table I; §IV.E): Process_Edge (P5), the Reduce unit (P8) and Apply
(A3), on flits of a large property, built from CF's program (``graphgen.programs.cf_program``)
as the pipeline builds them inside its destination streams. Gathered so that their area can
be synthesized apart from the rest of the pipeline (``graphgen synth --design
graphicionado-cf``).
"""

import dataclasses

import numpy as np
from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, DesignConfig, is_power_of_two
from hw.lib.arith.fp32 import float32_bits
from hw.lib.arith.fp32_vector import FP32Lanes
from graphgen.programs import cf_program
from .apply import FlitApply
from .flit_process_edge import FlitProcessEdge


__all__ = ["CFDatapathConfig", "CFDatapath"]


def stream_of(port) -> stream.Signature:
    """The stream signature of a block's port, as declared (for a port of our own)."""
    return stream.Signature(port.payload.shape())


@dataclasses.dataclass(frozen=True)
class CFDatapathConfig(DesignConfig):
    """Parameters of :class:`CFDatapath`.

    Parameters
    ----------
    property_bytes : int
        Bytes of a vertex property: 4 × K features (128 for the paper's K = 32), a power of
        two from 4 to 128.
    datapath_bytes : int
        Bytes of a flit (the paper: 32), a power of two from 4 to 64.
    gamma, lam : float
        CF's step and regularisation (constants of Apply), rounded to binary32.
    index_width : int
        Scratchpad address width of the Reduce unit's tag.
    """
    property_bytes: int = 128
    datapath_bytes: int = 32
    gamma: float = 0.0005
    lam: float = 0.05
    index_width: int = 14

    def validate(self):
        if not is_power_of_two(self.property_bytes) or not 4 <= self.property_bytes <= 128:
            raise ConfigError(f"property_bytes must be a power of two from 4 to 128, "
                              f"not {self.property_bytes}")
        if not is_power_of_two(self.datapath_bytes) or not 4 <= self.datapath_bytes <= 64:
            raise ConfigError(f"datapath_bytes must be a power of two from 4 to 64, "
                              f"not {self.datapath_bytes}")
        for name in ("gamma", "lam"):
            if not np.isfinite(getattr(self, name)):
                raise ConfigError(f"{name} must be a finite number, not {getattr(self, name)}")
        if not 1 <= self.index_width <= 32:
            raise ConfigError(f"index_width must be from 1 to 32, not {self.index_width}")

    @property
    def lanes(self) -> int:
        """Words of a flit."""
        return min(self.property_bytes, self.datapath_bytes) // 4

    @property
    def flits(self) -> int:
        """Flits of a property."""
        return self.property_bytes // (4 * self.lanes)


class CFDatapath(wiring.Component):
    """P5, P8 and A3 of collaborative filtering, each with its own ports.

    Members
    -------
    edges : ``In``; updates : ``Out``
        :class:`FlitProcessEdge`'s ``i`` and ``o``.
    reduce_in : ``In``; reduce_out : ``Out``
        The Reduce unit: lane-by-lane FP32 adds of a VTempProperty flit and an update flit.
    apply_prop, apply_temp : ``In``; apply_out : ``Out``
        :class:`FlitApply`'s ``prop``, ``temp`` and ``o_prop``.
    """

    def __init__(self, config: CFDatapathConfig):
        if not isinstance(config, CFDatapathConfig):
            raise ConfigError(f"CFDatapath needs a CFDatapathConfig, not "
                              f"{type(config).__name__}")
        self._config = config
        lanes, flits = config.lanes, config.flits
        program = cf_program(lanes * flits)
        self._process = FlitProcessEdge(program=program, lanes=lanes, flits=flits)
        self._reduce = FP32Lanes("add", lanes, config.index_width, lzc_stage=True)
        self._apply = FlitApply(program=program, lanes=lanes)
        super().__init__({
            "edges": In(stream_of(self._process.i)),
            "updates": Out(stream_of(self._process.o)),
            "reduce_in": In(stream_of(self._reduce.i)),
            "reduce_out": Out(stream_of(self._reduce.o)),
            "apply_prop": In(stream_of(self._apply.prop)),
            "apply_temp": In(stream_of(self._apply.temp)),
            "apply_out": Out(stream_of(self._apply.o_prop)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.process_edge = process = self._process
        m.submodules.reduce = reduce = self._reduce
        m.submodules.apply = apply = self._apply
        cfg = self._config
        m.d.comb += [apply.gamma.eq(float32_bits(cfg.gamma)), apply.lam.eq(float32_bits(cfg.lam))]
        wiring.connect(m, wiring.flipped(self.edges), process.i)
        wiring.connect(m, process.o, wiring.flipped(self.updates))
        wiring.connect(m, wiring.flipped(self.reduce_in), reduce.i)
        wiring.connect(m, reduce.o, wiring.flipped(self.reduce_out))
        wiring.connect(m, wiring.flipped(self.apply_prop), apply.prop)
        wiring.connect(m, wiring.flipped(self.apply_temp), apply.temp)
        wiring.connect(m, apply.o_prop, wiring.flipped(self.apply_out))
        return m
