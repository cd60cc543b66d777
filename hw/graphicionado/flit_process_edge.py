"""Process_Edge (Graphicionado §3.2 stage P5) of a ``Float32Vector`` program on edge packets
of flits (§IV.E), its ``process_edge`` expression cut at its lane sum
(:mod:`hw.lib.program.flits`), with the symmetric-graph optimisation (§IV.D)."""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from graphgen.programs import Float32Vector, Program
from hw.lib.arith.fp32_vector import check_lanes, lanes_layout
from hw.lib.config import ConfigError
from hw.lib.program import Datapath, operands_of, shape_of
from hw.lib.program.flits import (REDUCED, SCALAR, FlitReduce, FlitSplit, flit_operands,
                                  symmetric_in)
from hw.lib.stream.broadcast import StreamBroadcast
from hw.lib.stream.fifo import StreamFIFO
from .layouts import edge_flit, flit_index_width, update_flit


__all__ = ["FlitProcessEdge", "process_edge_flits"]

# The operands an edge flit carries (§IV.E): the weight word, p[u]'s and p[v]'s words.
_EDGE_WORDS = ("weight", "src_prop", "dst_prop")


def _target_layout(symmetric: bool, owner_bits: int) -> data.StructLayout:
    """Where an edge's updates go: v's scratchpad index (and u's with ``symmetric``), their
    destination streams with ``owner_bits``, and whether the edge is a self-loop."""
    fields = {"dst": 32}
    if symmetric:
        fields.update({"src": 32, "loop": 1})
    if owner_bits:
        fields.update({"dst_owner": owner_bits, "src_owner": owner_bits})
    return data.StructLayout(fields)


def process_edge_flits(program: Program, lanes: int, symmetric: bool = False,
                       owner: str = "") -> FlitSplit:
    """``program``'s ``process_edge`` cut for flits of ``lanes`` words; refused with
    :class:`ConfigError` (its message starting with ``owner``) when not built: a shape
    :class:`FlitSplit` refuses, an operand edge flits do not carry, or, ``symmetric``, a
    lane sum not symmetric in src_prop and dst_prop."""
    what = f"{owner}{program.name}'s process_edge"
    split = FlitSplit.of(program.process_edge, lanes, what)
    read = {**operands_of(split.lanes), **flit_operands(split.reduce),
            **flit_operands(split.scalar)}
    unknown = set(read) - set(_EDGE_WORDS) - {SCALAR, REDUCED}
    if unknown:
        raise ConfigError(f"{what} reads {', '.join(sorted(unknown))}; edge flits carry "
                          f"{', '.join(_EDGE_WORDS)}")
    if symmetric and not symmetric_in(split.reduce, "src_prop", "dst_prop"):
        raise ConfigError(f"{what}: symmetric needs a lane sum symmetric in src_prop and "
                          f"dst_prop (one scalar serves both ends' updates)")
    return split


