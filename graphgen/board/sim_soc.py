"""The board SoC for simulation: the same design Instance, LiteDRAM controller and AXI front
end as :class:`graphgen.board.soc.GraphgenSoC` (:func:`~graphgen.board.soc.add_design`, the
same map), with LiteDRAM's SDRAM model (:class:`litedram.phy.model.SDRAMPHYModel`, the
ULX3S's MT48LC16M16 at the board's clock) for the SDRAM and its PHY, and a Wishbone master
as top-level ports (``host_*``) where the board has its UART bridge: the bridge's own
transactions on the SoC bus are Wishbone cycles, and a simulated UART would spend thousands
of cycles a word."""

from migen import Signal

from litedram import modules as litedram_modules
from litedram.phy.model import SDRAMPHYModel
from litex.build.generic_platform import GenericPlatform, Pins, Subsignal
from litex.build.io import CRG
from litex.soc.integration.soc_core import SoCCore
from litex.soc.interconnect import wishbone

from .soc import add_design


__all__ = ["SimSoC", "SIM_TOP", "HOST_PORTS"]

SIM_TOP = "graphgen_sim_soc"
# The host's Wishbone master: word addresses (byte address >> 2), 32-bit data.
HOST_PORTS = [("adr", 30, "i"), ("dat_w", 32, "i"), ("dat_r", 32, "o"), ("sel", 4, "i"),
              ("cyc", 1, "i"), ("stb", 1, "i"), ("we", 1, "i"), ("ack", 1, "o"),
              ("err", 1, "o")]
_IO = [("sys_clk", 0, Pins(1)), ("sys_rst", 0, Pins(1)),
       ("host", 0, *[Subsignal(name, Pins(width)) for name, width, _ in HOST_PORTS])]


_LITEX_WAIVERS = "/* verilator lint_off COMBDLY */\n/* verilator lint_off UNOPTFLAT */\n"


class SimSoC(SoCCore):
    """No CPU, no UART; ``sys_clk``, ``sys_rst`` (active high) and the ``host_*`` Wishbone
    master are the ports. Parameters as :class:`~graphgen.board.soc.GraphgenSoC`."""

    def __init__(self, module, ports, master_prefixes, *, data_width, id_width, addr_width,
                 sys_clk_freq=50e6):
        platform = GenericPlatform("sim", list(_IO))
        self.crg = CRG(platform.request("sys_clk"), platform.request("sys_rst"))
        SoCCore.__init__(self, platform, sys_clk_freq, cpu_type=None, with_uart=False,
                         with_timer=False, integrated_rom_size=0, integrated_sram_size=0,
                         ident="")
        sdram_module = litedram_modules.MT48LC16M16(sys_clk_freq, "1:1")
        self.sdrphy = SDRAMPHYModel(module=sdram_module, data_width=16, clk_freq=sys_clk_freq)
        self.add_sdram("sdram", phy=self.sdrphy, module=sdram_module, l2_cache_size=0)
        host = wishbone.Interface(data_width=32, address_width=32, addressing="word")
        self.bus.add_master("host", host)
        pads = platform.request("host")
        for name, _, direction in HOST_PORTS:
            inside, outside = getattr(host, name), getattr(pads, name)
            self.comb += inside.eq(outside) if direction == "i" else outside.eq(inside)
        add_design(self, module, ports, master_prefixes, data_width=data_width,
                   id_width=id_width, addr_width=addr_width)

    def verilog(self) -> str:
        """The SoC's Verilog (the design's module is instantiated, not included), with
        Verilator's waivers for LiteX's style (non-blocking assignments in its combinational
        blocks, combinational loops it splits by signal) in front."""
        return (_LITEX_WAIVERS + str(self.platform.get_verilog(self, name=SIM_TOP)) +
                "\n/* verilator lint_on COMBDLY */\n/* verilator lint_on UNOPTFLAT */\n")
