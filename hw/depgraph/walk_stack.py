"""The HDTL's stack (DepGraph, Zhang et al., HPCA 2021, §III-B, figure 7): the entries of the
walk's path, <vertex, next edge offset, end offset> (and the path value y with the hub
index). The top entry is a register and the entries below it a distributed RAM, so the
walk's next step starts from flip-flops, not from a RAM read addressed by the size.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


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
        top = Signal(self.top.shape())
        m.d.comb += self.top.eq(top)
        below = None
        if self._depth > 1:
            # entries[k] holds entry k of the stack (0 at the bottom) while it is not the top.
            m.submodules.entries = entries = memory.Memory(shape=self.top.shape(),
                                                           depth=self._depth - 1, init=[])
            write = entries.write_port()
            below = entries.read_port(domain="comb")
            m.d.comb += [below.addr.eq(self.size - 2), write.addr.eq(self.size - 1),
                         write.data.eq(top)]
        with m.If(self.push & (self.size != self._depth)):
            if below is not None:
                m.d.comb += write.en.eq(self.size != 0)
            m.d.sync += [top.eq(self.entry), self.size.eq(self.size + 1)]
        with m.Elif(self.advance & (self.size != 0)):
            m.d.sync += top.next.eq(self.next)
        with m.Elif(self.pop & (self.size != 0)):
            if below is not None:
                m.d.sync += top.eq(below.data)
            m.d.sync += self.size.eq(self.size - 1)
        with m.If(self.clear):
            m.d.sync += self.size.eq(0)
        return m
