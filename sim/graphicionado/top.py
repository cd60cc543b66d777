"""The pipeline with the simulation-only DRAM model beside it: the top of its RTL
simulations. Never synthesized (the DRAM is a behavioural Verilog module); ``graphgen synth``
takes :class:`GraphicionadoPipeline` alone, whose memory ports are plain request/response
streams."""

from sim.gateware.register_top import RegisterSimTop
from sim.gateware.sim_memory import SimMemoryConfig
from sim.gateware.stream_throttle import StreamThrottle
from hw.graphicionado.config import GraphicionadoConfig
from hw.graphicionado.registers import counter_names
from hw.graphicionado.top import GraphicionadoPipeline


__all__ = ["SimMemoryConfig", "GraphicionadoSimTop"]


class GraphicionadoSimTop(RegisterSimTop):
    """:class:`GraphicionadoPipeline` wired to a simulated DRAM, with a watchdog (the members
    of :class:`sim.gateware.register_top.RegisterSimTop`): the pipeline's memory channel
    ``c`` on the DRAM's channel ``c`` (the two must have as many channels)."""

    def __init__(self, config: GraphicionadoConfig, memory: SimMemoryConfig):
        super().__init__(**self.parts(config), memory=memory)

    @staticmethod
    def parts(config: GraphicionadoConfig) -> dict:
        """The design and how the sim tops name and watch it (this one's, the AXI one's)."""
        return dict(design=GraphicionadoPipeline(config, throttle=StreamThrottle),
                    name="pipeline", counters=counter_names(config),
                    addr_width=config.addr_width, stalls=bool(config.stall_injection))
