"""AXI4Master (hw/lib/axi/master.py) in Amaranth's simulator against an AXI4 slave model
(sim/axi_slave.py) with random latency, reordering and interleaving across IDs and,
crossed with each test, random back-pressure on all five channels or none.

Random mixes of reads and writes, in runs of consecutive lines (so bursts form) and across
4 KiB boundaries, are checked against a Python memory that applies them in request order:
every tag's reads come back in its order with the data it must see, and the memory ends as
the writes left it. The slave model checks the bursts (INCR, at most 256 beats, never across
4 KiB, ``wlast`` on the last beat) and that AW, W and AR hold valid and payload until taken.
"""

import random

import pytest
from amaranth.back import verilog
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.axi.master import AXI4Master
from hw.lib.axi.signature import AXIResp, AXI4LiteSignature, AXI4Signature
from hw.lib.config import ConfigError
from tests.formal.harnesses import axi_master as broken
from sim.axi_slave import AXI4SlaveModel
from tests.support.stream_drivers import Bench

ADDR_WIDTH = 10
FULL_MASK = (1 << 64) - 1
BACK_PRESSURE = [pytest.param(None, id="nopause"), pytest.param(1, id="pause1")]


def program(rng, count, *, tags, lines=512, write_share=0.4):
    """``count`` requests in runs of consecutive lines, some ending or starting at a 4 KiB
    page's edge; returns (initial memory, requests, each tag's expected reads, final
    memory)."""
    image = {line: rng.randrange(1 << 512) for line in range(lines)}
    memory = dict(image)
    requests, expected = [], {}
    while len(requests) < count:
        write = rng.random() < write_share
        tag = rng.randrange(tags)
        if rng.random() < 0.3:
            start = rng.randrange(lines // 64) * 64 + rng.randrange(56, 64)
        else:
            start = rng.randrange(lines)
        for line in range(start, min(start + rng.randint(1, 12), lines)):
            if len(requests) == count:
                break
            if write:
                wdata = rng.randrange(1 << 512)
                wmask = rng.choice([FULL_MASK, rng.randrange(1 << 64)])
                mask = sum(0xFF << (8 * b) for b in range(64) if wmask >> b & 1)
                memory[line] = memory[line] & ~mask | wdata & mask
                requests.append({"addr": line, "write": 1, "wdata": wdata, "wmask": wmask,
                                 "tag": tag})
            else:
                requests.append({"addr": line, "write": 0, "wdata": 0, "wmask": 0, "tag": tag})
                expected.setdefault(tag, []).append(memory[line])
    return image, requests, expected, memory


def interleaved_program(rng, count, *, tags, lines=512):
    """As :func:`program`, but several runs go on at once, their requests interleaved at
    random (each read run on a tag of its own while it lasts), and some read runs trail a
    write run over the same lines, each line read just after it is written."""
    image = {line: rng.randrange(1 << 512) for line in range(lines)}
    memory = dict(image)
    requests, expected, live = [], {}, []
    while len(requests) < count:
        while len(live) < min(4, tags):
            busy = {run["tag"] for run in live if not run["write"]}
            tag = rng.choice([t for t in range(tags) if t not in busy])
            start = rng.choice([rng.randrange(lines), rng.randrange(lines // 64) * 64 + 60])
            length = rng.randint(1, 16)
            if rng.random() < 0.3:
                live.append({"write": 1, "tag": tag, "next": start, "left": length,
                             "trail": tag})
            live.append({"write": 0, "tag": tag, "next": start, "left": length})
        run = rng.choice(live)
        line = run["next"] % lines
        if run["write"]:
            wdata = rng.randrange(1 << 512)
            memory[line] = wdata
            requests.append({"addr": line, "write": 1, "wdata": wdata, "wmask": FULL_MASK,
                             "tag": run["tag"]})
        elif any(other.get("trail") == run["tag"] and other["next"] <= run["next"]
                 for other in live):
            continue        # a trailing read waits for its line to be written
        else:
            requests.append({"addr": line, "write": 0, "wdata": 0, "wmask": 0,
                             "tag": run["tag"]})
            expected.setdefault(run["tag"], []).append(memory[line])
        run["next"] += 1
        run["left"] -= 1
        if run["left"] == 0:
            live.remove(run)
    return image, requests, expected, memory


def serve_and_watch_idle(bench, dut, slave) -> dict:
    """Add the slave model's process and one keeping ``dut.idle`` in the returned
    ``state["idle"]``."""
    state = {"idle": False}

    async def serve(ctx):
        await slave.serve(ctx)

    async def watch_idle(ctx):
        async for _, _, idle in ctx.tick().sample(dut.idle):
            state["idle"] = bool(idle)

    bench.add_process(serve)
    bench.add_process(watch_idle)
    return state


def run_master(*, data_width, id_width, pause, count=200, seed=1, tags=None, errors=None,
               settle=20, dut=None, lines=512, make=program, **params):
    """Run ``count`` random requests through an AXI4Master (or ``dut``) and the slave model;
    ``errors``, if given, makes the slave's ``errors`` function from the requests."""
    rng = random.Random(f"{seed}/{data_width}/{id_width}")
    tags = tags if tags is not None else min(2 << id_width, 12)
    image, requests, expected, memory = make(rng, count, tags=tags, lines=lines)
    if errors is not None:
        errors = errors(requests)
        expected = None
    if dut is None:
        dut = AXI4Master(addr_width=ADDR_WIDTH, data_width=data_width, id_width=id_width,
                         **params)
    bench = Bench(dut, f"AXI4Master dw={data_width} id={id_width}", pause=pause, watchdog=3000)
    slave = AXI4SlaveModel(dut.axi, data_width=data_width, lines=image, pause=pause,
                           errors=errors)
    state = serve_and_watch_idle(bench, dut, slave)
    bench.source("req", dut.mem.req, requests)
    reads = sum(1 for r in requests if not r["write"])
    bench.sink("resp", dut.mem.resp, None if errors is not None else reads)
    bench.until(lambda: bench.sent["req"] == len(requests) and state["idle"] and slave.idle())
    outputs = {}

    def read_outputs(ctx):
        for name in ("idle", "writes_pending", "error"):
            outputs[name] = ctx.get(getattr(dut, name))
        outputs["cause"] = {name: ctx.get(getattr(dut.error_cause, name))
                            for name in ("write", "resp", "addr")}

    bench.at_end(read_outputs)
    bench.run(settle=settle)
    got = {}
    for item in bench.received["resp"]:
        got.setdefault(item["tag"], []).append(item["rdata"])
    return {"bench": bench, "slave": slave, "got": got, "expected": expected,
            "memory": memory, "outputs": outputs, "dut": dut, "requests": requests}


# Two widths in make test, the other four in make soak (each 10 to 30 s here).
@pytest.mark.parametrize("pause", BACK_PRESSURE)
@pytest.mark.parametrize("data_width, id_width", [
    (64, 4), (512, 3), *(pytest.param(*widths, marks=pytest.mark.soak)
                         for widths in ((64, 1), (128, 2), (128, 8), (512, 8)))])
def test_master_matches_memory(data_width, id_width, pause):
    """Every tag's reads in order with the data they must see; the memory as written."""
    run = run_master(data_width=data_width, id_width=id_width, pause=pause, count=300)
    bench, slave = run["bench"], run["slave"]
    for tag in sorted(run["expected"]):
        bench.check_equal(run["got"].get(tag, []), run["expected"][tag], f"reads of tag {tag}")
    assert set(run["got"]) <= set(run["expected"])
    final = {line: slave.lines[line] for line in run["memory"]}
    if final != run["memory"]:
        wrong = sorted(line for line in final if final[line] != run["memory"][line])
        bench.fail(f"memory differs at lines {wrong[:10]}")
    assert run["outputs"]["idle"] == 1 and run["outputs"]["writes_pending"] == 0
    assert run["outputs"]["error"] == 0
    bursts = slave.log["bursts"]
    beats = 512 // data_width
    assert all((length + 1) % beats == 0 for _, _, _, length in bursts)
    # Runs of consecutive requests were joined into bursts (more with requests back to back).
    assert max(length + 1 for _, _, _, length in bursts) >= 4 * beats
    assert len(bursts) < len(run["requests"])
    if id_width >= 2:
        assert slave.log["overtakes"] > 0, "the slave never answered out of order"
        if data_width < 512:
            assert slave.log["interleaved"] > 0, "the slave never interleaved bursts"


@pytest.mark.parametrize("pause", BACK_PRESSURE)
@pytest.mark.parametrize("data_width, id_width", [(64, 4), (512, 2)])
def test_master_interleaved_streams_form_bursts_in_order(data_width, id_width, pause):
    """Runs interleaved request by request, some reads following writes of their lines: each
    tag's reads come back in order with the data they must see (a read after an overlapping
    write sees it, one before does not), the memory ends as written, and read runs on
    different tags still form bursts of several lines."""
    # 16 slots (not the 64 by default) keep the simulation short.
    run = run_master(data_width=data_width, id_width=id_width, pause=pause, count=300,
                     make=interleaved_program, tags=8, read_outstanding=16, burst_hold=16)
    bench, slave = run["bench"], run["slave"]
    for tag in sorted(run["expected"]):
        bench.check_equal(run["got"].get(tag, []), run["expected"][tag], f"reads of tag {tag}")
    final = {line: slave.lines[line] for line in run["memory"]}
    assert final == run["memory"], "memory differs"
    beats = 512 // data_width
    reads = [length + 1 for kind, _, _, length in slave.log["bursts"] if kind == "ar"]
    assert max(reads) >= 4 * beats
    if pause is None:   # (gaps in the requests let bursts go early)
        assert len(reads) < sum(1 for r in run["requests"] if not r["write"]) // 2
    with_one = run_master(data_width=data_width, id_width=id_width, pause=pause, count=300,
                          make=interleaved_program, tags=8, read_outstanding=16,
                          open_bursts=1, burst_hold=0)
    single = [length + 1 for kind, _, _, length in with_one["slave"].log["bursts"]
              if kind == "ar"]
    assert len(single) > len(reads)


def test_master_ids_fold_tags():
    """Tags wider than the ID are folded onto it by their low bits; reads keep each tag's
    order through the shared IDs."""
    run = run_master(data_width=128, id_width=2, pause=None, tags=12)
    ids = {ident for kind, ident, _, _ in run["slave"].log["bursts"] if kind == "ar"}
    assert ids == {0, 1, 2, 3}
    for tag in run["expected"]:
        assert run["got"][tag] == run["expected"][tag]


@pytest.mark.parametrize("outstanding", [1, 3])
def test_master_keeps_reads_in_flight_within_limit(outstanding):
    run = run_master(data_width=64, id_width=4, pause=None, read_outstanding=outstanding,
                     write_outstanding=outstanding, count=120)
    assert run["slave"].log["max_reads"] == outstanding
    assert run["slave"].log["max_writes"] <= outstanding
    for tag in run["expected"]:
        assert run["got"][tag] == run["expected"][tag]


def test_master_bursts_are_capped():
    """With ``max_burst_beats`` 16 on a 64-bit bus a burst holds two lines at most, and a
    write burst no more lines than half the write buffer."""
    run = run_master(data_width=64, id_width=2, pause=None, max_burst_beats=16, count=150)
    assert max(length + 1 for _, _, _, length in run["slave"].log["bursts"]) == 16
    run = run_master(data_width=512, id_width=2, pause=None, write_buffer=6, count=150)
    writes = [length + 1 for kind, _, _, length in run["slave"].log["bursts"] if kind == "aw"]
    assert max(writes) == 3


def erring_at(line, write, resp, data_width):
    """The slave's ``errors``: ``resp`` for the bursts of kind ``write`` that cover ``line``."""
    def errors(is_write, addr, length):
        covered = addr <= line * 64 < addr + (length + 1) * data_width // 8
        return resp.value if is_write == write and covered else AXIResp.OKAY.value
    return errors


@pytest.mark.parametrize("pause", BACK_PRESSURE)
@pytest.mark.parametrize("write, resp, data_width", [(False, AXIResp.SLVERR, 64),
                                                     (True, AXIResp.DECERR, 128),
                                                     (False, AXIResp.DECERR, 512),
                                                     (True, AXIResp.SLVERR, 512)])
def test_master_stops_on_an_error_response(write, resp, data_width, pause):
    """The first SLVERR or DECERR sets ``error`` with its cause (kind, response, the failing
    burst's address); no burst is sent after it but the two already in the address
    registers; everything sent is answered and the master comes to ``idle``."""
    rng = random.Random(f"error/{write}")

    def errors(requests):
        line = rng.choice([r["addr"] for r in requests[100:200] if r["write"] == write])
        return erring_at(line, write, resp, data_width)

    # 16 read slots (not the 64 by default) keep the simulation short.
    run = run_master(data_width=data_width, id_width=3, pause=pause, count=300, errors=errors,
                     read_outstanding=16)
    errors = run["slave"].log["errors"]
    assert errors, "no error response was given"
    first_cycle, kind, addr, _ = errors[0]
    outputs = run["outputs"]
    assert outputs["error"] == 1 and outputs["idle"] == 1 and outputs["writes_pending"] == 0
    assert outputs["cause"] == {"write": int(write), "resp": resp, "addr": addr}
    later = [burst for burst, cycle in zip(run["slave"].log["bursts"], run["slave"].log["cycles"])
             if cycle > first_cycle]
    assert len([b for b in later if b[0] == "ar"]) <= 1
    assert len([b for b in later if b[0] == "aw"]) <= 1
    # The slave saw far fewer requests than were sent: the rest were dropped.
    lines = sum((length + 1) * data_width // 512 for *_, length in run["slave"].log["bursts"])
    assert lines < len(run["requests"])


def test_master_refuses_bad_parameters():
    with pytest.raises(ConfigError, match="data_width must be a power of two from 64 to 512"):
        AXI4Master(addr_width=10, data_width=32)
    with pytest.raises(ConfigError, match="max_burst_beats must be a power of two from 8"):
        AXI4Master(addr_width=10, data_width=64, max_burst_beats=4)
    with pytest.raises(ConfigError, match="axi_addr_width must be at least"):
        AXI4Master(addr_width=20, axi_addr_width=24)
    with pytest.raises(ConfigError, match="id_width must be an integer from 1 to 16"):
        AXI4Master(addr_width=10, id_width=0)
    with pytest.raises(ConfigError, match="write_id must be an integer from 0 to 3"):
        AXI4Master(addr_width=10, id_width=2, write_id=4)
    with pytest.raises(ConfigError, match="open_bursts must be an integer from 1 to 16"):
        AXI4Master(addr_width=10, open_bursts=17)
    with pytest.raises(ConfigError, match="burst_hold must be an integer from 0 to 255"):
        AXI4Master(addr_width=10, burst_hold=-1)
    with pytest.raises(ConfigError, match="read_outstanding must be an integer from 1 to 64"):
        AXI4Master(addr_width=10, read_outstanding=0)
    with pytest.raises(ConfigError, match="write_waiting must be an integer from 1 to 16"):
        AXI4Master(addr_width=10, write_waiting=17)


def test_signatures_flatten_to_axi_names():
    """A component member ``m_axi`` flattens to ``m_axi__awaddr`` …, the AXI names."""
    axi = AXI4Signature(addr_width=32, data_width=128, id_width=4)
    members = axi.members
    assert [name for name in members if name.startswith("aw")] == [
        "awid", "awaddr", "awlen", "awsize", "awburst", "awlock", "awcache", "awprot",
        "awqos", "awvalid", "awready"]
    assert members["wdata"].shape == 128 and members["wstrb"].shape == 16
    assert members["rid"].shape == 4 and members["rready"].flow.name == "Out"
    assert members["bresp"].flow.name == "In"
    lite = AXI4LiteSignature(addr_width=12)
    assert set(lite.members) == {
        "awaddr", "awprot", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready",
        "bresp", "bvalid", "bready", "araddr", "arprot", "arvalid", "arready", "rdata",
        "rresp", "rvalid", "rready"}
    assert AXI4Signature(addr_width=32, data_width=128, id_width=4) == axi
    with pytest.raises(ConfigError, match="data_width must be a power of two from 32 to 64"):
        AXI4LiteSignature(addr_width=12, data_width=128)

    class Top(wiring.Component):
        m_axi: Out(axi)
        s_axil: In(lite)

        def elaborate(self, platform):
            return Module()

    text = verilog.convert(Top(), name="top")
    for port in ("output [31:0] m_axi__awaddr", "input m_axi__awready",
                 "output [15:0] m_axi__wstrb", "input [3:0] m_axi__rid",
                 "input [11:0] s_axil__awaddr", "output [1:0] s_axil__rresp"):
        assert port in text, port


def stream_through(data_width, write, lines, latency=30):
    """``lines`` consecutive reads or writes of one tag, back to back, through the master and
    a slave at a fixed latency and never pausing: (cycles taken, beats on the bus)."""
    dut = AXI4Master(addr_width=ADDR_WIDTH, data_width=data_width, id_width=4)
    bench = Bench(dut, f"AXI4Master dw={data_width} streaming", pause=None)
    slave = AXI4SlaveModel(dut.axi, data_width=data_width, latency=(latency, latency))
    state = serve_and_watch_idle(bench, dut, slave)
    bench.source("req", dut.mem.req, [{"addr": line, "write": write, "wdata": line,
                                       "wmask": FULL_MASK, "tag": 0} for line in range(lines)])
    bench.sink("resp", dut.mem.resp, 0 if write else lines)
    bench.until(lambda: bench.sent["req"] == lines and state["idle"] and slave.idle())
    return bench.run(settle=1), lines * 512 // data_width


@pytest.mark.parametrize("write", [0, 1], ids=["reads", "writes"])
@pytest.mark.parametrize("data_width, lines, rate", [(64, 256, 0.95), (512, 512, 0.8)])
def test_master_keeps_the_bus_busy(data_width, lines, write, rate):
    """Consecutive lines of one client keep a beat on the bus nearly every cycle, 30 cycles
    of latency away (the rest: the latency, and the first burst's gathering of its lines)."""
    cycles, beats = stream_through(data_width, write, lines)
    assert beats / cycles >= rate, f"{beats} beats in {cycles} cycles"


@pytest.mark.parametrize("mutant, rule", [
    (broken.MasterWithEarlyWlast, "wlast=1 on beat 0"),
    (broken.MasterWithdrawsAW, "AW offered .* withdrew valid"),
    (broken.MasterShiftsReads, "crosses 4 KiB"),
])
def test_slave_model_catches_broken_masters(mutant, rule):
    """The slave model's checks fire, on the broken masters the formal proof catches."""
    with pytest.raises(AssertionError, match=rule):
        run_master(data_width=256, id_width=1, pause=1, dut=mutant(), lines=256, tags=4)


def test_a_waiting_write_lets_reads_of_other_lines_pass():
    """A write of a line being read waits for the read's last beat, in the write path's
    queue: the read of another line behind it leaves first, and each read sees its data."""
    image = {line: line * 0x1111 for line in range(16)}
    dut = AXI4Master(addr_width=ADDR_WIDTH, data_width=128, id_width=2)
    bench = Bench(dut, "AXI4Master write waits", pause=None)
    slave = AXI4SlaveModel(dut.axi, data_width=128, lines=image, latency=(30, 30))
    state = serve_and_watch_idle(bench, dut, slave)
    bench.source("req", dut.mem.req, [
        {"addr": 5, "write": 0, "wdata": 0, "wmask": 0, "tag": 0},
        {"addr": 5, "write": 1, "wdata": 0xABCD, "wmask": FULL_MASK, "tag": 0},
        {"addr": 9, "write": 0, "wdata": 0, "wmask": 0, "tag": 1},
        {"addr": 5, "write": 0, "wdata": 0, "wmask": 0, "tag": 2}])
    bench.sink("resp", dut.mem.resp, 3)
    bench.until(lambda: bench.sent["req"] == 4 and state["idle"] and slave.idle())
    bench.run(settle=1)
    order = [(kind, addr) for kind, _, addr, _ in slave.log["bursts"]]
    assert order == [("ar", 5 * 64), ("ar", 9 * 64), ("aw", 5 * 64), ("ar", 5 * 64)], order
    cycles = slave.log["cycles"]
    assert cycles[2] - cycles[0] >= 30 and cycles[3] > cycles[2]
    got = {item["tag"]: item["rdata"] for item in bench.received["resp"]}
    assert got == {0: image[5], 1: image[9], 2: 0xABCD}
