"""A register slice between two stream interfaces: both directions registered, full rate.

Graphicionado's stages are joined by small FIFOs (Ham et al. §3.2); where a FIFO is wide and
spread over the chip (a queue of 512-bit lines), its read enable, coming from the consumer's
decision, crosses the chip and then its pointer logic. A register slice after such a queue
drives the queue's read enable from a flip-flop.
"""

from amaranth.hdl import Module, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.fanout import COPY_ATTRS, lane_slices


__all__ = ["StreamRegisterSlice"]


class StreamRegisterSlice(wiring.Component):
    """Passes a stream on one cycle later, with ``i.ready`` and ``o.valid`` both registers.

    It holds up to two payloads: the one offered on ``o``, and one taken while ``o`` was
    stalled (the skid register), so a transfer every cycle is kept up through the slice.

    Parameters
    ----------
    shape : shape-like
        Payload shape.
    skid : bool
        False: no skid register; only ``o.valid`` and ``o.payload`` are registers and
        ``i.ready`` is ``o.ready`` or an empty output register (a combinational path back
        through the slice), at one register per payload bit instead of two and a
        multiplexer. For a wide payload whose forward path is the long one.
    lanes : int
        The payload's bits are cut into this many lanes, each loaded under its own copy of
        the slice's state (:mod:`hw.lib.fanout`): the load enable of a 512-bit slice is then
        several short nets instead of one that spans the chip. Lane 0's state drives
        ``i.ready`` and ``o.valid``; behaviour does not depend on the number of lanes.

    Members
    -------
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape))``
    """

    def __init__(self, shape, *, skid: bool = True, lanes: int = 1):
        if not isinstance(skid, bool):
            raise ConfigError(f"StreamRegisterSlice: skid must be True or False, not {skid!r}")
        check_int("StreamRegisterSlice", "lanes", lanes)
        self._shape = shape
        self._skid = skid
        self._lanes = lanes
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)),
        })

    def _lane_state(self, name):
        """One register of the slice's state per lane (copies when there are several)."""
        attrs = COPY_ATTRS if self._lanes > 1 else {}
        return [Signal(name=f"{name}{k}" if self._lanes > 1 else name, attrs=attrs)
                for k in range(self._lanes)]

    def elaborate(self, platform):
        m = Module()
        out = Signal(self._shape, name="out", reset_less=True)
        m.d.comb += self.o.payload.eq(out)
        payload, out = Value.cast(self.i.payload), Value.cast(out)
        lanes = lane_slices(len(out), self._lanes)
        if not self._skid:
            return self._forward_only(m, payload, out, lanes)
        skid = Value.cast(Signal(self._shape, name="skid", reset_less=True))
        skid_valid, out_valid = self._lane_state("skid_valid"), self._lane_state("out_valid")
        m.d.comb += [self.i.ready.eq(~skid_valid[0]), self.o.valid.eq(out_valid[0])]
        for part, skid_held, out_held in zip(lanes, skid_valid, out_valid):
            with m.If(self.o.ready | ~out_held):
                # The output register is free next cycle: the skid first, else the input.
                with m.If(skid_held):
                    m.d.sync += [out[part].eq(skid[part]), out_held.eq(1), skid_held.eq(0)]
                with m.Else():
                    m.d.sync += [out[part].eq(payload[part]), out_held.eq(self.i.valid)]
            with m.Elif(self.i.valid & ~skid_held):
                m.d.sync += [skid[part].eq(payload[part]), skid_held.eq(1)]
        return m

    def _forward_only(self, m, payload, out, lanes):
        out_valid = self._lane_state("out_valid")
        m.d.comb += [self.i.ready.eq(self.o.ready | ~out_valid[0]),
                     self.o.valid.eq(out_valid[0])]
        for part, out_held in zip(lanes, out_valid):
            with m.If(self.o.ready | ~out_held):
                m.d.sync += [out[part].eq(payload[part]), out_held.eq(self.i.valid)]
        return m
