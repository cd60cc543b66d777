"""What the simulation tops add around a design: the stall seed handed to its throttles, the
watchdog over its stream links and its memory port, and flip-flops between the top's inputs
and the design.

The design is elaborated when the top is built, so that its links are known (their number
sets the width of the top's ``link_valid`` and ``link_ready`` ports, their names go to the
testbench that reports a hang).
"""

from amaranth.hdl import ClockDomain, ClockSignal, DomainRenamer, Fragment, ResetSignal, Signal
from amaranth.lib.wiring import In, Out

from sim.gateware.sim_memory import attach_sim_dram
from hw.lib.stream.links import LinkProbe
from sim.gateware.watchdog import Watchdog, probe_bits


__all__ = ["elaborated", "watch_members", "attach_watchdog", "add_behind_registers",
           "drive_registered", "add_design_and_dram", "CORE"]

# The clock domain of the design and its DRAM inside a sim top (see add_behind_registers).
CORE = "core"


def elaborated(design):
    """``design``'s fragment, elaborated now (its ``link_probes`` are then filled in)."""
    return Fragment.get(design, None)


def memory_probes(mem) -> list[LinkProbe]:
    """The design's memory port (seen from the design), or list of channel ports, as two
    more links per port."""
    ports = list(mem) if isinstance(mem, (list, tuple)) else [mem]
    if len(ports) == 1:
        return [LinkProbe("arbiter->memory.req", ports[0].req.valid, ports[0].req.ready),
                LinkProbe("memory->arbiter.resp", ports[0].resp.valid, ports[0].resp.ready)]
    return [probe for c, port in enumerate(ports) for probe in (
        LinkProbe(f"interconnect->memory{c}.req", port.req.valid, port.req.ready),
        LinkProbe(f"memory{c}->interconnect.resp", port.resp.valid, port.resp.ready))]


def watch_members(links: int, stalls: bool) -> dict:
    """The sim top's ports for the watchdog (and the stall seed when ``stalls``)."""
    members = {"watchdog_limit": In(32), "hang": Out(1), "quiet_cycles": Out(32),
               "link_valid": Out(links), "link_ready": Out(links)}
    if stalls:
        members["stall_seed"] = In(32)
    return members


def attach_watchdog(m, top, probes: list[LinkProbe], busy):
    """Add a :class:`Watchdog` over ``probes`` to ``m``, wired to ``top``'s watch ports."""
    m.submodules.watchdog = watchdog = Watchdog(len(probes))
    valid, ready = probe_bits(probes)
    m.d.comb += [
        watchdog.valid.eq(valid), watchdog.ready.eq(ready), watchdog.busy.eq(busy),
        watchdog.limit.eq(top.watchdog_limit),
        top.hang.eq(watchdog.hang), top.quiet_cycles.eq(watchdog.quiet_cycles),
        top.link_valid.eq(valid), top.link_ready.eq(ready),
    ]


# Why the design sits behind flip-flops: on every call of its eval() (several per clock cycle
# under cocotb) Verilator recomputes all the logic a top-level input reaches, and Yosys puts
# the reset in every register's next-state logic, so ``rst`` alone reaches most of the design.
# With the reset and the other inputs taken from flip-flops, that logic is computed once per
# clock edge (2 x 2 Graphicionado, PageRank on Kronecker 12: 8,000 cycles/s before, 11,200
# after; see also sim.harness.VERILATOR_VISIBILITY).


def add_behind_registers(m, fragment, name: str):
    """Add ``fragment`` to ``m`` as submodule ``name`` on the clock domain ``core``: the
    top's clock, and the top's reset one cycle later, from a flip-flop (reset at time 0)."""
    m.domains += ClockDomain(CORE)
    reset = Signal(init=1, reset_less=True, name=f"{CORE}_rst")
    m.d.sync += reset.eq(ResetSignal("sync"))
    m.d.comb += [ClockSignal(CORE).eq(ClockSignal("sync")), ResetSignal(CORE).eq(reset)]
    m.submodules[name] = DomainRenamer(CORE)(fragment)


def drive_registered(m, target, source):
    """``target`` (an input of the design) follows ``source`` (an input of the top) one cycle
    later, as the design's reset does under :func:`add_behind_registers`."""
    flop = Signal(len(target), reset_less=True, name=f"{source.name}_q")
    m.d.sync += flop.eq(source)
    m.d.comb += target.eq(flop)


def add_design_and_dram(m, top, fragment, name: str, design, memory, addr_width: int,
                        inputs):
    """What the sim top builds: ``fragment`` (``design``, elaborated) as submodule ``name``
    behind registers, a simulated DRAM with ``memory``'s settings on ``design.mem``, the top's
    ``dump``/``dump_done`` wired to the DRAM, and for each ``(target, source)`` of ``inputs``
    the design's input ``target`` driven from the top's port ``source`` one cycle later.
    Returns the DRAM, whose ``error`` the caller combines with the design's."""
    add_behind_registers(m, fragment, name)
    dram = attach_sim_dram(m, design.mem, memory, addr_width, domain=CORE)
    m.d.comb += top.dump_done.eq(dram.dump_done)
    drive_registered(m, dram.dump, top.dump)
    for target, source in inputs:
        drive_registered(m, target, source)
    return dram
