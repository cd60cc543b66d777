"""Round-robin merging of several streams into one: how DepGraph's engines share the one DDMU
(Zhang et al., HPCA 2021, §III-B: the DDMU serves every core's HDTL)."""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.stream.round_robin import RoundRobin, above, first_request


__all__ = ["StreamArbiter"]


class StreamArbiter(wiring.Component):
    """``count`` streams of ``shape`` into one, round robin, without a register stage: the
    source granted in a cycle is the first valid one after the last source served, and an
    offer not yet taken keeps its grant (the output's payload holds until the transfer).

    With ``last``, words come in packets (the flits of a large property, Graphicionado
    §IV.E) and the arbiter switches wormhole-style: a source granted a packet's first word
    keeps the output until its packet's last word has passed, waiting for it if need be.

    Parameters
    ----------
    shape : shape-like
    count : int
    last : callable or None
        Payload to a 1-bit value: the word ends its packet. None: every word does.
    registered_grant : bool
        The grant is a register, chosen a cycle ahead from the sources valid then: each
        source's ``ready`` is its grant and ``o.ready``, with no path from any ``valid``, so
        the arbiter does not join its sources' valid/ready chains into one (issue 51). A
        source that stops offering keeps the grant until another offers, so a source that
        starts while another is granted waits a cycle. Not with ``last``.

    Members
    -------
    i : ``In(stream.Signature(shape)).array(count)``
    o : ``Out(stream.Signature(shape))``
    """

    def __init__(self, shape, count: int, *, last=None, registered_grant: bool = False):
        if count < 1:
            raise ConfigError(f"StreamArbiter: count must be at least 1, not {count!r}")
        if last is not None and not callable(last):
            raise ConfigError(f"StreamArbiter: last must be a callable from payload to a "
                              f"bit, not {last!r}")
        if registered_grant and last is not None:
            raise ConfigError("StreamArbiter: registered_grant does not switch packets (last)")
        self._count = count
        self._last = last
        self._registered = bool(registered_grant)
        super().__init__({
            "i": In(stream.Signature(shape)).array(count),
            "o": Out(stream.Signature(shape)),
        })

    def elaborate(self, platform):
        m = Module()
        if self._registered:
            return self._registered_grant(m)
        n = self._count
        # As if source 0 had been served last: source 1 comes first after reset.
        m.submodules.round_robin = round_robin = RoundRobin(n, first=1 % n)
        grant = Signal(n)
        wants = Cat(source.valid for source in self.i)
        m.d.comb += [round_robin.requests.eq(wants), grant.eq(round_robin.grant)]
        held = Signal()
        held_grant = Signal(n)
        with m.If(held):
            m.d.comb += grant.eq(held_grant)
        m.d.sync += [held.eq(self.o.valid & ~self.o.ready), held_grant.eq(grant)]
        if self._last is not None:
            # Inside a packet the grant stays with its source, offering or not.
            in_packet = Signal()
            with m.If(in_packet):
                m.d.comb += grant.eq(held_grant)
            with m.If(self.o.valid & self.o.ready):
                m.d.sync += in_packet.eq(~self._last(self.o.payload))
        for s, source in enumerate(self.i):
            with m.If(grant[s]):
                m.d.comb += self.o.payload.eq(source.payload)
            m.d.comb += source.ready.eq(grant[s] & self.o.ready)
        m.d.comb += [round_robin.served.eq(grant & self.o.ready.replicate(n)),
                     self.o.valid.eq((grant & wants).any())]
        return m

    def _registered_grant(self, m):
        n = self._count
        grant = Signal(n, init=1 << (1 % n))
        wants = Cat(source.valid for source in self.i)
        for s, source in enumerate(self.i):
            with m.If(grant[s]):
                m.d.comb += self.o.payload.eq(source.payload)
            m.d.comb += source.ready.eq(grant[s] & self.o.ready)
        m.d.comb += self.o.valid.eq((grant & wants).any())
        # The next grant: the first other source offering after the one granted, unless an
        # offer waits on ``o`` (it keeps its grant) or no other source offers.
        others = Signal(n)
        m.d.comb += others.eq(wants & ~grant)
        following = first_request(m, others, above(grant), "next")
        with m.If(~(self.o.valid & ~self.o.ready) & others.any()):
            m.d.sync += grant.eq(following)
        return m
