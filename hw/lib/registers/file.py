"""Configuration registers a host writes one word at a time before a run: where a design's
arrays are in memory and the run's parameters (the role of DepGraph's ``DEP_configure``,
Graphicionado's and Enterprise's host set-up)."""

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["RegisterFile"]


class RegisterFile(wiring.Component):
    """32-bit registers named by ``names``, register ``names[k]`` at address ``k``.

    Members
    -------
    addr : ``In(8)``; data : ``In(32)``; write : ``In(1)``
        The host's write port.
    <name> : ``Out(32)`` for every name
    """

    def __init__(self, names):
        names = tuple(names)
        if not names or len(names) > 256 or len(set(names)) != len(names):
            raise ConfigError(f"RegisterFile: 1 to 256 distinct names, not {len(names)}")
        self._names = names
        super().__init__({"addr": In(8), "data": In(32), "write": In(1),
                          **{name: Out(32) for name in names}})

    @property
    def map(self) -> dict[str, int]:
        return {name: address for address, name in enumerate(self._names)}

    def elaborate(self, platform):
        m = Module()
        with m.If(self.write):
            with m.Switch(self.addr):
                for address, name in enumerate(self._names):
                    with m.Case(address):
                        m.d.sync += getattr(self, name).eq(self.data)
        return m
