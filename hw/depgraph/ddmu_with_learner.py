"""The paper's DDMU as one block (Zhang et al., HPCA 2021, §III-B): its run-time side,
:class:`hw.depgraph.ddmu.DDMU` (hash-table lookup of a walk root, shortcut propagation), and
its learning side, :class:`hw.depgraph.hub_index_learner.HubIndexLearner` ("maintaining the
hub index"), side by side with their own memory ports, as :class:`hw.depgraph.top.DepGraph`
builds them. The accelerator joins the two to its engines itself; this block exists to
synthesize the paper's unit alone (``graphgen synth --design depgraph-ddmu``).
"""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hw.lib.config import ConfigError, check_int
from hw.lib.memory.port import MemoryPortSignature
from .program import gas_of
from .ddmu import DDMU, LookupAnswer, LookupRequest, PseudoEdge
from .hub_index_learner import HubIndexLearner, ObserveRequest
from .layouts import VertexUpdate


__all__ = ["DDMUWithLearner"]


class DDMUWithLearner(wiring.Component):
    """The DDMU and the hub-index learner of one accelerator.

    Parameters
    ----------
    algo : str
        The program (:func:`hw.depgraph.program.gas_of`): min or sum Accum.
    addr_width : int
        Width of a line address.
    candidates : int
        The DDMU's answered N and I entries per lookup at most (the HDTL's ``track_entries``).
    loans : int or None
        Sum type: the DDMU's shortcuts per lookup at most (the engines' pseudo-edge buffer);
        None for min type.

    Members
    -------
    hash_base, index_base : ``In(addr_width)``; hash_slots : ``In(32)``
        The hash table and the entry array (:mod:`hw.depgraph.ddmu`).
    lookup : ``In(stream.Signature(LookupRequest))``
    updates : ``Out(stream.Signature(VertexUpdate))``
    pseudo : ``Out(stream.Signature(PseudoEdge))``
    answers : ``Out(stream.Signature(LookupAnswer))``
        The DDMU's streams (:class:`hw.depgraph.ddmu.DDMU`).
    observe : ``In(stream.Signature(ObserveRequest))``
        The learner's observations (:class:`hw.depgraph.hub_index_learner.HubIndexLearner`).
    ddmu_mem, learner_mem : ``Out(MemoryPortSignature(addr_width))``
        The two memory ports, each a client of the accelerator's memory arbiter.
    busy : ``Out(1)``
        Either side holds work.
    lookups, shortcut_uses, probes, observations, learnt, rejected : ``Out(32)``
        The two sides' counters.
    """

    def __init__(self, *, algo: str, addr_width: int, candidates: int = 8,
                 loans: int | None = None):
        check_int("DDMUWithLearner", "addr_width", addr_width, high=32)
        check_int("DDMUWithLearner", "candidates", candidates)
        form = gas_of(algo)
        if loans is not None and form.selective:
            raise ConfigError(f"DDMUWithLearner: loans are for PageRank's pseudo-edges, not {algo}")
        self._algo = algo
        self._addr_width = addr_width
        self._candidates = candidates
        self._loans = loans
        super().__init__({
            "hash_base": In(addr_width), "index_base": In(addr_width), "hash_slots": In(32),
            "lookup": In(stream.Signature(LookupRequest)),
            "updates": Out(stream.Signature(VertexUpdate)),
            "pseudo": Out(stream.Signature(PseudoEdge)),
            "answers": Out(stream.Signature(LookupAnswer)),
            "observe": In(stream.Signature(ObserveRequest)),
            "ddmu_mem": Out(MemoryPortSignature(addr_width)),
            "learner_mem": Out(MemoryPortSignature(addr_width)),
            "busy": Out(1),
            **{name: Out(32) for name in ("lookups", "shortcut_uses", "probes",
                                          "observations", "learnt", "rejected")},
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.ddmu = ddmu = DDMU(algo=self._algo, addr_width=self._addr_width,
                                        candidates=self._candidates, loans=self._loans)
        m.submodules.learner = learner = HubIndexLearner(algo=self._algo,
                                                         addr_width=self._addr_width)
        m.d.comb += [ddmu.hash_base.eq(self.hash_base), ddmu.index_base.eq(self.index_base),
                     ddmu.hash_slots.eq(self.hash_slots),
                     learner.index_base.eq(self.index_base)]
        wiring.connect(m, wiring.flipped(self.lookup), ddmu.lookup)
        for name in ("updates", "pseudo", "answers"):
            wiring.connect(m, getattr(ddmu, name), wiring.flipped(getattr(self, name)))
        wiring.connect(m, wiring.flipped(self.observe), learner.observe)
        wiring.connect(m, ddmu.mem, wiring.flipped(self.ddmu_mem))
        wiring.connect(m, learner.mem, wiring.flipped(self.learner_mem))
        m.d.comb += self.busy.eq(ddmu.busy | learner.busy)
        for name, value in (("lookups", ddmu.lookups), ("shortcut_uses", ddmu.shortcut_uses),
                            ("probes", ddmu.probes), ("observations", learner.observations),
                            ("learnt", learner.learnt), ("rejected", learner.rejected)):
            m.d.comb += getattr(self, name).eq(value)
        return m
