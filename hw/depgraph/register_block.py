"""DepGraph's configuration registers: what ``DEP_configure`` passes to the engines before a
run (Zhang et al., HPCA 2021, §III-B, table I): where the graph's CSR arrays, the vertex data,
the H'' bitmap, the circular queues and the hub index are in memory, the partition bounds of
the engines and the algorithm's constants.

The host writes them one word at a time through a write port (``addr``, ``data``, ``write``);
:func:`register_map` gives each register's address.
"""

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["RegisterBlock", "GLOBAL_REGISTERS", "register_map"]

# Line addresses of the memory regions, the vertex count and the tolerance (FP32 bits).
GLOBAL_REGISTERS = ("offsets_base", "edges_base", "state_base", "delta_base", "const_base",
                    "stop_base", "queue_base", "queue_lines", "hash_base", "hash_slots",
                    "index_base", "num_vertices", "tolerance")


def register_map(engines: int) -> dict[str, int]:
    """Register name → address: the global registers, then ``first<e>`` (the first vertex
    of engine e's partition; ``first<engines>`` = the vertex count) for e = 0 .. engines."""
    names = list(GLOBAL_REGISTERS) + [f"first{e}" for e in range(engines + 1)]
    return {name: address for address, name in enumerate(names)}


class RegisterBlock(wiring.Component):
    """The configuration registers of ``engines`` engines.

    Members
    -------
    addr : ``In(8)``; data : ``In(32)``; write : ``In(1)``
        The host's write port.
    <name> : ``Out(32)`` for every name of :func:`register_map`
    """

    def __init__(self, *, engines: int):
        if engines < 1:
            raise ConfigError(f"RegisterBlock: engines must be at least 1, not {engines!r}")
        self._map = register_map(engines)
        if len(self._map) > 256:
            raise ConfigError(f"RegisterBlock: {engines} engines need {len(self._map)} registers, "
                              "more than the 256 an 8-bit address reaches")
        members = {"addr": In(8), "data": In(32), "write": In(1)}
        members.update({name: Out(32) for name in self._map})
        super().__init__(members)

    @property
    def map(self) -> dict[str, int]:
        return dict(self._map)

    def elaborate(self, platform):
        m = Module()
        with m.If(self.write):
            with m.Switch(self.addr):
                for name, address in self._map.items():
                    with m.Case(address):
                        m.d.sync += getattr(self, name).eq(self.data)
        return m
