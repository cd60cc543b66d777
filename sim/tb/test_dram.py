"""cocotb testbench of :class:`sim.gateware.dram_model.SimDRAM` (the Verilog model ``graphgen_dram``).

The top is ``SimDRAM`` itself (ports ``req__valid``, ``req__payload``, ...), loaded from
``+dram_init`` and dumping to ``+dram_dump``. A Python model of the memory and of the
response queue, which mirrors the model's jitter generator (``+dram_seed``), predicts every
cycle, and each cycle the outputs are checked against it:

* ``req.ready`` is high exactly when fewer than ``outstanding`` reads are in flight (with
  pushback or a bandwidth limit: only then);
* ``resp.valid`` rises exactly in the cycle the model says a read is due (``latency`` after
  acceptance, plus jitter and tail, in order never before the previous response's due
  cycle + 1) and holds, with the same payload, under backpressure; in order the read is the
  oldest in flight, with ``+dram_reorder=1`` one of the oldest reads of their tag, due
  earliest; ``rdata`` is the line as it was at acceptance (byte-masked writes applied in
  order) and ``tag`` is the request's; each response's latency, accept edge to take edge, is
  at least ``latency``;
* the counters agree; at the end of a run the ``$writememh`` dump equals the model memory.

The timing settings are read from the plusargs (:class:`sim.gateware.dram_model.DRAMTiming`); the
tests ``pushback_and_limit``, ``bandwidth``, ``reorder_by_tag`` and ``latency_distribution``
measure what those settings promise and are run with them (``testcase``).

Sizes come from ``GRAPHGEN_TEST_OPTIONS``: ``ops`` (requests per traffic run), ``traffic``
(a list of ``[idle probability, backpressure probability]``), ``check_lines`` (lines read back
by ``image_loads``: all when 0), ``reads`` (throughput run), ``latency_offset`` (what the
checker adds to the configured latency: a nonzero value must make it fail), ``checker``
(timing settings the checker assumes instead of the model's: must make it fail).
"""

import collections
import dataclasses
import random
import time

import cocotb
import numpy as np
from cocotb.triggers import ReadOnly, RisingEdge

from sim.gateware.dram_model import DRAMConfig, DRAMTiming, extra_latency_sequence, mem_request_layout
from sim.dram_image import LINE_BYTES, DRAMImage
from sim.tb.common import config_from_env, pause_generator, start_clock_and_reset, test_options

LINE_MASK = (1 << (8 * LINE_BYTES)) - 1
FULL_MASK = (1 << LINE_BYTES) - 1


def _options() -> dict:
    options = {"ops": 1500, "traffic": [[0.0, 0.0], [0.3, 0.5]], "check_lines": 0,
               "reads": 400, "latency_offset": 0, "seed": 1, "checker": {}}
    options.update(test_options())
    return options


class MemoryModel:
    """The model memory, shared by the tests of one simulation (reset keeps the memory)."""
    _instance = None

    @classmethod
    def get(cls, depth_lines: int):
        if cls._instance is None:
            cls._instance = cls(depth_lines)
        return cls._instance

    def __init__(self, depth_lines: int):
        self.depth_lines = depth_lines
        self.mem = bytearray(depth_lines * LINE_BYTES)
        lines = None
        if isinstance(cocotb.plusargs.get("dram_init_bin"), str):
            lines = DRAMImage.read_bin_lines(cocotb.plusargs["dram_init_bin"])
        elif isinstance(cocotb.plusargs.get("dram_init"), str):
            lines = DRAMImage.read_hex_lines(cocotb.plusargs["dram_init"])
        if lines is not None:
            lines = lines[:depth_lines]
            raw = np.ascontiguousarray(lines, dtype="<u4").view(np.uint8).reshape(-1)
            self.mem[:raw.size] = raw.tobytes()

    def read(self, line: int) -> int:
        if line >= self.depth_lines:
            return 0
        return int.from_bytes(self.mem[line * LINE_BYTES:(line + 1) * LINE_BYTES], "little")

    def write(self, line: int, data: int, mask: int):
        if line >= self.depth_lines:
            return
        base = line * LINE_BYTES
        raw = data.to_bytes(LINE_BYTES, "little")
        if mask == FULL_MASK:
            self.mem[base:base + LINE_BYTES] = raw
            return
        for byte in range(LINE_BYTES):
            if mask >> byte & 1:
                self.mem[base + byte] = raw[byte]

    def lines(self) -> np.ndarray:
        return np.frombuffer(bytes(self.mem), dtype="<u4").reshape(self.depth_lines, 16)


