"""Stream drivers for the per-block tests, in Amaranth's Python simulator.

A :class:`Bench` wraps a block: :meth:`Bench.source` feeds a list of payloads into one of its
input streams, :meth:`Bench.sink` takes what one of its output streams gives, and
:meth:`Bench.watch` adds any other stream (a memory port driven by a model, say) to the
watchdog. With a seed (``pause`` not None) the source withholds ``valid`` and the sink drops
``ready`` at random, each from its own generator derived from that seed; with ``pause=None``
neither ever pauses (as Forencich's verilog-axis testbenches cross every test with and
without pause generators).

Sinks check the block's side of rule 2 of Amaranth's stream rules (docs/stdlib/stream.rst,
"Data transfer rules"): once ``valid`` is offered it stays, with the same payload, until the
transfer (``check_protocol=False`` turns this off).

Protocol followed by the source, Amaranth's stream rules 2 and 3 (docs/stdlib/stream.rst):
``valid`` never waits for ``ready``, and once asserted it stays asserted with the same
payload until the transfer. The sink may raise and drop ``ready`` in any cycle. Transfers
are sampled at the clock edge, after every process has set its inputs.

The watchdog fails the test, naming the block and printing every watched stream's valid and
ready, when no transfer happens on any of the block's data streams (memory ports are shown
but do not count) for ``watchdog`` cycles. Every failure raised
through the bench (:meth:`Bench.fail`, :meth:`Bench.check_equal`, the watchdog, ``run``'s
cycle limit) names the seed and the pytest command that reruns the test.
"""

import enum
import collections
import os
import random
import shlex
import sys

import pytest

from amaranth.hdl import Module, Signal
from amaranth.lib import data
from amaranth.sim import Simulator


__all__ = ["PAUSES", "Bench", "to_py", "serve_memory"]

# Parametrise tests with this: a run without pauses and two seeded runs with them, the second
# in make soak only (make test's budget, tests/budget.py).
PAUSES = [pytest.param(None, id="nopause"), pytest.param(1, id="pause1"),
          pytest.param(2, id="pause2", marks=pytest.mark.soak)]
if os.environ.get("STREAM_PAUSE_SEEDS"):       # a sweep: STREAM_PAUSE_SEEDS=3,4,5
    PAUSES = [pytest.param(int(seed), id=f"pause{seed}")
              for seed in os.environ["STREAM_PAUSE_SEEDS"].split(",")]


def to_py(value):
    """A sampled payload as ints (an enumeration member as its value), dicts (structs) and
    lists (arrays)."""
    if isinstance(value, data.Const):
        layout = value.shape()
        if isinstance(layout, data.ArrayLayout):
            return [to_py(value[i]) for i in range(layout.length)]
        return {name: to_py(value[name]) for name, _ in layout}
    if isinstance(value, enum.Enum):
        return value.value
    return int(value)


def rerun_command():
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    return (f"cd {shlex.quote(os.getcwd())} && PYTHONPATH=$PWD {sys.executable} -m pytest -q "
            f"{shlex.quote(test)}")


