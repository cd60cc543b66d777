"""Round-robin choice among requesters: the first request at or after a rotating start, the
one after the requester served last.

The start is kept as a mask of the requesters from it on, and the choice is the lowest request
inside the mask, else the lowest request: two lowest-set-bit terms (``x & -x``), linear in the
requesters. A case per start with a priority chain in each would be quadratic (at 48
requesters, a quarter million lines of Verilog).
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["RoundRobin", "first_request", "above"]


def first_request(m, requests, start, name):
    """One-hot: the lowest of ``requests`` inside the mask ``start``, else the lowest of
    ``requests``; zero when there is none. With ``start`` the requesters from some index on,
    that is the first request at or after that index, in cyclic order."""
    n = len(requests)
    wanted = Signal(n, name=f"{name}_requests")
    inside = Signal(n, name=f"{name}_inside")
    lowest_inside = Signal(n, name=f"{name}_lowest_inside")
    lowest = Signal(n, name=f"{name}_lowest")
    m.d.comb += [wanted.eq(requests),
                 inside.eq(wanted & start),
                 lowest_inside.eq(inside & (~inside + 1)[:n]),
                 lowest.eq(wanted & (~wanted + 1)[:n])]
    return Mux(inside.any(), lowest_inside, lowest)


def above(one_hot):
    """The mask of the bits above the one set in ``one_hot`` (none after the last bit, and
    then :func:`first_request` wraps to the lowest request)."""
    return Cat(one_hot[:index].any() for index in range(len(one_hot)))


class RoundRobin(wiring.Component):
    """Grants the first request at or after the one after the requester served last.

    The grant is combinational from ``requests`` and a register; serving a requester (which
    need not be the one granted: a user may hold an earlier grant) moves the start to the one
    after it.

    Parameters
    ----------
    count : int
        Requesters, at least 1.
    first : int
        The requester that comes first after reset (0 by default).

    Members
    -------
    requests : ``In(count)``
    grant : ``Out(count)``
        One-hot, zero when nothing is requested.
    served : ``In(count)``
        One-hot or zero: the requester served this cycle.
    """

    def __init__(self, count: int, *, first: int = 0):
        if count < 1:
            raise ConfigError(f"RoundRobin: count must be at least 1, not {count!r}")
        if not 0 <= first < count:
            raise ConfigError(f"RoundRobin: first must be a requester (0 to {count - 1}), "
                              f"not {first!r}")
        self._count = count
        self._first = first
        super().__init__({
            "requests": In(count),
            "grant": Out(count),
            "served": In(count),
        })

    def elaborate(self, platform):
        m = Module()
        n = self._count
        start = Signal(n, init=((1 << n) - 1) & ~((1 << self._first) - 1))
        m.d.comb += self.grant.eq(first_request(m, self.requests, start, "rr"))
        with m.If(self.served.any()):
            m.d.sync += start.eq(above(self.served))
        return m
