"""Whether a block holds anything: the OR behind every block's ``busy`` and every top's
idle, quiet or drained test, one way for all of them."""

from collections.abc import Iterable

from amaranth.hdl import Cat, Value, ValueCastable

from hw.lib.config import ConfigError


__all__ = ["any_busy"]


def any_busy(*terms) -> Value:
    """1 while any term holds something, 0 once all are empty; ``~any_busy(...)`` is the
    idle (quiet, drained) test.

    Parameters
    ----------
    *terms : Value-castable or iterables of them
        A one-bit term (a unit's ``busy``, a register's or a stream's ``valid``) counts as it
        is; a wider one (a FIFO's ``level``, a count of requests in flight) when it is not 0.
        Lists and generators are flattened.
    """
    flat = []
    for term in terms:
        if isinstance(term, Iterable) and not isinstance(term, (Value, ValueCastable)):
            flat.extend(term)
        else:
            flat.append(term)
    if not flat:
        raise ConfigError("any_busy: no terms")
    bits = []
    for term in flat:
        value = Value.cast(term)
        bits.append(value if len(value) == 1 else value.any())
    return bits[0] if len(bits) == 1 else Cat(*bits).any()
