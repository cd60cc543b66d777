"""The on-chip memories' accesses in an RTL run, counted beside the design (issue 54, item 6:
the SRAM term of a run's energy). Simulation only: the sim top reads the enables of the
design's memory ports and counts them; the design itself has no such counters.

The memories counted are those the ASIC flow keeps as SRAM macros (``synth.flow``: depth
:data:`MACRO_MIN_DEPTH` or more); shallower ones become flip-flops and their energy is in the
logic's power. A port's access is a cycle its enable is high (a write port's: any of its
enable bits); an asynchronous read port (no enable) counts on every cycle, which makes its
count an upper bound. Counting runs from the design's ``start`` while it is busy, the cycles
the run's ``cycles`` counter counts.
"""

import dataclasses

from amaranth.hdl import Shape, Signal
from amaranth.hdl._mem import MemoryInstance   # the elaborated form of lib.memory.Memory

from synth.flow import MACRO_MIN_DEPTH


__all__ = ["MACRO_MIN_DEPTH", "CountedMemory", "deep_memories", "counter_names",
           "add_access_counters", "COUNTER_WIDTH"]

COUNTER_WIDTH = 48


@dataclasses.dataclass(frozen=True)
class CountedMemory:
    """A memory of the design, named by its place in the hierarchy, with the enables of its
    read ports and write ports (Amaranth values; a constant 1 for an asynchronous read)."""
    name: str
    depth: int
    width: int
    read_enables: tuple
    write_enables: tuple
    asynchronous_reads: int

    def as_dict(self) -> dict:
        return {"name": self.name, "depth": self.depth, "width": self.width,
                "read_ports": len(self.read_enables), "write_ports": len(self.write_enables),
                "asynchronous_read_ports": self.asynchronous_reads}


def deep_memories(fragment, prefix: str, min_depth: int = MACRO_MIN_DEPTH) -> list[CountedMemory]:
    """Every memory of ``fragment`` (an elaborated design) ``min_depth`` words deep or more,
    in the order of the hierarchy, named ``prefix.<submodule>...``."""
    found = []
    for sub, name, _ in fragment.subfragments:
        path = f"{prefix}.{name if name is not None else 'unnamed'}"
        if isinstance(sub, MemoryInstance):
            if sub._data.depth >= min_depth:
                reads = sub._read_ports
                found.append(CountedMemory(
                    name=path, depth=sub._data.depth, width=Shape.cast(sub._data.shape).width,
                    read_enables=tuple(port._en for port in reads),
                    write_enables=tuple(port._en for port in sub._write_ports),
                    asynchronous_reads=sum(port._domain == "comb" for port in reads)))
            continue
        found += deep_memories(sub, path, min_depth)
    return found


def counter_names(memories: list[CountedMemory]) -> list[str]:
    """The sim top's ports of the counts: ``sram<k>_reads`` and ``sram<k>_writes``."""
    return [f"sram{k}_{kind}" for k in range(len(memories)) for kind in ("reads", "writes")]


def add_access_counters(m, top, memories: list[CountedMemory], domain: str, start, busy):
    """Count each memory's accesses into ``top``'s ports of :func:`counter_names`, on clock
    ``domain``: from the cycle ``start`` is high, while ``busy``."""
    started = Signal(name="sram_counting")
    with m.If(start):
        m.d[domain] += started.eq(1)
    counting = (started | start) & busy
    for k, memory in enumerate(memories):
        for kind, enables in (("reads", memory.read_enables),
                              ("writes", memory.write_enables)):
            count = getattr(top, f"sram{k}_{kind}")
            total = Signal(COUNTER_WIDTH, name=f"sram{k}_{kind}_count")
            # Several ports of a memory may access it in one cycle: each counts.
            now = sum((enable.any() for enable in enables), start=0)
            with m.If(counting):
                m.d[domain] += total.eq(total + now)
            m.d.comb += count.eq(total)
