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
    """The design's memory port (seen from the design) as two more links."""
    return [LinkProbe("arbiter->memory.req", mem.req.valid, mem.req.ready),
            LinkProbe("memory->arbiter.resp", mem.resp.valid, mem.resp.ready)]


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
