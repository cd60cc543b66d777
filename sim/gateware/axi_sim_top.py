"""The simulation top of a design run through its AXI top: :class:`hw.lib.axi.top.AXITop`
(the Verilog ``graphgen verilog --bus axi`` emits), an :class:`~sim.gateware.axi_dram.
AXIDRAMAdapter` on each of its AXI4 masters and one :class:`SimDRAM` with a channel per
master, so the memory image and its dump are those of the internal-port run
(:class:`sim.gateware.register_top.RegisterSimTop`). Never synthesized.

The host reaches the design only over AXI4-Lite (``s_axil_*``, the testbench
``sim.tb.test_axi_run``). The top's other ports are for the testbench to wait on without
acting every cycle: ``attention`` rises when the design raises done or error or the memory
side goes wrong, and the watchdog watches the design's links and memory ports as in the
internal-port top.
"""

from amaranth.hdl import Cat, ClockDomain, ClockSignal, DomainRenamer, Fragment, Module, \
    ResetSignal, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.axi.flat import flat_members
from hw.lib.axi.signature import AXI4LiteSignature, AXI4Signature
from hw.lib.axi.top import AXITop
from hw.lib.config import ConfigError
from sim.gateware.axi_dram import DRAM_TAG_WIDTH, AXIDRAMAdapter
from sim.gateware.dram_model import DRAMConfig, SimDRAM
from sim.gateware.sim_memory import QUEUE_SLOTS, SimMemoryConfig
from sim.run_settings import AXI_SIM_OPTIONS
from sim.gateware.sim_watch import (CORE, attach_watchdog, drive_registered, memory_probes,
                                    watch_members)


__all__ = ["AXISimTop", "AXI_SIM_OPTIONS"]

TB = "tb"


