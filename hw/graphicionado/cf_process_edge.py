"""Process_Edge of collaborative filtering (Graphicionado §II.B, table I; §IV.E for the
flits): the custom compute stage that waits for a whole packet, store-and-forward, while
every other stage passes flits through as they come.

Per edge (u, v, rating), with K-word properties p[u], p[v] arriving as ``flits`` flits of
``lanes`` words (K = lanes × flits)::

    dot    = pairwise sum of p[u][k] * p[v][k]    (golden.algorithms.pairwise_sum's order)
    err    = rating - dot
    res[k] = err * p[u][k]                        → the update packet for v, flit by flit

The dot product runs a flit per cycle: ``lanes`` multipliers, a tree of adders over the
flit's lanes (:class:`hw.fp32_vector.FP32TreeSum`), then log2(flits) pair sums across the
packet's flits, which continue the same tree; then one adder for ``err``. The packet's
p[u] flits wait in a queue until their ``err`` arrives (the store-and-forward buffer), and
``lanes`` multipliers give the update a flit per cycle. Without backpressure the stage takes
and gives one flit per cycle: an edge every ``flits`` cycles.
"""

from amaranth.hdl import Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..fp32 import SIGN_BIT, FP32Adder, FP32Multiplier
from ..fp32_vector import FP32Lanes, FP32PairSum, FP32TreeSum, check_lanes, lanes_layout
from ..stream_broadcast import StreamBroadcast
from ..stream_fifo import StreamFIFO
from .layouts import edge_flit, flit_index_width, update_flit


__all__ = ["CFProcessEdge"]

# What travels beside a packet's dot product: the operands of ``err`` and the update's address.
_Header = data.StructLayout({"rating": 32, "dst": 32})


