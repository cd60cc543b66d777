"""The vertex-store bank's answer queues and their credits (DepGraph, Zhang et al., HPCA 2021,
§III-B: the bank answers the HDTL's folds and probes, the writer's reads, and pushes to the
circular queue).

The bank's pipeline never stalls, so an op may enter it only when its answer will have room:
each queue has a credit counter (ops in flight towards it plus entries queued), taken when an
op is picked and given back when its answer leaves the queue. Loads and updates take a
``push`` credit each, since whether they push is known only at the pipeline's end, where an
unused credit is given back.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import check_int
from hw.lib.stream.fifo import StreamFIFO
from .layouts import VisitResult


__all__ = ["BankOutputs", "OUTPUTS"]

# The queues, in the order of ``room`` and ``gain`` (probes are answered beside the pipeline,
# by :class:`hw.depgraph.probe_port.ProbePort`).
OUTPUTS = ("visited", "dumped", "push")
_SHAPES = {"visited": VisitResult, "dumped": 32, "push": 32}


class BankOutputs(wiring.Component):
    """Three answer queues of ``depth`` entries with their credits.

    Members
    -------
    visited_in, dumped_in, push_in : ``In(stream.Signature(...))``
        From the pipeline's last stage; never refused (the credits guarantee room), so their
        ``ready`` is not used.
    visited, dumped, push : ``Out(stream.Signature(...))``
        The bank's outputs.
    gain : ``In(3)``
        A credit of that queue is taken (an op that answers into it is picked).
    unused_push : ``In(1)``
        A load or update left the pipeline without pushing: its ``push`` credit comes back.
    room : ``Out(3)``
        The queue has a credit left.
    busy : ``Out(1)``
        Some queue holds an answer.
    """

    def __init__(self, *, depth: int):
        check_int("BankOutputs", "depth", depth)
        self._depth = depth
        members = {}
        for name in OUTPUTS:
            members[f"{name}_in"] = In(stream.Signature(_SHAPES[name]))
            members[name] = Out(stream.Signature(_SHAPES[name]))
        members.update({"gain": In(len(OUTPUTS)), "unused_push": In(1),
                        "room": Out(len(OUTPUTS)), "busy": Out(1)})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        depth = self._depth
        levels = []
        for k, name in enumerate(OUTPUTS):
            queue = StreamFIFO(getattr(self, name).payload.shape(), depth)
            m.submodules[f"{name}_queue"] = queue
            wiring.connect(m, wiring.flipped(getattr(self, f"{name}_in")), queue.i)
            wiring.connect(m, queue.o, wiring.flipped(getattr(self, name)))
            used = Signal(range(depth + 1), name=f"{name}_credits_used")
            released = queue.o.valid & queue.o.ready
            returned = self.unused_push if name == "push" else 0
            m.d.sync += used.eq(used + self.gain[k] - released - returned)
            m.d.comb += self.room[k].eq(self._room_register(m, name, used, self.gain[k],
                                                            released, returned))
            levels.append(queue.level)
        m.d.comb += self.busy.eq(any_busy(levels))
        return m

    def _room_register(self, m, name, used, gain, released, returned):
        """``used != depth`` as a register worked out from the count and its steps: the
        pick reads ``room`` through its round robin into the hazard compares, and a compare
        of the count in front of it was the smallest configuration's deepest path. The
        count is full next cycle if it is full and its steps cancel, or one short of full
        and it only gains."""
        depth = self._depth
        room = Signal(name=f"{name}_room", init=1)
        lost = released | returned
        full_next = (((used == depth) & (gain == (released + returned))) |
                     ((used == depth - 1) & gain & ~lost))
        m.d.sync += room.eq(~full_next)
        return room