class AXISimTop(wiring.Component):
    """``design`` in its :class:`AXITop`, behind AXI slave adapters on a simulated DRAM, with
    a watchdog.

    Parameters
    ----------
    design : RegisterDesign
    name : str
        The AXI top's instance name in the Verilog.
    counters :
        The design's counters (as :class:`RegisterSimTop` takes them); here the host reads
        them over AXI4-Lite at the offsets of :attr:`address_map`.
    memory : SimMemoryConfig
        The DRAM: as many channels as the design has memory channels.
    addr_width : int
        The design's line address width.
    stalls : bool
        The design injects stalls (``stall_seed``).
    axi : dict
        :class:`AXITop` parameters (:data:`AXI_SIM_OPTIONS`).

    Members
    -------
    s_axil_<member> : the AXI top's AXI4-Lite slave ports
    attention : ``Out(1)``
        The design's done or error, an adapter's protocol error or the DRAM's error.
    sim_error : ``Out(1)``
        An adapter's protocol error or the DRAM's (a line past its depth).
    dump, dump_done : the DRAM's dump (as in :class:`RegisterSimTop`)
    watchdog_limit, hang, quiet_cycles, link_valid, link_ready, stall_seed : as there.
    """

    def __init__(self, design, *, name: str, counters, memory: SimMemoryConfig,
                 addr_width: int, stalls: bool, axi: dict | None = None):
        axi = dict(axi or {})
        unknown = sorted(set(axi) - set(AXI_SIM_OPTIONS))
        if unknown:
            raise ConfigError(f"the AXI simulation top takes {', '.join(AXI_SIM_OPTIONS)}, "
                              f"not {', '.join(unknown)}")
        if memory.channels != design.config.memory_channels:
            raise ConfigError(f"the design has {design.config.memory_channels} memory "
                              f"channel(s) but the simulated memory has "
                              f"channels={memory.channels}; they must be equal")
        self._name, self._memory, self._addr_width = name, memory, addr_width
        self._design = design
        self._top = AXITop(design, memory_bytes=memory.depth_lines * 64, **axi)
        self._adapters = [AXIDRAMAdapter(self._master_signature(prefix), addr_width=addr_width)
                          for prefix in self._top.master_prefixes]
        # Elaborated now, so that the design's links are known.
        self._fragment = Fragment.get(self._top, None)
        self._probes = design.link_probes + memory_probes(design.mem)
        members = {"clk": In(1), "rst": In(1)}
        members.update(flat_members(self._lite_signature(), "s_axil", flipped=True))
        members.update({"attention": Out(1), "sim_error": Out(1),
                        "dump": In(1), "dump_done": Out(1)})
        members.update(watch_members(len(self._probes), stalls))
        super().__init__(members)

    def _width(self, port: str) -> int:
        return Shape.cast(self._top.signature.members[port].shape).width

    def _master_signature(self, prefix: str) -> AXI4Signature:
        """The AXI4 signature of the top's master ``prefix``, read off its ports."""
        return AXI4Signature(addr_width=self._width(f"{prefix}_awaddr"),
                             data_width=self._width(f"{prefix}_wdata"),
                             id_width=self._width(f"{prefix}_awid"))

    def _lite_signature(self) -> AXI4LiteSignature:
        return AXI4LiteSignature(addr_width=self._width("s_axil_awaddr"),
                                 data_width=self._width("s_axil_wdata"))

    @property
    def axi_top(self) -> AXITop:
        return self._top

    @property
    def address_map(self) -> list:
        return self._top.address_map

    @property
    def extra_sources(self):
        return [SimDRAM.VERILOG_SOURCE]

    @property
    def link_names(self) -> list[str]:
        return [probe.name for probe in self._probes]

    @property
    def memory_config(self) -> SimMemoryConfig:
        """The simulated DRAM beside the design."""
        return self._memory

    @property
    def memory_clients(self) -> None:
        """None: the DRAM sees the AXI masters' IDs (and a last-beat bit) as tags, not the
        design's clients, so its ``+dram_traffic`` is counted per channel only."""
        return None

    def elaborate(self, platform):
        m = Module()
        top, memory = self._top, self._memory
        # The AXI top defines a local ``sync`` domain, which Amaranth does not let a parent's
        # ``sync`` reach: this top's own domain is ``tb``, on the ``clk`` and ``rst`` ports.
        # The DRAM, the adapters and the AXI top take their reset from a flip-flop, so that
        # the top's reset input reaches no deep logic (sim.gateware.sim_watch).
        m.domains += [ClockDomain(TB), ClockDomain(CORE)]
        reset = Signal(init=1, reset_less=True, name=f"{CORE}_rst")
        m.d[TB] += reset.eq(self.rst)
        m.d.comb += [ClockSignal(TB).eq(self.clk), ResetSignal(TB).eq(self.rst),
                     ClockSignal(CORE).eq(self.clk), ResetSignal(CORE).eq(reset),
                     top.aclk.eq(self.clk), top.aresetn.eq(~reset)]
        m.submodules[self._name] = self._fragment
        for name in top.signature.members:
            if name.startswith("s_axil_"):
                ours, theirs = getattr(self, name), getattr(top, name)
                if top.signature.members[name].flow == In:
                    m.d.comb += theirs.eq(ours)
                else:
                    m.d.comb += ours.eq(theirs)
        registered = []
        if "stall_seed" in top.signature.members:
            registered.append((top.stall_seed, self.stall_seed))

        dram = SimDRAM(DRAMConfig(depth_lines=memory.depth_lines, outstanding=QUEUE_SLOTS,
                                  tag_width=DRAM_TAG_WIDTH, addr_width=self._addr_width,
                                  channels=memory.channels))
        m.submodules.dram = DomainRenamer(CORE)(dram)
        errors = []
        for c, (prefix, adapter, channel) in enumerate(zip(top.master_prefixes, self._adapters,
                                                           dram.channel_ports)):
            m.submodules[f"axi_slave{c}"] = DomainRenamer(CORE)(adapter)
            for name in adapter.axi.signature.members:
                port, inner = getattr(top, f"{prefix}_{name}"), getattr(adapter.axi, name)
                driven = top.signature.members[f"{prefix}_{name}"].flow == Out
                m.d.comb += inner.eq(port) if driven else port.eq(inner)
            wiring.connect(m, adapter.mem.req, channel.req)
            wiring.connect(m, channel.resp, adapter.mem.resp)
            errors.append(adapter.protocol_error)
        m.d.comb += self.dump_done.eq(dram.dump_done)
        registered.append((dram.dump, self.dump))
        control = self._design.control
        m.d.comb += [
            self.sim_error.eq(Cat(*errors, dram.error).any()),
            self.attention.eq(control.done | control.error | self.sim_error),
        ]
        watch = Module()
        attach_watchdog(watch, self, self._probes, control.busy)
        for target, source in registered:
            drive_registered(watch, target, source)
        m.submodules.watch = DomainRenamer(TB)(watch)
        return m
