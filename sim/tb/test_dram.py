"""cocotb testbench of :class:`hw.dram_model.SimDRAM` (the Verilog model ``graphgen_dram``).

The top is ``SimDRAM`` itself (ports ``req__valid``, ``req__payload``, ...), loaded from
``+dram_init`` and dumping to ``+dram_dump``. A Python model of the memory and of the
response queue, which mirrors the model's jitter generator (``+dram_seed``), predicts every
cycle, and each cycle the outputs are checked against it:

* ``req.ready`` is high exactly when fewer than ``outstanding`` reads are in flight;
* ``resp.valid`` rises exactly in the cycle the model says the head read is due (``latency``
  after acceptance, plus jitter, never before the previous response's due cycle + 1) and
  holds under backpressure; ``rdata`` is the line as it was at acceptance (byte-masked
  writes applied in order) and ``tag`` is the request's; each response's latency, accept
  edge to take edge, is at least ``latency``;
* the counters agree; at the end of a run the ``$writememh`` dump equals the model memory.

Sizes come from ``GRAPHGEN_TEST_OPTIONS``: ``ops`` (requests per traffic run), ``traffic``
(a list of ``[idle probability, backpressure probability]``), ``check_lines`` (lines read back
by ``image_loads``: all when 0), ``reads`` (throughput run), ``latency_offset`` (what the
checker adds to the configured latency: a nonzero value must make it fail).
"""

import collections
import random
import time

import cocotb
import numpy as np
from cocotb.triggers import ReadOnly, RisingEdge

from hw.dram_model import DRAMConfig, jitter_sequence, mem_request_layout
from sim.dram_image import LINE_BYTES, DRAMImage
from sim.tb.common import config_from_env, pause_generator, start_clock_and_reset, test_options

LINE_MASK = (1 << (8 * LINE_BYTES)) - 1
FULL_MASK = (1 << LINE_BYTES) - 1


def _options() -> dict:
    options = {"ops": 1500, "traffic": [[0.0, 0.0], [0.3, 0.5]], "check_lines": 0,
               "reads": 400, "latency_offset": 0, "seed": 1}
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
        self.latency = self.cfg.latency + options["latency_offset"]
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
        # The model's jitter generator restarts at reset, as the Verilog one does.
        self.jitter = jitter_sequence(self.dram_seed, self.cfg.jitter)
        self.queue = collections.deque()     # (due cycle, data, tag, accept cycle, addr)
        self.last_due = -1
        self.reads = self.writes = 0

    async def run(self, requests: list, *, always_ready: bool = False,
                  max_cycles: int | None = None):
        """Offer ``requests`` in order (with idle gaps), take responses (with backpressure),
        until every read has been answered. Returns the cycles taken."""
        dut, cfg, model = self.dut, self.cfg, self.model
        pending = collections.deque(requests)
        offered = None
        start = self.cycle
        limit = max_cycles or (len(requests) + 10) * (cfg.latency + cfg.jitter + 4) + 1000
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
            expect_ready = len(self.queue) < cfg.outstanding
            assert req_ready == expect_ready, \
                f"{where}: req.ready={req_ready} with {len(self.queue)} reads in flight"
            resp_valid = int(dut.resp__valid.value)
            due = bool(self.queue) and self.queue[0][0] <= self.cycle
            assert resp_valid == due, \
                f"{where}: resp.valid={resp_valid}, model " + \
                (f"head due at {self.queue[0][0]}" if self.queue else "has no read in flight")
            if resp_valid:
                _, data, tag, accepted, addr = self.queue[0]
                payload = int(dut.resp__payload.value)
                rdata = payload & LINE_MASK
                if rdata != data:
                    raise AssertionError(f"{where}: read of line {addr} returned "
                                         f"{rdata:#x}, model {data:#x}")
                if cfg.tag_width:
                    got_tag = payload >> (8 * LINE_BYTES)
                    assert got_tag == tag, f"{where}: tag {got_tag}, model {tag}"
                if resp_ready:
                    assert self.cycle - accepted >= cfg.latency, \
                        f"{where}: response after {self.cycle - accepted} < latency cycles"
                    self.queue.popleft()
                    self.responses.append((accepted, self.cycle, addr, tag))
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
            due = max(self.cycle + self.latency + next(self.jitter), self.last_due + 1)
            self.last_due = due
            self.queue.append((due, self.model.read(request.addr), request.tag, self.cycle,
                               request.addr))
            self.reads += 1

    async def check_counters(self):
        await ReadOnly()
        assert int(self.dut.stat_reads.value) == self.reads, "stat_reads wrong"
        assert int(self.dut.stat_writes.value) == self.writes, "stat_writes wrong"
        await RisingEdge(self.dut.clk)

    async def dump_and_check(self, write: Request | None = None):
        """Pulse ``dump`` (with ``write`` offered in the same cycle), wait for ``dump_done``
        as ``test_graphicionado`` does, and compare the file with the model."""
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
