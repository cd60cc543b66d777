"""The hubs not yet visited, a bit a vertex (Enterprise §3: a hub has out-degree above tau):
filled by the hub count before the first level, cleared by the first discovery of each hub,
which so counts every hub once towards gamma (equation 1) however many times a top-down
level finds it, and goes to the hub cache.
"""

from amaranth.hdl import C, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, is_power_of_two
from hw.lib.memory.port import WORDS_PER_LINE
from .layouts import Discovery


__all__ = ["HubBitmap", "BitmapFill", "ClaimedDiscovery"]

BitmapFill = data.StructLayout({"line": 32, "bits": WORDS_PER_LINE})
ClaimedDiscovery = data.StructLayout({"discovery": Discovery, "hub": 1})


class HubBitmap(wiring.Component):
    """``max_vertices`` bits in a block RAM of 16-bit words.

    A claim reads the word of its vertex, clears the vertex's bit (in the cycle its word
    arrives) and answers ``hub`` = 1 if it was set: the first claim of a hub since the fill.
    The read port is transparent to the write port, so claims of one word back to back see
    each other's clearing.

    Parameters
    ----------
    max_vertices : int
        A power of two, at least 16.

    Members
    -------
    fill : ``In(stream.Signature(BitmapFill))``
        Word ``line`` (vertices 16 * line ..) becomes ``bits``.
    claim : ``In(stream.Signature(Discovery))``
    claimed : ``Out(stream.Signature(ClaimedDiscovery))``
        Each claim, in order, with whether it found an unclaimed hub.
    busy : ``Out(1)``
        A claim is held, waiting to leave.
    """

    def __init__(self, *, max_vertices: int):
        if not is_power_of_two(max_vertices) or max_vertices < 16:
            raise ConfigError(f"HubBitmap: max_vertices must be a power of two of at least "
                              f"16, not {max_vertices!r}")
        self._words = max_vertices // WORDS_PER_LINE
        super().__init__({
            "fill": In(stream.Signature(BitmapFill)),
            "claim": In(stream.Signature(Discovery)),
            "claimed": Out(stream.Signature(ClaimedDiscovery)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.bits = bits = Memory(shape=WORDS_PER_LINE, depth=self._words, init=[])
        write = bits.write_port()
        read = bits.read_port(transparent_for=(write,))
        index_bits = (self._words - 1).bit_length()

        held = Signal()                    # a claim whose word is on the read port
        held_claim = Signal(Discovery)
        bit = held_claim.vertex[:4]
        is_hub = read.data.bit_select(bit, 1)
        advance = ~held | self.claimed.ready
        m.d.comb += [
            self.claim.ready.eq(advance & ~self.fill.valid),
            read.addr.eq(self.claim.payload.vertex[4:4 + index_bits]),
            read.en.eq(advance),
            self.claimed.valid.eq(held),
            self.busy.eq(held),
            self.claimed.payload.discovery.eq(held_claim),
            self.claimed.payload.hub.eq(is_hub),
        ]
        # ``fresh``: the held claim came this cycle. It clears its hub's bit then, not as it
        # leaves: the write then does not wait on ``claimed.ready`` (the discovery writer's,
        # through the control's: once the smallest build's path from the read data back into
        # it). The next claim's read comes no earlier than this one leaves, and sees the bit
        # cleared either way; the held read data stay (no read while held).
        fresh = Signal()
        with m.If(advance):
            m.d.sync += [held.eq(self.claim.valid & self.claim.ready),
                         fresh.eq(self.claim.valid & self.claim.ready),
                         held_claim.eq(self.claim.payload)]
        with m.Else():
            m.d.sync += fresh.eq(0)
        # A claim clears its vertex's bit as its word arrives, whether it was set or not
        # (clearing a clear bit changes nothing), so the write does not wait on the bit read;
        # a fill has the port else.
        with m.If(held & fresh):
            m.d.comb += [write.addr.eq(held_claim.vertex[4:4 + index_bits]),
                         write.data.eq(read.data & ~(C(1, WORDS_PER_LINE) << bit)[:WORDS_PER_LINE]),
                         write.en.eq(1)]
        with m.Elif(self.fill.valid):
            m.d.comb += [write.addr.eq(self.fill.payload.line[:index_bits]),
                         write.data.eq(self.fill.payload.bits), write.en.eq(1),
                         self.fill.ready.eq(1)]
        return m
