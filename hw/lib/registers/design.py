"""The shell of a design run through registers (Graphicionado, DepGraph, the BFS engine, the
dynamic graph unit): the host writes its registers, pulses ``control.start`` and waits for
``control.done``, then reads its ``counters``; it reaches memory through one port, or one per
channel."""

from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, DesignConfig
from hw.lib.memory.port import MEMORY_TAG_WIDTH, mem_port_signature
from hw.lib.registers.signatures import (CountersSignature, RegisterWriteSignature,
                                         RunControlSignature)


__all__ = ["RegisterDesign"]


class RegisterDesign(wiring.Component):
    """Members
    -------
    regs : ``In(RegisterWriteSignature())``
        The register file's write port (``addr``, ``data``, ``write``); register ``k`` is
        ``registers[k]``.
    control : ``In(RunControlSignature())``
        ``start`` in; ``busy``, ``done``, ``error`` out.
    mem : ``Out(mem_port_signature(addr_width, MEMORY_TAG_WIDTH))``
        With ``config.memory_channels`` > 1 an array of that many ports, channel ``c``
        serving the lines with ``addr % memory_channels == c``.
    counters : ``Out(CountersSignature(counters))``
        One 32-bit output a name of ``counters``.
    stall_seed : ``In(32)`` with ``config.stall_injection``

    In the emitted Verilog each signal of a group is a port of its own, named by its path:
    ``regs__addr``, ``control__start``, ``counters__cycles``, ``mem__req__valid``.

    A subclass names its configuration class in ``CONFIG``, its register description in
    :meth:`register_description`, records its stream links in
    ``self._links`` (a :class:`~hw.lib.stream.links.StreamLinks`) and its memory clients'
    names in ``self._memory_clients`` (in the order of their tags) while it elaborates, and
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
        self._memory_clients = []
        port = Out(mem_port_signature(config.addr_width, MEMORY_TAG_WIDTH))
        members = {"regs": In(RegisterWriteSignature()), "control": In(RunControlSignature()),
                   "mem": port if config.memory_channels == 1 else
                   port.array(config.memory_channels),
                   "counters": Out(CountersSignature(counters))}
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

    def register_description(self):
        """The SystemRDL description of this configuration's AXI4-Lite register map (an
        :class:`~hw.lib.axi.rdl_map.RDLSource`), or None: the AXI top lays the map out with
        :func:`~hw.lib.axi.address_map.design_address_map`. A design with a
        ``registers.rdl`` returns it."""
        return None

    @property
    def memory_ports(self) -> list:
        """``mem`` as a list of channel ports, whatever the number of channels."""
        return [self.mem] if self._config.memory_channels == 1 else list(self.mem)

    @property
    def memory_clients(self) -> list[str]:
        """The names of the memory clients, client ``k`` tagging its requests ``k`` (after
        elaboration): what a memory model counting by tag reports the traffic of."""
        return list(self._memory_clients)

    @property
    def link_probes(self) -> list:
        """The stream links, for the simulation watchdog (after elaboration)."""
        return list(self._links.probes) if self._links else []
