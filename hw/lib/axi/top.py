"""A design run through registers, as drop-in IP: AXI4 masters for its memory and an
AXI4-Lite slave for its registers, with the port names Vivado and FuseSoC users expect.

:class:`AXITop` puts an :class:`~hw.lib.axi.master.AXI4Master` behind each of the design's
memory channels and an :class:`~hw.lib.axi.lite_slave.AXI4LiteRegisterSlave` in front of its
registers, run control and counters. The map is the design's SystemRDL description compiled
for its configuration (:meth:`~hw.lib.registers.design.RegisterDesign.register_description`,
:func:`~hw.lib.axi.rdl_map.rdl_address_map`), refused unless it names the design's registers
in address order and its counters; a design without one gets
:func:`~hw.lib.axi.address_map.design_address_map`.

Every channel's master is a port of its own and sends the design's global byte address
(``line * 64``): channel ``c`` carries the lines with ``line % channels == c``, so an
interconnect outside joins the masters onto one memory holding the image the host laid out
(a channel's lines are never consecutive, so with several channels every burst is one
line).

``done`` reaches the host only when the design is done, no master has a write unanswered and
no request waits at a master (a run's results are in memory when the host sees DONE); BUSY
holds until then.
ERROR is the design's own error or a master's SLVERR/DECERR; the first master to take one
(the lowest channel if several in one cycle) is kept in the error-cause registers.

A bus error ends the run: the masters stop sending (the design's later requests are
dropped, so it would wait for a read forever) and drain what they sent; once all of them
are idle the design is held in a synchronous reset and the host reads DONE and ERROR (BUSY
low; the counters read 0, the error cause and address stay). The next START clears the
error: one cycle resets the masters and the error cause, the register slave writes the
registers the host programmed back into the design (:class:`AXI4LiteRegisterSlave`'s
replay), and the design starts with them, on the same memory, without ``aresetn``.

With ``memory_bytes`` the top also checks the base registers (the configuration registers
named ``..._base...``, line addresses): a START while one of them holds a line past the
memory is refused, the run ends at once with DONE and ERROR and the error cause names the
register (``refused`` set, ``index`` its register address); a base is a line address, so
it is always aligned. Without ``memory_bytes`` nothing is checked (the memory an
interconnect outside gives the masters is not known here).

The clock and reset are AXI's: ``aclk``, and ``aresetn`` active low and synchronous.
"""

from amaranth.hdl import Cat, ClockDomain, Module, ResetInserter, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.axi.address_map import ERROR_CAUSE_FIELDS, design_address_map
from hw.lib.axi.flat import connect_flat, flat_members
from hw.lib.axi.lite_slave import AXI4LiteRegisterSlave
from hw.lib.axi.master import AXI4Master
from hw.lib.axi.rdl_map import rdl_address_map
from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import MEMORY_TAG_WIDTH
from hw.lib.registers.design import RegisterDesign


__all__ = ["AXITop", "design_map"]


def design_map(design: RegisterDesign) -> list:
    """``design``'s register map: its register description compiled, checked against its
    registers and counters, or :func:`~hw.lib.axi.address_map.design_address_map`."""
    counters = tuple(design.signature.members["counters"].signature.names)
    source = design.register_description()
    if source is None:
        return design_address_map(design.register_map, counters)
    entries = rdl_address_map(source)
    for what, described, declared in [
            ("registers", [entry.field for entry in sorted(
                (e for e in entries if e.kind == "config"), key=lambda e: e.index)],
             list(design.register_map)),
            ("counters", [entry.field for entry in entries if entry.kind == "counter"],
             list(counters))]:
        if described != declared:
            extra = [name for name in described if name not in declared]
            missing = [name for name in declared if name not in described]
            raise ConfigError(f"{source.path.name} and {type(design).__name__} disagree on "
                              f"the {what}: described only {extra}, declared only {missing}"
                              f"{'' if extra or missing else ', in another order'}")
    return entries


