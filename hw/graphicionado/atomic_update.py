"""Atomic Update (Graphicionado §3.2, stages P6–P9, with VTempProperty in the on-chip
scratchpad of §4.A).

P6 checks the destination id against the atomic-update CAM and stalls while the same vertex
is in flight; P7 reads VTempProperty[dst] from the scratchpad; P8 is the Reduce unit; P9
writes the result back. The id leaves the CAM before P9, as soon as a read of the vertex
could no longer reach the Reduce unit ahead of the write-back it depends on; the Reduce
unit takes that write-back's value in place of what the read returned.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.cam import AtomicUpdateCAM, CAMConfig
from hw.lib.config import ConfigError, check_int
from .layouts import Update
from .scratchpad import TEMP_READ_LATENCY, TEMP_WRITE_LATENCY, check_word_width


__all__ = ["AtomicUpdate", "update_layout"]


def update_layout(value_width: int) -> data.StructLayout:
    """An update of a scratchpad word: :data:`Update` when the word is 32 bits."""
    return Update if value_width == 32 else data.StructLayout({"dst": 32, "value": value_width})


class AtomicUpdate(wiring.Component):
    """Reduces each update into VTempProperty[dst], one per cycle, atomically per vertex.

    The Reduce unit never sees backpressure (P9 always writes), so the only stall is the CAM's.
    An update of a vertex is issued no earlier than ``reduce_unit.latency + 1`` cycles after
    the previous update of that vertex, and the previous one's write-back may come after
    the new one's scratchpad read (even in its cycle, when the scratchpad's data is
    undefined): the Reduce unit then gets the written value from a register of the last
    ``TEMP_READ_LATENCY + TEMP_WRITE_LATENCY`` write-backs, or the one being offered,
    instead.

    Parameters
    ----------
    reduce_unit : Component
        A stream unit with ``i`` = {a, b, tag} and ``o`` = {result, tag}, ``tag`` as wide as
        ``index_width`` (``hw.lib.arith.integer.Minimum``, an FP32 adder, ...).
    cam : :class:`CAMConfig`
    index_width : int
        Scratchpad address width.
    value_width : int
        Bits of a VTempProperty word: 32, or a flit of a large property (§IV.E: 8 lanes of
        32 bits, reduced lane by lane by an :class:`hw.lib.arith.fp32_vector.FP32Lanes` adder; the
        address then names the vertex's flit).
    window : int
        Updates P6 chooses from: 1, the paper's in-order stage; 2, the younger of two is
        issued while the older waits on the CAM, unless both are of one vertex (a vertex's
        updates, and so its Reduce order, keep their order).

    Members
    -------
    i : ``In(stream.Signature(update_layout(value_width)))``
        :data:`Update` for 32-bit values.
    temp_read_addr : ``Out``; temp_read_data : ``In(value_width)``
        The scratchpad's data for the address of ``TEMP_READ_LATENCY`` cycles before.
    temp_write_addr, temp_write_data, temp_write_en : ``Out``
    busy : ``Out(1)``
        An update is between P6 and P9, or its write-back is not yet made in the
        scratchpad.
    cam_stall : ``Out(1)``
        P6 holds an update and issues none this cycle.
    """

    def __init__(self, *, reduce_unit, cam: CAMConfig, index_width: int, value_width: int = 32,
                 window: int = 1):
        check_word_width("AtomicUpdate", "value_width", value_width)
        if window not in (1, 2):
            raise ConfigError(f"AtomicUpdate: window must be 1 or 2, not {window!r}")
        self._window = window
        if not isinstance(reduce_unit, wiring.Component) or \
                not {"i", "o"} <= set(reduce_unit.signature.members.keys()) or \
                not isinstance(getattr(reduce_unit, "latency", None), int):
            raise ConfigError(f"AtomicUpdate: reduce_unit must be a stream unit (a Component "
                              f"with i, o and a latency), not {reduce_unit!r}")
        if not isinstance(cam, CAMConfig):
            raise ConfigError(f"AtomicUpdate needs a CAMConfig, not {type(cam).__name__}")
        check_int("AtomicUpdate", "index_width", index_width, high=32)
        self._reduce = reduce_unit
        self._cam_config = cam
        self._index_width = index_width
        self._value_width = value_width
        super().__init__({
            "i": In(stream.Signature(update_layout(value_width))),
            "temp_read_addr": Out(index_width),
            "temp_read_data": In(value_width),
            "temp_write_addr": Out(index_width),
            "temp_write_data": Out(value_width),
            "temp_write_en": Out(1),
            "busy": Out(1),
            "cam_stall": Out(1),
        })

    def _p6(self, m, cam):
        """P6: the updates waiting for the CAM, oldest first; returns whether one waits, the
        one offered to the CAM and whether it is issued this cycle."""
        # Each waiting update is held in a register together with whether its id is in the
        # CAM. That is worked out a cycle ahead, for the update that will sit there next
        # cycle, from the CAM's probe and this cycle's insert and remove. Taking an update then
        # needs no tag comparison, which keeps the CAM off the path to the FIFO in front, and
        # the CAM need not compare the id it inserts. (An id written back in the cycle it is
        # waiting is taken the cycle after, not in the same one.) The parts of that bit are
        # registers of their own, joined in :meth:`_Waiting.hit`: the probe (a tag comparison
        # and the OR over the ways) then reaches a flip-flop without the corrections for this
        # cycle's insert and remove and the choice of update after it.
        older = _Waiting(self._value_width, "p6")
        younger = _Waiting(self._value_width, "p6_younger") if self._window == 2 else None
        offered = self.i.payload
        older_ready = older.valid & ~older.hit()
        chosen = Signal(update_layout(self._value_width))
        pick_younger = Signal()
        if younger is not None:
            # The younger update goes past the older one while that waits on the CAM. One of
            # the same vertex waits as well (its id is in the CAM): a vertex's updates keep
            # their order.
            younger_ready = younger.valid & ~younger.hit()
            m.d.comb += pick_younger.eq(~older_ready & younger_ready)
        m.d.comb += chosen.eq(Mux(pick_younger, younger.update if younger else 0, older.update))
        candidate = older_ready | pick_younger
        issue = Signal()
        m.d.comb += [
            cam.probe_id.eq(offered.dst),
            cam.insert.valid.eq(candidate),
            cam.insert.payload.eq(chosen.dst),
            issue.eq(candidate & cam.set_has_free),
            self.cam_stall.eq(older.valid & ~issue),
            self.temp_read_addr.eq(chosen.dst),
        ]
        # The offered id against each slot's, in parallel: the issue decision then only
        # selects a result (it is the longest path into the next cycle's hit bits).
        same_as_older = offered.dst == older.update.dst
        same_as_younger = (offered.dst == younger.update.dst) if younger is not None else 0
        arriving = {"valid": self.i.valid, "update": offered, "probe": cam.probe_hit,
                    "removed": _removing(cam, offered.dst),
                    "same": issue & Mux(pick_younger, same_as_younger, same_as_older),
                    "cleared": 0}
        older_issued = issue & ~pick_younger
        if younger is None:
            m.d.comb += self.i.ready.eq(~older.valid | issue)
            older.next(m, cam, arriving, load=~older.valid | issue)
            return older.valid, chosen, issue
        m.d.comb += self.i.ready.eq(~younger.valid | issue)
        with m.If(older_issued & younger.valid):
            older.take(m, younger, cam, issued_same=younger.behind)
        with m.Else():
            older.next(m, cam, arriving, load=older_issued | ~older.valid)
        # The offered update goes to the older slot when that is left empty, else to the
        # younger one when it is (or is being) emptied.
        moving_up = older_issued & younger.valid
        younger_load = moving_up | (issue & pick_younger) | (older.valid & ~younger.valid &
                                                             ~older_issued)
        behind = Mux(moving_up, same_as_younger, same_as_older)
        younger.next(m, cam, {**arriving, "behind": behind}, load=younger_load)
        return older.valid, chosen, issue

    def _issued(self, m, taken, held):
        """The updates issued in the last cycles: ``valid[k]``, ``dst[k]``, ``value[k]`` for
        the one taken k cycles ago."""
        # An update read at cycle t has its scratchpad data at t + TEMP_READ_LATENCY, where
        # the operand is chosen and registered (the data comes from block RAMs all over the
        # chip), enters the Reduce unit a cycle later and is written back ``latency`` cycles
        # after that (made in the scratchpad TEMP_WRITE_LATENCY cycles later still). Its id
        # leaves the CAM ``latency`` cycles after t, so the next update of the vertex may be
        # read before that write is made: its operand is then the newest write-back of the
        # vertex among those of the last TEMP_READ_LATENCY + TEMP_WRITE_LATENCY cycles and
        # the one offered now, instead of the scratchpad's data. The vertex's updates follow
        # each other every latency + 1 cycles.
        read_latency, latency = TEMP_READ_LATENCY, self._reduce.latency
        valid = [taken]   # valid[k]: the update taken k cycles ago
        dst = [held.dst]
        value = [held.value]
        # (valid goes on until the write-back is made in the scratchpad, for ``busy``.)
        for k in range(1, read_latency + 1 + latency + TEMP_WRITE_LATENCY + 1):
            valid.append(Signal(name=f"issued{k}_valid"))
            m.d.sync += valid[k].eq(valid[k - 1])
            if k <= max(read_latency + 1, latency):
                dst.append(Signal(self._index_width, name=f"issued{k}_dst"))
                m.d.sync += dst[k].eq(dst[k - 1])
            if k <= read_latency + 1:
                value.append(Signal(self._value_width, name=f"issued{k}_value"))
                m.d.sync += value[k].eq(value[k - 1])
        return valid, dst, value

    def _operand(self, m, reduce, dst):
        """P7's operand: the scratchpad's data, or the newest write-back of the vertex."""
        read_latency = TEMP_READ_LATENCY
        window = TEMP_READ_LATENCY + TEMP_WRITE_LATENCY
        # The write-backs of the last ``window`` cycles, newest first, and whether each is of
        # the vertex whose data arrives now, worked out a cycle ahead; the one offered now is
        # compared in this cycle (its tag and the update's id are registers nearby).
        written = [(reduce.o.valid, reduce.o.payload.tag, reduce.o.payload.result)]
        for k in range(1, window + 1):
            registers = (Signal(name=f"written{k}_valid"),
                         Signal(self._index_width, name=f"written{k}_dst"),
                         Signal(self._value_width, name=f"written{k}_value"))
            m.d.sync += [register.eq(source)
                         for register, source in zip(registers, written[k - 1])]
            written.append(registers)
        forward = Signal(window, name="forward")
        m.d.sync += forward.eq(Cat(written_valid & (written_dst == dst[read_latency - 1])
                                   for written_valid, written_dst, _ in written[:window]))
        forward_now = reduce.o.valid & (reduce.o.payload.tag == dst[read_latency])
        choice = self.temp_read_data
        for k in reversed(range(window)):
            choice = Mux(forward[k], written[k + 1][2], choice)
        choice = Mux(forward_now, reduce.o.payload.result, choice)
        operand = Signal(self._value_width, name="operand")
        m.d.sync += operand.eq(choice)
        return operand

    def elaborate(self, platform):
        m = Module()
        m.submodules.cam = cam = AtomicUpdateCAM(self._cam_config, insert_checked=False,
                                                  free_registers=True)
        m.submodules.reduce = reduce = self._reduce

        held_valid, held, taken = self._p6(m, cam)
        valid, dst, value = self._issued(m, taken, held)
        operand = self._operand(m, reduce, dst)
        read_latency, latency = TEMP_READ_LATENCY, self._reduce.latency

        # P8: Reduce(VTempProperty[dst], value).
        m.d.comb += [
            reduce.i.valid.eq(valid[read_latency + 1]),
            reduce.i.payload.a.eq(operand),
            reduce.i.payload.b.eq(value[read_latency + 1]),
            reduce.i.payload.tag.eq(dst[read_latency + 1]),
            reduce.o.ready.eq(1),
        ]

        # P9: write back. The CAM lets the vertex in again ``latency`` cycles after its read.
        m.d.comb += [
            self.temp_write_en.eq(reduce.o.valid),
            self.temp_write_addr.eq(reduce.o.payload.tag),
            self.temp_write_data.eq(reduce.o.payload.result),
            cam.remove.valid.eq(valid[latency]),
            cam.remove.payload.eq(dst[latency]),
            self.busy.eq(any_busy(held_valid, valid[1:])),
        ]
        return m


class _Waiting:
    """An update waiting at P6, with the parts of whether its id is in the CAM."""

    def __init__(self, value_width: int, name: str):
        self.valid = Signal(name=f"{name}_valid")
        self.update = Signal(update_layout(value_width), name=f"{name}_update")
        self.probe = Signal(name=f"{name}_hit_probe")      # the CAM held the id when loaded
        self.removed = Signal(name=f"{name}_hit_removed")  # ... and removed it in that cycle
        self.same = Signal(name=f"{name}_hit_same")        # an update of it was issued then
        self.cleared = Signal(name=f"{name}_hit_cleared")  # the id was removed since
        self.behind = Signal(name=f"{name}_behind")        # of the older update's vertex

    def hit(self):
        """The id is in the CAM."""
        return ((self.probe & ~self.removed) | self.same) & ~self.cleared

    def _kept(self, m, cam):
        m.d.sync += self.cleared.eq(self.cleared | _removing(cam, self.update.dst))

    def next(self, m, cam, arriving: dict, *, load):
        """Takes ``arriving`` (the offered update and its probe) when ``load``, else keeps
        the update and follows its id's removal."""
        with m.If(load):
            m.d.sync += [getattr(self, name).eq(value) for name, value in arriving.items()]
        with m.Else():
            self._kept(m, cam)

    def take(self, m, younger: "_Waiting", cam, *, issued_same):
        """Takes the younger update as the older one is issued; ``issued_same``: both are of
        one vertex, whose id the CAM holds from now on."""
        m.d.sync += [self.valid.eq(younger.valid), self.update.eq(younger.update),
                     self.probe.eq(younger.probe), self.removed.eq(younger.removed),
                     self.same.eq(younger.same | issued_same)]
        with m.If(issued_same):
            m.d.sync += self.cleared.eq(0)
        with m.Else():
            m.d.sync += self.cleared.eq(younger.cleared | _removing(cam, younger.update.dst))


def _removing(cam, dst):
    """The CAM removes ``dst`` this cycle."""
    return cam.remove.valid & (cam.remove.payload == dst)
