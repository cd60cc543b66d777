"""AXI4Master (hw/lib/axi/master.py) in Amaranth's simulator against an AXI4 slave model
(tests/support/axi_slave.py) with random latency, reordering and interleaving across IDs and,
crossed with each test, random back-pressure on all five channels or none.

Random mixes of reads and writes, in runs of consecutive lines (so bursts form) and across
4 KiB boundaries, are checked against a Python memory that applies them in request order:
every tag's reads come back in its order with the data it must see, and the memory ends as
the writes left it. The slave model checks the bursts (INCR, at most 256 beats, never across
4 KiB, ``wlast`` on the last beat) and that AW, W and AR hold valid and payload until taken.
"""

import random

import pytest

from hw.lib.axi.master import AXI4Master
from hw.lib.axi.signature import AXIResp, AXI4LiteSignature, AXI4Signature
from hw.lib.config import ConfigError
from tests.support.axi_slave import AXI4SlaveModel
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


def run_master(*, data_width, id_width, pause, count=200, seed=1, tags=None, errors=None,
               settle=20, **params):
    rng = random.Random(f"{seed}/{data_width}/{id_width}")
    tags = tags if tags is not None else min(2 << id_width, 12)
    image, requests, expected, memory = program(rng, count, tags=tags)
    if errors is not None:
        expected = None
    dut = AXI4Master(addr_width=ADDR_WIDTH, data_width=data_width, id_width=id_width, **params)
    bench = Bench(dut, f"AXI4Master dw={data_width} id={id_width}", pause=pause, watchdog=3000)
    slave = AXI4SlaveModel(dut.axi, data_width=data_width, lines=image, pause=pause,
                           errors=errors)
    state = {"idle": False}

    async def serve(ctx):
        await slave.serve(ctx)

    async def watch_idle(ctx):
        async for _, _, idle in ctx.tick().sample(dut.idle):
            state["idle"] = bool(idle)

    bench.add_process(serve)
    bench.add_process(watch_idle)
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


@pytest.mark.parametrize("pause", BACK_PRESSURE)
@pytest.mark.parametrize("data_width, id_width", [(64, 1), (64, 4), (128, 2), (128, 8),
                                                  (512, 3), (512, 8)])
def test_master_matches_memory(data_width, id_width, pause):
    """Every tag's reads in order with the data they must see; the memory as written."""
    run = run_master(data_width=data_width, id_width=id_width, pause=pause)
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
    write burst no more lines than the write buffer."""
    run = run_master(data_width=64, id_width=2, pause=None, max_burst_beats=16, count=150)
    assert max(length + 1 for _, _, _, length in run["slave"].log["bursts"]) == 16
    run = run_master(data_width=512, id_width=2, pause=None, write_buffer=3, count=150)
    writes = [length + 1 for kind, _, _, length in run["slave"].log["bursts"] if kind == "aw"]
    assert max(writes) == 3
