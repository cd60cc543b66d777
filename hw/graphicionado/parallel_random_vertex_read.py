"""Parallel destination-property readers (Graphicionado §V.C).

The optional stage P4 reads one random line per edge; in a fast pipeline it is a bottleneck.
Several Random Vertex Reads side by side: each edge goes to the one holding the fewest edges,
and their outputs are merged round robin into one edge a cycle.
"""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.stream.lowest_occupancy import LowestOccupancyDispatch
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.stream.arbiter import StreamArbiter
from .layouts import DestinedEdge, SourcedEdge
from .random_vertex_read import RandomVertexRead


__all__ = ["ParallelRandomVertexRead"]


class ParallelRandomVertexRead(wiring.Component):
    """``readers`` :class:`RandomVertexRead` units behind a lowest-occupancy dispatcher.

    Parameters
    ----------
    readers : int
        At least 2.
    addr_width, outstanding, partitions : int
        Each reader's (see :class:`RandomVertexRead`).

    Members
    -------
    vprop_base : ``In(addr_width)``; part_lines : ``In(32)``
    i : ``In(stream.Signature(SourcedEdge))``
    o : ``Out(stream.Signature(DestinedEdge))``
    busy : ``Out(1)``
    mem : ``Out(MemoryPortSignature(addr_width)).array(readers)``
    """

    def __init__(self, *, readers: int, addr_width: int, outstanding: int = 128,
                 partitions: int = 1):
        check_int("ParallelRandomVertexRead", "addr_width", addr_width, high=32)
        check_int("ParallelRandomVertexRead", "outstanding", outstanding)
        check_int("ParallelRandomVertexRead", "partitions", partitions, power_of_two=True)
        if readers < 2:
            raise ConfigError(f"ParallelRandomVertexRead: readers must be at least 2, "
                              f"not {readers!r}")
        self._readers = readers
        self._unit = dict(addr_width=addr_width, outstanding=outstanding, partitions=partitions)
        super().__init__({
            "vprop_base": In(addr_width), "part_lines": In(32),
            "i": In(stream.Signature(SourcedEdge)),
            "o": Out(stream.Signature(DestinedEdge)),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)).array(readers),
        })

    def elaborate(self, platform):
        m = Module()
        units = [RandomVertexRead(**self._unit) for _ in range(self._readers)]
        m.submodules.dispatch = dispatch = LowestOccupancyDispatch(
            SourcedEdge, self._readers, level_width=len(units[0].level))
        m.submodules.merge = merge = StreamArbiter(DestinedEdge, self._readers)
        wiring.connect(m, wiring.flipped(self.i), dispatch.i)
        wiring.connect(m, merge.o, wiring.flipped(self.o))
        for k, unit in enumerate(units):
            m.submodules[f"reader{k}"] = unit
            wiring.connect(m, dispatch.o[k], unit.i)
            wiring.connect(m, unit.o, merge.i[k])
            wiring.connect(m, unit.mem, wiring.flipped(self.mem[k]))
            m.d.comb += [unit.vprop_base.eq(self.vprop_base), unit.part_lines.eq(self.part_lines),
                         dispatch.levels[k].eq(unit.level)]
        m.d.comb += self.busy.eq(any_busy(unit.busy for unit in units))
        return m
