"""Paired source updates for the symmetric-graph optimisation's duplicated update path
(Graphicionado §IV.D): the u updates of two consecutive edges of one source are reduced
with each other before they reach the scratchpad, so a source's run of edges makes half as
many updates of its one vertex, each of which must wait for the one before in Atomic
Update (a Reduce's latency)."""

from amaranth.hdl import Array, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.arith.fp32_vector import FP32Lanes, lanes_layout
from hw.lib.config import ConfigError
from .layouts import flit_index_width, update_flit, update_pair


__all__ = ["SourceUpdatePairing", "OwnerUpdatePairing"]


class SourceUpdatePairing(wiring.Component):
    """The rule of ``golden.graphicionado.execute_symmetric(paired_runs=True)``, applied to
    each edge's pair of update packets as it passes: v's packet leaves unchanged; u's is
    held while the edge's source has no partner yet, and the next edge releases it, added
    lane by lane to that edge's u packet when it is of the same source (and neither is a
    self-loop), alone otherwise. ``flush`` releases a held packet alone when no edge comes
    (the processing phase has no more). Every flit passes an FP32 adder (the Reduce's),
    held and released words beside it, so the output keeps the input's order.

    With ``across_gaps`` (the second level of ``paired_runs`` = 2, for packets that have
    been paired once) an input without a u packet neither pairs nor releases: the held packet
    waits for the next u packet, joining it (same vertex) or leaving before it.

    Parameters
    ----------
    lanes, flits, owner_bits : int
        As :func:`update_pair`.
    across_gaps : bool

    Members
    -------
    i : ``In(stream.Signature(update_pair(lanes, flits, owner_bits)))``
        Each edge's two packets, flit by flit; ``u_valid`` low for a self-loop, ``v_valid``
        low for a packet a level before released alone (across gaps).
    o : ``Out(stream.Signature(update_pair(...)))``
        ``u`` the released packet, ``u_valid`` whether there is one; ``v_valid`` low for a
        flushed packet.
    flush : ``In(1)``
        No edge will come: release a held packet.
    busy : ``Out(1)``
        A packet is held, or a flit is in the adder.
    """

    def __init__(self, *, lanes: int, flits: int, owner_bits: int = 0,
                 across_gaps: bool = False):
        self._lanes, self._flits, self._owner_bits = lanes, flits, owner_bits
        self._across_gaps = across_gaps
        self._pair = update_pair(lanes, flits, owner_bits)
        self._tag = data.StructLayout({
            "v": update_flit(lanes, flits, owner_bits), "v_valid": 1,
            "u_dst": 32, "u_owner": max(1, owner_bits), "flit": flit_index_width(flits),
            "emit": 1, "use_sum": 1, "held": lanes_layout(lanes)})
        self._adder = FP32Lanes("add", lanes, tag_width=self._tag.size, lzc_stage=True)
        super().__init__({
            "i": In(stream.Signature(self._pair)),
            "o": Out(stream.Signature(self._pair)),
            "flush": In(1), "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.adder = adder = self._adder
        pair = self.i.payload
        flits = self._flits
        held = Array(Signal(lanes_layout(self._lanes), name=f"held{f}") for f in range(flits))
        held_valid = Signal()
        held_dst, held_owner = Signal(32), Signal(max(1, self._owner_bits))
        flushing = Signal()
        flush_flit = Signal(range(flits))
        in_packet = Signal()                # flit 0 of an edge taken, its last not yet

        # The edge's decision, made at its first flit and kept for the rest.
        same_now = held_valid & pair.u_valid & (held_dst == pair.u.dst)
        if self._owner_bits:
            same_now &= held_owner == pair.u.owner
        same_kept, emit_kept = Signal(), Signal()
        first = pair.v.flit == 0
        same = Mux(first, same_now, same_kept)
        emit = Mux(first, held_valid & (pair.u_valid if self._across_gaps else 1), emit_kept)
        hold = pair.u_valid & ~same
        # Across gaps, an input without u keeps the held packet.
        keep = held_valid & ~pair.u_valid if self._across_gaps else 0

        tag = data.View(self._tag, adder.i.payload.tag)
        start_flush = self.flush & held_valid & ~in_packet & ~self.i.valid & ~flushing
        with m.If(start_flush):
            m.d.sync += [flushing.eq(1), flush_flit.eq(0)]
        flit = Mux(flushing, flush_flit, pair.v.flit)
        m.d.comb += [
            adder.i.payload.a.eq(held[flit]),
            adder.i.payload.b.eq(pair.u.value),
            tag.v.eq(pair.v), tag.v_valid.eq(~flushing & pair.v_valid),
            tag.u_dst.eq(held_dst), tag.u_owner.eq(held_owner), tag.flit.eq(flit),
            tag.emit.eq(flushing | emit), tag.use_sum.eq(~flushing & same),
            tag.held.eq(held[flit]),
            adder.i.valid.eq(flushing | self.i.valid),
            self.i.ready.eq(adder.i.ready & ~flushing),
        ]
        taken = self.i.valid & self.i.ready
        last = pair.v.flit == flits - 1
        with m.If(taken):
            m.d.sync += [same_kept.eq(same), emit_kept.eq(emit), in_packet.eq(~last)]
            with m.If(hold):
                m.d.sync += held[pair.v.flit].eq(pair.u.value)
            with m.If(last):
                m.d.sync += held_valid.eq(hold | keep)
                with m.If(hold):
                    m.d.sync += held_dst.eq(pair.u.dst)
                    if self._owner_bits:
                        m.d.sync += held_owner.eq(pair.u.owner)
        with m.If(flushing & adder.i.ready):
            m.d.sync += flush_flit.eq(flush_flit + 1)
            with m.If(flush_flit == flits - 1):
                m.d.sync += [flushing.eq(0), held_valid.eq(0)]
        in_adder = self._output(m, adder)
        m.d.comb += self.busy.eq(held_valid | flushing | (in_adder != 0))
        return m

    def _output(self, m, adder):
        """The adder's results as update pairs. Returns the count of flits in the adder."""
        tag = data.View(self._tag, adder.o.payload.tag)
        out = self.o.payload
        m.d.comb += [
            self.o.valid.eq(adder.o.valid), adder.o.ready.eq(self.o.ready),
            out.v.eq(tag.v), out.v_valid.eq(tag.v_valid),
            out.u.dst.eq(tag.u_dst), out.u.flit.eq(tag.flit),
            out.u.value.eq(Mux(tag.use_sum, adder.o.payload.result, tag.held)),
            out.u_valid.eq(tag.emit),
        ]
        if self._owner_bits:
            m.d.comb += out.u.owner.eq(tag.u_owner)
        in_adder = Signal(8)
        m.d.sync += in_adder.eq(in_adder + (adder.i.valid & adder.i.ready) -
                                (adder.o.valid & adder.o.ready))
        return in_adder


class OwnerUpdatePairing(SourceUpdatePairing):
    """The pairing over several destination streams, for one-flit packets: one held u packet
    per owner stream, so that a source's updates pair although the crossbar interleaves its
    edges with other sources' (u's owner is its source stream when n = m). Each packet pairs
    with the next one for its owner, across inputs without one (as ``across_gaps``); ``flush``
    releases the held packets one owner after another. The order of a vertex's updates then
    depends on the crossbar's timing, as the update network's does: such runs are checked
    within a bound, not bit for bit.

    Parameters
    ----------
    lanes : int
    owner_bits : int
        log2 of the destination streams (at least 1).

    Members
    -------
    As :class:`SourceUpdatePairing`.
    """

    def __init__(self, *, lanes: int, owner_bits: int):
        if owner_bits < 1:
            raise ConfigError(f"OwnerUpdatePairing: owner_bits must be at least 1, not "
                              f"{owner_bits!r}")
        super().__init__(lanes=lanes, flits=1, owner_bits=owner_bits, across_gaps=True)

    def elaborate(self, platform):
        m = Module()
        m.submodules.adder = adder = self._adder
        pair = self.i.payload
        owners = 1 << self._owner_bits
        held = Array(Signal(lanes_layout(self._lanes), name=f"held{k}") for k in range(owners))
        held_valid = Signal(owners)
        held_dst = Array(Signal(32, name=f"held_dst{k}") for k in range(owners))
        flushing = Signal()
        slot = Signal(self._owner_bits)     # the owner flushed
        owner = Mux(flushing, slot, pair.u.owner)
        mine = held_valid.bit_select(owner, 1)
        same = mine & pair.u_valid & (held_dst[owner] == pair.u.dst)

        tag = data.View(self._tag, adder.i.payload.tag)
        with m.If(self.flush & held_valid.any() & ~self.i.valid & ~flushing):
            m.d.sync += [flushing.eq(1), slot.eq(0)]
        m.d.comb += [
            adder.i.payload.a.eq(held[owner]), adder.i.payload.b.eq(pair.u.value),
            tag.v.eq(pair.v), tag.v_valid.eq(~flushing & pair.v_valid),
            tag.u_dst.eq(held_dst[owner]), tag.u_owner.eq(owner), tag.flit.eq(0),
            tag.emit.eq(mine & (flushing | pair.u_valid)), tag.use_sum.eq(~flushing & same),
            tag.held.eq(held[owner]),
            adder.i.valid.eq(Mux(flushing, mine, self.i.valid)),
            self.i.ready.eq(adder.i.ready & ~flushing),
        ]
        with m.If(self.i.valid & self.i.ready & pair.u_valid):
            with m.If(same):
                m.d.sync += held_valid.bit_select(owner, 1).eq(0)
            with m.Else():
                m.d.sync += [held_valid.bit_select(owner, 1).eq(1), held[owner].eq(pair.u.value),
                             held_dst[owner].eq(pair.u.dst)]
        with m.If(flushing & (adder.i.ready | ~mine)):
            m.d.sync += [held_valid.bit_select(owner, 1).eq(0), slot.eq(slot + 1)]
            with m.If(slot == owners - 1):
                m.d.sync += flushing.eq(0)
        in_adder = self._output(m, adder)
        m.d.comb += self.busy.eq(held_valid.any() | flushing | (in_adder != 0))
        return m
