"""Vector forms of the FP32 units, for properties wider than a word: Graphicionado's large
vertex properties (Ham et al. §IV.E) travel as 32-byte flits of eight binary32 lanes, and the
custom compute modules of collaborative filtering work a flit at a time.

* :class:`FP32Lanes` applies an adder or a multiplier lane by lane to two flits;
* :class:`FP32TreeSum` adds a flit's lanes with a tree of adders: neighbours first,
  ``(x0 + x1), (x2 + x3), ...``, then their sums, level by level;
* :class:`FP32PairSum` adds a stream's items two by two, item 2j to item 2j + 1: chained
  after a tree sum it continues the same tree across the flits of a packet.

All keep the units' stream contract (:mod:`hw.lib.arith.fp32`): one operation per cycle, results in
order, the whole pipeline stalling on ``o.ready``; every result is bit for bit NumPy's.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, is_power_of_two, check_int
from hw.lib.arith.fp32 import FP32Adder, FP32Multiplier


__all__ = ["lanes_layout", "check_lanes", "FP32Lanes", "FP32TreeSum", "FP32PairSum"]

_UNITS = {"add": FP32Adder, "mul": FP32Multiplier}


def lanes_layout(lanes: int) -> data.ArrayLayout:
    """A flit's data: ``lanes`` binary32 bit patterns."""
    return data.ArrayLayout(32, lanes)


def check_lanes(owner: str, lanes, *, name: str = "lanes", power_of_two: bool = False):
    """Refuse a lane (or flit) count outside 1..32, or not a power of two when asked."""
    if isinstance(lanes, bool) or not isinstance(lanes, int) or not 1 <= lanes <= 32 or \
            (power_of_two and not is_power_of_two(lanes)):
        kind = "a power of two" if power_of_two else "an integer"
        raise ConfigError(f"{owner}: {name} must be {kind} from 1 to 32, not {lanes!r}")


class FP32Lanes(wiring.Component):
    """``a[k] op b[k]`` for every lane k, ``op`` an FP32 add or multiply; lane 0's unit
    carries the tag. The lanes' pipelines take the same valid and stall together, so they
    stay in step.

    Parameters
    ----------
    op : str
        ``"add"`` or ``"mul"``.
    lanes : int
    tag_width : int
    **options
        For each lane's unit (``lzc_stage`` of :class:`hw.lib.arith.fp32.FP32Adder`).

    Members
    -------
    i : ``In(stream.Signature({a, b: lanes_layout(lanes), tag}))``
    o : ``Out(stream.Signature({result: lanes_layout(lanes), tag}))``
    latency : int (attribute)
        The unit's latency.
    """

    def __init__(self, op: str, lanes: int, tag_width: int = 0, **options):
        if op not in _UNITS:
            raise ConfigError(f"FP32Lanes: op must be one of {', '.join(_UNITS)}, not {op!r}")
        check_lanes("FP32Lanes", lanes)
        self._units = [_UNITS[op](tag_width=tag_width if k == 0 else 0, **options)
                       for k in range(lanes)]
        self.latency = self._units[0].latency
        flit = lanes_layout(lanes)
        super().__init__({
            "i": In(stream.Signature(data.StructLayout({"a": flit, "b": flit,
                                                        "tag": tag_width}))),
            "o": Out(stream.Signature(data.StructLayout({"result": flit,
                                                         "tag": tag_width}))),
        })

    def elaborate(self, platform):
        m = Module()
        for k, unit in enumerate(self._units):
            m.submodules[f"lane{k}"] = unit
            m.d.comb += [
                unit.i.valid.eq(self.i.valid),
                unit.i.payload.a.eq(self.i.payload.a[k]),
                unit.i.payload.b.eq(self.i.payload.b[k]),
                unit.o.ready.eq(self.o.ready),
                self.o.payload.result[k].eq(unit.o.payload.result),
            ]
            if k == 0:
                m.d.comb += [
                    unit.i.payload.tag.eq(self.i.payload.tag),
                    self.i.ready.eq(unit.i.ready),
                    self.o.valid.eq(unit.o.valid),
                    self.o.payload.tag.eq(unit.o.payload.tag),
                ]
        return m


