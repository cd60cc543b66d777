"""An AXI4-Lite slave that lets a host program and run a design through registers.

It decodes the address map it is given (a list of
:class:`~hw.lib.axi.address_map.MapEntry`, e.g. from
:func:`~hw.lib.axi.address_map.design_address_map`) and serves one read and one write at a
time:

* a write waits until both its address (AW) and its data (W) are in, takes effect, and is
  answered on B; AW and W are taken in either order, the next of each once B is sent;
* a read is answered on R the cycle after its address is taken, then waits for ``rready``;
* the two low address bits are ignored (a register is one 32-bit word) and ``awprot`` and
  ``arprot`` are not checked;
* a configuration register keeps a shadow of what was written (the design's register file
  has no read port): a write merges the bytes ``wstrb`` enables into the shadow and sends
  the merged word to the design's register file; a write with no byte enabled changes
  nothing;
* the control register's START bit starts a run when byte 0 is enabled and bit 0 is 1;
* an address outside the map is answered SLVERR (a read with data 0), and so is a write to a
  read-only register, which changes nothing.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.axi.address_map import CONTROL_BITS, check_address_map
from hw.lib.axi.signature import AXI4LiteSignature, AXIResp
from hw.lib.config import ConfigError, check_int
from hw.lib.registers.signatures import (CountersSignature, RegisterWriteSignature,
                                         RunControlSignature)


__all__ = ["AXI4LiteRegisterSlave"]


class AXI4LiteRegisterSlave(wiring.Component):
    """A 32-bit AXI4-Lite slave over a design's register port, run control and counters.

    Parameters
    ----------
    entries : list of MapEntry
        The address map (checked with :func:`~hw.lib.axi.address_map.check_address_map`).
    addr_width : int
        AXI4-Lite byte address width: 12 (a 4 KiB window) to 32; the map must fit in it.

    Members
    -------
    axil : ``In(AXI4LiteSignature(addr_width=addr_width, data_width=32))``
    regs : ``Out(RegisterWriteSignature())``
        One cycle of ``write`` per register write.
    control : ``Out(RunControlSignature())``
        ``start`` a one-cycle pulse; ``busy``, ``done``, ``error`` read in the control
        register.
    counters : ``In(CountersSignature(...))``
        The counters the map's ``counter`` entries name, in map order (absent if none).
    <input> : ``In(32)`` for every ``input`` entry, named by its ``field``
    """

    def __init__(self, entries, *, addr_width: int = 12):
        entries = list(entries)
        check_address_map(entries)
        check_int("AXI4LiteRegisterSlave", "addr_width", addr_width, low=12, high=32)
        end = max(entry.offset for entry in entries) + 4
        if end > 1 << addr_width:
            raise ConfigError(f"AXI4LiteRegisterSlave: the map reaches {end:#x}, past a "
                              f"{addr_width}-bit address")
        self._entries = entries
        counters = [entry.field for entry in entries if entry.kind == "counter"]
        members = {"axil": In(AXI4LiteSignature(addr_width=addr_width, data_width=32)),
                   "regs": Out(RegisterWriteSignature()),
                   "control": Out(RunControlSignature())}
        if counters:
            members["counters"] = In(CountersSignature(counters))
        members.update({entry.field: In(32) for entry in entries if entry.kind == "input"})
        super().__init__(members)

    @property
    def entries(self) -> list:
        return list(self._entries)

    def _source(self, entry):
        """What a read of ``entry`` returns (a config entry's shadow is added by the caller)."""
        if entry.kind == "control":
            bits = [Const(0, 1)] * (max(CONTROL_BITS.values()) + 1)
            for name in ("busy", "done", "error"):
                bits[CONTROL_BITS[name]] = getattr(self.control, name)
            return Cat(*bits)
        if entry.kind == "counter":
            return getattr(self.counters, entry.field)
        return getattr(self, entry.field)

    def elaborate(self, platform):
        m = Module()
        axil = self.axil
        shadows = {entry.name: Signal(32, name=f"shadow_{entry.name}")
                   for entry in self._entries if entry.kind == "config"}
        okay, slverr = AXIResp.OKAY, AXIResp.SLVERR

        # Writes: AW and W held until both are in and the last B is taken.
        aw_full, w_full = Signal(), Signal()
        aw_word = Signal(len(axil.awaddr) - 2)
        w_data, w_strb = Signal(32), Signal(4)
        m.d.comb += [axil.awready.eq(~aw_full), axil.wready.eq(~w_full)]
        with m.If(axil.awvalid & ~aw_full):
            m.d.sync += [aw_full.eq(1), aw_word.eq(axil.awaddr[2:])]
        with m.If(axil.wvalid & ~w_full):
            m.d.sync += [w_full.eq(1), w_data.eq(axil.wdata), w_strb.eq(axil.wstrb)]
        with m.If(axil.bready):
            m.d.sync += axil.bvalid.eq(0)
        m.d.sync += [self.regs.write.eq(0), self.control.start.eq(0)]
        with m.If(aw_full & w_full & ~axil.bvalid):
            m.d.sync += [aw_full.eq(0), w_full.eq(0), axil.bvalid.eq(1), axil.bresp.eq(okay)]
            with m.Switch(aw_word):
                for entry in self._entries:
                    with m.Case(entry.offset >> 2):
                        if entry.kind == "control":
                            m.d.sync += self.control.start.eq(
                                w_strb[0] & w_data[CONTROL_BITS["start"]])
                        elif entry.kind == "config":
                            shadow = shadows[entry.name]
                            merged = Cat(*(Mux(w_strb[b], w_data.word_select(b, 8),
                                               shadow.word_select(b, 8)) for b in range(4)))
                            m.d.sync += [shadow.eq(merged), self.regs.addr.eq(entry.index),
                                         self.regs.data.eq(merged),
                                         self.regs.write.eq(w_strb != 0)]
                        else:
                            m.d.sync += axil.bresp.eq(slverr)
                with m.Default():
                    m.d.sync += axil.bresp.eq(slverr)

        # Reads: the word is picked as the address is taken, and held until rready.
        m.d.comb += axil.arready.eq(~axil.rvalid)
        with m.If(axil.rready):
            m.d.sync += axil.rvalid.eq(0)
        with m.If(axil.arvalid & ~axil.rvalid):
            m.d.sync += [axil.rvalid.eq(1), axil.rresp.eq(okay), axil.rdata.eq(0)]
            with m.Switch(axil.araddr[2:]):
                for entry in self._entries:
                    with m.Case(entry.offset >> 2):
                        source = shadows[entry.name] if entry.kind == "config" else \
                            self._source(entry)
                        m.d.sync += axil.rdata.eq(source)
                with m.Default():
                    m.d.sync += axil.rresp.eq(slverr)
        return m
