# amaranth: UnusedElaboratable=no
"""DepGraph's probe port in Amaranth's simulator, with a model of the bank's flags memory
(a synchronous read port: the flags of the address at the last clock edge): random probes of
a partition's vertices answered in order, walkable exactly when the record is active and not
stopped; the flags memory changing under the probes (a probe may see a write before or after
it, by the contract, so the model answers with what the port actually read); the answer
queue's credits never overrun (small depth, a slow consumer); with and without pauses."""

import random

import pytest

from hw.depgraph.probe_port import ProbePort
from hw.depgraph.record_update import RecordFlag
from hw.lib.config import ConfigError
from tests.support.stream_drivers import PAUSES, Bench

BASE = 1000
RECORDS = 64


def test_depth_is_checked():
    with pytest.raises(ConfigError):
        ProbePort(index_width=6, depth=1)


@pytest.mark.parametrize("depth", [2, 16])
@pytest.mark.parametrize("pause", PAUSES)
def test_probes_answer_active_and_not_stopped(pause, depth):
    rng = random.Random(f"probe/{pause}/{depth}")
    flags = [rng.randrange(1 << len(RecordFlag)) for _ in range(RECORDS)]
    probes = [BASE + rng.randrange(RECORDS) for _ in range(300)]
    dut = ProbePort(index_width=6, depth=depth)
    bench = Bench(dut, "ProbePort", pause=pause, p_pause=0.5)
    bench.source("probe", dut.probe, probes)
    bench.sink("probed", dut.probed, len(probes))
    reads, expected = [], []

    async def bank(ctx):
        ctx.set(dut.base, BASE)
        async for _, _, addr, read in ctx.tick().sample(dut.addr, dut.read):
            ctx.set(dut.flags, flags[addr])
            if read:
                reads.append(addr)
                f = flags[addr]
                walkable = f >> RecordFlag.ACTIVE & 1 and not f >> RecordFlag.STOP & 1
                expected.append({"walkable": int(bool(walkable))})
            # A write of the bank, now and then, to a record not being read.
            if rng.random() < 0.2:
                flags[rng.randrange(RECORDS)] = rng.randrange(1 << len(RecordFlag))

    bench.add_process(bank)
    bench.run()
    bench.check_equal(reads, [p - BASE for p in probes], "addresses read")
    bench.check_equal(bench.received["probed"], expected, "answers")