class FP32TreeSum(wiring.Component):
    """The sum of a flit's ``lanes`` by a tree: log2(lanes) levels of adders, level l adding
    neighbouring pairs of level l - 1's sums. With one lane, a wire.

    Parameters
    ----------
    lanes : int
        A power of two.
    tag_width : int

    Members
    -------
    i : ``In(stream.Signature({a: lanes_layout(lanes), tag}))``
    o : ``Out(stream.Signature({result: 32, tag}))``
    latency : int (attribute)
    """

    def __init__(self, lanes: int, tag_width: int = 0):
        check_lanes("FP32TreeSum", lanes, power_of_two=True)
        check_int("FP32TreeSum", "tag_width", tag_width, low=0)
        self._lanes = lanes
        self._tag_width = tag_width
        self.latency = (lanes.bit_length() - 1) * FP32Adder.latency
        super().__init__({
            "i": In(stream.Signature(data.StructLayout({"a": lanes_layout(lanes),
                                                        "tag": tag_width}))),
            "o": Out(stream.Signature(data.StructLayout({"result": 32, "tag": tag_width}))),
        })

    def elaborate(self, platform):
        m = Module()
        valid, values, tag = self.i.valid, list(self.i.payload.a), self.i.payload.tag
        ready_out = self.i.ready
        width = self._lanes
        level = 0
        while width > 1:
            width //= 2
            level += 1
            adders = FP32Lanes("add", width, self._tag_width)
            m.submodules[f"level{level}"] = adders
            m.d.comb += [
                adders.i.valid.eq(valid),
                adders.i.payload.tag.eq(tag),
                ready_out.eq(adders.i.ready),
            ]
            for k in range(width):
                m.d.comb += [adders.i.payload.a[k].eq(values[2 * k]),
                             adders.i.payload.b[k].eq(values[2 * k + 1])]
            valid, values, tag = adders.o.valid, list(adders.o.payload.result), \
                adders.o.payload.tag
            ready_out = adders.o.ready
        m.d.comb += [
            self.o.valid.eq(valid),
            self.o.payload.result.eq(values[0]),
            self.o.payload.tag.eq(tag),
            ready_out.eq(self.o.ready),
        ]
        return m


class FP32PairSum(wiring.Component):
    """Items 2j and 2j + 1 of the input added (in that order), one result per pair with the
    tag of its second item. The first item of a pair waits in a register.

    Parameters
    ----------
    tag_width : int

    Members
    -------
    i : ``In(stream.Signature({value: 32, tag}))``
    o : ``Out(stream.Signature({result: 32, tag}))``
    latency : int (attribute)
        Cycles from a pair's second item to its sum.
    """

    def __init__(self, tag_width: int = 0):
        check_int("FP32PairSum", "tag_width", tag_width, low=0)
        self._tag_width = tag_width
        self.latency = FP32Adder.latency
        super().__init__({
            "i": In(stream.Signature(data.StructLayout({"value": 32, "tag": tag_width}))),
            "o": Out(stream.Signature(data.StructLayout({"result": 32, "tag": tag_width}))),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.adder = adder = FP32Adder(tag_width=self._tag_width)
        held = Signal(32)
        have = Signal()             # the pair's first item is in ``held``
        m.d.comb += [
            adder.i.valid.eq(self.i.valid & have),
            adder.i.payload.a.eq(held),
            adder.i.payload.b.eq(self.i.payload.value),
            adder.i.payload.tag.eq(self.i.payload.tag),
            self.i.ready.eq(~have | adder.i.ready),
        ]
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += have.eq(~have)
            with m.If(~have):
                m.d.sync += held.eq(self.i.payload.value)
        wiring.connect(m, adder.o, wiring.flipped(self.o))
        return m
