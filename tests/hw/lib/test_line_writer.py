"""The sequential line writer: items packed into lines from the base on, a partial last line
written with byte enables for its items only, an empty last item ending the list; under
pauses."""

import random

import pytest

from hw.lib.memory.line_writer import SequentialLineWriter
from tests.support.stream_drivers import PAUSES, Bench

BASE = 100


def _expected(items, item_words):
    """(address, words by index, mask) of each line write, from the list's items."""
    per_line = 16 // item_words
    words = [w for item in items for w in item]
    writes = []
    for line in range(-(-len(items) // per_line)):
        chunk = words[line * 16:(line + 1) * 16]
        mask = (1 << (4 * len(chunk))) - 1
        writes.append((BASE + line, chunk, mask))
    return writes


@pytest.mark.parametrize("pause", PAUSES)
@pytest.mark.parametrize("item_words, count, empty_end", [(4, 9, True), (1, 32, False),
                                                          (2, 5, False), (4, 0, True)])
def test_items_are_packed_into_lines(pause, item_words, count, empty_end):
    rng = random.Random(f"writer/{pause}/{item_words}/{count}")
    items = [[rng.randrange(1 << 32) for _ in range(item_words)] for _ in range(count)]
    feed = [{"data": sum(w << (32 * k) for k, w in enumerate(item)), "empty": 0,
             "last": int(not empty_end and k == count - 1)} for k, item in enumerate(items)]
    if empty_end:
        feed.append({"data": 0, "empty": 1, "last": 1})
    expected = _expected(items, item_words)
    dut = SequentialLineWriter(addr_width=26, item_words=item_words)
    bench = Bench(dut, "SequentialLineWriter", pause=pause)

    async def setup(ctx):
        ctx.set(dut.base, BASE)
    bench.add_process(setup)
    bench.source("items", dut.items, feed)
    bench.sink("req", dut.req, len(expected))
    done = []
    bench.at_end(lambda ctx: done.append(ctx.get(dut.done)))
    bench.run()
    assert done == [1]
    got = []
    for req in bench.received["req"]:
        words = [(req["wdata"] >> (32 * k)) & 0xFFFF_FFFF for k in range(16)]
        filled = bin(req["wmask"]).count("1") // 4
        got.append((req["addr"], words[:filled], req["wmask"]))
        assert req["write"] == 1
    bench.check_equal(got, expected, "line writes")
