"""What the simulation tops add around a design: the stall seed handed to its throttles and
the watchdog over its stream links and its memory port.

The design is elaborated when the top is built, so that its links are known (their number
sets the width of the top's ``link_valid`` and ``link_ready`` ports, their names go to the
testbench that reports a hang).
"""

from amaranth.hdl import Fragment
from amaranth.lib.wiring import In, Out

from .stream_throttle import LinkProbe
from .watchdog import Watchdog, probe_bits


__all__ = ["elaborated", "watch_members", "attach_watchdog"]


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
