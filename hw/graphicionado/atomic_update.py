"""Atomic Update (Graphicionado §3.2, stages P6–P9, with VTempProperty in the on-chip
scratchpad of §4.A).

P6 checks the destination id against the atomic-update CAM and stalls while the same vertex
is in flight; P7 reads VTempProperty[dst] from the scratchpad; P8 is the Reduce unit; P9
writes the result back and removes the id from the CAM.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..atomic_update_cam import AtomicUpdateCAM, CAMConfig
from .layouts import Update
from .scratchpad import TEMP_READ_LATENCY


__all__ = ["AtomicUpdate"]


class AtomicUpdate(wiring.Component):
    """Reduces each update into VTempProperty[dst], one per cycle, atomically per vertex.

    The Reduce unit never sees backpressure (P9 always writes), so the only stall is the CAM's.
    An update of a vertex is issued no earlier than the cycle after the previous update of
    that vertex was written, so its scratchpad read sees the written value without the
    scratchpad forwarding anything.

    Parameters
    ----------
    reduce_unit : Component
        A stream unit with ``i`` = {a, b, tag} and ``o`` = {result, tag}, ``tag`` as wide as
        ``index_width`` (``hw.integer_units.Minimum``, an FP32 adder, ...).
    cam : :class:`CAMConfig`
    index_width : int
        Scratchpad address width.

    Members
    -------
    i : ``In(stream.Signature(Update))``
    temp_read_addr : ``Out``; temp_read_data : ``In(32)``
        The scratchpad's data for the address of ``TEMP_READ_LATENCY`` cycles before.
    temp_write_addr, temp_write_data, temp_write_en : ``Out``
    busy : ``Out(1)``
        An update is between P6 and P9.
    cam_stall : ``Out(1)``
        An update waits at P6 this cycle.
    """

    def __init__(self, *, reduce_unit, cam: CAMConfig, index_width: int):
        self._reduce = reduce_unit
        self._cam_config = cam
        self._index_width = index_width
        super().__init__({
            "i": In(stream.Signature(Update)),
            "temp_read_addr": Out(index_width),
            "temp_read_data": In(32),
            "temp_write_addr": Out(index_width),
            "temp_write_data": Out(32),
            "temp_write_en": Out(1),
            "busy": Out(1),
            "cam_stall": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.cam = cam = AtomicUpdateCAM(self._cam_config)
        m.submodules.reduce = reduce = self._reduce

        # P6 holds one update in a register together with whether its id is in the CAM. That
        # bit is worked out a cycle ahead, for the update that will sit here next cycle (the
        # one here now, or the one offered), from the CAM's probe and this cycle's insert and
        # remove. Taking an update then needs no tag comparison, which keeps the CAM off the
        # path to the FIFO in front. (An id written back in the cycle it is waiting here is
        # taken the cycle after, not in the same one.)
        held_valid = Signal()
        held = Signal(Update)
        held_hit = Signal()
        issue = Signal()
        load = Signal()
        offered = self.i.payload
        removing = cam.remove.valid & (cam.remove.payload == offered.dst)
        removing_held = cam.remove.valid & (cam.remove.payload == held.dst)
        offered_hit = ((cam.probe_hit & ~removing) | (issue & (held.dst == offered.dst)))
        m.d.comb += [
            cam.probe_id.eq(offered.dst),
            cam.insert.valid.eq(held_valid & ~held_hit),
            cam.insert.payload.eq(held.dst),
            issue.eq(held_valid & ~held_hit & cam.set_has_free),
            load.eq(~held_valid | issue),
            self.i.ready.eq(load),
            self.cam_stall.eq(held_valid & ~issue),
            self.temp_read_addr.eq(held.dst),
        ]
        with m.If(load):
            m.d.sync += [held_valid.eq(self.i.valid), held.eq(offered),
                         held_hit.eq(offered_hit)]
        with m.Else():
            m.d.sync += held_hit.eq(held_hit & ~removing_held)
        taken = issue

        # The update travels beside its scratchpad read (TEMP_READ_LATENCY cycles).
        temp_valid, temp_dst, temp_value = taken, held.dst, held.value
        for stage in range(TEMP_READ_LATENCY):
            next_valid = Signal(name=f"read{stage}_valid")
            next_dst = Signal(self._index_width, name=f"read{stage}_dst")
            next_value = Signal(32, name=f"read{stage}_value")
            m.d.sync += [next_valid.eq(temp_valid), next_dst.eq(temp_dst),
                         next_value.eq(temp_value)]
            temp_valid, temp_dst, temp_value = next_valid, next_dst, next_value
        temp = self.temp_read_data

        # P8: Reduce(VTempProperty[dst], value).
        m.d.comb += [
            reduce.i.valid.eq(temp_valid),
            reduce.i.payload.a.eq(temp),
            reduce.i.payload.b.eq(temp_value),
            reduce.i.payload.tag.eq(temp_dst),
            reduce.o.ready.eq(1),
        ]

        # P9: write back, and the vertex may enter P6 again.
        m.d.comb += [
            self.temp_write_en.eq(reduce.o.valid),
            self.temp_write_addr.eq(reduce.o.payload.tag),
            self.temp_write_data.eq(reduce.o.payload.result),
            cam.remove.valid.eq(reduce.o.valid),
            cam.remove.payload.eq(reduce.o.payload.tag),
            self.busy.eq(held_valid | (cam.occupancy != 0)),
        ]
        return m