class CFProcessEdge(wiring.Component):
    """Edge packets in (:func:`edge_flit`: flit f holds words f·lanes .. (f+1)·lanes − 1 of
    p[u] and p[v], the rating in the edge's weight word as a binary32), update packets out
    (:func:`update_flit`), in order.

    Parameters
    ----------
    lanes : int
        Words per flit, a power of two (8: the paper's 32-byte datapath).
    flits : int
        Flits per property, a power of two.
    dst_shift : int
        As :class:`hw.graphicionado.process_edge.ProcessEdge`: the update names
        ``(dst >> dst_shift) - dst_base``.

    Members
    -------
    dst_base : ``In(32)``
    i : ``In(stream.Signature(edge_flit(lanes, flits)))``
    o : ``Out(stream.Signature(update_flit(lanes, flits)))``
    """

    def __init__(self, *, lanes: int = 8, flits: int = 4, dst_shift: int = 0):
        for name, value in (("lanes", lanes), ("flits", flits)):
            check_lanes("CFProcessEdge", value, name=name, power_of_two=True)
        self._lanes = lanes
        self._flits = flits
        self._dst_shift = dst_shift
        super().__init__({
            "dst_base": In(32),
            "i": In(stream.Signature(edge_flit(lanes, flits))),
            "o": Out(stream.Signature(update_flit(lanes, flits))),
        })

    def _held_depth(self) -> int:
        """Flits of p[u] in flight between the input and ``err``: enough to keep the input
        moving every cycle (the dot product's latency, rounded up to a power of two)."""
        levels = self._flits.bit_length() - 1
        tree = (self._lanes.bit_length() - 1) * FP32Adder.latency
        latency = (FP32Multiplier.latency + tree + levels * (FP32Adder.latency + 1) +
                   self._flits + FP32Adder.latency + 4)
        return 1 << (latency - 1).bit_length()

    def elaborate(self, platform):
        m = Module()
        lanes, flits = self._lanes, self._flits
        m.submodules.fork = fork = StreamBroadcast(edge_flit(lanes, flits), 2)
        wiring.connect(m, wiring.flipped(self.i), fork.i)
        to_dot, to_held = fork.o

        # The dot product: products, tree over the lanes, pair sums over the flits.
        m.submodules.products = products = FP32Lanes("mul", lanes, _Header.size)
        edge = to_dot.payload.edge
        tag = data.View(_Header, products.i.payload.tag)
        m.d.comb += [
            products.i.valid.eq(to_dot.valid),
            products.i.payload.a.eq(to_dot.payload.src_prop),
            products.i.payload.b.eq(to_dot.payload.dst_prop),
            tag.rating.eq(edge.weight),
            tag.dst.eq((edge.dst >> self._dst_shift) - self.dst_base),
            to_dot.ready.eq(products.i.ready),
        ]

        m.submodules.tree = tree = FP32TreeSum(lanes, _Header.size)
        m.d.comb += [
            tree.i.valid.eq(products.o.valid),
            tree.i.payload.a.eq(products.o.payload.result),
            tree.i.payload.tag.eq(products.o.payload.tag),
            products.o.ready.eq(tree.i.ready),
        ]
        total = tree.o
        for level in range(flits.bit_length() - 1):
            pair = FP32PairSum(_Header.size)
            m.submodules[f"pair_sum{level}"] = pair
            m.d.comb += [
                pair.i.valid.eq(total.valid),
                pair.i.payload.value.eq(total.payload.result),
                pair.i.payload.tag.eq(total.payload.tag),
                total.ready.eq(pair.i.ready),
            ]
            total = pair.o

        # err = rating - dot, as rating + (-dot): IEEE subtraction is exactly that.
        m.submodules.error = error = FP32Adder(tag_width=32)
        dot_header = data.View(_Header, total.payload.tag)
        m.d.comb += [
            error.i.valid.eq(total.valid),
            error.i.payload.a.eq(dot_header.rating),
            error.i.payload.b.eq(total.payload.result ^ SIGN_BIT),
            error.i.payload.tag.eq(dot_header.dst),
            total.ready.eq(error.i.ready),
        ]

        # err waits here for its packet's flits, so the adder's pipeline (which stalls as a
        # whole) keeps moving while a packet leaves.
        m.submodules.errors = errors = StreamFIFO(error.o.payload.shape(), 4)
        wiring.connect(m, error.o, errors.i)

        # The packet's p[u] waits for its err (store and forward).
        held_layout = data.StructLayout({"flit": flit_index_width(flits),
                                         "src_prop": lanes_layout(lanes)})
        m.submodules.held = held = StreamFIFO(held_layout, self._held_depth(), buffered=True)
        m.d.comb += [
            held.i.valid.eq(to_held.valid),
            held.i.payload.flit.eq(to_held.payload.flit),
            held.i.payload.src_prop.eq(to_held.payload.src_prop),
            to_held.ready.eq(held.i.ready),
        ]

        # res[k] = err * p[u][k], a flit per cycle; err leaves with the packet's last flit.
        out_tag = data.StructLayout({"dst": 32, "flit": flit_index_width(flits)})
        m.submodules.update = update = FP32Lanes("mul", lanes, out_tag.size)
        both = held.o.valid & errors.o.valid
        last = held.o.payload.flit == flits - 1
        update_tag = data.View(out_tag, update.i.payload.tag)
        m.d.comb += [
            update.i.valid.eq(both),
            update.i.payload.b.eq(held.o.payload.src_prop),
            update_tag.dst.eq(errors.o.payload.tag),
            update_tag.flit.eq(held.o.payload.flit),
            held.o.ready.eq(update.i.ready & errors.o.valid),
            errors.o.ready.eq(update.i.ready & held.o.valid & last),
        ]
        for k in range(lanes):
            m.d.comb += update.i.payload.a[k].eq(errors.o.payload.result)
        result_tag = data.View(out_tag, update.o.payload.tag)
        m.d.comb += [
            self.o.valid.eq(update.o.valid),
            self.o.payload.dst.eq(result_tag.dst),
            self.o.payload.flit.eq(result_tag.flit),
            self.o.payload.value.eq(update.o.payload.result),
            update.o.ready.eq(self.o.ready),
        ]
        return m
