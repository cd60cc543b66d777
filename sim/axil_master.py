"""An AXI4-Lite master for tests of register slaves in Amaranth's simulator.

:class:`AXI4LiteMasterModel` drives the host's side of an AXI4-Lite interface (the slave's
``In(AXI4LiteSignature)``) from async testbenches: :meth:`write` and :meth:`read` each do
one transfer and return its response. With ``pause`` (a seed) every ``valid`` is raised
after a random delay (then held until taken, as AXI requires) and ``bready``/``rready`` are
dropped at random cycles; with ``pause=None`` neither ever waits. Writes and reads use
separate channels and generators, so one process may write while another reads.

It checks the slave's side of the rules it can see: ``bvalid`` and ``rvalid`` held, with
their payload, until taken.
"""

import random

from hw.lib.axi.signature import AXIResp


__all__ = ["AXI4LiteMasterModel"]


class AXI4LiteMasterModel:
    def __init__(self, axil, *, pause=None, p_pause=0.3, max_delay=3, name="axil"):
        self.axil = axil
        self.p_pause = 0.0 if pause is None else p_pause
        self.max_delay = 0 if pause is None else max_delay
        self.write_rng = random.Random(f"{pause}/{name}/write")
        self.read_rng = random.Random(f"{pause}/{name}/read")
        self.cycles = 0

    def _delay(self, rng):
        return rng.randint(0, self.max_delay) if self.max_delay else 0

    async def write(self, ctx, addr, data, strb=0xF):
        """One write; returns its ``bresp`` (an :class:`AXIResp`)."""
        axil, rng = self.axil, self.write_rng
        aw_wait, w_wait = self._delay(rng), self._delay(rng)
        aw_done = w_done = False
        held = None
        ctx.set(axil.awaddr, addr)
        ctx.set(axil.wdata, data)
        ctx.set(axil.wstrb, strb)
        while True:
            ctx.set(axil.awvalid, not aw_done and aw_wait <= 0)
            ctx.set(axil.wvalid, not w_done and w_wait <= 0)
            ready = rng.random() >= self.p_pause
            ctx.set(axil.bready, ready)
            _, _, awvalid, awready, wvalid, wready, bvalid, bresp = await ctx.tick().sample(
                axil.awvalid, axil.awready, axil.wvalid, axil.wready, axil.bvalid, axil.bresp)
            aw_done |= bool(awvalid and awready)
            w_done |= bool(wvalid and wready)
            aw_wait, w_wait = aw_wait - 1, w_wait - 1
            if held is not None and held != bresp:
                raise AssertionError(f"AXI-Lite slave changed bresp from {held} to {bresp} "
                                     f"before it was taken")
            if bvalid:
                if not (aw_done and w_done):
                    raise AssertionError("AXI-Lite slave answered B before taking AW and W")
                if ready:
                    break
                held = bresp
        ctx.set(axil.awvalid, 0)
        ctx.set(axil.wvalid, 0)
        ctx.set(axil.bready, 0)
        return AXIResp(_int(bresp))

    async def read(self, ctx, addr):
        """One read; returns ``(rdata, rresp)``."""
        axil, rng = self.axil, self.read_rng
        ar_wait = self._delay(rng)
        ar_done = False
        held = None
        ctx.set(axil.araddr, addr)
        while True:
            ctx.set(axil.arvalid, not ar_done and ar_wait <= 0)
            ready = rng.random() >= self.p_pause
            ctx.set(axil.rready, ready)
            _, _, arvalid, arready, rvalid, rdata, rresp = await ctx.tick().sample(
                axil.arvalid, axil.arready, axil.rvalid, axil.rdata, axil.rresp)
            ar_done |= bool(arvalid and arready)
            ar_wait -= 1
            if held is not None and held != (rdata, rresp):
                raise AssertionError(f"AXI-Lite slave changed R from {held} to "
                                     f"{(rdata, rresp)} before it was taken")
            if rvalid:
                if not ar_done:
                    raise AssertionError("AXI-Lite slave answered R before taking AR")
                if ready:
                    break
                held = (rdata, rresp)
        ctx.set(axil.arvalid, 0)
        ctx.set(axil.rready, 0)
        return rdata, AXIResp(_int(rresp))


def _int(value):
    return value.value if hasattr(value, "value") else int(value)
