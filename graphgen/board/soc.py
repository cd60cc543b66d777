"""The board SoC: LiteX on the ULX3S-85F (litex-boards' ``radiona_ulx3s`` target), no CPU, the
UART bridge (``uartbone``), the SDRAM through LiteDRAM, and a design's AXI top as an Instance
of its Verilog.

The design's AXI4 masters each get a LiteDRAM crossbar port of their data width through
LiteDRAM's AXI front end (:class:`litedram.frontend.axi.LiteDRAMAXI2Native`, base address 0):
design byte address ``a`` is SDRAM byte ``a``, which the host sees at ``MAIN_RAM_BASE + a``.
The AXI4-Lite slave sits on the SoC's Wishbone bus at ``REGISTERS_BASE`` (LiteX's
Wishbone-to-AXI-Lite adapter); the low bits of the address (the slave's width) reach the
design.
The host's path to the SDRAM (``main_ram``) has no L2 cache: the host and the design reach
the same rows through two crossbar ports, and a cache on one of them would hide the other's
writes.
"""

from migen import ClockSignal, Instance, ResetSignal

from litedram.frontend.axi import LiteDRAMAXI2Native
from litex.soc.integration.soc import SoCRegion
from litex.soc.interconnect import axi
from litex_boards.targets.radiona_ulx3s import BaseSoC

from . import CLOCK_MHZ, REGISTERS_BASE, REGISTERS_BYTES


__all__ = ["GraphgenSoC", "add_design", "instance_ports"]

AXI_CHANNELS = ("aw", "w", "b", "ar", "r")


def instance_ports(ports: dict[str, tuple[str, int]], prefix: str, bus) -> dict:
    """Instance keyword arguments connecting the ports ``<prefix>_<channel><field>`` (name:
    (direction ``"i"``/``"o"``, width)) to the LiteX AXI or AXI-Lite interface ``bus``; the
    design's outputs drive the bus, its inputs read it."""
    connections = {}
    for name, (direction, width) in ports.items():
        if not name.startswith(prefix + "_"):
            continue
        member = name[len(prefix) + 1:]
        channel = next((c for c in AXI_CHANNELS if member.startswith(c)
                        and hasattr(getattr(bus, c), member[len(c):])), None)
        if channel is None:
            raise ValueError(f"port {name}: no {member!r} in LiteX's AXI channels")
        signal = getattr(getattr(bus, channel), member[len(channel):])
        if direction == "o" and len(signal) > width:
            # A wider bus field (LiteX's address) takes the design's bits, zero above.
            connections[f"o_{name}"] = signal[:width]
        elif direction == "i" and len(signal) < width:
            connections[f"i_{name}"] = signal
        else:
            connections[f"{direction}_{name}"] = signal[:width]
    return connections


def add_design(soc, module, ports, master_prefixes, *, data_width, id_width, addr_width):
    """Instantiate the AXI top ``module`` (ports: name: (``"i"``/``"o"``, width)) in ``soc``
    (a LiteX SoC with ``sdram``): its AXI-Lite slave on the SoC bus at ``REGISTERS_BASE``, each
    AXI4 master (``master_prefixes``) on a LiteDRAM port of its own."""
    connections = {"i_aclk": ClockSignal("sys"), "i_aresetn": ~ResetSignal("sys")}
    soc.design_regs = lite = axi.AXILiteInterface(data_width=32, address_width=32)
    soc.bus.add_slave("graphgen", lite, SoCRegion(origin=REGISTERS_BASE, size=REGISTERS_BYTES,
                                                  cached=False))
    connections.update(instance_ports(ports, "s_axil", lite))
    soc.design_masters = []
    for prefix in master_prefixes:
        bus = axi.AXIInterface(data_width=data_width, address_width=addr_width,
                               id_width=id_width)
        port = soc.sdram.crossbar.get_port(data_width=data_width)
        soc.submodules += LiteDRAMAXI2Native(bus, port, base_address=0)
        connections.update(instance_ports(ports, prefix, bus))
        soc.design_masters.append(bus)
    soc.specials += Instance(module, **connections)


class GraphgenSoC(BaseSoC):
    """The ULX3S SoC around the design's AXI top (:func:`add_design`).

    Parameters
    ----------
    module, ports, master_prefixes, data_width, id_width, addr_width :
        As :func:`add_design` (the module's source added by the caller with
        ``platform.add_source``).
    device : str
        The ECP5 device (``LFE5U-85F``); ``sys_clk_freq`` the system (and design) clock.
    """

    def __init__(self, module, ports, master_prefixes, *, data_width, id_width, addr_width,
                 device="LFE5U-85F", sys_clk_freq=CLOCK_MHZ * 1e6):
        BaseSoC.__init__(self, device=device, sys_clk_freq=sys_clk_freq, cpu_type=None,
                         uart_name="uartbone", l2_size=0, with_led_chaser=False,
                         integrated_rom_size=0, integrated_sram_size=0)
        add_design(self, module, ports, master_prefixes, data_width=data_width,
                   id_width=id_width, addr_width=addr_width)
