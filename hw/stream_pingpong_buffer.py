"""A two-entry stream buffer whose wide registers are clocked by the input side only."""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out


__all__ = ["StreamPingPongBuffer"]


class StreamPingPongBuffer(wiring.Component):
    """Passes a stream on one cycle later through two payload registers used in turn.

    Like a two-entry FIFO, ``i.ready`` and ``o.valid`` are registers. Unlike a register slice,
    whose output register is loaded when ``o.ready`` allows, an entry is loaded only by the
    input's handshake (its clock enable is ``i.valid``, the write pointer and whether it is
    free, all but ``i.valid`` registers), and ``o.ready`` moves only the read pointer and the
    count. ``o.payload`` is the read pointer's choice of the two (one multiplexer level).
    For a wide payload fanned out to consumers spread over a chip whose ``ready`` arrives late:
    a slice's clock enable would carry their ``ready`` to every payload bit.

    Parameters
    ----------
    shape : shape-like
        Payload shape.

    Members
    -------
    i : ``In(stream.Signature(shape))``
    o : ``Out(stream.Signature(shape))``
    level : ``Out(range(3))``
        Entries held.
    """

    def __init__(self, shape):
        self._shape = shape
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)),
            "level": Out(range(3)),
        })

    def elaborate(self, platform):
        m = Module()
        entries = [Signal(self._shape, name=f"entry{k}", reset_less=True) for k in range(2)]
        write_index = Signal()
        read_index = Signal()
        full = Signal()
        nonempty = Signal()
        taken = self.i.valid & ~full
        given = nonempty & self.o.ready
        m.d.comb += [
            self.i.ready.eq(~full),
            self.o.valid.eq(nonempty),
            self.o.payload.eq(Mux(read_index, entries[1], entries[0])),
        ]
        for k, entry in enumerate(entries):
            with m.If(taken & (write_index == k)):
                m.d.sync += entry.eq(self.i.payload)
        with m.If(taken):
            m.d.sync += write_index.eq(~write_index)
        with m.If(given):
            m.d.sync += read_index.eq(~read_index)
        # Held after this cycle: level + taken - given, kept as two flags and a count.
        with m.If(taken & ~given):
            m.d.sync += [self.level.eq(self.level + 1), nonempty.eq(1),
                         full.eq(self.level == 1)]
        with m.Elif(given & ~taken):
            m.d.sync += [self.level.eq(self.level - 1), full.eq(0),
                         nonempty.eq(self.level == 2)]
        return m