class AXITop(wiring.Component):
    """``design`` with AXI4 masters and an AXI4-Lite register slave.

    Parameters
    ----------
    design : RegisterDesign
    data_width, id_width, axi_addr_width, read_outstanding, write_outstanding,
    max_burst_beats, write_buffer, open_bursts, burst_hold, write_waiting :
        Each master's parameters (:class:`~hw.lib.axi.master.AXI4Master`, its defaults).
    lite_addr_width : int
        The AXI4-Lite address width (12: a 4 KiB window).
    memory_bytes : int or None
        The memory the masters reach (a multiple of 64 bytes): base registers past it refuse
        START. None: not checked.

    Members
    -------
    aclk : ``In(1)``; aresetn : ``In(1)``
    s_axil_<member> : the AXI4-Lite slave's ports (``s_axil_awaddr`` ... ``s_axil_rready``)
    m_axi_<member> : the AXI4 master's ports; with several memory channels ``m_axi<c>_...``
        for channel ``c``
    stall_seed : ``In(32)`` when the design injects stalls (a simulation build)
    """

    def __init__(self, design, *, data_width: int = 64, id_width: int = 4,
                 axi_addr_width: int | None = None, lite_addr_width: int = 12,
                 memory_bytes: int | None = None, **master_options):
        if not isinstance(design, RegisterDesign):
            raise ConfigError(f"AXITop needs a design run through registers (a "
                              f"RegisterDesign), not {type(design).__name__}")
        self._design = design
        config = design.config
        self._masters = [
            AXI4Master(addr_width=config.addr_width, tag_width=MEMORY_TAG_WIDTH,
                       data_width=data_width, id_width=id_width,
                       axi_addr_width=axi_addr_width, **master_options)
            for _ in range(config.memory_channels)]
        self._map = design_map(design)
        if memory_bytes is not None:
            check_int("AXITop", "memory_bytes", memory_bytes)
            if memory_bytes % 64:
                raise ConfigError(f"AXITop: memory_bytes must be a multiple of 64, not "
                                  f"{memory_bytes}")
        self._memory_lines = None if memory_bytes is None else memory_bytes // 64
        self._slave = AXI4LiteRegisterSlave(self._map, addr_width=lite_addr_width)
        members = {"aclk": In(1), "aresetn": In(1)}
        members.update(flat_members(self._slave.axil.signature.flip(), "s_axil", flipped=True))
        for prefix, master in zip(self.master_prefixes, self._masters):
            members.update(flat_members(master.axi_signature, prefix))
        if "stall_seed" in design.signature.members:
            members["stall_seed"] = In(32)
        super().__init__(members)

    @property
    def design(self) -> RegisterDesign:
        return self._design

    @property
    def address_map(self) -> list:
        """The register slave's map (:class:`~hw.lib.axi.address_map.MapEntry` list)."""
        return self._slave.entries

    @property
    def base_registers(self) -> list:
        """The config entries checked against ``memory_bytes``: those whose name has the
        word ``base``."""
        return [entry for entry in self._map
                if entry.kind == "config" and "base" in entry.field.split("_")]

    @property
    def master_prefixes(self) -> list[str]:
        """Each memory channel's port prefix: ``m_axi``, or ``m_axi0``, ``m_axi1``, ..."""
        count = len(self._masters)
        return ["m_axi"] if count == 1 else [f"m_axi{c}" for c in range(count)]

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = domain = ClockDomain("sync", local=True)
        m.d.comb += [domain.clk.eq(self.aclk), domain.rst.eq(~self.aresetn)]
        design, slave = self._design, self._slave
        design_reset, master_reset = Signal(), Signal()
        m.submodules.design = ResetInserter(design_reset)(design)
        m.submodules.regs = slave
        connect_flat(m, self, "s_axil", slave.axil)
        wiring.connect(m, slave.regs, design.regs)
        wiring.connect(m, design.counters, slave.counters)
        if "stall_seed" in design.signature.members:
            m.d.comb += design.stall_seed.eq(self.stall_seed)

        for c, (prefix, master, port) in enumerate(zip(self.master_prefixes, self._masters,
                                                       design.memory_ports)):
            m.submodules[f"master{c}" if len(self._masters) > 1 else "master"] = \
                ResetInserter(master_reset)(master)
            wiring.connect(m, port, master.mem)
            connect_flat(m, self, prefix, master.axi)

        bad, lowest = self._bad_bases(m, slave)
        # A START refused for a bad base register: the lowest one is kept.
        refusing = Signal()
        refused = Signal(data.StructLayout({"valid": 1, "index": 8}))
        with m.If(master_reset):
            m.d.sync += refused.eq(0)
        with m.Elif(refusing & ~refused.valid):
            m.d.sync += [refused.valid.eq(1), refused.index.eq(lowest)]
        self._keep_cause(m, slave, master_reset, refused)

        # A request offered in the cycle the design raises done is not yet pending in its
        # master: it holds DONE back too.
        pending = Cat(*(master.writes_pending for master in self._masters),
                      *(port.req.valid for port in design.memory_ports)).any()
        bus_error = Cat(master.error for master in self._masters).any()
        drained = Cat(master.idle for master in self._masters).all()
        with m.FSM(name="recovery"):
            with m.State("RUN"):
                m.d.comb += [
                    refusing.eq(slave.control.start & bad.any()),
                    design.control.start.eq(slave.control.start & ~bad.any()),
                    slave.control.busy.eq(design.control.busy | pending),
                    slave.control.done.eq(design.control.done & ~pending),
                    slave.control.error.eq(design.control.error | bus_error),
                ]
                with m.If(bus_error & drained | refusing):
                    m.next = "FAILED"
            with m.State("FAILED"):
                m.d.comb += [design_reset.eq(1), slave.control.done.eq(1),
                             slave.control.error.eq(1)]
                with m.If(slave.control.start):
                    m.next = "CLEAR"
            with m.State("CLEAR"):
                m.d.comb += [design_reset.eq(1), master_reset.eq(1), slave.replay.eq(1),
                             slave.control.busy.eq(1)]
                m.next = "REPLAY"
            with m.State("REPLAY"):
                m.d.comb += slave.control.busy.eq(1)
                with m.If(~slave.replaying):
                    m.next = "GO"
            # The replay's last register write has landed by this cycle.
            with m.State("GO"):
                m.d.comb += [slave.control.busy.eq(1), design.control.start.eq(~bad.any())]
                m.d.comb += refusing.eq(bad.any())
                m.next = "RUN"
                with m.If(bad.any()):
                    m.next = "FAILED"
        return m

    def _bad_bases(self, m, slave):
        """``(bad, lowest)``: ``bad`` a bit per base register holding a line past the
        memory, followed from the writes the design's register file takes (a replay's
        too); ``lowest`` the register address of the first bad one."""
        bases = self.base_registers if self._memory_lines is not None else []
        bad, lowest = Signal(max(len(bases), 1)), Signal(8)
        regs = slave.regs
        for bit, entry in enumerate(bases):
            with m.If(regs.write & (regs.addr == entry.index)):
                m.d.sync += bad[bit].eq(regs.data >= self._memory_lines)
        for bit, entry in reversed(list(enumerate(bases))):
            with m.If(bad[bit]):
                m.d.comb += lowest.eq(entry.index)
        return bad, lowest

    def _keep_cause(self, m, slave, clear, refused):
        """The error-cause registers: the first master's error response (the lowest channel
        wins a tie) until ``clear``, and ``refused``."""
        kept, write, resp, channel = Signal(), Signal(), Signal(2), Signal(8)
        addr = Signal(64)
        with m.If(clear):
            m.d.sync += [kept.eq(0), write.eq(0), resp.eq(0), channel.eq(0), addr.eq(0)]
        with m.Elif(~kept):
            for c, master in reversed(list(enumerate(self._masters))):
                with m.If(master.error):
                    m.d.sync += [kept.eq(1), write.eq(master.error_cause.write),
                                 resp.eq(master.error_cause.resp), channel.eq(c),
                                 addr.eq(master.error_cause.addr)]
        fields = {"valid": kept, "write": write, "resp": resp, "refused": refused.valid,
                  "channel": channel, "index": refused.index}
        cause = Signal(32)
        for name, (low, width) in ERROR_CAUSE_FIELDS.items():
            m.d.comb += cause[low:low + width].eq(fields[name])
        m.d.comb += [slave.error_cause.eq(cause), slave.error_addr_lo.eq(addr[:32]),
                     slave.error_addr_hi.eq(addr[32:])]
