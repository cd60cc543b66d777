"""Proof that the atomic-update CAM never holds an id twice and never loses one.

The harness offers any id on ``insert`` and ``remove`` each cycle (``AnySeq``) and follows
one id, ``x`` (an ``AnyConst``): ``held`` is whether ``x`` should be in the CAM (set when an
insert of ``x`` is taken, cleared when ``x`` is removed, kept when both happen in one cycle,
the CAM's rejoin). Asserted, every cycle:

* ``tracked``: the CAM holds ``x`` (``probe_hit`` with ``probe_id = x``) exactly when
  ``held``: an inserted id stays until it is removed, and a remove of a held id frees it
  (and a remove of another id, or a refused insert, changes nothing for ``x``);
* ``no_second_copy``: an insert of ``x`` while ``x`` is held is refused, unless ``x`` is
  being removed in the same cycle;
* ``remove_miss``: a remove of ``x`` is flagged as a miss exactly when ``x`` is not held;
* ``unique`` (internal state): no two valid ways of a set hold the same tag, so no id is
  held twice;
* ``occupancy`` (internal state): ``occupancy`` is the number of valid ways.

These are properties of the state, each preserved by a cycle, so the proof is by
k-induction: unbounded. With ``insert_checked=False`` the CAM relies on its user never
offering an id that is held or being removed; the harness then assumes that of every id
offered.
"""

from amaranth.asserts import AnyConst, AnySeq
from amaranth.hdl import Assume, Cat, Elaboratable, Module, Signal
from amaranth.lib import wiring

from hw.lib.cam import AtomicUpdateCAM, CAMConfig
from tests.formal.harnesses.common import Properties, elaborate_with_internals


__all__ = ["CAMHarness", "CAMTakesHeldId", "CAMDropsRemoveDuringInsert", "CAMRemovesWithoutValid"]


class CAMHarness(Elaboratable):
    def __init__(self, config: CAMConfig, *, insert_checked: bool = True, dut=None,
                 only=None):
        self.config = config
        self.insert_checked = insert_checked
        self.dut = dut if dut is not None else AtomicUpdateCAM(config,
                                                               insert_checked=insert_checked)
        self.only = only

    def elaborate(self, platform):
        cfg = self.config
        m = Module()
        props = self.properties = Properties(self.only)
        dut = self.dut
        fragment, internal = elaborate_with_internals(
            dut.inner if isinstance(dut, _BrokenCAM) else dut, platform)
        if isinstance(dut, _BrokenCAM):
            m.submodules.dut = dut
            dut.inner_fragment = fragment
        else:
            m.submodules.dut = fragment

        x = AnyConst(cfg.id_width)
        m.d.comb += [
            dut.insert.valid.eq(AnySeq(1)),
            dut.insert.payload.eq(AnySeq(cfg.id_width)),
            dut.remove.valid.eq(AnySeq(1)),
            dut.remove.payload.eq(AnySeq(cfg.id_width)),
            dut.probe_id.eq(x),
        ]
        insert_x = Signal()
        remove_x = Signal()
        m.d.comb += [
            insert_x.eq(dut.insert.valid & (dut.insert.payload == x)),
            remove_x.eq(dut.remove.valid & (dut.remove.payload == x)),
        ]
        held = Signal()
        m.d.sync += held.eq((insert_x & dut.insert.ready) | (held & ~remove_x))
        valid = [[internal[f"valid_s{s}_w{w}"] for w in range(cfg.ways)]
                 for s in range(cfg.sets)]
        tags = [[internal[f"tag_s{s}_w{w}"] for w in range(cfg.ways)]
                for s in range(cfg.sets)]
        if not self.insert_checked:
            # The user's side of the contract: it offers no id that is held or being removed.
            offered = dut.insert.payload
            in_cam = Cat(valid[s][w] & (offered[:cfg.set_bits] == s) &
                         (tags[s][w] == offered[cfg.set_bits:])
                         for s in range(cfg.sets) for w in range(cfg.ways)).any()
            being_removed = dut.remove.valid & (dut.remove.payload == offered)
            props.add(m, "user", ~(dut.insert.valid & (in_cam | being_removed)), kind=Assume)

        props.add(m, "tracked", dut.probe_hit == held)
        props.add(m, "no_second_copy", ~(insert_x & dut.insert.ready & held & ~remove_x))
        with m.If(remove_x):
            props.add(m, "remove_miss", dut.remove_miss == ~held)

        for s in range(cfg.sets):
            for w in range(cfg.ways):
                for v in range(w + 1, cfg.ways):
                    props.add(m, "unique", ~(valid[s][w] & valid[s][v] &
                                             (tags[s][w] == tags[s][v])))
        bits = [valid[s][w] for s in range(cfg.sets) for w in range(cfg.ways)]
        count = sum(bit.as_unsigned() for bit in bits)
        props.add(m, "occupancy", dut.occupancy == count)
        return m


# Broken variants: each must make the proof fail (tests/formal/test_formal.py).

class _BrokenCAM(wiring.Component):
    """A CAM of the same interface around a real one (``inner``)."""

    def __init__(self, config, **kwargs):
        self.inner = AtomicUpdateCAM(config, **kwargs)
        self.inner_fragment = None      # the harness elaborates ``inner`` itself
        super().__init__(self.inner.signature)

    def wire(self, m):
        inner = self.inner
        m.submodules.inner = inner if self.inner_fragment is None else self.inner_fragment
        m.d.comb += [
            inner.insert.valid.eq(self.insert.valid),
            inner.insert.payload.eq(self.insert.payload),
            self.insert.ready.eq(inner.insert.ready),
            inner.remove.valid.eq(self.remove.valid),
            inner.remove.payload.eq(self.remove.payload),
            self.remove.ready.eq(inner.remove.ready),
            inner.probe_id.eq(self.probe_id),
            self.probe_hit.eq(inner.probe_hit),
            self.occupancy.eq(inner.occupancy),
            self.conflict.eq(inner.conflict),
            self.set_full.eq(inner.set_full),
            self.set_has_free.eq(inner.set_has_free),
            self.remove_miss.eq(inner.remove_miss),
        ]
        return inner


class CAMTakesHeldId(_BrokenCAM):
    """Reports an insert of a held id as taken (``ready`` even on a conflict), as
    ``tests/hw/lib/test_cam.py``'s broken CAM: the id is then in flight twice."""

    def elaborate(self, platform):
        m = Module()
        inner = self.wire(m)
        m.d.comb += self.insert.ready.eq(inner.insert.ready | inner.conflict)
        return m


class CAMDropsRemoveDuringInsert(_BrokenCAM):
    """Loses a remove offered in a cycle in which an insert is offered: the removed id
    stays held."""

    def elaborate(self, platform):
        m = Module()
        inner = self.wire(m)
        m.d.comb += inner.remove.valid.eq(self.remove.valid & ~self.insert.valid)
        return m


class CAMRemovesWithoutValid(_BrokenCAM):
    """Takes the id on ``remove`` as removed every eighth cycle even without
    ``remove.valid``: an id held can vanish."""

    def elaborate(self, platform):
        m = Module()
        inner = self.wire(m)
        cycle = Signal(3)
        m.d.sync += cycle.eq(cycle + 1)
        m.d.comb += inner.remove.valid.eq(self.remove.valid | (cycle == 7))
        return m