class FlitProcessEdge(wiring.Component):
    """Process_Edge of a ``Float32Vector`` program on edge packets (§IV.E): the custom
    compute stage that waits for a whole packet, store-and-forward, while every other stage
    passes flits through as they come. Edge packets in (:func:`edge_flit`: flit f holds
    words f·lanes .. (f+1)·lanes − 1 of p[u] and p[v], the weight in the edge's weight
    word), update packets out (:func:`update_flit`), in order.

    The program's ``process_edge`` is cut at its lane sum (:class:`FlitSplit`). For CF,
    ``(weight - dot(p_u, p_v)) * p_u``: the dot product runs a flit per cycle (the flit's
    products and their tree, then log2(flits) pair sums across the packet, which continue
    the same tree), then ``err = weight - dot`` once a packet (:class:`FlitReduce`); the
    packet's flits of the vectors the lane-wise part reads wait in a queue until their
    ``err`` arrives, and the lane-wise part gives the update a flit per cycle. Without a
    lane sum the lane-wise part takes each flit as its packet's header is at hand. Without
    backpressure the stage takes and gives one flit per cycle. The expression's parameters
    keep their defaults, as in :class:`~hw.graphicionado.process_edge.ProcessEdge`.

    With the symmetric-graph optimisation (§IV.D: an undirected edge stored once, one read
    updating both ends) the stage also makes u's update packet, the lane-wise part with
    src_prop and dst_prop swapped, right after v's (the order
    ``golden.graphicionado.execute_symmetric`` reduces them in); a self-loop updates once.
    The packet's scalar is computed once, so the lane sum must be symmetric in src_prop and
    dst_prop (a dot product is). The two packets leave through the one output, so an edge
    then takes ``2 * flits`` cycles here: the paper's duplicated P5–P9 share one datapath.

    Parameters
    ----------
    program : graphgen.programs.Program
        A ``Float32Vector`` program; its ``process_edge`` reads ``weight``, ``src_prop`` and
        ``dst_prop`` only.
    lanes : int
        Words per flit, a power of two (8: the paper's 32-byte datapath).
    flits : int
        Flits per property, a power of two.
    dst_shift : int
        As :class:`~hw.graphicionado.process_edge.ProcessEdge`: the update names ``(dst >> dst_shift) - dst_base``.
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

    def __init__(self, *, program: Program, lanes: int = 8, flits: int = 4,
                 dst_shift: int = 0, symmetric: bool = False, owner_bits: int = 0):
        if not isinstance(program, Program):
            raise ConfigError(f"FlitProcessEdge: program must be a graphgen.programs "
                              f"Program, not {program!r}")
        for name, value in (("lanes", lanes), ("flits", flits)):
            check_lanes("FlitProcessEdge", value, name=name, power_of_two=True)
        if owner_bits and (not symmetric or owner_bits != dst_shift):
            raise ConfigError(f"FlitProcessEdge: owner_bits ({owner_bits}) needs symmetric "
                              f"and equals dst_shift ({dst_shift})")
        split = process_edge_flits(program, lanes, symmetric, "FlitProcessEdge: ")
        self._split = split
        self._lanes = lanes
        self._flits = flits
        self._dst_shift = dst_shift
        self._symmetric = symmetric
        self._owner_bits = owner_bits
        self._target = _target_layout(symmetric, owner_bits)
        lanes_reads = operands_of(split.lanes)
        self._vectors = [role for role, type_ in lanes_reads.items()
                         if isinstance(type_, Float32Vector)]
        self._scalars = {role: type_ for role, type_ in lanes_reads.items()
                         if role != SCALAR and not isinstance(type_, Float32Vector)}
        self._header = data.StructLayout({
            "target": self._target, **{role: shape_of(t) for role, t in self._scalars.items()}})
        self._reduce = None if split.reduce is None else FlitReduce(
            split, flits, tag_width=self._header.size)
        self._out_tag = data.StructLayout({"dst": 32, "flit": flit_index_width(flits),
                                           "owner": max(1, owner_bits), "done": 1})
        self._map = Datapath(split.lanes, lanes_reads, tag_width=self._out_tag.size)
        super().__init__({
            "dst_base": In(32), "src_base": In(32),
            "i": In(stream.Signature(edge_flit(lanes, flits))),
            "o": Out(stream.Signature(update_flit(lanes, flits, owner_bits))),
            "busy": Out(1),
        })

    def _held_depth(self) -> int:
        """Flits in flight between the input and their packet's scalar: enough to keep the
        input moving every cycle (that latency, rounded up to a power of two)."""
        levels = self._flits.bit_length() - 1
        reduce = self._reduce.latency + levels if self._reduce is not None else 0
        latency = reduce + self._flits + 4
        return 1 << (latency - 1).bit_length()

    def _words(self, flit) -> dict:
        """Each operand role's value in an edge flit."""
        return {"weight": flit.edge.weight, "src_prop": flit.src_prop,
                "dst_prop": flit.dst_prop}

    def elaborate(self, platform):
        m = Module()
        lanes, flits = self._lanes, self._flits
        m.submodules.fork = fork = StreamBroadcast(edge_flit(lanes, flits),
                                                   3 if self._symmetric else 2)
        wiring.connect(m, wiring.flipped(self.i), fork.i)
        to_scalar, to_held = fork.o[0], fork.o[1]

        words = self._words(to_scalar.payload)
        edge = to_scalar.payload.edge
        header = Signal(self._header)
        target = header.target
        m.d.comb += target.dst.eq((edge.dst >> self._dst_shift) - self.dst_base)
        m.d.comb += [header[role].eq(words[role]) for role in self._scalars]
        if self._symmetric:
            m.d.comb += [target.src.eq((edge.src >> self._dst_shift) - self.src_base),
                         target.loop.eq(edge.src == edge.dst)]
        if self._owner_bits:
            m.d.comb += [target.dst_owner.eq(edge.dst[:self._owner_bits]),
                         target.src_owner.eq(edge.src[:self._owner_bits])]

        scalar_type = self._split.scalar_type
        packet = data.StructLayout({"scalar": shape_of(scalar_type) if scalar_type else 0,
                                    "header": self._header})
        # The packet's scalar waits here for its flits, so the reduce pipeline (which stalls
        # as a whole) keeps moving while a packet leaves.
        m.submodules.packets = packets = StreamFIFO(packet, 4)
        if self._reduce is not None:
            m.submodules.reduce = reduce = self._reduce
            m.d.comb += [reduce.i.payload[role].eq(words[role])
                         for role in reduce.i.payload.shape().members if role != "tag"]
            m.d.comb += [
                reduce.i.valid.eq(to_scalar.valid),
                reduce.i.payload.tag.eq(header),
                to_scalar.ready.eq(reduce.i.ready),
                packets.i.valid.eq(reduce.o.valid),
                packets.i.payload.scalar.eq(reduce.o.payload.result),
                packets.i.payload.header.eq(reduce.o.payload.tag),
                reduce.o.ready.eq(packets.i.ready),
            ]
        else:
            last = to_scalar.payload.flit == flits - 1
            m.d.comb += [
                packets.i.valid.eq(to_scalar.valid & last),
                packets.i.payload.header.eq(header),
                to_scalar.ready.eq(packets.i.ready | ~last),
            ]

        # The packet's vectors (and, symmetric, their swapped roles) wait for its scalar
        # (store and forward).
        held = [self._held(m, to_held, {role: role for role in self._vectors}, "held")]
        if self._symmetric:
            swap = {"src_prop": "dst_prop", "dst_prop": "src_prop"}
            held.append(self._held(m, fork.o[2], {role: swap[role] for role in self._vectors},
                                   "held_reverse"))
        self._updates(m, packets.o, held)
        return m

    def _held(self, m, flits_in, roles, name):
        """A store-and-forward queue of the flits of the vectors the lane-wise part reads
        (``roles``: the flit's field that each role reads)."""
        layout = data.StructLayout({"flit": flit_index_width(self._flits),
                                    **{role: lanes_layout(self._lanes) for role in roles}})
        m.submodules[name] = held = StreamFIFO(layout, self._held_depth(), buffered=True)
        words = self._words(flits_in.payload)
        m.d.comb += [
            held.i.valid.eq(flits_in.valid),
            held.i.payload.flit.eq(flits_in.payload.flit),
            flits_in.ready.eq(held.i.ready),
        ]
        m.d.comb += [held.i.payload[role].eq(words[field]) for role, field in roles.items()]
        return held.o

    def _updates(self, m, packets, held):
        """The lane-wise part, a flit per cycle: v's packet from ``held[0]``, then,
        symmetric, u's from ``held[1]`` (a self-loop's flits dropped). The packet's scalar
        leaves with the edge's last flit."""
        flits = self._flits
        out_tag = self._out_tag
        m.submodules.update = update = self._map
        target = packets.payload.header.target
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
        taken = source.valid & packets.valid & (update.i.ready | drop)
        m.d.comb += [
            update.i.valid.eq(source.valid & packets.valid & ~drop),
            update_tag.flit.eq(source.payload.flit),
            source.ready.eq(packets.valid & (update.i.ready | drop)),
        ]
        m.d.comb += [update.i.payload[role].eq(source.payload[role]) for role in self._vectors]
        m.d.comb += [update.i.payload[role].eq(packets.payload.header[role])
                     for role in self._scalars]
        if self._split.reduce is not None:
            m.d.comb += update.i.payload[SCALAR].eq(packets.payload.scalar)
        if self._symmetric:
            m.d.comb += [
                update_tag.dst.eq(Mux(reverse, target.src, target.dst)),
                update_tag.done.eq(last & (reverse | target.loop)),
                packets.ready.eq(taken & last & reverse),
            ]
            if self._owner_bits:
                m.d.comb += update_tag.owner.eq(Mux(reverse, target.src_owner,
                                                    target.dst_owner))
            with m.If(taken & last):
                m.d.sync += reverse.eq(~reverse)
        else:
            m.d.comb += [update_tag.dst.eq(target.dst), update_tag.done.eq(last),
                         packets.ready.eq(taken & last)]
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
