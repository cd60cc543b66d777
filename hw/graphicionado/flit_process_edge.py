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
from .layouts import edge_flit, flit_index_width, update_flit, update_pair
from .source_update_pairing import SourceUpdatePairing


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
    dst_prop (a dot product is). With ``paths`` = 1 the two packets leave through the one
    output, so an edge takes ``2 * flits`` cycles here. With ``paths`` = 2, the paper's
    duplicated P5–P9, a second lane-wise part makes u's packet in the same cycles as v's:
    each output flit is a pair (:func:`update_pair`), and an edge takes ``flits`` cycles.
    u's packets of one source's consecutive edges are then added in pairs
    (:class:`SourceUpdatePairing`), so that the updates of its vertex, each waiting for
    the Reduce of the one before, come half as often.

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
    paths : int
        With ``symmetric``: 1, v's packet then u's through one lane-wise part; 2, both at
        once through two.
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
        With ``paths`` = 2, ``update_pair(lanes, flits, owner_bits)``.
    busy : ``Out(1)``
        An edge taken in has not yet left as its update packets (with ``paths`` = 2, or a
        u packet is held).
    flush : ``In(1)``, with ``paths`` = 2
        No more edges will come in this processing phase: release the held u packet.
    """

    def __init__(self, *, program: Program, lanes: int = 8, flits: int = 4,
                 dst_shift: int = 0, symmetric: bool = False, owner_bits: int = 0,
                 paths: int = 1):
        if not isinstance(program, Program):
            raise ConfigError(f"FlitProcessEdge: program must be a graphgen.programs "
                              f"Program, not {program!r}")
        for name, value in (("lanes", lanes), ("flits", flits)):
            check_lanes("FlitProcessEdge", value, name=name, power_of_two=True)
        if owner_bits and (not symmetric or owner_bits != dst_shift):
            raise ConfigError(f"FlitProcessEdge: owner_bits ({owner_bits}) needs symmetric "
                              f"and equals dst_shift ({dst_shift})")
        if paths not in (1, 2) or isinstance(paths, bool) or (paths == 2 and not symmetric):
            raise ConfigError(f"FlitProcessEdge: paths must be 1, or 2 with symmetric, "
                              f"not {paths!r}")
        split = process_edge_flits(program, lanes, symmetric, "FlitProcessEdge: ")
        self._paths = paths
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
                                           "owner": max(1, owner_bits), "done": 1, "skip": 1})
        self._map = Datapath(split.lanes, lanes_reads, tag_width=self._out_tag.size)
        output = update_flit(lanes, flits, owner_bits) if paths == 1 else \
            update_pair(lanes, flits, owner_bits)
        super().__init__({
            "dst_base": In(32), "src_base": In(32),
            "i": In(stream.Signature(edge_flit(lanes, flits))),
            "o": Out(stream.Signature(output)),
            "busy": Out(1),
            **({"flush": In(1)} if paths == 2 else {}),
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
        if self._paths == 2:
            self._paired_updates(m, packets.o, held)
        else:
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

        self._busy(m, update.o.valid & update.o.ready & result_tag.done)

    def _busy(self, m, edge_out, held=0):
        """Busy: edges taken in (their last flit) against edges whose last update flit left
        (``edge_out``), or ``held``. Returns whether the two counts agree."""
        edges_in, edges_out = Signal(32), Signal(32)
        m.d.sync += [
            edges_in.eq(edges_in + (self.i.valid & self.i.ready &
                                    (self.i.payload.flit == self._flits - 1))),
            edges_out.eq(edges_out + edge_out),
        ]
        m.d.comb += self.busy.eq((edges_in != edges_out) | held)
        return edges_in == edges_out

    def _paired_updates(self, m, packets, held):
        """The lane-wise part twice (``paths`` = 2): v's packet from ``held[0]`` and u's from
        ``held[1]`` in the same cycles. The two pipelines take and give their flits together,
        so they stay in step; a self-loop's u flits are made and marked not valid."""
        flits, out_tag = self._flits, self._out_tag
        m.submodules.update = v_map = self._map
        m.submodules.update_u = u_map = Datapath(
            self._split.lanes, operands_of(self._split.lanes), tag_width=out_tag.size)
        target = packets.payload.header.target
        both = packets.valid & held[0].valid & held[1].valid
        # The two pipelines' readies are equal: each is free when its output is empty or
        # taken, and their outputs are taken together.
        take = both & v_map.i.ready
        last = held[0].payload.flit == flits - 1
        ends = ((v_map, held[0], target.dst, "dst_owner", 0),
                (u_map, held[1], target.src, "src_owner", target.loop))
        for datapath, source, vertex, owner, skip in ends:
            tag = data.View(out_tag, datapath.i.payload.tag)
            m.d.comb += [
                datapath.i.valid.eq(both),
                tag.flit.eq(source.payload.flit), tag.dst.eq(vertex), tag.done.eq(last),
                tag.skip.eq(skip), source.ready.eq(take),
            ]
            if self._owner_bits:
                m.d.comb += tag.owner.eq(target[owner])
            m.d.comb += [datapath.i.payload[role].eq(source.payload[role])
                         for role in self._vectors]
            m.d.comb += [datapath.i.payload[role].eq(packets.payload.header[role])
                         for role in self._scalars]
            if self._split.reduce is not None:
                m.d.comb += datapath.i.payload[SCALAR].eq(packets.payload.scalar)
        m.d.comb += packets.ready.eq(take & last)
        m.submodules.pairing = pairing = SourceUpdatePairing(
            lanes=self._lanes, flits=flits, owner_bits=self._owner_bits)
        for end, datapath in (("v", v_map), ("u", u_map)):
            tag = data.View(out_tag, datapath.o.payload.tag)
            out = pairing.i.payload[end]
            m.d.comb += [out.dst.eq(tag.dst), out.flit.eq(tag.flit),
                         out.value.eq(datapath.o.payload.result),
                         datapath.o.ready.eq(pairing.i.ready)]
            if self._owner_bits:
                m.d.comb += out.owner.eq(tag.owner)
        u_tag = data.View(out_tag, u_map.o.payload.tag)
        v_tag = data.View(out_tag, v_map.o.payload.tag)
        m.d.comb += [pairing.i.valid.eq(v_map.o.valid), pairing.i.payload.v_valid.eq(1),
                     pairing.i.payload.u_valid.eq(~u_tag.skip)]
        wiring.connect(m, pairing.o, wiring.flipped(self.o))
        # An edge is out once its v packet reaches the pairing; a held u packet keeps the
        # stage busy. ``flush`` reaches the pairing once no edge is before it.
        paired = v_map.o.valid & pairing.i.ready & v_tag.done
        upstream_empty = self._busy(m, paired, pairing.busy)
        m.d.comb += pairing.flush.eq(self.flush & upstream_empty & ~self.i.valid)
