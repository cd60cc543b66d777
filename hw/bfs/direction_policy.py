"""The direction rule of the BFS engine's level loop (Enterprise §4.3): after a top-down
level, go bottom-up when the level visited more than ``gamma_percent`` of the hubs
(Enterprise's gamma, equation 1); after a bottom-up level, go back to top-down for the tail
when the level visited fewer than ``n / tail_beta`` vertices and fewer than the level before
(Beamer's beta, as Enterprise gives no rule for going back), and only once.

The compare is in integers, ``gamma_percent * hubs < 100 * hubs_found``, as the golden model
(golden/bfs/traversal.py) makes it; a graph without hubs never switches.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError
from .config import DIRECTIONS


__all__ = ["DirectionPolicy"]


class DirectionPolicy(wiring.Component):
    """Which way the next level goes, decided from the level just expanded: the products of
    the gamma rule are registers, so the answers follow the inputs a cycle later (the level
    controller reads them once its figures have stood still for longer).

    Parameters
    ----------
    direction : str
        ``auto`` applies the rules; ``topdown`` and ``bottomup`` never switch (both outputs
        stay 0).
    gamma_percent : int
        Enterprise's gamma threshold, 0..100.

    Members
    -------
    hubs : ``In(32)``
        Hubs in the graph (the hub count before level 1).
    hubs_found : ``In(32)``
        Hubs the top-down level just expanded visited.
    switched_back : ``In(1)``
        The tail rule has already sent the search back top-down: no switch down again.
    visited, previous_visited : ``In(32)``
        Vertices the bottom-up level just expanded visited, and the level before it.
    tail_limit : ``In(32)``
        ``n / tail_beta``, rounded up, from the host.
    to_bottom_up : ``Out(1)``
        After a top-down level: the next goes bottom-up.
    to_top_down : ``Out(1)``
        After a bottom-up level: the next goes top-down (the tail).
    """

    def __init__(self, *, direction: str, gamma_percent: int):
        if direction not in DIRECTIONS:
            raise ConfigError(f"DirectionPolicy: direction must be one of "
                              f"{', '.join(DIRECTIONS)}, not {direction!r}")
        if not 0 <= gamma_percent <= 100:
            raise ConfigError(f"DirectionPolicy: gamma_percent must be 0..100, "
                              f"not {gamma_percent!r}")
        self._direction = direction
        self._gamma = gamma_percent
        super().__init__({
            "hubs": In(32), "hubs_found": In(32), "switched_back": In(1),
            "visited": In(32), "previous_visited": In(32), "tail_limit": In(32),
            "to_bottom_up": Out(1), "to_top_down": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        if self._direction == "auto":
            scaled_hubs, scaled_found = Signal(39), Signal(39)
            m.d.sync += [scaled_hubs.eq(self._gamma * self.hubs),
                         scaled_found.eq(100 * self.hubs_found)]
            m.d.comb += [
                self.to_bottom_up.eq((scaled_hubs < scaled_found) &
                                     (self.hubs != 0) & ~self.switched_back),
                self.to_top_down.eq((self.visited < self.tail_limit) &
                                    (self.visited < self.previous_visited)),
            ]
        return m
