"""An AXI4-Lite slave that lets a host program and run a design through registers.

It decodes the address map it is given (a list of
:class:`~hw.lib.axi.address_map.MapEntry`, e.g. from
:func:`~hw.lib.axi.address_map.design_address_map`) and serves one read and one write at a
time:

* a write waits until both its address (AW) and its data (W) are in, takes effect, and is
  answered on B; AW and W are taken in either order, the next of each once B is sent;
* a read is answered on R two cycles after its address is taken (the address is decoded
  into registers first), then waits for ``rready``;
* the two low address bits are ignored (a register is one 32-bit word) and ``awprot`` and
  ``arprot`` are not checked;
* a configuration register keeps a shadow of what was written (the design's register file
  has no read port), in a small memory (LUT RAM) by register address: a write merges the
  bytes ``wstrb`` enables into the shadow and sends the merged word to the design's
  register file; a write with no byte enabled changes nothing. After reset the slave
  clears the shadow (one register a cycle), as the register file clears itself, and takes
  no address meanwhile;
* a pulse on ``replay`` sends every shadow register to the design's register file again
  (one a cycle, ``replaying`` high meanwhile, no write address taken): a design reset
  outside the slave gets back what the host wrote;
* the control register's START bit starts a run when byte 0 is enabled and bit 0 is 1;
* an address outside the map is answered SLVERR (a read with data 0), and so is a write to a
  read-only register, which changes nothing.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib.memory import Memory
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.axi.address_map import CONTROL_BITS, KINDS, check_address_map
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
    replay : ``In(1)``
        A pulse: write the shadow registers to the design again.
    replaying : ``Out(1)``
        The replay is under way.
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
        self._readable = [entry for entry in entries if entry.kind != "config"]
        self._depth = max([entry.index for entry in entries if entry.kind == "config"],
                          default=0) + 1
        counters = [entry.field for entry in entries if entry.kind == "counter"]
        members = {"axil": In(AXI4LiteSignature(addr_width=addr_width, data_width=32)),
                   "regs": Out(RegisterWriteSignature()),
                   "control": Out(RunControlSignature()),
                   "replay": In(1), "replaying": Out(1)}
        if counters:
            members["counters"] = In(CountersSignature(counters))
        members.update({entry.field: In(32) for entry in entries if entry.kind == "input"})
        super().__init__(members)

    @property
    def entries(self) -> list:
        return list(self._entries)

    def _decode(self, m, word, name, load):
        """Registers decoding address bits ``word`` (the byte address without its two low
        bits), loaded when ``load``: ``kind`` (the entry's position in :data:`KINDS`, or
        ``len(KINDS)`` unmapped), ``index`` (a config entry's register address), ``value``
        (the position of a readable non-config entry in :meth:`_values`). Registered, so
        the multiplexers behind them see a plain select."""
        kind = Signal(range(len(KINDS) + 1), name=f"{name}_kind", init=len(KINDS))
        index = Signal(range(self._depth), name=f"{name}_index")
        value = Signal(range(max(len(self._readable), 1)), name=f"{name}_value")
        with m.If(load):
            m.d.sync += kind.eq(len(KINDS))
            with m.Switch(word):
                for entry in self._entries:
                    with m.Case(entry.offset >> 2):
                        m.d.sync += kind.eq(KINDS.index(entry.kind))
                        if entry.kind == "config":
                            m.d.sync += index.eq(entry.index)
                        else:
                            m.d.sync += value.eq(self._readable.index(entry))
        return kind, index, value

    def _values(self):
        """What a read of each entry of ``self._readable`` returns."""
        values = []
        for entry in self._readable:
            if entry.kind == "control":
                bits = [Const(0, 1)] * (max(CONTROL_BITS.values()) + 1)
                for name in ("busy", "done", "error"):
                    bits[CONTROL_BITS[name]] = getattr(self.control, name)
                values.append(Cat(*bits))
            elif entry.kind == "counter":
                values.append(getattr(self.counters, entry.field))
            else:
                values.append(getattr(self, entry.field))
        return values

    def elaborate(self, platform):
        m = Module()
        axil = self.axil
        okay, slverr = AXIResp.OKAY, AXIResp.SLVERR
        config = KINDS.index("config")
        # The shadow of the configuration registers, by register address, cleared after
        # reset (as the design's register file is) while the slave waits.
        m.submodules.shadow = shadow = Memory(shape=32, depth=self._depth, init=[])
        store = shadow.write_port(granularity=8)
        old, peek = shadow.read_port(domain="comb"), shadow.read_port(domain="comb")
        again = shadow.read_port(domain="comb")
        clearing, clear_addr = Signal(init=1), Signal(range(self._depth))
        with m.If(clearing):
            m.d.comb += [store.addr.eq(clear_addr), store.data.eq(0), store.en.eq(0b1111)]
            m.d.sync += clear_addr.eq(clear_addr + 1)
            with m.If(clear_addr == self._depth - 1):
                m.d.sync += clearing.eq(0)

        # Writes: AW (decoded as it is taken) and W held until both are in and the last B
        # is taken.
        aw_full, w_full = Signal(), Signal()
        w_data, w_strb = Signal(32), Signal(4)
        m.d.comb += [axil.awready.eq(~aw_full & ~clearing & ~self.replaying),
                     axil.wready.eq(~w_full)]
        kind, index, _ = self._decode(m, axil.awaddr[2:], "aw", axil.awready & axil.awvalid)
        with m.If(axil.awready & axil.awvalid):
            m.d.sync += aw_full.eq(1)
        with m.If(axil.wvalid & ~w_full):
            m.d.sync += [w_full.eq(1), w_data.eq(axil.wdata), w_strb.eq(axil.wstrb)]
        with m.If(axil.bready):
            m.d.sync += axil.bvalid.eq(0)
        m.d.comb += old.addr.eq(index)
        merged = Cat(*(Mux(w_strb[b], w_data.word_select(b, 8), old.data.word_select(b, 8))
                       for b in range(4)))
        m.d.sync += [self.regs.write.eq(0), self.control.start.eq(0)]
        with m.If(aw_full & w_full & ~axil.bvalid & ~self.replaying & ~self.replay):
            m.d.sync += [aw_full.eq(0), w_full.eq(0), axil.bvalid.eq(1),
                         axil.bresp.eq(Mux((kind == config) | (kind == KINDS.index("control")),
                                           okay, slverr))]
            with m.If(kind == KINDS.index("control")):
                m.d.sync += self.control.start.eq(w_strb[0] & w_data[CONTROL_BITS["start"]])
            with m.If(kind == config):
                m.d.comb += [store.addr.eq(index), store.data.eq(w_data), store.en.eq(w_strb)]
                m.d.sync += [self.regs.addr.eq(index), self.regs.data.eq(merged),
                             self.regs.write.eq(w_strb != 0)]

        # The replay: AW is refused meanwhile, and a write already taken waits for it.
        replay_addr = Signal(range(self._depth))
        m.d.comb += again.addr.eq(replay_addr)
        with m.If(self.replay & ~clearing):
            m.d.sync += [self.replaying.eq(1), replay_addr.eq(0)]
        with m.Elif(self.replaying):
            m.d.sync += [self.regs.addr.eq(replay_addr), self.regs.data.eq(again.data),
                         self.regs.write.eq(1), replay_addr.eq(replay_addr + 1)]
            with m.If(replay_addr == self._depth - 1):
                m.d.sync += self.replaying.eq(0)

        # Reads: the address is decoded as it is taken, the word picked the next cycle and
        # held until rready.
        picking = Signal()
        take = axil.arvalid & axil.arready
        kind, index, value = self._decode(m, axil.araddr[2:], "ar", take)
        m.d.comb += [peek.addr.eq(index),
                     axil.arready.eq(~axil.rvalid & ~picking & ~clearing)]
        m.d.sync += picking.eq(take)
        with m.If(axil.rready):
            m.d.sync += axil.rvalid.eq(0)
        with m.If(picking):
            m.d.sync += [
                axil.rvalid.eq(1),
                axil.rresp.eq(Mux(kind == len(KINDS), slverr, okay)),
                axil.rdata.eq(Mux(kind == config, peek.data,
                                  Mux(kind == len(KINDS), 0,
                                      _mux_tree(self._values(), value)))),
            ]
        return m


def _mux_tree(values, select):
    """``values[select]`` as a balanced tree of two-way multiplexers on ``select``'s bits
    (``select`` below ``len(values)``)."""
    level = list(values)
    for bit in range(len(select)):
        level = [Mux(select[bit], level[k + 1], level[k]) if k + 1 < len(level) else level[k]
                 for k in range(0, len(level), 2)]
    return level[0]
