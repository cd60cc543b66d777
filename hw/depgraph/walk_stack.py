"""The HDTL's stack (DepGraph, Yao et al., HPCA 2021, §III-B, figure 7): the entries of the
walk's path, <vertex, next edge offset, end offset> (and the path value y with the hub
index), the top read without a clock edge (distributed RAM).
"""

from amaranth.hdl import Module
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from ..config import ConfigError


__all__ = ["WalkStack", "stack_entry_layout"]


def stack_entry_layout(hub_index: bool) -> data.StructLayout:
    """<vertex, next edge offset, end offset>, and the path value y with the hub index."""
    fields = {"vertex": 32, "next": 32, "end": 32}
    if hub_index:
        fields["y"] = 32
    return data.StructLayout(fields)


class WalkStack(wiring.Component):
    """A stack of ``depth`` walk entries with one operation per cycle.

    Parameters
    ----------
    depth : int
        Entries.
    hub_index : bool
        Entries carry the path value y.

    Members
    -------
    push : ``In(1)``; entry : ``In(stack_entry_layout(hub_index))``
        Put ``entry`` on top (ignored when full).
    advance : ``In(1)``; next : ``In(32)``
        Set the top entry's next edge offset.
    pop : ``In(1)``
        Drop the top entry.
    clear : ``In(1)``
        Empty the stack (a new run); wins over the others.
    top : ``Out(stack_entry_layout(hub_index))``
        The top entry, in the same cycle (meaningless when empty).
    size : ``Out(range(depth + 1))``
        Entries held.
    """

    def __init__(self, *, depth: int, hub_index: bool = False):
        if depth < 1:
            raise ConfigError(f"WalkStack: depth must be at least 1, not {depth!r}")
        self._depth = depth
        layout = stack_entry_layout(hub_index)
        super().__init__({
            "push": In(1), "entry": In(layout),
            "advance": In(1), "next": In(32),
            "pop": In(1), "clear": In(1),
            "top": Out(layout), "size": Out(range(depth + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.entries = entries = memory.Memory(shape=self.top.shape(),
                                                       depth=self._depth, init=[])
        write = entries.write_port()
        read = entries.read_port(domain="comb")
        m.d.comb += [read.addr.eq(self.size - 1), self.top.eq(read.data)]
        with m.If(self.push & (self.size != self._depth)):
            m.d.comb += [write.en.eq(1), write.addr.eq(self.size), write.data.eq(self.entry)]
            m.d.sync += self.size.eq(self.size + 1)
        with m.Elif(self.advance & (self.size != 0)):
            m.d.comb += [write.en.eq(1), write.addr.eq(self.size - 1),
                         write.data.eq(read.data), write.data.next.eq(self.next)]
        with m.Elif(self.pop & (self.size != 0)):
            m.d.sync += self.size.eq(self.size - 1)
        with m.If(self.clear):
            m.d.sync += self.size.eq(0)
        return m
