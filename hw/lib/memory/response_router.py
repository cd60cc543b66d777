"""A two-entry buffer that hands each memory response to the client it names, every client's
valid a flip-flop of its own."""

from amaranth.hdl import Cat, Module, Mux, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.fanout import COPY_ATTRS, lane_slices


__all__ = ["ResponseRouter", "routed_layout"]


def routed_layout(data_shape, clients: int) -> data.StructLayout:
    """A response with its destination decoded: ``clients`` is one-hot."""
    return data.StructLayout({"data": data_shape, "clients": clients})


class ResponseRouter(wiring.Component):
    """Passes responses on one cycle later, each to the output its one-hot ``clients`` names.

    Two payload registers are used in turn, loaded only by the input's handshake (their clock
    enable is ``i.valid``, the write pointer and whether one is free), so the outputs'
    ``ready`` never reaches the wide registers. Each output's ``valid`` is a register of its
    own, worked out a cycle ahead from the entry that will be at the head: a shared read
    pointer choosing every client's valid was one flip-flop fanned out to clients placed
    across the chip, and at some placements the critical path of a two-engine DepGraph on
    ECP5. ``o[k].payload`` is still the read pointer's choice of the two
    entries' data: data goes into the clients' queues, not into their control.

    Parameters
    ----------
    data_shape : shape-like
        What each response carries.
    clients : int
        Outputs.
    never_refused : bool
        The clients never refuse a response (each reserved room for it when it sent the
        read, as a range reader's window does): the outputs' ``ready`` is not used, and an
        entry leaves the cycle after it reaches the head. The ``ready`` of clients spread
        over the chip then reaches none of the router's registers (without it, every
        client's ``ready`` went into whether the head was taken and from there into every
        client's valid: at some placements the two-engine DepGraph's critical path on ECP5).
    lanes : int
        The entries' data is cut into this many lanes, each loaded and chosen under its own
        copy of the write and read pointers (:mod:`hw.lib.fanout`): the enables and the
        select of 512-bit entries are then several short nets, not one across the chip.

    Members
    -------
    i : ``In(stream.Signature(routed_layout(data_shape, clients)))``
        Responses; exactly one ``clients`` bit set.
    o : ``Out(stream.Signature(data_shape)).array(clients)``
    level : ``Out(range(3))``
        Entries held.
    """

    def __init__(self, data_shape, clients: int, *, never_refused: bool = False,
                 lanes: int = 1):
        if clients < 1:
            raise ConfigError(f"ResponseRouter: clients must be at least 1, not {clients!r}")
        check_int("ResponseRouter", "lanes", lanes)
        self._lanes = lanes
        self._layout = routed_layout(data_shape, clients)
        self._clients = clients
        self._never_refused = never_refused
        super().__init__({
            "i": In(stream.Signature(self._layout)),
            "o": Out(stream.Signature(data_shape)).array(clients),
            "level": Out(range(3)),
        })

    def _lane_data(self, m, entries, taken, given):
        """The entries' data, loaded lane by lane under each lane's own write pointer (both
        pointers toggle as ``write_index`` and ``read_index`` do); the head's data, chosen
        by each lane's read pointer."""
        data_in = Value.cast(self.i.payload.data)
        stored = [Value.cast(entry.data) for entry in entries]
        head = Signal(len(data_in))
        for k, part in enumerate(lane_slices(len(data_in), self._lanes)):
            attrs = COPY_ATTRS if self._lanes > 1 else {}
            write_index = Signal(name=f"lane{k}_write_index", attrs=attrs)
            read_index = Signal(name=f"lane{k}_read_index", attrs=attrs)
            with m.If(taken):
                m.d.sync += write_index.eq(~write_index)
            with m.If(given):
                m.d.sync += read_index.eq(~read_index)
            for index, entry in enumerate(stored):
                with m.If(taken & (write_index == index)):
                    m.d.sync += entry[part].eq(data_in[part])
            m.d.comb += head[part].eq(Mux(read_index, stored[1][part], stored[0][part]))
        return head

    def elaborate(self, platform):
        m = Module()
        entries = [Signal(self._layout, name=f"entry{k}", reset_less=True) for k in range(2)]
        write_index = Signal()
        read_index = Signal()
        full = Signal()
        nonempty = Signal()
        valid = Signal(self._clients)
        ready = Cat(output.ready for output in self.o)
        taken = self.i.valid & ~full
        # Never refused: the head is taken by its client whenever there is one.
        given = nonempty if self._never_refused else (valid & ready).any()
        m.d.comb += self.i.ready.eq(~full)
        head_data = self._lane_data(m, entries, taken, given)
        for k, output in enumerate(self.o):
            m.d.comb += [output.valid.eq(valid[k]), output.payload.eq(head_data)]
        for k, entry in enumerate(entries):
            with m.If(taken & (write_index == k)):
                m.d.sync += entry.clients.eq(self.i.payload.clients)
        with m.If(taken):
            m.d.sync += write_index.eq(~write_index)
        with m.If(given):
            m.d.sync += read_index.eq(~read_index)
        # Held after this cycle: level + taken - given, kept as two flags and a count.
        nonempty_next = Signal()
        m.d.comb += nonempty_next.eq(nonempty)
        with m.If(taken & ~given):
            m.d.comb += nonempty_next.eq(1)
            m.d.sync += [self.level.eq(self.level + 1), full.eq(self.level == 1)]
        with m.Elif(given & ~taken):
            m.d.comb += nonempty_next.eq(self.level == 2)
            m.d.sync += [self.level.eq(self.level - 1), full.eq(0)]
        m.d.sync += nonempty.eq(nonempty_next)

        # Next cycle's head: the entry the read pointer will name, as it will be (the input
        # may be loading it now, when the buffer is empty or about to be).
        clients_next = [Mux(taken & (write_index == k), self.i.payload.clients, entry.clients)
                        for k, entry in enumerate(entries)]
        head_next = Mux(read_index ^ given, clients_next[1], clients_next[0])
        m.d.sync += valid.eq(Mux(nonempty_next, head_next, 0))
        return m
