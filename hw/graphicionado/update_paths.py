"""The symmetric-graph optimisation's duplicated update path (Graphicionado §IV.D, stages
P5–P9 twice): the two update packets of an edge, made in the same cycles, go to the two
update paths, each owning half of the destination stream's scratchpad.

:class:`UpdatePathSplit` hands each packet to the path that owns its vertex, in edge order
(one destination stream); :class:`UpdatePairUnzip` makes the pair two streams for the update
network (several destination streams).
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import check_int
from hw.lib.stream.fifo import StreamFIFO
from .layouts import update_flit, update_pair


__all__ = ["UpdatePathSplit", "UpdatePairUnzip"]

# Which packets of an edge a path takes, v's first.
_Takes = data.StructLayout({"v": 1, "u": 1})


class UpdatePathSplit(wiring.Component):
    """Each update packet of an edge to the update path that owns its vertex, each path's
    packets in edge order, an edge's v packet before its u packet.

    Path ``p`` owns the scratchpad indexes ``i`` with ``i & 1 == p`` (an update's ``dst``),
    so the two paths never reduce into one word. Each takes its packets in the order one path
    would: the order ``golden.graphicionado.execute_symmetric`` reduces in, so the float32
    sums are the same bit for bit. Per path there is a queue of v's flits, one of u's and one
    of the edges that have a packet for it (which ones). A pair flit is taken when the queues
    it goes to have room; an edge whose two packets go to one path takes that path
    ``2 * flits`` cycles, which the queues absorb while the other path works ahead. A queue
    of flits holds at least a packet, so a path never waits on a packet that cannot enter.

    Parameters
    ----------
    lanes, flits : int
        An update flit's words and a packet's flits (:func:`update_flit`).
    depth : int
        Packets each flit queue holds (edges the queue of edges holds: twice as many).

    Members
    -------
    i : ``In(stream.Signature(update_pair(lanes, flits)))``
    o : ``Out(stream.Signature(update_flit(lanes, flits))).array(2)``
        Path ``p``'s packets; ``dst`` unchanged (its bit 0 is ``p``).
    busy : ``Out(1)``
        A flit is held.
    """

    def __init__(self, *, lanes: int, flits: int, depth: int = 4):
        check_int("UpdatePathSplit", "depth", depth, low=1, high=64)
        self._flit = update_flit(lanes, flits)
        self._flits = flits
        self._depth = depth
        super().__init__({
            "i": In(stream.Signature(update_pair(lanes, flits))),
            "o": Out(stream.Signature(self._flit)).array(2),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        pair = self.i.payload
        queues = {}
        for path in range(2):
            for end in ("v", "u"):
                queues[end, path] = m.submodules[f"{end}{path}"] = StreamFIFO(
                    self._flit, self._depth * self._flits)
            queues["edges", path] = m.submodules[f"edges{path}"] = StreamFIFO(
                _Takes, 2 * self._depth)
        v_path, u_path = pair.v.dst[0], pair.u.dst[0]
        first = pair.u.flit == 0
        takes = [Signal(_Takes, name=f"takes{path}") for path in range(2)]
        m.d.comb += [takes[path].eq(Cat(pair.v_valid & (v_path == path),
                                        pair.u_valid & (u_path == path)))
                     for path in range(2)]
        room = Signal()
        m.d.comb += room.eq(
            (~pair.v_valid | Mux(v_path, queues["v", 1].i.ready, queues["v", 0].i.ready)) &
            (~pair.u_valid | Mux(u_path, queues["u", 1].i.ready, queues["u", 0].i.ready)) &
            (~first | ((queues["edges", 0].i.ready | ~takes[0].as_value().any()) &
                       (queues["edges", 1].i.ready | ~takes[1].as_value().any()))))
        push = self.i.valid & room
        m.d.comb += self.i.ready.eq(room)
        for path in range(2):
            m.d.comb += [
                queues["v", path].i.valid.eq(push & takes[path].v),
                queues["v", path].i.payload.eq(pair.v),
                queues["u", path].i.valid.eq(push & takes[path].u),
                queues["u", path].i.payload.eq(pair.u),
                queues["edges", path].i.valid.eq(push & first & takes[path].as_value().any()),
                queues["edges", path].i.payload.eq(takes[path]),
            ]
            self._path_output(m, self.o[path], queues["edges", path].o, queues["v", path].o,
                              queues["u", path].o, f"path{path}_u")
        m.d.comb += self.busy.eq(any_busy(queue.o.valid for queue in queues.values()))
        return m

    def _path_output(self, m, out, edges, v_flits, u_flits, name):
        """A path's packets: for each edge in its queue, v's packet if it takes one, then
        u's."""
        in_u = Signal(name=name)            # the edge's v packet, if any, has left
        use_u = in_u | ~edges.payload.v
        source = stream.Signature(self._flit).create()
        m.d.comb += [
            source.valid.eq(Mux(use_u, u_flits.valid, v_flits.valid)),
            source.payload.eq(Mux(use_u, u_flits.payload, v_flits.payload)),
            out.valid.eq(edges.valid & source.valid),
            out.payload.eq(source.payload),
            v_flits.ready.eq(edges.valid & out.ready & ~use_u),
            u_flits.ready.eq(edges.valid & out.ready & use_u),
        ]
        last = source.payload.flit == self._flits - 1
        with m.If(out.valid & out.ready & last):
            with m.If(~use_u & edges.payload.u):
                m.d.sync += in_u.eq(1)
            with m.Else():
                m.d.sync += in_u.eq(0)
                m.d.comb += edges.ready.eq(1)


class UpdatePairUnzip(wiring.Component):
    """An edge's two update packets as two streams, v's and u's, for the update network
    (several destination streams, §IV.D); a part that is not an update is dropped.

    Each stream leaves through a queue of ``2 * flits`` flits, and an edge's first pair is
    taken only when both queues have room for a whole packet: once taken, an edge's packets
    enter without waiting for each other, so the network's wormhole outputs never wait on a
    packet held back by its partner.

    Parameters
    ----------
    lanes, flits, owner_bits : int
        The shape of an update flit, its owner included (:func:`update_flit`).

    Members
    -------
    i : ``In(stream.Signature(update_pair(lanes, flits, owner_bits)))``
    o : ``Out(stream.Signature(update_flit(lanes, flits, owner_bits))).array(2)``
        v's packets, u's packets.
    busy : ``Out(1)``
    """

    def __init__(self, *, lanes: int, flits: int, owner_bits: int):
        self._flit = update_flit(lanes, flits, owner_bits)
        self._flits = flits
        super().__init__({
            "i": In(stream.Signature(update_pair(lanes, flits, owner_bits))),
            "o": Out(stream.Signature(self._flit)).array(2),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        depth = 2 * self._flits
        queues = [StreamFIFO(self._flit, depth) for _ in range(2)]
        m.submodules.v, m.submodules.u = queues
        pair = self.i.payload
        first = pair.u.flit == 0
        # Room for a whole packet at its first flit; then its flits always fit.
        room = Signal()
        m.d.comb += room.eq(~first | ((queues[0].level <= depth - self._flits) &
                                      (queues[1].level <= depth - self._flits)))
        m.d.comb += [
            self.i.ready.eq(room),
            queues[0].i.valid.eq(self.i.valid & room & pair.v_valid),
            queues[0].i.payload.eq(pair.v),
            queues[1].i.valid.eq(self.i.valid & room & pair.u_valid),
            queues[1].i.payload.eq(pair.u),
            self.busy.eq(queues[0].o.valid | queues[1].o.valid),
        ]
        for queue, out in zip(queues, self.o):
            wiring.connect(m, queue.o, wiring.flipped(out))
        return m