class Bench:
    """Sources, sinks and a watchdog around ``dut``.

    Parameters
    ----------
    dut : Elaboratable
    name : str
        The block's name, for messages.
    pause : int or None
        The seed of the pause generators, or None for no pauses.
    p_pause : float
        Probability that the source withholds ``valid`` before an item (then for 1 to
        ``max_pause`` cycles), and that the sink drops ``ready`` in a cycle.
    watchdog : int
        Cycles without any transfer on a watched stream before the test fails.
    """

    def __init__(self, dut, name, *, pause, p_pause=0.35, max_pause=4, watchdog=2000,
                 check_protocol=True):
        self.dut = dut
        self.name = name
        self.pause = pause
        self.p_pause = p_pause if pause is not None else 0.0
        self.max_pause = max_pause
        self.watchdog = watchdog
        self.check_protocol = check_protocol
        self.streams = {}           # name -> stream interface, watched
        self.received = {}          # sink name -> list of payloads
        self.sent = {}              # source name -> count transferred
        self.expected = {}          # sink name -> count to wait for (None: do not wait)
        self.cycle = 0
        # A flip-flop of its own, so a purely combinational block has a clock domain.
        top = Module()
        top.submodules.dut = dut
        toggle = Signal()
        top.d.sync += toggle.eq(~toggle)
        self.sim = Simulator(top)
        self.sim.add_clock(1e-8)
        self._done = []
        self._progress = set()
        self._at_end = []

    # Messages.
    def describe(self):
        seed = "no pauses" if self.pause is None else f"pause seed {self.pause}"
        return f"[{self.name}, {seed}] rerun: {rerun_command()}"

    def fail(self, message):
        raise AssertionError(f"{message}\n{self.describe()}")

    def check_equal(self, got, want, what="output"):
        if got != want:
            first = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w),
                         min(len(got), len(want))) if isinstance(got, list) else None
            detail = ""
            if first is not None:
                detail = (f" first difference at item {first}: got "
                          f"{got[first] if first < len(got) else '(nothing)'}, want "
                          f"{want[first] if first < len(want) else '(nothing)'};"
                          f" {len(got)} items, want {len(want)}")
            self.fail(f"{self.name}: {what} differs from the model:{detail}"
                      + ("" if detail else f" got {got!r}, want {want!r}"))

    def rng(self, tag):
        """A generator for ``tag`` derived from the pause seed (None without pauses)."""
        return None if self.pause is None else random.Random(f"{self.pause}/{tag}")

    # Drivers.
    def watch(self, name, stream, *, progress=True):
        """Show ``stream`` in the watchdog's report; with ``progress`` its transfers also
        count as progress (memory ports are watched without: traffic that never brings a
        transfer on the block's own streams is a livelock the watchdog should catch)."""
        self.streams[name] = stream
        if progress:
            self._progress.add(name)

    def source(self, name, stream, items, *, gap=None):
        """Feed ``items`` (payload values for ``ctx.set``) into ``stream``.

        ``gap(ctx)``, if given, is awaited before each item (to sequence side inputs)."""
        self.watch(name, stream)
        self.sent[name] = 0
        rng = self.rng(f"source/{name}")
        items = list(items)

        async def process(ctx):
            for item in items:
                if rng is not None and rng.random() < self.p_pause:
                    ctx.set(stream.valid, 0)
                    for _ in range(rng.randint(1, self.max_pause)):
                        await ctx.tick()
                ctx.set(stream.payload, item)
                ctx.set(stream.valid, 1)
                while True:
                    _, _, valid, ready = await ctx.tick().sample(stream.valid, stream.ready)
                    if valid and ready:
                        break
                self.sent[name] += 1
            ctx.set(stream.valid, 0)

        self.sim.add_testbench(process, background=True)

    def feed(self, name, stream, *, pausing=True):
        """A source fed at run time: returns a deque; whatever is appended to it is sent, in
        order (an item leaves the deque once transferred), from the next cycle on; without
        ``pausing`` it never withholds an item it holds (a FIFO's output)."""
        self.watch(name, stream)
        self.sent[name] = 0
        queue = collections.deque()
        rng = self.rng(f"feed/{name}") if pausing else None

        async def process(ctx):
            while True:
                ctx.set(stream.valid, 0)
                while not queue:
                    await ctx.tick()
                if rng is not None and rng.random() < self.p_pause:
                    for _ in range(rng.randint(1, self.max_pause)):
                        await ctx.tick()
                ctx.set(stream.payload, queue[0])
                ctx.set(stream.valid, 1)
                while True:
                    _, _, valid, ready = await ctx.tick().sample(stream.valid, stream.ready)
                    if valid and ready:
                        break
                queue.popleft()
                self.sent[name] += 1

        self.sim.add_testbench(process, background=True)
        return queue

    def sink(self, name, stream, count=None, *, convert=to_py, on_item=None, pausing=True):
        """Take payloads from ``stream`` into ``self.received[name]``; ``run`` waits for
        ``count`` of them (if given) and fails on more. Without ``pausing`` the sink is
        always ready (a client that never refuses), whatever the bench's pauses."""
        self.watch(name, stream)
        out = self.received[name] = []
        self.expected[name] = count
        rng = self.rng(f"sink/{name}") if pausing else None

        raw = stream.payload.as_value() if hasattr(stream.payload, "as_value") \
            else stream.payload
        check = self.check_protocol

        async def process(ctx):
            held = None         # the payload bits offered and not taken at the last edge
            while True:
                ctx.set(stream.ready, rng is None or rng.random() >= self.p_pause)
                _, _, valid, ready, payload, bits = await ctx.tick().sample(
                    stream.valid, stream.ready, stream.payload, raw)
                if check and held is not None and (not valid or bits != held):
                    self.fail(f"{self.name}: {name} broke the stream rules (Amaranth "
                              f"lib.stream rule 2): it offered {held:#x} and, before the "
                              f"transfer, " + ("withdrew valid" if not valid else
                                               f"changed the payload to {bits:#x}") +
                              f" (cycle {self.cycle})")
                held = bits if valid and not ready else None
                if valid and ready:
                    out.append(convert(payload))
                    if on_item is not None:
                        on_item(out[-1])
                    if count is not None and len(out) > count:
                        self.fail(f"{self.name}: {name} gave more than {count} items: "
                                  f"{out[count:]}")

        self.sim.add_testbench(process, background=True)

    def add_process(self, process):
        """Another background testbench (a memory model, say)."""
        self.sim.add_testbench(process, background=True)

    def until(self, condition):
        """``run`` also waits for ``condition()`` to be true."""
        self._done.append(condition)

    def at_end(self, check):
        """``check(ctx)`` runs (as a testbench) once ``run`` has settled."""
        self._at_end.append(check)

    async def _monitor(self, ctx):
        names = list(self.streams)
        signals = [s for n in names for s in (self.streams[n].valid, self.streams[n].ready)]
        quiet = 0
        async for _, _, *values in ctx.tick().sample(*signals):
            self.cycle += 1
            if any(values[2 * k] and values[2 * k + 1] for k, n in enumerate(names)
                   if n in self._progress):
                quiet = 0
            else:
                quiet += 1
            if quiet >= self.watchdog:
                state = ", ".join(f"{n}: valid={values[2 * k]} ready={values[2 * k + 1]}"
                                  for k, n in enumerate(names))
                progress = ", ".join([f"{n} sent {c}" for n, c in self.sent.items()] +
                                     [f"{n} got {len(r)}" + (f"/{self.expected[n]}"
                                      if self.expected[n] is not None else "")
                                      for n, r in self.received.items()])
                self.fail(f"watchdog: no transfer on any data stream of {self.name} for "
                          f"{self.watchdog} cycles (cycle {self.cycle}); {state}; {progress}")

    def finished(self):
        return (all(c is None or len(self.received[n]) >= c
                    for n, c in self.expected.items())
                and all(condition() for condition in self._done))

    def run(self, *, settle=20, max_cycles=200_000):
        """Run until every sink has its count and every ``until`` condition holds, then
        ``settle`` cycles more (to catch extra items)."""
        self.sim.add_testbench(self._monitor, background=True)

        async def main(ctx):
            while not self.finished():
                await ctx.tick()
                if self.cycle > max_cycles:
                    self.fail(f"{self.name}: not done after {max_cycles} cycles")
            await ctx.tick().repeat(settle)
            for check in self._at_end:
                check(ctx)

        self.sim.add_testbench(main)
        try:
            self.sim.run()
        except Exception as error:
            if self.describe() in str(error):
                raise
            raise AssertionError(f"{type(error).__name__}: {error}\n{self.describe()}") \
                from error
        return self.cycle


