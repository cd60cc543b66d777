"""Edge Read (Graphicionado §3.2 stage P3, with the next-line prefetch of §4.C and the
sequential edge stream of full-edge-access algorithms, §4.B).

Given an edge-id range per source vertex, it reads the edge lines from memory (the first
access random, then sequential) and hands out, one per cycle, the edges whose srcid is the
job's source (all of them when ``match_any`` is set, for the full-edge stream). Requests run
ahead of the hand-out by up to ``prefetch_lines`` lines, across job boundaries; a line shared
by two consecutive jobs is read once.
"""

from amaranth.hdl import Module, Signal, Mux
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..memory_port import LINE_BITS, WORDS_PER_LINE, MemoryPortSignature
from ..stream_fifo import StreamFIFO
from .layouts import EDGE_WORDS, Edge, EdgeJob, SourcedEdge


__all__ = ["EdgeRead"]

EDGES_PER_LINE = WORDS_PER_LINE // EDGE_WORDS
EDGE_SHIFT = EDGES_PER_LINE.bit_length() - 1


class EdgeRead(wiring.Component):
    """Edge-id ranges in, edges out.

    Parameters
    ----------
    addr_width : int
    prefetch_lines : int
        Lines requested ahead of the hand-out; covers the memory latency at
        ``prefetch_lines * 4`` edges per latency.
    job_depth : int
        Depth of the job queues between the request and hand-out sides.

    Members
    -------
    start : ``In(1)``
        Pulse at the start of a phase, while idle: forget the last line read.
    edge_base : ``In(addr_width)``
        Line address of edge 0.
    match_any : ``In(1)``
        Hand out every edge of the range, whatever its srcid.
    i : ``In(stream.Signature(EdgeJob))``
    o : ``Out(stream.Signature(SourcedEdge))``
    busy : ``Out(1)``
    mem : ``Out(MemoryPortSignature(addr_width))``
    """

    def __init__(self, *, addr_width: int, prefetch_lines: int = 4, job_depth: int = 4):
        self._addr_width = addr_width
        self._prefetch_lines = prefetch_lines
        self._job_depth = job_depth
        super().__init__({
            "start": In(1),
            "edge_base": In(addr_width),
            "match_any": In(1),
            "i": In(stream.Signature(EdgeJob)),
            "o": Out(stream.Signature(SourcedEdge)),
            "busy": Out(1),
            "mem": Out(MemoryPortSignature(addr_width)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.request_jobs = request_jobs = StreamFIFO(EdgeJob, self._job_depth)
        m.submodules.handout_jobs = handout_jobs = StreamFIFO(EdgeJob, self._job_depth)
        m.submodules.lines = lines = StreamFIFO(LINE_BITS, self._prefetch_lines,
                                                buffered=self._prefetch_lines > 8)
        wiring.connect(m, wiring.flipped(self.mem.resp), lines.i)

        # Each job goes to both sides at once.
        m.d.comb += [
            request_jobs.i.payload.eq(self.i.payload),
            handout_jobs.i.payload.eq(self.i.payload),
            request_jobs.i.valid.eq(self.i.valid & handout_jobs.i.ready),
            handout_jobs.i.valid.eq(self.i.valid & request_jobs.i.ready),
            self.i.ready.eq(request_jobs.i.ready & handout_jobs.i.ready),
        ]

        outstanding = Signal(range(self._prefetch_lines + 1))
        requested = Signal()
        released = Signal()
        m.d.sync += outstanding.eq(outstanding + requested - released)

        # Request side. A job's line addresses are worked out in a register stage first, so
        # the request itself needs one compare and one increment.
        job = request_jobs.o.payload
        decoded_valid = Signal()
        first = Signal(self._addr_width)     # absolute line addresses
        last = Signal(self._addr_width)
        single = Signal()                    # the job's edges sit in one line
        decoded_done = Signal()
        take = request_jobs.o.valid & (~decoded_valid | decoded_done)
        m.d.comb += request_jobs.o.ready.eq(take)
        with m.If(take):
            first_index = job.start >> EDGE_SHIFT
            last_index = (job.end - 1) >> EDGE_SHIFT
            m.d.sync += [decoded_valid.eq(1), first.eq(self.edge_base + first_index),
                         last.eq(self.edge_base + last_index),
                         single.eq(first_index == last_index)]
        with m.Elif(decoded_done):
            m.d.sync += decoded_valid.eq(0)

        last_requested = Signal(self._addr_width)
        last_requested_valid = Signal()
        in_job = Signal()
        line_reg = Signal(self._addr_width)
        skip = Signal()       # the first line was the last one read, for the previous job
        m.d.comb += skip.eq(last_requested_valid & (first == last_requested))
        line = Mux(in_job, line_reg, first + skip)
        wants = decoded_valid & (in_job | ~(skip & single))
        m.d.comb += [
            self.mem.req.valid.eq(wants & (outstanding < self._prefetch_lines)),
            self.mem.req.payload.addr.eq(line),
            self.mem.req.payload.write.eq(0),
            requested.eq(self.mem.req.valid & self.mem.req.ready),
        ]
        with m.If(requested):
            m.d.sync += [last_requested.eq(line), last_requested_valid.eq(1),
                         line_reg.eq(line + 1), in_job.eq(line != last)]
            m.d.comb += decoded_done.eq(line == last)
        with m.Elif(decoded_valid & ~in_job & skip & single):
            m.d.comb += decoded_done.eq(1)  # its only line was read for the last job

        # Hand-out side.
        job = handout_jobs.o.payload
        in_range = Signal()
        edge_reg = Signal(32)
        edge_id = Mux(in_range, edge_reg, job.start)
        held = Signal(LINE_BITS)
        held_line = Signal(32)
        held_valid = Signal()
        hit = held_valid & (held_line == (edge_id >> EDGE_SHIFT))
        has_data = handout_jobs.o.valid & (hit | lines.o.valid)
        line_data = Mux(hit, held, lines.o.payload)
        edge = Signal(Edge)
        m.d.comb += edge.eq(line_data.word_select(edge_id[:EDGE_SHIFT], 32 * EDGE_WORDS))
        match = self.match_any | (edge.src == job.src)
        advance = has_data & (~match | self.o.ready)
        m.d.comb += [
            self.o.valid.eq(has_data & match),
            self.o.payload.edge.eq(edge),
            self.o.payload.prop.eq(job.prop),
            self.o.payload.const.eq(job.const),
            released.eq(advance & ~hit),
            lines.o.ready.eq(released),
        ]
        with m.If(released):
            m.d.sync += [held.eq(lines.o.payload), held_line.eq(edge_id >> EDGE_SHIFT),
                         held_valid.eq(1)]
        with m.If(advance):
            with m.If(edge_id == job.end - 1):
                m.d.comb += handout_jobs.o.ready.eq(1)
                m.d.sync += in_range.eq(0)
            with m.Else():
                m.d.sync += [edge_reg.eq(edge_id + 1), in_range.eq(1)]

        m.d.comb += self.busy.eq(request_jobs.o.valid | decoded_valid | handout_jobs.o.valid |
                                 (outstanding != 0))
        with m.If(self.start):
            m.d.sync += [last_requested_valid.eq(0), held_valid.eq(0)]
        return m
