"""A design's AXI top in Amaranth's simulator, as a :class:`~graphgen.driver.bus.Bus`.

:class:`SimulatorBus` simulates an :class:`~hw.lib.axi.top.AXITop`: register accesses go
through its AXI4-Lite slave (driven by :class:`sim.axil_master.AXI4LiteMasterModel`) and
the memory is the AXI4 slave model behind each master (:class:`sim.axi_slave.AXI4SlaveModel`:
random latency, R and B out of order across IDs, with ``pause`` back-pressure on all five
channels and the AXI-Lite ones). Every call runs the simulator until it is answered, so the
driver's own code, unchanged, is what a real host runs. ``aresetn`` is pulsed once, at the
start.

With several memory channels, channel ``c``'s slave answers the lines ``k`` with
``k % channels == c``; memory writes go to every slave and a read takes each line from its
channel's.
"""

import types

from amaranth.hdl import Shape
from amaranth.sim import Simulator

from graphgen.driver.bus import Bus, BusAccessError
from hw.lib.axi.signature import AXI4LiteSignature, AXI4Signature, AXIResp
from sim.axi_slave import AXI4SlaveModel
from sim.axil_master import AXI4LiteMasterModel


__all__ = ["SimulatorBus"]

LINE_BYTES = 64
# The member names of the two interfaces (their widths are the top's).
LITE_MEMBERS = tuple(AXI4LiteSignature(addr_width=12).members)
AXI4_MEMBERS = tuple(AXI4Signature(addr_width=32, data_width=64, id_width=1).members)


class SimulatorBus(Bus):
    """``top`` simulated, its memory ``lines`` (``{line: 512-bit int}``, empty by default).

    Parameters
    ----------
    top : AXITop
    pause : int or None
        Seed of the random back-pressure on every channel (None: none).
    latency : (int, int)
        The AXI4 slaves' response latency range, in cycles.
    errors : callable or None
        ``errors(channel, write, addr, length)``: the response (an :class:`AXIResp`) the
        memory gives a burst; None answers OKAY. The attribute may be changed between
        runs.
    """

    def __init__(self, top, *, lines=None, pause=None, latency=(2, 12), errors=None):
        self.top = top
        self.errors = errors
        self.cycles = 0                 # rising edges of aclk so far
        self.host = AXI4LiteMasterModel(_ports(top, "s_axil", LITE_MEMBERS), pause=pause)
        self.channels = len(top.master_prefixes)
        self.slaves = []
        for c, prefix in enumerate(top.master_prefixes):
            width = Shape.cast(top.signature.members[f"{prefix}_wdata"].shape).width
            self.slaves.append(AXI4SlaveModel(
                _ports(top, prefix, AXI4_MEMBERS), data_width=width, lines=lines,
                pause=pause, latency=latency, name=prefix, errors=self._errors_of(c)))
        self._command = self._answer = None
        self._sim = Simulator(top)
        self._sim.add_process(self._clock)
        for slave in self.slaves:
            self._sim.add_testbench(self._serve(slave), background=True)
        self._sim.add_testbench(self._server, background=True)
        self._call(("reset",))

    def _errors_of(self, channel):
        def errors(write, addr, length):
            if self.errors is None:
                return AXIResp.OKAY.value
            return AXIResp(self.errors(channel, write, addr, length)).value
        return errors

    async def _clock(self, ctx):
        while True:
            ctx.set(self.top.aclk, 0)
            await ctx.delay(5e-9)
            ctx.set(self.top.aclk, 1)
            self.cycles += 1
            await ctx.delay(5e-9)

    @staticmethod
    def _serve(slave):
        async def serve(ctx):
            await slave.serve(ctx)
        return serve

    async def _server(self, ctx):
        """Carries out one command at a time for the synchronous calls."""
        while True:
            if self._command is None:
                await ctx.tick()
                continue
            kind, *args = self._command
            if kind == "reset":
                ctx.set(self.top.aresetn, 0)
                await ctx.tick()
                ctx.set(self.top.aresetn, 1)
                answer = None
            elif kind == "read":
                answer = await self.host.read(ctx, args[0])
            elif kind == "write":
                answer = await self.host.write(ctx, *args)
            else:
                await ctx.tick().repeat(args[0])
                answer = None
            self._command, self._answer = None, answer

    def _call(self, command):
        self._command = command
        while self._command is not None:
            self._sim.advance()
        return self._answer

    def read32(self, offset):
        value, resp = self._call(("read", offset))
        if resp != AXIResp.OKAY:
            raise BusAccessError(f"register read at {offset:#x} answered {resp.name}")
        return int(value)

    def write32(self, offset, value):
        resp = self._call(("write", offset, value))
        if resp != AXIResp.OKAY:
            raise BusAccessError(f"register write at {offset:#x} answered {resp.name}")

    def wait(self, cycles):
        if cycles > 0:
            self._call(("wait", cycles))

    def _line(self, line):
        return self.slaves[line % self.channels].lines.get(line, 0)

    def read_memory(self, addr, count):
        first, last = addr // LINE_BYTES, (addr + count - 1) // LINE_BYTES
        raw = b"".join(self._line(k).to_bytes(LINE_BYTES, "little")
                       for k in range(first, last + 1)) if count > 0 else b""
        start = addr - first * LINE_BYTES
        return raw[start:start + count]

    def write_memory(self, addr, data):
        data = bytes(data)
        if not data:
            return
        first = addr // LINE_BYTES
        last = (addr + len(data) - 1) // LINE_BYTES
        raw = bytearray(self.read_memory(first * LINE_BYTES,
                                         (last - first + 1) * LINE_BYTES))
        start = addr - first * LINE_BYTES
        raw[start:start + len(data)] = data
        for k in range(first, last + 1):
            value = int.from_bytes(raw[(k - first) * LINE_BYTES:(k - first + 1) * LINE_BYTES],
                                   "little")
            for slave in self.slaves:
                slave.lines[k] = value

    def idle(self) -> bool:
        """No burst is in flight at any memory slave."""
        return all(slave.idle() for slave in self.slaves)


def _ports(top, prefix, members):
    """The flat ports ``<prefix>_<member>`` as an object with the members as attributes."""
    return types.SimpleNamespace(**{name: getattr(top, f"{prefix}_{name}")
                                    for name in members})
