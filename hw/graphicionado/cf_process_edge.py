"""Process_Edge of collaborative filtering (Graphicionado §II.B, table I; §IV.E for the
flits): the custom compute stage that waits for a whole packet, store-and-forward, while
every other stage passes flits through as they come.

Per edge (u, v, rating), with K-word properties p[u], p[v] arriving as ``flits`` flits of
``lanes`` words (K = lanes × flits)::

    dot    = pairwise sum of p[u][k] * p[v][k]    (golden.algorithms.pairwise_sum's order)
    err    = rating - dot
    res[k] = err * p[u][k]                        → the update packet for v, flit by flit

With the symmetric-graph optimisation (§IV.D: an undirected edge stored once, one read
updating both ends), the stage also makes the update packet of u, ``err * p[v][k]``, right
after v's (the order ``golden.graphicionado.execute_symmetric`` reduces them in); a
self-loop updates once. The two packets leave through the one output, so an edge then takes
``2 * flits`` cycles here: the paper's duplicated P5–P9 share one datapath.

The dot product runs a flit per cycle: ``lanes`` multipliers, a tree of adders over the
flit's lanes (:class:`hw.lib.arith.fp32_vector.FP32TreeSum`), then log2(flits) pair sums across the
packet's flits, which continue the same tree; then one adder for ``err``. The packet's
p[u] flits wait in a queue until their ``err`` arrives (the store-and-forward buffer), and
``lanes`` multipliers give the update a flit per cycle. Without backpressure the stage takes
and gives one flit per cycle: an edge every ``flits`` cycles.
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from hw.lib.arith.fp32 import SIGN_BIT, FP32Adder, FP32Multiplier
from hw.lib.arith.fp32_vector import FP32Lanes, FP32PairSum, FP32TreeSum, check_lanes, lanes_layout
from hw.lib.stream.broadcast import StreamBroadcast
from hw.lib.stream.fifo import StreamFIFO
from .layouts import edge_flit, flit_index_width, update_flit


__all__ = ["CFProcessEdge"]


def _target_layout(symmetric: bool, owner_bits: int) -> data.StructLayout:
    """Where an edge's updates go: v's scratchpad index (and u's with ``symmetric``), their
    destination streams with ``owner_bits``, and whether the edge is a self-loop."""
    fields = {"dst": 32}
    if symmetric:
        fields.update({"src": 32, "loop": 1})
    if owner_bits:
        fields.update({"dst_owner": owner_bits, "src_owner": owner_bits})
    return data.StructLayout(fields)


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
    symmetric : bool
        Also make u's update packet, after v's (§IV.D).
    owner_bits : int
        With ``symmetric`` over ``1 << owner_bits`` destination streams: each update flit
        names the stream that owns its vertex (the vertex id's low ``owner_bits`` bits,
        ``owner_bits`` = ``dst_shift``), for the update network.

    Members
    -------
    dst_base : ``In(32)``
    src_base : ``In(32)``
        Symmetric: u's update names ``(src >> dst_shift) - src_base`` (extended slicing puts
        u's partition elsewhere in the scratchpad than v's, §VI.B).
    i : ``In(stream.Signature(edge_flit(lanes, flits)))``
    o : ``Out(stream.Signature(update_flit(lanes, flits, owner_bits)))``
    busy : ``Out(1)``
        An edge taken in has not yet left as its update packets.
    """

    def __init__(self, *, lanes: int = 8, flits: int = 4, dst_shift: int = 0,
                 symmetric: bool = False, owner_bits: int = 0):
        for name, value in (("lanes", lanes), ("flits", flits)):
            check_lanes("CFProcessEdge", value, name=name, power_of_two=True)
        if owner_bits and (not symmetric or owner_bits != dst_shift):
            raise ConfigError(f"CFProcessEdge: owner_bits ({owner_bits}) needs symmetric and "
                              f"equals dst_shift ({dst_shift})")
        self._lanes = lanes
        self._flits = flits
        self._dst_shift = dst_shift
        self._symmetric = symmetric
        self._owner_bits = owner_bits
        self._target = _target_layout(symmetric, owner_bits)
        self._header = data.StructLayout({"rating": 32, "target": self._target})
        super().__init__({
            "dst_base": In(32), "src_base": In(32),
            "i": In(stream.Signature(edge_flit(lanes, flits))),
            "o": Out(stream.Signature(update_flit(lanes, flits, owner_bits))),
            "busy": Out(1),
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
        header = self._header
        m.submodules.fork = fork = StreamBroadcast(edge_flit(lanes, flits),
                                                   3 if self._symmetric else 2)
        wiring.connect(m, wiring.flipped(self.i), fork.i)
        to_dot, to_held = fork.o[0], fork.o[1]

        # The dot product: products, tree over the lanes, pair sums over the flits.
        m.submodules.products = products = FP32Lanes("mul", lanes, header.size)
        edge = to_dot.payload.edge
        tag = data.View(header, products.i.payload.tag)
        m.d.comb += [
            products.i.valid.eq(to_dot.valid),
            products.i.payload.a.eq(to_dot.payload.src_prop),
            products.i.payload.b.eq(to_dot.payload.dst_prop),
            tag.rating.eq(edge.weight),
            tag.target.dst.eq((edge.dst >> self._dst_shift) - self.dst_base),
            to_dot.ready.eq(products.i.ready),
        ]
        if self._symmetric:
            m.d.comb += [tag.target.src.eq((edge.src >> self._dst_shift) - self.src_base),
                         tag.target.loop.eq(edge.src == edge.dst)]
        if self._owner_bits:
            m.d.comb += [tag.target.dst_owner.eq(edge.dst[:self._owner_bits]),
                         tag.target.src_owner.eq(edge.src[:self._owner_bits])]

        m.submodules.tree = tree = FP32TreeSum(lanes, header.size)
        m.d.comb += [
            tree.i.valid.eq(products.o.valid),
            tree.i.payload.a.eq(products.o.payload.result),
            tree.i.payload.tag.eq(products.o.payload.tag),
            products.o.ready.eq(tree.i.ready),
        ]
        total = tree.o
        for level in range(flits.bit_length() - 1):
            pair = FP32PairSum(header.size)
            m.submodules[f"pair_sum{level}"] = pair
            m.d.comb += [
                pair.i.valid.eq(total.valid),
                pair.i.payload.value.eq(total.payload.result),
                pair.i.payload.tag.eq(total.payload.tag),
                total.ready.eq(pair.i.ready),
            ]
            total = pair.o

        # err = rating - dot, as rating + (-dot): IEEE subtraction is exactly that.
        m.submodules.error = error = FP32Adder(tag_width=self._target.size)
        dot_header = data.View(header, total.payload.tag)
        m.d.comb += [
            error.i.valid.eq(total.valid),
            error.i.payload.a.eq(dot_header.rating),
            error.i.payload.b.eq(total.payload.result ^ SIGN_BIT),
            error.i.payload.tag.eq(dot_header.target),
            total.ready.eq(error.i.ready),
        ]

        # err waits here for its packet's flits, so the adder's pipeline (which stalls as a
        # whole) keeps moving while a packet leaves.
        m.submodules.errors = errors = StreamFIFO(error.o.payload.shape(), 4)
        wiring.connect(m, error.o, errors.i)

        # The packet's p[u] (and, symmetric, p[v]) waits for its err (store and forward).
        held = [self._held(m, to_held, "src_prop", "held")]
        if self._symmetric:
            held.append(self._held(m, fork.o[2], "dst_prop", "held_reverse"))
        self._updates(m, errors.o, held)
        return m

    def _held(self, m, flits_in, field, name):
        """A store-and-forward queue of one property's flits."""
        layout = data.StructLayout({"flit": flit_index_width(self._flits),
                                    "prop": lanes_layout(self._lanes)})
        m.submodules[name] = held = StreamFIFO(layout, self._held_depth(), buffered=True)
        m.d.comb += [
            held.i.valid.eq(flits_in.valid),
            held.i.payload.flit.eq(flits_in.payload.flit),
            held.i.payload.prop.eq(getattr(flits_in.payload, field)),
            flits_in.ready.eq(held.i.ready),
        ]
        return held.o

    def _updates(self, m, errors, held):
        """res[k] = err * p[k], a flit per cycle: v's packet from ``held[0]`` (p[u]), then,
        symmetric, u's from ``held[1]`` (p[v]; a self-loop's flits dropped). err leaves with
        the edge's last flit."""
        lanes, flits = self._lanes, self._flits
        out_tag = data.StructLayout({"dst": 32, "flit": flit_index_width(flits),
                                     "owner": max(1, self._owner_bits), "done": 1})
        m.submodules.update = update = FP32Lanes("mul", lanes, out_tag.size)
        target = data.View(self._target, errors.payload.tag)
        reverse = Signal()      # u's packet (symmetric)
        source = held[0]
        if self._symmetric:
            source = stream.Signature(held[0].payload.shape()).create()
            with m.If(reverse):
                m.d.comb += [source.valid.eq(held[1].valid), source.payload.eq(held[1].payload),
                             held[1].ready.eq(source.ready)]
            with m.Else():
                m.d.comb += [source.valid.eq(held[0].valid), source.payload.eq(held[0].payload),
                             held[0].ready.eq(source.ready)]
        last = source.payload.flit == flits - 1
        # A self-loop's second packet is dropped: its flits leave the queue unused.
        drop = reverse & target.loop if self._symmetric else 0
        update_tag = data.View(out_tag, update.i.payload.tag)
        taken = source.valid & errors.valid & (update.i.ready | drop)
        m.d.comb += [
            update.i.valid.eq(source.valid & errors.valid & ~drop),
            update.i.payload.b.eq(source.payload.prop),
            update_tag.flit.eq(source.payload.flit),
            source.ready.eq(errors.valid & (update.i.ready | drop)),
        ]
        if self._symmetric:
            m.d.comb += [
                update_tag.dst.eq(Mux(reverse, target.src, target.dst)),
                update_tag.done.eq(last & (reverse | target.loop)),
                errors.ready.eq(taken & last & reverse),
            ]
            if self._owner_bits:
                m.d.comb += update_tag.owner.eq(Mux(reverse, target.src_owner,
                                                    target.dst_owner))
            with m.If(taken & last):
                m.d.sync += reverse.eq(~reverse)
        else:
            m.d.comb += [update_tag.dst.eq(target.dst), update_tag.done.eq(last),
                         errors.ready.eq(taken & last)]
        for k in range(lanes):
            m.d.comb += update.i.payload.a[k].eq(errors.payload.result)
        result_tag = data.View(out_tag, update.o.payload.tag)
        m.d.comb += [
            self.o.valid.eq(update.o.valid),
            self.o.payload.dst.eq(result_tag.dst),
            self.o.payload.flit.eq(result_tag.flit),
            self.o.payload.value.eq(update.o.payload.result),
            update.o.ready.eq(self.o.ready),
        ]
        if self._owner_bits:
            m.d.comb += self.o.payload.owner.eq(result_tag.owner)

        # Busy: edges taken in (their last flit) against edges whose last update flit left.
        edges_in, edges_out = Signal(32), Signal(32)
        m.d.sync += [
            edges_in.eq(edges_in + (self.i.valid & self.i.ready &
                                    (self.i.payload.flit == flits - 1))),
            edges_out.eq(edges_out + (update.o.valid & update.o.ready & result_tag.done)),
        ]
        m.d.comb += self.busy.eq(edges_in != edges_out)
