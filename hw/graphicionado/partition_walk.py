"""The walk of a stream over the vertex partitions it owns (Graphicionado §V.A).

With n source and m destination streams the vertices fall into L = max(n, m) partitions by
the low log2(L) bits of their id; partition l lies in memory as its own array of the
vertices l, l + L, l + 2L, ... (VProperty, VConst, the ActiveVertex list), each array
``part_lines`` lines apart from the next. A stream owns the L / n (or L / m) partitions
``first``, ``first + step``, ... and runs a phase over them one after another: this block
hands out each partition in turn and waits for the stream to finish it.

With graph slicing (§VI.A) a phase covers only the vertices ``range_first`` ..
``num_vertices - 1`` of each partition: ``range_first`` a multiple of 16 L, so each
partition's part starts on a line of a one-word array.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, is_power_of_two


__all__ = ["PartitionWalk", "partition_size"]


def partition_size(num_vertices, partition: int, partitions: int):
    """Vertices in ``partition`` of ``partitions`` (a power of two): those whose id has it
    as its low bits. Works on ints and on Amaranth values."""
    if partitions == 1:
        return num_vertices
    shift = partitions.bit_length() - 1
    return (num_vertices >> shift) + ((num_vertices & (partitions - 1)) > partition)


class PartitionWalk(wiring.Component):
    """Hands out partitions ``first + k * step`` for k = 0 .. ``segments`` - 1.

    For each: a ``seg_start`` pulse with the partition's number, size and line offset held
    until the next; then, once ``seg_idle`` (a few cycles after the pulse, so that the
    stream's busy flags have risen; seen through a register), a ``seg_end`` pulse; then,
    once ``seg_drained`` (through a register too), the next partition. ``busy`` from ``start`` until the last partition is drained.

    Parameters
    ----------
    segments : int
        Partitions owned by the stream.
    first, step : int
        The stream's first partition and the distance between its partitions.
    partitions : int
        L, a power of two.

    Members
    -------
    start : ``In(1)``
    num_vertices, part_lines : ``In(32)``
        ``num_vertices``: the end of the vertex range walked (the graph's vertex count, or
        the end of the current slice).
    range_first : ``In(32)``
        The first vertex id of the range walked, a multiple of 16 L (0: the whole graph).
    seg_idle, seg_drained : ``In(1)``
    seg_start, seg_end : ``Out(1)``
    segment : ``Out(range(segments))``
        k of the partition being walked.
    partition : ``Out(32)``; size : ``Out(32)``
        ``size``: the partition's vertices in the range, a register valid from ``seg_start``
        (``num_vertices`` and ``range_first`` held from the cycle before it).
    offset : ``Out(32)``
        ``partition * part_lines + range_first / 16 L``: the line offset of the partition's
        part of the range in a one-word-per-vertex array.
    part_offset : ``Out(32)``
        ``partition * part_lines``: where the partition's array starts, the range aside (an
        ActiveVertex list, which each slice of a sliced graph appends to).
    busy : ``Out(1)``
    """

    SETTLE = 3

    def __init__(self, *, segments: int, first: int, step: int, partitions: int):
        if not is_power_of_two(partitions):
            raise ConfigError(f"PartitionWalk: partitions must be a power of two, "
                              f"not {partitions!r}")
        if segments < 1 or first + (segments - 1) * step >= partitions:
            raise ConfigError(f"PartitionWalk: {segments} partitions from {first} every {step} "
                              f"do not fit in {partitions}")
        self._segments = segments
        self._first = first
        self._step = step
        self._partitions = partitions
        super().__init__({
            "start": In(1), "num_vertices": In(32), "part_lines": In(32),
            "range_first": In(32), "seg_idle": In(1), "seg_drained": In(1),
            "seg_start": Out(1), "seg_end": Out(1),
            "segment": Out(range(max(2, segments))),
            "partition": Out(32), "size": Out(32), "offset": Out(32), "part_offset": Out(32),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        settle = Signal(range(self.SETTLE + 1))
        settled = settle == self.SETTLE
        m.d.sync += [self.seg_start.eq(0), self.seg_end.eq(0),
                     settle.eq(settle + ~settled)]
        shift = self._partitions.bit_length() - 1
        # ``size`` and the stream's idle checks are registers: the range's end comes from
        # across the design, and the size's carry chains and the stream's compare of what it
        # wrote against it were on the way to the walk's state and ``settle`` (once the ecp5
        # preset's critical path). ``size`` is read from ``seg_start`` on, a cycle after the
        # partition is set (START): registering it costs nothing; the checks, a cycle each.
        m.d.sync += self.size.eq(partition_size(self.num_vertices, self.partition,
                                                self._partitions)
                                 - (self.range_first >> shift))
        idle, drained = Signal(), Signal()
        m.d.sync += [idle.eq(self.seg_idle), drained.eq(self.seg_drained)]
        range_lines = self.range_first >> (shift + 4)
        with m.FSM(name="walk"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [self.segment.eq(0), self.partition.eq(self._first),
                                 self.offset.eq(self.part_lines * self._first + range_lines),
                                 self.part_offset.eq(self.part_lines * self._first),
                                 self.busy.eq(1)]
                    m.next = "START"
            with m.State("START"):
                m.d.sync += [self.seg_start.eq(1), settle.eq(0)]
                m.next = "RUN"
            with m.State("RUN"):
                with m.If(settled & idle):
                    m.d.sync += [self.seg_end.eq(1), settle.eq(0)]
                    m.next = "DRAIN"
            with m.State("DRAIN"):
                with m.If(settled & drained):
                    with m.If(self.segment == self._segments - 1):
                        m.d.sync += self.busy.eq(0)
                        m.next = "IDLE"
                    with m.Else():
                        m.d.sync += [self.segment.eq(self.segment + 1),
                                     self.partition.eq(self.partition + self._step),
                                     self.offset.eq(self.offset + self.part_lines * self._step),
                                     self.part_offset.eq(self.part_offset +
                                                         self.part_lines * self._step)]
                        m.next = "START"
        return m
