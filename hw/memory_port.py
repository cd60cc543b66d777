"""The accelerator's memory ports: plain request/response streams of 64-byte lines.

A client sends :func:`line_request_layout` requests (a line address; writes carry the line
and a byte mask) and receives :func:`line_response_layout` responses for its reads, in
request order. The integration issue puts AXI4 around these; in simulation a DRAM model
answers them.
"""

from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out


__all__ = ["LINE_BYTES", "LINE_BITS", "WORDS_PER_LINE", "line_request_layout",
           "line_response_layout", "MemoryPortSignature"]

LINE_BYTES = 64
LINE_BITS = LINE_BYTES * 8
WORDS_PER_LINE = LINE_BYTES // 4


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
