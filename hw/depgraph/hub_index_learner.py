"""DepGraph's hub-index learning (Zhang et al., HPCA 2021, §III-B, "maintaining the hub index"):
the DDMU's write side, which turns an entry into a usable shortcut from two observations.

The HDTL sends an observation ``<entry j, x, y>``: x = the value the walk root (the path's
head) propagated, y = x carried along the core path to its tail (EdgeCompute composed over
the edges the walk took). The learner reads entry j, applies the rule of
:meth:`golden.depgraph.hub_index.HubIndex.observe` in hardware arithmetic and writes the
entry back. y is used rather than the tail's state (the paper's literal pair) because the
tail's state also depends on other routes, and a fit of states can give an eps below every
real path weight, i.e. a wrong SSSP result; see :mod:`golden.depgraph.hub_index`.

Rule, per observation (x0 = the mu field, y0 = the eps field of an I entry):

* flag A: nothing, not counted;
* otherwise ``observations`` += 1; min type with y = 0xFFFFFFFF (saturated, not on the
  line): nothing more;
* flag N, or mu == x (equal bit patterns): mu <- x, eps <- y, flag <- I (replace);
* min type (bfs, sssp, cc; uint32): if y - y0 == x - x0 as exact signed integers (33 bits)
  and y >= x: mu <- 1, eps <- y - x, flag <- A, ``learnt`` += 1. Otherwise the fit is
  refused: ``rejected`` += 1 and replace (flag stays I). y < x cannot hold for non-negative
  path weights, so it is refused too;
* sum type (pagerank; FP32): d2 = x - x0, d1 = y - y0, mu' = d1 / d2, eps' = y - mu' · x,
  each separately rounded to nearest even in this order (as ``np.float32``; the
  :class:`~hw.depgraph.linear_fit.LinearFit`). d2 = ±0 is an equal x: replace. mu' or eps'
  not finite: refused as above. Otherwise mu <- mu', eps <- eps', flag <- A, ``learnt``
  += 1.

Beyond the golden model (float64, equality of numbers): x is compared as bit patterns, with
±0 caught by d2; a min-type fit with y < x and a sum-type fit that is not finite are refused
(a NaN or infinite z would not be paid back by its pseudo-edge: z - z is NaN).

Memory: the entry array of :mod:`hw.depgraph.ddmu` at ``index_base``, eight words
``<head, tail, L, length | flag << 16, mu, eps, 0, 0>``, two a line: entry j at line
``index_base + j // 2``, word ``8 * (j % 2)`` on. A write carries the flag halfword, mu and
eps (bytes 14 to 23 of the entry) in its byte mask and nothing else, so the other entry of
the line and the entry's head, tail, L and length are never rewritten. One observation at a
time: the next is taken once the write has been accepted.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import check_int
from hw.lib.memory.port import MemoryPortSignature
from .program import gas_of
from .ddmu import EntryFlag, _Entry
from .linear_fit import FitOutcome, LinearFit


__all__ = ["HubIndexLearner", "ObserveRequest"]

ObserveRequest = data.StructLayout({"entry": 32, "x": 32, "y": 32})

_U32 = 0xFFFF_FFFF
# Bytes 14 .. 23 of an entry: the flag halfword, mu and eps.
_ENTRY_WMASK = ((1 << 10) - 1) << 14


class HubIndexLearner(wiring.Component):
    """Learning of hub-index entries from the HDTL's observations, one at a time: read the
    entry, apply the rule (see the module), write back the changed fields.

    Parameters
    ----------
    algo : str
        The program (:func:`hw.depgraph.program.gas_of`): min Accum (uint32 fields) or sum
        Accum (FP32 fields).
    addr_width : int
        Width of a line address.

    Members
    -------
    index_base : ``In(addr_width)``
        Line address of the entry array.
    observe : ``In(stream.Signature(ObserveRequest))``
        ``<entry j, x, y>``; taken while idle.
    mem : ``Out(MemoryPortSignature(addr_width))``
        One read of the entry's line per observation, then at most one masked write.
    busy : ``Out(1)``
        An observation has been taken and its write (if any) not yet accepted.
    observations, learnt, rejected : ``Out(32)``
        Observations of entries not in state A, entries turned A, fits refused (as
        ``HubIndex.counts()``'s ``observations``, ``learned``, ``rejected_fits``).
    """

    def __init__(self, *, algo: str, addr_width: int):
        check_int("HubIndexLearner", "addr_width", addr_width, high=32)
        self._is_min = gas_of(algo).selective
        super().__init__({
            "index_base": In(addr_width),
            "observe": In(stream.Signature(ObserveRequest)),
            "mem": Out(MemoryPortSignature(addr_width)),
            "busy": Out(1),
            "observations": Out(32),
            "learnt": Out(32),
            "rejected": Out(32),
        })

    def elaborate(self, platform):
        m = Module()

        request = Signal(ObserveRequest)
        x, y = request.x, request.y
        half = request.entry[0]
        stored = Signal(_Entry)          # the entry as read
        x0, y0 = stored.mu, stored.eps
        written = Signal(_Entry)         # only flag, mu and eps reach the memory

        m.d.comb += [
            self.mem.req.payload.addr.eq(self.index_base + (request.entry >> 1)),
            self.mem.req.payload.wdata.eq(Cat(written, written)),
            self.mem.req.payload.wmask.eq(Mux(half, Const(_ENTRY_WMASK << 32, 64),
                                              Const(_ENTRY_WMASK, 64))),
        ]

        def replace():
            return [written.mu.eq(x), written.eps.eq(y), written.flag.eq(EntryFlag.I)]

        def learn(mu, eps):
            return [written.mu.eq(mu), written.eps.eq(eps), written.flag.eq(EntryFlag.A),
                    self.learnt.eq(self.learnt + 1)]

        reject = self.rejected.eq(self.rejected + 1)

        if not self._is_min:
            m.submodules.fit = fit = LinearFit()
            m.d.comb += [fit.x.eq(x), fit.x0.eq(x0), fit.y.eq(y), fit.y0.eq(y0)]

        line_entries = data.ArrayLayout(_Entry, 2)(self.mem.resp.payload.rdata)
        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += self.observe.ready.eq(1)
                with m.If(self.observe.valid):
                    m.d.sync += request.eq(self.observe.payload)
                    m.next = "READ"
            with m.State("READ"):
                m.d.comb += [self.mem.req.valid.eq(1), self.mem.req.payload.write.eq(0)]
                with m.If(self.mem.req.ready):
                    m.next = "WAIT"
            with m.State("WAIT"):
                m.d.comb += self.mem.resp.ready.eq(1)
                with m.If(self.mem.resp.valid):
                    m.d.sync += stored.eq(line_entries[half])
                    m.next = "DECIDE"
            with m.State("DECIDE"):
                with m.If(stored.flag == EntryFlag.A):
                    m.next = "IDLE"
                with m.Else():
                    m.d.sync += [self.observations.eq(self.observations + 1), *replace()]
                    first = (stored.flag == EntryFlag.N) | (x0 == x)
                    if self._is_min:
                        # Both differences lie in (-2**32, 2**32): 33 bits hold them exactly.
                        fits = ((y - y0)[:33] == (x - x0)[:33]) & (y >= x)
                        with m.If(y == _U32):
                            m.next = "IDLE"
                        with m.Elif(first):
                            m.next = "WRITE"
                        with m.Elif(fits):
                            m.d.sync += learn(1, (y - x)[:32])
                            m.next = "WRITE"
                        with m.Else():
                            m.d.sync += reject
                            m.next = "WRITE"
                    else:
                        with m.If(first):
                            m.next = "WRITE"
                        with m.Else():
                            m.d.comb += fit.start.eq(1)
                            m.next = "FIT"
            if not self._is_min:
                with m.State("FIT"):
                    with m.If(fit.done):
                        # EQUAL keeps the replacement DECIDE chose.
                        with m.If(fit.outcome == FitOutcome.FIT):
                            m.d.sync += learn(fit.mu, fit.eps)
                        with m.Elif(fit.outcome == FitOutcome.REFUSED):
                            m.d.sync += reject
                        m.next = "WRITE"
            with m.State("WRITE"):
                m.d.comb += [self.mem.req.valid.eq(1), self.mem.req.payload.write.eq(1)]
                with m.If(self.mem.req.ready):
                    m.next = "IDLE"
        m.d.comb += self.busy.eq(~self.observe.ready)
        return m
