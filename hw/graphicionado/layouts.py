"""Payload layouts of the Graphicionado pipeline's streams (Ham et al. §3.1–3.2).

Vertex properties and constants are 32-bit words: uint32 levels, distances and labels, or
IEEE-754 single-precision PageRank values. An edge in memory is four words
(srcid, dstid, weight, reserved): four edges per 64-byte line, the srcid kept as the paper's
Edge Read checks it to find the end of a vertex's edges.
"""

from amaranth.lib import data


__all__ = ["EDGE_WORDS", "ActiveVertex", "EdgeJob", "Edge", "SourcedEdge", "DestinedEdge",
           "SymmetricEdge", "Update", "flit_index_width", "edge_flit", "update_flit", "update_pair"]

EDGE_WORDS = 4

# An entry of the ActiveVertex list (A5 writes it, P1 reads it): id and new property.
ActiveVertex = data.StructLayout({"id": 32, "prop": 32})

# What EdgeID Read (P2) hands Edge Read (P3): a source and the edge-id range to scan.
EdgeJob = data.StructLayout({"src": 32, "prop": 32, "const": 32, "start": 32, "end": 32})

# An edge as stored in memory.
Edge = data.StructLayout({"src": 32, "dst": 32, "weight": 32, "reserved": 32})

# An edge joined with its source's property and constant: the operands of Process_Edge (P5).
SourcedEdge = data.StructLayout({"edge": Edge, "prop": 32, "const": 32})

# The same with the destination's property, VProperty[dst], read by the optional stage P4
# (Process_Edge's third operand in the paper; no algorithm built here uses it).
DestinedEdge = data.StructLayout({"edge": Edge, "prop": 32, "const": 32, "dst_prop": 32})

# The symmetric-graph optimisation for scalar programs (§IV.D): the edge with both ends'
# operands, the destination's from the scratchpad's copy of VProperty and VConst.
SymmetricEdge = data.StructLayout({"edge": Edge, "prop": 32, "const": 32, "dst_prop": 32,
                                   "dst_const": 32})

# Process_Edge's result for a destination (P5 → P6).
Update = data.StructLayout({"dst": 32, "value": 32})


def flit_index_width(flits: int) -> int:
    """Bits of a flit's index within its packet (at least 1)."""
    return max(1, (flits - 1).bit_length())


def edge_flit(lanes: int, flits: int, *, dst_prop: bool = True) -> data.StructLayout:
    """One flit of an edge packet with large properties (§IV.E): the edge, the flit's index
    in the packet, ``lanes`` words of the source's property and, from stage P4 on
    (``dst_prop``), the same words of the destination's. Before P4 (source streams,
    crossbar) a flit carries the source's words only."""
    words = data.ArrayLayout(32, lanes)
    fields = {"edge": Edge, "flit": flit_index_width(flits), "src_prop": words}
    if dst_prop:
        fields["dst_prop"] = words
    return data.StructLayout(fields)


def update_flit(lanes: int, flits: int, owner_bits: int = 0) -> data.StructLayout:
    """One flit of Process_Edge's update packet for a destination (P5 → P6): the
    destination's scratchpad index, the flit's index, ``lanes`` words of the value and, with
    ``owner_bits`` (the symmetric-graph optimisation over several destination streams,
    §IV.D), the destination stream that owns the vertex."""
    fields = {"dst": 32, "flit": flit_index_width(flits), "value": data.ArrayLayout(32, lanes)}
    if owner_bits:
        fields["owner"] = owner_bits
    return data.StructLayout(fields)


def update_pair(lanes: int, flits: int, owner_bits: int = 0) -> data.StructLayout:
    """The symmetric-graph optimisation with its update path duplicated (§IV.D, P5–P9 twice):
    a flit of each of an edge's two update packets, made in the same cycle, ``v``'s (the
    edge's destination) and ``u``'s (its source), and whether each is an update: not u's for
    a self-loop, which updates once; with paired source updates
    (:class:`~hw.graphicionado.source_update_pairing.SourceUpdatePairing`) u's is held or
    released, and a released packet may come alone. u's ``flit`` is always the flit's."""
    one = update_flit(lanes, flits, owner_bits)
    return data.StructLayout({"v": one, "u": one, "v_valid": 1, "u_valid": 1})
