"""The interfaces between a host and a design run through registers (a
:class:`~hw.lib.registers.design.RegisterDesign`): the register file's write port and the run
control, seen from the host (a design takes them ``In``), and the status counters the design
drives (``Out``).

A grouped member reaches the emitted Verilog as one port per signal, its path joined with
``__``: ``regs__addr``, ``control__start``, ``counters__cycles``.
"""

from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError


__all__ = ["REGISTER_ADDR_WIDTH", "REGISTER_WIDTH", "RegisterWriteSignature",
           "RunControlSignature", "CountersSignature"]

REGISTER_ADDR_WIDTH = 8     # up to 256 registers
REGISTER_WIDTH = 32


class RegisterWriteSignature(wiring.Signature):
    """The register file's write port, seen from the host: while ``write`` is high, each
    cycle writes ``data`` to register ``addr``.

    Members
    -------
    addr : ``Out(8)``
    data : ``Out(32)``
    write : ``Out(1)``
    """

    def __init__(self):
        super().__init__({"addr": Out(REGISTER_ADDR_WIDTH), "data": Out(REGISTER_WIDTH),
                          "write": Out(1)})

    def __eq__(self, other):
        return type(other) is type(self)

    def __repr__(self):
        return "RegisterWriteSignature()"


class RunControlSignature(wiring.Signature):
    """A run, seen from the host: a one-cycle pulse on ``start`` begins it with the values
    of the registers; ``busy`` is high while it runs, ``done`` rises when it has ended,
    ``error`` reports a fault of the run.

    Members
    -------
    start : ``Out(1)``
    busy : ``In(1)``
    done : ``In(1)``
    error : ``In(1)``
    """

    def __init__(self):
        super().__init__({"start": Out(1), "busy": In(1), "done": In(1), "error": In(1)})

    def __eq__(self, other):
        return type(other) is type(self)

    def __repr__(self):
        return "RunControlSignature()"


class CountersSignature(wiring.Signature):
    """A design's status counters, seen from the design, which counts them from ``start``
    on; the host reads them after ``done``.

    Members
    -------
    <name> : ``Out(32)`` for every name of ``names``, in that order
    """

    def __init__(self, names):
        names = tuple(names)
        if not names or len(set(names)) != len(names) or not all(
                isinstance(name, str) and name.isidentifier() and not name.startswith("_")
                for name in names):
            raise ConfigError(f"CountersSignature: distinct identifiers not starting with '_' "
                              f"needed, not {names!r}")
        self._names = names
        super().__init__({name: Out(32) for name in names})

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    def __eq__(self, other):
        return type(other) is type(self) and other._names == self._names

    def __repr__(self):
        return f"CountersSignature({self._names!r})"
