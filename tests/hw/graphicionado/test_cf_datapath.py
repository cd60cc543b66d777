"""Collaborative filtering's gathered datapath (Graphicionado's P5, P8 and A3 for one
destination stream, as synthesized apart) in Amaranth's simulator: all three paths at once,
each against the golden model bit for bit: Process_Edge against ``cf_program``'s
process_edge, the Reduce unit against NumPy float32 addition lane by lane, Apply against
``cf_program``'s apply with the configuration's gamma and lambda; the configuration's checks
and derived sizes; with and without pauses."""

import numpy as np
import pytest

from golden.algorithms import cf_program
from hw.graphicionado.cf_datapath import CFDatapath, CFDatapathConfig
from hw.lib.config import ConfigError
from tests.support.stream_drivers import PAUSES, Bench
from tests.hw.graphicionado.test_flit_process_edge import bits, edge_packets, random_properties


def test_configuration():
    config = CFDatapathConfig(property_bytes=32, datapath_bytes=16)
    assert (config.lanes, config.flits) == (4, 2)
    assert (CFDatapathConfig().lanes, CFDatapathConfig().flits) == (8, 4)
    assert (CFDatapathConfig(property_bytes=8, datapath_bytes=64).lanes,
            CFDatapathConfig(property_bytes=8, datapath_bytes=64).flits) == (2, 1)
    for bad in (dict(property_bytes=48), dict(property_bytes=256), dict(datapath_bytes=2),
                dict(gamma=float("nan")), dict(index_width=0)):
        with pytest.raises(ConfigError):
            CFDatapathConfig(**bad).validate()


def word(lane_bits):
    return sum(b << (32 * k) for k, b in enumerate(lane_bits))


@pytest.mark.parametrize("pause", PAUSES)
def test_three_paths_against_the_cf_program(pause):
    config = CFDatapathConfig(property_bytes=32, datapath_bytes=16, gamma=0.01, lam=0.05,
                              index_width=10)
    lanes, flits = config.lanes, config.flits
    K = lanes * flits
    rng = np.random.default_rng(23)
    edges, updates = edge_packets(rng, 24, lanes, flits)

    a = (rng.standard_normal((60, lanes)) * 10).astype(np.float32)
    b = (rng.standard_normal((60, lanes)) * 10).astype(np.float32)
    b[::7] = -a[::7]                                   # exact cancellations
    tags = rng.integers(0, 1 << config.index_width, 60)
    reduce_in = [{"a": bits(a[k]), "b": bits(b[k]), "tag": int(tags[k])} for k in range(60)]
    reduce_out = [{"result": bits(a[k] + b[k]), "tag": int(tags[k])} for k in range(60)]

    n = 12
    p = random_properties(rng, n, K)
    temp = (rng.standard_normal((n, K)) * 3).astype(np.float32)
    want = cf_program(K=K, gamma=config.gamma, lam=config.lam).apply(p, temp, None)

    def flits_of(array):
        return [bits(array[v, f * lanes:(f + 1) * lanes]) for v in range(n)
                for f in range(flits)]

    dut = CFDatapath(config)
    bench = Bench(dut, "CFDatapath", pause=pause)
    bench.source("edges", dut.edges, edges)
    bench.sink("updates", dut.updates, len(updates))
    bench.source("reduce_in", dut.reduce_in, reduce_in)
    bench.sink("reduce_out", dut.reduce_out, len(reduce_out))
    bench.source("apply_prop", dut.apply_prop, [{"index": i, "data": word(w)}
                                                for i, w in enumerate(flits_of(p))])
    bench.source("apply_temp", dut.apply_temp, [{"index": i, "temp": word(w)}
                                                for i, w in enumerate(flits_of(temp))])
    bench.sink("apply_out", dut.apply_out, n * flits)
    bench.run()
    bench.check_equal(bench.received["updates"], updates, "Process_Edge updates")
    bench.check_equal(bench.received["reduce_out"], reduce_out, "Reduce sums")
    bench.check_equal(bench.received["apply_out"], [word(w) for w in flits_of(want)],
                      "Apply's new properties")
