"""Edge Read (Graphicionado §3.2 stage P3, with the next-line prefetch of §4.C and the
sequential edge stream of full-edge-access algorithms, §4.B).

Given an edge-id range per source vertex, it reads the edge lines from memory (the first
access random, then sequential) and hands out, one per cycle, the edges whose srcid is the
job's source (all of them when ``match_any`` is set, for the full-edge stream). Requests run
ahead of the hand-out by up to ``prefetch_lines`` lines, across job boundaries; a line shared
by two consecutive jobs is read once.

An edge in memory is ``edge_words`` words: 4 in the paper's layout (srcid, dstid, weight,
reserved); 1 (dstid) or 2 (dstid, weight) in the compact one (``edge_format`` csr), whose
edges take their srcid from the job. A full EdgeIDTable's ranges are exact, so every edge of
a range is the job's source's; a coarsened one's span a group of sources, and the top
``tag_bits`` of a compact edge's dstid word hold its source's place in the group (bits
``tag_shift`` up of the srcid), compared as the paper's layout compares the srcid.
"""

from amaranth.hdl import Cat, Module, Signal, Mux
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.fanout import lane_slices, register_copies
from hw.lib.memory.port import (LINE_LANES, LINE_BITS, WORDS_PER_LINE, MemoryPortSignature,
                                line_request_layout)
from hw.lib.stream.fifo import StreamFIFO
from hw.lib.stream.register_slice import StreamRegisterSlice
from .layouts import EDGE_WORDS, EdgeJob, SourcedEdge


__all__ = ["EdgeRead", "EdgeLineRequests", "EdgeHandout", "check_tag"]

EDGE_LAYOUT_WORDS = (1, 2, EDGE_WORDS)


