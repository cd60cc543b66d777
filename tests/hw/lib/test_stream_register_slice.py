"""The stream register slice: every item passes once and in order under random stalls on
both sides, one item per cycle without them, and (with its skid register) its ready does not
depend on the far side; the same with its payload cut into lanes, each under its own copy of
the state."""

import random

import pytest

from hw.lib.stream.register_slice import StreamRegisterSlice

from tests.support.stream_pass_bench import pass_items


@pytest.mark.parametrize("lanes", [1, 3])
@pytest.mark.parametrize("skid", [True, False])
@pytest.mark.parametrize("stalls", [0.0, 0.3])
def test_items_pass_in_order(stalls, skid, lanes):
    dut = StreamRegisterSlice(16, skid=skid, lanes=lanes)
    rng = random.Random(3)
    items = [rng.randrange(1 << 16) for _ in range(400)]
    # With the skid register i.ready is a register: it must not follow o.ready.
    received, cycles = pass_items(dut, items, stalls, seed=3,
                                  registered=[dut.i.ready] if skid else [])
    assert received == items
    if stalls == 0:
        assert cycles == len(items) + 1
