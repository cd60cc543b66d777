"""The control schedule of extended graph slicing for symmetric graphs (Graphicionado §VI.B).

The vertices fall into N partitions of consecutive ids and the stored edges (larger id to
smaller) into the N(N+1)/2 slices (i, j), i >= j. The slices run column by column, j = 0 ..
N - 1 and i = j .. N - 1 within a column, so that partition j stays in the scratchpad (its
region A) through its column while partition i of each slice below the diagonal passes
through region B: cleared (first column) or loaded from memory before the slice, written
back after it. Partition j is applied after slice (N - 1, j), the last that updates it.
This is the precomputed schedule the paper describes, walked by two counters; the test
checks it step by step against ``golden.graphicionado.extended_schedule``.
"""

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["ExtendedSchedule", "max_partitions"]


def max_partitions(max_slices: int) -> int:
    """The most partitions N whose N(N+1)/2 slices fit ``max_slices``."""
    n = 1
    while (n + 1) * (n + 2) // 2 <= max_slices:
        n += 1
    return n


class ExtendedSchedule(wiring.Component):
    """Steps through the slices of one iteration.

    Parameters
    ----------
    partitions : int
        The most partitions a run may have (N of its ``count``).

    Members
    -------
    count : ``In(range(partitions + 1))``
        N of the run, 1 .. ``partitions``.
    restart : ``In(1)``
        Pulse: go to the first slice, (0, 0).
    advance : ``In(1)``
        Pulse: go to the next slice (ignored at the last).
    src, dst : ``Out(range(partitions))``
        The slice (i, j): sources in partition i, destinations in partition j.
    step : ``Out(range(N(N+1)/2))``
        The slice's number in the schedule (its edge ranges and VConst degree words).
    diagonal : ``Out(1)``
        i == j: the slice touches region A only.
    clear : ``Out(1)``
        Before the slice, the arriving partition (i: region B below the diagonal, A on it) is
        cleared (the first column) rather than loaded from memory.
    store : ``Out(1)``
        After the slice, region B goes back to memory (below the diagonal).
    apply : ``Out(1)``
        After the slice, partition j is applied (i = N - 1).
    last : ``Out(1)``
        The iteration's last slice, (N - 1, N - 1).
    """

    def __init__(self, partitions: int):
        if not 1 <= partitions <= 64:
            raise ConfigError(f"ExtendedSchedule: partitions must be between 1 and 64, "
                              f"not {partitions!r}")
        self._partitions = partitions
        steps = partitions * (partitions + 1) // 2
        super().__init__({
            "count": In(range(partitions + 1)), "restart": In(1), "advance": In(1),
            "src": Out(range(partitions)), "dst": Out(range(partitions)),
            "step": Out(range(max(2, steps))),
            "diagonal": Out(1), "clear": Out(1), "store": Out(1), "apply": Out(1),
            "last": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        end = self.src + 1 == self.count
        m.d.comb += [
            self.diagonal.eq(self.src == self.dst),
            self.clear.eq(self.dst == 0),
            self.store.eq(self.src != self.dst),
            self.apply.eq(end),
            self.last.eq(end & (self.dst + 1 == self.count)),
        ]
        with m.If(self.restart):
            m.d.sync += [self.src.eq(0), self.dst.eq(0), self.step.eq(0)]
        with m.Elif(self.advance & ~self.last):
            m.d.sync += self.step.eq(self.step + 1)
            with m.If(end):     # the next column starts on the diagonal
                m.d.sync += [self.src.eq(self.dst + 1), self.dst.eq(self.dst + 1)]
            with m.Else():
                m.d.sync += self.src.eq(self.src + 1)
        return m
