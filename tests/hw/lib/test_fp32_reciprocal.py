"""The float32 reciprocal pipeline against numpy's IEEE division, under pauses."""

import random

import numpy as np
import pytest

from hw.lib.arith.fp32_reciprocal import Reciprocal
from tests.support.stream_drivers import PAUSES, Bench


def _values(rng):
    edges = [0, 1, 2, 3, 5, 7, 255, 256, 257, (1 << 24) - 1, 1 << 24, 0xAAAAAA, 16_777_215]
    return edges + [rng.choice([rng.randrange(1, 64), rng.randrange(1, 1 << 24)])
                    for _ in range(120)]


@pytest.mark.parametrize("pause", PAUSES)
def test_reciprocal_equals_float32_division(pause):
    rng = random.Random(f"recip/{pause}")
    values = _values(rng)
    dut = Reciprocal(side_shape=8)
    bench = Bench(dut, "Reciprocal", pause=pause)
    bench.source("i", dut.i, [{"value": v, "side": k % 256} for k, v in enumerate(values)])
    bench.sink("o", dut.o, len(values))
    bench.run()
    degree = np.array(values, dtype=np.float32)
    want = np.zeros(len(values), dtype=np.float32)
    np.divide(np.float32(1.0), degree, out=want, where=degree > 0)
    got = [(item["bits"], item["value"], item["side"]) for item in bench.received["o"]]
    expected = [(int(b), v, k % 256) for k, (b, v) in
                enumerate(zip(want.view(np.uint32), values))]
    bench.check_equal(got, expected, "reciprocals")
