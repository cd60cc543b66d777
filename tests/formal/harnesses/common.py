"""Helpers shared by the proof harnesses."""

from amaranth.hdl import Assert, Fragment, Module, Signal, Value
from amaranth.lib import data


__all__ = ["Properties", "elaborate_with_internals", "stream_rule", "as_value"]


def as_value(payload) -> Value:
    return payload.as_value() if isinstance(payload, data.View) else Value.cast(payload)


class Properties:
    """The named properties of a harness: each ``Assert``/``Assume`` is made by :meth:`add`,
    which remembers its source line, so that a failure reported by SymbiYosys ("failed
    assertion ... at FILE:LINE") can be told by name (:meth:`failed`)."""

    def __init__(self, only=None):
        self.names = {}
        self.only = None if only is None else set(only)

    def add(self, m: Module, name: str, test, *, kind=Assert, src_loc_at: int = 0):
        """Add ``kind(test)`` as part of property ``name``; an ``Assert`` of a property not
        among ``only`` (when given) is left out, so a test can show that one property alone
        catches a broken design."""
        if kind is Assert and self.only is not None and name not in self.only:
            return
        statement = kind(test, src_loc_at=1 + src_loc_at)
        filename, line = statement.src_loc
        self.names.setdefault((filename, line), set()).add(name)
        m.d.comb += statement

    def failed(self, failures) -> set:
        """The names of the properties among ``failures`` (``ProofResult.failures``)."""
        found = set()
        for failure in failures:
            location = failure.rsplit(" at ", 1)[-1].split(" step ")[0]
            filename, _, line = location.rpartition(":")
            if line.isdigit():
                found |= self.names.get((filename, int(line)), {f"?{location}"})
        return found


def elaborate_with_internals(dut, platform):
    """Elaborate ``dut`` and return ``(fragment, signals)``, ``signals`` mapping the name of
    every signal its own module drives (not its submodules') to the signal: a harness may
    then state invariants over a design's internal state. Add the fragment, not ``dut``, as
    the harness's submodule."""
    fragment = Fragment.get(dut, platform)
    signals = {}
    for statements in fragment.statements.values():
        for statement in statements:
            for signal in statement._lhs_signals():
                signals.setdefault(signal.name, signal)
    return fragment, signals


def stream_rule(m: Module, props: Properties, name: str, stream, *, kind=Assert,
                payload=None):
    """Rule 2 of Amaranth's stream rules on ``stream``: once ``valid`` is asserted, ``valid``
    stays asserted and ``payload`` unchanged until a transfer. ``kind`` is ``Assert`` for a
    stream the design drives, ``Assume`` for one its environment drives. The property is
    called ``name``. ``payload``, when given, is the part of the payload checked (leave out
    wide fields a proof holds constant)."""
    payload = as_value(stream.payload if payload is None else payload)
    stalled = Signal(name=f"{stream.valid.name}_stalled")
    held = Signal(len(payload), name=f"{stream.valid.name}_held_payload")
    m.d.sync += [stalled.eq(stream.valid & ~stream.ready), held.eq(payload)]
    with m.If(stalled):
        props.add(m, name, stream.valid, kind=kind)
        props.add(m, name, payload == held, kind=kind)
