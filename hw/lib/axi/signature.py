"""AXI4 and AXI4-Lite as Amaranth ``wiring`` signatures, seen from the master.

The members are flat and named as in the AMBA AXI specification (ARM IHI 0022), lower case:
``awaddr``, ``awlen`` … ``rready``. A component with ``m_axi: Out(AXI4Signature(...))``
flattens to ``m_axi__awaddr`` and so on; a top that renames the double underscore to one
gives the ``m_axi_awaddr`` ports Vivado's interface inference and FuseSoC users expect. A
slave uses ``In(...)`` (or ``.flip()``).

Only the signals a memory master needs are members: no ``*user``, ``*region``, low-power or
exclusive-access signals beyond ``axlock`` (driven 0: normal access).
"""

from amaranth.lib import enum, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int


__all__ = ["AXIBurst", "AXIResp", "AXI4Signature", "AXI4LiteSignature", "axi4_channels",
           "channel_of", "MAX_BURST_BEATS", "PAGE_BYTES"]

MAX_BURST_BEATS = 256       # an INCR burst's longest (AxLEN + 1)
PAGE_BYTES = 4096           # no burst may cross a 4 KiB boundary


class AXIBurst(enum.Enum, shape=2):
    FIXED = 0
    INCR = 1
    WRAP = 2


class AXIResp(enum.Enum, shape=2):
    OKAY = 0
    EXOKAY = 1
    SLVERR = 2
    DECERR = 3


def _check_data_width(owner, data_width, low, high):
    if isinstance(data_width, bool) or not isinstance(data_width, int) or \
            data_width not in [1 << n for n in range(low.bit_length() - 1, high.bit_length())]:
        raise ConfigError(f"{owner}: data_width must be a power of two from {low} to {high}, "
                          f"not {data_width!r}")


