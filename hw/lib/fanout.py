"""Copies of a register, each driving one part of a wide fan-out.

A 512-bit line register's clock enable, or the select of a multiplexer between lines, is one
net with hundreds of loads; on an FPGA the placer spreads those loads over the chip and the
net's routing alone can take longer than a clock period (the routed ECP5 builds of issue 51:
13 to 19 ns on one such net). Several registers that take the same next value, each driving
the loads near it, make several short nets instead; the logic feeding them then fans out to
a handful of registers instead of hundreds of loads.

Synthesis merges registers with the same inputs, so the copies carry ``keep``: Vivado and
Quartus keep such registers apart, and graphgen's own Yosys flows mark the flip-flop behind
every ``keep`` wire as kept too (``synth.steps.read_command``), which stops Yosys's
``opt_merge`` from folding them back into one. A flow that does not gets one register and
the same behaviour, only without the timing benefit.
"""

from amaranth.hdl import Signal, Value, ValueCastable

from hw.lib.config import check_int


__all__ = ["COPY_ATTRS", "LANE_BITS", "register_copies", "lane_slices", "lanes_for"]


# The attribute every copy carries (see the module docstring).
COPY_ATTRS = {"keep": 1}
# Bits a lane of a wide register holds at most, where a block cuts a payload into lanes by
# its width: a 512-bit line in four, a line request with its address in five.
LANE_BITS = 128


def register_copies(m, next_value, copies: int, *, name: str, shape=None, init=0,
                    reset_less: bool = False, domain: str = "sync") -> list[Signal]:
    """``copies`` registers in ``domain`` that all take ``next_value`` every cycle, so all
    hold the same value; give each its own part of the loads.

    Parameters
    ----------
    m : Module
    next_value : Value-castable
        What every copy takes at the clock edge.
    copies : int
        Number of registers (at least 1).
    name : str
        Copy ``k`` is named ``{name}_copy{k}``.
    shape : shape-like, optional
        The registers' shape (``next_value``'s by default).
    init : int
        Value after reset.
    reset_less : bool
        As :class:`Signal`'s.
    """
    check_int("register_copies", "copies", copies)
    if shape is None:
        shape = (next_value.shape() if isinstance(next_value, ValueCastable)
                 else Value.cast(next_value).shape())
    registers = []
    for k in range(copies):
        register = Signal(shape, name=f"{name}_copy{k}", init=init,
                          reset_less=reset_less, attrs=COPY_ATTRS)
        m.d[domain] += register.eq(next_value)
        registers.append(register)
    return registers


def lane_slices(width: int, lanes: int) -> list[slice]:
    """``width`` bits cut into ``lanes`` runs of nearly equal length, low bits first."""
    check_int("lane_slices", "lanes", lanes)
    check_int("lane_slices", "width", width)
    bounds = [width * k // lanes for k in range(lanes + 1)]
    return [slice(lo, hi) for lo, hi in zip(bounds, bounds[1:]) if hi > lo]


def lanes_for(width: int) -> int:
    """Lanes of at most :data:`LANE_BITS` bits for a payload of ``width`` bits."""
    return max(1, -(-width // LANE_BITS))