Request = collections.namedtuple("Request", "addr write wdata wmask tag")


class DRAMTB:
    """Drives ``SimDRAM``'s ports and checks every cycle against the model."""

    def __init__(self, dut, *, seed: int, idle: float = 0.0, backpressure: float = 0.0):
        self.dut = dut
        self.cfg = DRAMConfig(**config_from_env())
        options = _options()
        self.timing = dataclasses.replace(DRAMTiming.from_plusargs(cocotb.plusargs, self.cfg),
                                          **options["checker"])
        self.latency = self.timing.latency + options["latency_offset"]
        # req.ready is predicted exactly unless pushback or the bandwidth limit may drop it.
        self.exact_ready = self.timing.pushback == 0 and \
            self.timing.bandwidth == LINE_BYTES * 256
        self.model = MemoryModel.get(self.cfg.depth_lines)
        self.rng = random.Random(seed)
        self.idle = pause_generator(self.rng, idle)
        self.stall = pause_generator(self.rng, backpressure)
        layout = mem_request_layout(self.cfg.addr_width, self.cfg.tag_width)
        self.offsets = {name: field.offset for name, field in layout}
        self.dram_seed = int(cocotb.plusargs.get("dram_seed", 1))
        self.cycle = 0
        self.responses = []       # (accept cycle, take cycle, addr, tag)
        self.stats = collections.Counter()

    def pack(self, request: Request) -> int:
        offsets = self.offsets
        value = request.addr << offsets["addr"] | request.write << offsets["write"] \
            | request.wdata << offsets["wdata"] | request.wmask << offsets["wmask"]
        if "tag" in offsets:
            value |= request.tag << offsets["tag"]
        return value

    async def reset(self):
        dut = self.dut
        dut.req__valid.value = 0
        dut.req__payload.value = 0
        dut.resp__ready.value = 0
        dut.dump.value = 0
        await start_clock_and_reset(dut)
        # The model's latency generator restarts at reset, as the Verilog one does.
        timing = self.timing
        self.jitter = extra_latency_sequence(self.dram_seed, timing.jitter,
                                             timing.tail_percent, timing.tail)
        self.queue = []         # reads in flight, oldest first: (due, data, tag, accept, addr)
        self.last_due = -1
        self.reads = self.writes = 0
        self.held = None        # the read presented and not taken in the previous cycle
        self.extras = []        # the extra latency drawn for each read

    def eligible(self) -> list:
        """The reads in flight that may be presented now: the oldest of their chain (of their
        tag's low 10 bits with reorder, of all reads in order), due."""
        seen, ready = set(), []
        for entry in self.queue:
            chain = entry[2] % 1024 if self.timing.reorder else 0
            if chain not in seen and entry[0] <= self.cycle:
                ready.append(entry)
            seen.add(chain)
        return ready

    async def run(self, requests: list, *, always_ready: bool = False,
                  max_cycles: int | None = None):
        """Offer ``requests`` in order (with idle gaps), take responses (with backpressure),
        until every read has been answered. Returns the cycles taken."""
        dut, cfg, timing = self.dut, self.cfg, self.timing
        pending = collections.deque(requests)
        offered = None
        start = self.cycle
        slow = timing.jitter + timing.tail + 4 + 64 * 256 // timing.bandwidth
        limit = max_cycles or (len(requests) + 10) * (timing.latency + slow) * \
            (100 // (100 - timing.pushback)) + 1000
        while pending or offered is not None or self.queue:
            await RisingEdge(dut.clk)
            self.cycle += 1
            if self.cycle - start > limit:
                raise AssertionError(f"deadlock: {len(pending)} requests not offered, "
                                     f"{len(self.queue)} reads unanswered")
            if offered is None and pending and (always_ready or not next(self.idle)):
                offered = pending.popleft()
            dut.req__valid.value = offered is not None
            if offered is not None:
                dut.req__payload.value = self.pack(offered)
            resp_ready = always_ready or not next(self.stall)
            dut.resp__ready.value = resp_ready

            await ReadOnly()
            where = f"cycle {self.cycle}"
            req_ready = int(dut.req__ready.value)
            room = len(self.queue) < timing.outstanding
            if self.exact_ready or not room:
                assert req_ready == room, \
                    f"{where}: req.ready={req_ready} with {len(self.queue)} reads in flight"
            self.stats["ready_cycles"] += req_ready
            self.stats["room_cycles"] += room
            self.stats["max_in_flight"] = max(self.stats["max_in_flight"], len(self.queue))
            resp_valid = int(dut.resp__valid.value)
            eligible = self.eligible()
            if self.held is not None:
                eligible = [self.held]
            assert resp_valid == bool(eligible), \
                f"{where}: resp.valid={resp_valid}, model " + \
                (f"has {len(eligible)} reads due" if self.queue else "has no read in flight")
            if resp_valid:
                payload = int(dut.resp__payload.value)
                rdata = payload & LINE_MASK
                got_tag = payload >> (8 * LINE_BYTES) if cfg.tag_width else 0
                first_due = min(entry[0] for entry in eligible)
                matching = [entry for entry in eligible
                            if entry[0] == first_due and entry[2] == got_tag]
                if not matching:
                    expected = [entry[2] for entry in eligible if entry[0] == first_due]
                    raise AssertionError(f"{where}: tag {got_tag} presented; model: tags "
                                         f"{expected} due earliest")
                entry = matching[0]
                _, data, tag, accepted, addr = entry
                if rdata != data:
                    raise AssertionError(f"{where}: read of line {addr} returned "
                                         f"{rdata:#x}, model {data:#x}")
                if resp_ready:
                    assert self.cycle - accepted >= timing.latency, \
                        f"{where}: response after {self.cycle - accepted} < latency cycles"
                    overtaken = self.queue.index(entry)
                    self.stats["overtakes"] += overtaken > 0
                    self.queue.remove(entry)
                    self.responses.append((accepted, self.cycle, addr, tag))
                    self.held = None
                else:
                    self.held = entry
            if offered is not None and req_ready:
                self.accept(offered)
                offered = None
            self.stats["stalled_responses"] += resp_valid and not resp_ready
        # Withdraw the last request right after the edge that took it.
        await RisingEdge(dut.clk)
        self.cycle += 1
        dut.req__valid.value = 0
        dut.resp__ready.value = 0
        return self.cycle - start

    def accept(self, request: Request):
        if request.write:
            self.model.write(request.addr, request.wdata, request.wmask)
            self.writes += 1
        else:
            extra = next(self.jitter)
            self.extras.append(extra)
            due = self.cycle + self.latency + extra
            if not self.timing.reorder:
                due = max(due, self.last_due + 1)
            self.last_due = due
            tag = request.tag if self.cfg.tag_width else 0      # untagged: no tag to keep
            self.queue.append((due, self.model.read(request.addr), tag, self.cycle,
                               request.addr))
            self.reads += 1

    async def check_counters(self):
        await ReadOnly()
        assert int(self.dut.stat_reads.value) == self.reads, "stat_reads wrong"
        assert int(self.dut.stat_writes.value) == self.writes, "stat_writes wrong"
        await RisingEdge(self.dut.clk)

    async def dump_and_check(self, write: Request | None = None):
        """Pulse ``dump`` (with ``write`` offered in the same cycle), wait for ``dump_done``
        as ``test_register_run`` does, and compare the file with the model."""
        dut = self.dut
        dumps = {kind: cocotb.plusargs.get(kind) for kind in ("dram_dump", "dram_dump_bin")
                 if isinstance(cocotb.plusargs.get(kind), str)}
        assert dumps, "no +dram_dump or +dram_dump_bin given"
        await RisingEdge(dut.clk)
        dut.dump.value = 1
        if write is not None:
            dut.req__valid.value = 1
            dut.req__payload.value = self.pack(write)
        await ReadOnly()
        if write is not None:
            assert int(dut.req__ready.value), "write with the dump not taken"
            self.model.write(write.addr, write.wdata, write.wmask)
            self.writes += 1
        await RisingEdge(dut.clk)               # the edge that takes the dump
        dut.dump.value = 0
        dut.req__valid.value = 0
        waited = 0
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            waited += 1
            if int(dut.dump_done.value):
                break
            assert waited < 5, "dump_done never rose"
        assert waited == 1, f"dump_done rose {waited} edges after the dump edge, not 1"
        expected = self.model.lines()
        for kind, path in dumps.items():
            started = time.perf_counter()
            dumped = DRAMImage.read_bin_lines(path) if kind == "dram_dump_bin" \
                else DRAMImage.read_hex_lines(path)
            assert dumped.shape[0] == self.cfg.depth_lines, \
                f"{kind} holds {dumped.shape[0]} lines, not {self.cfg.depth_lines}"
            mismatch = np.flatnonzero((dumped != expected).any(axis=1))
            assert mismatch.size == 0, f"{kind} differs from the model at {mismatch.size} " \
                f"lines, first {int(mismatch[0]) if mismatch.size else None}"
            self.dut._log.info("%s of %d lines checked in %.2f s", kind, self.cfg.depth_lines,
                               time.perf_counter() - started)
        await RisingEdge(dut.clk)
        await ReadOnly()
        assert not int(dut.dump_done.value), "dump_done high for more than one cycle"
        await RisingEdge(dut.clk)

    def random_requests(self, count: int) -> list:
        rng, cfg = self.rng, self.cfg
        hot = [rng.randrange(cfg.depth_lines) for _ in range(8)]
        requests = []
        for _ in range(count):
            addr = rng.choice(hot) if rng.random() < 0.6 else rng.randrange(cfg.depth_lines)
            tag = rng.randrange(1 << cfg.tag_width) if cfg.tag_width else 0
            if rng.random() < 0.5:
                requests.append(Request(addr, 0, 0, 0, tag))
                continue
            kind = rng.random()
            mask = FULL_MASK if kind < 0.3 else 0 if kind < 0.35 else \
                1 << rng.randrange(LINE_BYTES) if kind < 0.5 else rng.getrandbits(LINE_BYTES)
            # A write carries a random tag too: it must be ignored (no response).
            requests.append(Request(addr, 1, rng.getrandbits(8 * LINE_BYTES), mask, tag))
        return requests


@cocotb.test()
async def image_loads(dut):
    """Lines read back right after reset are the +dram_init image (zeros beyond the file)."""
    options = _options()
    tb = DRAMTB(dut, seed=options["seed"])
    await tb.reset()
    depth = tb.cfg.depth_lines
    count = options["check_lines"] or depth
    lines = list(range(depth)) if count >= depth else \
        sorted({0, depth - 1, *tb.rng.sample(range(depth), count - 2)})
    assert any(tb.model.read(line) for line in lines), "the test image is all zeros"
    await tb.run([Request(line, 0, 0, 0, line % (1 << tb.cfg.tag_width) if tb.cfg.tag_width
                          else 0) for line in lines], always_ready=True)
    await tb.check_counters()
    await ReadOnly()
    assert not int(dut.error.value)


@cocotb.test()
async def random_traffic(dut):
    """Random reads and byte-masked writes, hot lines, idle gaps and random backpressure;
    then the dump (with a write in the dump cycle) against the model."""
    options = _options()
    for variant, (idle, backpressure) in enumerate(options["traffic"]):
        tb = DRAMTB(dut, seed=options["seed"] * 100 + variant, idle=idle,
                    backpressure=backpressure)
        await tb.reset()
        cycles = await tb.run(tb.random_requests(options["ops"]))
        await tb.check_counters()
        lateness = [take - accepted - tb.cfg.latency for accepted, take, _, _ in tb.responses]
        dut._log.info("idle %.1f, backpressure %.1f: %d requests in %d cycles, %d reads, "
                      "lateness beyond latency %d..%d, %d stalled response cycles",
                      idle, backpressure, options["ops"], cycles, tb.reads, min(lateness),
                      max(lateness), tb.stats["stalled_responses"])
        assert min(lateness) >= 0
        if backpressure:
            assert tb.stats["stalled_responses"] > 0, "backpressure never held a response"
        last = tb.rng.randrange(tb.cfg.depth_lines)
        await tb.dump_and_check(Request(last, 1, tb.rng.getrandbits(512), 0xF0F0, 0))
        await tb.check_counters()
        await ReadOnly()
        assert not int(dut.error.value)
        await RisingEdge(dut.clk)


@cocotb.test()
async def throughput(dut):
    """Back-to-back reads: one per cycle when outstanding covers latency + jitter, else the
    Little's-law rate outstanding / (latency + 1)."""
    options = _options()
    tb = DRAMTB(dut, seed=options["seed"] + 7)
    await tb.reset()
    cfg, count = tb.cfg, options["reads"]
    requests = [Request(i % cfg.depth_lines, 0, 0, 0, i % (1 << cfg.tag_width)
                        if cfg.tag_width else 0) for i in range(count)]
    cycles = await tb.run(requests, always_ready=True)
    takes = [take for _, take, _, _ in tb.responses]
    span = takes[-1] - takes[0] + 1
    rate = count / span
    dut._log.info("%d reads: %d cycles in all, responses at %.3f per cycle", count, cycles,
                  rate)
    if cfg.outstanding > cfg.latency + cfg.jitter:
        if cfg.jitter == 0:
            assert span == count, f"{count} responses took {span} cycles"
        assert cycles <= count + cfg.latency + cfg.jitter + 2, \
            f"{count} reads took {cycles} cycles"
    else:
        # Each slot of the queue serves a read per latency + 1 (+ jitter) cycles: without
        # jitter, read n is taken at cycle (n // outstanding) * (latency + 1) + n % outstanding.
        def span_at(latency):
            return (count - 1) // cfg.outstanding * (latency + 1) \
                + (count - 1) % cfg.outstanding + 1
        if cfg.jitter == 0:
            assert span == span_at(cfg.latency), \
                f"{count} responses took {span} cycles, not {span_at(cfg.latency)}"
        else:
            assert span_at(cfg.latency) <= span <= 1.1 * span_at(cfg.latency + cfg.jitter), \
                f"{count} responses took {span} cycles, expected " \
                f"{span_at(cfg.latency)}..{span_at(cfg.latency + cfg.jitter)}"


@cocotb.test()
async def out_of_range(dut):
    """A line at or beyond depth_lines reads as zero, is not written, and sets error."""
    options = _options()
    tb = DRAMTB(dut, seed=options["seed"] + 11)
    await tb.reset()
    cfg = tb.cfg
    await ReadOnly()
    assert not int(dut.error.value), "error set after reset"
    last = cfg.depth_lines - 1
    await tb.run([Request(last, 0, 0, 0, 0)], always_ready=True)
    await ReadOnly()
    assert not int(dut.error.value), "error set by the last line"
    await RisingEdge(dut.clk)
    if cfg.depth_lines == 1 << cfg.addr_width:
        return              # every address is in range
    beyond = cfg.depth_lines
    await tb.run([Request(beyond, 1, LINE_MASK, FULL_MASK, 0), Request(beyond, 0, 0, 0, 1),
                  Request(last, 0, 0, 0, 2)], always_ready=True)
    await ReadOnly()
    assert int(dut.error.value), "error not set by an out-of-range access"
    await RisingEdge(dut.clk)
    await tb.check_counters()


def _read_stream(tb, count: int, tags: int = 1) -> list:
    cfg = tb.cfg
    return [Request(tb.rng.randrange(cfg.depth_lines), 0, 0, 0,
                    tb.rng.randrange(min(tags, 1 << cfg.tag_width)) if cfg.tag_width else 0)
            for _ in range(count)]


@cocotb.test()
async def pushback_and_limit(dut):
    """Back-to-back reads: the in-flight count reaches the outstanding limit and never
    passes it (checked every cycle), and req.ready is dropped in about ``pushback`` % of the
    cycles that have room."""
    options = _options()
    tb = DRAMTB(dut, seed=options["seed"] + 13)
    await tb.reset()
    timing = tb.timing
    await tb.run(_read_stream(tb, options["reads"]), always_ready=True)
    stats = tb.stats
    dropped = 100 * (1 - stats["ready_cycles"] / stats["room_cycles"])
    dut._log.info("outstanding %d: at most %d in flight; pushback %d %%: ready dropped in "
                  "%.1f %% of %d cycles with room", timing.outstanding,
                  stats["max_in_flight"], timing.pushback, dropped, stats["room_cycles"])
    assert stats["max_in_flight"] == timing.outstanding, \
        f"at most {stats['max_in_flight']} reads in flight, limit {timing.outstanding}"
    assert abs(dropped - timing.pushback) <= 5, \
        f"ready dropped in {dropped:.1f} % of cycles, pushback {timing.pushback} %"


@cocotb.test()
async def bandwidth(dut):
    """Back-to-back requests, reads and writes: accepted at the set bytes per cycle (within
    2 %) once the first is in; with pushback at most that, and no less than the share of
    cycles pushback leaves (a refused cycle's bytes are lost when the budget is full)."""
    options = _options()
    tb = DRAMTB(dut, seed=options["seed"] + 17)
    await tb.reset()
    timing = tb.timing
    requests = [request._replace(write=tb.rng.random() < 0.5, wmask=FULL_MASK)
                for request in _read_stream(tb, options["reads"])]
    accepts = []
    accept = tb.accept

    def counting_accept(request):
        accepts.append(tb.cycle)
        accept(request)
    tb.accept = counting_accept
    await tb.run(requests, always_ready=True)
    rate = LINE_BYTES * (len(accepts) - 1) / (accepts[-1] - accepts[0])
    target = timing.bandwidth / 256
    dut._log.info("%d requests at %.3f bytes per cycle, set %.3f", len(accepts), rate, target)
    low = 1 - timing.pushback / 100
    assert (low - 0.02) * target <= rate <= 1.02 * target, \
        f"{rate:.3f} bytes per cycle, set {target:.3f}, pushback {timing.pushback} %"


@cocotb.test()
async def reorder_by_tag(dut):
    """Reads with four tags: with reorder, reads of different tags overtake each other and
    reads of one tag keep their order (checked every cycle); in order, none overtakes."""
    options = _options()
    tb = DRAMTB(dut, seed=options["seed"] + 19, backpressure=0.3)
    await tb.reset()
    await tb.run(_read_stream(tb, options["reads"], tags=4))
    overtakes = tb.stats["overtakes"]
    dut._log.info("reorder %s: %d of %d responses overtook an older read", tb.timing.reorder,
                  overtakes, tb.reads)
    if tb.timing.reorder:
        assert overtakes > tb.reads // 10, f"only {overtakes} responses overtook"
    else:
        assert overtakes == 0


@cocotb.test()
async def latency_distribution(dut):
    """Reads with spaced arrivals, all taken at once: each is presented in the cycle it is due
    (latency + the extra it draws, in order no earlier than the previous read's due cycle + 1)
    or, with reorder, as soon as no read due earlier is presented (checked every cycle); the
    extras follow the set distribution: uniform over 0..jitter (mean within 10 %), and for
    the tail about tail_percent % of reads (within 3 points) tail // 2..tail later."""
    options = _options()
    tb = DRAMTB(dut, seed=options["seed"] + 23, idle=0.5)
    await tb.reset()
    timing = tb.timing
    await tb.run(_read_stream(tb, options["reads"], tags=1 << 10))
    extras = np.array(tb.extras)
    slow = extras > timing.jitter
    body = extras[~slow]
    dut._log.info("%d reads: extra latency mean %.2f, max %d; %.1f %% slow",
                  extras.size, extras.mean(), extras.max(), 100 * slow.mean())
    assert extras.min() >= 0 and body.max() <= timing.jitter
    if timing.jitter:
        assert abs(body.mean() - timing.jitter / 2) <= 0.1 * timing.jitter / 2 + 0.5, \
            f"uniform part's mean {body.mean():.2f}, expected {timing.jitter / 2}"
        assert body.max() == timing.jitter and body.min() == 0
    if timing.tail_percent:
        assert abs(100 * slow.mean() - timing.tail_percent) <= 3, \
            f"{100 * slow.mean():.1f} % slow reads, set {timing.tail_percent} %"
        late = extras[slow]
        assert late.min() >= timing.tail // 2 and late.max() <= timing.tail + timing.jitter
    else:
        assert not slow.any()