def serve_memory(bench, name, port, lines, pause, *, latency=6, jitter=5):
    """A :class:`sim.amaranth_memory.LineMemoryModel` of ``lines`` serving memory ``port``:
    quick and steady without pauses, slower, jittery and refusing requests at random with
    them. Its streams are shown by the watchdog but do not count as progress."""
    from sim.amaranth_memory import LineMemoryModel
    model = LineMemoryModel(lines, latency=3 if pause is None else latency,
                            jitter=0 if pause is None else jitter,
                            stall_probability=0 if pause is None else 0.3,
                            seed=f"{pause}/{name}")
    bench.watch(f"{name}.req", port.req, progress=False)
    bench.watch(f"{name}.resp", port.resp, progress=False)

    async def serve(ctx):
        await model.serve(ctx, port)

    bench.add_process(serve)
    return model


def memory_client_program(rng, client, count, *, lines_per_client, write_share):
    """Random requests of memory client ``client`` on its own ``lines_per_client`` lines
    (writes, with a random byte mask, in about ``write_share`` of them) and what must follow:
    ``(lines, requests, reads, writes)``, the lines' initial data, the requests, the responses
    its reads must get in order, and the line written by each write."""
    lines = {client * 100 + k: rng.randrange(1 << 512) for k in range(lines_per_client)}
    image = dict(lines)
    requests, reads, writes = [], [], []
    for _ in range(count):
        addr = rng.choice(list(lines))
        if rng.random() < write_share:
            wdata = rng.randrange(1 << 512)
            wmask = rng.choice([(1 << 64) - 1, rng.randrange(1 << 64)])
            mask = sum(0xFF << (8 * b) for b in range(64) if wmask >> b & 1)
            image[addr] = image[addr] & ~mask | wdata & mask
            requests.append({"addr": addr, "write": 1, "wdata": wdata, "wmask": wmask})
            writes.append(addr)
        else:
            requests.append({"addr": addr, "write": 0, "wdata": 0, "wmask": 0})
            reads.append({"rdata": image[addr]})
    return lines, requests, reads, writes
