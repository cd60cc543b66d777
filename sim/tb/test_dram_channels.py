"""cocotb testbench of :class:`sim.gateware.dram_model.SimDRAM` with several channels over one storage.

The top is ``SimDRAM`` with ``channels`` > 1 (ports ``channels__<c>__req__valid``, ...). Each
channel is driven at once by its own coroutine with random reads and byte-masked writes on
its own lines (``addr % channels == c``), tags drawn at random, responses taken under random
backpressure; every read must return the line as the channel's earlier writes left it (the
storage image loaded from ``+dram_init_bin``), in request order per tag. Then a stream of
reads on every channel at once: with ``+dram_bw`` binding, the channels together must move
``channels`` times one channel's bandwidth (each channel has its own budget). A request on
another channel's line sets ``error``. At the end the binary dump (one file for every
channel) must equal the model memory.
"""

import collections
import random

import cocotb
import numpy as np
from cocotb.triggers import ReadOnly, RisingEdge

from sim.gateware.dram_model import DRAMConfig, DRAMTiming, mem_request_layout
from sim.dram_image import LINE_BYTES, DRAMImage
from sim.tb.common import config_from_env, start_clock_and_reset, test_options
from sim.tb.test_dram import MemoryModel

FULL_MASK = (1 << LINE_BYTES) - 1


class ChannelsTB:
    def __init__(self, dut):
        self.dut = dut
        self.cfg = DRAMConfig(**config_from_env())
        self.timing = DRAMTiming.from_plusargs(cocotb.plusargs, self.cfg)
        self.options = {"ops": 400, "reads": 200, **test_options()}
        self.model = MemoryModel.get(self.cfg.depth_lines)
        layout = mem_request_layout(self.cfg.addr_width, self.cfg.tag_width)
        self.offsets = {name: field.offset for name, field in layout}
        self.tag_mask = (1 << self.cfg.tag_width) - 1

    def port(self, c: int, name: str):
        return getattr(self.dut, f"channels__{c}__{name}")

    def pack(self, addr, write, wdata, wmask, tag) -> int:
        o = self.offsets
        return addr << o["addr"] | write << o["write"] | wdata << o["wdata"] | \
            wmask << o["wmask"] | tag << o["tag"]

    async def reset(self):
        for c in range(self.cfg.channels):
            self.port(c, "req__valid").value = 0
            self.port(c, "req__payload").value = 0
            self.port(c, "resp__ready").value = 0
        self.dut.dump.value = 0
        await start_clock_and_reset(self.dut)

    async def drive(self, c: int, requests: list, rng: random.Random, stats: dict):
        """Offer ``requests`` (addr, write, wdata, wmask, tag) on channel ``c`` and take its
        responses, checking each read's data and its order within its tag."""
        valid, ready = self.port(c, "req__valid"), self.port(c, "req__ready")
        payload = self.port(c, "req__payload")
        resp_valid, resp_ready = self.port(c, "resp__valid"), self.port(c, "resp__ready")
        resp_payload = self.port(c, "resp__payload")
        expected = collections.defaultdict(collections.deque)   # tag -> lines, oldest first
        pending = 0
        index = 0
        while index < len(requests) or pending:
            offering = index < len(requests)
            if offering:
                valid.value = 1
                payload.value = self.pack(*requests[index])
            else:
                valid.value = 0
            resp_ready.value = int(rng.random() >= 0.3)
            await ReadOnly()
            accepted = offering and int(ready.value)
            taken = int(resp_valid.value) and int(resp_ready.value)
            response = int(resp_payload.value) if taken else None
            await RisingEdge(self.dut.clk)
            if accepted:
                addr, write, wdata, wmask, tag = requests[index]
                if write:
                    self.model.write(addr, wdata, wmask)
                else:
                    expected[tag].append(self.model.read(addr))
                    pending += 1
                index += 1
            if response is not None:
                rdata = response & ((1 << 512) - 1)
                tag = response >> 512 & self.tag_mask
                assert expected[tag], f"channel {c}: a response with tag {tag} never asked"
                want = expected[tag].popleft()
                assert rdata == want, f"channel {c}: wrong data for tag {tag}"
                pending -= 1
                stats["reads"] += 1
        valid.value = 0
        resp_ready.value = 0


def _requests(tb, c: int, count: int, rng: random.Random, *, writes: float) -> list:
    n = tb.cfg.channels
    lines = [line for line in range(c, tb.cfg.depth_lines, n)]
    return [(rng.choice(lines), 1, rng.getrandbits(512),
             rng.choice([FULL_MASK, rng.getrandbits(LINE_BYTES)]), 0)
            if rng.random() < writes else
            (rng.choice(lines), 0, 0, 0, rng.randrange(tb.tag_mask + 1))
            for _ in range(count)]


@cocotb.test()
async def channels_traffic(dut):
    tb = ChannelsTB(dut)
    await tb.reset()
    stats = collections.Counter()
    runs = [cocotb.start_soon(tb.drive(c, _requests(tb, c, tb.options["ops"],
                                                     random.Random(c), writes=0.3),
                                       random.Random(100 + c), stats))
            for c in range(tb.cfg.channels)]
    for run in runs:
        await run
    assert stats["reads"] > 0
    assert not int(dut.error.value), "error raised by traffic on each channel's own lines"
    # Every channel streams reads at once: each has its own bandwidth budget.
    reads = tb.options["reads"]
    start = cocotb.utils.get_sim_time("ns")
    runs = [cocotb.start_soon(tb.drive(c, _requests(tb, c, reads, random.Random(200 + c),
                                                     writes=0.0),
                                       random.Random(300 + c), stats))
            for c in range(tb.cfg.channels)]
    for run in runs:
        await run
    cycles = (cocotb.utils.get_sim_time("ns") - start) / 10
    one_channel = reads * LINE_BYTES * 256 / tb.timing.bandwidth
    dut._log.info(f"{tb.cfg.channels} x {reads} reads in {cycles:.0f} cycles "
                  f"(one channel's bandwidth alone: {one_channel:.0f})")
    assert cycles < 1.25 * one_channel + 2 * tb.timing.latency + 100, \
        "the channels do not each have their own bandwidth"
    # The dump: one file for every channel.
    dut.dump.value = 1
    await RisingEdge(dut.clk)
    dut.dump.value = 0
    for _ in range(4):
        await RisingEdge(dut.clk)
    dumped = DRAMImage.read_bin_lines(cocotb.plusargs["dram_dump_bin"])
    mismatch = np.flatnonzero((dumped != tb.model.lines()).any(axis=1))
    assert mismatch.size == 0, f"dump differs from the model at line {mismatch[:4]}"
    # A request on another channel's line is served but flagged.
    port = (lambda name: tb.port(1, name))
    port("req__valid").value = 1
    port("req__payload").value = tb.pack(0, 0, 0, 0, 0)
    port("resp__ready").value = 1
    while True:
        await ReadOnly()
        taken = int(port("req__ready").value)
        await RisingEdge(dut.clk)
        if taken:
            break
    port("req__valid").value = 0
    await RisingEdge(dut.clk)
    assert int(dut.error.value), "a read of line 0 on channel 1 did not raise error"