class AXI4Signature(wiring.Signature):
    """An AXI4 memory-mapped interface (five channels: AW, W, B, AR, R), master's view.

    Parameters
    ----------
    addr_width : int
        Byte address width (12 to 64).
    data_width : int
        Data bus width: 64, 128, 256 or 512 bits.
    id_width : int
        Transaction ID width (1 to 16).

    Members
    -------
    awid, awaddr, awlen, awsize, awburst, awlock, awcache, awprot, awqos, awvalid : ``Out``
    awready : ``In(1)``
        Write address channel: ``awlen`` is the beats less one (8 bits), ``awsize`` the log2
        of the bytes per beat, ``awburst`` an :class:`AXIBurst`.
    wdata, wstrb, wlast, wvalid : ``Out``
    wready : ``In(1)``
        Write data channel (AXI4 has no ``wid``): ``wstrb`` one enable per byte of ``wdata``.
    bid, bresp, bvalid : ``In``
    bready : ``Out(1)``
        Write response channel: one per burst, ``bresp`` an :class:`AXIResp`.
    arid, araddr, arlen, arsize, arburst, arlock, arcache, arprot, arqos, arvalid : ``Out``
    arready : ``In(1)``
        Read address channel, as the write address channel.
    rid, rdata, rresp, rlast, rvalid : ``In``
    rready : ``Out(1)``
        Read data channel: a ``rresp`` per beat, ``rlast`` on a burst's last beat.
    """

    def __init__(self, *, addr_width: int, data_width: int, id_width: int):
        check_int("AXI4Signature", "addr_width", addr_width, low=12, high=64)
        _check_data_width("AXI4Signature", data_width, 64, 512)
        check_int("AXI4Signature", "id_width", id_width, high=16)
        self._addr_width, self._data_width, self._id_width = addr_width, data_width, id_width
        members = {}
        for ch in ("aw", "ar"):
            members.update({
                f"{ch}id": Out(id_width), f"{ch}addr": Out(addr_width), f"{ch}len": Out(8),
                f"{ch}size": Out(3), f"{ch}burst": Out(AXIBurst), f"{ch}lock": Out(1),
                f"{ch}cache": Out(4), f"{ch}prot": Out(3), f"{ch}qos": Out(4),
                f"{ch}valid": Out(1), f"{ch}ready": In(1),
            })
            if ch == "aw":
                members.update({
                    "wdata": Out(data_width), "wstrb": Out(data_width // 8), "wlast": Out(1),
                    "wvalid": Out(1), "wready": In(1),
                    "bid": In(id_width), "bresp": In(AXIResp), "bvalid": In(1),
                    "bready": Out(1),
                })
        members.update({
            "rid": In(id_width), "rdata": In(data_width), "rresp": In(AXIResp),
            "rlast": In(1), "rvalid": In(1), "rready": Out(1),
        })
        super().__init__(members)

    @property
    def addr_width(self) -> int:
        return self._addr_width

    @property
    def data_width(self) -> int:
        return self._data_width

    @property
    def id_width(self) -> int:
        return self._id_width

    def __eq__(self, other):
        return type(other) is type(self) and (other._addr_width, other._data_width,
                                              other._id_width) == \
            (self._addr_width, self._data_width, self._id_width)

    def __repr__(self):
        return (f"AXI4Signature(addr_width={self._addr_width}, data_width={self._data_width}, "
                f"id_width={self._id_width})")


class AXI4LiteSignature(wiring.Signature):
    """An AXI4-Lite interface (single-beat transfers, no IDs), master's view: for a register
    slave, use ``In(AXI4LiteSignature(...))``.

    Parameters
    ----------
    addr_width : int
        Byte address width (3 to 64).
    data_width : int
        32 or 64 bits.

    Members
    -------
    awaddr, awprot, awvalid : ``Out``; awready : ``In(1)``
    wdata, wstrb, wvalid : ``Out``; wready : ``In(1)``
    bresp, bvalid : ``In``; bready : ``Out(1)``
    araddr, arprot, arvalid : ``Out``; arready : ``In(1)``
    rdata, rresp, rvalid : ``In``; rready : ``Out(1)``
    """

    def __init__(self, *, addr_width: int, data_width: int = 32):
        check_int("AXI4LiteSignature", "addr_width", addr_width, low=3, high=64)
        _check_data_width("AXI4LiteSignature", data_width, 32, 64)
        self._addr_width, self._data_width = addr_width, data_width
        super().__init__({
            "awaddr": Out(addr_width), "awprot": Out(3), "awvalid": Out(1), "awready": In(1),
            "wdata": Out(data_width), "wstrb": Out(data_width // 8), "wvalid": Out(1),
            "wready": In(1),
            "bresp": In(AXIResp), "bvalid": In(1), "bready": Out(1),
            "araddr": Out(addr_width), "arprot": Out(3), "arvalid": Out(1), "arready": In(1),
            "rdata": In(data_width), "rresp": In(AXIResp), "rvalid": In(1), "rready": Out(1),
        })

    @property
    def addr_width(self) -> int:
        return self._addr_width

    @property
    def data_width(self) -> int:
        return self._data_width

    def __eq__(self, other):
        return type(other) is type(self) and \
            (other._addr_width, other._data_width) == (self._addr_width, self._data_width)

    def __repr__(self):
        return f"AXI4LiteSignature(addr_width={self._addr_width}, data_width={self._data_width})"


def channel_of(member: str) -> str:
    """The channel of an AXI member name: ``aw``, ``w``, ``b``, ``ar`` or ``r``."""
    return member[:2] if member[:2] in ("aw", "ar") else member[:1]


def axi4_channels(signature: AXI4Signature, channels) -> wiring.Signature:
    """The members of ``signature`` on ``channels`` (e.g. ``("ar", "r")``), for a block that
    drives part of an AXI4 interface."""
    return wiring.Signature({name: member for name, member in signature.members.items()
                             if channel_of(name) in channels})
