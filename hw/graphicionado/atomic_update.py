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


__all__ = ["AtomicUpdate", "SCRATCHPAD_READ_STAGES"]

SCRATCHPAD_READ_STAGES = 2


class AtomicUpdate(wiring.Component):
    """Reduces each update into VTempProperty[dst], one per cycle, atomically per vertex.

    The Reduce unit never sees backpressure (P9 always writes), so the only stall is the CAM's.
    The scratchpad read port must be transparent to the write port: an update taken in the
    cycle the previous one of the same vertex is written reads the new value.

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
        The scratchpad's data for the address of the cycle before.
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

        # P6: conflict check; P7: the scratchpad read starts with it.
        taken = Signal()
        m.d.comb += [
            cam.insert.valid.eq(self.i.valid),
            cam.insert.payload.eq(self.i.payload.dst),
            self.i.ready.eq(cam.insert.ready),
            taken.eq(self.i.valid & cam.insert.ready),
            self.temp_read_addr.eq(self.i.payload.dst),
            self.cam_stall.eq(cam.conflict | cam.set_full),
        ]
        read_valid = Signal()
        read_dst = Signal(self._index_width)
        read_value = Signal(32)
        m.d.sync += [read_valid.eq(taken), read_dst.eq(self.i.payload.dst),
                     read_value.eq(self.i.payload.value)]
        # The scratchpad's data is registered twice before Reduce: a large scratchpad is many
        # block RAMs and a multiplexer, and synthesis folds the first register into the block
        # RAMs' outputs, ahead of the multiplexer.
        temp_valid, temp_dst, temp_value, temp = read_valid, read_dst, read_value, \
            self.temp_read_data
        for stage in range(SCRATCHPAD_READ_STAGES):
            next_valid = Signal(name=f"temp{stage}_valid")
            next_dst = Signal(self._index_width, name=f"temp{stage}_dst")
            next_value = Signal(32, name=f"temp{stage}_value")
            next_temp = Signal(32, name=f"temp{stage}")
            m.d.sync += [next_valid.eq(temp_valid), next_dst.eq(temp_dst),
                         next_value.eq(temp_value), next_temp.eq(temp)]
            temp_valid, temp_dst, temp_value, temp = next_valid, next_dst, next_value, next_temp

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
            self.busy.eq(cam.occupancy != 0),
        ]
        return m
