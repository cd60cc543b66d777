"""The accelerator's memory ports: plain request/response streams of 64-byte lines.

A client sends :func:`line_request_layout` requests (a line address; writes carry the line
and a byte mask) and receives :func:`line_response_layout` responses for its reads, in
request order. The integration issue puts AXI4 around these; in simulation a DRAM model
answers them.

A design's own port, behind its :class:`hw.lib.memory.arbiter.MemoryArbiter`, is tagged
(:func:`mem_port_signature` with :data:`MEMORY_TAG_WIDTH`): each read carries a tag, its
client's index, and the memory may return reads with different tags in any order (AXI ID
semantics), reads with the same tag in request order.
"""

from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int


__all__ = ["LINE_BYTES", "LINE_BITS", "LINE_LANES", "WORDS_PER_LINE", "MEMORY_TAG_WIDTH",
           "line_request_layout", "line_response_layout", "MemoryPortSignature",
           "mem_request_layout", "mem_response_layout", "mem_port_signature"]

LINE_BYTES = 64
LINE_BITS = LINE_BYTES * 8
WORDS_PER_LINE = LINE_BYTES // 4
# A queue of lines keeps a line's bits in this many lanes, each under its own pointers
# (StreamFIFO's ``lanes``): one enable to all 512 bits of a line is a net across the chip.
LINE_LANES = 4
MEMORY_TAG_WIDTH = 8        # a design's memory port: up to 256 clients behind its arbiter


def line_request_layout(addr_width: int) -> data.StructLayout:
    return data.StructLayout({
        "addr": addr_width,          # line address (byte address / 64)
        "write": 1,
        "wdata": LINE_BITS,          # word i of the line at bits [32*i + 31 : 32*i]
        "wmask": LINE_BYTES,         # byte enables of a write
    })


def line_response_layout() -> data.StructLayout:
    return data.StructLayout({"rdata": LINE_BITS})


class MemoryPortSignature(wiring.Signature):
    """A memory client's port, seen from the client.

    Members
    -------
    req : ``Out(stream.Signature(line_request_layout(addr_width)))``
    resp : ``In(stream.Signature(line_response_layout()))``
        One response per read request, in request order.
    """

    def __init__(self, addr_width: int):
        check_int("MemoryPortSignature", "addr_width", addr_width, high=32)
        self._addr_width = addr_width
        super().__init__({
            "req": Out(stream.Signature(line_request_layout(addr_width))),
            "resp": In(stream.Signature(line_response_layout())),
        })

    @property
    def addr_width(self) -> int:
        return self._addr_width

    def __eq__(self, other):
        return type(other) is type(self) and other._addr_width == self._addr_width

    def __repr__(self):
        return f"MemoryPortSignature({self._addr_width})"


def mem_request_layout(addr_width: int, tag_width: int) -> data.StructLayout:
    """A memory request: ``addr`` (line address, byte address / 64), ``write``, ``wdata`` (the
    line, word ``i`` at bits ``32*i``), ``wmask`` (byte enables of a write), ``tag`` (returned
    with a read's response).

    With ``tag_width == 0`` there is no ``tag`` field and the layout is
    :func:`line_request_layout` itself, so untagged clients connect directly. The fields of
    the tagged layout sit at the same offsets, the tag above them.
    """
    base = line_request_layout(addr_width)
    if tag_width == 0:
        return base
    return data.StructLayout({**{name: field.shape for name, field in base}, "tag": tag_width})


def mem_response_layout(tag_width: int) -> data.StructLayout:
    """A read response: ``rdata`` (the line) and the request's ``tag``; without a ``tag``
    field (:func:`line_response_layout`) when ``tag_width == 0``."""
    if tag_width == 0:
        return line_response_layout()
    return data.StructLayout({"rdata": LINE_BITS, "tag": tag_width})


def mem_port_signature(addr_width: int, tag_width: int = 0) -> wiring.Signature:
    """A memory client's port seen from the client: ``req`` out, ``resp`` in.

    :class:`MemoryPortSignature` when ``tag_width == 0``."""
    if tag_width == 0:
        return MemoryPortSignature(addr_width)
    return wiring.Signature({
        "req": Out(stream.Signature(mem_request_layout(addr_width, tag_width))),
        "resp": In(stream.Signature(mem_response_layout(tag_width))),
    })
