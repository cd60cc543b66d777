"""The vertex-store bank's probe port (DepGraph, Zhang et al., HPCA 2021, §III-B: the HDTL asks
whether a neighbour is active and may be walked into): probes read the record's flags through
a read port of their own, beside the bank's pipeline instead of through it.

Issue 17: with the probes in the pipeline, which does one op a cycle, an engine running 16
walks kept its bank busy 84% of the cycles (updates, visits and about one probe per two
updates), and the bank, not the walks, set its edges per cycle. A probe only reads the active
and stop bits, so it needs no hazard check: it may see a record one write before or after an
op in flight. That is safe for the walk: an HDTL scans only after every update of its own
batch has been written (``drained``), so what its batch left for it is seen; a vertex another
walk is activating is either queued or left for that walk; a vertex a fold is clearing, seen
still active, costs one stale visit.

Each probe takes a credit of the answer queue, so the port never stalls once it has read.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.busy import any_busy
from hw.lib.config import ConfigError, check_int
from hw.lib.stream.fifo import StreamFIFO
from .layouts import ProbeResult
from .record_update import RecordFlag


__all__ = ["ProbePort"]


class ProbePort(wiring.Component):
    """Probes of a bank's records, answered in order, from a synchronous read port of the
    bank's flags memory (address in one cycle, flags the next, registered the cycle after).

    Parameters
    ----------
    index_width : int
        Bits of a record's index in the bank.
    depth : int
        Entries of the answer queue (at least 2).

    Members
    -------
    base : ``In(32)``
        The partition's first vertex id.
    probe : ``In(stream.Signature(32))``; probed : ``Out(stream.Signature(ProbeResult))``
    addr : ``Out(index_width)``; flags : ``In(len(RecordFlag))``
        The flags read port: address, and the flags read at the last clock edge.
    read : ``Out(1)``
        Verification: the flags of ``addr`` are read at this cycle's clock edge.
    busy : ``Out(1)``
        A probe is inside or an answer not yet taken.
    """

    def __init__(self, *, index_width: int, depth: int = 16):
        check_int("ProbePort", "index_width", index_width)
        if depth < 2:
            raise ConfigError(f"ProbePort: depth must be at least 2, not {depth!r}")
        self._depth = depth
        super().__init__({
            "base": In(32),
            "probe": In(stream.Signature(32)),
            "probed": Out(stream.Signature(ProbeResult)),
            "addr": Out(index_width), "flags": In(len(RecordFlag)),
            "read": Out(1), "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.answers = answers = StreamFIFO(ProbeResult, self._depth)
        wiring.connect(m, answers.o, wiring.flipped(self.probed))

        # Credits: probes read or about to be, plus answers queued.
        used = Signal(range(self._depth + 1))
        take = self.probe.valid & self.probe.ready
        m.d.comb += self.probe.ready.eq(used != self._depth)
        m.d.sync += used.eq(used + take - (answers.o.valid & answers.o.ready))

        reading = Signal()          # the address register holds a probe
        answering = Signal()        # the flags read last edge are its answer
        answered = Signal()         # ``walkable`` holds that answer
        walkable = Signal()
        # The flags are registered before the answer queue: on ECP5 the block RAM's output
        # (no output register) into the queue across the chip was the two-engine build's
        # critical path (issue 17, item 5). It costs a probe one cycle.
        m.d.sync += [reading.eq(take), answering.eq(reading), answered.eq(answering),
                     walkable.eq(self.flags[RecordFlag.ACTIVE] & ~self.flags[RecordFlag.STOP])]
        with m.If(take):
            m.d.sync += self.addr.eq(self.probe.payload - self.base)
        m.d.comb += [
            self.read.eq(reading),
            answers.i.valid.eq(answered),
            answers.i.payload.walkable.eq(walkable),
            self.busy.eq(any_busy(reading, answering, answered, answers.level)),
        ]
        return m
