"""The AXI4 master's read and write paths (hw/lib/axi/read_path.py, write_path.py) alone, in
Amaranth's simulator, on hand-written channel traffic: R beats of two IDs interleaved beat by
beat put back into lines with their tags, one ID's bursts in send order, a faulty beat
reported with its burst's address; write bursts cut into W beats with their byte enables,
a dropped burst's lines taken and not sent, B responses matched to their bursts in order."""

from amaranth.sim import Simulator

from hw.lib.axi.read_path import ReadPath
from hw.lib.axi.signature import AXI4Signature, AXIResp
from hw.lib.axi.write_path import WritePath
from tests.support.stream_drivers import Bench

AXI = AXI4Signature(addr_width=16, data_width=128, id_width=2)


def beat_data(burst, k):
    return (burst << 120) | (k << 64) | 0x1234_5678 * (k + 1)


def test_read_path_puts_interleaved_beats_back_into_lines():
    dut = ReadPath(addr_width=10, tag_width=3, axi=AXI, max_lines=4, outstanding=4)
    bursts = [{"addr": 10, "len": 1, "write": 0, "tag": 4},    # ID 0, two lines
              {"addr": 20, "len": 0, "write": 0, "tag": 1},    # ID 1
              {"addr": 30, "len": 0, "write": 0, "tag": 0}]    # ID 0 again, after the first
    # (burst, beat, response): the ID 1 burst's beats between the first burst's.
    beats = [(1, 0), (0, 0), (1, 1), (0, 1), (0, 2), (1, 2), (1, 3)] + \
        [(0, k) for k in range(3, 8)] + [(2, k) for k in range(4)]
    ids = [0, 1, 0]
    lens = [7, 3, 3]
    log = {"ar": [], "faults": [], "probes": []}
    bench = Bench(dut, "ReadPath", pause=None)
    bench.source("bursts", dut.bursts, bursts)
    bench.sink("resp", dut.resp, 4)

    async def slave(ctx):
        axi = dut.axi
        ctx.set(axi.arready, 1)
        while len(log["ar"]) < 3:
            _, _, valid, ident, addr, length = await ctx.tick().sample(
                axi.arvalid, axi.arid, axi.araddr, axi.arlen)
            if valid:
                log["ar"].append((ident, addr, length))
        for probe, hit in (((11, 11), 1), ((12, 19), 0), ((19, 40), 1)):
            ctx.set(dut.probe_first, probe[0])
            ctx.set(dut.probe_last, probe[1])
            log["probes"].append(ctx.get(dut.probe_hit) == hit)
        for burst, k in beats:
            ctx.set(axi.rvalid, 1)
            ctx.set(axi.rid, ids[burst])
            ctx.set(axi.rdata, beat_data(burst, k))
            ctx.set(axi.rlast, k == lens[burst])
            ctx.set(axi.rresp, AXIResp.SLVERR if (burst, k) == (2, 2) else AXIResp.OKAY)
            while True:
                _, _, ready, fault, addr, resp = await ctx.tick().sample(
                    axi.rready, dut.fault, dut.fault_addr, dut.fault_resp)
                if fault:
                    log["faults"].append((addr, resp))
                if ready:
                    break
        ctx.set(axi.rvalid, 0)

    bench.add_process(slave)
    bench.run()

    def line(burst, first):
        return sum(beat_data(burst, first + k) << (128 * k) for k in range(4))

    bench.check_equal(bench.received["resp"], [
        {"rdata": line(1, 0), "tag": 1}, {"rdata": line(0, 0), "tag": 4},
        {"rdata": line(0, 4), "tag": 4}, {"rdata": line(2, 0), "tag": 0}], "lines")
    assert log["ar"] == [(0, 640, 7), (1, 1280, 3), (0, 1920, 3)]
    assert all(log["probes"])
    assert log["faults"] == [(1920, AXIResp.SLVERR)]


def test_write_path_sends_beats_drops_and_counts_responses():
    dut = WritePath(addr_width=10, axi=AXI, max_lines=4, outstanding=2, write_id=2)
    bursts = [{"addr": 5, "len": 1, "drop": 0}, {"addr": 9, "len": 0, "drop": 1},
              {"addr": 12, "len": 0, "drop": 0}]
    lines = [{"wdata": (n + 1) * 0x0101_0101_0101_0101 << (128 * n % 512),
              "wmask": 0xF0F0 << (16 * n)} for n in range(4)]
    log = {"aw": [], "w": [], "faults": [], "pending": []}
    bench = Bench(dut, "WritePath", pause=None)
    bench.source("bursts", dut.bursts, bursts)
    bench.source("lines", dut.lines, lines)

    async def slave(ctx):
        axi = dut.axi
        ctx.set(axi.awready, 1)
        ctx.set(axi.wready, 1)
        while len(log["w"]) < 12:
            _, _, aw, awid, awaddr, awlen, w, wdata, wstrb, wlast = await ctx.tick().sample(
                axi.awvalid, axi.awid, axi.awaddr, axi.awlen, axi.wvalid, axi.wdata,
                axi.wstrb, axi.wlast)
            if aw:
                log["aw"].append((awid, awaddr, awlen))
            if w:
                log["w"].append((wdata, wstrb, wlast))
        for resp in (AXIResp.OKAY, AXIResp.DECERR):
            log["pending"].append(ctx.get(dut.pending))
            ctx.set(axi.bvalid, 1)
            ctx.set(axi.bid, 2)
            ctx.set(axi.bresp, resp)
            _, _, fault, addr, code = await ctx.tick().sample(dut.fault, dut.fault_addr,
                                                              dut.fault_resp)
            if fault:
                log["faults"].append((addr, code))
        ctx.set(axi.bvalid, 0)
        await ctx.tick()
        log["pending"].append(ctx.get(dut.pending))

    bench.add_process(slave)
    bench.until(lambda: len(log["pending"]) == 3)
    bench.run()
    assert log["aw"] == [(2, 320, 7), (2, 768, 3)]
    want = [(lines[n]["wdata"] >> (128 * k) & (1 << 128) - 1,
             lines[n]["wmask"] >> (16 * k) & 0xFFFF, int(last))
            for n, count in ((0, 4), (1, 4), (3, 4)) for k in range(count)
            for last in [(n, k) in ((1, 3), (3, 3))]]
    assert log["w"] == want
    assert log["faults"] == [(768, AXIResp.DECERR)]
    assert log["pending"] == [1, 1, 0]
