"""An AXI4 slave memory for unit tests of AXI masters in Amaranth's simulator.

:class:`AXI4SlaveModel` serves one AXI4 interface (the master's ``Out(AXI4Signature)``) from
a memory of 64-byte lines (``{line address: 512-bit int}``, byte ``i`` of a line at bits
``8*i``), in one async testbench:

* ``awready``, ``wready`` and ``arready`` are dropped at random (``pause``: a seed; ``None``:
  always ready); write data may be taken before its address;
* every burst is answered after a random latency; R beats of bursts with different IDs
  come back in any order, interleaved beat by beat (``reorder``), one ID's bursts in the
  order sent; B responses likewise; with ``pause`` R and B beats are also withheld at
  random;
* each read burst takes its data from memory either when its address is taken or when its
  first beat is sent, and each write burst lands either beat by beat as its data is taken
  or all at once when its response is sent (a random choice per burst; one ID's writes land
  in the order sent, as AXI orders them), so a master that lets a read and an overlapping
  write pass each other is caught either way;
* ``errors(write, addr, length)`` may answer a burst with SLVERR or DECERR (on every beat of
  a read; a write's data is then not written);
* it checks the master's side of the protocol and fails (``AssertionError`` naming the rule
  and the cycle): valid held until ready and the payload stable while held on AW, W and AR;
  INCR bursts of the bus's full width, aligned, at most 256 beats, never across a 4 KiB
  boundary; ``wlast`` on a burst's last beat and nowhere else (W beats = ``awlen + 1``).

``log`` records what was seen: every burst (``bursts``: ``("aw"|"ar", id, addr, len)``, and
in ``cycles`` the cycle it was taken), every error response taken (``errors``: ``(cycle,
"r"|"b", burst address, response)``), the most reads and writes in flight, how many R beats
overtook an older burst of another ID and how many came while another burst was half sent.
"""

import collections
import random

from hw.lib.axi.signature import AXIResp


__all__ = ["AXI4SlaveModel"]

OKAY = AXIResp.OKAY.value