def _check_edge_words(owner: str, edge_words: int) -> int:
    """``log2`` of the edges a line holds at ``edge_words`` words an edge."""
    if edge_words not in EDGE_LAYOUT_WORDS:
        raise ConfigError(f"{owner}: edge_words must be one of {EDGE_LAYOUT_WORDS}, "
                          f"not {edge_words!r}")
    return (WORDS_PER_LINE // edge_words).bit_length() - 1


def check_tag(owner: str, edge_words: int, tag_bits: int, tag_shift: int) -> dict:
    """``tag_bits`` and ``tag_shift``, checked (a tag only in a compact edge's word, leaving
    at least one bit of dstid), as the keyword arguments of the readers' constructors."""
    check_int(owner, "tag_bits", tag_bits, low=0, high=31)
    check_int(owner, "tag_shift", tag_shift, low=0, high=31)
    if tag_bits and edge_words == EDGE_WORDS:
        raise ConfigError(f"{owner}: the paper's layout stores the srcid, no tag "
                          f"(tag_bits {tag_bits})")
    return {"tag_bits": tag_bits, "tag_shift": tag_shift}


# An edge of the range with whether its srcid is the job's source.
# (Four bits, one per byte of the srcid compare, all set for a match: the line's word select
# and a 32-bit compare were in a row on the way to the queue; an 8-bit compare is two LUT
# levels, and the queue's far end ANDs the four.)
MATCH_PARTS = 4
HandedEdge = data.StructLayout({"edge": SourcedEdge, "match": MATCH_PARTS})


# The request side needs a job's lines only: its first and last line, and how many more lines
# it spans, worked out on the way in, so decoding a job is left with one comparison (is the
# first line the one the last job ended on?) and no subtraction.
# A job's lines: the first, how many more, whether the first is the previous job's last
# (``skip``, already read) and whether it has only the one (``single``; both set: nothing to
# read, worked out when the job is decoded, so the two 32-bit compares are side by side on
# the way into the queue).
LineJob = data.StructLayout({"first": 32, "span": 32, "skip": 1, "single": 1})


def handout_job_layout(shift: int) -> data.StructLayout:
    """The hand-out side's job: the source's fields, the slot of its first edge in its line
    (``shift`` bits), its edges after the first (``left``) and whether its first line is the
    job before's last (``same``: that line is held, not read again)."""
    return data.StructLayout({"src": 32, "prop": 32, "const": 32, "slot": shift, "left": 32,
                              "same": 1})


def _same_line_as_before(m, first_line, last_line, taken, start):
    """Whether a job's ``first_line`` is the line the job taken before it ended on
    (``last_line`` kept in a register as each job is ``taken``; none before the first job
    after ``start``): decided as the job enters a queue, against a register."""
    prev_last = Signal(32)
    prev_valid = Signal()
    with m.If(taken):
        m.d.sync += [prev_valid.eq(1), prev_last.eq(last_line)]
    with m.If(start):
        m.d.sync += prev_valid.eq(0)
    return prev_valid & (first_line == prev_last)


class EdgeLineRequests(wiring.Component):
    """Edge Read's request side: the edge lines of each job, requested up to
    ``prefetch_lines`` ahead of the hand-out, a line shared with the job before not again.

    Parameters
    ----------
    addr_width : int
    prefetch_lines : int
        Lines requested and not yet handed on, at most.
    job_depth : int
        Depth of the queue of jobs (at least 3).
    edge_words : int
        Words of an edge in memory (1, 2 or 4).

    Members
    -------
    start : ``In(1)``
        Pulse at the start of a phase, while idle: forget the last line read.
    edge_base : ``In(addr_width)``
        Line address of edge 0.
    jobs : ``In(stream.Signature(EdgeJob))``
    req : ``Out(stream.Signature(line_request_layout(addr_width)))``
        Line reads (the memory port's requests).
    released : ``In(1)``
        The hand-out took a line this cycle.
    busy : ``Out(1)``
        Jobs queued or in hand, or lines outstanding.
    """

    def __init__(self, *, addr_width: int, prefetch_lines: int, job_depth: int,
                 edge_words: int = EDGE_WORDS):
        self._shift = _check_edge_words("EdgeLineRequests", edge_words)
        if prefetch_lines < 1:
            raise ConfigError(f"EdgeLineRequests: prefetch_lines must be at least 1, "
                              f"not {prefetch_lines!r}")
        if job_depth < 3:
            raise ConfigError(f"EdgeLineRequests: job_depth must be at least 3, "
                              f"not {job_depth!r}")
        self._addr_width = addr_width
        self._prefetch_lines = prefetch_lines
        self._job_depth = job_depth
        super().__init__({
            "start": In(1), "edge_base": In(addr_width),
            "jobs": In(stream.Signature(EdgeJob)),
            "req": Out(stream.Signature(line_request_layout(addr_width))),
            "released": In(1), "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        # A registered output: decoding a job starts from flip-flops.
        m.submodules.jobs = jobs = StreamFIFO(LineJob, self._job_depth, buffered=True)
        # A job's first and last line go through a register slice first: the last line's
        # subtraction and the span's are not one after the other on the way to the queue.
        m.submodules.bounds = bounds = StreamRegisterSlice(
            data.StructLayout({"first": 32, "last": 32}))
        m.d.comb += [
            bounds.i.valid.eq(self.jobs.valid),
            bounds.i.payload.first.eq(self.jobs.payload.start >> self._shift),
            bounds.i.payload.last.eq((self.jobs.payload.end - 1) >> self._shift),
            self.jobs.ready.eq(bounds.i.ready),
        ]
        first_line, last_line = bounds.o.payload.first, bounds.o.payload.last
        # Whether a job's first line is the job before's last is decided as it enters the
        # queue (the jobs keep their order), against a register: not in the decode, where a
        # 32-bit compare stood between the queue's head and the request logic.
        skip = _same_line_as_before(m, first_line, last_line,
                                    bounds.o.valid & bounds.o.ready, self.start)
        m.d.comb += [
            jobs.i.payload.first.eq(first_line),
            jobs.i.payload.span.eq(last_line - first_line),
            jobs.i.payload.skip.eq(skip),
            jobs.i.payload.single.eq(last_line == first_line),
            jobs.i.valid.eq(bounds.o.valid),
            bounds.o.ready.eq(jobs.i.ready),
        ]

        # Lines requested and not yet handed on. A release is counted a cycle late, from a
        # register: the hand-out's decision sits far across the chip from the request side
        # (the line queue is 512 bits wide). The count is at most one too high, for a cycle,
        # which can only hold a request back.
        outstanding = Signal(range(self._prefetch_lines + 1))
        requested = Signal()
        released_late = Signal()
        m.d.sync += [released_late.eq(self.released),
                     outstanding.eq(outstanding + requested - released_late)]

        # A job's lines are worked out in a register stage first (where its first line is
        # dropped if the previous job read it), so a request needs only a register, an
        # increment and a zero test.
        job = jobs.o.payload
        decoded_valid = Signal()
        line = Signal(self._addr_width)      # next line to request, absolute
        remaining = Signal(self._addr_width) # lines of the job after ``line``
        empty = Signal()                     # every line of the job was read for the last job
        decoded_done = Signal()
        take = jobs.o.valid & (~decoded_valid | decoded_done)
        m.d.comb += jobs.o.ready.eq(take)
        # ``final``: ``remaining`` is 0 (a register, off the path to the queue's read).
        final = Signal()
        with m.If(requested):
            m.d.sync += [line.eq(line + 1), remaining.eq(remaining - 1),
                         final.eq(remaining == 1)]
        with m.If(take):         # after the line above: a new job's first line wins
            m.d.sync += [decoded_valid.eq(1),
                         line.eq(self.edge_base + job.first + job.skip),
                         remaining.eq(job.span - job.skip),
                         final.eq(job.span == job.skip),
                         empty.eq(job.skip & job.single)]
        with m.Elif(decoded_done):
            m.d.sync += decoded_valid.eq(0)

        m.d.comb += [
            self.req.valid.eq(decoded_valid & ~empty & (outstanding < self._prefetch_lines)),
            self.req.payload.addr.eq(line),
            self.req.payload.write.eq(0),
            requested.eq(self.req.valid & self.req.ready),
            decoded_done.eq(decoded_valid & (empty | (requested & final))),
            self.busy.eq(any_busy(bounds.o.valid, jobs.level, decoded_valid, outstanding)),
        ]
        return m


class EdgeHandout(wiring.Component):
    """Edge Read's hand-out side: one edge a cycle of each job's range, from the lines in
    request order, with the job's source property and constant; only those whose srcid is
    the job's source (all with ``match_any``) come out.

    The job in hand lives in registers: whether its next edge sits in the held line, its
    slot in the line and the edges left are all known a cycle ahead, so handing out an edge
    depends on no payload. Every edge of the range goes into the output queue with its srcid
    match; the queue's far end drops the others.

    Parameters
    ----------
    job_depth : int
        Depth of the queue of jobs (at least 3).
    edge_words : int
        Words of an edge in memory: 4 (srcid, dstid, weight, reserved), or the compact 1
        (dstid) or 2 (dstid, weight), whose srcid is the job's and whose weight is 0 when
        not stored.
    tag_bits, tag_shift : int
        A compact edge's dstid word holds bits ``tag_shift .. tag_shift + tag_bits - 1`` of
        its srcid in its top ``tag_bits`` (a coarsened EdgeIDTable; 0: none).

    Members
    -------
    start : ``In(1)``
        Pulse at the start of a phase, while idle: forget the line held.
    match_any : ``In(1)``
    jobs : ``In(stream.Signature(EdgeJob))``
    lines : ``In(stream.Signature(LINE_BITS))``
        The lines the request side asked for, in order; a line the job before ended on is
        not among them (it is held).
    o : ``Out(stream.Signature(SourcedEdge))``
    busy : ``Out(1)``
        Jobs queued or in hand, or edges in the output queue.
    """

    def __init__(self, *, job_depth: int, edge_words: int = EDGE_WORDS, tag_bits: int = 0,
                 tag_shift: int = 0):
        self._shift = _check_edge_words("EdgeHandout", edge_words)
        self._edge_words = edge_words
        tag = check_tag("EdgeHandout", edge_words, tag_bits, tag_shift)
        self._tag_bits, self._tag_shift = tag["tag_bits"], tag["tag_shift"]
        if job_depth < 3:
            raise ConfigError(f"EdgeHandout: job_depth must be at least 3, not {job_depth!r}")
        self._job_depth = job_depth
        super().__init__({
            "start": In(1), "match_any": In(1),
            "jobs": In(stream.Signature(EdgeJob)),
            "lines": In(stream.Signature(LINE_BITS)),
            "o": Out(stream.Signature(SourcedEdge)),
            "busy": Out(1),
        })

    def _enqueue(self, m, jobs):
        """Each job into the queue with what loading it needs worked out on the way in, as
        the request side does: its edges after the first, and whether
        its first line is the job before's last (``same``, against a register: the jobs keep
        their order). Loading a job then needs no compare: a 32-bit one stood between the
        queue's head and ``use_held``. ``left``'s zero test is a register too (``final``), off
        the path to the queue's read."""
        first_line = self.jobs.payload.start >> self._shift
        last_line = (self.jobs.payload.end - 1) >> self._shift
        same = _same_line_as_before(m, first_line, last_line,
                                    self.jobs.valid & self.jobs.ready, self.start)
        # end - 1 - start as one addition (two's complement: ~start = -start - 1).
        left = (self.jobs.payload.end + ~self.jobs.payload.start)[:32]
        m.d.comb += [
            jobs.i.payload.src.eq(self.jobs.payload.src),
            jobs.i.payload.prop.eq(self.jobs.payload.prop),
            jobs.i.payload.const.eq(self.jobs.payload.const),
            jobs.i.payload.slot.eq(self.jobs.payload.start[:self._shift]),
            jobs.i.payload.left.eq(left),
            jobs.i.payload.same.eq(same),
            jobs.i.valid.eq(self.jobs.valid),
            self.jobs.ready.eq(jobs.i.ready),
        ]

    def _held_lines(self, m, current_valid_next, use_held_next):
        """The line the edge in hand comes from: the line offered, or ``held``, the last line
        taken, when the job's next edges are still in it. ``held`` takes the offered line
        in every cycle a job is in hand and does not use it (``current_valid & ~use_held``):
        then the line held is behind the job and no later job starts in it (a job can only
        start in the line its predecessor ended in), and in the cycle a line is taken it is
        the line offered. So its enable depends on two registers only, kept per lane of the
        line (:mod:`hw.lib.fanout`), each copy beside its quarter of the line."""
        held = Signal(LINE_BITS)
        line = Signal(LINE_BITS)
        copies = LINE_LANES
        in_hand = register_copies(m, current_valid_next, copies, name="in_hand")
        holding = register_copies(m, use_held_next, copies, name="holding")
        for part, job_in_hand, use_held in zip(lane_slices(LINE_BITS, copies), in_hand,
                                               holding):
            with m.If(job_in_hand & ~use_held):
                m.d.sync += held[part].eq(self.lines.payload[part])
            m.d.comb += line[part].eq(Mux(use_held, held[part], self.lines.payload[part]))
        return line

    def _edge(self, m, words, current, out):
        """The edge in ``words`` into the output queue with whether it is the job's source's:
        the paper's layout compares its srcid, the compact one's is the job's."""
        edge = out.i.payload.edge.edge
        if self._edge_words == EDGE_WORDS:
            m.d.comb += [
                edge.eq(words),
                out.i.payload.match.eq(Cat(self.match_any | (edge.src.word_select(k, 8) ==
                                                             current.src.word_select(k, 8))
                                           for k in range(MATCH_PARTS))),
            ]
            return
        dst_bits = 32 - self._tag_bits
        tag = words[dst_bits:32]
        mine = current.src[self._tag_shift:self._tag_shift + self._tag_bits]
        m.d.comb += [edge.src.eq(current.src), edge.dst.eq(words[:dst_bits]),
                     out.i.payload.match.eq(-1)]
        for k in range(-(-self._tag_bits // 8)):
            m.d.comb += out.i.payload.match[k].eq(self.match_any | (tag[8 * k:8 * k + 8] ==
                                                                    mine[8 * k:8 * k + 8]))
        if self._edge_words == 2:
            m.d.comb += edge.weight.eq(words[32:64])

    def elaborate(self, platform):
        m = Module()
        # A registered output: decoding a job starts from flip-flops.
        layout = handout_job_layout(self._shift)
        m.submodules.jobs = jobs = StreamFIFO(layout, self._job_depth, buffered=True)
        self._enqueue(m, jobs)
        m.submodules.out = out = StreamFIFO(HandedEdge, 3, buffered=True)
        job = jobs.o.payload
        current = Signal(layout)
        current_valid = Signal()
        slot = Signal(self._shift)
        left = Signal(32)                    # edges of the job after this one
        final = Signal()                     # ``left == 0``, a register
        use_held = Signal()                  # this edge is in ``held``
        use_held_next, current_valid_next = Signal(), Signal()

        has_data = current_valid & (use_held | self.lines.valid)
        advance = has_data & out.i.ready
        line_data = self._held_lines(m, current_valid_next, use_held_next)
        m.d.comb += [
            out.i.valid.eq(has_data),
            out.i.payload.edge.prop.eq(current.prop),
            out.i.payload.edge.const.eq(current.const),
            self.lines.ready.eq(advance & ~use_held),
        ]
        self._edge(m, line_data.word_select(slot, 32 * self._edge_words), current, out)
        m.d.comb += use_held_next.eq(use_held)
        with m.If(advance):
            m.d.sync += [slot.eq(slot + 1), left.eq(left - 1), final.eq(left == 1)]
            m.d.comb += use_held_next.eq(slot != (1 << self._shift) - 1)
        load = jobs.o.valid & (~current_valid | (advance & final))
        m.d.comb += jobs.o.ready.eq(load)
        with m.If(load):
            m.d.sync += [current.eq(job), slot.eq(job.slot), left.eq(job.left),
                         final.eq(job.left == 0)]
            m.d.comb += use_held_next.eq(job.same)
        m.d.comb += current_valid_next.eq(Mux(load, 1, current_valid & ~(advance & final)))
        m.d.sync += [current_valid.eq(current_valid_next), use_held.eq(use_held_next)]

        m.d.comb += [
            self.o.valid.eq(out.o.valid & out.o.payload.match.all()),
            self.o.payload.eq(out.o.payload.edge),
            out.o.ready.eq(self.o.ready | ~out.o.payload.match.all()),
            self.busy.eq(any_busy(jobs.level, current_valid, out.level)),
        ]
        return m


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
    edge_words : int
        Words of an edge in memory: 4 (the paper's), or the compact 1 or 2
        (:class:`EdgeHandout`).
    tag_bits, tag_shift : int
        The source's bits in a compact edge's dstid word (:class:`EdgeHandout`).

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

    def __init__(self, *, addr_width: int, prefetch_lines: int = 4, job_depth: int = 4,
                 edge_words: int = EDGE_WORDS, tag_bits: int = 0, tag_shift: int = 0):
        _check_edge_words("EdgeRead", edge_words)
        self._edge_words = edge_words
        self._tag = check_tag("EdgeRead", edge_words, tag_bits, tag_shift)
        check_int("EdgeRead", "addr_width", addr_width, high=32)
        check_int("EdgeRead", "prefetch_lines", prefetch_lines)
        check_int("EdgeRead", "job_depth", job_depth)
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
        job_depth = max(3, self._job_depth)
        m.submodules.requests = requests = EdgeLineRequests(
            addr_width=self._addr_width, prefetch_lines=self._prefetch_lines,
            job_depth=job_depth, edge_words=self._edge_words)
        m.submodules.handout = handout = EdgeHandout(job_depth=job_depth,
                                                     edge_words=self._edge_words, **self._tag)
        m.submodules.line_queue = line_queue = StreamFIFO(LINE_BITS, self._prefetch_lines,
                                                           lanes=LINE_LANES)
        wiring.connect(m, wiring.flipped(self.mem.resp), line_queue.i)
        # The queue of lines is wide and spread out: a register slice drives its read enable
        # from a flip-flop, rather than from the hand-out's decision, and registers its
        # output (so the queue itself needs no output register, nor the logic that keeps it
        # filled). The slice holds lines already counted as outstanding: the queue never
        # fills.
        m.submodules.lines = lines = StreamRegisterSlice(LINE_BITS, lanes=LINE_LANES)
        wiring.connect(m, line_queue.o, lines.i)
        wiring.connect(m, lines.o, handout.lines)
        wiring.connect(m, requests.req, wiring.flipped(self.mem.req))
        wiring.connect(m, handout.o, wiring.flipped(self.o))

        # Each job goes to both sides at once.
        m.d.comb += [
            requests.jobs.payload.eq(self.i.payload),
            handout.jobs.payload.eq(self.i.payload),
            requests.jobs.valid.eq(self.i.valid & handout.jobs.ready),
            handout.jobs.valid.eq(self.i.valid & requests.jobs.ready),
            self.i.ready.eq(requests.jobs.ready & handout.jobs.ready),
            requests.released.eq(lines.o.valid & lines.o.ready),
            requests.start.eq(self.start), handout.start.eq(self.start),
            requests.edge_base.eq(self.edge_base), handout.match_any.eq(self.match_any),
            self.busy.eq(requests.busy | handout.busy),
        ]
        return m
