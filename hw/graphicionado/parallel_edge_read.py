"""Parallel edge readers for active-vertex algorithms (Graphicionado §V.B, figure 9a).

One Edge Read hands out at most an edge a cycle and waits a memory latency on the random
first line of each vertex's edges. Several readers side by side: each active vertex's job
goes to the reader whose input queue holds the fewest jobs, and the readers' edges are
merged round robin on their way to the crossbar. A vertex's edges stay in order (one reader
reads them); edges of different vertices interleave.
"""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.stream.lowest_occupancy import LowestOccupancyDispatch
from hw.lib.memory.port import MemoryPortSignature
from hw.lib.stream.arbiter import StreamArbiter
from hw.lib.stream.fifo import StreamFIFO
from .edge_read import EdgeRead, check_tag
from .layouts import EDGE_WORDS, EdgeJob, SourcedEdge


__all__ = ["ParallelEdgeRead"]


class ParallelEdgeRead(wiring.Component):
    """``readers`` Edge Reads behind a lowest-occupancy dispatcher, merged round robin.

    Parameters
    ----------
    readers : int
        At least 2 (one reader is :class:`EdgeRead` itself).
    addr_width, prefetch_lines, job_depth, edge_words, tag_bits, tag_shift : int
        Each reader's, as :class:`EdgeRead`'s.
    queue_depth : int
        Jobs each reader's input queue holds (whose occupancy the dispatcher compares).

    Members
    -------
    start : ``In(1)``; edge_base : ``In(addr_width)``
        To every reader (see :class:`EdgeRead`).
    i : ``In(stream.Signature(EdgeJob))``
    o : ``Out(stream.Signature(SourcedEdge))``
    busy : ``Out(1)``
    mem : ``Out(MemoryPortSignature(addr_width)).array(readers)``
    """

    def __init__(self, *, readers: int, addr_width: int, prefetch_lines: int = 4,
                 job_depth: int = 4, queue_depth: int = 4, edge_words: int = EDGE_WORDS,
                 tag_bits: int = 0, tag_shift: int = 0):
        check_int("ParallelEdgeRead", "addr_width", addr_width, high=32)
        check_int("ParallelEdgeRead", "prefetch_lines", prefetch_lines)
        check_int("ParallelEdgeRead", "job_depth", job_depth)
        if readers < 2:
            raise ConfigError(f"ParallelEdgeRead: readers must be at least 2, not {readers!r}")
        if queue_depth < 1:
            raise ConfigError(f"ParallelEdgeRead: queue_depth must be at least 1, "
                              f"not {queue_depth!r}")
        self._readers = readers
        self._addr_width = addr_width
        self._prefetch_lines = prefetch_lines
        self._job_depth = job_depth
        self._queue_depth = queue_depth
        self._edge_words = edge_words
        self._tag = check_tag("ParallelEdgeRead", edge_words, tag_bits, tag_shift)
        super().__init__({
            "start": In(1), "edge_base": In(addr_width),
            "i": In(stream.Signature(EdgeJob)),
            "o": Out(stream.Signature(SourcedEdge)),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)).array(readers),
        })

    def elaborate(self, platform):
        m = Module()
        count = self._readers
        m.submodules.merge = merge = StreamArbiter(SourcedEdge, count)
        busy = []
        queues = []
        for k in range(count):
            queue = StreamFIFO(EdgeJob, self._queue_depth)
            reader = EdgeRead(addr_width=self._addr_width,
                              prefetch_lines=self._prefetch_lines, job_depth=self._job_depth,
                              edge_words=self._edge_words, **self._tag)
            m.submodules[f"queue{k}"] = queue
            m.submodules[f"reader{k}"] = reader
            wiring.connect(m, queue.o, reader.i)
            wiring.connect(m, reader.o, merge.i[k])
            wiring.connect(m, reader.mem, wiring.flipped(self.mem[k]))
            m.d.comb += [reader.start.eq(self.start), reader.edge_base.eq(self.edge_base),
                         reader.match_any.eq(0)]
            queues.append(queue)
            busy.append(reader.busy | (queue.level != 0))
        wiring.connect(m, merge.o, wiring.flipped(self.o))

        m.submodules.dispatch = dispatch = LowestOccupancyDispatch(
            EdgeJob, count, level_width=len(queues[0].level))
        wiring.connect(m, wiring.flipped(self.i), dispatch.i)
        for k, queue in enumerate(queues):
            wiring.connect(m, dispatch.o[k], queue.i)
            m.d.comb += dispatch.levels[k].eq(queue.level)
        m.d.comb += self.busy.eq(any_busy(busy))
        return m

