"""The shell of a design run through registers (DepGraph, the BFS engine, the dynamic graph
unit): the host writes its registers, pulses ``start`` and waits for ``done``, then reads its
counters; it reaches memory through one port, or one per channel."""

from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, DesignConfig
from hw.lib.memory.port import MEMORY_TAG_WIDTH, mem_port_signature


__all__ = ["RegisterDesign"]


class RegisterDesign(wiring.Component):
    """Members
    -------
    reg_addr : ``In(8)``; reg_data : ``In(32)``; reg_write : ``In(1)``
        The register file's write port (``registers``, in that order).
    start : ``In(1)``; busy : ``Out(1)``; done : ``Out(1)``; error : ``Out(1)``
    stat_<counter> : ``Out(32)`` for every name of ``counters``
    mem : ``Out(mem_port_signature(addr_width, MEMORY_TAG_WIDTH))``
        With ``config.memory_channels`` > 1 an array of that many ports, channel ``c``
        serving the lines with ``addr % memory_channels == c``.
    stall_seed : ``In(32)`` with ``config.stall_injection``

    A subclass names its configuration class in ``CONFIG``, records its stream links in
    ``self._links`` (a :class:`~hw.lib.stream.links.StreamLinks`) while it elaborates, and
    hands ``self._throttle`` to them: the stream throttle class a simulation top passes in
    for stall injection (simulation-only gateware; None for the hardware alone).
    """

    CONFIG = DesignConfig

    def __init__(self, config, *, registers, counters, throttle=None):
        self.check_config(config)
        self._config = config
        self._throttle = throttle
        self._registers = tuple(registers)
        self._links = None
        port = Out(mem_port_signature(config.addr_width, MEMORY_TAG_WIDTH))
        members = {"reg_addr": In(8), "reg_data": In(32), "reg_write": In(1),
                   "start": In(1), "busy": Out(1), "done": Out(1), "error": Out(1),
                   "mem": port if config.memory_channels == 1 else
                   port.array(config.memory_channels)}
        members.update({f"stat_{name}": Out(32) for name in counters})
        if config.stall_injection:
            members["stall_seed"] = In(32)
        super().__init__(members)

    @classmethod
    def check_config(cls, config):
        """ConfigError unless ``config`` is a ``CONFIG`` (a subclass that derives its
        registers from the configuration calls this first)."""
        if not isinstance(config, cls.CONFIG):
            raise ConfigError(f"{cls.__name__} needs a {cls.CONFIG.__name__}, not "
                              f"{type(config).__name__}")

    @property
    def config(self):
        return self._config

    @property
    def register_map(self) -> dict[str, int]:
        return {name: address for address, name in enumerate(self._registers)}

    @property
    def memory_ports(self) -> list:
        """``mem`` as a list of channel ports, whatever the number of channels."""
        return [self.mem] if self._config.memory_channels == 1 else list(self.mem)

    @property
    def link_probes(self) -> list:
        """The stream links, for the simulation watchdog (after elaboration)."""
        return list(self._links.probes) if self._links else []