class AXI4SlaveModel:
    def __init__(self, axi, *, data_width, lines=None, pause=None, p_pause=0.3,
                 latency=(2, 12), reorder=True, errors=None, name="axi"):
        self.axi = axi
        self.bytes = data_width // 8
        self.lines = dict(lines or {})
        self.rng = random.Random(f"{pause}/{name}")
        self.p_pause = 0.0 if pause is None else p_pause
        self.latency = latency
        self.reorder = reorder
        self.errors = errors or (lambda write, addr, length: OKAY)
        self.cycle = 0
        self.aw = collections.deque()       # write bursts whose data is not all in
        self.w = collections.deque()        # W beats taken before their address: (data, strb, last)
        self.b = []                         # bursts waiting for their B
        self.r = []                         # read bursts being answered, oldest first
        self.r_offer = self.b_offer = None
        self.log = {"bursts": [], "cycles": [], "errors": [], "max_reads": 0,
                    "max_writes": 0, "overtakes": 0, "interleaved": 0}
        self._held = {}
        self._last_r = None

    # Memory.
    def read_beat(self, addr):
        line, offset = divmod(addr, 64)
        word = self.lines.get(line, 0) >> (8 * offset)
        return word & ((1 << (8 * self.bytes)) - 1)

    def write_beat(self, addr, data, strb):
        line, offset = divmod(addr, 64)
        value = self.lines.get(line, 0)
        for byte in range(self.bytes):
            if strb >> byte & 1:
                shift = 8 * (offset + byte)
                value = value & ~(0xFF << shift) | ((data >> (8 * byte)) & 0xFF) << shift
        self.lines[line] = value

    def fail(self, message):
        raise AssertionError(f"AXI slave model, cycle {self.cycle}: {message}")

    # The testbench.
    async def serve(self, ctx):
        axi = self.axi
        while True:
            for ready in (axi.awready, axi.wready, axi.arready):
                ctx.set(ready, self.rng.random() >= self.p_pause)
            self._offer_b(ctx)
            self._offer_r(ctx)
            self._check_held(ctx)
            self._take_aw(ctx)
            self._take_w(ctx)
            self._take_ar(ctx)
            self._complete_r(ctx)
            self._complete_b(ctx)
            self.log["max_reads"] = max(self.log["max_reads"], len(self.r))
            self.log["max_writes"] = max(self.log["max_writes"], len(self.aw) + len(self.b))
            await ctx.tick()
            self.cycle += 1

    def _due(self):
        return self.cycle + self.rng.randint(*self.latency)

    def _check_held(self, ctx):
        """AW, W, AR: a valid not taken at the last edge is still there, payload unchanged."""
        axi = self.axi
        for channel, names in (("aw", ("awid", "awaddr", "awlen", "awsize", "awburst")),
                               ("w", ("wdata", "wstrb", "wlast")),
                               ("ar", ("arid", "araddr", "arlen", "arsize", "arburst"))):
            valid = ctx.get(getattr(axi, f"{channel}valid"))
            payload = tuple(_int(ctx.get(getattr(axi, name))) for name in names)
            held = self._held.get(channel)
            if held is not None and (not valid or payload != held):
                self.fail(f"{channel.upper()} offered {dict(zip(names, held))} and "
                          + ("withdrew valid" if not valid else f"changed it to "
                             f"{dict(zip(names, payload))}") + " before it was taken")
            ready = ctx.get(getattr(axi, f"{channel}ready"))
            self._held[channel] = payload if valid and not ready else None

    def _check_burst(self, kind, addr, length, size, burst):
        if burst != 1:
            self.fail(f"{kind} burst type {burst}, not INCR")
        if 1 << size != self.bytes:
            self.fail(f"{kind} size {size}: {1 << size} bytes a beat on a "
                      f"{self.bytes}-byte bus")
        if addr % self.bytes:
            self.fail(f"{kind} address {addr:#x} not aligned to the beat")
        if addr // 4096 != (addr + (length + 1) * self.bytes - 1) // 4096:
            self.fail(f"{kind} burst at {addr:#x} of {length + 1} beats crosses 4 KiB")

    def _take_address(self, ctx, channel: str):
        """The burst an address channel (``"aw"`` or ``"ar"``) hands over this cycle, as
        ``(id, addr, len)`` checked and logged; None without a handshake."""
        def get(member):
            return ctx.get(getattr(self.axi, channel + member))
        if not (get("valid") and get("ready")):
            return None
        ident, addr, length = get("id"), get("addr"), get("len")
        self._check_burst(channel.upper(), addr, length, get("size"), _int(get("burst")))
        self.log["bursts"].append((channel, ident, addr, length))
        self.log["cycles"].append(self.cycle)
        return ident, addr, length

    def _take_aw(self, ctx):
        taken = self._take_address(ctx, "aw")
        if taken is not None:
            ident, addr, length = taken
            self.aw.append({"id": ident, "addr": addr, "len": length, "beats": [],
                            "late": self.rng.random() < 0.5,
                            "resp": self.errors(True, addr, length)})
            self._match_w()

    def _take_w(self, ctx):
        axi = self.axi
        if ctx.get(axi.wvalid) and ctx.get(axi.wready):
            self.w.append((ctx.get(axi.wdata), ctx.get(axi.wstrb), ctx.get(axi.wlast)))
            self._match_w()

    def _match_w(self):
        """W beats go to the oldest write burst whose data is not all in."""
        while self.w and self.aw:
            burst = self.aw[0]
            data, strb, last = self.w.popleft()
            index = len(burst["beats"])
            if bool(last) != (index == burst["len"]):
                self.fail(f"wlast={last} on beat {index} of a burst of {burst['len'] + 1} "
                          f"beats at {burst['addr']:#x}")
            burst["beats"].append((data, strb))
            if not burst["late"] and burst["resp"] == OKAY:
                # AXI keeps one ID's writes in order: older ones land first.
                for older in self.b:
                    if older["id"] == burst["id"]:
                        self._land(older)
                self.write_beat(burst["addr"] + index * self.bytes, data, strb)
            if last:
                self.aw.popleft()
                burst["due"] = self._due()
                self.b.append(burst)

    def _take_ar(self, ctx):
        taken = self._take_address(ctx, "ar")
        if taken is not None:
            ident, addr, length = taken
            burst = {"id": ident, "addr": addr, "len": length, "sent": 0, "due": self._due(),
                     "resp": self.errors(False, addr, length), "data": None}
            if self.rng.random() < 0.5:
                burst["data"] = self._capture(burst)
            self.r.append(burst)

    def _capture(self, burst):
        return [self.read_beat(burst["addr"] + k * self.bytes) for k in range(burst["len"] + 1)]

    def _heads(self, bursts):
        """The oldest burst of each ID among ``bursts`` that is due."""
        seen, heads = set(), []
        for burst in bursts:
            if burst["id"] not in seen and burst["due"] <= self.cycle:
                heads.append(burst)
            seen.add(burst["id"])
        return heads

    def _pick(self, bursts):
        heads = self._heads(bursts)
        if not heads or self.rng.random() < self.p_pause:
            return None
        return self.rng.choice(heads) if self.reorder else \
            (heads[0] if heads[0] is bursts[0] else None)

    def _offer_r(self, ctx):
        axi = self.axi
        if self.r_offer is None:
            self.r_offer = self._pick(self.r)
            if self.r_offer is not None and self.r_offer["data"] is None:
                self.r_offer["data"] = self._capture(self.r_offer)
        burst = self.r_offer
        ctx.set(axi.rvalid, burst is not None)
        if burst is not None:
            ctx.set(axi.rid, burst["id"])
            ctx.set(axi.rdata, burst["data"][burst["sent"]])
            ctx.set(axi.rresp, AXIResp(burst["resp"]))
            ctx.set(axi.rlast, burst["sent"] == burst["len"])

    def _complete_r(self, ctx):
        burst = self.r_offer
        if burst is None or not ctx.get(self.axi.rready):
            return
        if self.r.index(burst) > 0:
            self.log["overtakes"] += 1
        if self._last_r is not None and self._last_r is not burst and \
                self._last_r in self.r:
            self.log["interleaved"] += 1
        self._last_r = burst
        if burst["resp"] != OKAY:
            self.log["errors"].append((self.cycle, "r", burst["addr"], burst["resp"]))
        burst["sent"] += 1
        if burst["sent"] > burst["len"]:
            self.r.remove(burst)
        self.r_offer = None

    def _offer_b(self, ctx):
        axi = self.axi
        if self.b_offer is None:
            self.b_offer = self._pick(self.b)
        burst = self.b_offer
        ctx.set(axi.bvalid, burst is not None)
        if burst is not None:
            ctx.set(axi.bid, burst["id"])
            ctx.set(axi.bresp, AXIResp(burst["resp"]))

    def _complete_b(self, ctx):
        burst = self.b_offer
        if burst is None or not ctx.get(self.axi.bready):
            return
        if burst["resp"] != OKAY:
            self.log["errors"].append((self.cycle, "b", burst["addr"], burst["resp"]))
        self._land(burst)
        self.b.remove(burst)
        self.b_offer = None

    def _land(self, burst):
        """A late write burst's data lands (once)."""
        if burst["late"] and burst["resp"] == OKAY:
            for index, (data, strb) in enumerate(burst["beats"]):
                self.write_beat(burst["addr"] + index * self.bytes, data, strb)
        burst["late"] = False

    def idle(self):
        return not (self.aw or self.w or self.b or self.r)


def _int(value):
    return value.value if hasattr(value, "value") else int(value)
